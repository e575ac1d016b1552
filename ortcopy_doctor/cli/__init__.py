"""The command line (``ortcopy_doctor.cli.app``): parses arguments and calls the API; it holds no logic.

Kept empty so that ``ortcopy_doctor.cli.interrupts`` loads without typer and rich.
"""
