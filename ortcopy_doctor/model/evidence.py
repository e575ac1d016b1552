"""The evidence object: everything measured about one model and one session.

Collectors fill it, rules read it, renderers never see onnxruntime. It is plain data that
round-trips through JSON, so evidence recorded on a GPU can be re-analysed anywhere.

Format versions (``FORMAT_VERSION``) and the fields added within each are listed in CHANGELOG.md.
"""

from __future__ import annotations

from typing import Any, Optional, Union

import msgspec
from msgspec import field

from ortcopy_doctor.model.census import TransferRecord
from ortcopy_doctor.model.vocabulary import (CodeCheckStatus, EvidenceMode, FeedSource, MeasurementStatus, MemcpyOp,
                                            ValueKind, Variant)
from ortcopy_doctor.model.replay import ProviderChoice

FORMAT_VERSION = 1

Dim = Union[int, str, None]


class ValueInfo(msgspec.Struct, frozen=True):
    """A graph input or output as the model declares it."""

    name: str
    kind: ValueKind  # tensor, sequence, map, optional, sparse_tensor, unknown
    elem_type: Optional[str]  # numpy dtype name ("float32"), or the ONNX type string for non-tensors
    shape: Optional[list[Dim]]  # None where the model gives no shape
    type_string: str = ""  # ORT's spelling, e.g. "tensor(float)" or "seq(tensor(float))"


class NodeInfo(msgspec.Struct, frozen=True):
    """One node of a graph; ``graph`` is "" for the main graph, else the path of the subgraph."""

    name: str
    op_type: str
    domain: str
    inputs: list[str]
    outputs: list[str]
    graph: str = ""


class SubgraphInfo(msgspec.Struct, frozen=True):
    """A subgraph attribute of a node (If, Loop, Scan) and how many nodes it holds, nested subgraphs included."""

    node: str
    op_type: str
    attribute: str
    node_count: int


class ModelInfo(msgspec.Struct, frozen=True, kw_only=True):
    """What the model file declares: its identity, opsets, inputs and outputs, nodes, subgraphs and initializers."""

    path: str
    file_bytes: int
    sha256: str = ""  # "" where the file was written without the hash (diff says it is unknown)
    ir_version: int
    producer: str
    opsets: dict[str, int]
    inputs: list[ValueInfo]
    outputs: list[ValueInfo]
    nodes: list[NodeInfo]
    subgraphs: list[SubgraphInfo]
    initializer_count: int
    initializer_bytes: int
    external_data_files: list[str] = field(default_factory=list)
    external_data_bytes: int = 0

    def op_counts(self) -> dict[tuple[str, str], int]:
        """(domain, op_type) -> number of nodes, the most frequent first (then by name)."""
        counts: dict[tuple[str, str], int] = {}
        for node in self.nodes:
            key = (node.domain or "ai.onnx", node.op_type)
            counts[key] = counts.get(key, 0) + 1
        return dict(sorted(counts.items(), key=lambda item: (-item[1], item[0])))


class Feed(msgspec.Struct, frozen=True):
    """One input as it was fed to ``run()``: always a numpy array in host (pageable) memory."""

    name: str
    dtype: str
    shape: list[int]
    bytes: int
    source: FeedSource  # synthesized, file, value (--value NAME=V)
    # Synthesized integers are drawn from 0..3; below 4, the rows of the smallest Gather table the input indexes
    # (BERT's token_type_ids: 2), so every id is valid.
    high: Optional[int] = None
    # The text of --value NAME=V as given, or as check chose it (source "value"): the generated code feeds this
    # value, not a random one.
    value: Optional[str] = None
    # A value check chose for an input no flag gives (source "value", as --value NAME=V would give it), and why:
    # "16000: named like a sample rate; ...". "" where the value was given or the input synthesized as usual.
    chosen: str = ""


class AssumedDim(msgspec.Struct, frozen=True):
    """A dim of a synthesized input that neither the model nor --dim/--shape sized, taken as ``value``: 1, the
    convention of Polygraphy and trtexec for dynamic dims, or a size check chose for a model of its kind (an image's
    height, an audio chunk's samples) or after a run at 1 failed (``reason`` says which and why; ``tried``, the
    sizes that failed before it). ``flag`` is the option that sets it."""

    input: str
    axis: int
    declared: str  # the symbol (``batch``), the literal the model declares (``-1``), or "" for a dim with neither
    value: int
    flag: str  # --dim batch=N, or --shape NAME=AxBxC
    # A --dim given that sizes no dim of the model's inputs and is spelled like this symbol (a likely typo:
    # --dim bacth=8 for 'batch'); "" where none is.
    near: str = ""
    # Why check chose ``value`` rather than 1 ("" where the dim is 1 by the convention above), and the sizes it ran
    # before that failed, in order.
    reason: str = ""
    tried: list[int] = field(default_factory=list)


