"""Rules: small units that read the evidence (and the copies derived from it) and return findings.

Each rule has an id, a slug, a severity and a message that says how to fix what it found.
"""

from __future__ import annotations

import enum
from collections.abc import Callable
from dataclasses import dataclass, field

from .analysis import FEED, FETCH, IN_KERNEL, MEMCPY_NODE, Copy, GraphView
from .evidence import Evidence
from .providers import CPU, is_device, short


class Severity(str, enum.Enum):
    ERROR = "error"
    WARNING = "warning"
    INFO = "info"

    @property
    def rank(self) -> int:
        return {"error": 3, "warning": 2, "info": 1}[self.value]


@dataclass(frozen=True)
class Rule:
    id: str
    slug: str
    severity: Severity
    title: str


@dataclass
class Finding:
    rule: str  # id, e.g. OCD001
    slug: str
    severity: str
    title: str
    message: str
    fix: str
    location: str  # node or tensor name ("" for the session)
    bytes_per_run: int | None = None
    predicted: bool = False
    details: dict[str, object] = field(default_factory=dict)


EP_NOT_ACTIVE = Rule("OCD001", "ep-not-active", Severity.ERROR, "Requested execution provider is not active")
CPU_FALLBACK = Rule("OCD002", "cpu-fallback", Severity.WARNING, "Node falls back to CPU")
MEMCPY_NODE_RULE = Rule("OCD003", "memcpy-node", Severity.WARNING, "ORT inserted a Memcpy node")
FEED_COPY = Rule("OCD004", "feed-copy", Severity.WARNING, "Input is copied host-to-device on every run")
FETCH_COPY = Rule("OCD005", "fetch-copy", Severity.WARNING, "Output is copied device-to-host on every run")
UNBINDABLE_OUTPUT = Rule("OCD006", "unbindable-output", Severity.INFO, "Output cannot be bound on the device")
CPU_ONLY_INPUT = Rule("OCD007", "cpu-only-input", Severity.INFO, "Input is consumed only on CPU")
CPU_PREFERRED = Rule("OCD008", "cpu-preferred-node", Severity.INFO, "ORT placed a shape computation on CPU on purpose")
IN_KERNEL_TRANSFER = Rule("OCD009", "in-kernel-transfer", Severity.INFO, "A kernel transfers data inside its own run")
UNEXPLAINED_TRANSFER = Rule("OCD010", "unexplained-transfer", Severity.WARNING,
                            "The transfer census saw a copy no finding explains")
CENSUS_MISMATCH = Rule("OCD011", "census-mismatch", Severity.WARNING,
                       "The transfer census disagrees with the profile or the feeds")

# The project's home (also pyproject's [project.urls]) and the rules page, one section per rule (docs/rules.md).
PROJECT_URL = "https://github.com/ortcopy-doctor/ortcopy-doctor"
RULES_DOC_URL = f"{PROJECT_URL}/blob/main/docs/rules.md"


def rule_help_uri(rule: Rule) -> str:
    """The rule's section of docs/rules.md (GitHub's anchor of the heading ``## OCD001 ep-not-active``)."""
    return f"{RULES_DOC_URL}#{rule.id.lower()}-{rule.slug}"


RULES = [EP_NOT_ACTIVE, CPU_FALLBACK, MEMCPY_NODE_RULE, FEED_COPY, FETCH_COPY, UNBINDABLE_OUTPUT, CPU_ONLY_INPUT,
         CPU_PREFERRED, IN_KERNEL_TRANSFER, UNEXPLAINED_TRANSFER, CENSUS_MISMATCH]


def _finding(rule: Rule, message: str, fix: str, location: str, bytes_per_run: int | None = None,
             predicted: bool = False, **details: object) -> Finding:
    return Finding(rule=rule.id, slug=rule.slug, severity=rule.severity.value, title=rule.title, message=message,
                   fix=fix, location=location, bytes_per_run=bytes_per_run, predicted=predicted, details=dict(details))


def fmt_bytes(n: int | None) -> str:
    if n is None:
        return "unknown size"
    size = float(n)
    for unit in ("B", "KB", "MB", "GB"):
        if size < 1000 or unit == "GB":
            return f"{int(size)} {unit}" if unit == "B" else f"{size:.1f} {unit}"
        size /= 1000
    return f"{n} B"


def fmt_total_bytes(sizes: list[int | None]) -> str:
    """The sum of copy sizes, saying where some (or all) are unknown instead of counting them as 0 B."""
    known = [n for n in sizes if n is not None]
    unknown = len(sizes) - len(known)
    if not unknown:
        return fmt_bytes(sum(known))
    if not known:
        return "size unknown"
    return f"{fmt_bytes(sum(known))} + {unknown} of unknown size"


def fmt_shape(shape: list[int | str] | None) -> str:
    """``[32, 512]``; "unknown" where no shape is known (never "None")."""
    return "unknown" if shape is None else str(list(shape))


