"""The measured binding variants compared: labels, CUDA-graph blockers, the copies each variant promises, and
the ratio of medians of a variant against plain ``run()`` (read by the recommendation and by the advice view).

Pure: reads the evidence, the plan and the copies; needs no onnxruntime.
"""

from __future__ import annotations

import msgspec
import math

from ortcopy_doctor.analysis.copies import GraphView, declared_size
from ortcopy_doctor.model.copies import Copy
from ortcopy_doctor.model.vocabulary import IN_KERNEL, MEMCPY_NODE, GraphBlocker, VariantVerdict
from ortcopy_doctor.analysis.binding import DEVICE, HOST, UNBOUND
from ortcopy_doctor.model.binding import BindingPlan
from ortcopy_doctor.model.evidence import BindingMeasurement, Evidence, VariantTiming
from ortcopy_doctor.knowledge.providers import CPU, is_device
from ortcopy_doctor.analysis.stats import RatioCI, median_ci, ratio_ci, summary_ratio_ci

H2D = "host_to_device"
D2H = "device_to_host"

CONTROL_FLOW = ("If", "Loop", "Scan")
MEMCPY_OPS = ("MemcpyToHost", "MemcpyFromHost")

VARIANT_LABELS = {
    "plain": "plain run() with numpy",
    "plan": "binding plan (generated infer())",
    "all_device": "everything bound on the device",
    "cuda_graph": "CUDA graph (enable_cuda_graph=1)",
    "cpu_provider": "the CPU provider (providers=['CPUExecutionProvider'])",
}

RECOMMENDED_LABELS = {"plan": "the binding plan (its code under Binding code)",
                      "all_device": "everything bound on the device (its code under Binding code)",
                      "cuda_graph": "the CUDA graph (enable_cuda_graph=1; its code under Binding code)",
                      "cpu_provider": "the CPU provider (providers=['CPUExecutionProvider'])"}

SHORT_LABELS = {"plain": "plain", "plan": "plan", "all_device": "all on device", "cuda_graph": "CUDA graph",
                "cpu_provider": "the CPU provider"}

Totals = dict[str, tuple[int, int]]


# --- CUDA-graph readiness ---------------------------------------------------------------------------------------


class Blocker(msgspec.Struct, frozen=True):
    """One reason the model cannot run as a captured CUDA graph."""

    kind: GraphBlocker
    subject: str
    detail: str

    def text(self) -> str:
        """The blocker as one line: kind, subject and detail."""
        return f"{self.kind.replace('_', ' ')} '{self.subject}': {self.detail}"


def cuda_graph_blockers(evidence: Evidence, plan: BindingPlan, copies: list[Copy]) -> list[Blocker]:
    """Everything that keeps this model from running as a captured CUDA graph, all at once.

    ORT refuses graph capture at session creation where a node is not on the CUDA EP or a Memcpy node was
    inserted (docs/ort-notes.md); control flow, kernels that synchronise with the host and outputs
    whose size depends on the data cannot be replayed; every input and output must sit at a fixed device address.
    """
    active = evidence.session.active_providers
    if not active or not is_device(active[0]):
        return [Blocker(GraphBlocker.NO_DEVICE, active[0] if active else "none",
                        "the session has no active device provider, so there is no graph to capture")]
    blockers: list[Blocker] = []
    for c in copies:
        if c.kind == MEMCPY_NODE:
            blockers.append(Blocker(GraphBlocker.MEMCPY_NODE, c.node or c.tensor,
                                    f"ORT copies '{c.tensor}' {'device→host' if c.direction == D2H else 'host→device'} "
                                    "inside the run; capture needs every node on the CUDA EP"))
    for node in evidence.nodes:
        if node.op_type in MEMCPY_OPS:
            continue
        if node.provider == CPU:
            why = ("ORT kept this small shape computation on CPU" if node.fallback_reason == "cpu_preferred"
                   else (node.fallback_detail or "placed on CPU"))
            blockers.append(Blocker(GraphBlocker.CPU_NODE, node.name, f"{node.op_type} runs on CPU ({why})"))
    for node in evidence.nodes:
        if node.op_type in CONTROL_FLOW:
            blockers.append(Blocker(GraphBlocker.CONTROL_FLOW, node.name,
                                    f"{node.op_type} picks its work from data at run time; a captured graph replays one path"))
    for c in copies:
        if c.kind == IN_KERNEL:
            blockers.append(Blocker(GraphBlocker.IN_KERNEL_TRANSFER, c.node, c.cause or "the kernel synchronises with the host"))
    for e in plan.outputs:
        if e.place == UNBOUND:
            blockers.append(Blocker(GraphBlocker.UNBOUND_OUTPUT, e.name, e.reason))
        elif not e.preallocate and e.place == DEVICE:
            blockers.append(Blocker(GraphBlocker.DATA_DEPENDENT_SHAPE, e.name,
                                    "its size is known only after the run; capture needs a pre-allocated output"))
    for e in plan.inputs:
        if e.place != DEVICE:
            blockers.append(Blocker(GraphBlocker.UNBOUND_INPUT, e.name,
                                    f"kept in host memory ({e.reason}); capture needs it at a fixed device address"))
    return blockers


