"""State carried between calls of one session (`ortcopy-doctor run`): an output fed back as the next call's input is
a round trip only where the program is seen feeding it back (the same array, a view of it, the same buffer). Equal
bytes alone are no proof: a program that feeds the same constant every call to a model that returns it unchanged
(Relu of ones) gives the same link as one that feeds back a copy, and the recorder keeps nothing that tells the two
apart, so such state is reported as a *possible* round trip and not counted."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import onnx
from onnx import TensorProto, helper

from ortcopy_doctor.watch.observations import Placement, WatchObservations
from ortcopy_doctor.report.pipeline import (
    POSSIBLE_ROUND_TRIP,
    ROUND_TRIP,
    PipelineCall,
    PipelineObservations,
    SessionRecord,
    ValueInfo,
    ValueLink,
    analyse_pipeline,
)
from ortcopy_doctor.render.pipeline import render_pipeline_html, render_pipeline_text
from ortcopy_doctor.watch.program import run_program
from render_helpers import child_env

CUDA = "CUDAExecutionProvider"


def _relu(path: Path) -> str:
    """y = Relu(x) on [2, 3] float32: ones in, the same ones out."""
    graph = helper.make_graph([helper.make_node("Relu", ["x"], ["y"])], "relu",
                              [helper.make_tensor_value_info("x", TensorProto.FLOAT, [2, 3])],
                              [helper.make_tensor_value_info("y", TensorProto.FLOAT, [2, 3])])
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17)])
    model.ir_version = 8
    target = path / "relu.onnx"
    onnx.save(model, str(target))
    return str(target)


_PROGRAM = """
import numpy as np
import onnxruntime as ort
s = ort.InferenceSession({model!r}, providers=["CPUExecutionProvider"])
y = np.ones((2, 3), np.float32)
for _ in range(5):
{body}
"""


def _program(tmp_path: Path, body: str) -> list[str]:
    script = tmp_path / "prog.py"
    script.write_text(_PROGRAM.format(model=_relu(tmp_path), body=body))
    return ["python", str(script)]


def _state(report) -> list[tuple]:
    (pipeline,) = report.pipelines
    return [(h.output, h.input, h.how, h.kind, h.calls) for h in pipeline.state]


def test_a_constant_the_model_returns_unchanged_is_no_round_trip(tmp_path):
    """The finding: np.ones fed every call, Relu(ones) == ones; the program never feeds `y` back."""
    report, code = run_program(_program(tmp_path, "    y = s.run(None, {'x': np.ones((2, 3), np.float32)})[0]"))
    assert code == 0
    assert report.round_trips == []
    assert _state(report) == [("y", "x", "hash", POSSIBLE_ROUND_TRIP, 4)]
    assert [h.output for h in report.possible_round_trips] == ["y"]
    # led by the bytes per iteration (predicted for CUDA: no device provider here), the round trips after
    assert report.verdict.startswith("48 B cross PCIe per iteration of relu.onnx")
    assert "; no host round trip between stages" in report.verdict
    assert "1 possible state round trip(s), traced by equal bytes alone (not counted)" in report.verdict
    (possible,) = report.possible_round_trips
    assert possible.message.startswith("possible state round trip: output `y` of relu.onnx has the same bytes as "
                                       "input `x` of the next call (4 call(s)), but equal bytes alone do not show")
    assert possible.fix.startswith("if the program feeds `y` back as `x`")
    assert "only if the program does feed `y` back as `x`" in possible.code
    assert "possible state round trip" in render_pipeline_text(report)


def test_the_output_itself_fed_back_is_a_round_trip(tmp_path):
    report, _ = run_program(_program(tmp_path, "    y = s.run(None, {'x': y})[0]"))
    assert _state(report) == [("y", "x", "object", ROUND_TRIP, 4)]
    assert [h.kind for h in report.round_trips] == [ROUND_TRIP]
    assert report.possible_round_trips == []
    assert report.verdict.startswith("48 B cross PCIe per iteration of relu.onnx")
    assert "; 1 host round trip(s) between stages" in report.verdict


def test_a_view_of_the_output_fed_back_is_a_round_trip(tmp_path):
    report, _ = run_program(_program(tmp_path, "    y = s.run(None, {'x': y[:, :]})[0]"))
    assert _state(report) == [("y", "x", "view", ROUND_TRIP, 4)]


def test_a_copy_of_the_output_fed_back_is_only_a_possible_round_trip(tmp_path):
    """A limit, said in the report: a copy is traced by equal bytes alone, as the constant above is."""
    report, _ = run_program(_program(tmp_path, "    y = s.run(None, {'x': y.copy()})[0]"))
    assert _state(report) == [("y", "x", "hash", POSSIBLE_ROUND_TRIP, 4)]
    assert report.round_trips == []


def test_equal_bytes_between_two_sessions_are_still_a_round_trip(tmp_path):
    """Between sessions a copy found by equal bytes stays a round trip (docs/pipelines.md, text_pipeline.py):
    only state, where a model returning its constant input unchanged is common, needs more than equal bytes."""
    obs = _observations(how="hash", two_sessions=True)
    (rt,) = analyse_pipeline(obs).round_trips
    assert (rt.kind, rt.how, rt.state) == (ROUND_TRIP, "hash", False)


def test_recorded_observations_of_state_by_equal_bytes_replay_as_possible():
    """The analysis alone (no onnxruntime), as recorded GPU runs are replayed: census on both ends, still possible."""
    report = analyse_pipeline(_observations(how="hash"))
    assert report.round_trips == []
    (possible,) = report.possible_round_trips
    assert (possible.kind, possible.calls, possible.basis) == (POSSIBLE_ROUND_TRIP, 2, "placement")
    assert report.to_dict()["round_trips"] == []
    assert json.loads(report.to_json())["pipelines"][0]["state"][0]["kind"] == POSSIBLE_ROUND_TRIP
    assert "possible state round trip" in render_pipeline_html(report)
    same = analyse_pipeline(_observations(how="object"))
    assert [(h.kind, h.calls) for h in same.round_trips] == [(ROUND_TRIP, 2)]


def _observations(*, how: str, two_sessions: bool = False) -> PipelineObservations:
    """Three calls of one session (x -> y, 4 KB, both on CUDA) whose `x` is linked to the previous call's `y` by
    ``how``; or, ``two_sessions``, two iterations of a.onnx then b.onnx, b's `x` linked to a's `y`."""
    from ortcopy_doctor.watch.observations import CallObservation, TensorUse

    placement = Placement(source="session", provider=CUDA, inputs_on_device={"x": "Relu 'r' (CUDA)"},
                          outputs_on_device={"y": "Relu 'r' (CUDA)"})
    order = [0, 1, 0, 1] if two_sessions else [0, 0, 0]
    watch_calls: list[list[CallObservation]] = [[], []]
    calls = []
    for seq, session in enumerate(order):
        index = len(watch_calls[session])
        watch_calls[session].append(CallObservation(index=index, method="run",
                                                    inputs=[TensorUse("x", "input", "numpy", "cpu", 4096)],
                                                    outputs=[TensorUse("y", "output", "returned", "cpu", 4096)]))
        linked = session == 1 if two_sessions else seq > 0
        link = ValueLink(seq - 1, "y", how) if linked else None
        calls.append(PipelineCall(seq=seq, session=session, call=index, method="run", wrap_start_ns=seq * 100,
                                  wrap_end_ns=seq * 100 + 10, start_ns=seq * 100 + 1, end_ns=seq * 100 + 9,
                                  inputs=[ValueInfo("x", "input", "numpy", "cpu", 4096, link)],
                                  outputs=[ValueInfo("y", "output", "numpy", "cpu", 4096)]))
    records = [SessionRecord(label=label, model=label, observations=WatchObservations(
        active_providers=[CUDA, "CPUExecutionProvider"], placement=placement, calls=watch_calls[i]))
        for i, label in enumerate(["a.onnx", "b.onnx"][:1 + two_sessions])]
    return PipelineObservations(sessions=records, calls=calls)


def test_fail_on_round_trip_is_not_triggered_by_a_possible_one(tmp_path):
    """`--fail-on round-trip` fails on round trips, not on state traced by equal bytes alone."""
    command = _program(tmp_path, "    y = s.run(None, {'x': np.ones((2, 3), np.float32)})[0]")
    env = child_env()
    proc = subprocess.run([sys.executable, "-m", "ortcopy_doctor", "run", "--no-html", "--fail-on", "round-trip", "--",
                           *command], cwd=tmp_path, env=env, capture_output=True, text=True, timeout=300)
    assert proc.returncode == 0, proc.stderr
    assert "possible state round trip(s), traced by equal bytes alone (not counted)" in proc.stderr
