"""Imported by Python at start-up in the program's interpreter under `ortcopy-doctor run` (watch/child.py).

`run` puts this folder first on the child's PYTHONPATH and names the file to write in ORTCOPY_DOCTOR_RUN_OBSERVATIONS.
This module takes back what `run` changed (sys.path, PYTHONPATH, its variables), imports the environment's own
sitecustomize in its place, and starts recording. Nothing happens without that variable.
"""

import os
import sys

if os.environ.get("ORTCOPY_DOCTOR_RUN_OBSERVATIONS"):
    _here = os.path.dirname(os.path.abspath(__file__))
    _root = os.path.dirname(os.path.dirname(_here))  # the folder that holds this ortcopy_doctor, the parent's own
    _added = _root not in sys.path
    if _added:  # for this import only: the program's sys.path stays as Python made it
        sys.path.insert(0, _root)
    try:
        from ortcopy_doctor.watch import child as _child

        _path, _census = _child.restore_environment()
    except Exception as exc:  # noqa: BLE001 - the program still runs, unrecorded; the parent says why
        _child = None  # type: ignore[assignment]
        print(f"ortcopy-doctor: cannot record in this interpreter ({type(exc).__name__}: {exc})", file=sys.stderr)
    finally:
        if _added and _root in sys.path:
            sys.path.remove(_root)
    if _child is not None:
        _child.import_own_sitecustomize(_here)
        try:
            _child.start(_path, _census)
        except Exception as exc:  # noqa: BLE001
            print(f"ortcopy-doctor: cannot record in this interpreter ({type(exc).__name__}: {exc})", file=sys.stderr)