ASSUMED_DIMS_TITLE = "Dynamic dims taken as 1 (no --dim or --shape sizes them; --strict-shapes refuses instead):"
CHOSEN_DIMS_TITLE = ("Dynamic dims no --dim or --shape sizes (taken as 1, or chosen as said; --strict-shapes refuses "
                     "instead):")


def assumed_dims_title(assumed: list[AssumedDim]) -> str:
    """The heading of the lines ``describe_assumed_dims`` gives: ``ASSUMED_DIMS_TITLE`` where every dim is 1 by
    convention, ``CHOSEN_DIMS_TITLE`` where check chose a size for one."""
    return CHOSEN_DIMS_TITLE if any(a.reason for a in assumed) else ASSUMED_DIMS_TITLE


def describe_assumed_dims(assumed: list[AssumedDim]) -> list[str]:
    """One line per symbol (its inputs together), then one per unnamed dim: the value taken (and, where chosen,
    why and what was tried first) and the flag that changes it."""
    by_symbol: dict[str, list[AssumedDim]] = {}
    unnamed: list[str] = []
    for a in assumed:
        if a.flag.startswith("--dim "):
            by_symbol.setdefault(a.declared, []).append(a)
        else:
            what = f"declared {a.declared}" if a.declared else "no size or name"
            unnamed.append(f"input '{a.input}' axis {a.axis} ({what}) {_taken(a)}: set it with {a.flag}")
    named = []
    for symbol, items in by_symbol.items():
        where = ", ".join(f"'{a.input}' axis {a.axis}" for a in items)
        near = (f" (--dim {items[0].near}=... was given, which sizes no dim of the model: a typo?)"
                if items[0].near else "")
        named.append(f"dim '{symbol}' (input {where}) {_taken(items[0])}: set it with {items[0].flag}{near}")
    return _once_each(named + unnamed, assumed)


def _taken(dim: AssumedDim) -> str:
    if not dim.reason:
        return f"assumed {dim.value}"
    tried = f"; tried first: {', '.join(str(t) for t in dim.tried)}" if dim.tried else ""
    return f"chosen {dim.value} ({dim.reason}{tried})"


def _once_each(lines: list[str], assumed: list[AssumedDim]) -> list[str]:
    """A reason said on an earlier line is "as above" on a later one (an image's height and width share one)."""
    said: set[str] = set()
    result = []
    for line in lines:
        for reason in dict.fromkeys(a.reason for a in assumed if a.reason):
            for end in (")", "; tried first: "):
                if f"({reason}{end}" not in line:
                    continue
                if reason in said:
                    line = line.replace(f"({reason}{end}", f"(as above{end}", 1)
                said.add(reason)
        result.append(line)
    return result


CHOSEN_VALUES_TITLE = "Values chosen for inputs no --value or --inputs gives (--strict-shapes chooses none):"


def describe_chosen_values(feeds: list[Feed]) -> list[str]:
    """One line per input whose value check chose (``Feed.chosen``), with the flag that sets it instead."""
    return [f"input '{f.name}' = {f.chosen}: set it with --value {f.name}=V" for f in feeds if f.chosen]


class RuntimeNode(msgspec.Struct, frozen=True):
    """A node of the graph ORT actually ran (after optimisation), with the provider it was assigned to."""

    name: str
    op_type: str
    domain: str
    provider: str
    inputs: list[str] = field(default_factory=list)
    outputs: list[str] = field(default_factory=list)
    graph: str = ""
    # Why it is on CPU when the requested EP was another: no_kernel, cpu_preferred, or None.
    fallback_reason: Optional[str] = None
    fallback_detail: str = ""


class MemcpyInsertion(msgspec.Struct, frozen=True):
    """A Memcpy node ORT inserted, from its log line ("Add MemcpyToHost before T" / "Add MemcpyFromHost after T")."""

    op_type: MemcpyOp  # MemcpyToHost, MemcpyFromHost
    tensor: str  # the host-side name of the tensor
    provider: str
    # The graph ORT inserts it in, as ``RuntimeNode.graph`` names it ("" for the main graph): a prediction knows it;
    # ORT's log line does not say.
    graph: str = ""


class NodeEvent(msgspec.Struct, frozen=True):
    """One ``*_kernel_time`` event of the ORT profile."""

    run: int
    name: str  # node name (without the _kernel_time suffix)
    op_type: str
    provider: str
    ts_us: int
    dur_us: int
    input_shapes: list[Any]
    output_shapes: list[Any]
    output_bytes: int


class RunEvent(msgspec.Struct, frozen=True):
    """One ``model_run`` event of the ORT profile; ``warmup`` runs are excluded from analysis."""

    run: int
    ts_us: int
    dur_us: int
    warmup: bool


