"""OCD104 session-on-cpu: A session runs on the CPU although a device provider is available."""

from __future__ import annotations

from ortcopy_doctor.model.findings import Finding, Severity
from ortcopy_doctor.rules.pipeline_sites import run_finding
from ortcopy_doctor.rules.registry import RUN, Rule, RunContext, register

RULE = Rule(
    id="OCD104", slug="session-on-cpu", severity=Severity.WARNING, location="code", report=RUN,
    title="Session on the CPU although a device provider is available",
    help=('The program created a session that runs on the CPU while the onnxruntime it used has a device provider '
          'that loads: no `providers` given, none of the device named, or the device provider failed to load. '
          'Create it with the device provider first (and make it load); whether the device is faster for the model '
          'is for `ortcopy-doctor check` to measure.'),
)


@register(RULE)
def session_on_cpu(ctx: RunContext) -> list[Finding]:
    """OCD104: Session on the CPU although a device provider is available."""
    return [run_finding(RULE, f.line, f.fix, site=f.created_at, fallback=f.session, subject=f.session,
                        session=f.session, available=f.available, cause=f.cause)
            for f in ctx.report.providers]
