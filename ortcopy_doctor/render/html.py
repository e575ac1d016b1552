"""The HTML report: one self-contained file rendered from reports/templates with jinja2.

Autoescape is on and undefined names are errors: node and tensor names come from the model file
and are untrusted text. The template only loops and prints; this module prepares every string. The two pictures (timeline,
CPU islands) are inline SVG built by svg.py, which escapes every name itself; they reach the template as markup. So do
the rows of the three tables that grow with the model (copies, placement, findings), written here with every value
escaped as the template's autoescape would (``_esc``).

Names, shapes and the sentences that quote them go through ``breakable``: escaped as autoescape would, with a
``<wbr>`` where a line may break (after ``/ _ . : - , × * +`` and inside camelCase), so a long name wraps at its
separators and never mid-word, and no table column is pushed off the screen (issue 36).
"""

from __future__ import annotations

import functools
import re
from collections.abc import Iterable
from importlib import resources
from pathlib import Path
from typing import TYPE_CHECKING, Any

import jinja2
from markupsafe import Markup
from msgspec.structs import replace

from ortcopy_doctor.model.evidence import (
    CHOSEN_VALUES_TITLE,
    assumed_dims_title,
    describe_assumed_dims,
    describe_chosen_values,
)
from ortcopy_doctor.knowledge.providers import CPU, short
from ortcopy_doctor.model.format import active_providers, fmt_bytes, fmt_rate, fmt_run_bytes
from ortcopy_doctor.render import svg
from ortcopy_doctor.render.groups import group_findings
from ortcopy_doctor.render.labels import DIRECTION_LABEL, KIND_LABEL, StatedOnce, conditional_line, conditional_title

if TYPE_CHECKING:
    from ortcopy_doctor.model.evidence import RuntimeNode
    from ortcopy_doctor.model.findings import Finding
    from ortcopy_doctor.model.report import Report

TEMPLATE = "report.html.j2"


def template_dir() -> Path:
    """Templates shipped in the wheel (ortcopy_doctor/templates), else the source tree's reports/templates."""
    packaged = resources.files("ortcopy_doctor") / "templates"
    if packaged.is_dir():
        return Path(str(packaged))
    source = Path(__file__).resolve().parents[2] / "reports" / "templates"
    if source.is_dir():
        return source
    raise FileNotFoundError("report templates not found: reinstall ortcopy-doctor")


@functools.lru_cache(maxsize=1)
def environment() -> jinja2.Environment:
    """One jinja2 environment per process: it caches the compiled templates (compiling the report
    template takes ~100x longer than rendering it from the cache). Across processes, jinja2's bytecode cache
    (a private folder of the user's under the temp dir, keyed by the template's checksum) saves the ~120 ms
    compile of every ``check``."""
    env = jinja2.Environment(
        loader=jinja2.FileSystemLoader(str(template_dir())),
        bytecode_cache=_bytecode_cache(),
        autoescape=True,
        undefined=jinja2.StrictUndefined,
        trim_blocks=True,
        lstrip_blocks=True,
    )
    env.filters["breakable"] = breakable
    env.filters["dash_range"] = dash_range
    return env


def _bytecode_cache() -> jinja2.BytecodeCache | None:
    try:  # jinja2 refuses a temp folder another user owns or can write: then compile each time
        return jinja2.FileSystemBytecodeCache()
    except (OSError, RuntimeError):
        return None


def _escape_text_py(text: str) -> str:
    """markupsafe's escaping of a str, in Python: & < > ' " as &amp; &lt; &gt; &#39; &#34;."""
    return (text.replace("&", "&amp;").replace(">", "&gt;").replace("<", "&lt;").replace("'", "&#39;")
            .replace('"', "&#34;"))


try:  # markupsafe's own C function (3x faster than the replace chain); its Python fallback where it is absent
    from markupsafe._speedups import _escape_inner as _escape_text
except ImportError:  # pragma: no cover - markupsafe without its C extension, or a version that names it otherwise
    _escape_text = _escape_text_py


def _esc(value: object) -> str:
    """``value`` as the template's autoescape writes it, byte for byte (markupsafe.escape: & < > ' ")."""
    return _escape_text(value if type(value) is str else str(value))


