"""OCD005 fetch-copy: Output is copied device-to-host on every run."""

from __future__ import annotations

from ortcopy_doctor.model.format import fmt_bytes
from ortcopy_doctor.model.findings import Finding, Severity
from ortcopy_doctor.model.vocabulary import FETCH
from ortcopy_doctor.rules.registry import Rule, RuleContext, finding, register

RULE = Rule(
    id="OCD005", slug="fetch-copy", severity=Severity.WARNING, location="output",
    title="Output is copied device-to-host on every run",
    help=('An output produced on the device is copied back to host on every run. Bind it on the device '
          "(`bind_output(name, 'cuda')`) and copy to host only where the caller needs host data."),
)


@register(RULE)
def fetch_copies(ctx: RuleContext) -> list[Finding]:
    """OCD005: Output is copied device-to-host on every run."""
    evidence = ctx.evidence
    copies = ctx.copies
    return [finding(
        RULE,
        f"Output '{c.tensor}' is copied device→host on every run ({fmt_bytes(c.bytes_per_run)}): {c.cause}",
        f"Bind it on the device (`binding.bind_output('{c.tensor}', 'cuda')` or a pre-allocated OrtValue) and copy "
        "to host only where the caller needs host data",
        location=c.tensor, bytes_per_run=c.bytes_per_run, predicted=evidence.mode == "static")
        for c in copies if c.kind == FETCH]
