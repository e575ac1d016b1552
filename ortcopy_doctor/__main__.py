"""``python -m ortcopy_doctor``."""

if __name__ == "__main__":  # first of all: Ctrl-C while the command's modules load prints one line, exit 130
    from ortcopy_doctor.cli import interrupts as _interrupts

    _interrupts.install_startup()
    import gc as _gc

    from ortcopy_doctor.cli.gcpolicy import COMMAND_THRESHOLDS as _THRESHOLDS

    _gc.set_threshold(*_THRESHOLDS)  # the command's collector policy (cli/gcpolicy.py); the library sets none

from ortcopy_doctor.cli.app import main

if __name__ == "__main__":
    main()
