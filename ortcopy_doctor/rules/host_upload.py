"""OCD105 host-upload: An input the program's code makes on the host crosses PCIe each iteration."""

from __future__ import annotations

from ortcopy_doctor.model.findings import Finding, Severity
from ortcopy_doctor.model.format import fmt_bytes
from ortcopy_doctor.model.pipeline import HostEdge
from ortcopy_doctor.model.vocabulary import HOST_TO_DEVICE
from ortcopy_doctor.rules.pipeline_sites import copies_apply, per_iteration, run_finding, session_site
from ortcopy_doctor.rules.registry import RUN, Rule, RunContext, register

RULE = Rule(
    id="OCD105", slug="host-upload", severity=Severity.INFO, location="code", report=RUN,
    title="Host upload of a program's input",
    help=('An input of a session is made by the program\'s host code (not by another session) and copied host to '
          'device on its calls. IO binding cannot remove it: making the input on the device (torch or cupy '
          'pre-processing handed over via DLPack) can, and bind_cpu_input with a pinned buffer makes it cheaper.'),
)


def edge_findings(ctx: RunContext, rule: Rule, direction: str) -> list[Finding]:
    """The uploads (``direction`` host_to_device) or downloads of every pipeline, as findings of ``rule``."""
    findings = []
    for n, p in enumerate(ctx.report.pipelines, 1):
        if not copies_apply(ctx.report, p):
            continue  # predicted for the device, and it stays on the CPU, faster there
        edges: list[HostEdge] = p.uploads if direction == HOST_TO_DEVICE else p.downloads
        for e in edges:
            per = per_iteration(e.bytes_per_call, e.calls, p.iterations)
            size = f"{fmt_bytes(e.bytes_per_call)}/call" if e.bytes_per_call is not None else "unknown size"
            if direction == HOST_TO_DEVICE:
                message = (f"input `{e.tensor}` of {e.session} is uploaded from host code ({size}, {e.calls} call(s) "
                           f"over {p.iterations} iteration(s))")
                fix = (f"make `{e.tensor}` on the device (torch/cupy pre-processing, handed over via DLPack) if the "
                       "upload matters; IO binding alone cannot remove it")
            else:
                message = (f"output `{e.tensor}` of {e.session} is downloaded to host code ({size}, {e.calls} "
                           f"call(s) over {p.iterations} iteration(s))")
                fix = (f"post-process `{e.tensor}` on the device (torch/cupy via DLPack) and bring back only what the "
                       "host needs, or bind it to 'cpu' only when it is read")
            findings.append(run_finding(
                rule, message, fix, site=session_site(ctx.observations, e.session), fallback=e.session,
                subject=f"{e.session}:{e.tensor}", bytes_per_iteration=per, predicted=p.bytes_predicted, pipeline=n,
                session=e.session, tensor=e.tensor, calls=e.calls, bytes_per_call=e.bytes_per_call, basis=e.basis))
    return findings


@register(RULE)
def host_upload(ctx: RunContext) -> list[Finding]:
    """OCD105: Host upload of a program's input."""
    return edge_findings(ctx, RULE, HOST_TO_DEVICE)
