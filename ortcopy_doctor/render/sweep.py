"""The sweep across shapes (``check --dim batch=1,8,64``): the per-shape table as text (the terminal prints it
before each shape's report) and the HTML page (the table, then a condensed section per shape). The numbers are
report/sweep.py's; this module only lays them out."""

from __future__ import annotations

from typing import Any

from ortcopy_doctor.model.format import fmt_bytes
from ortcopy_doctor.model.sweep import ShapeResult, ShapeSweep

COLUMNS = ("shape", "first run", "median (95% CI)", "copies/run", "bytes/run", "CUDA", "CPU", "faster", "findings")
TEMPLATE = "sweep.html.j2"


def _ms(value: float | None) -> str:
    return "-" if value is None else f"{value:.3g} ms"


def _median(row: ShapeResult) -> str:
    if row.median_ms is None:
        return "-"
    if row.ci_low_ms is None or row.ci_high_ms is None:
        return _ms(row.median_ms)
    return f"{row.median_ms:.3g} ms ({row.ci_low_ms:.3g}–{row.ci_high_ms:.3g})"


def row_cells(row: ShapeResult) -> list[str]:
    """The cells of one shape's row, in ``COLUMNS``' order."""
    measured = row.cuda_ms is not None
    return [row.label, _ms(row.first_ms), _median(row), str(row.copies_per_run), fmt_bytes(row.bytes_per_run),
            _ms(row.cuda_ms), _ms(row.cpu_ms), (row.faster or "even") if measured else "-", str(row.findings)]


def render_text(sweep: ShapeSweep) -> str:
    """The verdict, then the table in aligned columns (plain text: the terminal and a pipe show it alike)."""
    rows = [list(COLUMNS), *(row_cells(r) for r in sweep.shapes)]
    widths = [max(len(r[i]) for r in rows) for i in range(len(COLUMNS))]
    lines = [sweep.verdict, ""]
    for row in rows:
        lines.append("  ".join(cell.ljust(w) for cell, w in zip(row, widths)).rstrip())
    switch = switch_rows(sweep)
    if switch:
        lines += ["", f"Shapes in turn: {sweep.switch_advice}", ""]
        table = [list(SWITCH_COLUMNS), *switch]
        widths = [max(len(r[i]) for r in table) for i in range(len(SWITCH_COLUMNS))]
        lines += ["  ".join(cell.ljust(w) for cell, w in zip(row, widths)).rstrip() for row in table]
    elif sweep.switch is not None and sweep.switch.skipped:
        lines += ["", f"Shapes in turn: not measured: {sweep.switch.skipped}"]
    return "\n".join(lines)


SWITCH_COLUMNS = ("option", "per call (median)", "vs ORT's default (95% CI)")


def switch_rows(sweep: ShapeSweep) -> list[list[str]]:
    """The shapes-in-turn table (``ShapeSweep.switch``): one row per option, the recommended one marked."""
    switch = sweep.switch
    if switch is None:
        return []
    rows = []
    for o in switch.options:
        name = switch.name(o.option)
        if o.option == sweep.switch_recommended:
            name += " (recommended)"
        ratio = "baseline" if o.option == "EXHAUSTIVE" else f"{o.ratio:.2f}x ({o.ratio_low:.2f}–{o.ratio_high:.2f})"
        rows.append([name, _ms(o.median_ms), ratio])
    return rows


def _section(index: int, row: ShapeResult) -> dict[str, Any]:
    report = row.report
    return {"id": f"shape-{index}", "label": row.label, "verdict": report.verdict, "cells": row_cells(row),
            "findings": [{"severity": f.severity.value,
                          "rule": f.rule, "slug": f.slug, "message": f.message, "fix": f.fix}
                         for f in report.findings],
            "copies": [{"kind": c.kind.value, "tensor": c.tensor, "bytes": fmt_bytes(c.bytes_per_run)}
                       for c in report.copies]}


def render_html(sweep: ShapeSweep, model: str) -> str:
    """The sweep page: its verdict, the per-shape table (each label a link to its section), then a condensed
    section per shape (verdict, copies, findings with their fixes); each shape's full report is in --json."""
    # jinja2 loads with the first page rendered (render/html.py's environment: one per process)
    from ortcopy_doctor.render.html import environment

    sections = [_section(i, r) for i, r in enumerate(sweep.shapes, start=1)]
    return environment().get_template(TEMPLATE).render(
        title=f"ortcopy-doctor: {model} at {len(sweep.shapes)} shapes", verdict=sweep.verdict,
        break_even=sweep.break_even, columns=COLUMNS, sections=sections, switch_columns=SWITCH_COLUMNS,
        switch_rows=switch_rows(sweep), switch_advice=sweep.switch_advice,
        switch_skipped=sweep.switch.skipped if sweep.switch is not None else "",
        bad=any(r.copies_per_run for r in sweep.shapes))


__all__ = ["COLUMNS", "SWITCH_COLUMNS", "render_html", "render_text", "row_cells", "switch_rows"]
