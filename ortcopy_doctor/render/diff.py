"""A report diff (``ortcopy_doctor.report.diff``) as text and as a self-contained HTML page
(reports/templates/diff.html.j2: autoescape, undefined names are errors). A diff of two run reports (``RunDiff``)
is rendered by the same two functions, as its own text and a page of its own (reports/templates/run_diff.html.j2,
which extends diff.html.j2); of two sweeps (``SweepDiff``): a table across the shapes in both, then each shape's
diff as a single diff renders it (reports/templates/sweep_diff.html.j2, each section diff_body.html.j2)."""

from __future__ import annotations

import io
from collections.abc import Callable
from pathlib import Path
from typing import Any

from markupsafe import Markup  # loaded with render.html's jinja2 already

from ortcopy_doctor.model.copies import Copy
from ortcopy_doctor.model.findings import Finding
from ortcopy_doctor.model.format import fmt_bytes
from ortcopy_doctor.render.html import environment
from ortcopy_doctor.render.terminal import safe
from ortcopy_doctor.model.diff import (
    _ARROW, _KIND, ADDED, CHANGED, REMOVED, SIGN, UNCHANGED, Change, Delta, ReportDiff, RunDiff, ShapeDiff, SweepDiff,
)
from ortcopy_doctor.model.pipeline import short_site
from ortcopy_doctor.model.sweep import ShapeResult

DIFF_TEMPLATE = "diff.html.j2"
RUN_DIFF_TEMPLATE = "run_diff.html.j2"
SWEEP_DIFF_TEMPLATE = "sweep_diff.html.j2"
DIFF_BODY_TEMPLATE = "diff_body.html.j2"  # the body of DIFF_TEMPLATE, each shape's section of SWEEP_DIFF_TEMPLATE
SWEEP_DIFF_COLUMNS = ("shape", "copies/run", "bytes/run", "median", "faster", "findings")


def _copy_line(c: Change[Copy]) -> str:
    copy = c.after if c.after is not None else c.before
    assert copy is not None
    text = f"{SIGN[c.status]} {_KIND[copy.kind]} {_ARROW[copy.direction]}" + (f" {copy.tensor}" if copy.tensor else "")
    if c.status == CHANGED:
        where = f" (node {copy.node})" if copy.node and not copy.tensor else ""  # a kernel's transfer: its node
        return f"{text}{where}: {'; '.join(c.what)}"
    text += ", unknown size" if copy.bytes_per_run is None else f", {fmt_bytes(copy.bytes_per_run)} per run"
    if copy.node:
        text += f" (node {copy.node})"
    return text


def _finding_line(c: Change[Finding]) -> str:
    f = c.after if c.after is not None else c.before
    assert f is not None
    text = f"{SIGN[c.status]} {f.severity:<7} {f.rule} {f.slug} at {f.location}"
    if c.status == CHANGED:
        return f"{text}: {'; '.join(c.what)}"
    return text


def _counts_text(counts: dict[str, int]) -> str:
    return ", ".join(f"{n} {status}" for status, n in counts.items())


def render_diff_text(d: ReportDiff | RunDiff | SweepDiff, show_unchanged: bool = False) -> str:
    """The diff as plain text; changes with no difference are listed only with ``show_unchanged``."""
    if isinstance(d, RunDiff):
        return render_run_diff_text(d, show_unchanged)
    if isinstance(d, SweepDiff):
        return render_sweep_diff_text(d, show_unchanged)
    out = io.StringIO()

    def w(text: str) -> None:
        # names from the reports are untrusted: control characters escaped between the line breaks put here
        body = text.strip("\n")
        lead = text[: len(text) - len(text.lstrip("\n"))]
        trail = text[len(text.rstrip("\n")):] if body else ""
        out.write(lead + safe(body) + trail)

    w(f"ortcopy-doctor diff: {d.a_name} → {d.b_name}\n")
    # first what the two checks were of: the models (where they differ), the inputs (every size follows them)
    if d.model_change:
        w(f"warning: {d.model_change}\n")
    if d.inputs:
        w(f"{inputs_line(d)}\n")
    w(f"{d.headline}\n")
    w(f"a: {d.a.verdict}\n")
    w(f"b: {d.b.verdict}\n")
    p = d.predicted
    if p is not None:
        for name, report in (("a", d.a), ("b", d.b)):
            if report.prediction is not None:
                w(f"{name} predicted for {p.provider}: {report.prediction.verdict}\n")
    w("\n")
    for delta in d.deltas + (p.deltas if p is not None else []):
        w(f"{delta.label}: {delta.text()}\n")
    if d.predicted_note:
        w(f"{d.predicted_note}\n")
    w("\nEnvironment:" + ("\n" if d.environment else " no differences\n"))
    for what, x, y in d.environment:
        w(f"  {what}: {x or '-'} → {y or '-'}\n")
    # Change[Any]: each section's line function takes the changes of its own section (copies, findings)
    sections: tuple[tuple[str, list[Change[Any]], Callable[[Change[Any]], str]], ...] = (
        ("Transfers per run", d.copies, _copy_line), ("Findings", d.findings, _finding_line))
    if p is not None:
        sections = (sections[0], (f"Predicted transfers per run, {p.provider}", p.copies, _copy_line),
                    sections[1], (f"Predicted findings, {p.provider}", p.findings, _finding_line))
    for title, changes, line in sections:
        w(f"\n{title} ({_counts_text(d.counts(changes))}):\n")
        shown = [c for c in changes if show_unchanged or c.status != UNCHANGED]
        if not shown:
            w("  (no change)\n")
        for c in shown:
            w(f"  {line(c)}\n")
    return out.getvalue()


