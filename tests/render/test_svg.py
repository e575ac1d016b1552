"""The report's pictures (ortcopy_doctor/render/svg.py): the timeline of one run and the CPU islands in the graph.

Recorded GPU evidence (tests/fixtures/gpu) for what they must show, hostile names for escaping, and a generated
10,000-node report for size and speed (timings are printed, not asserted tightly: machines differ).
"""

from __future__ import annotations

import copy
import msgspec
import html
import time
import xml.etree.ElementTree as ET

import pytest

from ortcopy_doctor.render import svg
from ortcopy_doctor.report.core import analyse
from ortcopy_doctor.model.format import fmt_bytes
from render_helpers import EVIL_NODE, EVIL_TENSOR, big_report, evil_report, load_fixture
from ortcopy_doctor.render.html import render_html


def parse(text: str) -> ET.Element:
    """The SVG as XML: well-formed, every name escaped (a stray < or & would not parse)."""
    return ET.fromstring(text)


def titles(root: ET.Element) -> list[str]:
    return [t.text or "" for t in root.iter("title")]


def classed(root: ET.Element, tag: str, cls: str) -> list[ET.Element]:
    return [e for e in root.iter(tag) if cls in (e.get("class") or "").split()]


def run_events(report, run):
    return [e for e in report.evidence.node_events if e.run == run.run]


# --- timeline ------------------------------------------------------------------------------------------------------


@pytest.mark.parametrize("name", ["cpu_op_between", "demo", "shape_subgraph", "conv_net"])
def test_timeline_lanes_and_one_rect_per_node_event(name, tmp_path):
    report = load_fixture(name, tmp_path)
    run = svg.timeline_run(report)
    assert run is not None and not run.warmup
    assert run.run == max(r.run for r in report.evidence.run_events if not r.warmup)
    figure = svg.timeline_figure(report)
    root = parse(figure.svg)
    assert root.get("id") == "timeline-svg"
    lanes = [t.text for t in classed(root, "text", "lane")]
    providers = {e.provider for e in run_events(report, run)}
    expected = (["CUDA"] if "CUDAExecutionProvider" in providers else []) + (
        ["CPU"] if "CPUExecutionProvider" in providers else [])
    assert lanes == expected + ["transfers"]
    events = classed(root, "g", "ev")
    assert len(events) == len(run_events(report, run)) == figure.stats["rects"]
    assert classed(root, "rect", "ev-merged") == []
    tips = [e.find("rect").find("title").text for e in events]
    for e in run_events(report, run):
        assert any(tip.startswith(f"{e.name} ({e.op_type}, ") for tip in tips), e.name
    assert f"run {run.run}" in figure.note.lower()


def test_timeline_marks_census_transfers_with_their_bytes(tmp_path):
    report = load_fixture("demo", tmp_path)
    assert report.census is not None
    run = svg.timeline_run(report)
    transfers = [t for t in report.census.transfers if t.run == run.run]
    root = parse(svg.timeline_figure(report).svg)
    marks = classed(root, "g", "transfer")
    assert len(marks) == len(transfers) == 6
    assert sorted(int(m.get("data-bytes")) for m in marks) == sorted(t.bytes for t in transfers)
    for m in marks:
        label = fmt_bytes(int(m.get("data-bytes")))
        assert label in m.find("title").text
    labels = [t.text for m in marks for t in m.iter("text")]
    assert {"32.8 KB", "65.5 KB", "4 B", "16.4 KB", "33.0 KB"} <= set(labels)
    # the Memcpy nodes are in the Memcpy colour, the CPU node in the CPU lane
    rects = {e.find("rect").find("title").text.split(" ")[0]: e.find("rect") for e in classed(root, "g", "ev")}
    assert rects["Memcpy_token_0"].get("fill") == svg.MEMCPY_FILL
    assert rects["celu_activation"].get("fill") == svg.CPU_FILL
    assert rects["encoder_matmul"].get("fill") == svg.DEVICE_FILL


def test_timeline_without_census_marks_the_analysis_copies(tmp_path):
    report = load_fixture("cpu_op_between", tmp_path)
    ev = msgspec.structs.replace(copy.deepcopy(report.evidence), census=None, census_status="")
    plain = analyse(ev)
    assert plain.census is None
    run = svg.timeline_run(plain)
    events = run_events(plain, run)
    marks, unplaced = svg.timeline_marks(plain, run, events)
    assert unplaced == 0
    by_kind = {(m.kind, m.tensor): m for m in marks}
    assert by_kind[("feed", "x")].at_us == run.ts_us
    assert by_kind[("fetch", "y")].at_us == run.ts_us + run.dur_us
    memcpy_ts = {e.name: e.ts_us for e in events}
    assert by_kind[("memcpy_node", "h1")].at_us == memcpy_ts["Memcpy_token_0"]
    assert by_kind[("memcpy_node", "h2")].at_us == memcpy_ts["Memcpy"]
    figure = svg.timeline_figure(plain)
    root = parse(figure.svg)
    assert len(classed(root, "g", "transfer")) == len(plain.copies) == 4
    assert "not traced" in figure.note
    assert all("not traced" in m.find("title").text for m in classed(root, "g", "transfer"))


