"""A pipeline is the program's loop (issue 33): analysis/loops.py finds the iterations from the order of the session
calls alone, on call sequences built here with exact timestamps; and ``ortcopy-doctor run`` on a real OCR-like
program (detector, classifier called a varying number of times, recogniser, each input cut from the original image)
reports one loop of the three sessions, its host stretches named by the program's own lines."""

from __future__ import annotations

import gzip
import json
from pathlib import Path

import onnx
import pytest
from onnx import TensorProto, helper

from ortcopy_doctor.analysis.loops import (
    CALL,
    HOST,
    LoopCall,
    ShapeFirst,
    find_loops,
    first_calls_at_shape,
    iteration_bytes,
    stage_table,
)
from ortcopy_doctor.watch.observations import CallObservation, Placement, TensorUse, WatchObservations
from ortcopy_doctor.report.pipeline import (
    PipelineCall,
    PipelineObservations,
    SessionRecord,
    ValueInfo,
    ValueLink,
    analyse_pipeline,
    load_pipeline_observations,
)
from ortcopy_doctor.render.pipeline import render_pipeline_text
from ortcopy_doctor.watch.program import run_program
from render_helpers import TESTS

DET, CLS, REC, CELL = 0, 1, 2, 3
LOOP_SITE = {DET: "ocr.py:detect:10", CLS: "ocr.py:classify:20", REC: "ocr.py:recognise:30", CELL: "s.py:step:5"}


def _calls(sessions: list[int], sites: dict[int, str] | None = None, *, call_ns: int = 10, gap_ns: int = 3,
           shapes: list[str] | None = None) -> list[LoopCall]:
    """One call per session in order, each ``call_ns`` long plus its index (so every duration differs), ``gap_ns``
    plus twice its index of host time after it; each at its loop site unless ``sites`` says otherwise."""
    sites = {**LOOP_SITE, **(sites or {})}
    calls, t = [], 0
    for i, s in enumerate(sessions):
        end = t + call_ns + i
        calls.append(LoopCall(session=s, start_ns=t, end_ns=end, site=sites[s], shape=shapes[i] if shapes else ""))
        t = end + gap_ns + 2 * i
    return calls


def _iteration_calls(calls: list[LoopCall]) -> list[list[int]]:
    return [it.calls for loop in find_loops(calls) for it in loop.iterations]


# --- finding the loop ------------------------------------------------------------------------------------------------


def test_iterations_start_at_each_call_of_the_first_session():
    """det, cls a varying number of times (none in the third iteration), rec once or twice: one loop from det."""
    sessions = [DET, CLS, CLS, CLS, REC, REC, DET, CLS, REC, DET, REC, DET, CLS, CLS, REC, REC]
    (loop,) = find_loops(_calls(sessions))
    assert loop.head == (DET, LOOP_SITE[DET])
    assert loop.sessions == [DET, CLS, REC]
    assert [it.calls for it in loop.iterations] == [[0, 1, 2, 3, 4, 5], [6, 7, 8], [9, 10], [11, 12, 13, 14, 15]]
    assert (loop.before, loop.after) == ([], [])


def test_a_first_iteration_with_fewer_calls_is_an_iteration():
    """No box in the first image (det, rec), then boxes (det, cls, rec): the first is an iteration, not a warm-up."""
    (loop,) = find_loops(_calls([DET, REC] + [DET, CLS, REC] * 3))
    assert [it.calls for it in loop.iterations] == [[0, 1], [2, 3, 4], [5, 6, 7], [8, 9, 10]]
    assert loop.before == []


def test_warm_up_calls_before_the_loop_are_shown_apart():
    """Each session called once from a warm-up function first: those calls are before the loop, not an iteration."""
    sessions = [DET, CLS, REC] + [DET, CLS, REC] * 3
    sites = [f"ocr.py:warm_up:{n}" for n in (1, 2, 3)] + [LOOP_SITE[s] for s in sessions[3:]]
    calls = [LoopCall(session=c.session, start_ns=c.start_ns, end_ns=c.end_ns, site=site)
             for c, site in zip(_calls(sessions), sites)]
    (loop,) = find_loops(calls)
    assert [it.calls for it in loop.iterations] == [[3, 4, 5], [6, 7, 8], [9, 10, 11]]
    assert [(s.kind, s.call, s.next_call) for s in loop.before] == [
        (CALL, 0, -1), (HOST, 0, 1), (CALL, 1, -1), (HOST, 1, 2), (CALL, 2, -1), (HOST, 2, 3)]