# Where a name may break. A word of up to 16 characters (`active_indices`, `MemcpyToHost`, `MatMul`) stays whole: it
# fits any column. A longer one breaks after a run of up to three separators (`/ _ . : , × * + ( -`) that follows a
# letter, digit or closing bracket (so `-1` stays whole; a space breaks already), and a part of it between
# separators that is still longer than 16 characters also between a lower-case and an upper-case letter. A path
# (`/decoder/rnn/LSTM`), an ORT name (`If_0_else_branch__Inline_0__`), an op (`com.microsoft:SkipLayerNormalization`)
# and a symbolic shape (`batch×(floor(height/2 - 1/2) + 1)*(...)`) wrap at their joints, never mid-word. A part still
# longer than 30 characters (a hash) may break anywhere, and only where its column is narrower than it (CSS `.long`,
# `overflow-wrap: anywhere`): the last resort.
_WHOLE = 16
_LONG = 30
_LONG_WORD = re.compile(rf"\S{{{_WHOLE + 1},}}")
_SEPARATORS = "/_.:,×*+(\\-"
_AFTER_SEPARATORS = re.compile(
    "(?:" + "|".join(rf"(?<=(?:[^\W_]|[)\]])[{_SEPARATORS}]{{{n}}})" for n in (1, 2, 3)) + rf")(?=[^{_SEPARATORS}])")
_CAMEL = re.compile(r"(?<=[a-z])(?=[A-Z])")
_QUOTES = "'\"`()[]{},;:."  # around a name in a sentence: not counted in its length


def _part(text: str) -> str:
    """One part of a long word between separators, escaped, with its camelCase breaks where it is long itself."""
    if len(text) <= _WHOLE:
        return _escape_text(text)
    return "<wbr>".join(f'<span class="long">{_escape_text(p)}</span>' if len(p) > _LONG else _escape_text(p)
                        for p in _CAMEL.split(text))


def breakable(value: object) -> Markup:
    """``value`` escaped as autoescape writes it, with ``<wbr>`` where a long word may break (see ``_WHOLE``).

    The text is split first and every piece escaped, so the pieces are exactly the escaped text and only ``<wbr>``
    (and the ``long`` span) is added: the cell's text (its ``textContent``, which the page's filter and sort read,
    and what copy and paste gives) is the value itself."""
    text = value if type(value) is str else str(value)
    words = list(_LONG_WORD.finditer(text))
    if not words:  # most names: one call, no list of pieces
        return Markup(_escape_text(text))
    out, at = [], 0
    for word in words:
        if len(word.group().strip(_QUOTES)) <= _WHOLE:  # `'celu_activation';` in a sentence is one word too
            continue
        out.append(_escape_text(text[at:word.start()]))
        out.append("<wbr>".join(_part(p) for p in _AFTER_SEPARATORS.split(word.group())))
        at = word.end()
    out.append(_escape_text(text[at:]))
    return Markup("".join(out))


def dash_range(value: object) -> Markup:
    """A range such as ``0.191 – 0.288 ms``, escaped, that may wrap after its dash and nowhere else (each side in a
    ``nowrap`` span; the text is unchanged)."""
    sides = (value if type(value) is str else str(value)).split(" – ")
    if len(sides) == 1:
        return Markup(_escape_text(sides[0]))
    return Markup(" ".join(f'<span class="nowrap">{_escape_text(side)}{"" if i == len(sides) - 1 else " –"}</span>'
                           for i, side in enumerate(sides)))


# The three tables that grow with the model (copies, nodes, findings: 10,000 nodes make 35,000 rows) are written
# here rather than looped over in the template: jinja2 spends ~5 µs per cell on attribute lookup and escaping, and
# this ~0.5 µs. The rest of the page stays in reports/templates/report.html.j2; tests/render/test_html_rows.py
# checks these rows against the same rows rendered by jinja2 from the template markup they replaced.


def _copy_rows(report: Report) -> Markup:
    """The ``<tr>`` rows of a copies table, each ending in a newline."""
    rows = []
    for c in report.copies:
        shape = "" if c.shape is None else "×".join(str(d) for d in c.shape) or "scalar"
        rows.append(
            f"<tr><td>{_esc(KIND_LABEL[c.kind])}</td><td>{_esc(DIRECTION_LABEL[c.direction])}</td>"
            f"<td><code>{breakable(c.tensor)}</code></td><td>{breakable(shape)}</td><td>{_esc(c.dtype or '')}</td>"
            f'<td class="num" data-sort="{_esc(c.bytes_per_run or 0)}">{_esc(fmt_bytes(c.bytes_per_run))}</td>'
            f"<td><code>{breakable(c.node)}</code></td><td>{'yes' if c.removable_by_binding else 'no'}</td>"
            f'<td class="why">{breakable(c.cause)}</td></tr>\n')
    return Markup("".join(rows))


