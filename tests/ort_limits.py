"""What the installed onnxruntime cannot do for a model of tests/models.py, as measured on the H200: the GPU tests skip
it there, saying why, instead of failing on it."""

from __future__ import annotations

import pytest

from ortcopy_doctor.knowledge.ort_versions import parse_version

# onnxruntime-gpu 1.27.0's run() cannot return a sequence output produced by the CUDA EP as numpy ("GetPyObjFromTensor:
# Either data transfer manager or a function to copy data to the host is needed..."): check exits 3 for it. 1.31.1
# returns it; 1.28-1.30 not measured.
DEVICE_SEQUENCE_OUTPUT_SINCE = (1, 31, 0)
DEVICE_SEQUENCE_OUTPUT_MODELS = frozenset({"sequence_output"})


def cannot_run(name: str, ort_version: str) -> str:
    """Why onnxruntime ``ort_version`` cannot run model ``name`` under ``check`` with the CUDA EP ("" where it can)."""
    parsed = parse_version(ort_version)
    if name in DEVICE_SEQUENCE_OUTPUT_MODELS and parsed is not None and parsed < DEVICE_SEQUENCE_OUTPUT_SINCE:
        return (f"onnxruntime {ort_version}'s run() cannot return {name}'s sequence output from the CUDA EP as numpy "
                "(measured on 1.27.0; 1.31.1 can): check exits 3 for it")
    return ""


def skip_if_cannot_run(name: str) -> None:
    import onnxruntime as ort

    reason = cannot_run(name, ort.__version__)
    if reason:
        pytest.skip(reason)