def test_two_loops_one_after_the_other_are_two_pipelines():
    """Detector and classifier three times, then a streaming cell four times: two loops."""
    first, second = find_loops(_calls([DET, CLS] * 3 + [CELL] * 4))
    assert (first.head[0], first.sessions, [it.calls for it in first.iterations]) == (
        DET, [DET, CLS], [[0, 1], [2, 3], [4, 5]])
    assert (second.head[0], second.sessions, [it.calls for it in second.iterations]) == (
        CELL, [CELL], [[6], [7], [8], [9]])
    assert second.before == []


def test_a_loop_in_the_calls_before_the_main_loop_is_a_loop_of_its_own():
    """A cell stepped three times, then a longer loop of det and cls: two loops, the cell's first."""
    first, second = find_loops(_calls([CELL] * 3 + [DET, CLS] * 4))
    assert [(loop.head[0], [it.calls for it in loop.iterations]) for loop in (first, second)] == [
        (CELL, [[0], [1], [2]]), (DET, [[3, 4], [5, 6], [7, 8], [9, 10]])]


def test_calls_after_the_last_loop_are_shown_after_it():
    (loop,) = find_loops(_calls([DET, CLS] * 3 + [REC]))
    assert [it.calls for it in loop.iterations] == [[0, 1], [2, 3], [4, 5]]
    assert [(s.kind, s.call) for s in loop.after] == [(CALL, 6)]


def test_calls_that_never_repeat_are_one_iteration():
    (loop,) = find_loops(_calls([DET, CLS, REC]))
    assert (loop.head[0], _iteration_calls(_calls([DET, CLS, REC]))) == (DET, [[0, 1, 2]])
    assert loop.iterations[0].end_ns is None


def test_no_calls_no_loop():
    assert find_loops([]) == []


# --- stages and their times ------------------------------------------------------------------------------------------


def test_the_stages_of_each_iteration_add_up_to_its_time():
    calls = _calls([DET, CLS, CLS, REC, DET, CLS, REC, DET, REC, DET])
    (loop,) = find_loops(calls)
    complete = loop.complete
    assert [it.ns for it in complete] == [calls[4].start_ns - calls[0].start_ns, calls[7].start_ns - calls[4].start_ns,
                                          calls[9].start_ns - calls[7].start_ns]
    assert [sum(s.ns for s in it.stages) for it in complete] == [it.ns for it in complete]
    # the second iteration, stage by stage: det 14, host 11, cls 15, host 13, rec 16, host 15 (to the next det)
    assert [(s.kind, s.ns) for s in complete[1].stages] == [
        (CALL, 14), (HOST, 11), (CALL, 15), (HOST, 13), (CALL, 16), (HOST, 15)]
    assert loop.iterations[-1].ns is None  # the last iteration has no end


def test_stage_table_rows_add_up_to_the_steady_iterations_exactly():
    """The table covers the complete iterations after the first; its rows' totals are their time, ns for ns."""
    calls = _calls([DET, CLS, CLS, REC, DET, CLS, REC, DET, CLS, CLS, CLS, REC, DET])
    (loop,) = find_loops(calls)
    steady = loop.steady
    assert [it.index for it in steady] == [1, 2]
    rows = stage_table(calls, loop)
    assert sum(r.total_ns for r in rows) == sum(it.ns for it in steady) == calls[12].start_ns - calls[4].start_ns
    assert sum(r.per_iteration_ns for r in rows) * len(steady) == sum(it.ns for it in steady)
    assert [(r.kind, r.before_session, r.session, r.count, r.total_ns) for r in rows] == [
        (CALL, -1, DET, 2, 14 + 17),
        (HOST, DET, CLS, 2, 11 + 17),
        (CALL, -1, CLS, 4, 15 + 18 + 19 + 20),
        (HOST, CLS, CLS, 2, 19 + 21),
        (HOST, CLS, REC, 2, 13 + 23),
        (CALL, -1, REC, 2, 16 + 21),
        (HOST, REC, DET, 2, 15 + 25)]


