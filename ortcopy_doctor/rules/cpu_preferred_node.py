"""OCD008 cpu-preferred-node: ORT placed a shape computation on CPU on purpose."""

from __future__ import annotations

from ortcopy_doctor.model.findings import Finding, Severity
from ortcopy_doctor.model.vocabulary import HOST_TO_DEVICE, MEMCPY_NODE
from ortcopy_doctor.rules.registry import Rule, RuleContext, finding, register

RULE = Rule(
    id="OCD008", slug="cpu-preferred-node", severity=Severity.INFO, location="node",
    title="ORT placed a shape computation on CPU on purpose",
    help=('ORT placed a small shape computation on CPU on purpose. Where a device node reads its output, a '
          'MemcpyFromHost copies it (OCD003); otherwise nothing to do.'),
)


@register(RULE)
def cpu_preferred(ctx: RuleContext) -> list[Finding]:
    """OCD008: ORT placed a shape computation on CPU on purpose."""
    evidence = ctx.evidence
    copied = {c.tensor for c in ctx.copies if c.kind == MEMCPY_NODE and c.direction == HOST_TO_DEVICE}
    findings = []
    for n in evidence.nodes:
        if n.fallback_reason != "cpu_preferred":
            continue
        moved = [out for out in n.outputs if out in copied]
        fix = ("Nothing to do: this is ORT's own choice and adds no Memcpy node" if not moved else
               f"ORT's own choice, but a device node reads its output {', '.join(repr(t) for t in moved)}: a "
               "MemcpyFromHost copies it (OCD003). Only a model change removes that copy: compute the value from "
               "device tensors, or give it as a model input")
        findings.append(finding(
            RULE,
            f"{n.op_type} '{n.name}' runs on CPU because ORT judged the CPU path faster for this small shape "
            "computation", fix, location=n.name, predicted=evidence.mode == "static"))
    return findings
