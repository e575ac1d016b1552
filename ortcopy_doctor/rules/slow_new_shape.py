"""OCD107 slow-new-shape: The first call of a session at an input shape is much slower than its later calls."""

from __future__ import annotations

from ortcopy_doctor.model.shape_switch import shape_switch_costs
from ortcopy_doctor.model.findings import Finding, Severity
from ortcopy_doctor.model.pipeline import NEW_SHAPE_MIN_EXCESS_MS, fmt_ms, shape_message
from ortcopy_doctor.rules.pipeline_sites import run_finding
from ortcopy_doctor.rules.registry import RUN, Rule, RunContext, register

RULE = Rule(
    id="OCD107", slug="slow-new-shape", severity=Severity.INFO, location="code", report=RUN,
    title="First call at a new input shape is slow",
    help=('The first call of a session at an input shape it has not run before took much longer than its later '
          'calls at that shape (kernels chosen, memory planned, CUDA graphs or TensorRT engines built for it). Warm '
          'the session up at the shapes the program will feed before the loop, or feed shapes it has run. A session '
          'whose every change of shape is slow (shape-switch-cost) is no finding here: warming up does not help it.'),
)


@register(RULE)
def slow_new_shape(ctx: RunContext) -> list[Finding]:
    """OCD107: First call at a new input shape is slow."""
    findings = []
    replays = {r.session: r for r in ctx.observations.replays}
    for n, p in enumerate(ctx.report.pipelines, 1):
        switching = {c.session for c in shape_switch_costs(p, replays)}  # OCD109 names their cost and its fix
        for s in p.new_shapes:
            if s.session in switching:
                continue
            base = s.later_median_ms if s.later_median_ms is not None else s.steady_median_ms
            if base is None or s.ms - base < NEW_SHAPE_MIN_EXCESS_MS:
                continue
            findings.append(run_finding(
                RULE, f"the {shape_message(s)}: {fmt_ms(s.ms - base)} ms more",
                f"warm {s.session} up at shape {s.shape} before the loop, or feed shapes it has already run",
                site=s.site, fallback=s.session, subject=f"{s.session}:{s.shape}", pipeline=n, session=s.session,
                shape=s.shape, iteration=s.iteration, ms=s.ms, baseline_ms=base))
    return findings
