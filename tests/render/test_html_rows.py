"""The HTML rows render/html.py writes itself (copies, placement, findings) are byte for byte what the template
wrote when it looped over them with jinja2's autoescape: the reference markup below is the template's old loop
bodies, rendered here by jinja2 with the report template's settings, for hostile names and every branch (None
fields, a domain op, CPU and device nodes, predicted and measured findings, empty lists). And ``breakable``, which
writes names with a <wbr> at each place they may break (issue 36), escapes exactly as autoescape does."""

from __future__ import annotations

import msgspec
import re

import jinja2
import pytest
from render_helpers import EVIL_NODE, EVIL_TENSOR, evil_report

from ortcopy_doctor.knowledge.providers import short
from ortcopy_doctor.model.copies import Copy
from ortcopy_doctor.model.findings import Finding, Severity
from ortcopy_doctor.model.format import fmt_bytes
from ortcopy_doctor.model.vocabulary import CopyKind, Direction
from ortcopy_doctor.render.html import (
    _copy_rows,
    _esc,
    _escape_text_py,
    _finding_blocks,
    _node_rows,
    breakable,
    dash_range,
    environment,
)
from ortcopy_doctor.render.labels import DIRECTION_LABEL, KIND_LABEL

_ENV = jinja2.Environment(autoescape=True, undefined=jinja2.StrictUndefined, trim_blocks=True, lstrip_blocks=True)
_ENV.filters["breakable"] = breakable  # as the report's environment has it (render/html.py)

COPY_LOOP = _ENV.from_string(
    "{% for c in copies %}\n"
    '<tr><td>{{ c.kind }}</td><td>{{ c.direction }}</td><td><code>{{ c.tensor|breakable }}</code></td>'
    '<td>{{ c.shape|breakable }}</td><td>{{ c.dtype }}</td><td class="num" data-sort="{{ c.bytes_sort }}">{{ c.bytes }}'
    '</td><td><code>{{ c.node|breakable }}</code></td><td>{{ c.removable }}</td><td class="why">{{ c.cause|breakable }}'
    "</td></tr>\n"
    "{% endfor %}\n")

NODE_LOOP = _ENV.from_string(
    "{% for n in nodes %}\n"
    '<tr{% if n.cpu %} class="cpu"{% endif %}><td><code>{{ n.name|breakable }}</code></td><td>{{ n.op|breakable }}</td>'
    '<td>{{ n.provider }}</td><td>{{ n.graph|breakable }}</td><td class="why">{{ n.reason|breakable }}</td></tr>\n'
    "{% endfor %}\n")

FINDING_LOOP = _ENV.from_string(
    "{% for f in findings %}\n"
    '<div class="finding"><span class="sev {{ f.severity }}">{{ f.severity }}</span> <b>{{ f.rule }}</b> {{ f.title }} '
    '<code>{{ f.location|breakable }}</code>{% if f.predicted %}<span class="tag">predicted</span>{% endif %}\n'
    "<div>{{ f.message|breakable }}</div>\n"
    '<div class="fix">{{ f.fix|breakable }}</div></div>\n'
    "{% else %}\n"
    "<p>No findings.</p>\n"
    "{% endfor %}\n")

PREDICTED_FINDING_LOOP = _ENV.from_string(
    "{% for f in findings %}\n"
    '<div class="finding"><span class="sev {{ f.severity }}">{{ f.severity }}</span> <b>{{ f.rule }}</b> {{ f.title }} '
    '<code>{{ f.location|breakable }}</code><span class="tag">predicted</span>\n'
    "<div>{{ f.message|breakable }}</div>\n"
    '<div class="fix">{{ f.fix|breakable }}</div></div>\n'
    "{% endfor %}\n")


def _copy_dicts(copies):
    return [{"kind": KIND_LABEL[c.kind], "direction": DIRECTION_LABEL[c.direction], "tensor": c.tensor,
             "shape": "" if c.shape is None else "×".join(str(d) for d in c.shape) or "scalar",
             "dtype": c.dtype or "", "bytes": fmt_bytes(c.bytes_per_run), "bytes_sort": c.bytes_per_run or 0,
             "node": c.node, "cause": c.cause, "removable": "yes" if c.removable_by_binding else "no"}
            for c in copies]


def _node_dicts(nodes):
    return [{"name": n.name, "op": n.op_type if not n.domain else f"{n.domain}:{n.op_type}",
             "provider": short(n.provider) if n.provider else "?", "graph": n.graph or "main",
             "reason": n.fallback_detail if n.fallback_reason else "", "cpu": n.provider == "CPUExecutionProvider"}
            for n in nodes]


def _finding_dicts(findings):
    return [{"severity": f.severity, "rule": f.rule, "title": f.title, "location": f.location, "message": f.message,
             "fix": f.fix, "predicted": f.predicted} for f in findings]


