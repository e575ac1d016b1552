"""The pipeline report of ``ortcopy-doctor run`` as plain text (``render_pipeline_text``: the terminal's, ``run``'s
text format) and as one self-contained HTML page (``render_pipeline_html``: ``run --html``). ``PipelineReport.to_text()``,
``to_html()`` and ``str(report)`` before issue 35; its JSON is the report's own ``to_json`` (``model.codec``)."""

from __future__ import annotations

import html as html_lib
from typing import Any

from ortcopy_doctor.model.format import fmt_bytes
from ortcopy_doctor.model.pipeline import (
    POSSIBLE_ROUND_TRIP,
    ROUND_TRIP,
    Pipeline,
    PipelineReport,
    StageRow,
    fmt_ms,
    shape_message,
    short_site,
)
from ortcopy_doctor.model.providers import short
from ortcopy_doctor.model.text import safe


def render_pipeline_text(report: PipelineReport) -> str:
    """Plain text: the program and how it ended, the verdict, each session, each pipeline's edges and stages."""
    program = " ".join(report.program)
    ended = {"exit": f"exit code {report.exit_code}", "exception": f"raised ({report.error}), exit code {report.exit_code}",
             "interrupt": f"interrupted (Ctrl-C), exit code {report.exit_code}",
             "signal": f"killed by {report.error}, exit code {report.exit_code}"}.get(report.ended_by, report.ended_by)
    lines = [f"ortcopy-doctor run: {program} -- {ended}", f"verdict: {report.verdict}"]
    for finding in report.providers:
        lines.append(f"  providers: {finding.line}")
        lines.append(f"    fix: {finding.fix}")
    for s in report.sessions:
        lines.append(f"  session {s.label}: {s.calls} call(s) on {', '.join(short(p) for p in s.providers) or '?'}; "
                     f"placement {s.placement}; census {s.census}")
    lines += [f"  observed: {o}" for o in report.observed]
    lines += [f"  not observed: {o}" for o in report.not_observed]
    lines += finding_lines(report)
    for n, p in enumerate(report.pipelines, 1):
        lines.append("")
        lines.append(f"pipeline {n}: {' → '.join(p.sessions)} ({_loop_words(p)})")
        if p.h2d_bytes_per_iteration is not None:
            lines.append(f"  bytes across PCIe per iteration: {_bytes_words(p)}")
        if p.round_trips:
            lines.append("  round trips between stages:")
            for h in p.round_trips:
                lines.append(f"    - {h.message} [{h.basis}]"
                             + (f"; host time between: {fmt_ms(h.host_ms_between)} ms/call" if h.host_ms_between is not None else ""))
                lines.append(f"      fix: {h.fix}")
        if p.state:
            lines.append("  state carried between calls:")
            for h in p.state:
                lines.append(f"    - {h.message} [{h.basis}]")
                if h.fix:
                    lines.append(f"      fix: {h.fix}")
        for h in p.on_device:
            lines.append(f"  kept on the device: {h.message}")
        for h in p.host_hand_offs:
            lines.append(f"  host hand-off: {h.message}")
        for e in p.uploads:
            lines.append(f"  upload from host code: input `{e.tensor}` of {e.session}, {fmt_bytes(e.bytes_per_call)}/call, "
                         f"{e.calls} call(s) [{e.basis}]")
        for e in p.downloads:
            lines.append(f"  download to host code: output `{e.tensor}` of {e.session}, {fmt_bytes(e.bytes_per_call)}/call, "
                         f"{e.calls} call(s) [{e.basis}]")
        if p.before_loop:
            lines.append("  before the loop (warm-up, initialisation), ms:")
            lines += _text_table(p.before_loop, per_iteration=False)
        if p.first_iteration:
            lines.append(f"  first iteration, shown apart: {fmt_ms(p.first_iteration_ms)} ms")
            lines += _text_table(p.first_iteration, per_iteration=False)
        if p.new_shapes:
            lines.append("  first call of each session at each input shape:")
            shown = sorted(p.new_shapes, key=lambda c: -c.ms)[:NEW_SHAPES_SHOWN]
            lines += [f"    - {shape_message(c)}" for c in sorted(shown, key=p.new_shapes.index)]
            if len(p.new_shapes) > len(shown):
                lines.append(f"    ({len(p.new_shapes) - len(shown)} more in the JSON report, each faster)")
        lines.append(f"  stage table ({_table_words(p)}; median ms per call, measured in this run):")
        if p.timing_note:
            lines.append(f"    ({p.timing_note})")
        lines += _text_table(p.stages, per_iteration=True)
        if p.after_loop:
            lines.append("  after the loop, ms:")
            lines += _text_table(p.after_loop, per_iteration=False)
        if p.code:
            lines.append("  code for the hand-offs:")
            lines += ["    " + line for line in p.code.splitlines()]
        if p.code_check:
            lines.append(f"  {p.code_check}")
    lines += [f"note: {n}" for n in report.notes]
    # names from the models and the program are untrusted: every line escaped (control characters, line breaks,
    # bidi overrides), so a name cannot clear the terminal or forge a line
    return "\n".join(safe(line) for line in lines)


