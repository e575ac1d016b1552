"""OCD010 unexplained-transfer: The transfer census saw a copy no finding explains."""

from __future__ import annotations

from ortcopy_doctor.model.format import fmt_bytes
from ortcopy_doctor.model.findings import Finding, Severity
from ortcopy_doctor.rules.registry import Rule, RuleContext, finding, register

RULE = Rule(
    id="OCD010", slug="unexplained-transfer", severity=Severity.WARNING, location="census",
    title="The transfer census saw a copy no finding explains",
    help=('The transfer census traced a host<->device copy that no other finding predicted. Look at the node it '
          'was issued in (the trace export shows it on the timeline).'),
)


_WHERE = {"feed": "before the run's first node (feed phase)", "fetch": "after the run's last node (fetch phase)",
          "outside": "outside every run of the session", "between_nodes": "inside a run but in no node's event"}


@register(RULE)
def unexplained_transfers(ctx: RuleContext) -> list[Finding]:
    """OCD010: a host<->device copy the census saw that no other finding predicted: listed, never dropped."""
    census = ctx.census
    if census is None:
        return []
    runs = max(1, len(census.traced_runs))
    findings = []
    for g in census.groups:
        if g.confirms != "unexplained":
            continue
        where = (f"inside {g.op_type} '{g.node}'" + (" (a Memcpy node)" if g.kind == "memcpy_node" else "")
                 if g.node else _WHERE.get(g.kind, g.kind))
        tensor = f" (the size of '{g.tensor}')" if g.tensor and g.kind in ("feed", "fetch") else (
            f" ('{g.tensor}')" if g.tensor else "")
        arrow = "host→device" if g.direction == "host_to_device" else "device→host"
        per_run = "per traced run" if g.kind != "outside" else f"over {runs} traced run(s)"
        findings.append(finding(
            RULE,
            f"{g.count_per_run:g} {arrow} cop{'y' if g.count_per_run == 1 else 'ies'} of {fmt_bytes(round(g.bytes_per_run))} "
            f"{per_run}{tensor}, {g.src_kind} → {g.dst_kind}, issued {where}: no finding of this report predicted it",
            "Look the node up in the placement table and the ORT verbose log (evidence.session.log); if it is an op "
            "reading or writing host memory itself, treat it like an in-kernel transfer. Report it to ortcopy-doctor "
            "if the model is shareable.",
            location=g.node or g.tensor or g.kind, bytes_per_run=round(g.bytes_per_run), kind=g.kind,
            direction=g.direction, count_per_run=g.count_per_run))
    return findings