_TAG = '<span class="tag">predicted</span>'
_TAG_LINE = _TAG + "\n"


def _finding_blocks(findings: Iterable[Finding], tag_all: bool = False) -> Markup:
    """One ``<div class="finding">`` per finding, each ending in a newline; ``tag_all`` marks every one predicted
    (the prediction's section, where the heading line ends in a newline; the main list's does not)."""
    blocks = []
    for f in findings:
        severity = _esc(f.severity)
        tag = _TAG_LINE if tag_all else (_TAG if f.predicted else "")
        blocks.append(
            f'<div class="finding"><span class="sev {severity}">{severity}</span> <b>{_esc(f.rule)}</b> '
            f"{_esc(f.title)} <code>{breakable(f.location)}</code>{tag}<div>{breakable(f.message)}</div>\n"
            f'<div class="fix">{breakable(f.fix)}</div></div>\n')
    return Markup("".join(blocks))


def _grouped_finding_blocks(findings: Iterable[Finding]) -> Markup:
    """``_finding_blocks``, but findings alike (render/groups.py) in one block: their count, every location, and
    the first one's message and fix as the example."""
    blocks: list[str] = []
    for g in group_findings(findings):
        if g.count == 1:
            blocks.append(_finding_blocks([g.first]))
            continue
        f = g.first
        severity = _esc(f.severity)
        where = ", ".join(f"<code>{_esc(location)}</code>" for location in g.locations)
        blocks.append(
            f'<div class="finding"><span class="sev {severity}">{severity}</span> <b>{_esc(f.rule)}</b> '
            f'{_esc(f.title)} <span class="count">{g.count} alike, at</span> {where}{_TAG if f.predicted else ""}'
            f"<div>{g.example(f.message)}{_esc(f.message)}</div>\n"
            f'<div class="fix">{g.example(f.fix)}{_esc(f.fix)}</div></div>\n')
    return Markup("".join(blocks))


def _node_rows(nodes: Iterable[RuntimeNode]) -> Markup:
    """The ``<tr>`` rows of the placement table (CPU rows classed ``cpu``), each ending in a newline."""
    rows = []
    for n in nodes:
        op = n.op_type if not n.domain else f"{n.domain}:{n.op_type}"
        provider = short(n.provider) if n.provider else "?"
        reason = n.fallback_detail if n.fallback_reason else ""
        cpu = ' class="cpu"' if n.provider == CPU else ""
        rows.append(
            f"<tr{cpu}><td><code>{breakable(n.name)}</code></td><td>{breakable(op)}</td><td>{_esc(provider)}</td>"
            f'<td>{breakable(n.graph or "main")}</td><td class="why">{breakable(reason)}</td></tr>\n')
    return Markup("".join(rows))


_PREDICTED_SLUGS = ("cpu-fallback", "memcpy-node", "in-kernel-transfer")


