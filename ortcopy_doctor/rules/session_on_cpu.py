"""OCD104 session-on-cpu: A session runs on the CPU although a device provider is available."""

from __future__ import annotations

from ortcopy_doctor.model.findings import Finding, Severity
from ortcopy_doctor.rules.pipeline_sites import kept_on_cpu, run_finding
from ortcopy_doctor.rules.registry import RUN, Rule, RunContext, register

RULE = Rule(
    id="OCD104", slug="session-on-cpu", severity=Severity.WARNING, location="code", report=RUN,
    title="Session on the CPU although a device provider is available",
    help=('The program created a session that runs on the CPU while the onnxruntime it used has a device provider '
          'that loads: no `providers` given, none of the device named, or the device provider failed to load. '
          'Create it with the device provider first (and make it load). Where run replayed the session on both '
          'providers after the program and the CPU was faster at the program\'s inputs, it is no finding: keep it.'),
)


@register(RULE)
def session_on_cpu(ctx: RunContext) -> list[Finding]:
    """OCD104: Session on the CPU although a device provider is available."""
    keep = kept_on_cpu(ctx.report)
    return [run_finding(RULE, f.line, f.fix, site=f.created_at, fallback=f.session, subject=f.session,
                        session=f.session, available=f.available, cause=f.cause, faster=f.faster)
            for f in ctx.report.providers if not f.on_device and f.session not in keep]
