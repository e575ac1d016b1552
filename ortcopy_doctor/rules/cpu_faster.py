"""OCD108 cpu-faster: A session runs on the device although the CPU was measured faster for it."""

from __future__ import annotations

from ortcopy_doctor.model.findings import Finding, Severity
from ortcopy_doctor.rules.pipeline_sites import run_finding
from ortcopy_doctor.rules.registry import RUN, Rule, RunContext, register

RULE = Rule(
    id="OCD108", slug="cpu-faster", severity=Severity.WARNING, location="code", report=RUN,
    title="Session on the device although the CPU is faster for it",
    help=('run replayed the session after the program on the provider it ran on and on the CPU, with the program\'s '
          'own inputs, and the CPU was faster at every input signature: the copies of its inputs and outputs and the '
          'kernel launches cost more than the device saves. Create it with the CPU provider.'),
)


@register(RULE)
def cpu_faster(ctx: RunContext) -> list[Finding]:
    """OCD108: Session on the device although the CPU is faster for it."""
    return [run_finding(RULE, f.line, f.fix, site=f.created_at, fallback=f.session, subject=f.session,
                        session=f.session, provider=f.available, measured=f.measured)
            for f in ctx.report.providers if f.on_device]