@pytest.fixture
def report(tmp_path):
    """The hostile-names report, with a copy of every odd shape, a domain op and a predicted finding added."""
    r = evil_report(tmp_path)
    odd = [
        Copy(kind=CopyKind.MEMCPY_NODE, direction=Direction.HOST_TO_DEVICE, tensor=EVIL_TENSOR, bytes_per_run=None,
             shape=None, dtype=None, node=EVIL_NODE, cause="a <b>cause</b> & 'more'", removable_by_binding=True),
        Copy(kind=CopyKind.FEED, direction=Direction.HOST_TO_DEVICE, tensor="s", bytes_per_run=4, shape=[],
             dtype="float32"),
        Copy(kind=CopyKind.FETCH, direction=Direction.DEVICE_TO_HOST, tensor="d", bytes_per_run=2_000_000,
             shape=["batch", 3, None], dtype="float16"),
    ]
    domain_node = msgspec.structs.replace(r.evidence.nodes[0], domain="com.microsoft", provider="", graph="loop/body")
    predicted = Finding(rule="OCD002", slug="cpu-fallback", severity=Severity.ERROR, title="<t>", message='"m"',
                        fix="f & g", location=EVIL_NODE, predicted=True)
    evidence = msgspec.structs.replace(r.evidence, nodes=[*r.evidence.nodes, domain_node])
    return msgspec.structs.replace(r, copies=[*r.copies, *odd], findings=[*r.findings, predicted], evidence=evidence)


def test_copy_rows_match_the_template_loop(report):
    assert str(_copy_rows(report)) == COPY_LOOP.render(copies=_copy_dicts(report.copies))


def test_node_rows_match_the_template_loop(report):
    assert str(_node_rows(report.evidence.nodes)) == NODE_LOOP.render(nodes=_node_dicts(report.evidence.nodes))


def test_finding_blocks_match_the_template_loop(report):
    assert any(f.predicted for f in report.findings) and not all(f.predicted for f in report.findings)
    assert str(_finding_blocks(report.findings)) == FINDING_LOOP.render(findings=_finding_dicts(report.findings))


def test_predicted_finding_blocks_match_the_prediction_loop(report):
    assert (str(_finding_blocks(report.findings, tag_all=True))
            == PREDICTED_FINDING_LOOP.render(findings=_finding_dicts(report.findings)))


def test_no_findings_is_empty_markup_the_page_replaces():
    assert str(_finding_blocks([])) == ""
    assert FINDING_LOOP.render(findings=[]) == "<p>No findings.</p>\n"


ESCAPE_CASES = ["<a href='x'>\"&amp;\"</a>", "plain ü", "", "\x00\n", 12, None, Severity.WARNING, 1.5]


@pytest.mark.parametrize("value", ESCAPE_CASES)
def test_esc_is_markupsafe_escape(value):
    import markupsafe

    assert _esc(value) == str(markupsafe.escape(value))


@pytest.mark.parametrize("value", [v for v in ESCAPE_CASES if isinstance(v, str)])
def test_python_fallback_escapes_as_markupsafe(value):
    import markupsafe

    assert _escape_text_py(value) == str(markupsafe.escape(value))


# --- breakable: where a name may wrap ------------------------------------------------------------------------------

BREAKS = {
    "active_indices": "active_indices",  # 16 characters or fewer: one word
    "MemcpyToHost": "MemcpyToHost",
    "If_0_else_branch__Inline_0__/decoder/rnn/LSTM":
        "If_<wbr>0_<wbr>else_<wbr>branch__<wbr>Inline_<wbr>0__/<wbr>decoder/<wbr>rnn/<wbr>LSTM",
    "/encoder/layers.11/self_attention/output_projection/MatMul_1":
        "/encoder/<wbr>layers.<wbr>11/<wbr>self_<wbr>attention/<wbr>output_<wbr>projection/<wbr>MatMul_<wbr>1",
    "com.microsoft:SkipLayerNormalization": "com.<wbr>microsoft:<wbr>Skip<wbr>Layer<wbr>Normalization",
    "batch×22×(floor(floor(height/2 - 1/2)/2) + 1)*(floor(width/2 - 1/2) + 1)":
        "batch×<wbr>22×(<wbr>floor(<wbr>floor(<wbr>height/<wbr>2 - 1/2)/2) + 1)*(<wbr>floor(<wbr>width/<wbr>2 - 1/2) + 1)",
    "[batch, -1, 3]": "[batch, -1, 3]",  # a minus sign is not a separator
    "by MatMul '/a/long_layer/path' (CUDA)": "by MatMul &#39;/a/<wbr>long_<wbr>layer/<wbr>path&#39; (CUDA)",
    "sha256_0123456789abcdef0123456789abcdef0123":  # no break for 36 characters: the last resort, anywhere
        'sha256_<wbr><span class="long">0123456789abcdef0123456789abcdef0123</span>',
}


@pytest.mark.parametrize("name", BREAKS)
def test_breakable_breaks_long_names_at_their_separators(name):
    assert str(breakable(name)) == BREAKS[name]


@pytest.mark.parametrize("value", [*ESCAPE_CASES, EVIL_NODE, EVIL_TENSOR, *BREAKS,
                                   "<script>/*_a_*/</script>_" * 3, "&amp;_&lt;_" * 5 + "x" * 40])
def test_breakable_adds_only_break_markup_to_the_escaped_text(value):
    """The text of the markup (what the page's filter, sort and copy read) is the value, escaped as autoescape
    does; the only tags are <wbr> and the long-word span."""
    import markupsafe

    marked = str(breakable(value))
    assert re.sub(r'<wbr>|<span class="long">|</span>', "", marked) == str(markupsafe.escape(value))
    assert set(re.findall(r"<[^>]*>", marked)) <= {"<wbr>", '<span class="long">', "</span>"}


def test_dash_range_wraps_only_after_its_dash():
    assert str(dash_range("0.191 – 0.288 ms")) == ('<span class="nowrap">0.191 –</span> '
                                                    '<span class="nowrap">0.288 ms</span>')
    assert str(dash_range("<b>")) == "&lt;b&gt;"


def test_the_report_templates_have_the_filters():
    assert environment().filters["breakable"] is breakable and environment().filters["dash_range"] is dash_range
