"""OCD014 cpu-provider-faster: The CPU provider is faster than CUDA for this model at these inputs."""

from __future__ import annotations

from ortcopy_doctor.knowledge.providers import short
from ortcopy_doctor.model.findings import Finding, Severity
from ortcopy_doctor.rules.registry import Rule, RuleContext, finding, register

RULE = Rule(
    id="OCD014", slug="cpu-provider-faster", severity=Severity.WARNING, location="session",
    title="The CPU provider is faster than CUDA for this model at these inputs",
    help=('Timed in turn at the same inputs (copies included), the CPU provider ran the model faster than CUDA: '
          'launches and synchronisation cost more than the work (small and sequential models: VAD, tiny '
          'classifiers). Run it on the CPU provider, or measure again at the batch sizes you serve.'),
)


@register(RULE)
def cpu_provider_faster(ctx: RuleContext) -> list[Finding]:
    """OCD014: the CPU provider measured faster than CUDA (``evidence.provider_choice``)."""
    choice = ctx.evidence.provider_choice
    if choice is None or choice.cpu is None or not choice.cpu_faster:
        return []
    c = choice.cpu
    speedup, low, high = c.ratio, c.ratio_low, c.ratio_high  # median(CUDA) / median(CPU): above 1, the CPU wins
    return [finding(
        RULE,
        f"At {c.shape} the CPU provider runs the model in {c.other.median_ms:.3g} ms per run against "
        f"{c.used.median_ms:.3g} ms on {short(c.used.provider)} (numpy in and out, copies included, timed in turn): "
        f"the CPU is {speedup:.2f}x faster (95% CI {low:.2f}–{high:.2f}); {choice.cpu_threads}",
        "Create the session with providers=['CPUExecutionProvider'] (keep this model on the CPU provider), or "
        "check again at the batch sizes you serve (`--dim`): CUDA wins where the work outgrows its launches",
        location="session", cpu_ms=c.other.median_ms, cuda_ms=c.used.median_ms, speedup=round(speedup, 4),
        ci_low=round(low, 4), ci_high=round(high, 4), shape=c.shape)]
