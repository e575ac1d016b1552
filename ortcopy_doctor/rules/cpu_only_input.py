"""OCD007 cpu-only-input: Input is consumed only on CPU."""

from __future__ import annotations

from ortcopy_doctor.knowledge.providers import CPU, is_device, short
from ortcopy_doctor.model.findings import Finding, Severity
from ortcopy_doctor.rules.registry import Rule, RuleContext, finding, register

RULE = Rule(
    id="OCD007", slug="cpu-only-input", severity=Severity.INFO, location="input",
    title="Input is consumed only on CPU",
    help=('The input is read only in host memory: keep it there (`bind_cpu_input`); binding it on the device '
          'would add a copy.'),
)


@register(RULE)
def cpu_only_inputs(ctx: RuleContext) -> list[Finding]:
    """OCD007: Input is consumed only on CPU."""
    evidence = ctx.evidence
    primary = evidence.session.active_providers[0] if evidence.session.active_providers else CPU
    if not is_device(primary):
        return []
    view = ctx.graph
    findings = []
    for value in evidence.model.inputs:
        uses = view.consumers.get(value.name, [])
        if uses and not any(view.reads_on_device(u) for u in uses):
            readers = ", ".join(f"{u.node.op_type} '{u.node.name}'" for u in uses)
            findings.append(finding(
                RULE,
                f"Input '{value.name}' is read only in host memory (by {readers}): it is not copied, and binding it on "
                f"{short(primary)} would add a copy",
                f"Keep it in host memory: `binding.bind_cpu_input('{value.name}', array)`",
                location=value.name, predicted=evidence.mode == "static"))
    return findings