def view_model(report: Report) -> dict[str, Any]:
    """The values the HTML report template shows, all computed from ``report``."""
    ev = report.evidence
    s = report.summary
    verdict_class = "bad" if report.worst_severity() == "error" else ("warn" if report.copies else "good")
    prediction = _prediction_view(report.prediction) if report.prediction is not None else None
    timing = _timing_rows(report)
    environment_rows = _environment_rows(report)
    model = ev.model
    model_rows = _model_rows(report)
    io_rows = _io_rows(report)
    once = StatedOnce(ev.session.ep_failure)  # ORT's reason once, in the verdict; later lines refer back
    verdict = once(report.verdict)
    return {
        "title": f"ortcopy-doctor: {Path(model.path).name}",
        "model_name": Path(model.path).name,
        "verdict": verdict,
        "headline": once(report.headline()),
        "verdict_class": verdict_class,
        "mode": ev.mode,
        "summary_rows": [
            ("copies per run", str(s.copies_per_run)),
            ("bytes per run", fmt_run_bytes(s.bytes_per_run, [c.bytes_per_run for c in report.copies if c.count_per_run])),
            ("removable by IO binding", str(s.removable_by_binding)),
            ("CPU fallback nodes", str(s.fallback_nodes)),
            ("nodes by provider", ", ".join(f"{k} {v}" for k, v in s.nodes_by_provider.items()) or "none"),
            ("median run", f"{s.median_run_ms:.3f} ms" if s.median_run_ms is not None else "n/a"),
        ],
        "copies": _copy_rows(report),
        "conditional": [conditional_line(c) for c in report.conditional_copies],
        "conditional_title": conditional_title(ev.mode == "static"),
        "prediction": prediction,
        "nodes": _node_rows(ev.nodes),
        "findings": _grouped_finding_blocks(report.findings) or Markup("<p>No findings.</p>\n"),
        "binding_applicable": report.binding.applicable,
        "binding_reason": report.binding.reason,
        "binding_entries": [
            {"role": e.role, "name": e.name, "place": e.place, "how": ("pre-allocated" if e.preallocate else ""),
             "reason": e.reason}
            for e in report.shown_binding().entries
        ],
        **_binding_code(report),
        "binding_measured": _binding_measured(report, once),
        "timing": timing,
        "environment": environment_rows,
        "model_rows": model_rows,
        "io_rows": io_rows,
        "log": [f"[{line.severity}] {line.message}" for line in ev.session.log],
        "notes": ev.notes,
        "assumed_dims": describe_assumed_dims(ev.assumed_dims),
        "assumed_dims_title": assumed_dims_title(ev.assumed_dims),
        "chosen_values": describe_chosen_values(ev.feeds),
        "chosen_values_title": CHOSEN_VALUES_TITLE,
        "ep_failure": ev.session.ep_failure,
        "census": census_view(report),
        "timeline": _figure(svg.timeline_figure(report)),
        "islands": _figure(svg.islands_figure(report)),
    }


def _prediction_view(p: Report) -> dict[str, Any]:
    """The predicted section: the requested provider, its verdict, copies and findings, as static analysis
    expects them."""
    return {
        "provider": p.evidence.session.active_providers[0] if p.evidence.session.active_providers else "?",
        "verdict": p.verdict,
        "copies": _copy_rows(p),
        "conditional": [conditional_line(c) for c in p.conditional_copies],
        "conditional_title": conditional_title(True),
        "findings": _finding_blocks((f for f in p.findings if f.slug in _PREDICTED_SLUGS), tag_all=True),
        "nodes_by_provider": ", ".join(f"{k} {v}" for k, v in p.summary.nodes_by_provider.items()),
    }


def _timing_rows(report: Report) -> list[tuple[str, str]]:
    """The Timing table: session creation, first run, the runs' median and spread, Memcpy node time, and the run
    counts; empty where no session was timed."""
    ev, s = report.evidence, report.summary
    timing = []
    if ev.timings is not None:
        t = ev.timings
        timing = [
            ("session creation", f"{t.session_create_ms:.1f} ms"),
            ("first run", f"{t.first_run_ms:.3f} ms"),
            (f"run, median of {len(t.run_ms)}", f"{s.median_run_ms:.3f} ms" if s.median_run_ms is not None else "n/a"),
            ("run, p10 – p90", f"{s.p10_run_ms:.3f} – {s.p90_run_ms:.3f} ms" if s.p10_run_ms is not None and s.p90_run_ms is not None else "n/a"),
            ("Memcpy node time per run (profiled)", f"{s.memcpy_node_time_us_per_run:.1f} µs"),
            ("warm-up runs excluded", str(t.warmup_runs)),
            ("profiled runs", str(t.profiled_runs)),
        ]
    return timing


def _environment_rows(report: Report) -> list[tuple[str, str]]:
    """The Environment table: onnxruntime and its providers, GPUs, versions, platform, and where the evidence came
    from."""
    ev = report.evidence
    env = ev.environment
    return [
        ("onnxruntime", f"{env.ort_version} ({env.ort_package})"),
        ("onnxruntime build", env.ort_build or "n/a"),
        ("providers requested", ", ".join(ev.session.requested_providers)),
        ("providers active", active_providers(ev)),
        ("providers available in this build", ", ".join(env.available_providers)),
        ("GPUs", ", ".join(env.gpus) or "none seen"),
        ("onnx / numpy / python", f"{env.onnx_version} / {env.numpy_version} / {env.python}"),
        ("platform", env.platform),
        ("placement from", ev.session.placement_source),
        ("graph analysed", ev.session.graph_source),
        ("evidence", f"{ev.mode}, recorded {ev.created_utc} by ortcopy-doctor {ev.tool_version}"),
    ]


