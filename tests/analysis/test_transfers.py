"""Transfer census attribution (ortcopy_doctor.analysis.attribution), replayed from CUPTI data recorded on the H200.

tests/fixtures/census/<model>.json.gz (tools/convert_probe_census.py) hold what CUPTI (cupti-python 13.4.0) saw
during the 2 profiled runs of an ORT 1.31.1 CUDA session, the clock pair, the profiling start and that session's
profile. The model's placement, feeds and outputs come from the evidence recorded by `check` for the same model,
ORT and GPU (tests/fixtures/gpu); its profile and profiling start are replaced by the traced session's, so the
whole path (evidence -> analyse -> report) runs on real data.
"""

from __future__ import annotations

import msgspec
import gzip
import json

import pytest

from fixture_loader import recorded
from ortcopy_doctor.model import codec
from ortcopy_doctor.model.copies import Copy
from ortcopy_doctor.collect.census import clock_error_ns, start_tracer
from ortcopy_doctor.model.census import KINETO_BASE_INTERVAL_S
from ortcopy_doctor.model.census import Census, TransferRecord, census_from_torch_trace, kineto_base_ns
from ortcopy_doctor.collect.census_run import CensusCollector
from ortcopy_doctor.model.evidence import CensusEvidence, Evidence, Feed, NodeEvent, RunEvent
from ortcopy_doctor.analysis.profile import parse_events
from ortcopy_doctor.report.core import analyse, load_report
from ortcopy_doctor.analysis.attribution import PROFILE_CLOCK_ALLOWANCE_US, PROFILE_QUANTUM_US, attribute, boundary_tolerance, clock_offset, to_profile_us
from ortcopy_doctor.render.text import census_line as one_line
from ortcopy_doctor.render.html import render_html
from ortcopy_doctor.render.text import render_text
from render_helpers import REPO, TESTS

CENSUS_FIXTURES = TESTS / "fixtures" / "census"
H2D, D2H, D2D = "host_to_device", "device_to_host", "device_to_device"

# Per traced run, in issue order: (class, direction, bytes, node, tensor, finding confirmed).
EXPECTED = {
    "conv_net": [("feed", H2D, 24576, "", "image", "OCD004"), ("fetch", D2H, 80, "", "logits", "OCD005")],
    "cpu_op_between": [
        ("feed", H2D, 512, "", "x", "OCD004"),
        ("memcpy_node", D2H, 1024, "Memcpy_token_0", "h1", "OCD003"),
        ("memcpy_node", H2D, 1024, "Memcpy", "h2", "OCD003"),
        ("fetch", D2H, 256, "", "y", "OCD005"),
    ],
    "data_dependent_shape": [
        ("feed", H2D, 2048, "", "x", "OCD004"),
        ("in_kernel", D2H, 4, "nonzero", "indices", "OCD009"),
        ("fetch", D2H, 3920, "", "indices", "OCD005"),
    ],
    "if_on_device": [
        ("feed", H2D, 64, "", "x", "OCD004"),
        ("memcpy_node", D2H, 1, "Memcpy", "cond", "OCD003"),
        ("fetch", D2H, 64, "", "y", "OCD005"),
    ],
    "stateful": [
        ("feed", H2D, 256, "", "x", "OCD004"),
        ("feed", H2D, 512, "", "state", "OCD004"),
        ("device_to_device", D2D, 512, "state_projection/MatMulAddFusion", "", ""),
        ("fetch", D2H, 64, "", "y", "OCD005"),
        ("fetch", D2H, 512, "", "state_out", "OCD005"),
    ],
    "map_output": [("feed", H2D, 24, "", "x", "OCD004"), ("memcpy_node", D2H, 24, "Memcpy", "probabilities", "OCD003")],
    "sequence_output": [("feed", H2D, 128, "", "x", "OCD004"), ("memcpy_node", D2H, 32, "Memcpy", "h", "OCD003")],
    "cpu_only_inputs": [("feed", H2D, 128, "", "x", "OCD004"), ("fetch", D2H, 128, "", "y", "OCD005")],
}
MODELS = sorted(EXPECTED)


def census_fixture(name: str) -> dict:
    with gzip.open(CENSUS_FIXTURES / f"{name}.json.gz", "rt", encoding="utf-8") as f:
        return json.load(f)


def traced_evidence(name: str) -> Evidence:
    fx = census_fixture(name)
    evidence = codec.convert(recorded(name)["report"]["evidence"], Evidence)
    run_events, node_events = parse_events(fx["profile_events"], fx["warmup_runs"])
    return msgspec.structs.replace(
        evidence, run_events=run_events, node_events=node_events,
        session=msgspec.structs.replace(evidence.session, profiling_start_ns=fx["profiling_start_ns"]),
        census=CensusEvidence(
            backend="cupti-python", backend_version=fx["cupti_python_version"],
            records=[codec.convert(r, TransferRecord) for r in fx["records"]], clock_pairs=fx["clock_pairs"],
            traced_runs=[r.run for r in run_events if not r.warmup]),
        census_status=f"recorded: cupti-python {fx['cupti_python_version']}")


