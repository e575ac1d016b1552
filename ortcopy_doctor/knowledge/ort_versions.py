"""ONNX Runtime behaviour that depends on its version, as measured on the released wheels.

``OrtValue.from_dlpack`` (the public Python wrapper, which the generated torch/cupy binding code calls): absent in
the onnxruntime 1.24.4 and 1.25.0 wheels, present from 1.26.0 (checked in each wheel's
``onnxruntime/capi/onnxruntime_inference_collection.py``; the C binding had it earlier, behind a private attribute).
"""

from __future__ import annotations

import re

FROM_DLPACK_SINCE = (1, 26, 0)


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


__all__ = ["FROM_DLPACK_SINCE", "has_from_dlpack", "parse_version"]