def _model_rows(report: Report) -> list[tuple[str, str]]:
    """The Model table: file, size, IR version, opsets, producer, node counts, initializers, external data and
    subgraphs."""
    ev = report.evidence
    model = ev.model
    return [
        ("file", model.path),
        ("size", fmt_bytes(model.file_bytes)),
        ("IR version", str(model.ir_version)),
        ("opsets", ", ".join(f"{k} {v}" for k, v in model.opsets.items())),
        ("producer", model.producer or "n/a"),
        ("nodes (model / run by ORT)", f"{len(model.nodes)} / {len(ev.nodes)}"),
        ("initializers", f"{model.initializer_count} ({fmt_bytes(model.initializer_bytes)})"),
        ("external data", ", ".join(model.external_data_files) or "none"),
        ("subgraphs", ", ".join(f"{g.node}.{g.attribute} ({g.node_count} nodes)" for g in model.subgraphs) or "none"),
    ]


def _io_rows(report: Report) -> list[dict[str, str]]:
    """The model's inputs, then its outputs: name, type and shape ("?" for an unknown dim or shape)."""
    model = report.evidence.model
    return [
        {"role": "input", "name": v.name, "type": v.type_string,
         "shape": "?" if v.shape is None else "[" + ", ".join("?" if d is None else str(d) for d in v.shape) + "]"}
        for v in model.inputs
    ] + [
        {"role": "output", "name": v.name, "type": v.type_string,
         "shape": "?" if v.shape is None else "[" + ", ".join("?" if d is None else str(d) for d in v.shape) + "]"}
        for v in model.outputs
    ]


def _figure(figure: svg.Figure) -> dict[str, Any]:
    """An SVG picture for the template: svg.py escapes every name in it, so it goes in as markup."""
    return {"svg": Markup(figure.svg), "note": figure.note, "wide": figure.wide}


CENSUS_LABEL = {"feed": "feed copy", "fetch": "fetch copy", "memcpy_node": "Memcpy node", "in_kernel": "in-kernel",
                "device_to_device": "device-to-device", "other_copy": "other copy", "outside": "outside every run",
                "between_nodes": "between nodes"}


def _share(value: float | None) -> str:
    return "n/a" if value is None else (f"{value * 100:.1f} %" if value >= 0.01 else f"{value * 100:.2f} %")


def census_view(report: Report) -> dict[str, Any] | None:
    """The "Transfer census" section; None where the evidence says nothing about a census (older evidence)."""
    ev = report.evidence
    c = report.census
    if c is None:
        return {"status": ev.census_status, "recorded": False} if ev.census_status else None
    arrow = {"host_to_device": "host→device", "device_to_host": "device→host", "device_to_device": "device→device"}
    classes = [{"kind": CENSUS_LABEL.get(k, k), "count": str(t.count), "bytes": fmt_bytes(t.bytes),
                "time": f"{t.duration_ns / 1000:.1f} µs", "share": _share(t.share_of_run)} for k, t in c.per_run.items()]
    runs = [{"run": str(r.run), "dur": f"{r.run_dur_us} µs", "count": str(r.host_device_count),
             "bytes": fmt_bytes(r.host_device_bytes)} for r in c.runs]
    groups = [{"kind": CENSUS_LABEL.get(g.kind, g.kind), "direction": arrow.get(g.direction, g.direction),
               "node": g.node, "op": g.op_type, "tensor": g.tensor, "count": f"{g.count_per_run:g}",
               "bytes": fmt_bytes(round(g.bytes_per_run)), "bytes_sort": g.bytes_per_run,
               "time": f"{g.time_ns_per_run / 1000:.1f} µs", "share": _share(g.share_of_run),
               "memory": f"{g.src_kind} → {g.dst_kind}", "confirms": g.confirms or "(not host↔device)",
               "unexplained": g.confirms == "unexplained"} for g in c.groups]
    bandwidth = [f"{arrow.get(b.direction, b.direction)} with {b.host_kind} host memory: {b.count} cop"
                 f"{'y' if b.count == 1 else 'ies'}, {fmt_bytes(b.bytes)} in {b.duration_ns / 1000:.1f} µs = "
                 f"{fmt_rate(b.gb_per_s)} (largest {fmt_bytes(b.largest_bytes)} at {fmt_rate(b.largest_gb_per_s)})"
                 for b in c.bandwidth]
    unexplained = [{"run": str(t.run), "kind": CENSUS_LABEL.get(t.kind, t.kind), "direction": arrow.get(t.direction, t.direction),
                    "bytes": fmt_bytes(t.bytes), "node": t.node, "tensor": t.tensor,
                    "at": "n/a" if t.at_us is None else f"{t.at_us:.1f} µs"} for t in c.unexplained]
    mismatches = [{"check": m.check, "subject": m.subject, "run": str(m.run),
                   "expected": "n/a" if m.expected is None else str(m.expected), "observed": str(m.observed),
                   "detail": m.detail} for m in c.mismatches]
    return {
        "status": ev.census_status or f"recorded: {c.backend}",
        "recorded": True,
        "backend": f"{c.backend} {c.backend_version}".strip(),
        "traced_runs": ", ".join(str(r) for r in c.traced_runs),
        "attributed": f"{c.attributed_share:.0%}",
        "clock": f"{c.backend} clock − time.time_ns() = {c.clock_offset_ns} ns"
                 + ("" if c.clock_verified else " (mapping not verified on a GPU)"),
        "classes": classes,
        "runs": runs,
        "groups": groups,
        "bandwidth": bandwidth,
        "unexplained": unexplained,
        "checks_passed": sum(1 for x in c.checks if x.ok),
        "checks_total": len(c.checks),
        "mismatches": mismatches,
        "overhead": "" if c.overhead is None else f"{c.overhead * 100:+.0f} % median run time while traced",
        "notes": list(c.notes),
    }


