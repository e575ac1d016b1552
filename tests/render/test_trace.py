"""Chrome/Perfetto trace export: golden files on recorded GPU evidence, the Trace Event Format rules the viewers
rely on, the transfers marked with their bytes (from the analysis, or from a transfer census where the evidence
has one), and `report --trace` / `check --trace`.

Update the golden files after an intended change with ``ORTCOPY_UPDATE_GOLDEN=1 pytest tests/render/test_trace.py``.
"""

from __future__ import annotations

import json
from collections import Counter

import onnx
import pytest

import models
from ortcopy_doctor.render.trace import TID_OTHER, TID_RUNS, TID_TRANSFERS, render_trace, trace
from ortcopy_doctor.report.core import load_report
from render_helpers import (
    FIXTURES,
    GOLDEN_FIXTURES,
    check_golden,
    evil_report,
    fixture_json,
    fixture_report_dict,
    load_fixture,
    mask_text,
    write_report_json,
)
from schema_helpers import run_cli

ALL_FIXTURES = sorted(p.name[: -len(".json.gz")] for p in FIXTURES.glob("*.json.gz"))
PHASES = {"X", "i", "M"}
METADATA_NAMES = {"process_name", "thread_name", "thread_sort_index", "process_sort_index"}


def check_trace_format(data: dict) -> list[dict]:
    """The rules of the Trace Event Format that chrome://tracing and ui.perfetto.dev rely on; returns the events."""
    assert set(data) >= {"traceEvents", "displayTimeUnit"}
    assert data["displayTimeUnit"] in ("ms", "ns")
    events = data["traceEvents"]
    assert isinstance(events, list) and events
    for e in events:
        assert e["ph"] in PHASES, e
        assert isinstance(e["name"], str) and e["name"], e
        assert isinstance(e["pid"], int)
        if e["ph"] == "M":
            assert e["name"] in METADATA_NAMES, e
            assert isinstance(e["args"], dict)
            continue
        assert isinstance(e["tid"], int)
        assert isinstance(e["ts"], (int, float)) and e["ts"] >= 0, e
        if e["ph"] == "X":
            assert isinstance(e["dur"], (int, float)) and e["dur"] >= 0, e
        if e["ph"] == "i":
            assert e["s"] in ("t", "p", "g"), e
        assert isinstance(e.get("args", {}), dict)
    # Complete events on one track nest or follow each other: never a partial overlap.
    tracks: dict[int, list[dict]] = {}
    for e in events:
        if e["ph"] == "X":
            tracks.setdefault(e["tid"], []).append(e)
    for tid, track in tracks.items():
        stack: list[float] = []
        for e in sorted(track, key=lambda e: (e["ts"], -e["dur"])):
            while stack and stack[-1] <= e["ts"]:
                stack.pop()
            end = e["ts"] + e["dur"]
            assert not stack or end <= stack[-1] + 1e-6, f"track {tid}: {e['name']} overlaps its neighbour"
            stack.append(end)
    # Every track with events has a name.
    named = {e["tid"] for e in events if e["ph"] == "M" and e["name"] == "thread_name"}
    assert {e["tid"] for e in events if e["ph"] != "M"} <= named
    return events


def mask_trace(text: str, report) -> str:
    data = json.loads(text)
    for e in data["traceEvents"]:
        for key in ("ts", "dur"):
            if key in e:
                e[key] = "<time>"
    data["otherData"]["tool"] = "ortcopy-doctor <VERSION>"
    return mask_text(json.dumps(data, indent=1, ensure_ascii=False), report) + "\n"


@pytest.fixture(params=GOLDEN_FIXTURES)
def fixture_report(request, tmp_path):
    return request.param, load_fixture(request.param, tmp_path)


def test_trace_golden(fixture_report):
    name, report = fixture_report
    check_golden(f"{name}.trace.json", mask_trace(render_trace(report), report))