def test_first_iteration_is_not_in_the_stage_table():
    calls = _calls([DET, CLS] * 4)
    (loop,) = find_loops(calls)
    rows = stage_table(calls, loop)
    assert [r.count for r in rows] == [2, 2, 2, 2]  # iterations 2 and 3: 1 and 4 are apart / without an end
    assert stage_table(calls, loop, [loop.iterations[0]])[0].total_ns == calls[0].end_ns - calls[0].start_ns


def test_first_call_at_each_input_shape_with_its_later_calls():
    """det at 32x48 twice, then a new shape 64x48 in the third iteration, then 64x48 again."""
    shapes = ["1x3x32x48", "4x3x8x16", "1x3x32x48", "4x3x8x16", "1x3x64x48", "4x3x8x16", "1x3x64x48", "4x3x8x16"]
    calls = _calls([DET, CLS] * 4, shapes=shapes)
    assert first_calls_at_shape(calls) == [
        ShapeFirst(call=0, session=DET, shape="1x3x32x48", ns=10, later_median_ns=12.0, later_calls=1,
                   steady_median_ns=14.0),
        ShapeFirst(call=1, session=CLS, shape="4x3x8x16", ns=11, later_median_ns=15.0, later_calls=3,
                   steady_median_ns=15.0),
        ShapeFirst(call=4, session=DET, shape="1x3x64x48", ns=14, later_median_ns=16.0, later_calls=1,
                   steady_median_ns=14.0)]
    assert [f.call for f in first_calls_at_shape(calls, within=[2, 3, 4, 5])] == [4]


def test_bytes_of_the_loop_are_those_of_its_iterations():
    calls = [LoopCall(session=s, start_ns=i, end_ns=i + 1, site=site, h2d_bytes=100 * (i + 1), d2h_bytes=i)
             for i, (s, site) in enumerate([(REC, "warm"), (DET, "a"), (CLS, "b"), (DET, "a"), (CLS, "b")])]
    (loop,) = find_loops(calls)
    assert iteration_bytes(calls, loop) == (200 + 300 + 400 + 500, 1 + 2 + 3 + 4)  # not the warm-up call's


# --- the pipeline report on observations built here -----------------------------------------------------------------

MS = 1_000_000
CUDA = "CUDAExecutionProvider"


def _session(label: str, inputs: list[str], outputs: list[str], calls: list[CallObservation]) -> SessionRecord:
    placement = Placement(source="session", provider=CUDA, inputs_on_device={n: "MatMul 'm' (CUDA)" for n in inputs},
                          outputs_on_device={n: "MatMul 'm' (CUDA)" for n in outputs})
    obs = WatchObservations(active_providers=[CUDA, "CPUExecutionProvider"], placement=placement, calls=calls)
    return SessionRecord(label=label, model=label, observations=obs)


