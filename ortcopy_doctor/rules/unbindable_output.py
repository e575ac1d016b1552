"""OCD006 unbindable-output: Output cannot be bound on the device."""

from __future__ import annotations

from ortcopy_doctor.model.findings import Finding, Severity
from ortcopy_doctor.rules.registry import Rule, RuleContext, finding, register

RULE = Rule(
    id="OCD006", slug="unbindable-output", severity=Severity.INFO, location="output",
    title="Output cannot be bound on the device",
    help=('A sequence, map or optional output cannot be bound on the device. Leave it out of the IO binding or '
          'change the model to output a tensor.'),
)


@register(RULE)
def unbindable_outputs(ctx: RuleContext) -> list[Finding]:
    """OCD006: Output cannot be bound on the device."""
    evidence = ctx.evidence
    return [finding(
        RULE,
        f"Output '{v.name}' is a {v.type_string}: IO binding cannot hold it on the device "
        "(run_with_iobinding fails with 'Unsupported OrtValue type')",
        "Leave it out of the IO binding; read it with a plain session.run() call or change the model to output a tensor",
        location=v.name) for v in evidence.model.outputs if v.kind in ("sequence", "map", "optional")]