def test_static_evidence_has_no_timeline(tmp_path):
    report = load_fixture("demo", tmp_path)
    report = msgspec.structs.replace(report, evidence=msgspec.structs.replace(report.evidence, mode="static"))
    figure = svg.timeline_figure(report)
    assert figure.svg == ""
    assert "no timeline" in figure.note
    html = render_html(report)
    assert 'id="timeline-svg"' not in html
    assert figure.note in html.replace("&#39;", "'")
    assert 'id="islands-svg"' in html  # placement is still there to draw (predicted)


def test_no_profiled_run_no_timeline(tmp_path):
    report = load_fixture("demo", tmp_path)
    report = msgspec.structs.replace(report, evidence=msgspec.structs.replace(
        report.evidence, run_events=[r for r in report.evidence.run_events if r.warmup]))
    figure = svg.timeline_figure(report)
    assert figure.svg == "" and "no profiled run" in figure.note.lower()


# --- escaping --------------------------------------------------------------------------------------------------


def test_hostile_names_are_escaped(tmp_path):
    report = evil_report(tmp_path)
    for figure in (svg.timeline_figure(report), svg.islands_figure(report)):
        assert figure.svg
        assert "<script" not in figure.svg and "<img" not in figure.svg
        assert EVIL_NODE not in figure.svg
        root = parse(figure.svg)  # well-formed: every <, & and quote escaped
        assert any(EVIL_NODE in t for t in titles(root)), titles(root)
        for element in root.iter():
            assert element.tag.split("}")[-1] in {"svg", "title", "g", "rect", "text", "line", "polygon", "path"}
            for attribute in element.attrib:
                assert not attribute.lower().startswith("on"), attribute
    islands = parse(svg.islands_figure(report).svg)
    assert any(EVIL_TENSOR in t for t in titles(islands))  # the tensor of a Memcpy edge, as text
    assert svg.esc(EVIL_NODE) == "&lt;script&gt;alert(&quot;x&quot;)&lt;/script&gt; &amp; ü"


def test_labels_are_shortened_before_escaping():
    label = svg.fit('<b title="x">' * 5, 60)
    assert label.endswith("…") and len(label) <= 10
    assert "&" not in svg.esc(label).replace("&lt;", "").replace("&gt;", "").replace("&quot;", "")


# --- CPU islands ------------------------------------------------------------------------------------------------


@pytest.mark.parametrize("name, islands", [
    ("cpu_op_between", [["celu"]]),
    ("demo", [["celu_activation"]]),
    ("conv_net", []),
    ("shape_subgraph", [["gather", "double", "unsqueeze", "concat"]]),
])
def test_island_detection(name, islands, tmp_path):
    report = load_fixture(name, tmp_path)
    found = svg.find_islands(report.evidence)
    assert [i.names for i in found] == islands
    figure = svg.islands_figure(report)
    root = parse(figure.svg)
    drawn = classed(root, "g", "island")
    assert len(drawn) == len(islands)
    for island, g in zip(found, drawn):
        label = g.find("text").text
        assert label.startswith(f"CPU island: {len(island.nodes)} node")
    nodes = classed(root, "g", "node") + classed(root, "g", "cpu") + classed(root, "g", "memcpy")
    assert len(nodes) == len(report.evidence.nodes)


def test_fallback_island_is_between_cuda_nodes(tmp_path):
    report = load_fixture("cpu_op_between", tmp_path)
    (island,) = svg.find_islands(report.evidence)
    nodes = report.evidence.nodes
    assert sorted(nodes[i].name for i in island.neighbours) == ["Memcpy", "Memcpy_token_0"]
    assert all(nodes[i].provider == "CUDAExecutionProvider" for i in island.neighbours)
    assert not island.cpu_preferred
    assert island.label == "CPU island: 1 node (fallback)"
    root = parse(svg.islands_figure(report).svg)
    memcpy = classed(root, "g", "memcpy")
    assert len(memcpy) == 2
    assert all(g.find("rect").get("fill") == svg.MEMCPY_FILL for g in memcpy)


def test_cpu_preferred_island_is_labelled_as_ort_choice(tmp_path):
    report = load_fixture("shape_subgraph", tmp_path)
    (island,) = svg.find_islands(report.evidence)
    assert island.cpu_preferred
    assert "ORT's choice" in island.label and "(fallback)" not in island.label
    figure = svg.islands_figure(report)
    assert "ORT's choice, not a fallback" in parse(figure.svg).find(".//g[@class='island']/text").text
    assert "ORT chose CPU" in figure.note