# --- HTML ---------------------------------------------------------------------------------------------------------


def inputs_line(d: ReportDiff) -> str:
    """``Inputs differ: x 1x3x320x320 → 1x3x640x640: ...``: the first thing a diff of two checks at other inputs
    says; "" where the inputs are the same."""
    if not d.inputs:
        return ""
    return f"Inputs differ: {'; '.join(d.inputs)}. What follows compares runs at different inputs."


def _copy_row(c: Change[Copy]) -> dict[str, Any]:
    copy = c.after if c.after is not None else c.before
    assert copy is not None
    return {"status": c.status, "sign": SIGN[c.status], "kind": _KIND[copy.kind], "direction": _ARROW[copy.direction],
            "tensor": copy.tensor,
            "before": fmt_bytes(c.before.bytes_per_run) if c.before is not None else "",
            "after": fmt_bytes(c.after.bytes_per_run) if c.after is not None else "",
            "node": copy.node, "what": "; ".join(c.what)}


def _finding_row(c: Change[Finding]) -> dict[str, Any]:
    f = c.after if c.after is not None else c.before
    assert f is not None
    return {"status": c.status, "sign": SIGN[c.status], "severity": f.severity, "rule": f.rule, "slug": f.slug,
            "title": f.title, "location": f.location, "message": f.message, "what": "; ".join(c.what)}


def _delta_row(x: Delta) -> dict[str, Any]:
    return {"label": x.label, "before": x.fmt(x.before, x.before_unknown), "after": x.fmt(x.after, x.after_unknown),
            "text": x.text(), "direction": ("" if not x.change else ("up" if x.change > 0 else "down"))}


def diff_view_model(d: ReportDiff) -> dict[str, Any]:
    """The values the HTML diff template shows."""
    regressions = d.regressions
    p = d.predicted
    return {
        "title": f"ortcopy-doctor diff: {Path(d.a_name).name} → {Path(d.b_name).name}",
        "a_name": d.a_name,
        "b_name": d.b_name,
        "a_verdict": d.a.verdict,
        "b_verdict": d.b.verdict,
        "regression": bool(regressions),
        "model_change": d.model_change or "",
        "headline": d.headline,
        "inputs": inputs_line(d),
        "deltas": [_delta_row(x) for x in d.deltas + (p.deltas if p is not None else [])],
        "predicted_note": d.predicted_note,
        "predicted": None if p is None else {
            "provider": p.provider,
            "a_verdict": d.a.prediction.verdict if d.a.prediction is not None else "",
            "b_verdict": d.b.prediction.verdict if d.b.prediction is not None else "",
            "copies": [_copy_row(c) for c in p.copies], "copy_counts": d.counts(p.copies),
            "findings": [_finding_row(c) for c in p.findings], "finding_counts": d.counts(p.findings),
        },
        "environment": [{"what": w, "before": x or "-", "after": y or "-"} for w, x, y in d.environment],
        "copies": [_copy_row(c) for c in d.copies],
        "copy_counts": d.counts(d.copies),
        "findings": [_finding_row(c) for c in d.findings],
        "finding_counts": d.counts(d.findings),
    }


