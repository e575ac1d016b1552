"""The watch report as plain text (``render_watch_text``): the placement, what was (not) observed, and each call's
census, transfers, discrepancies and fixes. ``WatchReport.to_text()`` and ``str(report)`` before issue 35."""

from __future__ import annotations

from ortcopy_doctor.model.format import fmt_bytes
from ortcopy_doctor.model.providers import short
from ortcopy_doctor.model.text import safe
from ortcopy_doctor.model.watch import WatchReport


def render_watch_text(report: WatchReport) -> str:
    """Plain text: placement, what was (not) observed, each call's census, transfers, discrepancies and fixes; the
    prediction for a requested device provider that is not active after it (``predicted ...``)."""
    lines = [f"ortcopy-doctor watch: {len(report.calls)} call(s) on {', '.join(short(p) for p in report.providers)}; "
             f"placement: {report.placement_source}"
             + (f" ({report.placement_detail})" if report.placement_detail else "")]
    lines += [f"  observed: {o}" for o in report.observed]
    lines += [f"  not observed: {o}" for o in report.not_observed]
    for call in report.calls:
        lines.append(f"call {call.index}: {call.method}" + (f" (raised: {call.error})" if call.error else ""))
        if call.census is not None:
            parts = [f"{d} {c}x {fmt_bytes(b)}" for d, (c, b) in sorted(call.census.items())]
            lines.append("  census: " + (", ".join(parts) if parts else "no memcpy"))
        lines.append(f"  inputs from host: {call.inputs_from_host or '-'}; outputs to host: {call.outputs_to_host or '-'}; "
                     f"on device: {call.on_device or '-'}")
        for t in call.transfers:
            owner = "" if t.user else " (model)"
            lines.append(f"  {t.describe()}{owner}: {t.cause}")
        for d in call.discrepancies:
            lines.append(f"  ! {d}")
        for f in call.fixes:
            lines.append(f"  fix: {f}")
    lines += [f"note: {n}" for n in report.notes]
    lines = [safe(line) for line in lines]  # names from the model: no escape sequence reaches a terminal
    if report.predicted is not None:
        lines.append("")
        lines.append("predicted " + render_watch_text(report.predicted))
    return "\n".join(lines)


__all__ = ["render_watch_text"]
