"""Findings alike are one entry in the terminal and the HTML, with their count and locations; the JSON keeps every
one (issue 36: 18 identical `info OCD008` findings of 3 lines each). The recorded BERT (tests/fixtures/corpus,
H200) has 22 OCD008 findings: 21 say the same words but for the node and its op, one names a copy its output
needs."""

from __future__ import annotations

import gzip
import json
import re
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from ortcopy_doctor.model.findings import Finding, Severity
from ortcopy_doctor.render.groups import PLACEHOLDER, _without_op_types, compact_locations, group_findings
from ortcopy_doctor.render.html import render_html
from ortcopy_doctor.render.text import render_text
from ortcopy_doctor.report.core import Report, load_report

BERT = Path(__file__).resolve().parents[1] / "fixtures" / "corpus" / "bert_tiny.json.gz"


@pytest.fixture(scope="module")
def bert(tmp_path_factory) -> Report:
    with gzip.open(BERT, "rt", encoding="utf-8") as f:
        recorded = json.load(f)
    path = tmp_path_factory.mktemp("bert") / "bert_tiny.json"
    path.write_text(json.dumps(recorded["report"]), encoding="utf-8")
    return load_report(path)


def _finding(location: str, op: str = "Gather", fix: str = "Nothing to do") -> Finding:
    return Finding(rule="OCD008", slug="cpu-preferred-node", severity=Severity.INFO, title="t",
                   message=f"{op} '{location}' runs on CPU because ORT judged the CPU path faster", fix=fix,
                   location=location)


def test_findings_alike_but_for_the_node_and_its_op_are_one_group():
    groups = group_findings([_finding("a"), _finding("b", "Unsqueeze"), _finding("c", fix="Copy 'c_out'")])
    assert [(g.first.location, g.locations) for g in groups] == [("a", ["a", "b"]), ("c", ["c"])]


def test_a_location_inside_a_longer_name_is_not_taken_out():
    groups = group_findings([_finding("x"), _finding("y")])
    assert len(groups) == 1
    assert len(group_findings([_finding("x", fix="see x_out"), _finding("y", fix="see y_out")])) == 2


def test_compact_locations_names_five_then_counts():
    assert compact_locations([str(i) for i in range(8)]) == "0, 1, 2, 3, 4 and 3 more"
    assert compact_locations(["a", "b"]) == "a, b"


def test_the_terminal_shows_findings_alike_once_with_count_and_locations(bert):
    lines = render_text(bert, width=400).splitlines()
    assert "Findings (28; alike ones together, 8 entries):" in lines
    start = lines.index("info    OCD008 cpu-preferred-node at 21 locations alike: /inner/embeddings/Gather, "
                        "/inner/embeddings/Unsqueeze, /inner/Gather, /inner/encoder/layer.0/attention/self/Unsqueeze_7, "
                        "/inner/Gather_2 and 16 more")
    assert lines[start + 1:start + 3] == [
        "        e.g. Gather '/inner/embeddings/Gather' runs on CPU because ORT judged the CPU path faster for this "
        "small shape computation",
        "        fix: Nothing to do: this is ORT's own choice and adds no Memcpy node"]
    assert sum(line.startswith("info    OCD008") for line in lines) == 2  # the one naming a Memcpy is its own


def test_the_html_shows_findings_alike_once_with_every_location(bert):
    page = render_html(bert)
    assert page.count('<span class="count">21 alike, at</span>') == 1
    assert page.count("<b>OCD008</b>") == 2
    assert "<code>/inner/Gather_2</code>" in page


def test_the_json_keeps_every_finding(bert):
    assert sum(f["rule"] == "OCD008" for f in json.loads(bert.to_json())["findings"]) == 22


_OP_BEFORE = re.compile(r"\b[A-Za-z_][\w.]* '" + re.escape(PLACEHOLDER) + "'")  # the op types' definition


@given(st.lists(st.sampled_from(["Gather", "com.ms.Fused", "3x", ".", "_a", "é", "ü1", " ", "'", PLACEHOLDER,
                                 f" '{PLACEHOLDER}'", "x.", "9", ":", "-"]), max_size=12))
@settings(max_examples=400, deadline=None)
def test_op_types_before_a_placeholder_are_taken_out_as_the_pattern_defines(pieces):
    masked = "".join(pieces)
    assert _without_op_types(masked) == _OP_BEFORE.sub(f"{PLACEHOLDER} '{PLACEHOLDER}'", masked)
