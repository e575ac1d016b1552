"""Replay of the transfer census recorded live on the H200 by `tools/verify_census.py` (both backends).

tests/fixtures/census_live/<backend>/<model>.json.gz are the reports `check` wrote there (onnxruntime-gpu 1.31.1,
dims batch=2 rows=4 cols=8, 2 warm-up + 3 profiled runs, 20 timed runs): ``evidence.census`` keeps the raw memcpy
records and clock pairs, ``census`` the attribution made on the GPU. Here the attribution is redone from those raw
records and must give, for every traced run, the classes of tests/analysis/test_transfers.py's EXPECTED (the same as
CUPTI).

The PyTorch-profiler reports were re-recorded after `census_from_torch_trace` started reading Kineto's
``baseTimeNanoseconds`` (the first recording mapped the clock through record_function markers, which start
48..192 µs after the time.time_ns() read before them, and placed copies early; `transfers.census_report` still
recovers the base time from such old marker pairs). The raw Kineto traces (<model>.trace.json.gz) of that
recording are parsed here too.
"""

from __future__ import annotations

import msgspec
import gzip
import json
import statistics
from collections import Counter
from decimal import Decimal

import pytest

from ortcopy_doctor.model import codec
from ortcopy_doctor.model.census import CLOCK_MARKER, census_from_torch_trace, kineto_base_ns
from ortcopy_doctor.model.evidence import Evidence
from ortcopy_doctor.report.core import analyse
from test_transfers import EXPECTED, MODELS
from render_helpers import REPO, TESTS

LIVE = TESTS / "fixtures" / "census_live"
VERIFICATION = REPO / "docs" / "verification.md"
BACKENDS = {"cupti-python": "13.4.0", "torch-profiler": "2.11.0"}
H2D, D2H = "host_to_device", "device_to_host"
TRACED = [2, 3, 4]


def live_report(backend: str, name: str) -> dict:
    with gzip.open(LIVE / backend / f"{name}.json.gz", "rt", encoding="utf-8") as f:
        return json.load(f)


def live_evidence(backend: str, name: str) -> Evidence:
    return codec.convert(live_report(backend, name)["evidence"], Evidence)


def classes(census, run: int) -> list[tuple]:
    return [(t.kind, t.direction, t.bytes, t.node, t.tensor, t.confirms) for t in census.transfers if t.run == run]


def record_totals(records) -> dict[str, tuple[int, int]]:
    totals: dict[str, tuple[int, int]] = {}
    for r in records:
        if r.direction in (H2D, D2H):
            count, nbytes = totals.get(r.direction, (0, 0))
            totals[r.direction] = (count + 1, nbytes + r.bytes)
    return totals


def attributed_totals(census) -> dict[str, tuple[int, int]]:
    totals: dict[str, tuple[int, int]] = {}
    for t in census.transfers:
        if t.host_device and t.run in census.traced_runs:
            count, nbytes = totals.get(t.direction, (0, 0))
            totals[t.direction] = (count + 1, nbytes + t.bytes)
    return totals


def test_fixtures_record_versions_and_raw_records():
    for backend, version in BACKENDS.items():
        for name in MODELS:
            ev = live_evidence(backend, name)
            assert ev.environment.ort_version == "1.31.1"
            assert ev.census is not None and ev.census.backend == backend and ev.census.backend_version == version
            assert ev.census.traced_runs == TRACED and ev.census.records
            assert all(r.api_start_ns is not None for r in ev.census.records)
            assert ev.census.clock_pairs  # two pairs; one, (0, baseTimeNanoseconds), for torch since the fix


def _legacy_torch(census) -> bool:
    """Recorded before census_from_torch_trace read baseTimeNanoseconds: the pairs are (marker, time read)."""
    return not any(int(c) == 0 for c, _ in census.clock_pairs)


@pytest.mark.parametrize("backend", sorted(BACKENDS))
@pytest.mark.parametrize("name", MODELS)
def test_replay_attributes_every_transfer_with_the_classes_of_cupti(backend, name):
    evidence = live_evidence(backend, name)
    census = analyse(evidence).census
    assert census is not None and census.traced_runs == TRACED
    assert census.attributed_share == 1.0 and census.unexplained == [] and census.mismatches == []
    for run in TRACED:
        assert classes(census, run) == EXPECTED[name], (backend, run)
    # Per traced run, count and bytes equal what the tracer counted, exactly.
    assert attributed_totals(census) == record_totals(evidence.census.records)
    assert census.boundary_tolerance_us >= 6.0
    assert not [t for t in census.transfers if t.boundary_us is not None]  # no copy needed the boundary rule


@pytest.mark.parametrize("name", MODELS)
def test_cupti_replay_equals_the_attribution_made_on_the_gpu(name):
    recorded = live_report("cupti-python", name)["census"]
    census = analyse(live_evidence("cupti-python", name)).census
    assert census is not None
    assert [(t["run"], t["kind"], t["bytes"], t["node"], t["tensor"], t["confirms"]) for t in recorded["transfers"]] == [
        (t.run, t.kind, t.bytes, t.node, t.tensor, t.confirms) for t in census.transfers]
    assert recorded["attributed_share"] == 1.0 and census.overhead == pytest.approx(recorded["overhead"])