def _two_sessions(linked: bool, shapes: tuple[int, ...] = (4, 4, 8, 8), slow_ms: int = 0) -> PipelineObservations:
    """a.onnx (x -> y, 4 KB) then b.onnx (its own input w, or y itself where ``linked``) four times, at
    whole-millisecond times, with the recorder's own time (1 ms in each call, 1 ms in bind_* calls between) counted
    as the recorder counts it: a's call takes 3 ms + 1 ms of the recorder, 2 ms of host code, b's 5 ms + 1 ms, then
    4 ms of host code (1 of them the recorder's). a's input is 1x`shape` per iteration; its call in the third
    iteration takes ``slow_ms`` more."""
    a_calls, b_calls, calls = [], [], []
    t = overhead = 0
    for i, n in enumerate(shapes):
        a_calls.append(CallObservation(index=i, method="run", inputs=[TensorUse("x", "input", "numpy", "cpu", 64, [1, n])],
                                       outputs=[TensorUse("y", "output", "returned", "cpu", 4096)]))
        b_in = "y" if linked else "w"
        b_calls.append(CallObservation(index=i, method="run", inputs=[TensorUse(b_in, "input", "numpy", "cpu", 4096)],
                                       outputs=[TensorUse("z", "output", "returned", "cpu", 32)]))
        link = ValueLink(2 * i, "y", "object") if linked else None
        extra = slow_ms * MS if i == 2 else 0
        calls.append(PipelineCall(seq=2 * i, session=0, call=i, method="run", wrap_start_ns=t,
                                  wrap_end_ns=t + 4 * MS + extra, overhead_start_ns=overhead,
                                  overhead_end_ns=overhead + MS, start_ns=t + MS // 2,
                                  end_ns=t + MS // 2 + 3 * MS + extra, site="prog.py:main:10",
                                  inputs=[ValueInfo("x", "input", "numpy", "cpu", 64)],
                                  outputs=[ValueInfo("y", "output", "numpy", "cpu", 4096)]))
        overhead += MS
        t += 6 * MS + extra
        calls.append(PipelineCall(seq=2 * i + 1, session=1, call=i, method="run", wrap_start_ns=t,
                                  wrap_end_ns=t + 6 * MS, overhead_start_ns=overhead, overhead_end_ns=overhead + MS,
                                  start_ns=t + MS // 2, end_ns=t + MS // 2 + 5 * MS, site="prog.py:main:12",
                                  inputs=[ValueInfo(b_in, "input", "numpy", "cpu", 4096, link)],
                                  outputs=[ValueInfo("z", "output", "numpy", "cpu", 32)]))
        overhead += 2 * MS  # 1 ms in the call, 1 ms in bind_* calls before the next
        t += 10 * MS
    return PipelineObservations(sessions=[_session("a.onnx", ["x"], ["y"], a_calls),
                                          _session("b.onnx", [b_in], ["z"], b_calls)], calls=calls)


def test_stage_rows_add_up_to_the_iteration_time_on_the_programs_clock():
    """Each iteration is 3 + 2 + 5 + 3 = 13 ms of the program's time (16 ms of wall time, 3 of them the recorder's);
    the table (iterations 2 and 3) has each stage exactly, and adds up to it."""
    (pipeline,) = analyse_pipeline(_two_sessions(linked=False)).pipelines
    assert [(r.stage, r.kind, r.calls, r.median_ms, r.total_ms, r.per_iteration_ms) for r in pipeline.stages] == [
        ("a.onnx: inference", "inference", 2, 3.0, 6.0, 3.0),
        ("host: between prog.py:main:10 and prog.py:main:12", "host", 2, 2.0, 4.0, 2.0),
        ("b.onnx: inference", "inference", 2, 5.0, 10.0, 5.0),
        ("host: between prog.py:main:12 and prog.py:main:10", "host", 2, 3.0, 6.0, 3.0)]
    assert sum(r.per_iteration_ms for r in pipeline.stages) == pipeline.iteration_ms == 13.0
    assert (pipeline.stage_iterations, pipeline.first_iteration_ms) == (2, 13.0)
    assert [r.total_ms for r in pipeline.first_iteration] == [3.0, 2.0, 5.0, 3.0]


def test_sessions_without_a_tensor_between_them_are_one_loop():
    report = analyse_pipeline(_two_sessions(linked=False))
    (pipeline,) = report.pipelines
    assert (pipeline.sessions, pipeline.iterations, pipeline.head) == (["a.onnx", "b.onnx"], 4, "a.onnx")
    assert report.round_trips == []


def test_verdict_leads_with_the_bytes_per_iteration_even_without_a_round_trip():
    """64 B of x and 4 KB of w up, 4 KB of y and 32 B of z down per iteration: said first, then no round trip."""
    verdict = analyse_pipeline(_two_sessions(linked=False)).verdict
    assert verdict == (
        "8.3 KB cross PCIe per iteration of a.onnx → b.onnx: 4.2 KB up, 4.1 KB down (mean of 4 iteration(s)); "
        "largest transfer: the upload of input `w` of b.onnx, 4.1 KB per iteration: host code makes it, so IO "
        "binding cannot remove it; "
        "no host round trip between stages (2 session(s), 4 iteration(s))")


