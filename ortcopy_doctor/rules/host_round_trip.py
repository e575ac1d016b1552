"""OCD101 host-round-trip: An output of one session goes to the host and back to the device as another's input."""

from __future__ import annotations

from ortcopy_doctor.model.findings import Finding, Severity
from ortcopy_doctor.rules.pipeline_sites import copies_apply, hand_off_bytes_per_iteration, hand_off_sites, run_finding
from ortcopy_doctor.rules.registry import RUN, Rule, RunContext, register

RULE = Rule(
    id="OCD101", slug="host-round-trip", severity=Severity.WARNING, location="code", report=RUN,
    title="Host round trip between two sessions",
    help=('An output of one session is copied device to host after its call and back host to device as the input '
          'of a later session\'s call: two copies over PCIe per call that the program can drop by handing the value '
          'over on the device (an OrtValue with IO binding, or a torch/cupy tensor via DLPack). run prints the code '
          'for it, checked next to plain run() where it could be.'),
)


@register(RULE)
def host_round_trip(ctx: RunContext) -> list[Finding]:
    """OCD101: Host round trip between two sessions."""
    findings = []
    for n, p in enumerate(ctx.report.pipelines, 1):
        if not copies_apply(ctx.report, p):
            continue  # predicted for the device, and it stays on the CPU, faster there
        for h in p.round_trips:
            site, producer_site = hand_off_sites(ctx.observations, h)
            findings.append(run_finding(
                RULE, h.message, h.fix, site=site, fallback=h.consumer,
                subject=f"{h.producer}:{h.output} -> {h.consumer}:{h.input}",
                bytes_per_iteration=hand_off_bytes_per_iteration(h, p.iterations),
                predicted=p.bytes_predicted,
                pipeline=n, producer=h.producer, output=h.output, consumer=h.consumer, input=h.input, calls=h.calls,
                producer_site=producer_site, basis=h.basis))
    return findings
