"""OCD008 cpu-preferred-node: ORT placed a shape computation on CPU on purpose."""

from __future__ import annotations

from ortcopy_doctor.model.findings import Finding, Severity
from ortcopy_doctor.rules.registry import Rule, RuleContext, finding, register

RULE = Rule(
    id="OCD008", slug="cpu-preferred-node", severity=Severity.INFO, location="node",
    title="ORT placed a shape computation on CPU on purpose",
    help=('ORT placed a small shape computation on CPU on purpose; it adds no Memcpy node. Nothing to do.'),
)


@register(RULE)
def cpu_preferred(ctx: RuleContext) -> list[Finding]:
    """OCD008: ORT placed a shape computation on CPU on purpose."""
    evidence = ctx.evidence
    return [finding(
        RULE,
        f"{n.op_type} '{n.name}' runs on CPU because ORT judged the CPU path faster for this small shape computation",
        "Nothing to do: this is ORT's own choice and adds no Memcpy node", location=n.name,
        predicted=evidence.mode == "static") for n in evidence.nodes if n.fallback_reason == "cpu_preferred"]