def render_diff_html(d: ReportDiff | RunDiff | SweepDiff) -> str:
    """The diff as a self-contained HTML page."""
    if isinstance(d, RunDiff):
        return render_run_diff_html(d)
    if isinstance(d, SweepDiff):
        return render_sweep_diff_html(d)
    return environment().get_template(DIFF_TEMPLATE).render(**diff_view_model(d))


# --- run reports --------------------------------------------------------------------------------------------------


def _run_finding_line(c: Change[Finding]) -> str:
    f = c.after if c.after is not None else c.before
    assert f is not None
    text = f"{SIGN[c.status]} {f.severity:<7} {f.rule} {f.slug}: {f.details.get('subject', '') or f.location}"
    if c.status == CHANGED:
        return f"{text}: {'; '.join(c.what)}"
    per = f", {fmt_bytes(f.bytes_per_run)} per iteration" if f.bytes_per_run is not None else ""
    return f"{text} at {short_site(f.location)}{per}"


def render_run_diff_text(d: RunDiff, show_unchanged: bool = False) -> str:
    """A diff of two run reports as plain text: the headline, each pipeline's numbers, the findings."""
    lines = [f"ortcopy-doctor diff (run reports): {d.a_name} → {d.b_name}"]
    a_program, b_program = " ".join(d.a.program), " ".join(d.b.program)
    if a_program != b_program:
        lines.append(f"programs: {a_program} → {b_program}")
    lines += [d.headline, f"a: {d.a.verdict}", f"b: {d.b.verdict}"]
    for p in d.pipelines:
        lines.append("")
        lines.append(f"{SIGN[p.status]} pipeline {p.sessions} ({p.status}):")
        lines += [f"  {delta.label}: {delta.text()}" for delta in p.deltas]
    if not d.pipelines:
        lines += ["", "no pipeline in either report"]
    lines.append("")
    lines.append(f"Findings ({_counts_text(d.counts(d.findings))}):")
    shown = [c for c in d.findings if show_unchanged or c.status != UNCHANGED]
    lines += [f"  {_run_finding_line(c)}" for c in shown] or ["  (no change)"]
    # names from the reports are untrusted: every line escaped
    return "\n".join(safe(line) for line in lines) + "\n"


def run_diff_view_model(d: RunDiff) -> dict[str, Any]:
    """The values the HTML diff of two run reports (run_diff.html.j2) shows."""
    a_program, b_program = " ".join(d.a.program), " ".join(d.b.program)

    def finding_row(c: Change[Finding]) -> dict[str, Any]:
        f = c.after if c.after is not None else c.before
        assert f is not None
        return {"status": c.status, "sign": SIGN[c.status], "severity": f.severity, "rule": f.rule, "slug": f.slug,
                "subject": str(f.details.get("subject", "") or f.location), "location": short_site(f.location),
                "message": f.message, "what": "; ".join(c.what)}

    return {
        "title": f"ortcopy-doctor diff (run reports): {Path(d.a_name).name} → {Path(d.b_name).name}",
        "a_name": d.a_name, "b_name": d.b_name,
        "programs": f"{a_program} → {b_program}" if a_program != b_program else "",
        "regression": bool(d.regressions), "headline": d.headline,
        "a_verdict": d.a.verdict, "b_verdict": d.b.verdict,
        "pipelines": [{"sessions": p.sessions, "status": p.status, "deltas": [_delta_row(x) for x in p.deltas]}
                      for p in d.pipelines],
        "findings": [finding_row(c) for c in d.findings],
        "finding_counts": d.counts(d.findings),
    }


def render_run_diff_html(d: RunDiff) -> str:
    """A diff of two run reports as one self-contained HTML page, with the diff's look (every name escaped)."""
    return environment().get_template(RUN_DIFF_TEMPLATE).render(**run_diff_view_model(d))


# --- sweeps -------------------------------------------------------------------------------------------------------


def _ms(value: float | None) -> str:
    return "-" if value is None else f"{value:.3g} ms"


def _faster(row: ShapeResult) -> str:
    """The faster provider at that shape: "-" where the choice was not measured, "even" within noise."""
    return (row.faster or "even") if row.cuda_ms is not None else "-"


def _pair(a: str, b: str) -> str:
    return a if a == b else f"{a} → {b}"


