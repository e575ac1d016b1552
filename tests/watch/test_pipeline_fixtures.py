"""Replay of the example pipelines recorded on a GPU with CUPTI (tools/record_pipelines.py), and the census path
of the pipeline analysis on observations built here.

The fixtures (tests/fixtures/pipelines/<example>.json.gz) hold the `ortcopy-doctor run --json` report of each
example and its fixed version on the CUDA EP, with the observations (every call's CUPTI records) and the CUPTI counts
per round trip taken from the raw records. Until they are recorded, the replay tests skip and say so.
"""

from __future__ import annotations

import gzip
import json
import sys

import pytest

from ortcopy_doctor.model import codec
from ortcopy_doctor.model.census import TransferRecord
from ortcopy_doctor.report.pipeline import (
    PipelineCall,
    PipelineObservations,
    SessionRecord,
    ValueInfo,
    ValueLink,
    analyse_pipeline,
    load_pipeline_observations,
)
from ortcopy_doctor.watch.observations import CallObservation, Placement, TensorUse, WatchObservations
from render_helpers import REPO, TESTS

ROOT = REPO
FIXTURES = TESTS / "fixtures" / "pipelines"
EXAMPLES = ["detect_crop_classify", "text_pipeline", "streaming_state", "detect_classify_torch"]
CUDA = "CUDAExecutionProvider"


def _load(name: str) -> dict:
    path = FIXTURES / f"{name}.json.gz"
    if not path.is_file():
        pytest.skip(f"{path.relative_to(ROOT)} not recorded yet: run `python3 tools/record_pipelines.py "
                    "tests/fixtures/pipelines` on the GPU machine")
    with gzip.open(path, "rt", encoding="utf-8") as f:
        data = json.load(f)
    if data.get("skipped"):
        pytest.skip(f"{name} was skipped on the GPU machine: {data['skipped']}")
    assert data.get("returncode") == 0, data.get("stderr_tail", "")[-2000:]
    return data


def _key(h: dict) -> tuple:
    return (h["producer"], h["output"], h["consumer"], h["input"])


@pytest.mark.parametrize("name", EXAMPLES)
def test_every_named_round_trip_equals_what_cupti_counted(name):
    data = _load(name)
    report = data["report"]
    assert report["round_trips"], "the example has round trips between stages on the GPU"
    counted = {_key(c): c for c in data["cupti_per_round_trip"]}
    for rt in report["round_trips"]:
        c = counted[_key(rt)]
        assert rt["basis"] == "census"
        assert rt["calls"] == c["pairs"] == c["cupti_d2h_calls"] == c["cupti_h2d_calls"]
        assert rt["census_d2h"] == rt["census_h2d"] == rt["calls"]


@pytest.mark.parametrize("name", EXAMPLES)
def test_replayed_analysis_names_the_same_round_trips(name):
    report = _load(name)["report"]
    replayed = analyse_pipeline(load_pipeline_observations(report["observations"]))
    assert {((h.producer, h.output, h.consumer, h.input), h.calls, h.d2h_bytes_per_call) for h in replayed.round_trips} == \
        {(_key(h), h["calls"], h["d2h_bytes_per_call"]) for h in report["round_trips"]}


@pytest.mark.parametrize("name", EXAMPLES)
def test_fixed_version_removes_the_round_trips_and_is_faster(name):
    broken = _load(name)["report"]
    fixed = _load(f"{name}_fixed")["report"]
    assert fixed["round_trips"] == []
    assert all(s["census"].startswith("cupti") for s in fixed["sessions"])
    # Each removed round trip: the fixed run's census has no device->host copy of that output in the producing calls.
    replayed = analyse_pipeline(load_pipeline_observations(fixed["observations"]))
    assert replayed.round_trips == []
    # The stage table of `run --no-census` (the census slows each traced call and bind_* call): the sessions' own
    # stages (the ORT call with its bind_* calls, which hold the uploads) are faster in every fixed version. The
    # whole iteration under the recorder is not asserted: the recorder's time in a fixed version's bind_* calls can
    # be more than the round trip removed (streaming_state, docs/pipelines.md).
    timed, timed_broken = _load(f"{name}_fixed")["no_census"], _load(name)["no_census"]
    assert _session_ms(timed) < _session_ms(timed_broken)
    # The whole iteration, timed without the recorder on the program's own clock, is faster in every fixed version.
    assert _load(f"{name}_fixed")["plain"]["median_ms"] < _load(name)["plain"]["median_ms"]


def _session_ms(timing: dict) -> float:
    """Median ms per iteration spent in the sessions' stages (inference and download rows of the stage table)."""
    return sum(s["median_ms"] or 0.0 for s in timing["stages"] if s["kind"] in ("inference", "download"))


# --- the census path, on observations built here --------------------------------------------------------------------


def _session(label: str, inputs: list[str], outputs: list[str], calls: list[CallObservation]) -> SessionRecord:
    placement = Placement(source="session", provider=CUDA, inputs_on_device={n: "MatMul 'm' (CUDA)" for n in inputs},
                          outputs_on_device={n: "MatMul 'm' (CUDA)" for n in outputs})
    obs = WatchObservations(active_providers=[CUDA, "CPUExecutionProvider"], placement=placement,
                            census_backend="cupti-python", calls=calls)
    return SessionRecord(label=label, model=label, observations=obs)