def _binding_code(report: Report) -> dict[str, str]:
    """The first code block: the recommended code (the CUDA graph's or everything bound's where it wins), the plan's
    otherwise (the predicted plan's where the requested device provider was not active); with what running it next
    to plain run() showed."""
    shown = report.shown_binding()
    if shown is not report.binding:
        return {"binding_code": shown.code, "binding_plan_code": "", "binding_code_check": shown.code_check,
                "binding_code_note": "Predicted: this code binds for the placement static analysis predicts for the "
                                     "requested provider; it was not measured here."}
    advice = report.advice
    if advice is not None and advice.recommended == "cpu_provider" and advice.code:
        gain = (f", {advice.speedup:.2f}x faster than CUDA's plain run() (95% CI {advice.speedup_ci_low:.2f}–"
                f"{advice.speedup_ci_high:.2f})" if _interval(advice) else "")
        return {"binding_code": advice.code, "binding_code_note": f"Recommended: the CPU provider{gain}.",
                "binding_plan_code": report.binding.code, "binding_code_check": advice.code_check}
    if advice is None or advice.recommended not in ("cuda_graph", "all_device") or not advice.code:
        note = ""
        if advice is not None and advice.recommended == "plan" and _interval(advice):
            note = (f"Recommended: this plan, {advice.speedup:.2f}x faster than plain run() (95% CI "
                    f"{advice.speedup_ci_low:.2f}–{advice.speedup_ci_high:.2f}).")
        return {"binding_code": report.binding.code, "binding_code_note": note, "binding_plan_code": "",
                "binding_code_check": report.binding.code_check}
    what = "the CUDA graph" if advice.recommended == "cuda_graph" else "everything bound on the device"
    gain = (f", {advice.speedup:.2f}x faster than plain run() (95% CI {advice.speedup_ci_low:.2f}–"
            f"{advice.speedup_ci_high:.2f})" if _interval(advice) else "")
    note = f"Recommended: {what}{gain}. Keep fixed: " + "; ".join(advice.needs) + "."
    return {"binding_code": advice.code, "binding_code_note": note, "binding_plan_code": report.binding.code,
            "binding_code_check": advice.code_check}


def _interval(advice: Any) -> bool:
    """Whether ``advice`` (model.report.Advice) has a speed-up and both ends of its interval to print."""
    return advice.speedup is not None and advice.speedup_ci_low is not None and advice.speedup_ci_high is not None


def _binding_measured(report: Report, once: StatedOnce | None = None) -> Any:
    """The "Binding: measured" section (computed by analyse); None where the evidence has no measurement record.
    ``once``: its line refers back to ORT's reason where an earlier line stated it."""
    view = report.measured
    if view is None or once is None:
        return view
    return replace(view, one_line=once(view.one_line))


def render_html(report: Report) -> str:
    """The report as a self-contained HTML page."""
    return environment().get_template(TEMPLATE).render(**view_model(report))