def ep_not_active(evidence: Evidence, copies: list[Copy]) -> list[Finding]:
    session = evidence.session
    missing = [p for p in session.requested_providers if p != CPU and p not in session.active_providers]
    if not missing:
        return []
    provider = missing[0]
    reason = session.ep_failure or "ORT gave no reason"
    return [_finding(
        EP_NOT_ACTIVE,
        f"{provider} was requested but the session runs on {', '.join(short(p) for p in session.active_providers)}: {reason}",
        "Install the CUDA and cuDNN libraries this onnxruntime-gpu build needs (see `ortcopy-doctor env`), "
        "or pass --provider cpu to audit the CPU path on purpose",
        location="session", provider=provider, reason=reason)]


def cpu_fallback(evidence: Evidence, copies: list[Copy]) -> list[Finding]:
    primary = evidence.session.active_providers[0] if evidence.session.active_providers else CPU
    if not is_device(primary):
        return []
    findings = []
    for node in evidence.nodes:
        if node.provider != CPU or node.fallback_reason == "cpu_preferred":
            continue
        crossing_in = [c.tensor for c in copies if c.kind == MEMCPY_NODE and c.direction == "device_to_host"
                       and c.tensor in node.inputs]
        crossing_out = [c.tensor for c in copies if c.kind == MEMCPY_NODE and c.direction == "host_to_device"
                        and c.tensor in node.outputs]
        reason = node.fallback_reason or "other"
        findings.append(_finding(
            CPU_FALLBACK,
            f"{node.op_type} '{node.name}' runs on CPU: {node.fallback_detail or 'no reason logged'}"
            + (f"; tensors copied to it: {', '.join(crossing_in)}" if crossing_in else "")
            + (f"; tensors copied back from it: {', '.join(crossing_out)}" if crossing_out else ""),
            _fallback_fix(node.op_type, reason, short(primary)),
            location=node.name, predicted=evidence.mode == "static", op_type=node.op_type, reason=reason,
            copied_in=crossing_in, copied_out=crossing_out, graph=node.graph))
    return findings


def _fallback_fix(op_type: str, reason: str, provider: str) -> str:
    if reason == "no_kernel":
        return (f"Replace {op_type} with ops that have {provider} kernels (re-export the model, or rewrite it "
                f"with equivalent ops), or move it to pre/post-processing outside the model")
    return f"Check why ORT kept {op_type} on CPU in the verbose log (evidence.session.log)"


def memcpy_nodes(evidence: Evidence, copies: list[Copy]) -> list[Finding]:
    findings = []
    for copy in copies:
        if copy.kind != MEMCPY_NODE:
            continue
        op = "MemcpyToHost" if copy.direction == "device_to_host" else "MemcpyFromHost"
        findings.append(_finding(
            MEMCPY_NODE_RULE,
            f"{op} '{copy.node}' copies '{copy.tensor}' {('device→host' if op == 'MemcpyToHost' else 'host→device')} "
            f"({fmt_bytes(copy.bytes_per_run)} per run, shape {fmt_shape(copy.shape)}): {copy.cause}",
            "Only a model or placement change removes it: give the CPU node(s) named above a device kernel "
            "(replace the op, or change its type/opset), then re-run the check. IO binding cannot remove it.",
            location=copy.node, bytes_per_run=copy.bytes_per_run, predicted=evidence.mode == "static",
            tensor=copy.tensor, direction=copy.direction))
    return findings


def feed_copies(evidence: Evidence, copies: list[Copy]) -> list[Finding]:
    return [_finding(
        FEED_COPY,
        f"Input '{c.tensor}' ({c.dtype}{fmt_shape(c.shape) if c.shape is not None else ', shape unknown'}) is copied host→device on every run ({fmt_bytes(c.bytes_per_run)}): {c.cause}",
        f"Bind it on the device: `binding.bind_ortvalue_input('{c.tensor}', ort.OrtValue.ortvalue_from_numpy(x, 'cuda', "
        f"{evidence.session.device_id}))` and run with `session.run_with_iobinding(binding)` (see the binding code)",
        location=c.tensor, bytes_per_run=c.bytes_per_run, predicted=evidence.mode == "static")
        for c in copies if c.kind == FEED]


def fetch_copies(evidence: Evidence, copies: list[Copy]) -> list[Finding]:
    return [_finding(
        FETCH_COPY,
        f"Output '{c.tensor}' is copied device→host on every run ({fmt_bytes(c.bytes_per_run)}): {c.cause}",
        f"Bind it on the device (`binding.bind_output('{c.tensor}', 'cuda')` or a pre-allocated OrtValue) and copy "
        "to host only where the caller needs host data",
        location=c.tensor, bytes_per_run=c.bytes_per_run, predicted=evidence.mode == "static")
        for c in copies if c.kind == FETCH]


def unbindable_outputs(evidence: Evidence, copies: list[Copy]) -> list[Finding]:
    return [_finding(
        UNBINDABLE_OUTPUT,
        f"Output '{v.name}' is a {v.type_string}: IO binding cannot hold it on the device "
        "(run_with_iobinding fails with 'Unsupported OrtValue type')",
        "Leave it out of the IO binding; read it with a plain session.run() call or change the model to output a tensor",
        location=v.name) for v in evidence.model.outputs if v.kind in ("sequence", "map", "optional")]