def shape_diff_cells(s: ShapeDiff) -> list[str]:
    """The cells of one common shape's row, in ``SWEEP_DIFF_COLUMNS``' order: each number a → b (one value where
    it is the same), and the findings added and removed (predicted ones too, as the diff's regressions count them)."""
    p = s.diff.predicted
    counts = s.diff.counts(s.diff.findings + (p.findings if p is not None else []))
    return [s.label, _pair(str(s.a.copies_per_run), str(s.b.copies_per_run)),
            _pair(fmt_bytes(s.a.bytes_per_run), fmt_bytes(s.b.bytes_per_run)),
            _pair(_ms(s.a.median_ms), _ms(s.b.median_ms)), _pair(_faster(s.a), _faster(s.b)),
            f"+{counts[ADDED]} -{counts[REMOVED]}"]


def break_even_line(d: SweepDiff) -> str:
    """``break-even: CUDA wins from batch 8 → CUDA wins from batch 16``; "" where neither sweep has one."""
    if not d.a.break_even and not d.b.break_even:
        return ""
    return f"break-even: {_pair(d.a.break_even or 'none', d.b.break_even or 'none')}"


def render_sweep_diff_text(d: SweepDiff, show_unchanged: bool = False) -> str:
    """A diff of two sweeps as plain text: the headline, the break-even, the shapes only in one, the table of the
    shapes in both, then each one's diff as ``render_diff_text`` writes it."""
    lines = [f"ortcopy-doctor diff (sweeps): {d.a_name} → {d.b_name}", d.headline]
    if break_even_line(d):
        lines.append(break_even_line(d))
    if d.only_a:
        lines.append(f"shapes only in a: {', '.join(d.only_a)}")
    if d.only_b:
        lines.append(f"shapes only in b: {', '.join(d.only_b)}")
    rows = [list(SWEEP_DIFF_COLUMNS), *(shape_diff_cells(s) for s in d.shapes)]
    widths = [max(len(r[i]) for r in rows) for i in range(len(SWEEP_DIFF_COLUMNS))]
    lines.append("")
    lines += ["  ".join(cell.ljust(w) for cell, w in zip(r, widths)).rstrip() for r in rows] if d.shapes else [
        "no shape in both sweeps"]
    # names from the reports are untrusted: every line escaped (each shape's diff escapes its own)
    text = "\n".join(safe(line) for line in lines) + "\n"
    for s in d.shapes:
        text += f"\n=== {safe(s.label)} ===\n" + render_diff_text(s.diff, show_unchanged)
    return text


def sweep_diff_view_model(d: SweepDiff) -> dict[str, Any]:
    """The values the HTML diff of two sweeps (sweep_diff.html.j2) shows; each shape's section is its single diff's
    body (diff_body.html.j2), rendered here with its ids prefixed so that they stay unique on the page."""
    body = environment().get_template(DIFF_BODY_TEMPLATE)
    shapes = [{"id": f"shape-{i}", "label": s.label, "cells": shape_diff_cells(s), "regression": bool(s.diff.regressions),
               "body": Markup(body.render(**diff_view_model(s.diff), id_prefix=f"shape-{i}-"))}
              for i, s in enumerate(d.shapes, start=1)]
    return {
        "title": f"ortcopy-doctor diff (sweeps): {Path(d.a_name).name} → {Path(d.b_name).name}",
        "a_name": d.a_name, "b_name": d.b_name, "regression": bool(d.regressions), "headline": d.headline,
        "break_even": break_even_line(d).removeprefix("break-even: "), "only_a": d.only_a, "only_b": d.only_b,
        "columns": SWEEP_DIFF_COLUMNS, "shapes": shapes,
    }


def render_sweep_diff_html(d: SweepDiff) -> str:
    """A diff of two sweeps as one self-contained HTML page, with the diff's look (every name escaped)."""
    return environment().get_template(SWEEP_DIFF_TEMPLATE).render(**sweep_diff_view_model(d))


__all__ = ["DIFF_BODY_TEMPLATE", "DIFF_TEMPLATE", "RUN_DIFF_TEMPLATE", "SWEEP_DIFF_COLUMNS", "SWEEP_DIFF_TEMPLATE",
           "break_even_line", "diff_view_model", "render_diff_html", "render_diff_text", "render_run_diff_html",
           "render_run_diff_text", "render_sweep_diff_html", "render_sweep_diff_text", "run_diff_view_model",
           "shape_diff_cells", "sweep_diff_view_model"]
