"""Terminal summary: the verdict first, then the copies per run, then findings."""

from __future__ import annotations

import io
from typing import TYPE_CHECKING

from rich.console import Console
from rich.markup import escape
from rich.table import Table
from rich.text import Text

from ortcopy_doctor.model.errors import UsageError
from ortcopy_doctor.model.evidence import (
    CHOSEN_VALUES_TITLE,
    assumed_dims_title,
    describe_assumed_dims,
    describe_chosen_values,
)
from ortcopy_doctor.model.format import fmt_bytes
from ortcopy_doctor.model.vocabulary import (
    BETWEEN_NODES,
    DEVICE_TO_DEVICE,
    FEED,
    FETCH,
    IN_KERNEL,
    MEMCPY_NODE,
    OTHER_COPY,
    OUTSIDE,
)
from ortcopy_doctor.render.labels import DIRECTION_LABEL, KIND_LABEL, StatedOnce as _StatedOnce, conditional_line, conditional_title
from ortcopy_doctor.render.groups import compact_locations, group_findings
from ortcopy_doctor.render.terminal import safe

if TYPE_CHECKING:
    from ortcopy_doctor.model.attribution import CensusReport
    from ortcopy_doctor.model.report import Report

SEVERITY_STYLE = {"error": "bold red", "warning": "yellow", "info": "cyan"}
# The terminal lists this many copies and findings, then counts the rest: rich takes ~1 ms per table row and per
# finding, so a model with 15,000 findings printed them all in ~25 s. The JSON, HTML and SARIF stay complete.
TERMINAL_LIMIT = 100


def _more(count: int, what: str) -> str:
    return f"... and {count:,} more {what} (listed in full in the JSON and HTML reports)"


def print_report(report: Report, console: Console, details: bool = True) -> None:
    """Print the report (and its prediction for the requested provider, where there is one) to ``console``;
    ``details`` adds the findings (with their fixes) and what the recommendation needs."""
    _print_one(report, console, details)
    if report.prediction is not None:
        p = report.prediction
        provider = p.evidence.session.active_providers[0] if p.evidence.session.active_providers else "?"
        console.print(f"\n[bold]Predicted for {_escape(provider)}[/] (static analysis of the model; not measured):")
        _print_one(p, console, details, predicted=True)


