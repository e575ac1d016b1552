"""OCD102 state-round-trip: State carried from one call of a session to the next goes through the host."""

from __future__ import annotations

from ortcopy_doctor.model.findings import Finding, Severity
from ortcopy_doctor.model.pipeline import ROUND_TRIP, HandOff
from ortcopy_doctor.rules.pipeline_sites import copies_apply, hand_off_bytes_per_iteration, hand_off_sites, run_finding
from ortcopy_doctor.rules.registry import RUN, Rule, RunContext, register

RULE = Rule(
    id="OCD102", slug="state-round-trip", severity=Severity.WARNING, location="code", report=RUN,
    title="State carried between calls goes through the host",
    help=('An output of a session\'s call is fed back as an input of its next call (recurrent state, a KV cache), '
          'and goes device to host and back between the two: keep it on the device with two OrtValues bound with '
          'IO binding and swapped between calls. run prints the code for it.'),
)


def state_findings(ctx: RunContext, rule: Rule, kind: str) -> list[Finding]:
    """The state hand-offs of ``kind`` (a round trip, a possible one) of every pipeline, as findings of ``rule``."""
    findings = []
    for n, p in enumerate(ctx.report.pipelines, 1):
        if not copies_apply(ctx.report, p):
            continue  # predicted for the device, and it stays on the CPU, faster there
        trips: list[HandOff] = [h for h in p.state if h.kind == kind]
        for h in trips:
            site, _ = hand_off_sites(ctx.observations, h)
            findings.append(run_finding(
                rule, h.message, h.fix, site=site, fallback=h.producer,
                subject=f"{h.producer}:{h.output} -> {h.input}",
                bytes_per_iteration=hand_off_bytes_per_iteration(h, p.iterations),
                predicted=p.bytes_predicted,
                pipeline=n, session=h.producer, output=h.output, input=h.input, calls=h.calls, basis=h.basis))
    return findings


@register(RULE)
def state_round_trip(ctx: RunContext) -> list[Finding]:
    """OCD102: State carried between calls goes through the host."""
    return state_findings(ctx, RULE, ROUND_TRIP)


__all__ = ["RULE", "state_findings", "state_round_trip"]