@pytest.mark.parametrize("name", ALL_FIXTURES)
def test_trace_of_every_gpu_fixture_follows_the_format(name, tmp_path):
    report = load_fixture(name, tmp_path)
    data = json.loads(render_trace(report))
    events = check_trace_format(data)
    ev = report.evidence
    assert sum(1 for e in events if e.get("cat") == "run") == len(ev.run_events)
    nodes = [e for e in events if e["ph"] == "X" and e["tid"] not in (TID_RUNS, TID_TRANSFERS, TID_OTHER)]
    assert len(nodes) == len(ev.node_events)
    providers = {e["args"]["name"] for e in events if e["name"] == "thread_name"}
    assert {"model_run", "host↔device transfers"} <= providers
    # The GPU fixtures carry a transfer census (cupti-python): its traced runs come from it, the warm-up runs
    # from the analysis.
    assert data["otherData"]["transfers_from"] == ("census" if report.census is not None else "analysis")
    if report.census is not None:
        traced = set(report.census.traced_runs)
        transfers = [e for e in events if e.get("cat") == "transfer"]
        assert {e["args"]["run"] for e in transfers if e["args"]["source"] == "census"} <= traced | {-1}
        assert not [e for e in transfers if e["args"]["source"] == "analysis" and e["args"]["run"] in traced]
        host_device = [t for t in report.census.transfers if t.host_device]
        assert len([e for e in transfers if e["args"]["source"] == "census" and e["tid"] == TID_TRANSFERS]) == len(host_device)


def _without_census(name, tmp_path):
    """The fixture's evidence with its census removed: the timeline then shows the analysis' copies."""
    data = fixture_report_dict(name)
    ev = data["evidence"]
    ev["census"] = None
    ev["census_status"] = "skipped: removed for this test"
    return load_report(write_report_json(ev, tmp_path / f"{name}.nocensus.json"))


def test_one_track_per_provider_device_first(tmp_path):
    report = load_fixture("cpu_op_between", tmp_path)
    events = trace(report)["traceEvents"]
    names = {e["tid"]: e["args"]["name"] for e in events if e["name"] == "thread_name"}
    order = sorted(names, key=lambda tid: next(e["args"]["sort_index"] for e in events
                                               if e["name"] == "thread_sort_index" and e["tid"] == tid))
    assert [names[t] for t in order] == ["model_run", "host↔device transfers", "CUDA", "CPU"]
    cpu_tid = next(t for t, n in names.items() if n == "CPU")
    assert {e["name"] for e in events if e.get("tid") == cpu_tid and e["ph"] == "X"} == {"celu"}


def test_transfers_marked_with_bytes_in_every_run(tmp_path):
    """Without a census: feed/fetch instants at each run's start/end, Memcpy nodes spanning their node event."""
    report = _without_census("cpu_op_between", tmp_path)
    assert report.census is None
    events = trace(report)["traceEvents"]
    transfers = [e for e in events if e.get("cat") == "transfer"]
    runs = len(report.evidence.run_events)
    assert len(transfers) == len(report.copies) * runs
    assert all(e["tid"] == TID_TRANSFERS and isinstance(e["args"]["bytes"], int) for e in transfers)
    by_kind = Counter((e["args"]["kind"], e["ph"]) for e in transfers)
    assert by_kind == {("feed", "i"): runs, ("fetch", "i"): runs, ("memcpy_node", "X"): 2 * runs}
    starts = {r.run: r.ts_us for r in report.evidence.run_events}
    for e in transfers:
        if e["args"]["kind"] == "feed":
            assert e["ts"] == starts[e["args"]["run"]]
    memcpy = [e for e in transfers if e["args"]["kind"] == "memcpy_node"]
    node_events = {(n.run, n.name): n for n in report.evidence.node_events}
    for e in memcpy:
        node = node_events[(e["args"]["run"], e["args"]["node"])]
        assert (e["ts"], e["dur"]) == (node.ts_us, node.dur_us)
    assert {e["args"]["bytes"] for e in memcpy} == {1024}


def test_in_kernel_transfer_spans_its_node(tmp_path):
    report = _without_census("data_dependent_shape", tmp_path)
    events = trace(report)["traceEvents"]
    in_kernel = [e for e in events if e.get("cat") == "transfer" and e["args"]["kind"] == "in_kernel"]
    assert len(in_kernel) == len(report.evidence.run_events)
    assert all(e["ph"] == "X" and e["args"]["node"] for e in in_kernel)
    nodes = {(n.run, n.name): n for n in report.evidence.node_events}
    for e in in_kernel:
        node = nodes[(e["args"]["run"], e["args"]["node"])]
        assert (e["ts"], e["dur"]) == (node.ts_us, node.dur_us)