def test_verdict_names_the_round_trip_as_the_largest_removable_cost():
    report = analyse_pipeline(_two_sessions(linked=True))
    assert [(h.output, h.input) for h in report.round_trips] == [("y", "y")]
    assert report.verdict.startswith("8.3 KB cross PCIe per iteration of a.onnx → b.onnx: 4.2 KB up, 4.1 KB down")
    assert ("; largest removable cost: the round trip of `y` from a.onnx to b.onnx, 8.2 KB per iteration: pass the "
            "OrtValue (or a torch tensor via DLPack) instead; 1 host round trip(s) between stages") in report.verdict


def test_first_call_at_a_new_shape_is_listed_apart():
    (pipeline,) = analyse_pipeline(_two_sessions(linked=False)).pipelines
    assert [(s.session, s.shape, s.iteration, s.ms, s.later_median_ms, s.later_calls) for s in pipeline.new_shapes] == [
        ("a.onnx", "1x4", 1, 3.0, 3.0, 1), ("b.onnx", "?", 1, 5.0, 5.0, 3), ("a.onnx", "1x8", 3, 3.0, 3.0, 1)]
    text = render_pipeline_text(analyse_pipeline(_two_sessions(linked=False)))
    assert "    - first call of a.onnx at shape 1x8 (iteration 3): 3.000 ms, next calls median 3.000 ms (1 call(s))" \
        in text


def test_a_slow_first_call_at_a_new_shape_is_the_largest_removable_cost_without_a_round_trip():
    """a.onnx's first call at 1x8 takes 8 ms, its next one at 1x8 3 ms; the table still adds up (13 + 18 ms)."""
    report = analyse_pipeline(_two_sessions(linked=False, slow_ms=5))
    (pipeline,) = report.pipelines
    assert pipeline.largest_cost == (
        "largest removable cost: the first call of a.onnx at shape 1x8 (iteration 3): 8.000 ms, next calls median "
        "3.000 ms (1 call(s)): 5.000 ms more; warm the session up at that shape before the loop, or feed shapes it "
        "has already run")
    assert f"; {pipeline.largest_cost}; no host round trip between stages" in report.verdict
    assert sum(r.total_ms for r in pipeline.stages) == 13.0 + 18.0


def test_old_observations_without_call_sites_still_load_and_name_stretches_by_session():
    """A fixture recorded before call sites were: the loop is found by session alone."""
    with gzip.open(TESTS / "fixtures" / "pipelines" / "detect_crop_classify.json.gz", "rt", encoding="utf-8") as f:
        data = json.load(f)
    obs = load_pipeline_observations(data["report"]["observations"])
    assert {c.site for c in obs.calls} == {""}
    (pipeline,) = analyse_pipeline(obs).pipelines
    assert (pipeline.sessions, pipeline.head, pipeline.head_site) == (["det.onnx", "cls.onnx"], "det.onnx", "")
    assert [r.stage for r in pipeline.stages if r.kind == "host"] == [
        "host: between det.onnx and cls.onnx", "host: between cls.onnx and det.onnx"]


# --- a real OCR-like program under `run` -------------------------------------------------------------------------------

_OCR = '''\
import numpy as np
import onnxruntime as ort

CPU = ["CPUExecutionProvider"]
det = ort.InferenceSession({det!r}, providers=CPU)
cls = ort.InferenceSession({cls!r}, providers=CPU)
rec = ort.InferenceSession({rec!r}, providers=CPU)


def warm_up():
    rec.run(None, {{"crop": np.ones((1, 3, 8, 16), np.float32)}})


def detect(image):
    return det.run(None, {{"image": image}})[0]


def classify(crop):
    return cls.run(None, {{"crop": crop}})[0]


def recognise(crop):
    return rec.run(None, {{"crop": crop}})[0]


def main():
    rng = np.random.default_rng(0)
    for i in range(6):
        image = rng.random((1, 3, 64 if i == 2 else 32, 48), dtype=np.float32)
        detect(image)
        boxes = [(0, 0), (8, 16), (16, 0)][: 1 + i % 3]  # 1, 2, 3, 1, 2, 3 boxes
        for y, x in boxes:  # each crop cut from the original image, not from any output
            classify(np.ascontiguousarray(image[:, :, y:y + 8, x:x + 16]))
        for y, x in boxes[:2]:
            recognise(np.ascontiguousarray(image[:, :, y:y + 8, x:x + 16]))


warm_up()
main()
'''


