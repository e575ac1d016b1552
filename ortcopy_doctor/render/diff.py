"""A report diff (``ortcopy_doctor.report.diff``) as text and as a self-contained HTML page
(reports/templates/diff.html.j2: autoescape, undefined names are errors)."""

from __future__ import annotations

import io
from collections.abc import Callable
from pathlib import Path
from typing import Any

from ortcopy_doctor.model.copies import Copy
from ortcopy_doctor.model.findings import Finding
from ortcopy_doctor.model.format import fmt_bytes
from ortcopy_doctor.model.gcpause import without_cyclic_gc
from ortcopy_doctor.render.html import environment
from ortcopy_doctor.render.terminal import safe
from ortcopy_doctor.model.diff import _ARROW, _KIND, ADDED, CHANGED, SIGN, UNCHANGED, Change, ReportDiff

DIFF_TEMPLATE = "diff.html.j2"


def _copy_line(c: Change[Copy]) -> str:
    copy = c.after if c.after is not None else c.before
    assert copy is not None
    text = f"{SIGN[c.status]} {_KIND[copy.kind]} {_ARROW[copy.direction]}" + (f" {copy.tensor}" if copy.tensor else "")
    if c.status == CHANGED:
        where = f" (node {copy.node})" if copy.node and not copy.tensor else ""  # a kernel's transfer: its node
        return f"{text}{where}: {'; '.join(c.what)}"
    text += f", {fmt_bytes(copy.bytes_per_run)} per run"
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


def render_diff_text(d: ReportDiff, show_unchanged: bool = False) -> str:
    """The diff as plain text; changes with no difference are listed only with ``show_unchanged``."""
    out = io.StringIO()

    def w(text: str) -> None:
        # names from the reports are untrusted: control characters escaped between the line breaks put here
        body = text.strip("\n")
        lead = text[: len(text) - len(text.lstrip("\n"))]
        trail = text[len(text.rstrip("\n")):] if body else ""
        out.write(lead + safe(body) + trail)

    w(f"ortcopy-doctor diff: {d.a_name} → {d.b_name}\n")
    if d.model_change:
        w(f"warning: {d.model_change}\n")
    regressions = d.regressions
    if regressions:
        n_copies = sum(1 for c in d.copies if c.status == ADDED)
        n_findings = sum(1 for c in d.findings if c.status == ADDED)
        w(f"Regression: {n_copies} transfer(s) and {n_findings} finding(s) added.\n")
    else:
        w("No new transfers or findings.\n")
    w(f"a: {d.a.verdict}\n")
    w(f"b: {d.b.verdict}\n")
    w("\n")
    for delta in d.deltas:
        w(f"{delta.label}: {delta.text()}\n")
    w("\nEnvironment:" + ("\n" if d.environment else " no differences\n"))
    for what, x, y in d.environment:
        w(f"  {what}: {x or '-'} → {y or '-'}\n")
    # Change[Any]: each section's line function takes the changes of its own section (copies, findings)
    sections: tuple[tuple[str, list[Change[Any]], Callable[[Change[Any]], str]], ...] = (
        ("Transfers per run", d.copies, _copy_line), ("Findings", d.findings, _finding_line))
    for title, changes, line in sections:
        w(f"\n{title} ({_counts_text(d.counts(changes))}):\n")
        shown = [c for c in changes if show_unchanged or c.status != UNCHANGED]
        if not shown:
            w("  (no change)\n")
        for c in shown:
            w(f"  {line(c)}\n")
    return out.getvalue()


# --- HTML ---------------------------------------------------------------------------------------------------------


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


def diff_view_model(d: ReportDiff) -> dict[str, Any]:
    """The values the HTML diff template shows."""
    regressions = d.regressions
    return {
        "title": f"ortcopy-doctor diff: {Path(d.a_name).name} → {Path(d.b_name).name}",
        "a_name": d.a_name,
        "b_name": d.b_name,
        "a_verdict": d.a.verdict,
        "b_verdict": d.b.verdict,
        "regression": bool(regressions),
        "model_change": d.model_change or "",
        "headline": (f"Regression: {sum(1 for c in d.copies if c.status == ADDED)} transfer(s) and "
                     f"{sum(1 for c in d.findings if c.status == ADDED)} finding(s) added."
                     if regressions else "No new transfers or findings."),
        "deltas": [{"label": x.label, "before": x.fmt(x.before), "after": x.fmt(x.after), "text": x.text(),
                    "direction": ("" if not x.change else ("up" if x.change > 0 else "down"))} for x in d.deltas],
        "environment": [{"what": w, "before": x or "-", "after": y or "-"} for w, x, y in d.environment],
        "copies": [_copy_row(c) for c in d.copies],
        "copy_counts": d.counts(d.copies),
        "findings": [_finding_row(c) for c in d.findings],
        "finding_counts": d.counts(d.findings),
    }


@without_cyclic_gc  # two reports' rows, no cycles (model/gcpause.py)
def render_diff_html(d: ReportDiff) -> str:
    """The diff as a self-contained HTML page."""
    return environment().get_template(DIFF_TEMPLATE).render(**diff_view_model(d))


__all__ = ["DIFF_TEMPLATE", "diff_view_model", "render_diff_html", "render_diff_text"]