def _kineto_trace_of(evidence: Evidence) -> tuple[dict, list[int]]:
    """The census records of a torch-profiler fixture written back in Kineto's chrome-trace layout (ts: "µs.nnn"
    since baseTimeNanoseconds), with its markers, and the time.time_ns() reads before them."""
    census = evidence.census
    assert census is not None
    base = kineto_base_ns(census.clock_pairs) if _legacy_torch(census) else int(census.clock_pairs[0][1])
    assert base is not None

    def ts(ns: int) -> Decimal:
        return Decimal(f"{ns // 1000}.{ns % 1000:03d}")

    names = {(H2D, "HtoD"), (D2H, "DtoH"), ("device_to_device", "DtoD")}
    kinds = {"pageable": "Pageable", "pinned": "Pinned", "device": "Device"}
    events: list[dict] = [{"ph": "X", "cat": "user_annotation", "name": CLOCK_MARKER, "ts": ts(c), "dur": Decimal("1.5"),
                           "pid": 1, "tid": 1} for c, _ in census.clock_pairs]
    for r in census.records:
        short = next(s for d, s in names if d == r.direction)
        events.append({"ph": "X", "cat": "cuda_runtime", "name": "cudaMemcpyAsync", "ts": ts(r.api_start_ns),
                       "dur": Decimal("4.250"), "args": {"correlation": r.correlation_id, "cbid": 41}})
        events.append({"ph": "X", "cat": "gpu_memcpy", "ts": ts(r.start_ns), "dur": ts(r.end_ns - r.start_ns),
                       "name": f"Memcpy {short} ({kinds[r.src_kind]} -> {kinds[r.dst_kind]})",
                       "args": {"correlation": r.correlation_id, "bytes": r.bytes, "device": 0, "stream": 7}})
    return {"schemaVersion": 1, "displayTimeUnit": "ms", "baseTimeNanoseconds": base, "traceEvents": events}, [
        t for _, t in census.clock_pairs]


@pytest.mark.parametrize("name", MODELS)
def test_torch_trace_parser_on_the_recorded_records(name):
    """census_from_torch_trace on the recorded records in Kineto's layout: every ns kept, the clock exact."""
    evidence = live_evidence("torch-profiler", name)
    trace, reads = _kineto_trace_of(evidence)
    census = census_from_torch_trace(json.loads(json.dumps(trace, default=str), parse_float=Decimal), reads)
    assert evidence.census is not None
    assert census.records == sorted(evidence.census.records, key=lambda r: r.start_ns)
    assert census.clock_pairs == [(0, trace["baseTimeNanoseconds"])] and census.clock_verified
    evidence = msgspec.structs.replace(evidence, census=msgspec.structs.replace(
        evidence.census, records=census.records, clock_pairs=[list(p) for p in census.clock_pairs]))
    replay = analyse(evidence).census
    assert replay is not None and replay.attributed_share == 1.0 and replay.unexplained == []
    for run in TRACED:
        assert classes(replay, run) == EXPECTED[name], run


RAW_TRACES = sorted((LIVE / "torch-profiler").glob("*.trace.json.gz"))


def test_raw_kineto_traces_are_replayed_where_recorded():
    """tools/verify_census.py --backend torch-profiler keeps one raw Kineto trace per model; each is parsed here."""
    if not RAW_TRACES:
        pytest.skip("no raw Kineto trace (<model>.trace.json.gz) is recorded in tests/fixtures/census_live/torch-profiler")
    for path in RAW_TRACES:
        name = path.name[: -len(".trace.json.gz")]
        with gzip.open(path, "rt", encoding="utf-8") as f:
            trace = json.load(f, parse_float=Decimal)
        assert "baseTimeNanoseconds" in trace, path.name
        marks_path = path.with_name(f"{name}.marks.json")
        marks = json.loads(marks_path.read_text()) if marks_path.exists() else []
        census = census_from_torch_trace(trace, marks)
        assert census.clock_pairs == [(0, int(trace["baseTimeNanoseconds"]))]
        if marks:
            assert census.clock_verified, census.notes
        # One plain run: the memcpys of one traced run of EXPECTED, each with the runtime call that issued it.
        got = Counter((r.direction, r.bytes) for r in census.records)
        assert got == Counter((d, b) for _, d, b, *_ in EXPECTED[name]), path.name
        assert all(r.api_start_ns is not None and r.api_start_ns <= r.start_ns for r in census.records)


def _median_ms(name: str) -> tuple[float, float]:
    ev = live_evidence("cupti-python", name)
    assert ev.census is not None and ev.timings is not None
    return statistics.median(ev.census.traced_run_ms), statistics.median(ev.timings.run_ms)


def test_docs_state_the_measured_tracing_overhead():
    text = VERIFICATION.read_text(encoding="utf-8")
    assert "## Transfer census" in text
    for name in MODELS:
        traced, untraced = _median_ms(name)
        row = f"| {name} | {traced:.3f} | {untraced:.3f} | {traced / untraced - 1:+.0%} |"
        assert row in text, row