def test_transfers_marked_in_every_run_with_a_census(tmp_path):
    """With the recorded census: traced runs show each traced memcpy (at its issue time, with its bytes and the
    device time), the warm-up runs the analysis' copies; every run has its transfers."""
    report = load_fixture("cpu_op_between", tmp_path)
    assert report.census is not None
    events = check_trace_format(trace(report))
    transfers = [e for e in events if e.get("cat") == "transfer"]
    traced = set(report.census.traced_runs)
    for run in report.evidence.run_events:
        mine = [e for e in transfers if e["args"]["run"] == run.run and e["tid"] == TID_TRANSFERS]
        assert Counter(e["args"]["kind"] for e in mine) == {"feed": 1, "fetch": 1, "memcpy_node": 2}, run.run
        assert {e["args"]["source"] for e in mine} == {"census" if run.run in traced else "analysis"}
        assert sum(e["args"]["bytes"] for e in mine) == 512 + 1024 + 1024 + 256
    census = [e for e in transfers if e["args"]["source"] == "census"]
    assert all(e["ph"] == "X" and e["args"]["device_us"] > 0 for e in census)
    by_corr = {t.correlation_id: t for t in report.census.transfers}
    assert {e["ts"] for e in census} == {t.at_us for t in by_corr.values()}


def test_in_kernel_transfer_of_the_census_lies_in_its_node(tmp_path):
    report = load_fixture("data_dependent_shape", tmp_path)
    assert report.census is not None
    events = check_trace_format(trace(report))
    in_kernel = [e for e in events if e.get("cat") == "transfer" and e["args"]["kind"] == "in_kernel"]
    assert len(in_kernel) == len(report.evidence.run_events)  # census in the traced runs, analysis in the others
    nodes = {(n.run, n.name): n for n in report.evidence.node_events}
    for e in in_kernel:
        node = nodes[(e["args"]["run"], e["args"]["node"])]
        if e["args"]["source"] == "census":
            assert node.ts_us <= e["ts"] <= node.ts_us + node.dur_us + 1  # issued while the node ran
            assert e["args"]["bytes"] == 4 and e["args"]["confirms"] == "OCD009"
        else:
            assert (e["ts"], e["dur"]) == (node.ts_us, node.dur_us)


def _with_census(tmp_path):
    """cpu_op_between's evidence plus a synthetic census: one record per copy of each profiled run, issued inside
    the event that makes it (feeds just after the run starts, fetches just before it ends), on a clock 1 s off."""
    data = fixture_report_dict("cpu_op_between")
    ev = data["evidence"]
    start = ev["session"]["profiling_start_ns"] or 1_700_000_000_000_000_000
    ev["session"]["profiling_start_ns"] = start
    offset = 1_000_000_000
    records = []
    measured = [r for r in ev["run_events"] if not r["warmup"]]

    def record(direction, nbytes, at_us, corr):
        at_ns = start + int(at_us * 1000) + offset
        return {"direction": direction, "bytes": nbytes, "src_kind": "pageable" if direction == "host_to_device"
                else "device", "dst_kind": "device" if direction == "host_to_device" else "pageable",
                "start_ns": at_ns + 2000, "end_ns": at_ns + 3000, "correlation_id": corr, "api_start_ns": at_ns,
                "api_kind": "runtime"}

    corr = 0
    for run in measured:
        nodes = [n for n in ev["node_events"] if n["run"] == run["run"]]
        first = min(n["ts_us"] for n in nodes)
        last = max(n["ts_us"] + n["dur_us"] for n in nodes)
        records.append(record("host_to_device", 512, (run["ts_us"] + first) / 2, corr := corr + 1))
        for n in nodes:
            if n["op_type"] in ("MemcpyToHost", "MemcpyFromHost"):
                direction = "device_to_host" if n["op_type"] == "MemcpyToHost" else "host_to_device"
                records.append(record(direction, 1024, n["ts_us"] + n["dur_us"] / 2, corr := corr + 1))
        records.append(record("device_to_host", 256, (last + run["ts_us"] + run["dur_us"]) / 2, corr := corr + 1))
        records.append(record("device_to_device", 64, n["ts_us"] + n["dur_us"] / 2, corr := corr + 1))
    ev["census"] = {"backend": "cupti-python", "backend_version": "test", "records": records,
                    "clock_pairs": [[start + offset, start]], "traced_runs": [r["run"] for r in measured],
                    "clock_verified": True, "traced_run_ms": [], "notes": []}
    report = load_report(write_report_json(ev, tmp_path / "census.json"))
    if getattr(report, "census", None) is None:
        pytest.skip("this build does not attribute evidence.census (report.census)")
    return report, len(measured)