NEW_SHAPES_SHOWN = 8  # first calls at a shape the text shows (the slowest); the JSON has them all


def finding_lines(report: PipelineReport) -> list[str]:
    """The run rules' findings (OCD1xx), one ``severity id slug at site`` line each with its message and fix below;
    nothing where there are none (a report written before run had rules)."""
    if not report.findings:
        return []
    lines = ["", f"findings ({len(report.findings)}; rules: docs/rules.md):"]
    for f in report.findings:
        per = f", {fmt_bytes(f.bytes_per_run)} per iteration" if f.bytes_per_run is not None else ""
        lines.append(f"  {f.severity:<7} {f.rule} {f.slug} at {short_site(f.location)}{per}")
        lines.append(f"          {f.message}")
        lines.append(f"          fix: {f.fix}")
    return lines


def _loop_words(p: Pipeline) -> str:
    """``10 iteration(s) of the loop, each starting at det.onnx called at ocr.py:main:23, 12.000 ms each``."""
    words = f"{p.iterations} iteration(s) of the loop"
    if p.head:
        words += f", each starting at {p.head}" + (f" called at {short_site(p.head_site)}" if p.head_site else "")
    if p.iteration_ms is not None:
        words += f", {fmt_ms(p.iteration_ms)} ms each (median)"
    return words


def _bytes_words(p: Pipeline) -> str:
    up, down = p.h2d_bytes_per_iteration or 0, p.d2h_bytes_per_iteration or 0
    return (f"{fmt_bytes(int(up + down))} ({fmt_bytes(int(up))} host→device, {fmt_bytes(int(down))} device→host; "
            f"mean of {p.iterations} iteration(s)"
            + ("; predicted for the device: no device provider was active)" if p.bytes_predicted else ")"))


def _table_words(p: Pipeline) -> str:
    if p.first_iteration:
        return (f"{p.stage_iterations} iteration(s) after the first, whose end is known; the rows but download add "
                "up to their time")
    return f"all {p.stage_iterations} iteration(s)"


def _text_table(rows: list[StageRow], per_iteration: bool) -> list[str]:
    width = max((len(r.stage) for r in rows), default=10)
    head = f"    {'stage':<{width}}  {'ms/call':>9}  {'calls':>6}  {'total ms':>10}"
    lines = [head + (f"  {'ms/iter':>9}" if per_iteration else "")]
    for r in rows:
        line = f"    {r.stage:<{width}}  {fmt_ms(r.median_ms):>9}  {r.calls:>6}  {fmt_ms(r.total_ms):>10}"
        if per_iteration:
            line += f"  {fmt_ms(r.per_iteration_ms):>9}"
        lines.append(line + (f"  ({r.note})" if r.median_ms is None and r.note else ""))
    return lines


_CSS = """body{font-family:system-ui,sans-serif;margin:2em;max-width:70em}table{border-collapse:collapse}
td,th{border:1px solid #ccc;padding:.2em .6em;text-align:left}td.n{text-align:right}
.rt{color:#a00}.ok{color:#070}pre{background:#f4f4f4;padding:1em;overflow-x:auto}code{background:#f4f4f4}
.long{overflow-wrap:anywhere}"""