# --- transfers each variant should make -------------------------------------------------------------------------


def _add(totals: dict[str, list[int]], direction: str, count: int, nbytes: int | None) -> None:
    entry = totals.setdefault(direction, [0, 0])
    entry[0] += count
    entry[1] += nbytes or 0


def promised_transfers(evidence: Evidence, plan: BindingPlan, copies: list[Copy], variant: str) -> Totals:
    """direction -> (count, bytes) of host<->device transfers in one call of ``variant``, as the evidence implies.

    plain: every copy of the report. plan (and its torch/cupy flavors): what binding cannot remove. all_device:
    what binding cannot remove, plus a host→device copy of every output produced in host memory (ORT runs the
    node on CPU, then copies its result into the CUDA location the output is bound to, inside every run).
    cuda_graph: what binding cannot remove (nothing, where capture is possible).

    An input bound on CUDA that a CPU node reads is copied back to host once, when it is bound
    (``IOBinding::BindInput`` copies a bound input across devices, read from source), not in each run: those
    copies are ``bind_transfers``. They recur per call only where ``infer()`` rebinds the input, as it does for
    state swapped between runs and for a device input a CPU node reads (bound again so that new data reaches it). Seen with CUPTI on ORT 1.31.1 (tests/fixtures/binding): all_cpu_ml and
    cpu_only_inputs bound everything on CUDA and made no device→host copy in the run, only the host→device
    copies of their CPU-produced outputs.
    """
    totals: dict[str, list[int]] = {}
    if variant == "plain":
        for c in copies:
            _add(totals, c.direction, c.count_per_run, c.bytes_per_run)
        return {k: (v[0], v[1]) for k, v in totals.items()}
    for c in copies:
        if not c.removable_by_binding:
            _add(totals, c.direction, c.count_per_run, c.bytes_per_run)
    if variant in ("plan", "torch", "cupy", "all_device"):
        # Inputs bound again inside infer() pay their bind-time copy in every call: state (the swap), and a device
        # input a CPU node reads (BindingEntry.rebind; in all_device every input a CPU node reads).
        for direction, (count, nbytes) in _bind_copies(evidence, plan, variant, rebound_only=True).items():
            _add(totals, direction, count, nbytes)
    if variant == "all_device":
        for e in plan.outputs:
            if e.place == HOST:
                size = next((c.bytes_per_run for c in copies if c.tensor == e.name and c.kind == MEMCPY_NODE), None)
                if size is None:
                    size = declared_size(evidence, e.name)[2]
                _add(totals, H2D, 1, size)
    elif variant not in ("plan", "torch", "cupy", "cuda_graph"):
        raise ValueError(f"unknown variant {variant!r}")
    return {k: (v[0], v[1]) for k, v in totals.items() if v[0]}


def bind_transfers(evidence: Evidence, plan: BindingPlan, variant: str) -> Totals:
    """direction -> (count, bytes) of the copies ORT makes when ``variant`` binds its inputs (once per binding).

    ORT's ``bind_ortvalue_input``/``bind_input`` copies a CUDA tensor that a CPU node reads back to host at
    bind time, and the run then reads that host copy: one device→host copy per such input, each time it is bound.
    plan/torch/cupy bind on the device only inputs a device kernel reads; all_device binds every input there.
    """
    if variant not in ("plain", "plan", "torch", "cupy", "all_device", "cuda_graph"):
        raise ValueError(f"unknown variant {variant!r}")
    return _bind_copies(evidence, plan, variant, rebound_only=False)


def _bind_copies(evidence: Evidence, plan: BindingPlan, variant: str, rebound_only: bool) -> Totals:
    if variant == "plain" or not plan.applicable:
        return {}
    view = GraphView.of(evidence)
    feeds = {f.name: f for f in evidence.feeds}
    totals: dict[str, list[int]] = {}
    for e in plan.inputs:
        on_device = e.place == DEVICE or variant == "all_device"
        rebound = bool(e.state_pair) or e.rebind or (variant == "all_device" and e.place == HOST)
        if not on_device or (rebound_only and not rebound):
            continue
        # An input a CPU node reads lives in host memory in the session: bound on CUDA, it is copied back.
        if any(not view.reads_on_device(u) for u in view.consumers.get(e.name, [])):
            _add(totals, D2H, 1, feeds[e.name].bytes if e.name in feeds else declared_size(evidence, e.name)[2])
    return {k: (v[0], v[1]) for k, v in totals.items() if v[0]}


