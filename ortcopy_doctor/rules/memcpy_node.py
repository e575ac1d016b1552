"""OCD003 memcpy-node: ORT inserted a Memcpy node."""

from __future__ import annotations

from ortcopy_doctor.model.format import fmt_bytes, fmt_shape
from ortcopy_doctor.model.findings import Finding, Severity
from ortcopy_doctor.model.vocabulary import MEMCPY_NODE
from ortcopy_doctor.rules.registry import Rule, RuleContext, finding, register

RULE = Rule(
    id="OCD003", slug="memcpy-node", severity=Severity.WARNING, location="node",
    title="ORT inserted a Memcpy node",
    help=('ORT inserted a MemcpyToHost/MemcpyFromHost node at a CPU/device boundary. Only a model or placement '
          'change removes it: give the CPU node(s) a device kernel. IO binding cannot remove it.'),
)


@register(RULE)
def memcpy_nodes(ctx: RuleContext) -> list[Finding]:
    """OCD003: ORT inserted a Memcpy node."""
    evidence = ctx.evidence
    copies = ctx.copies
    findings = []
    preferred = {out: n for n in evidence.nodes if n.fallback_reason == "cpu_preferred" for out in n.outputs}
    for copy in copies:
        if copy.kind != MEMCPY_NODE:
            continue
        op = "MemcpyToHost" if copy.direction == "device_to_host" else "MemcpyFromHost"
        chosen = preferred.get(copy.tensor) if op == "MemcpyFromHost" else None
        fix = ("Only a model or placement change removes it: give the CPU node(s) named above a device kernel "
               "(replace the op, or change its type/opset), then re-run the check. IO binding cannot remove it.")
        if chosen is not None:
            # the host side is a node ORT put on CPU by its own heuristic (it has a device kernel): no kernel to give
            fix = (f"{chosen.op_type} '{chosen.name}' has a device kernel; ORT put it on CPU by its own heuristic for "
                   "small shape computations (OCD008). Only a model change removes the copy: compute the value from "
                   "device tensors, or give it as a model input. IO binding cannot remove it.")
        findings.append(finding(
            RULE,
            f"{op} '{copy.node}' copies '{copy.tensor}' {('device→host' if op == 'MemcpyToHost' else 'host→device')} "
            f"({fmt_bytes(copy.bytes_per_run)} per run, shape {fmt_shape(copy.shape)}): {copy.cause}",
            fix,
            location=copy.node, bytes_per_run=copy.bytes_per_run, predicted=evidence.mode == "static",
            tensor=copy.tensor, direction=copy.direction))
    return findings