def render_pipeline_html(report: PipelineReport) -> str:
    """One self-contained HTML page (no network references); every name is escaped, and breaks at its separators
    (``breakable``, as in the check report) so that a long model or tensor name wraps instead of widening the page."""
    from ortcopy_doctor.render.html import breakable as b  # jinja2 loads only where a page is written

    e = html_lib.escape
    out = ["<!doctype html><html><head><meta charset='utf-8'><title>ortcopy-doctor run</title>",
           f"<style>{_CSS}</style></head><body>",
           f"<h1>ortcopy-doctor run</h1><p><code>{b(' '.join(report.program))}</code> &mdash; ended by {e(report.ended_by)}, "
           f"exit code {report.exit_code}</p>",
           f"<p class='{'rt' if report.round_trips else 'ok'}'><b>{b(report.verdict)}</b></p>",
           *([("<h2>Providers</h2><ul>" + "".join(f"<li>{b(f.line)}<br>fix: {b(f.fix)}</li>" for f in report.providers)
               + "</ul>")] if report.providers else []),
           "<h2>Sessions</h2><table><tr><th>session</th><th>providers</th><th>calls</th><th>placement</th><th>census</th></tr>"]
    for s in report.sessions:
        out.append(f"<tr><td>{b(s.label)}</td><td>{e(', '.join(short(p) for p in s.providers))}</td><td class='n'>{s.calls}</td>"
                   f"<td>{b(s.placement)}</td><td>{b(s.census)}</td></tr>")
    out.append("</table><ul>")
    out += [f"<li>observed: {b(o)}</li>" for o in report.observed]
    out += [f"<li>not observed: {b(o)}</li>" for o in report.not_observed]
    out.append("</ul>")
    if report.findings:
        out.append("<h2>Findings</h2><table><tr><th>severity</th><th>rule</th><th>at</th><th>per iteration</th>"
                   "<th>finding and fix</th></tr>")
        out += [f"<tr><td>{e(f.severity)}</td><td>{e(f.rule)} {e(f.slug)}</td><td>{b(short_site(f.location))}</td>"
                f"<td class='n'>{e(fmt_bytes(f.bytes_per_run)) if f.bytes_per_run is not None else '-'}</td>"
                f"<td>{b(f.message)}<br>fix: {b(f.fix)}</td></tr>" for f in report.findings]
        out.append("</table>")
    for n, p in enumerate(report.pipelines, 1):
        out.append(f"<h2>Pipeline {n}: {b(' → '.join(p.sessions))}</h2><p>{b(_loop_words(p))}</p>")
        if p.h2d_bytes_per_iteration is not None:
            out.append(f"<p>bytes across PCIe per iteration: {b(_bytes_words(p))}</p>")
        items = [("rt", h.message + f" [{h.basis}]", h.fix) for h in p.round_trips]
        items += [({ROUND_TRIP: "rt", POSSIBLE_ROUND_TRIP: ""}.get(h.kind, "ok"), h.message + f" [{h.basis}]", h.fix)
                  for h in p.state]
        items += [("ok", h.message, "") for h in p.on_device]
        items += [("", h.message, "") for h in p.host_hand_offs]
        if items:
            out.append("<h3>Hand-offs between stages</h3><ul>")
            for cls, message, fix in items:
                out.append(f"<li class='{cls}'>{b(message)}" + (f"<br>fix: {b(fix)}" if fix else "") + "</li>")
            out.append("</ul>")
        if p.before_loop:
            out.append("<h3>Before the loop (warm-up, initialisation)</h3>")
            out += _html_table(p.before_loop, b, per_iteration=False)
        if p.first_iteration:
            out.append(f"<h3>First iteration, shown apart: {fmt_ms(p.first_iteration_ms)} ms</h3>")
            out += _html_table(p.first_iteration, b, per_iteration=False)
        if p.new_shapes:
            out.append("<h3>First call of each session at each input shape</h3><ul>")
            out += [f"<li>{b(shape_message(c))}</li>" for c in p.new_shapes]
            out.append("</ul>")
        out.append(f"<h3>Stage table</h3><p>{b(_table_words(p))}</p>")
        if p.timing_note:
            out.append(f"<p>{e(p.timing_note)}</p>")
        out += _html_table(p.stages, b, per_iteration=True)
        if p.after_loop:
            out.append("<h3>After the loop</h3>")
            out += _html_table(p.after_loop, b, per_iteration=False)
        if p.code:
            out.append(f"<h3>Code for the hand-offs</h3><pre>{e(p.code)}</pre>")
        if p.code_check:
            out.append(f"<p class=\"muted\">{e(p.code_check)}</p>")
    out += [f"<p>note: {b(n)}</p>" for n in report.notes]
    out.append("</body></html>")
    return "\n".join(out)


def _html_table(rows: list[StageRow], b: Any, per_iteration: bool) -> list[str]:
    extra = "<th>ms/iteration</th>" if per_iteration else ""
    out = [f"<table><tr><th>stage</th><th>ms/call (median)</th><th>calls</th><th>total ms</th>{extra}<th>what</th></tr>"]
    for r in rows:
        cell = f"<td class='n'>{fmt_ms(r.per_iteration_ms)}</td>" if per_iteration else ""
        out.append(f"<tr><td>{b(r.stage)}</td><td class='n'>{fmt_ms(r.median_ms)}</td><td class='n'>{r.calls}</td>"
                   f"<td class='n'>{fmt_ms(r.total_ms)}</td>{cell}<td>{b(r.note)}</td></tr>")
    out.append("</table>")
    return out


__all__ = ["NEW_SHAPES_SHOWN", "render_pipeline_html", "render_pipeline_text"]
