"""Several watches of one session at a time: the pytest fixture and a watch inside the test, `run` and the
program's own watch, or two `with watch(session)` blocks nested. Every active watch records every call and bind."""

from __future__ import annotations

import numpy as np
import onnx
import onnxruntime as ort
import pytest

import models
from ortcopy_doctor import watch


@pytest.fixture(scope="module")
def session(tmp_path_factory):
    path = tmp_path_factory.mktemp("nesting") / "cpu_op_between.onnx"
    onnx.save(models.cpu_op_between(), str(path))
    return ort.InferenceSession(str(path), providers=["CPUExecutionProvider"])


X = np.ones((2, 64), np.float32)


def _serve(session) -> None:
    binding = session.io_binding()
    binding.bind_cpu_input("x", X)
    binding.bind_output("y")
    session.run_with_iobinding(binding)


def _vias(w) -> list[str]:
    return [use.via for call in w.report.calls for use in call.inputs]


def test_an_enclosing_watch_records_the_binds_made_inside_a_nested_one(session):
    with watch(session) as outer:
        with watch(session) as inner:
            _serve(session)
    assert _vias(outer) == _vias(inner) == ["bind_cpu_input"]


def test_an_enclosing_watch_still_records_binds_after_a_nested_one_ended(session):
    """The inner watch's end once removed the outer one's bind recording: `bound_before_watch`, no feed copy."""
    with watch(session) as outer:
        with watch(session):
            _serve(session)
        _serve(session)
    assert _vias(outer) == ["bind_cpu_input", "bind_cpu_input"]
    assert [(t.call, t.kind.value, t.tensor) for t in outer.report.predicted.host_transfers()] == [
        (0, "feed", "x"), (0, "fetch", "y"), (1, "feed", "x"), (1, "fetch", "y")]


def test_the_enclosing_watch_fails_the_assertion_for_a_feed_made_after_a_nested_watch(session):
    with watch(session) as outer:
        with watch(session):
            _serve(session)
        _serve(session)
    with pytest.raises(AssertionError, match=r"^2 host<->device transfer\(s\) in the watched calls \(predicted"):
        outer.report.assert_no_host_transfers(except_outputs=["y"], predicted=True)


def test_watches_ended_out_of_order_leave_the_session_as_it_was(session):
    first, second = watch(session), watch(session)
    first.__enter__()
    second.__enter__()
    first.__exit__(None, None, None)
    session.run(None, {"x": X})  # the second watch only
    second.__exit__(None, None, None)
    session.run(None, {"x": X})  # neither
    assert "run" not in session.__dict__ and "run_with_iobinding" not in session.__dict__
    assert (len(first.calls), len(second.calls)) == (0, 1)


@pytest.mark.gpu
def test_nested_watches_on_cuda_share_one_cupti_tracer_and_both_get_its_records(tmp_path):
    """CUPTI traces one tracer at a time per process: the inner watch's tracer once took the outer one's records
    and stopped its tracing, so the outer watch saw no copy."""
    path = tmp_path / "cpu_op_between.onnx"
    onnx.save(models.cpu_op_between(), str(path))
    cuda = ort.InferenceSession(str(path), providers=["CUDAExecutionProvider", "CPUExecutionProvider"])
    assert cuda.get_providers()[0] == "CUDAExecutionProvider"
    with watch(cuda) as outer:
        with watch(cuda) as inner:
            cuda.run(None, {"x": X})
    assert outer.observations.census_backend == inner.observations.census_backend == "cupti-python"
    seen = [[(r.direction, r.bytes) for r in c.records] for c in outer.calls]
    assert seen == [[(r.direction, r.bytes) for r in c.records] for c in inner.calls]
    assert ("host_to_device", 512) in seen[0] and ("device_to_host", 256) in seen[0]  # the feed x, the fetch y