class LogLine(msgspec.Struct, frozen=True):
    """One line of ORT's session log."""

    severity: str  # V, I, W, E, F
    source: str
    message: str


class SessionEvidence(msgspec.Struct, frozen=True):
    """The session as ORT created it: providers requested and active, where the placement and graph were read from,
    and the relevant log lines."""

    requested_providers: list[str]
    active_providers: list[str]
    provider_options: dict[str, dict[str, str]]
    device_id: int
    ep_failure: Optional[str]  # the reason ORT logged for a requested EP that did not load
    placement_source: str  # assignment_info, verbose_log, none
    graph_source: str  # optimized_model, original_model
    log: list[LogLine] = field(default_factory=list)
    profiling_start_ns: int = 0


class Timings(msgspec.Struct, frozen=True):
    """Times of the timing session (no profiling): its creation, its first run, and the timed runs after warm-up."""

    warmup_runs: int
    profiled_runs: int
    run_ms: list[float]
    session_create_ms: float = 0.0
    first_run_ms: float = 0.0


class Environment(msgspec.Struct, frozen=True):
    """Where the evidence was recorded: versions of ORT, onnx, numpy and Python, the platform, the providers the
    installed ORT offers and the GPUs."""

    ort_version: str
    ort_build: str
    ort_package: str
    onnx_version: str
    numpy_version: str
    python: str
    platform: str
    available_providers: list[str]
    gpus: list[str] = field(default_factory=list)
    # Whether the installed onnxruntime has the public OrtValue.from_dlpack (the generated torch/cupy code uses
    # it); None in evidence recorded before this field, where the version decides (knowledge.ort_versions).
    ort_has_from_dlpack: Optional[bool] = None


class CensusEvidence(msgspec.Struct, frozen=True):
    """Every memcpy traced during the profiled runs of the evidence session, raw enough to redo the attribution.

    ``records`` carry times of the backend's clock (CUPTI ns); ``clock_pairs`` are ``[backend ns, time.time_ns()]``
    sampled together, which map them onto the ORT profile (``SessionEvidence.profiling_start_ns`` is epoch ns).
    """

    backend: str  # cupti-python, torch-profiler
    backend_version: str
    records: list[TransferRecord] = field(default_factory=list)
    clock_pairs: list[list[int]] = field(default_factory=list)
    traced_runs: list[int] = field(default_factory=list)  # profile run indices traced (the profiled, not warm-up, runs)
    clock_verified: bool = True  # False where the backend's clock mapping was never checked on a GPU
    # Overhead: wall time of runs traced the same way in the timing session (compare with Timings.run_ms).
    traced_run_ms: list[float] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)
    # Bound on the error of the clock mapping measured while tracing (CUPTI: bracketed clock pairs); None: not measured.
    clock_error_ns: Optional[int] = None


class VariantTiming(msgspec.Struct, frozen=True):
    """One way of running the model, timed in a session without profiling (see measure.py)."""

    variant: str  # plain, plan, all_device, cuda_graph
    label: str
    ran: bool
    skipped_reason: str = ""
    runs: int = 0
    median_ms: Optional[float] = None
    p10_ms: Optional[float] = None
    p25_ms: Optional[float] = None
    p75_ms: Optional[float] = None
    p90_ms: Optional[float] = None
    # Host<->device transfers of one call: counted by CUPTI ("census") or promised by the plan ("plan").
    h2d_count: Optional[int] = None
    h2d_bytes: Optional[int] = None
    d2h_count: Optional[int] = None
    d2h_bytes: Optional[int] = None
    transfer_source: str = ""
    first_run_ms: Optional[float] = None  # the variant's first call (CUDA graph: the capture)
    session_create_ms: Optional[float] = None  # where the variant has its own session
    # Raw per-run samples (ms), sample i of every variant from the same interleaved round; absent in older records.
    samples_ms: Optional[list[float]] = None
    # The same calls timed on the GPU clock with CUDA events (torch or cupy), where one is importable.
    gpu_samples_ms: Optional[list[float]] = None
    gpu_median_ms: Optional[float] = None
    # The variant's code raised or gave other outputs than plain run() (skipped_reason says which): not a blocker
    # or a library missing here but a defect, reported as a finding.
    failed: bool = False


class PhaseTiming(msgspec.Struct, frozen=True):
    """One phase of a bound run: upload, inference, download (timed apart, same shapes)."""

    phase: str  # upload, inference, download
    what: str
    runs: int
    median_ms: Optional[float] = None
    p10_ms: Optional[float] = None
    p90_ms: Optional[float] = None
    bytes: Optional[int] = None


