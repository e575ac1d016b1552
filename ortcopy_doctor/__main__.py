"""``python -m ortcopy_doctor``."""

if __name__ == "__main__":  # first of all: Ctrl-C while the command's modules load prints one line, exit 130
    from ortcopy_doctor.cli import interrupts as _interrupts

    _interrupts.install_startup()
    from ortcopy_doctor.model.gcpause import for_the_command as _for_the_command

    _for_the_command()  # fewer garbage collections over the modules the command loads (model/gcpause.py)

from ortcopy_doctor.cli.app import main

if __name__ == "__main__":
    main()