def test_census_transfers_on_the_timeline(tmp_path):
    report, runs = _with_census(tmp_path)
    data = json.loads(render_trace(report))
    events = check_trace_format(data)
    assert data["otherData"]["transfers_from"] == "census"
    transfers = [e for e in events if e.get("cat") == "transfer"]
    host_device = [e for e in transfers if e["tid"] == TID_TRANSFERS and e["args"]["source"] == "census"]
    assert len(host_device) == 4 * runs
    # The warm-up runs the census did not trace show the analysis' copies.
    warmups = {r.run for r in report.evidence.run_events if r.warmup}
    derived = [e for e in transfers if e["args"]["source"] == "analysis"]
    assert {e["args"]["run"] for e in derived} == warmups and len(derived) == 4 * len(warmups)
    assert Counter(e["args"]["kind"] for e in host_device) == {"feed": runs, "fetch": runs, "memcpy_node": 2 * runs}
    assert all(e["ph"] == "X" and e["args"]["source"] == "census" for e in host_device)
    assert sum(e["args"]["bytes"] for e in host_device) == 2816 * runs
    other = [e for e in transfers if e["tid"] != TID_TRANSFERS]
    assert len(other) == runs and all(e["args"]["direction"] == "device_to_device" for e in other)
    assert "other copies (census)" in {e["args"]["name"] for e in events if e["name"] == "thread_name"}
    # Placed where they were issued: each Memcpy-node transfer inside its node's event.
    nodes = {(n.run, n.name): n for n in report.evidence.node_events}
    for e in host_device:
        if e["args"]["kind"] == "memcpy_node":
            node = nodes[(e["args"]["run"], e["args"]["node"])]
            assert node.ts_us <= e["ts"] <= node.ts_us + node.dur_us


def test_evil_names_survive_as_json_strings(tmp_path):
    from render_helpers import EVIL_NODE

    report = evil_report(tmp_path)
    events = check_trace_format(json.loads(render_trace(report)))
    assert EVIL_NODE in {e["name"] for e in events}


def test_static_evidence_gives_an_empty_timeline(tmp_path):
    from ortcopy_doctor.api import check

    onnx.save(models.cpu_op_between(), str(tmp_path / "m.onnx"))
    report = check(tmp_path / "m.onnx", dims={"batch": 2}, static=True)
    data = trace(report)
    assert all(e["ph"] == "M" for e in data["traceEvents"])


def test_cli_report_and_check_write_traces(tmp_path):
    src = fixture_json("demo", tmp_path)
    result = run_cli(["report", src.name, "--trace", "demo.trace.json"], tmp_path)
    assert result.returncode == 0, result.stdout + result.stderr
    assert "wrote demo.trace.json" in result.stdout
    check_trace_format(json.loads((tmp_path / "demo.trace.json").read_text(encoding="utf-8")))

    onnx.save(models.cpu_op_between(), str(tmp_path / "model.onnx"))
    result = run_cli(["check", "model.onnx", "--dim", "batch=2", "--provider", "cpu", "--no-html", "--timed-runs", "2",
                      "--runs", "2", "--warmup", "1", "--trace", "run.trace.json"], tmp_path)
    assert result.returncode == 0, result.stdout + result.stderr
    events = check_trace_format(json.loads((tmp_path / "run.trace.json").read_text(encoding="utf-8")))
    assert sum(1 for e in events if e.get("cat") == "run") == 3
    assert not [e for e in events if e.get("cat") == "transfer"]  # CPU only: nothing crosses