REC_CALL = 'rec.run(None, {"crop": crop})'  # the recogniser's line in the loop (warm_up's is another)


def _save(path: Path, node: onnx.NodeProto, inp: str, in_shape: list, out: str, out_shape: list) -> str:
    graph = helper.make_graph([node], path.stem, [helper.make_tensor_value_info(inp, TensorProto.FLOAT, in_shape)],
                              [helper.make_tensor_value_info(out, TensorProto.FLOAT, out_shape)])
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17)])
    model.ir_version = 8
    onnx.save(model, str(path))
    return str(path)


def _ocr(tmp_path_factory) -> tuple:
    folder = tmp_path_factory.mktemp("ocr")
    models = {
        "det": _save(folder / "det.onnx", helper.make_node("Sigmoid", ["image"], ["prob"]), "image",
                     [1, 3, "h", "w"], "prob", [1, 3, "h", "w"]),
        "cls": _save(folder / "cls.onnx", helper.make_node("ReduceMean", ["crop"], ["logits"], axes=[2, 3], keepdims=0),
                     "crop", ["n", 3, 8, 16], "logits", ["n", 3]),
        "rec": _save(folder / "rec.onnx", helper.make_node("ReduceMean", ["crop"], ["chars"], axes=[2], keepdims=0),
                     "crop", ["n", 3, 8, "w"], "chars", ["n", 3, "w"]),
    }
    script = folder / "ocr.py"
    script.write_text(_OCR.format(**models))
    report, code = run_program(["python", str(script)], census=False)
    assert code == 0
    return report, script


@pytest.fixture(scope="module")
def ocr(tmp_path_factory):
    return _ocr(tmp_path_factory)


def _line(script: Path, text: str) -> int:
    return next(n for n, line in enumerate(script.read_text().splitlines(), 1) if text in line)


def test_ocr_program_is_one_loop_of_its_three_sessions(ocr):
    report, _ = ocr
    (pipeline,) = report.pipelines
    assert (pipeline.sessions, pipeline.iterations, pipeline.head) == (["det.onnx", "cls.onnx", "rec.onnx"], 6,
                                                                       "det.onnx")
    assert report.round_trips == [] and pipeline.on_device == [] and pipeline.host_hand_offs == []


def test_ocr_calls_are_named_by_the_programs_own_lines(ocr):
    report, script = ocr
    sites = {(report.observations.sessions[c.session].label, c.site) for c in report.observations.calls}
    assert sites == {("rec.onnx", f"{script}:warm_up:{_line(script, 'np.ones')}"),
                     ("det.onnx", f"{script}:detect:{_line(script, 'det.run')}"),
                     ("cls.onnx", f"{script}:classify:{_line(script, 'cls.run')}"),
                     ("rec.onnx", f"{script}:recognise:{_line(script, REC_CALL)}")}


def test_ocr_stage_table_names_each_host_stretch_by_the_code_around_it(ocr):
    report, script = ocr
    (pipeline,) = report.pipelines
    det, cls, rec = (f"ocr.py:{f}:{_line(script, t)}" for f, t in (
        ("detect", "det.run"), ("classify", "cls.run"), ("recognise", REC_CALL)))
    # iterations 2 to 5 (the first apart, the sixth without an end): 2, 3, 1, 2 boxes; 2, 2, 1, 2 recognised
    assert [(r.stage, r.calls) for r in pipeline.stages] == [
        ("det.onnx: inference", 4), (f"host: between {det} and {cls}", 4), ("cls.onnx: inference", 8),
        (f"host: between {cls} and {cls}", 4), (f"host: between {cls} and {rec}", 4), ("rec.onnx: inference", 7),
        (f"host: between {rec} and {rec}", 3), (f"host: between {rec} and {det}", 4)]
    assert pipeline.stage_iterations == 4