def test_layout_is_longest_path_left_to_right(tmp_path):
    report = load_fixture("shape_subgraph", tmp_path)
    lay = svg.graph_layout(report.evidence)
    names = [n.name for n in report.evidence.nodes]
    depth = {names[box.members[0]]: box.depth for box in lay.boxes}
    # reshape reads relu directly, but sits after the longest path relu-shape-gather-double-unsqueeze-concat
    assert depth == {"relu": 0, "shape": 1, "gather": 2, "double": 3, "unsqueeze": 4, "concat": 5, "reshape": 6}
    for (a, b) in lay.edges:
        assert lay.boxes[a].depth < lay.boxes[b].depth


def test_cpu_only_session_has_no_islands(tmp_path):
    report = load_fixture("demo", tmp_path)
    report = msgspec.structs.replace(report, evidence=msgspec.structs.replace(
        report.evidence, session=msgspec.structs.replace(report.evidence.session, active_providers=["CPUExecutionProvider"])))
    assert svg.find_islands(report.evidence) == []
    figure = svg.islands_figure(report)
    assert figure.svg == "" and "no CPU islands" in figure.note


# --- big graphs ---------------------------------------------------------------------------------------------------


@pytest.fixture(scope="module")
def big(tmp_path_factory):
    return big_report(tmp_path_factory.mktemp("big"), n_nodes=10_000)


def test_big_graph_collapses_device_runs(big):
    n = len(big.evidence.nodes)
    assert n > 10_000
    start = time.perf_counter()
    figure = svg.islands_figure(big)
    seconds = time.perf_counter() - start
    size = len(figure.svg.encode())
    print(f"\nislands SVG of {n} nodes: {seconds * 1000:.0f} ms, {size / 1024:.0f} KiB, {figure.stats}")
    assert seconds < 5 and size < 2_000_000
    root = parse(figure.svg)
    islands = svg.find_islands(big.evidence)
    assert len(islands) == figure.stats["islands"] == len(classed(root, "g", "island")) > 20
    collapsed = classed(root, "g", "collapsed")
    assert collapsed and all(g.find("text").text.endswith("CUDA nodes") for g in collapsed)
    assert sum(int(g.get("data-nodes")) for g in collapsed) + figure.stats["nodes_drawn"] == n
    drawn_cpu = classed(root, "g", "cpu")
    assert len(drawn_cpu) == sum(len(i.nodes) for i in islands)  # every CPU node drawn, with its neighbours
    assert len(classed(root, "g", "memcpy")) == sum(1 for x in big.evidence.nodes if x.op_type in svg.MEMCPY_OPS)
    assert figure.wide and "collapsed" in figure.note


def test_big_timeline_stays_small(big):
    start = time.perf_counter()
    figure = svg.timeline_figure(big)
    seconds = time.perf_counter() - start
    size = len(figure.svg.encode())
    print(f"\ntimeline SVG of {figure.stats['events']} node events: {seconds * 1000:.0f} ms, {size / 1024:.0f} KiB, "
          f"{figure.stats}")
    assert seconds < 5 and size < 1_000_000
    root = parse(figure.svg)
    merged = classed(root, "rect", "ev-merged")
    assert merged and "drawn as one bar" in figure.note
    assert len(classed(root, "g", "ev")) + sum(int(r.get("data-nodes")) for r in merged) == figure.stats["events"]


def test_big_report_renders_quickly(big):
    start = time.perf_counter()
    html = render_html(big)
    seconds = time.perf_counter() - start
    print(f"\nHTML report of {len(big.evidence.nodes)} nodes: {seconds * 1000:.0f} ms, {len(html.encode()) / 1e6:.1f} MB")
    assert 'id="islands-svg"' in html and 'id="timeline-svg"' in html
    assert seconds < 10


def test_many_islands_are_capped(tmp_path):
    """Pathological: a CPU island every other node. The drawing stops at MAX_BOXES and says so."""
    report = big_report(tmp_path, n_nodes=4000, island_every=2)
    figure = svg.islands_figure(report)
    assert figure.stats["boxes"] == svg.MAX_BOXES and "left out" in figure.note
    assert len(figure.svg.encode()) < 2_000_000
    timeline = svg.timeline_figure(report)
    assert len(timeline.svg.encode()) < 1_000_000
    parse(figure.svg), parse(timeline.svg)


def test_esc_escapes_as_html_escape_with_quotes():
    text = EVIL_NODE + EVIL_TENSOR + "&amp; <b x='1' y=\"2\"> µs→ \u202e"
    assert svg.esc(text) == html.escape(text, quote=True)
    assert svg.esc(3.5) == "3.5"