def cpu_only_inputs(evidence: Evidence, copies: list[Copy]) -> list[Finding]:
    primary = evidence.session.active_providers[0] if evidence.session.active_providers else CPU
    if not is_device(primary):
        return []
    view = GraphView.of(evidence)
    findings = []
    for value in evidence.model.inputs:
        uses = view.consumers.get(value.name, [])
        if uses and not any(view.reads_on_device(u) for u in uses):
            readers = ", ".join(f"{u.node.op_type} '{u.node.name}'" for u in uses)
            findings.append(_finding(
                CPU_ONLY_INPUT,
                f"Input '{value.name}' is read only in host memory (by {readers}): it is not copied, and binding it on "
                f"{short(primary)} would add a copy",
                f"Keep it in host memory: `binding.bind_cpu_input('{value.name}', array)`",
                location=value.name, predicted=evidence.mode == "static"))
    return findings


def cpu_preferred(evidence: Evidence, copies: list[Copy]) -> list[Finding]:
    return [_finding(
        CPU_PREFERRED,
        f"{n.op_type} '{n.name}' runs on CPU because ORT judged the CPU path faster for this small shape computation",
        "Nothing to do: this is ORT's own choice and adds no Memcpy node", location=n.name,
        predicted=evidence.mode == "static") for n in evidence.nodes if n.fallback_reason == "cpu_preferred"]


def in_kernel(evidence: Evidence, copies: list[Copy]) -> list[Finding]:
    return [_finding(
        IN_KERNEL_TRANSFER, f"{c.cause} ({fmt_bytes(c.bytes_per_run)} per run)",
        "Nothing to bind: the transfer is part of the op. Avoid the op on the hot path if its latency matters.",
        location=c.node, bytes_per_run=c.bytes_per_run, predicted=evidence.mode == "static")
        for c in copies if c.kind == IN_KERNEL]


_WHERE = {"feed": "before the run's first node (feed phase)", "fetch": "after the run's last node (fetch phase)",
          "outside": "outside every run of the session", "between_nodes": "inside a run but in no node's event"}


def unexplained_transfers(evidence: Evidence, copies: list[Copy]) -> list[Finding]:
    """OCD010: a host<->device copy the census saw that no other finding predicted: listed, never dropped."""
    from .transfers import census_report

    census = census_report(evidence, copies)
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
        findings.append(_finding(
            UNEXPLAINED_TRANSFER,
            f"{g.count_per_run:g} {arrow} cop{'y' if g.count_per_run == 1 else 'ies'} of {fmt_bytes(round(g.bytes_per_run))} "
            f"{per_run}{tensor}, {g.src_kind} → {g.dst_kind}, issued {where}: no finding of this report predicted it",
            "Look the node up in the placement table and the ORT verbose log (evidence.session.log); if it is an op "
            "reading or writing host memory itself, treat it like an in-kernel transfer. Report it to ortcopy-doctor "
            "if the model is shareable.",
            location=g.node or g.tensor or g.kind, bytes_per_run=round(g.bytes_per_run), kind=g.kind,
            direction=g.direction, count_per_run=g.count_per_run))
    return findings


def census_mismatches(evidence: Evidence, copies: list[Copy]) -> list[Finding]:
    """OCD011: a failed consistency check of the census (bytes vs the profile's output sizes or the feeds)."""
    from .transfers import ConsistencyCheck, census_report

    census = census_report(evidence, copies)
    if census is None:
        return []
    failed: dict[tuple[str, str], list[ConsistencyCheck]] = {}
    for check in census.mismatches:
        failed.setdefault((check.check, check.subject), []).append(check)
    findings = []
    for (name, subject), checks in failed.items():
        first = checks[0]
        findings.append(_finding(
            CENSUS_MISMATCH,
            f"{first.detail} (run {', '.join(str(c.run) for c in checks)})",
            "The numbers of this report for it are not ground truth: trust the census (the Transfer census section) "
            "and check the ORT version; report the mismatch to ortcopy-doctor if it repeats.",
            location=subject, check=name, expected=first.expected, observed=first.observed))
    return findings


ALL_RULES: list[Callable[[Evidence, list[Copy]], list[Finding]]] = [
    ep_not_active, cpu_fallback, memcpy_nodes, feed_copies, fetch_copies, unbindable_outputs, cpu_only_inputs,
    cpu_preferred, in_kernel, unexplained_transfers, census_mismatches,
]


def run_rules(evidence: Evidence, copies: list[Copy]) -> list[Finding]:
    findings: list[Finding] = []
    for rule in ALL_RULES:
        findings.extend(rule(evidence, copies))
    order = {"error": 0, "warning": 1, "info": 2}
    return sorted(findings, key=lambda f: (order[f.severity], f.rule))
