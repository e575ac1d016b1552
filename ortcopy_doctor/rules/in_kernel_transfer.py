"""OCD009 in-kernel-transfer: A kernel transfers data inside its own run."""

from __future__ import annotations

from ortcopy_doctor.model.format import fmt_bytes
from ortcopy_doctor.model.findings import Finding, Severity
from ortcopy_doctor.model.vocabulary import IN_KERNEL
from ortcopy_doctor.rules.registry import Rule, RuleContext, finding, register

RULE = Rule(
    id="OCD009", slug="in-kernel-transfer", severity=Severity.INFO, location="node",
    title="A kernel transfers data inside its own run",
    help=('The kernel transfers data inside its own run (e.g. NonZero reads its count back). Nothing to bind; '
          'avoid the op on the hot path if its latency matters.'),
)


@register(RULE)
def in_kernel(ctx: RuleContext) -> list[Finding]:
    """OCD009: A kernel transfers data inside its own run."""
    evidence = ctx.evidence
    copies = ctx.copies
    return [finding(
        RULE, f"{c.cause} ({fmt_bytes(c.bytes_per_run)} per run)",
        "Nothing to bind: the transfer is part of the op. Avoid the op on the hot path if its latency matters.",
        location=c.node, bytes_per_run=c.bytes_per_run, predicted=evidence.mode == "static")
        for c in copies if c.kind == IN_KERNEL]
