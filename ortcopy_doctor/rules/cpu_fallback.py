"""OCD002 cpu-fallback: Node falls back to CPU."""

from __future__ import annotations

from collections.abc import Iterable

from ortcopy_doctor.knowledge.providers import CPU, is_device, short
from ortcopy_doctor.model.findings import Finding, Severity
from ortcopy_doctor.model.vocabulary import MEMCPY_NODE
from ortcopy_doctor.rules.registry import Rule, RuleContext, finding, register

RULE = Rule(
    id="OCD002", slug="cpu-fallback", severity=Severity.WARNING, location="node",
    title="Node falls back to CPU",
    help=('A node has no kernel on the device provider and runs on CPU, which costs a copy to it and one back. '
          'Replace the op with ones the provider has kernels for, or move it out of the model.'),
)


def _fallback_fix(op_type: str, reason: str, provider: str, domain: str = "") -> str:
    if reason == "no_kernel" and domain == "ai.onnx.ml":
        # no ORT build has a device kernel for the ai.onnx.ml ops: re-exporting cannot move them
        return (f"{op_type} is an ai.onnx.ml op (a scikit-learn pipeline's): no onnxruntime build has a device "
                f"kernel for it, so re-exporting cannot move it; run this model on the CPU provider "
                f"(providers=['CPUExecutionProvider']) unless the rest of it gains more on {provider} than the copies "
                "cost (check compares the two where CUDA is active: OCD014)")
    if reason == "no_kernel":
        return (f"Replace {op_type} with ops that have {provider} kernels (re-export the model, or rewrite it "
                f"with equivalent ops), or move it to pre/post-processing outside the model")
    return f"Check why ORT kept {op_type} on CPU in the verbose log (evidence.session.log)"


def _positions(tensors: list[str]) -> dict[str, list[int]]:
    at: dict[str, list[int]] = {}
    for i, t in enumerate(tensors):
        at.setdefault(t, []).append(i)
    return at


def _in_order(tensors: list[str], at: dict[str, list[int]], names: Iterable[str]) -> list[str]:
    """The entries of ``tensors`` that are in ``names``, in ``tensors``' order (repeats kept), found through the
    index ``at`` rather than by scanning ``tensors`` once per node."""
    hits = [i for t in names for i in at.get(t, ())]
    if len(hits) > 1:
        hits = sorted(set(hits))  # a tensor named twice (or at two places) is listed once per place
    return [tensors[i] for i in hits]


@register(RULE)
def cpu_fallback(ctx: RuleContext) -> list[Finding]:
    """OCD002: Node falls back to CPU."""
    evidence = ctx.evidence
    copies = ctx.copies
    primary = evidence.session.active_providers[0] if evidence.session.active_providers else CPU
    if not is_device(primary):
        return []
    # Memcpy copies per direction, in the copies' order: looked up per node (not scanned: a model can have
    # thousands of fallbacks and as many copies).
    to_host = [c.tensor for c in copies if c.kind == MEMCPY_NODE and c.direction == "device_to_host"]
    to_device = [c.tensor for c in copies if c.kind == MEMCPY_NODE and c.direction == "host_to_device"]
    to_host_at, to_device_at = _positions(to_host), _positions(to_device)
    findings = []
    for node in evidence.nodes:
        if node.provider != CPU or node.fallback_reason == "cpu_preferred":
            continue
        crossing_in = _in_order(to_host, to_host_at, node.inputs)
        crossing_out = _in_order(to_device, to_device_at, node.outputs)
        reason = node.fallback_reason or "other"
        findings.append(finding(
            RULE,
            f"{node.op_type} '{node.name}' runs on CPU: {node.fallback_detail or 'no reason logged'}"
            + (f"; tensors copied to it: {', '.join(crossing_in)}" if crossing_in else "")
            + (f"; tensors copied back from it: {', '.join(crossing_out)}" if crossing_out else ""),
            _fallback_fix(node.op_type, reason, short(primary), node.domain),
            location=node.name, predicted=evidence.mode == "static", op_type=node.op_type, reason=reason,
            copied_in=crossing_in, copied_out=crossing_out, graph=node.graph))
    return findings