def cupti_totals(records: list[dict]) -> dict[str, tuple[int, int]]:
    totals: dict[str, tuple[int, int]] = {}
    for r in records:
        if r["direction"] in (H2D, D2H):
            count, nbytes = totals.get(r["direction"], (0, 0))
            totals[r["direction"]] = (count + 1, nbytes + r["bytes"])
    return totals


# --- recorded GPU data ---------------------------------------------------------------------------------------------


def test_fixtures_keep_versions_and_raw_records():
    for name in MODELS:
        fx = census_fixture(name)
        assert fx["ort_version"] == "1.31.1" and fx["cupti_python_version"] == "13.4.0"
        assert fx["records"] and all(r["api_start_ns"] is not None for r in fx["records"])
        assert len(fx["clock_pairs"]) == 1 and len(fx["clock_pairs"][0]) == 2


@pytest.mark.parametrize("name", MODELS)
def test_every_host_device_transfer_is_attributed(name):
    census = analyse(traced_evidence(name)).census
    assert census is not None
    assert census.traced_runs == [1, 2]
    host_device = [t for t in census.transfers if t.host_device]
    assert host_device and census.attributed_share == 1.0
    assert all(t.run in (1, 2) and t.kind in ("feed", "fetch", "memcpy_node", "in_kernel") for t in host_device)
    assert all(t.placed_by == "api" for t in census.transfers)
    assert census.unexplained == []


