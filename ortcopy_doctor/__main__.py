"""``python -m ortcopy_doctor``."""

if __name__ == "__main__":  # first of all: Ctrl-C while the command's modules load prints one line, exit 130
    from ortcopy_doctor.cli import interrupts as _interrupts

    _interrupts.install_startup()
    from ortcopy_doctor.cli import gcpolicy as _gcpolicy

    _gcpolicy.for_the_command()  # the command's collector policy (cli/gcpolicy.py); the library sets none

from ortcopy_doctor.cli.app import main

if __name__ == "__main__":
    main()