class PinnedTiming(msgspec.Struct, frozen=True):
    """Upload of the host-fed inputs into fixed device buffers from pageable vs pinned host memory."""

    method: str  # torch, cupy, none
    bytes: int
    runs: int = 0
    pageable_ms: Optional[float] = None
    pinned_ms: Optional[float] = None
    staging_ms: Optional[float] = None  # copying the numpy data into the pinned buffer (host to host)
    skipped_reason: str = ""


class CodeCheck(msgspec.Struct, frozen=True):
    """One generated code block run as printed next to plain ``run()`` (collect/code_check.py): ``calls`` calls with
    different inputs (state carried as the code carries it), every output compared; a block that does not match is
    not offered."""

    block: str  # plan, plan_torch, plan_cupy, all_device, cuda_graph
    status: CodeCheckStatus  # matched, differs, failed, not_run
    # Where it ran: "cuda"; or "cpu" where no CUDA EP is active here: the same code with 'cpu' for 'cuda' and CPU
    # OrtValues, which checks its logic (inputs, state, outputs) but not the device.
    device: str = ""
    calls: int = 0
    detail: str = ""  # what differed, the error, or why it did not run
    tolerance: str = ""  # how floats were compared
    # SHA-256 of the code text the check ran (as printed: with 'cuda' where device is "cpu"): a report offers a
    # block only where the code it shows is the code that was checked.
    code_sha256: str = ""
    # Outputs that differ between two plain runs on the same inputs (random ops): compared by dtype and shape only.
    nondeterministic: list[str] = field(default_factory=list)


class BindingMeasurement(msgspec.Struct, frozen=True):
    """A/B measurement of IO-binding variants on the same inputs, after warm-up (``check --measure-binding``)."""

    status: MeasurementStatus  # measured, skipped, off, failed
    reason: str = ""
    runs: int = 0
    warmup_runs: int = 0
    transfer_source: str = ""  # census (CUPTI), plan
    variants: list[VariantTiming] = field(default_factory=list)
    phases: list[PhaseTiming] = field(default_factory=list)
    phase_binding: Variant = Variant.NONE  # all_device or plan: the binding the phase table used
    pinned: Optional[PinnedTiming] = None
    cuda_graph_blockers: list[str] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)
    # Adaptive sampling (stats.Sampler): the minimum rounds, the time budget, why sampling stopped; the CUDA-event
    # timer used for gpu_samples_ms ("" where none). Absent in older records (fixed run count).
    min_runs: Optional[int] = None
    budget_s: Optional[float] = None
    stop_reason: str = ""
    gpu_timer: str = ""


class Evidence(msgspec.Struct, frozen=True, dict=True):
    """Everything recorded about one model and one session (module doc); round-trips through JSON."""

    model: ModelInfo
    session: SessionEvidence
    environment: Environment
    feeds: list[Feed] = field(default_factory=list)
    nodes: list[RuntimeNode] = field(default_factory=list)
    memcpy_insertions: list[MemcpyInsertion] = field(default_factory=list)
    node_events: list[NodeEvent] = field(default_factory=list)
    run_events: list[RunEvent] = field(default_factory=list)
    timings: Optional[Timings] = None
    mode: EvidenceMode = EvidenceMode.MEASURED  # measured, static
    notes: list[str] = field(default_factory=list)
    # Shapes from onnx shape inference (static evidence only): sizes of tensors no profile measured.
    value_infos: list[ValueInfo] = field(default_factory=list)
    # Where the requested EP was not active: what static analysis predicts it would have done.
    predicted: Optional[Evidence] = None
    # Set when collection stopped early (e.g. out of device memory): the evidence is what was gathered before.
    failure: Optional[str] = None
    # Transfer census of the profiled runs (CUDA EP only), and what happened: "recorded: ..." or "skipped: <why>".
    census: Optional[CensusEvidence] = None
    census_status: str = ""
    # A/B measurement of binding variants (measure.py).
    binding_measurement: Optional[BindingMeasurement] = None
    # CUDA against the CPU provider, and each cudnn_conv_algo_search value (collect/provider_choice.py; issue 34).
    provider_choice: Optional[ProviderChoice] = None
    # Dynamic dims of synthesized inputs taken as 1 (no --dim/--shape for them).
    assumed_dims: list[AssumedDim] = field(default_factory=list)
    # The .npz passed to --inputs, as given (the generated code loads it).
    inputs_file: Optional[str] = None
    # State the user named with --state IN=OUT: output OUT of one run is input IN of the next.
    given_state: dict[str, str] = field(default_factory=dict)
    # Every generated code block run next to plain run() (collect/code_check.py).
    code_checks: list[CodeCheck] = field(default_factory=list)
    tool_version: str = ""
    created_utc: str = ""
    format_version: int = FORMAT_VERSION
