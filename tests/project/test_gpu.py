"""Live checks on a CUDA GPU (run there with `pytest -m gpu`): the report's copies are CUPTI's copies."""

from __future__ import annotations

from ortcopy_doctor.model import codec
import json
from pathlib import Path

import onnx
import pytest

import models
from transfer_checks import census_totals, report_totals

pytestmark = pytest.mark.gpu

MODELS = ["conv_net", "cpu_op_between", "data_dependent_shape", "sequence_output", "map_output", "if_on_device",
          "stateful"]


@pytest.fixture(scope="module")
def tracer_cls():
    ort = pytest.importorskip("onnxruntime")
    if "CUDAExecutionProvider" not in ort.get_available_providers():
        pytest.skip("no CUDA EP in this onnxruntime")
    from ortcopy_doctor.collect.census import CuptiTracer, CuptiUnavailable

    try:
        CuptiTracer()
    except CuptiUnavailable as exc:
        pytest.skip(str(exc))
    return CuptiTracer


def _check(tmp_path: Path, name: str):
    from ortcopy_doctor import check

    from ort_limits import skip_if_cannot_run

    skip_if_cannot_run(name)
    path = tmp_path / f"{name}.onnx"
    onnx.save(models.ALL[name](), str(path))
    report = check(path, dims={"batch": 2}, timed_runs=3)
    assert report.evidence.session.active_providers[0] == "CUDAExecutionProvider"
    return path, report


@pytest.mark.parametrize("name", MODELS)
def test_reported_copies_equal_cupti_census_of_plain_run(tmp_path, tracer_cls, name):
    import onnxruntime as ort
    from ortcopy_doctor.collect.feeds import build_feeds

    path, report = _check(tmp_path, name)
    arrays, _ = build_feeds(report.evidence.model.inputs, {"batch": 2})
    session = ort.InferenceSession(str(path), providers=["CUDAExecutionProvider", "CPUExecutionProvider"])
    session.run(None, arrays)
    with tracer_cls() as tracer:
        session.run(None, arrays)
    copies = json.loads(json.dumps(codec.to_builtins(report.copies)))
    assert report_totals(copies) == census_totals(codec.to_builtins(tracer.census))


@pytest.mark.parametrize("name", MODELS)
def test_binding_code_runs_and_leaves_only_unremovable_copies(tmp_path, tracer_cls, name):

    _, report = _check(tmp_path, name)
    namespace: dict = {}
    exec(compile(report.binding.code, "<binding code>", "exec"), namespace)  # noqa: S102 - generated code under test
    with tracer_cls() as tracer:
        namespace["infer"]()
    copies = json.loads(json.dumps(codec.to_builtins(report.copies)))
    assert census_totals(codec.to_builtins(tracer.census)) == report_totals(copies, only_unremovable=True)
