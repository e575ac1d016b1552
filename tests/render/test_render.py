"""Golden-file tests of the text, HTML and JSON renderers on recorded GPU evidence, plus escaping and
self-containment of the HTML.

Update the golden files after an intended change with ``ORTCOPY_UPDATE_GOLDEN=1 pytest tests/render/test_render.py``
and review the diff of tests/golden/.
"""

from __future__ import annotations

import json
import re

import pytest
from markupsafe import escape

from ortcopy_doctor.report.core import load_report
from render_helpers import (
    EVIL_INPUT,
    EVIL_NODE,
    EVIL_OUTPUT,
    EVIL_TENSOR,
    GOLDEN_FIXTURES,
    check_golden,
    evil_report,
    fixture_report_dict,
    load_fixture,
    mask_json,
    mask_text,
    network_references,
    script_tags,
    write_report_json,
)
from ortcopy_doctor.render.html import render_html
from ortcopy_doctor.render.text import render_text

EVILS = [EVIL_NODE, EVIL_TENSOR, EVIL_INPUT, EVIL_OUTPUT]


@pytest.fixture(params=GOLDEN_FIXTURES)
def fixture_report(request, tmp_path):
    return request.param, load_fixture(request.param, tmp_path)


# --- golden files -------------------------------------------------------------------------------------------------


def test_text_golden(fixture_report):
    name, report = fixture_report
    check_golden(f"{name}.txt", mask_text(render_text(report, width=120), report))


def test_html_golden(fixture_report):
    name, report = fixture_report
    check_golden(f"{name}.html", mask_text(render_html(report), report))


def test_json_golden(fixture_report):
    name, report = fixture_report
    check_golden(f"{name}.json", mask_json(report.to_json(), report))


def test_masking_hides_only_volatile_parts(fixture_report):
    """The masks must not eat the content: the verdict and every copied tensor survive them."""
    _, report = fixture_report
    for masked in (mask_text(render_text(report, width=120), report), mask_text(render_html(report), report)):
        assert report.evidence.created_utc not in masked
        assert report.evidence.model.path not in masked
        assert not re.search(r"\d\.\d{3} ms", masked)
        for c in report.copies:
            assert c.tensor in masked
    assert str(escape(report.verdict)) in mask_text(render_html(report), report)
    assert report.verdict in mask_text(render_text(report, width=1000), report)


# --- what the renderers must say, golden files or not -------------------------------------------------------------


def test_reanalysis_matches_recorded_report(fixture_report):
    """Re-analysing the recorded evidence gives the verdict recorded on the GPU machine."""
    name, report = fixture_report
    recorded = fixture_report_dict(name)
    assert report.verdict == recorded["verdict"]
    assert len(report.copies) == len(recorded["copies"])


def test_json_round_trip(fixture_report, tmp_path):
    """to_json is the format CI reads: valid JSON, and loading it back gives the same report."""
    _, report = fixture_report
    text = report.to_json()
    data = json.loads(text)
    assert data["format"] == "ortcopy-doctor-report"
    assert data["verdict"] == report.verdict
    again = load_report(write_report_json(data, tmp_path / "again.json"))
    assert again.to_dict() == report.to_dict()


def test_text_has_verdict_and_every_copy(fixture_report):
    _, report = fixture_report
    text = render_text(report, width=200)
    assert text.startswith(report.verdict)
    for c in report.copies:
        assert c.tensor in text
    for f in report.findings:
        assert f"{f.rule} {f.slug}" in text


def test_text_width_is_respected(fixture_report):
    _, report = fixture_report
    for width in (80, 120):
        lines = render_text(report, width=width).splitlines()
        assert max(len(line) for line in lines) <= width


def test_html_has_verdict_sections_and_every_node(fixture_report):
    _, report = fixture_report
    html = render_html(report)
    assert html.startswith("<!DOCTYPE html>")
    assert f'id="verdict">{escape(report.verdict)}</div>' in html
    for section in ("copies", "placement", "findings", "binding", "measurements", "model", "environment"):
        assert f'<h2 id="{section}">' in html
    for node in report.evidence.nodes:
        assert f"<code>{escape(node.name)}</code>" in html
    assert html.count("<tr><td>") >= len(report.copies)


