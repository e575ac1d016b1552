"""Census attribution at scale: the placement index against a plain scan, and a 1,000-node fallback chain traced on
the H200 (issue 15: a scan per transfer made a CUDA check of a 10,000-node chain run for minutes in its analysis)."""

from __future__ import annotations

import gzip
import json
import random
from collections import Counter

import pytest

from ortcopy_doctor.model import codec
from ortcopy_doctor.analysis.attribution import END_SLACK_US, _RunNodes
from ortcopy_doctor.model.evidence import Evidence, NodeEvent
from ortcopy_doctor.model.vocabulary import FEED, HOST_TO_DEVICE, DEVICE_TO_HOST, MEMCPY_NODE
from ortcopy_doctor.report.core import analyse
from render_helpers import TESTS, programs_in

CHAIN = TESTS / "fixtures" / "scale" / "fallback_chain1000.json.gz"


def _event(i: int, ts: int, dur: int) -> NodeEvent:
    return NodeEvent(run=0, name=f"n{i}", op_type="Relu", provider="CUDAExecutionProvider", ts_us=ts, dur_us=dur,
                     input_shapes=[], output_shapes=[], output_bytes=0)


def _scan(nodes: list[NodeEvent], at_us: float) -> list[int]:
    return [i for i, n in enumerate(nodes) if n.ts_us <= at_us <= n.ts_us + n.dur_us + END_SLACK_US]


def _trace(seed: int) -> list[NodeEvent]:
    """Events one after the other, some nested in long ones (control flow), some at the same start, zero-length
    ones, and durations from 0 to 100 ms."""
    rng = random.Random(seed)
    nodes: list[NodeEvent] = []
    ts = 0
    for i in range(400):
        dur = rng.choice([0, 0, 1, 2, 3, 5, 8, 40, 700, rng.randint(0, 100_000)])
        nodes.append(_event(len(nodes), ts, dur))
        if dur > 100 and rng.random() < 0.5:  # a subgraph's events inside it
            inner = ts
            for _ in range(rng.randint(1, 6)):
                d = rng.randint(0, max(1, dur // 8))
                nodes.append(_event(len(nodes), inner, d))
                inner += d + rng.randint(0, 3)
        if rng.random() < 0.1:  # two events starting together
            nodes.append(_event(len(nodes), ts, rng.randint(0, 10)))
        ts += dur + rng.randint(0, 4)
    rng.shuffle(nodes)  # the index answers in event order whatever order the profile listed them in
    return nodes


@pytest.mark.parametrize("seed", range(5))
def test_the_placement_index_finds_the_events_a_scan_finds(seed):
    nodes = _trace(seed)
    index = _RunNodes(nodes)
    end = max(n.ts_us + n.dur_us for n in nodes)
    rng = random.Random(seed + 100)
    points = [rng.uniform(-5, end + 5) for _ in range(2_000)]
    points += [float(n.ts_us) for n in nodes] + [n.ts_us + n.dur_us + END_SLACK_US for n in nodes]
    points += [n.ts_us + n.dur_us + END_SLACK_US + 0.001 for n in nodes]
    assert [index.inside(at) for at in points] == [_scan(nodes, at) for at in points]


def test_the_placement_index_of_no_events_finds_none():
    assert _RunNodes([]).inside(3.0) == []


def _chain_report():
    with gzip.open(CHAIN, "rt", encoding="utf-8") as f:
        data = json.load(f)
    return analyse(codec.convert(data["evidence"], Evidence)), data


def test_a_1000_node_chain_traced_on_the_h200_is_recorded_with_its_versions():
    _, data = _chain_report()
    environment = data["evidence"]["environment"]
    assert (environment["ort_version"], environment["gpus"]) == ("1.31.1", ["GPU 0: NVIDIA H200"])
    assert data["evidence"]["census"]["backend"] == "cupti-python"


def test_every_memcpy_of_a_1000_node_chain_is_attributed_to_its_node():
    report, _ = _chain_report()
    runs = len(report.census.traced_runs)
    assert Counter((t.kind, t.confirms) for t in report.census.transfers) == {
        (MEMCPY_NODE, "OCD003"): 999 * runs, (FEED, "OCD004"): runs}
    memcpy_nodes = {n.name for n in report.evidence.nodes if n.op_type in ("MemcpyFromHost", "MemcpyToHost")}
    assert {t.node for t in report.census.transfers if t.kind == MEMCPY_NODE} == memcpy_nodes


def test_every_copy_of_a_1000_node_chain_is_confirmed_by_the_census():
    report, _ = _chain_report()
    assert Counter((c.kind, c.direction, c.count_per_run, c.confirmed) for c in report.copies) == {
        (MEMCPY_NODE, DEVICE_TO_HOST, 1, True): 500, (MEMCPY_NODE, HOST_TO_DEVICE, 1, True): 499,
        (FEED, HOST_TO_DEVICE, 1, True): 1}
    assert report.census.notes == []


def test_a_1000_node_chain_re_analysed_here_gives_the_json_check_wrote_on_the_h200():
    report, data = _chain_report()
    # the generated code compared as a program: it is laid out within 88 characters since it was recorded
    assert programs_in(json.loads(report.to_json())) == programs_in(data)
