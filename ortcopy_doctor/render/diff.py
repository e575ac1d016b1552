"""A report diff (``ortcopy_doctor.report.diff``) as text and as a self-contained HTML page
(reports/templates/diff.html.j2: autoescape, undefined names are errors). A diff of two run reports (``RunDiff``)
is rendered by the same two functions, as its own text and a page of its own (reports/templates/run_diff.html.j2,
which extends diff.html.j2)."""

from __future__ import annotations

import io
from collections.abc import Callable
from pathlib import Path
from typing import Any

from ortcopy_doctor.model.copies import Copy
from ortcopy_doctor.model.findings import Finding
from ortcopy_doctor.model.format import fmt_bytes
from ortcopy_doctor.render.html import environment
from ortcopy_doctor.render.terminal import safe
from ortcopy_doctor.model.diff import _ARROW, _KIND, CHANGED, SIGN, UNCHANGED, Change, Delta, ReportDiff, RunDiff
from ortcopy_doctor.model.pipeline import short_site

DIFF_TEMPLATE = "diff.html.j2"
RUN_DIFF_TEMPLATE = "run_diff.html.j2"


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


def render_diff_text(d: ReportDiff | RunDiff, show_unchanged: bool = False) -> str:
    """The diff as plain text; changes with no difference are listed only with ``show_unchanged``."""
    if isinstance(d, RunDiff):
        return render_run_diff_text(d, show_unchanged)
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


def render_diff_html(d: ReportDiff | RunDiff) -> str:
    """The diff as a self-contained HTML page."""
    if isinstance(d, RunDiff):
        return render_run_diff_html(d)
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


__all__ = ["DIFF_TEMPLATE", "RUN_DIFF_TEMPLATE", "diff_view_model", "render_diff_html", "render_diff_text",
           "render_run_diff_html", "render_run_diff_text", "run_diff_view_model"]
