"""OCD109 shape-switch-cost: Every change of input shape of a CUDA session costs much more than a call at a repeated
shape (measured by the replay)."""

from __future__ import annotations

from ortcopy_doctor.model.shape_switch import shape_switch_costs
from ortcopy_doctor.model.findings import Finding, Severity
from ortcopy_doctor.rules.pipeline_sites import run_finding, session_site
from ortcopy_doctor.rules.registry import RUN, Rule, RunContext, register

RULE = Rule(
    id="OCD109", slug="shape-switch-cost", severity=Severity.WARNING, location="code", report=RUN,
    title="Every change of input shape is slow",
    help=('A CUDA session\'s calls at input shapes it had run before are much slower in the program (at least 3x and '
          '5 ms) than the same calls when the shape repeats, as run\'s replay after the program measured: ORT '
          'searches cuDNN\'s convolution algorithms again at each change (cudnn_conv_algo_search EXHAUSTIVE, its '
          'default). Pad the inputs to one shape (or a few); where the replay measured it faster, set '
          'cudnn_conv_algo_search HEURISTIC, or run the session on the CPU.'),
)


@register(RULE)
def shape_switch_cost(ctx: RunContext) -> list[Finding]:
    """OCD109: Every change of input shape is slow."""
    replays = {r.session: r for r in ctx.observations.replays}
    findings = []
    for n, p in enumerate(ctx.report.pipelines, 1):
        for cost in shape_switch_costs(p, replays):
            findings.append(run_finding(
                RULE, cost.words,
                "make the shape repeat (pad the inputs to one shape, or a few), or take the measured option the "
                "message names (cudnn_conv_algo_search HEURISTIC, or the CPU provider)",
                site=session_site(ctx.observations, cost.session), fallback=cost.session, subject=cost.session,
                pipeline=n, session=cost.session, extra_ms_per_change=cost.extra_ms))
    return findings