@pytest.mark.parametrize("name", MODELS)
def test_per_run_totals_equal_cupti_totals_exactly(name):
    fx = census_fixture(name)
    census = analyse(traced_evidence(name)).census
    assert census is not None
    summed: dict[str, tuple[int, int]] = {}
    for t in census.transfers:
        if t.host_device:
            count, nbytes = summed.get(t.direction, (0, 0))
            summed[t.direction] = (count + 1, nbytes + t.bytes)
    assert summed == cupti_totals(fx["records"])
    # Both traced runs are identical, each half of what CUPTI counted.
    half = {d: (c // 2, b // 2) for d, (c, b) in cupti_totals(fx["records"]).items()}
    for run in census.runs:
        per_dir = {}
        for d in (H2D, D2H):
            items = [t for t in census.transfers if t.run == run.run and t.direction == d]
            if items:
                per_dir[d] = (len(items), sum(t.bytes for t in items))
        assert per_dir == half
        assert (run.host_device_count, run.host_device_bytes) == (sum(c for c, _ in half.values()),
                                                                 sum(b for _, b in half.values()))


@pytest.mark.parametrize("name", MODELS)
def test_each_class_is_right(name):
    census = analyse(traced_evidence(name)).census
    assert census is not None
    for run in (1, 2):
        got = [(t.kind, t.direction, t.bytes, t.node, t.tensor, t.confirms) for t in census.transfers if t.run == run]
        assert got == EXPECTED[name], run


@pytest.mark.parametrize("name", MODELS)
def test_census_confirms_every_copy_and_all_checks_pass(name):
    report = analyse(traced_evidence(name))
    assert report.census is not None
    assert [(c.kind, c.tensor, c.confirmed) for c in report.copies] == [(c.kind, c.tensor, True) for c in report.copies]
    assert report.census.checks and report.census.mismatches == []
    assert not [f for f in report.findings if f.rule in ("OCD010", "OCD011")]


def test_memcpy_node_and_feed_consistency_checks_are_made():
    census = analyse(traced_evidence("cpu_op_between")).census
    assert census is not None
    made = sorted({(c.check, c.subject, c.expected, c.observed) for c in census.checks})
    assert made == [("feed_bytes", "x", 512, 512), ("fetch_bytes", "y", 256, 256),
                    ("memcpy_node_bytes", "Memcpy", 1024, 1024), ("memcpy_node_bytes", "Memcpy_token_0", 1024, 1024)]


def test_memory_kinds_and_measured_bandwidth():
    census = analyse(traced_evidence("cpu_op_between")).census
    assert census is not None
    kinds = {(t.kind, t.direction): (t.src_kind, t.dst_kind) for t in census.transfers}
    assert kinds[("feed", H2D)] == ("pageable", "device")
    assert kinds[("memcpy_node", D2H)] == ("device", "pinned")  # the Memcpy node stages through pinned memory
    assert kinds[("fetch", D2H)] == ("device", "pageable")
    rates = {(b.direction, b.host_kind): b for b in census.bandwidth}
    assert set(rates) == {(H2D, "pageable"), (D2H, "pinned"), (D2H, "pageable")}
    pinned = rates[(D2H, "pinned")]
    assert pinned.count == 2 and pinned.bytes == 2048 and pinned.gb_per_s == pytest.approx(2048 / pinned.duration_ns)


def test_device_to_device_copies_are_reported_apart():
    census = analyse(traced_evidence("stateful")).census
    assert census is not None
    d2d = [t for t in census.transfers if t.kind == "device_to_device"]
    assert [(t.run, t.bytes, t.src_kind, t.dst_kind) for t in d2d] == [(1, 512, "device", "device"), (2, 512, "device", "device")]
    assert not any(t.unexplained for t in d2d)
    assert census.per_run["device_to_device"].count == 1 and census.per_run["device_to_device"].bytes == 512
    assert all(r.host_device_bytes == 256 + 512 + 64 + 512 for r in census.runs)


def test_per_run_class_totals_and_share_of_run_time():
    evidence = traced_evidence("conv_net")
    census = analyse(evidence).census
    assert census is not None
    durations = {r.run: r.dur_us for r in evidence.run_events}
    for run in census.runs:
        assert run.run_dur_us == durations[run.run]
        feed = run.classes["feed"]
        assert (feed.count, feed.bytes) == (1, 24576)
        assert feed.share_of_run == pytest.approx(feed.duration_ns / (durations[run.run] * 1000.0))
    assert list(census.per_run) == ["feed", "fetch"]


def test_report_json_round_trip_keeps_the_census(tmp_path):
    report = analyse(traced_evidence("data_dependent_shape"))
    path = tmp_path / "report.json"
    path.write_text(report.to_json(), encoding="utf-8")
    data = json.loads(path.read_text(encoding="utf-8"))
    assert data["census"]["attributed_share"] == 1.0
    assert data["evidence"]["census"]["records"][0]["api_start_ns"] is not None
    assert all(c["confirmed"] is True for c in data["copies"])
    again = load_report(path)
    assert again.census is not None and again.evidence.census is not None
    assert again.evidence.census.records == report.evidence.census.records
    assert codec.to_builtins(again.census) == codec.to_builtins(report.census)


def test_old_evidence_without_census_still_loads(tmp_path):
    data = recorded("conv_net")["report"]["evidence"]
    data.pop("census", None)
    data.pop("census_status", None)
    path = tmp_path / "old.json"
    path.write_text(json.dumps(data), encoding="utf-8")
    report = load_report(path)
    assert report.census is None and report.evidence.census_status == ""
    assert all(c.confirmed is None for c in report.copies)
    assert "Transfer census" not in render_html(report) and "Transfer census" not in render_text(report)


def test_html_and_text_show_the_census():
    report = analyse(traced_evidence("if_on_device"))
    html = render_html(report)
    assert 'id="census"' in html and "Transfer census" in html
    assert "Memcpy node" in html and "OCD003" in html and "pinned" in html
    assert "None: every traced transfer confirms a finding" in html
    text = render_text(report, width=200)
    assert report.census is not None and one_line(report.census) in text
    assert one_line(report.census) == ("Transfer census (cupti-python, 2 traced runs): per run 1 feed (64 B), "
                                       "1 fetch (64 B), 1 Memcpy node (1 B); 100% of host↔device transfers attributed.")


# --- unit tests on synthetic data ----------------------------------------------------------------------------------

START = 1_800_000_000_000_000_000  # profiling start, epoch ns
OFFSET = 5_000_000_123  # tracer clock 5 s ahead of time.time_ns()


def _runs() -> tuple[list[RunEvent], list[NodeEvent]]:
    runs = [RunEvent(run=0, ts_us=100, dur_us=100, warmup=True), RunEvent(run=1, ts_us=1000, dur_us=200, warmup=False)]

    def node(name: str, op: str, ts: int, dur: int, out: int = 64) -> NodeEvent:
        return NodeEvent(run=1, name=name, op_type=op, provider="CUDAExecutionProvider", ts_us=ts, dur_us=dur,
                         input_shapes=[], output_shapes=[], output_bytes=out)

    return runs, [node("a", "MatMul", 1020, 20), node("Memcpy", "MemcpyToHost", 1050, 10, out=256),
                  node("b", "NonZero", 1100, 40), node("c", "Relu", 1160, 10)]


def _record(at_us: float, direction: str = H2D, nbytes: int = 64, corr: int = 1, api: bool = True) -> TransferRecord:
    tracer_ns = START + round(at_us * 1000) + OFFSET
    src, dst = {H2D: ("pageable", "device"), D2H: ("device", "pageable"), D2D: ("device", "device")}[direction]
    return TransferRecord(direction=direction, bytes=nbytes, src_kind=src, dst_kind=dst, start_ns=tracer_ns + 5000,
                          end_ns=tracer_ns + 7000, correlation_id=corr, api_start_ns=tracer_ns if api else None,
                          api_kind="runtime" if api else "")


def test_clock_mapping_with_an_offset():
    pairs = [[START + OFFSET + 7, START + 10], [START + OFFSET + 100_003, START + 100_000]]  # sampled 3 ns apart
    assert clock_offset(pairs) == OFFSET
    assert clock_offset([]) == 0
    assert to_profile_us(START + OFFSET + 1_500_000, OFFSET, START) == 1500.0
    runs, nodes = _runs()
    records = [_record(1010), _record(1055, D2H, 256, corr=2), _record(1190, D2H, 64, corr=3)]
    report = attribute(records, [[START + OFFSET, START]], START, runs, nodes)
    assert [(t.run, t.kind, t.node, t.at_us) for t in report.transfers] == [
        (1, "feed", "", 1010.0), (1, "memcpy_node", "Memcpy", 1055.0), (1, "fetch", "", 1190.0)]
    # The same records read without the offset land 5 s late: outside every run.
    wrong = attribute(records, [], START, runs, nodes)
    assert {t.kind for t in wrong.transfers} == {"outside"}


def test_copies_name_tensors_and_confirm_findings():
    runs, nodes = _runs()
    copies = [Copy(kind="feed", direction=H2D, tensor="x", bytes_per_run=64),
              Copy(kind="memcpy_node", direction=D2H, tensor="h", bytes_per_run=256, node="Memcpy"),
              Copy(kind="in_kernel", direction=D2H, tensor="idx", bytes_per_run=4, node="b"),
              Copy(kind="fetch", direction=D2H, tensor="y", bytes_per_run=64)]
    feeds = [Feed(name="x", dtype="float32", shape=[16], bytes=64, source="synthesized")]
    records = [_record(1010), _record(1055, D2H, 256, corr=2), _record(1110, D2H, 4, corr=3),
               _record(1190, D2H, 64, corr=4)]
    report = attribute(records, [[START + OFFSET, START]], START, runs, nodes, copies, feeds)
    assert [(t.kind, t.tensor, t.confirms) for t in report.transfers] == [
        ("feed", "x", "OCD004"), ("memcpy_node", "h", "OCD003"), ("in_kernel", "idx", "OCD009"), ("fetch", "y", "OCD005")]
    assert report.mismatches == [] and report.unexplained == []


def test_unexplained_transfers_are_listed_never_dropped():
    runs, nodes = _runs()
    records = [
        _record(50, corr=1),  # before any run
        _record(1150, D2H, 8, corr=2),  # inside the run, in the gap between 'b' (ends 1140) and 'c' (starts 1160)
        _record(1030, D2H, 4, corr=3),  # inside MatMul 'a': an in-kernel transfer no copy predicted
        _record(1010, H2D, 999, corr=4),  # a feed-phase copy matching no input
        _record(1165, D2D, 128, corr=5),  # device-to-device: apart, not unexplained
        _record(1300, D2H, 16, corr=6, api=False),  # no API record: placed by the device start (1305 µs): outside
    ]
    report = attribute(records, [[START + OFFSET, START]], START, runs, nodes, [], [])
    by_corr = {t.correlation_id: t for t in report.transfers}
    assert len(report.transfers) == len(records)
    assert (by_corr[1].kind, by_corr[1].run, by_corr[1].confirms) == ("outside", -1, "unexplained")
    assert (by_corr[2].kind, by_corr[2].confirms) == ("between_nodes", "unexplained")
    assert (by_corr[3].kind, by_corr[3].node, by_corr[3].confirms) == ("in_kernel", "a", "unexplained")
    assert (by_corr[4].kind, by_corr[4].tensor, by_corr[4].confirms) == ("feed", "", "unexplained")
    assert (by_corr[5].kind, by_corr[5].confirms) == ("device_to_device", "")
    assert (by_corr[6].kind, by_corr[6].placed_by) == ("outside", "device")
    assert sorted(t.correlation_id for t in report.unexplained) == [1, 2, 3, 4, 6]
    assert report.attributed_share == pytest.approx(2 / 5)  # corr 3 and 4 are in a run and class, unexplained or not


def test_a_node_boundary_rounded_to_whole_microseconds_still_holds_its_copy():
    runs, nodes = _runs()
    # 'Memcpy' is [1050, 1060] µs in the profile; ORT truncates both ts and dur: 0.8 µs past its end is inside.
    report = attribute([_record(1060.8, D2H, 256)], [[START + OFFSET, START]], START, runs, nodes)
    assert (report.transfers[0].kind, report.transfers[0].node) == ("memcpy_node", "Memcpy")


def test_clock_error_bound_and_boundary_tolerance():
    pairs = [(START + OFFSET + 400, START), (START + OFFSET + 1_600 + 10**9, START + 10**9)]  # offsets 1200 ns apart
    assert clock_error_ns(pairs, [250, 700]) == 700 + 600
    assert boundary_tolerance(pairs, 1_300) == PROFILE_QUANTUM_US + 1.3 + PROFILE_CLOCK_ALLOWANCE_US
    # Evidence without a measured error: half the spread of its pairs.
    assert boundary_tolerance(pairs, None) == PROFILE_QUANTUM_US + 0.6 + PROFILE_CLOCK_ALLOWANCE_US
    runs, nodes = _runs()
    report = attribute([_record(1010)], pairs, START, runs, nodes, clock_error_ns=1_300)
    assert report.clock_error_ns == 1_300 and report.boundary_tolerance_us == pytest.approx(7.3)


def _boundary_case():
    runs, nodes = _runs()  # run 1: [1000, 1200] µs; first node 'a' starts at 1020, last node 'c' ends at 1170
    copies = [Copy(kind="feed", direction=H2D, tensor="x", bytes_per_run=2048),
              Copy(kind="memcpy_node", direction=D2H, tensor="h", bytes_per_run=256, node="Memcpy"),
              Copy(kind="in_kernel", direction=D2H, tensor="idx", bytes_per_run=4, node="b"),
              Copy(kind="fetch", direction=D2H, tensor="y", bytes_per_run=3920)]
    feeds = [Feed(name="x", dtype="float32", shape=[512], bytes=2048, source="synthesized")]
    return runs, nodes, copies, feeds


def test_a_feed_mapped_just_inside_the_first_node_is_the_feed():
    """The live failure on data_dependent_shape: the 2048 B feed of x mapped a few µs after the start of the first
    node ('relu' there, 'a' here) and was taken as an unexplained in-kernel copy of that node."""
    runs, nodes, copies, feeds = _boundary_case()
    pairs = [[START + OFFSET, START]]
    records = [_record(1023.2, H2D, 2048, corr=170670), _record(1055, D2H, 256, corr=4),
               _record(1110, D2H, 4, corr=2),
               _record(1168.5, D2H, 3920, corr=3)]  # the fetch mapped 1.5 µs before the last node's end
    report = attribute(records, pairs, START, runs, nodes, copies, feeds, clock_error_ns=1_000)
    got = [(t.correlation_id, t.kind, t.node, t.tensor, t.confirms, t.boundary_us) for t in report.transfers]
    assert got == [(170670, "feed", "", "x", "OCD004", 3.2), (4, "memcpy_node", "Memcpy", "h", "OCD003", None),
                   (2, "in_kernel", "b", "idx", "OCD009", None), (3, "fetch", "", "y", "OCD005", 1.5)]
    assert report.unexplained == [] and report.mismatches == [] and report.attributed_share == 1.0
    assert report.boundary_tolerance_us == pytest.approx(7.0)
    assert len(report.notes) == 2 and "correlation id 170670" in report.notes[0] and "7.0 µs" in report.notes[0]
    # Without the clock tolerance (the old placement) it was an unexplained in-kernel copy of 'a'.
    assert (report.transfers[0].at_us - 1020) == pytest.approx(3.2)


def test_boundary_copies_just_outside_the_run_are_its_feed_and_fetch():
    runs, nodes, copies, feeds = _boundary_case()
    records = [_record(997.5, H2D, 2048, corr=1), _record(1203.0, D2H, 3920, corr=2)]  # run 1 is [1000, 1200]
    report = attribute(records, [[START + OFFSET, START]], START, runs, nodes, copies, feeds)
    assert [(t.run, t.kind, t.tensor, t.confirms, t.boundary_us) for t in report.transfers] == [
        (1, "feed", "x", "OCD004", 2.5), (1, "fetch", "y", "OCD005", 3.0)]


def test_what_the_boundary_rule_does_not_explain_stays_unexplained():
    runs, nodes, copies, feeds = _boundary_case()
    pairs = [[START + OFFSET, START]]
    records = [
        _record(1003, H2D, 2048, corr=1),  # the feed of x, before the first node
        _record(1021, H2D, 2048, corr=2),  # a second copy of x's size: x already has its feed in this run
        _record(1022, H2D, 512, corr=3),  # no input of that size
        _record(1040, H2D, 2048, corr=4),  # 20 µs inside the first node: beyond the tolerance
        _record(1160.5, D2H, 3920, corr=6),  # inside the last node but 9.5 µs before its end
        _record(990, H2D, 2048, corr=7),  # 10 µs before the run: outside
    ]
    # ORT stages its own copies through pinned memory: not a feed of a host array
    pinned = msgspec.structs.replace(_record(1021.5, H2D, 2048, corr=5), src_kind="pinned")
    report = attribute(records + [pinned], pairs, START, runs, nodes, copies, feeds)
    by_corr = {t.correlation_id: t for t in report.transfers}
    assert (by_corr[1].kind, by_corr[1].confirms, by_corr[1].boundary_us) == ("feed", "OCD004", None)
    for corr in (2, 3, 4, 5):
        assert (by_corr[corr].kind, by_corr[corr].node, by_corr[corr].confirms) == ("in_kernel", "a", "unexplained"), corr
    assert (by_corr[6].kind, by_corr[6].node, by_corr[6].confirms) == ("in_kernel", "c", "unexplained")
    assert (by_corr[7].kind, by_corr[7].run, by_corr[7].confirms) == ("outside", -1, "unexplained")
    assert sorted(t.correlation_id for t in report.unexplained) == [2, 3, 4, 5, 6, 7]
    assert report.notes == []


def test_a_predicted_in_kernel_copy_at_the_first_node_is_not_taken_as_a_feed():
    runs, nodes, copies, feeds = _boundary_case()
    copies.append(Copy(kind="in_kernel", direction=H2D, tensor="params", bytes_per_run=2048, node="a"))
    report = attribute([_record(1003, H2D, 2048, corr=1), _record(1022, H2D, 2048, corr=2)],
                       [[START + OFFSET, START]], START, runs, nodes, copies, feeds)
    by_corr = {t.correlation_id: t for t in report.transfers}
    assert (by_corr[2].kind, by_corr[2].node, by_corr[2].confirms) == ("in_kernel", "a", "OCD009")


def test_recorded_feed_moved_into_the_first_node_is_still_the_feed():
    """data_dependent_shape as recorded, with the feed's API start of run 2 moved 3 µs past the first node's start
    (what happened live in run 3 of a `pytest -m gpu` run): still 100% attributed, the tolerance in the report."""
    evidence = traced_evidence("data_dependent_shape")
    assert evidence.census is not None
    offset = clock_offset(evidence.census.clock_pairs)
    start_ns = evidence.session.profiling_start_ns
    run2 = next(r for r in evidence.run_events if r.run == 2)
    first = min(n.ts_us for n in evidence.node_events if n.run == 2)
    records = evidence.census.records
    [i] = [i for i, r in enumerate(records)
           if r.direction == H2D and run2.ts_us <= to_profile_us(r.api_start_ns, offset, start_ns) <= first]
    records[i] = msgspec.structs.replace(records[i], api_start_ns=start_ns + offset + (first + 3) * 1000)
    report = analyse(evidence)
    census = report.census
    assert census is not None and census.attributed_share == 1.0 and census.unexplained == []
    moved = [t for t in census.transfers if t.boundary_us is not None]
    assert [(t.run, t.kind, t.tensor, t.confirms, t.boundary_us) for t in moved] == [(2, "feed", "x", "OCD004", 3.0)]
    assert census.mismatches == [] and all(c.confirmed for c in report.copies)
    data = json.loads(report.to_json())
    assert data["census"]["boundary_tolerance_us"] == census.boundary_tolerance_us >= 6.0
    assert any("taken as a feed copy" in n for n in data["census"]["notes"])


def test_consistency_checks_catch_mismatches():
    runs, nodes = _runs()
    copies = [Copy(kind="feed", direction=H2D, tensor="x", bytes_per_run=64),
              Copy(kind="memcpy_node", direction=D2H, tensor="h", bytes_per_run=256, node="Memcpy")]
    feeds = [Feed(name="x", dtype="float32", shape=[16], bytes=64, source="synthesized")]
    # The Memcpy node copies 128 B although the profile says its output is 256 B; the feed copy is missing.
    records = [_record(1055, D2H, 128, corr=1)]
    report = attribute(records, [[START + OFFSET, START]], START, runs, nodes, copies, feeds)
    failed = {(c.check, c.subject): (c.expected, c.observed) for c in report.mismatches}
    assert failed == {("memcpy_node_bytes", "Memcpy"): (256, 128), ("feed_bytes", "x"): (64, 0)}


def test_census_rules_report_unexplained_transfers_and_mismatches():
    evidence = traced_evidence("data_dependent_shape")
    assert evidence.census is not None
    # Claim NonZero ran on CPU: the analysis then predicts no in-kernel read-back, and the census' 4 B copy
    # inside its event is explained by no finding.
    evidence.nodes[:] = [msgspec.structs.replace(node, provider="CPUExecutionProvider") if node.op_type == "NonZero"
                         else node for node in evidence.nodes]
    # And claim another size of the array fed: the feed check fails.
    evidence.feeds[0] = msgspec.structs.replace(evidence.feeds[0], bytes=1024)
    report = analyse(evidence)
    assert report.census is not None
    rules = [(f.rule, f.location) for f in report.findings if f.rule in ("OCD010", "OCD011")]
    assert ("OCD010", "nonzero") in rules
    assert ("OCD011", "x") in rules
    unexplained = next(f for f in report.findings if f.rule == "OCD010" and f.location == "nonzero")
    assert unexplained.severity == "warning" and "4 B" in unexplained.message and "NonZero 'nonzero'" in unexplained.message
    in_kernel = [c for c in report.copies if c.kind == "in_kernel"]
    assert in_kernel == []
    html = render_html(report)
    assert 'id="census-unexplained"' in html and 'id="census-mismatches"' in html


# --- backends and collection on this machine -----------------------------------------------------------------------


BASE = (START // (KINETO_BASE_INTERVAL_S * 10**9)) * KINETO_BASE_INTERVAL_S * 10**9  # Kineto's baseTimeNanoseconds


def _kineto_trace(with_base: bool = True, marker_lag_ns: int = 60_000) -> tuple[dict, list[tuple[int, int]]]:
    """A trace in the layout of torch 2.11's Kineto export (ts: µs since baseTimeNanoseconds, 3 decimals), and the
    time.time_ns() reads around the two markers, which start ``marker_lag_ns`` after the read before them."""
    rel = START - BASE  # ns since the base at START

    def us(ns: int) -> float:
        return float(f"{ns // 1000}.{ns % 1000:03d}")

    reads = [(START, START + marker_lag_ns + 3_000), (START + 1_000_000, START + 1_000_000 + marker_lag_ns + 3_000)]
    events = [
        {"ph": "X", "cat": "user_annotation", "name": "ortcopy_doctor_clock", "ts": us(rel + marker_lag_ns), "dur": 1},
        {"ph": "X", "cat": "cuda_runtime", "name": "cudaMemcpyAsync", "ts": us(rel + 10_500), "dur": 20,
         "args": {"correlation": 7, "cbid": 41}},
        {"ph": "X", "cat": "cuda_driver", "name": "cuMemcpyAsync", "ts": us(rel + 10_900), "dur": 5,
         "args": {"correlation": 7}},
        {"ph": "X", "cat": "gpu_memcpy", "name": "Memcpy HtoD (Pageable -> Device)", "ts": us(rel + 12_250), "dur": 2.5,
         "args": {"correlation": 7, "bytes": 24576, "device": 0, "stream": 7, "memory bandwidth (GB/s)": 9.8}},
        {"ph": "X", "cat": "gpu_memcpy", "name": "Memcpy DtoH (Device -> Pinned)", "ts": us(rel + 50_000), "dur": 1.5,
         "args": {"correlation": 9, "bytes": 4}},
        {"ph": "X", "cat": "gpu_user_annotation", "name": "ortcopy_doctor_clock", "ts": us(rel + 70_000), "dur": 1},
        {"ph": "X", "cat": "user_annotation", "name": "ortcopy_doctor_clock", "ts": us(rel + 1_000_000 + marker_lag_ns),
         "dur": 1},
    ]
    trace: dict = {"schemaVersion": 1, "displayTimeUnit": "ms", "traceEvents": events}
    if with_base:
        trace["baseTimeNanoseconds"] = BASE
    return trace, reads


def test_torch_trace_is_read_into_transfer_records():
    """The PyTorch-profiler backend's parser: ts are µs since baseTimeNanoseconds, which maps them exactly."""
    trace, reads = _kineto_trace()
    census = census_from_torch_trace(trace, reads)
    assert isinstance(census, Census) and census.backend == "torch-profiler"
    assert census.clock_pairs == [(0, BASE)] and clock_offset(census.clock_pairs) == -BASE
    assert census.clock_verified is True
    assert any("baseTimeNanoseconds" in n and "60.0..60.0 µs" in n for n in census.notes), census.notes
    first, second = census.records
    rel = START - BASE
    assert (first.direction, first.bytes, first.src_kind, first.dst_kind) == (H2D, 24576, "pageable", "device")
    # Every ns kept; the issuing call is the runtime call, not the driver call it made.
    assert (first.start_ns, first.end_ns, first.api_start_ns, first.api_kind) == (
        rel + 12_250, rel + 14_750, rel + 10_500, "runtime")
    assert (second.direction, second.dst_kind, second.api_start_ns) == (D2H, "pinned", None)
    # On time.time_ns()'s clock: issued 10.5 µs after START, not 60 µs earlier as the marker pairs would say.
    assert to_profile_us(first.api_start_ns, clock_offset(census.clock_pairs), START) == 10.5


def test_torch_trace_without_a_base_time_recovers_it_from_the_markers():
    trace, reads = _kineto_trace(with_base=False, marker_lag_ns=150_000)
    census = census_from_torch_trace(trace, [before for before, _ in reads])
    assert census.clock_pairs == [(0, BASE)]
    assert census.clock_verified is False  # inferred, not read: the report says to check the placement
    assert any("recovered from the markers" in n for n in census.notes)
    assert kineto_base_ns([(START - BASE + 150_000, START)]) == BASE
    assert kineto_base_ns([(START + 150_000, START)]) == 0  # a trace in absolute epoch µs
    assert kineto_base_ns([(123, START)]) is None


def test_torch_trace_whose_markers_fit_no_base_keeps_the_markers_and_says_so():
    trace, reads = _kineto_trace(with_base=False)
    for e in trace["traceEvents"]:
        if e["name"] == "ortcopy_doctor_clock":
            e["ts"] = e["ts"] - 5_000_000_000.0  # 5000 s off: no Kineto base fits
    census = census_from_torch_trace(trace, reads)
    assert census.clock_verified is False and len(census.clock_pairs) == 2 and census.clock_pairs[0][0] != 0
    assert any("copies may be placed" in n for n in census.notes)


def test_torch_trace_markers_that_contradict_the_base_are_flagged():
    trace, reads = _kineto_trace()
    trace["baseTimeNanoseconds"] = BASE - 10 * 10**9  # 10 s off
    census = census_from_torch_trace(trace, reads)
    assert census.clock_verified is False and any("inconsistent" in n for n in census.notes)


def test_no_backend_can_trace_on_this_machine():
    tracer, reasons = start_tracer()
    if tracer is not None:  # a GPU machine with a working backend
        tracer.__exit__(None, None, None)
        pytest.skip("a tracing backend works here")
    assert reasons and any("cupti" in r for r in reasons) and any("torch" in r for r in reasons)


def test_collector_skips_sessions_not_on_cuda():
    collector = CensusCollector(warmup_runs=1, profiled_runs=2)
    collector.start(["CPUExecutionProvider"])
    collector.stop()
    collector.stop()
    assert collector.census is None
    assert collector.status.startswith("skipped: the transfer census traces CUDA sessions")
    nothing = CensusCollector(warmup_runs=1, profiled_runs=0)
    nothing.stop()
    assert nothing.status == "skipped: no profiled runs to trace"


@pytest.mark.no_cuda
def test_check_here_records_why_the_census_was_skipped(tmp_path):
    import onnx

    import models
    from ortcopy_doctor import check
    from ortcopy_doctor.collect.session import CheckOptions

    path = tmp_path / "conv_net.onnx"
    onnx.save(models.conv_net(), str(path))
    report = check(path, CheckOptions(dims={"batch": 2}, warmup_runs=1, profiled_runs=1, timed_runs=2))
    status = report.evidence.census_status
    assert status.startswith("skipped"), status
    assert report.evidence.census is None and report.census is None
    if "CUDAExecutionProvider" not in report.evidence.session.active_providers:
        assert "CUDA" in status
    assert f"Transfer census: {status}" in render_text(report, width=400)
    assert "Transfer census" in render_html(report)
    again = json.loads(report.to_json())
    assert again["evidence"]["census_status"] == status and again["evidence"]["census"] is None


# --- live, on the GPU machine (pytest -m gpu) ------------------------------------------------------------------------

LIVE_DIMS = {"batch": 2, "rows": 4, "cols": 8}  # as tools/record_gpu_evidence.py: the sizes EXPECTED holds


@pytest.mark.gpu
@pytest.mark.parametrize("name", MODELS)
def test_live_census_attributes_every_transfer(tmp_path, name):
    """`check` with the CUDA EP takes the census itself; the same classes as the recorded data, on every traced run."""
    import numpy as np
    import onnx

    import models
    from ortcopy_doctor import check

    ort = pytest.importorskip("onnxruntime")
    if "CUDAExecutionProvider" not in ort.get_available_providers():
        pytest.skip("no CUDA EP in this onnxruntime")
    if not _cuda_loads():
        pytest.skip("the CUDA EP does not load here")
    from ort_limits import skip_if_cannot_run

    skip_if_cannot_run(name)
    path = tmp_path / f"{name}.onnx"
    onnx.save(models.ALL[name](), str(path))
    inputs = None
    if name == "cpu_only_inputs":
        inputs = tmp_path / "inputs.npz"
        np.savez(inputs, target_shape=np.array([4, 8], np.int64))
    report = check(path, dims=LIVE_DIMS, inputs_file=inputs, timed_runs=5)
    evidence = report.evidence
    assert evidence.session.active_providers[0] == "CUDAExecutionProvider"
    assert evidence.census_status.startswith("recorded: cupti-python"), evidence.census_status
    census = report.census
    assert census is not None and census.traced_runs == [2, 3, 4]
    assert census.attributed_share == 1.0 and census.unexplained == [] and census.mismatches == []
    for run in census.traced_runs:
        got = [(t.kind, t.direction, t.bytes, t.node, t.tensor, t.confirms) for t in census.transfers if t.run == run]
        assert got == EXPECTED[name], run
    cupti = cupti_totals([codec.to_builtins(r) for r in evidence.census.records])
    summed: dict[str, tuple[int, int]] = {}
    for r in census.runs:
        for t in (t for t in census.transfers if t.run == r.run and t.host_device):
            count, nbytes = summed.get(t.direction, (0, 0))
            summed[t.direction] = (count + 1, nbytes + t.bytes)
    assert summed == cupti
    assert all(c.confirmed is True for c in report.copies)
    assert len(evidence.census.traced_run_ms) == 5  # the overhead runs
    # The clock pairs are bracketed and their error bounded; the tolerance used at run boundaries is in the report.
    assert len(evidence.census.clock_pairs) == 2
    assert evidence.census.clock_error_ns is not None and 0 <= evidence.census.clock_error_ns < 50_000
    assert census.boundary_tolerance_us == boundary_tolerance(evidence.census.clock_pairs, evidence.census.clock_error_ns)
    assert report.to_json().count('"boundary_tolerance_us"') == 1


@pytest.mark.gpu
def test_live_torch_profiler_backend_in_its_own_process(tmp_path):
    """tools/verify_census.py --backend torch-profiler (its own process: Kineto and cupti-python both drive CUPTI):
    every model 100% attributed with the classes of CUPTI and the clock checked; then its raw Kineto traces parsed."""
    import importlib.util
    import subprocess
    import sys
    from collections import Counter

    ort = pytest.importorskip("onnxruntime")
    if "CUDAExecutionProvider" not in ort.get_available_providers():
        pytest.skip("no CUDA EP in this onnxruntime")
    if not _cuda_loads():
        pytest.skip("the CUDA EP does not load here")
    if importlib.util.find_spec("torch") is None:
        pytest.skip("torch is not installed")
    root = REPO
    result = subprocess.run([sys.executable, str(root / "tools" / "verify_census.py"), str(tmp_path),
                             "--backend", "torch-profiler"], capture_output=True, text=True, timeout=1500)
    assert result.returncode == 0, result.stdout[-6000:] + result.stderr[-3000:]
    from ort_limits import cannot_run

    out = tmp_path / "torch-profiler"
    for name in MODELS:
        if cannot_run(name, ort.__version__):  # verify_census.py skips it too, saying why
            assert f"== {name}: skipped: " in result.stdout
            continue
        with gzip.open(out / f"{name}.json.gz", "rt", encoding="utf-8") as f:
            data = json.load(f)
        runs = data["census"]["traced_runs"]
        for run in runs:
            got = [(t["kind"], t["direction"], t["bytes"], t["node"], t["tensor"], t["confirms"])
                   for t in data["census"]["transfers"] if t["run"] == run]
            assert got == [tuple(e) for e in EXPECTED[name]], (name, run)
        assert data["evidence"]["census"]["clock_verified"] is True
        with gzip.open(out / f"{name}.trace.json.gz", "rt", encoding="utf-8") as f:
            trace = json.load(f)
        marks = json.loads((out / f"{name}.marks.json").read_text())
        census = census_from_torch_trace(trace, marks)
        assert census.clock_verified and census.clock_pairs == [(0, int(trace["baseTimeNanoseconds"]))], census.notes
        assert Counter((r.direction, r.bytes) for r in census.records) == Counter((d, b) for _, d, b, *_ in EXPECTED[name])


def _cuda_loads() -> bool:
    """The CUDA EP really loads (a build can list it and still fall back to CPU)."""
    from ortcopy_doctor.collect.environment import provider_loadable

    return provider_loadable("CUDAExecutionProvider").loadable
