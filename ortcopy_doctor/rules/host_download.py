"""OCD106 host-download: An output the program's code reads on the host crosses PCIe each iteration."""

from __future__ import annotations

from ortcopy_doctor.model.findings import Finding, Severity
from ortcopy_doctor.model.vocabulary import DEVICE_TO_HOST
from ortcopy_doctor.rules.host_upload import edge_findings
from ortcopy_doctor.rules.registry import RUN, Rule, RunContext, register

RULE = Rule(
    id="OCD106", slug="host-download", severity=Severity.INFO, location="code", report=RUN,
    title="Host download of a program's output",
    help=('An output of a session is read by the program\'s host code (no other session takes it) and copied '
          'device to host on its calls. IO binding cannot remove it: post-processing on the device (torch or cupy '
          'via DLPack) can, bringing back only what the host needs.'),
)


@register(RULE)
def host_download(ctx: RunContext) -> list[Finding]:
    """OCD106: Host download of a program's output."""
    return edge_findings(ctx, RULE, DEVICE_TO_HOST)