def _print_one(report: Report, console: Console, details: bool, predicted: bool = False) -> None:
    once = _StatedOnce(None if predicted else report.evidence.session.ep_failure)
    style = "bold red" if report.worst_severity() == "error" else ("yellow" if report.copies else "green")
    console.print(f"[{style}]{_escape(once(report.verdict))}[/]")
    headline = "" if predicted else report.headline()  # current latency → best attainable, with the variant
    if headline:
        console.print(_escape(once(headline)))
    advice = None if predicted else report.advice
    if advice is not None and advice.recommended == "cpu_provider" and advice.code_check:
        console.print(f"The CPU-provider code (in the HTML and JSON): {_escape(advice.code_check)}")
    if not predicted and report.evidence.assumed_dims:
        console.print(f"[yellow]{_escape(assumed_dims_title(report.evidence.assumed_dims))}[/]")
        for line in describe_assumed_dims(report.evidence.assumed_dims):
            console.print(f"  {_escape(line)}")
    chosen = [] if predicted else [f for f in report.evidence.feeds if f.chosen]
    if chosen:
        console.print(f"[yellow]{_escape(CHOSEN_VALUES_TITLE)}[/]")
        for line in describe_chosen_values(chosen):
            console.print(f"  {_escape(line)}")
    if report.copies:
        table = Table(title="Host↔device copies per run", title_justify="left")
        for column in ("kind", "direction", "tensor", "bytes/run", "node", "IO binding removes it"):
            # fold: a narrow terminal wraps a name onto more lines; it never cuts it ("MemcpyToHo…")
            table.add_column(column, overflow="fold", no_wrap=False)
        for c in report.copies[:TERMINAL_LIMIT]:
            # Text(), not str: a str cell is parsed as rich markup, and tensor/node names are untrusted.
            table.add_row(KIND_LABEL[c.kind], DIRECTION_LABEL[c.direction], Text(safe(c.tensor)), fmt_bytes(c.bytes_per_run),
                          Text(safe(c.node or "")), "yes" if c.removable_by_binding else "no")
        console.print(table)
        if len(report.copies) > TERMINAL_LIMIT:
            console.print(_more(len(report.copies) - TERMINAL_LIMIT, "copies"))
    if report.conditional_copies:
        console.print(_escape(conditional_title(report.evidence.mode == "static")))
        for c in report.conditional_copies[:TERMINAL_LIMIT]:
            console.print(f"  - {_escape(conditional_line(c))}")
        if len(report.conditional_copies) > TERMINAL_LIMIT:
            console.print(_more(len(report.conditional_copies) - TERMINAL_LIMIT, "copies"))
    s = report.summary
    if predicted:
        placed = ", ".join(f"{k}: {v}" for k, v in s.nodes_by_provider.items())
        console.print(f"Nodes by provider (predicted): {_escape(placed)}")
        if report.binding.code_check:
            console.print(f"Binding code (in the HTML and JSON): {_escape(report.binding.code_check)}")
        if details:
            shown = [f for f in report.findings
                     if f.severity in ("error", "warning") and f.slug in ("cpu-fallback", "memcpy-node")]
            for f in shown[:TERMINAL_LIMIT]:
                console.print(f"[{SEVERITY_STYLE[f.severity]}]{f.severity:<7}[/] {_escape(f.rule)} {_escape(f.slug)} at "
                              f"{_escape(f.location)}: {_escape(f.message)}")
            if len(shown) > TERMINAL_LIMIT:
                console.print(_more(len(shown) - TERMINAL_LIMIT, "findings"))
        return
    placed = ", ".join(f"{k}: {v}" for k, v in s.nodes_by_provider.items())
    timing = (f"median {s.median_run_ms:.3f} ms (p10 {s.p10_run_ms:.3f}, p90 {s.p90_run_ms:.3f})"
              if s.median_run_ms is not None and s.p10_run_ms is not None and s.p90_run_ms is not None
              else "not measured")
    console.print(f"Nodes by provider: {_escape(placed) or 'none'}   Run time: {timing}")
    if report.census is not None:
        console.print(_escape(census_line(report.census)))
    elif report.evidence.census_status:
        console.print(f"Transfer census: {_escape(report.evidence.census_status)}")
    measured = report.measured  # one line: the A/B measurement of IO binding, or why it was not run
    if measured is not None:
        console.print(_escape(once(measured.one_line)))
        if measured.recommendation and details:
            console.print(_escape(measured.recommendation))
            for need in measured.needs:
                console.print(f"  needs: {_escape(need)}")
            if measured.host_jitter:
                console.print(f"  host jitter explains it? {_escape(measured.host_jitter)}")
    if report.binding.code_check:
        console.print(f"Binding code (in the HTML and JSON): {_escape(report.binding.code_check)}")
    if details and report.findings:
        groups = group_findings(report.findings)
        alike = "" if len(groups) == len(report.findings) else f"; alike ones together, {len(groups)} entries"
        console.print(f"\nFindings ({len(report.findings)}{alike}):")
        for g in groups[:TERMINAL_LIMIT]:
            f = g.first
            tag = " (predicted)" if f.predicted else ""
            where = (_escape(f.location) if g.count == 1
                     else f"{g.count} locations alike: {_escape(compact_locations(g.locations))}")
            # one print of the entry's three lines: rich's work is per call (~0.1 ms), the lines are short
            console.print(f"[{SEVERITY_STYLE[f.severity]}]{f.severity:<7}[/] {_escape(f.rule)} {_escape(f.slug)}{tag} at {where}\n"
                          f"        {g.example(f.message)}{_escape(once(f.message))}\n"
                          f"        [bold]fix:[/] {g.example(f.fix)}{_escape(f.fix)}")
        if len(groups) > TERMINAL_LIMIT:
            console.print(_more(sum(g.count for g in groups[TERMINAL_LIMIT:]), "findings"))


def _escape(text: str) -> str:
    """Markup and terminal control characters escaped (names from the model are untrusted)."""
    return escape(safe(text))


def render_text(report: Report, width: int = 120) -> str:
    """The report as plain text (no colour), ``width`` columns wide (at least 20)."""
    if not isinstance(width, int) or isinstance(width, bool) or width < 20:
        raise UsageError(f"render_text(width={str(width)[:30]!r}): give the number of columns, 20 or more")
    buffer = io.StringIO()
    console = Console(file=buffer, width=width, color_system=None, force_terminal=False)
    print_report(report, console)
    return buffer.getvalue()


def census_line(report: CensusReport) -> str:
    """A one-line summary: per-run counts by class, unexplained transfers and failed checks."""
    labels = {FEED: "feed", FETCH: "fetch", MEMCPY_NODE: "Memcpy node", IN_KERNEL: "in-kernel",
              DEVICE_TO_DEVICE: "device-to-device", OTHER_COPY: "other", OUTSIDE: "outside runs",
              BETWEEN_NODES: "between nodes"}
    parts = [f"{c.count} {labels[k]} ({fmt_bytes(c.bytes)})" for k, c in report.per_run.items()]
    runs = len(report.runs)
    text = (f"Transfer census ({report.backend}, {runs} traced run{'s' if runs != 1 else ''}): per run "
            + (", ".join(parts) if parts else "no transfers")
            + f"; {report.attributed_share:.0%} of host↔device transfers attributed")
    if report.unexplained:
        text += f"; {len(report.unexplained)} unexplained"
    if report.mismatches:
        text += f"; {len(report.mismatches)} consistency check(s) failed"
    return text + "."
