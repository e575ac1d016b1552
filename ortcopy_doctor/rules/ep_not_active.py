"""OCD001 ep-not-active: Requested execution provider is not active."""

from __future__ import annotations

from ortcopy_doctor.knowledge.providers import CPU, short
from ortcopy_doctor.model.findings import Finding, Severity
from ortcopy_doctor.rules.registry import Rule, RuleContext, finding, register

RULE = Rule(
    id="OCD001", slug="ep-not-active", severity=Severity.ERROR, location="session",
    title="Requested execution provider is not active",
    help=('The requested execution provider did not load, so the session runs elsewhere. Install the libraries '
          'the onnxruntime-gpu build needs (`ortcopy-doctor env` lists them), or request the provider you mean '
          'to audit.'),
)


@register(RULE)
def ep_not_active(ctx: RuleContext) -> list[Finding]:
    """OCD001: Requested execution provider is not active."""
    evidence = ctx.evidence
    session = evidence.session
    missing = [p for p in session.requested_providers if p != CPU and p not in session.active_providers]
    if not missing:
        return []
    provider = missing[0]
    reason = session.ep_failure or "ORT gave no reason"
    return [finding(
        RULE,
        f"{provider} was requested but the session runs on {', '.join(short(p) for p in session.active_providers)}: {reason}",
        "Install the CUDA and cuDNN libraries this onnxruntime-gpu build needs (see `ortcopy-doctor env`), "
        "or pass --provider cpu to audit the CPU path on purpose",
        location="session", provider=provider, reason=reason)]