def test_ocr_first_iteration_and_warm_up_are_apart(ocr):
    report, script = ocr
    (pipeline,) = report.pipelines
    assert [r.stage for r in pipeline.first_iteration] == [
        "det.onnx: inference", f"host: between ocr.py:detect:{_line(script, 'det.run')} and "
        f"ocr.py:classify:{_line(script, 'cls.run')}", "cls.onnx: inference",
        f"host: between ocr.py:classify:{_line(script, 'cls.run')} and "
        f"ocr.py:recognise:{_line(script, REC_CALL)}", "rec.onnx: inference",
        f"host: between ocr.py:recognise:{_line(script, REC_CALL)} and "
        f"ocr.py:detect:{_line(script, 'det.run')}"]
    assert [(r.stage, r.calls) for r in pipeline.before_loop] == [
        ("rec.onnx: inference", 1),
        (f"host: between ocr.py:warm_up:{_line(script, 'np.ones')} and ocr.py:detect:{_line(script, 'det.run')}", 1)]


def test_ocr_new_input_shape_in_iteration_3_is_a_first_call_at_a_shape(ocr):
    report, _ = ocr
    (pipeline,) = report.pipelines
    assert [(s.session, s.shape, s.iteration, s.later_calls) for s in pipeline.new_shapes] == [
        ("rec.onnx", "1x3x8x16", 0, 10), ("det.onnx", "1x3x32x48", 1, 4), ("cls.onnx", "1x3x8x16", 1, 11),
        ("det.onnx", "1x3x64x48", 3, 0)]
    new = pipeline.new_shapes[-1]
    assert (new.later_median_ms, new.steady_median_ms is not None) == (None, True)  # compared with det's other calls
    assert (f"first call of det.onnx at shape 1x3x64x48 (iteration 3): {new.ms:.3f} ms, no later call at that shape; "
            f"its calls at a shape seen before median {new.steady_median_ms:.3f} ms") in render_pipeline_text(report)


@pytest.mark.no_cuda  # where CUDA loads, the sessions made without providers lead the verdict (test_providers_audit)
def test_ocr_verdict_leads_with_the_bytes_each_iteration_moves(ocr):
    """Predicted for CUDA (no GPU here): per iteration the image up and its map down (18,432 B, 36,864 B in the third
    iteration), 12 crops for cls and 10 for rec up (1,536 B each), 12 logits (12 B) and 10 texts (192 B) down."""
    report, _ = ocr
    (pipeline,) = report.pipelines
    up = 5 * 18432 + 36864 + 22 * 1536
    down = 5 * 18432 + 36864 + 12 * 12 + 10 * 192
    assert (pipeline.h2d_bytes_per_iteration, pipeline.d2h_bytes_per_iteration) == (up / 6, down / 6)
    assert report.verdict.startswith("49.0 KB cross PCIe per iteration of det.onnx → cls.onnx → rec.onnx (predicted "
                                     "for the device: no device provider was active): 27.1 KB up, 21.8 KB down")
    assert report.verdict.endswith("; no host round trip between stages (3 session(s), 6 iteration(s))")


def test_ocr_report_json_replays_to_the_same_loop(ocr):
    """The call sites travel in the JSON observations: re-analysed elsewhere, the same stage table and verdict."""
    report, _ = ocr
    data = json.loads(report.to_json())
    again = analyse_pipeline(load_pipeline_observations(data["observations"]))
    assert [r.stage for r in again.pipelines[0].stages] == [r["stage"] for r in data["pipelines"][0]["stages"]]
    assert again.verdict == data["verdict"] == report.verdict
    assert [(s["session"], s["shape"], s["iteration"]) for s in data["pipelines"][0]["new_shapes"]][-1] == (
        "det.onnx", "1x3x64x48", 3)


def test_ocr_text_shows_each_part_of_the_loop_apart(ocr):
    report, script = ocr
    text = render_pipeline_text(report)
    det = f"ocr.py:detect:{_line(script, 'det.run')}"
    assert (f"pipeline 1: det.onnx → cls.onnx → rec.onnx (6 iteration(s) of the loop, each starting at det.onnx called "
            f"at {det}, ") in text
    heads = [line.split(":")[0].strip() for line in text.splitlines() if line.startswith("  ") and line.endswith(
        ("ms:", "measured in this run):", "input shape:")) or line.startswith("  first iteration, shown apart")]
    assert heads == ["before the loop (warm-up, initialisation), ms", "first iteration, shown apart",
                     "first call of each session at each input shape", "stage table (4 iteration(s) after the first, "
                     "whose end is known; the rows but download add up to their time; median ms per call, measured "
                     "in this run)"]
