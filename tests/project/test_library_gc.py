"""The library leaves the caller's garbage collector as the caller set it: no public call (``check``, ``analyse``,
``load_report``, ``to_json``, ``render_html``, ``render_text``) changes its thresholds, whether it is enabled, or
what is frozen (issue 35: the command's collector policy is set at its entry points alone, cli/gcpolicy.py)."""

from __future__ import annotations

import gc
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest
from render_helpers import fixture_json, load_fixture

# Not Python's defaults, so that a call that set its own (or the defaults) back would show.
CALLER_THRESHOLDS = (1_234, 7, 9)


def _state() -> tuple[tuple[int, int, int], bool, int]:
    return gc.get_threshold(), gc.isenabled(), gc.get_freeze_count()


@pytest.fixture(params=[True, False], ids=["collector-on", "collector-off"])
def caller_collector(request: pytest.FixtureRequest) -> Iterator[None]:
    """The caller's collector: its own thresholds, on or off. (What it froze is left as the process has it: 0 objects
    on Python 3.11 and 3.13, what 3.12 freezes at start-up. Objects the caller froze can be freed meanwhile by
    reference counting, which lowers the count without any call to ``gc``.)"""
    before = gc.get_threshold()
    was_enabled = gc.isenabled()
    gc.set_threshold(*CALLER_THRESHOLDS)
    if not request.param:
        gc.disable()
    try:
        yield
    finally:
        gc.set_threshold(*before)
        if was_enabled:
            gc.enable()


def _check(tmp_path: Path) -> Any:
    import onnx

    from models import conv_net
    from ortcopy_doctor import check

    model = tmp_path / "conv.onnx"
    onnx.save(conv_net(), str(model))
    return check(model, providers=["CPUExecutionProvider"], warmup_runs=1, profiled_runs=1, timed_runs=1,
                 measure_binding=False)


def _failing_check(tmp_path: Path, nodes: list[Any]) -> Any:
    import onnx
    from onnx import TensorProto, helper

    from ortcopy_doctor import check
    from ortcopy_doctor.model.errors import DoctorError

    graph = helper.make_graph(nodes, "fails", [helper.make_tensor_value_info("x", TensorProto.FLOAT, [2, 3])],
                              [helper.make_tensor_value_info("y", TensorProto.FLOAT, None)],
                              [helper.make_tensor("shape", TensorProto.INT64, [1], [5])])
    model = tmp_path / "fails.onnx"
    made = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17), helper.make_opsetid("x.y", 1)])
    made.ir_version = 8  # one this onnxruntime loads
    onnx.save(made, str(model))
    with pytest.raises(DoctorError):  # the failure's session is freed inside the check, never by a collection
        check(model, providers=["CPUExecutionProvider"], warmup_runs=1, profiled_runs=1, timed_runs=1,
              measure_binding=False)


def _session_fails(tmp_path: Path) -> Any:
    from onnx import helper

    return _failing_check(tmp_path, [helper.make_node("Nowhere", ["x"], ["y"], domain="x.y")])  # no kernel: rejected


def _run_fails(tmp_path: Path) -> Any:
    from onnx import helper

    return _failing_check(tmp_path, [helper.make_node("Reshape", ["x", "shape"], ["y"])])  # 6 values into 5


def _analyse(tmp_path: Path) -> Any:
    from ortcopy_doctor import analyse

    return analyse(load_fixture("cpu_op_between", tmp_path).evidence)


def _load_report(tmp_path: Path) -> Any:
    from ortcopy_doctor import load_report

    return load_report(fixture_json("cpu_op_between", tmp_path))


def _to_json(tmp_path: Path) -> Any:
    return load_fixture("cpu_op_between", tmp_path).to_json()


def _render_html(tmp_path: Path) -> Any:
    from ortcopy_doctor import render_html

    return render_html(load_fixture("cpu_op_between", tmp_path))


def _render_text(tmp_path: Path) -> Any:
    from ortcopy_doctor import render_text

    return render_text(load_fixture("cpu_op_between", tmp_path))


CALLS: dict[str, Callable[[Path], Any]] = {"check": _check, "check, its session rejected": _session_fails,
                                           "check, its runs failing": _run_fails, "analyse": _analyse, "load_report": _load_report,
                                           "to_json": _to_json, "render_html": _render_html,
                                           "render_text": _render_text}


@pytest.mark.parametrize("name", list(CALLS))
def test_a_library_call_leaves_the_caller_s_collector_as_it_was(name: str, tmp_path: Path,
                                                                 caller_collector: None) -> None:
    before = _state()
    CALLS[name](tmp_path)
    assert _state() == before


# Every function of gc that changes how the process collects, and a collection itself, which walks the caller's heap
# (and runs its finalizers): a failed session is freed by clearing its traceback's frames (collect/session.py).
_SETTINGS = ("disable", "enable", "freeze", "unfreeze", "set_threshold", "set_debug", "collect")


@pytest.mark.parametrize("name", list(CALLS))
def test_a_library_call_calls_none_of_gc_s_settings_nor_collects(name: str, tmp_path: Path,
                                                    monkeypatch: pytest.MonkeyPatch) -> None:
    # a pause restored before the call returns leaves the state as it was: the calls themselves are what is seen
    called: list[str] = []
    for setting in _SETTINGS:
        monkeypatch.setattr(gc, setting, lambda *_args, _name=setting: called.append(_name))
    CALLS[name](tmp_path)
    assert called == []