def is_all_cpu(evidence: Evidence) -> bool:
    """A device EP is active but every compute node runs on CPU (e.g. ai.onnx.ml ops, which have no CUDA kernels)."""
    active = evidence.session.active_providers
    compute = [n for n in evidence.nodes if n.op_type not in MEMCPY_OPS]
    return bool(active) and is_device(active[0]) and bool(compute) and all(n.provider == CPU for n in compute)


# --- comparing two variants -------------------------------------------------------------------------------------


class Comparison(msgspec.Struct, frozen=True):
    """How one variant's median compares with another's (see ``compare``)."""

    verdict: VariantVerdict  # faster, slower, within_noise, not_compared
    delta_ms: float | None = None  # other - base (negative: faster)
    text: str = ""
    ci: RatioCI | None = None  # median(base) / median(other), with its 95% interval


def _positive(samples: list[float] | None) -> bool:
    """Samples a ratio of medians can use: some, all finite, and every bootstrap median above 0."""
    return bool(samples) and all(math.isfinite(x) and x > 0 for x in samples)  # type: ignore[union-attr]


def speedup_ci(base: VariantTiming | None, other: VariantTiming | None, gpu: bool = False) -> RatioCI | None:
    """median(base)/median(other) with its 95% interval: from the raw samples (paired by round where both have
    them), else approximately from the summary quantiles (older records); None where either did not run."""
    if base is None or other is None or not base.ran or not other.ran:
        return None
    if gpu:
        if _positive(base.gpu_samples_ms) and _positive(other.gpu_samples_ms):
            return ratio_ci(base.gpu_samples_ms, other.gpu_samples_ms)  # type: ignore[arg-type]
        return None
    if _positive(base.samples_ms) and _positive(other.samples_ms):
        return ratio_ci(base.samples_ms, other.samples_ms)  # type: ignore[arg-type]
    if None in (base.median_ms, other.median_ms, base.p25_ms, base.p75_ms, other.p25_ms, other.p75_ms) or \
            not base.median_ms or not other.median_ms or base.median_ms < 0 or other.median_ms < 0:
        return None
    return summary_ratio_ci(float(base.median_ms), float(base.p25_ms), float(base.p75_ms), base.runs,  # type: ignore[arg-type]
                            float(other.median_ms), float(other.p25_ms), float(other.p75_ms), other.runs)  # type: ignore[arg-type]


def compare(base: VariantTiming | None, other: VariantTiming | None) -> Comparison:
    """``other`` against ``base`` by the 95% interval of the ratio of their medians (never by overlapping ranges)."""
    ci = speedup_ci(base, other)
    if ci is None or base is None or other is None:
        return Comparison(VariantVerdict.NOT_COMPARED)
    delta = float(other.median_ms) - float(base.median_ms)  # type: ignore[arg-type]
    text = f"{other.median_ms:.3f} ms vs {base.median_ms:.3f} ms ({fmt_delta(delta)}; {ci.text()})"
    return Comparison(ci.verdict, delta, text, ci)


def median_interval(v: VariantTiming) -> tuple[float, float] | None:
    """A 95% interval of the variant's median run time (ms): bootstrap of the samples, else from the summary."""
    if not v.ran or v.median_ms is None:
        return None
    if v.samples_ms:
        _, low, high = median_ci(v.samples_ms)
        return low, high
    if v.p25_ms is None or v.p75_ms is None or not v.runs:
        return None
    half = 1.96 * 1.2533 * (v.p75_ms - v.p25_ms) / 1.349 / math.sqrt(v.runs)
    return max(0.0, v.median_ms - half), v.median_ms + half  # a latency is never below 0


def fmt_delta(ms: float, signed: bool = True) -> str:
    """A time difference: in µs below 50 µs, so small differences do not print as 0.000 ms."""
    if abs(ms) < 0.05:
        return f"{ms * 1000:+.1f} µs" if signed else f"{abs(ms) * 1000:.1f} µs"
    return f"{ms:+.3f} ms" if signed else f"{abs(ms):.3f} ms"


def _variant(m: BindingMeasurement | None, name: str) -> VariantTiming | None:
    if m is None:
        return None
    return next((v for v in m.variants if v.variant == name), None)


# --- the view the renderers show --------------------------------------------------------------------------------