# --- untrusted names ----------------------------------------------------------------------------------------------


@pytest.fixture
def evil(tmp_path):
    return evil_report(tmp_path)


def test_evil_names_reach_the_report(evil, tmp_path):
    """The renaming is complete: the analysis sees the same copies as with the original names."""
    original = load_fixture("cpu_op_between", tmp_path)
    assert evil.verdict == original.verdict
    tensors = {c.tensor for c in evil.copies}
    assert {EVIL_TENSOR, EVIL_INPUT, EVIL_OUTPUT} <= tensors
    assert any(n.name == EVIL_NODE for n in evil.evidence.nodes)
    assert any(f.location == EVIL_NODE for f in evil.findings)


def test_html_escapes_names(evil):
    html = render_html(evil)
    assert "<script>alert" not in html
    assert "<img src=x" not in html
    assert "&lt;script&gt;alert(&#34;x&#34;)&lt;/script&gt; &amp; ü" in html
    for name in EVILS:
        assert str(escape(name)) in html, name
    # Only the report's own inline script, nothing injected.
    assert len(script_tags(html)) == 1
    assert html.count("</script>") == 1
    assert network_references(html) == []


def test_text_shows_names_verbatim(evil):
    """The terminal renderer prints names as they are: no rich markup interpreted, nothing dropped."""
    text = render_text(evil, width=400)
    for name in EVILS:
        assert name in text, name
    assert f"at {EVIL_NODE}" in text


def test_text_of_evil_names_at_default_width(evil):
    # At 120 columns the table wraps names; it must still render (rich markup errors would raise here).
    text = render_text(evil, width=120)
    assert "[/]" in text
    assert "Host↔device copies per run" in text


def test_json_keeps_names(evil):
    data = json.loads(evil.to_json())
    assert {EVIL_TENSOR, EVIL_INPUT, EVIL_OUTPUT} <= {c["tensor"] for c in data["copies"]}
    assert EVIL_NODE in {n["name"] for n in data["evidence"]["nodes"]}


def test_binding_code_with_evil_names_is_valid_python(evil):
    """The generated binding code quotes names with repr: it must still compile."""
    compile(evil.binding.code, "<binding code>", "exec")
    assert repr(EVIL_INPUT) in evil.binding.code


# --- self-contained HTML ------------------------------------------------------------------------------------------


def test_html_has_no_network_references(fixture_report):
    _, report = fixture_report
    html = render_html(report)
    assert network_references(html) == []
    assert "http://" not in html and "https://" not in html
    assert not re.search(r"<link\b[^>]*stylesheet", html, re.IGNORECASE)
    assert all(not s.get("src") for s in script_tags(html))


def test_network_reference_check_catches_what_it_should():
    """The checker itself: each of these must be reported."""
    bad = [
        '<link rel="stylesheet" href="style.css">',
        '<script src="https://cdn.example.com/x.js"></script>',
        '<img src="http://example.com/a.png">',
        '<a href="//example.com/">x</a>',
        "<style>body { background: url(https://example.com/bg.png) }</style>",
        "<style>@import 'x.css';</style>",
    ]
    for snippet in bad:
        assert network_references(f"<html><body>{snippet}</body></html>"), snippet
    assert network_references('<a href="#copies">copies</a><img src="data:image/png;base64,AA==">') == []


def test_binding_code_newline_in_node_name_injects_no_code(tmp_path):
    from render_helpers import renamed

    hostile = 'mm\nimport os; os.system("echo injected")  #'
    evidence = renamed(fixture_report_dict("cpu_op_between")["evidence"], {"matmul1": hostile})
    report = load_report(write_report_json(evidence, tmp_path / "newline.json"))
    code = report.binding.code
    compile(code, "<binding code>", "exec")
    assert not any(line.startswith("import os") for line in code.splitlines())
