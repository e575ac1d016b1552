"""``python -m ortcopy_doctor``."""

from ortcopy_doctor.cli.app import main

if __name__ == "__main__":
    main()
