"""What the recording tools share: a `check` run in a fresh process of this checkout, kept as a gzipped fixture.

tools/record_sweeps.py (a check at several shapes) and tools/record_provider_choice.py (a check that weighs CUDA
against the CPU provider) record the same way: the command as users run it, its exit code and the ends of its
output, and the JSON it wrote, beside the onnxruntime version that made it.
"""

from __future__ import annotations

import gzip
import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent


def record_check(name: str, model: str, flags: list[str], out: Path, *, fixture_format: str, key: str,
                 timeout: float) -> dict[str, Any]:
    """Run ``ortcopy-doctor check MODEL FLAGS --json`` (this checkout's package) and write ``OUT/NAME.json.gz``: the
    fixture's format, the onnxruntime version, the model's file name, the flags, the exit code, the head of stdout,
    the tail of stderr and, under ``key``, the JSON the check wrote (absent where it wrote none). Returns the entry."""
    written = out / f"{name}.tmp.json"
    cmd = [sys.executable, "-m", "ortcopy_doctor", "check", model, *flags, "--json", str(written), "--no-html"]
    path = os.pathsep.join([str(ROOT)] + ([os.environ["PYTHONPATH"]] if os.environ.get("PYTHONPATH") else []))
    proc = subprocess.run(cmd, cwd=ROOT, env=dict(os.environ, PYTHONPATH=path), capture_output=True, text=True,
                          timeout=timeout)
    import onnxruntime  # the version of the package the check ran with (the same environment)

    entry: dict[str, Any] = {"format": fixture_format, "format_version": 1, "name": name,
                             "ort_version": onnxruntime.__version__, "model": Path(model).name, "flags": flags,
                             "returncode": proc.returncode, "stdout_head": proc.stdout[:3000],
                             "stderr_tail": proc.stderr[-4000:]}
    if written.is_file():
        entry[key] = json.loads(written.read_text(encoding="utf-8"))
        written.unlink()
    with gzip.open(out / f"{name}.json.gz", "wt", encoding="utf-8") as f:
        json.dump(entry, f, separators=(",", ":"))
    return entry
