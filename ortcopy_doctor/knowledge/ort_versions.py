"""ONNX Runtime behaviour that depends on its version, as measured on the released wheels.

``OrtValue.from_dlpack`` (the public Python wrapper, which the generated torch/cupy binding code calls): absent in
the onnxruntime 1.24.4 and 1.25.0 wheels, present from 1.26.0 (checked in each wheel's
``onnxruntime/capi/onnxruntime_inference_collection.py``; the C binding had it earlier, behind a private attribute).

Node names in the profile JSON (``enable_profiling``): written as they are, unescaped, up to onnxruntime 1.30, so
a name holding a quote, a backslash or a control character makes the profile invalid JSON or changes the name
(``a\\tb`` reads back as a tab); escaped from 1.31.0. Measured 2026-12-01 with a node named ``relu "one"``,
newline, tab, ``\\end`` on the CPU wheels of 1.20.1, 1.22.0, 1.24.4, 1.26.0, 1.27.0, 1.29.0, 1.30.0 (unescaped)
and 1.31.0, 1.31.1, 1.32.0 (escaped).

``IOBinding.get_outputs()``: up to onnxruntime 1.27 the OrtValues it returns follow the binding, so rebinding an
output (the generated code swaps a state's buffers between runs) changes what an earlier ``get_outputs()`` gave;
from 1.30 they keep the value of their run. Measured 2026-12-01 on the CPU wheels of 1.20.2 (onnxruntime-gpu),
1.22.0, 1.24.4, 1.26.0, 1.27.0 (follow) and 1.30.0, 1.31.1 (keep); 1.28 and 1.29 not measured. The generated code
returns the state buffer itself, which is right on all of them.
"""

from __future__ import annotations

import re

FROM_DLPACK_SINCE = (1, 26, 0)
PROFILE_NAMES_ESCAPED_SINCE = (1, 31, 0)


def parse_version(version: str) -> tuple[int, ...] | None:
    """(1, 31, 1) from "1.31.1" (also "1.32.0.dev20261101", "1.31.1+cu13"); None where it is not a version."""
    match = re.match(r"(\d+)\.(\d+)(?:\.(\d+))?", version or "")
    if match is None:
        return None
    return tuple(int(part or 0) for part in match.groups())


def has_from_dlpack(version: str) -> bool:
    """Whether onnxruntime ``version`` has the public ``OrtValue.from_dlpack``; False where the version is unknown."""
    parsed = parse_version(version)
    return parsed is not None and parsed >= FROM_DLPACK_SINCE


def profile_names_escaped(version: str) -> bool:
    """Whether onnxruntime ``version`` escapes node names in its profile JSON; True where the version is unknown
    (the current behaviour)."""
    parsed = parse_version(version)
    return parsed is None or parsed >= PROFILE_NAMES_ESCAPED_SINCE


__all__ = ["FROM_DLPACK_SINCE", "PROFILE_NAMES_ESCAPED_SINCE", "has_from_dlpack", "parse_version",
           "profile_names_escaped"]