def _record(direction: str, nbytes: int, t: int) -> TransferRecord:
    return TransferRecord(direction=direction, bytes=nbytes, src_kind="pageable" if direction == "host_to_device" else "device",
                          dst_kind="device" if direction == "host_to_device" else "pageable", start_ns=t, end_ns=t + 1000,
                          correlation_id=t, api_start_ns=t)


def _two_stage(census_misses_feed: bool = False) -> PipelineObservations:
    """a.onnx (x -> y, 4 KB) then b.onnx (y as numpy -> z), three times; every copy in the census."""
    a_calls, b_calls, calls = [], [], []
    t = 0
    for i in range(3):
        a_calls.append(CallObservation(index=i, method="run", traced=True,
                                       inputs=[TensorUse("x", "input", "numpy", "cpu", 64)],
                                       outputs=[TensorUse("y", "output", "returned", "cpu", 4096)],
                                       records=[_record("host_to_device", 64, t), _record("device_to_host", 4096, t + 10)]))
        b_records = [] if census_misses_feed and i == 2 else [_record("host_to_device", 4096, t + 20)]
        b_calls.append(CallObservation(index=i, method="run", traced=True,
                                       inputs=[TensorUse("y_in", "input", "numpy", "cpu", 4096)],
                                       outputs=[TensorUse("z", "output", "returned", "cpu", 32)],
                                       records=b_records + [_record("device_to_host", 32, t + 30)]))
        calls.append(PipelineCall(seq=2 * i, session=0, call=i, method="run", wrap_start_ns=t, wrap_end_ns=t + 5,
                                  start_ns=t + 1, end_ns=t + 4, inputs=[ValueInfo("x", "input", "numpy", "cpu", 64)],
                                  outputs=[ValueInfo("y", "output", "numpy", "cpu", 4096)]))
        calls.append(PipelineCall(seq=2 * i + 1, session=1, call=i, method="run", wrap_start_ns=t + 7,
                                  wrap_end_ns=t + 12, start_ns=t + 8, end_ns=t + 11,
                                  inputs=[ValueInfo("y_in", "input", "numpy", "cpu", 4096, ValueLink(2 * i, "y", "view"))],
                                  outputs=[ValueInfo("z", "output", "numpy", "cpu", 32)]))
        t += 100
    return PipelineObservations(sessions=[_session("a.onnx", ["x"], ["y"], a_calls),
                                          _session("b.onnx", ["y_in"], ["z"], b_calls)], calls=calls)


def test_round_trip_confirmed_by_the_census_of_both_calls():
    report = analyse_pipeline(_two_stage())
    (rt,) = report.round_trips
    assert (rt.producer, rt.output, rt.consumer, rt.input, rt.how) == ("a.onnx", "y", "b.onnx", "y_in", "view")
    assert (rt.calls, rt.census_d2h, rt.census_h2d, rt.basis) == (3, 3, 3, "census")
    assert (rt.d2h_bytes_per_call, rt.h2d_bytes_per_call) == (4096, 4096)


def test_round_trip_missing_from_the_census_is_not_claimed_as_confirmed():
    report = analyse_pipeline(_two_stage(census_misses_feed=True))
    (rt,) = report.round_trips
    assert (rt.calls, rt.census_d2h, rt.census_h2d) == (3, 3, 2)
    assert rt.basis != "census"


def test_observations_round_trip_through_json():

    obs = _two_stage()
    again = load_pipeline_observations(json.loads(json.dumps(codec.to_builtins(obs))))
    assert analyse_pipeline(again).to_dict()["round_trips"] == analyse_pipeline(obs).to_dict()["round_trips"]


def test_recorder_counts_cupti_records_per_round_trip():
    sys.path.insert(0, str(ROOT / "tools"))
    try:
        import record_pipelines
    finally:
        sys.path.remove(str(ROOT / "tools"))
    report = analyse_pipeline(_two_stage(census_misses_feed=True)).to_dict()
    assert record_pipelines.cupti_per_round_trip(report) == [
        {"producer": "a.onnx", "output": "y", "consumer": "b.onnx", "input": "y_in", "pairs": 3,
         "cupti_d2h_calls": 3, "cupti_h2d_calls": 2}]


def test_bind_time_is_the_sessions_stage_not_host_time():
    """b's calls went through an IOBinding whose bind_* calls took 2 ns of ORT's time before each run: its stage
    holds them (3 + 2 ns), and the host time between a and b loses them (2 - 2 ns)."""
    obs = _two_stage()
    for call in obs.calls:
        if call.session == 1:
            call.method, call.bind_ns = "run_with_iobinding", 2
    stages = {row.stage: row for row in analyse_pipeline(obs).pipelines[0].stages}
    assert stages["b.onnx: inference"].median_ms == 5e-6
    assert stages["a.onnx: inference"].median_ms == 3e-6
    assert stages["host: between a.onnx and b.onnx"].median_ms == 0.0


def test_docs_timing_table_is_the_fixtures():
    """docs/pipelines.md's timing table is these fixtures, rounded to 0.01 ms."""
    text = (ROOT / "docs" / "pipelines.md").read_text()
    for name in EXAMPLES:
        cells = []
        for key in ("sessions", "iteration", "plain"):
            pair = []
            for variant in (name, f"{name}_fixed"):
                entry = _load(variant)
                value = {"sessions": lambda: _session_ms(entry["no_census"]),
                         "iteration": lambda: entry["no_census"]["iteration_ms"],
                         "plain": lambda: entry["plain"]["median_ms"]}[key]()
                pair.append(f"{value:.2f}")
            cells.append(" → ".join(pair))
        assert f"| {name} | {' | '.join(cells)} |" in text, name
