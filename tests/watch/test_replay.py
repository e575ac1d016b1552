"""The replay after the program (issue 33, part 4): each session's calls timed again on the provider it ran on and on
the other one, with the program's own inputs (collect/ep_compare.py, watch/replay.py).

CI has no GPU: the measurement is exercised here on two CPU sessions (the "other" provider is the CPU too), which
runs every step (the recorder keeping the inputs, the files, the sessions, the timing in turn, the report); which
provider wins on an H200 is in the real-program fixtures (tests/watch/test_real_programs.py)."""

from __future__ import annotations

import importlib

import numpy as np
import pytest
import onnx
import onnxruntime as ort
from onnx import TensorProto, helper

from ortcopy_doctor.collect.ep_compare import MIN_ROUNDS, compare_providers, shape_text, switch_cost
from ortcopy_doctor.watch.program import REPLAY_SIGNATURES, run_program

CPU = "CPUExecutionProvider"


def _relu(path) -> str:
    graph = helper.make_graph([helper.make_node("Relu", ["x"], ["y"])], "relu",
                              [helper.make_tensor_value_info("x", TensorProto.FLOAT, ["n", 4])],
                              [helper.make_tensor_value_info("y", TensorProto.FLOAT, ["n", 4])])
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17)])
    model.ir_version = 10
    onnx.save(model, str(path))
    return str(path)


def _sessions(path):
    return [ort.InferenceSession(path, providers=[CPU]) for _ in range(2)]


def test_both_sessions_are_timed_in_turn_with_as_many_samples_each(tmp_path):
    used, other = _sessions(_relu(tmp_path / "relu.onnx"))
    feeds = {"x": np.ones((2, 4), np.float32)}
    result = compare_providers(used, other, feeds, shape="2x4", program_calls=7, budget_s=0.0)
    assert (result.shape, result.program_calls, result.used.provider, result.other.provider) == ("2x4", 7, CPU, CPU)
    assert len(result.used.samples_ms) == len(result.other.samples_ms) == MIN_ROUNDS
    # the ratio is median(used) / median(other), within what rounding the medians to 4 places can move it
    u, o, r = result.used.median_ms, result.other.median_ms, 5e-5
    assert (u - r) / (o + r) - 1e-4 <= result.ratio <= (u + r) / (o - r) + 1e-4
    assert result.used.median_ms == pytest.approx(float(np.median(result.used.samples_ms)), abs=1e-4)


def test_the_shape_changing_at_every_call_is_timed_call_by_call(tmp_path):
    session, _ = _sessions(_relu(tmp_path / "relu.onnx"))
    feeds = [{"x": np.ones((n, 4), np.float32)} for n in (1, 2, 3)]
    timing = switch_cost(session, feeds, "HEURISTIC", rounds=2)
    assert (timing.option, len(timing.samples_ms)) == ("HEURISTIC", 6)


def test_shapes_are_written_in_the_inputs_order():
    feeds = {"b": np.zeros((2, 1, 128), np.float32), "a": np.zeros((1, 576), np.float32), "sr": np.array(16000)}
    assert shape_text(feeds, ["a", "b", "sr"]) == "1x576, 2x1x128, scalar"


def test_a_program_s_first_signatures_are_kept_and_replayed_with_their_call_counts(tmp_path, monkeypatch):
    # The other provider is the CPU as well here: no GPU in CI (the module looks it up by this name at replay time).
    monkeypatch.setattr(importlib.import_module("ortcopy_doctor.watch.replay"), "CUDA", CPU)
    model = _relu(tmp_path / "relu.onnx")
    script = tmp_path / "prog.py"
    script.write_text(
        "import numpy as np, onnxruntime as ort\n"
        f"s = ort.InferenceSession({model!r}, providers=['CPUExecutionProvider'])\n"
        "for n in (1, 2, 1, 3, 4, 1, 2):\n"
        "    s.run(None, {'x': np.full((n, 4), -1.0, np.float32)})\n"
        "s.run(None, {'x': [[1.0, 2.0, 3.0, 4.0]]})  # a list: kept as numpy's type, cast to the input's\n")
    from ortcopy_doctor.watch.program import watch_program, parse_command

    command = ["python", str(script)]
    report, code, _ = watch_program(parse_command(command), command, census=False, replay=True)
    assert code == 0
    [replay] = report.replays
    assert (replay.session, replay.used, replay.other, replay.error) == ("relu.onnx", CPU, CPU, "")
    # the first REPLAY_SIGNATURES signatures the program met, each with the program's calls at it
    assert [(s.shape, s.program_calls) for s in replay.shapes] == [("1x4", 4), ("2x4", 2), ("3x4", 1)]
    assert len(replay.shapes) == REPLAY_SIGNATURES
    assert replay.switch == []  # not a CUDA session, and no convolution


def test_no_replay_where_asked_for_none(tmp_path):
    model = _relu(tmp_path / "relu.onnx")
    script = tmp_path / "prog.py"
    script.write_text("import numpy as np, onnxruntime as ort\n"
                      f"s = ort.InferenceSession({model!r}, providers=['CPUExecutionProvider'])\n"
                      "s.run(None, {'x': np.ones((1, 4), np.float32)})\n")
    report, code = run_program(["python", str(script)], census=False)
    assert (code, report.replays) == (0, [])
