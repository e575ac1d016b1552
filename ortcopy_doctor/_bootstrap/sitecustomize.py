"""Started by `ortcopy-doctor run --subprocess` (or for another interpreter): record the program's sessions.

Python imports `sitecustomize` at start-up from sys.path; `ortcopy-doctor run` puts this folder first on the child's
PYTHONPATH and names the file to write in ORTCOPY_DOCTOR_RUN_OBSERVATIONS. Nothing happens without that variable.
"""

import os
import sys

if os.environ.get("ORTCOPY_DOCTOR_RUN_OBSERVATIONS"):
    try:
        from ortcopy_doctor.watch.program import start_in_child

        start_in_child(os.environ["ORTCOPY_DOCTOR_RUN_OBSERVATIONS"])
    except Exception as exc:  # noqa: BLE001 - the program still runs, unrecorded; the parent says why
        print(f"ortcopy-doctor: cannot record in this interpreter ({type(exc).__name__}: {exc})", file=sys.stderr)
