"""The evidence object: everything measured about one model and one session.

Collectors fill it, rules read it, renderers never see onnxruntime. It is plain data that
round-trips through JSON, so evidence recorded on a GPU can be re-analysed anywhere.

Format versions (``FORMAT_VERSION``) and the fields added within each are listed in CHANGELOG.md.
"""

from __future__ import annotations

import dataclasses
import enum
import functools
import types
import typing
from dataclasses import dataclass, field
from typing import Any, Callable, Optional, Union

from ortcopy_doctor.model.census import TransferRecord
from ortcopy_doctor.model.vocabulary import CodeCheckStatus, EvidenceMode, FeedSource, MeasurementStatus, MemcpyOp, ValueKind
from ortcopy_doctor.model.records import frozen

FORMAT_VERSION = 1

Dim = Union[int, str, None]


@frozen
class ValueInfo:
    """A graph input or output as the model declares it."""

    name: str
    kind: ValueKind  # tensor, sequence, map, optional, sparse_tensor, unknown
    elem_type: Optional[str]  # numpy dtype name ("float32"), or the ONNX type string for non-tensors
    shape: Optional[list[Dim]]  # None where the model gives no shape
    type_string: str = ""  # ORT's spelling, e.g. "tensor(float)" or "seq(tensor(float))"


@frozen
class NodeInfo:
    """One node of a graph; ``graph`` is "" for the main graph, else the path of the subgraph."""

    name: str
    op_type: str
    domain: str
    inputs: list[str]
    outputs: list[str]
    graph: str = ""


@frozen
class SubgraphInfo:
    """A subgraph attribute of a node (If, Loop, Scan) and how many nodes it holds, nested subgraphs included."""

    node: str
    op_type: str
    attribute: str
    node_count: int


@frozen
class ModelInfo:
    """What the model file declares: its identity, opsets, inputs and outputs, nodes, subgraphs and initializers."""

    path: str
    file_bytes: int
    sha256: str
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


@frozen
class Feed:
    """One input as it was fed to ``run()``: always a numpy array in host (pageable) memory."""

    name: str
    dtype: str
    shape: list[int]
    bytes: int
    source: FeedSource  # synthesized, file, value (--value NAME=V)
    # Synthesized integers are drawn from 0..3; below 4, the rows of the smallest Gather table the input indexes
    # (BERT's token_type_ids: 2), so every id is valid. Left out of the JSON when None.
    high: Optional[int] = field(default=None, metadata={"omit_if_default": True})
    # The text of --value NAME=V as given, or as check chose it (source "value"): the generated code feeds this
    # value, not a random one. Left out of the JSON when None.
    value: Optional[str] = field(default=None, metadata={"omit_if_default": True})
    # A value check chose for an input no flag gives (source "value", as --value NAME=V would give it), and why:
    # "16000: named like a sample rate; ...". "" where the value was given or the input synthesized as usual.
    chosen: str = field(default="", metadata={"omit_if_default": True})


@frozen
class AssumedDim:
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
    near: str = field(default="", metadata={"omit_if_default": True})
    # Why check chose ``value`` rather than 1 ("" where the dim is 1 by the convention above), and the sizes it ran
    # before that failed, in order.
    reason: str = field(default="", metadata={"omit_if_default": True})
    tried: list[int] = field(default_factory=list, metadata={"omit_if_default": True})


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


@frozen
class RuntimeNode:
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


@frozen
class MemcpyInsertion:
    """A Memcpy node ORT inserted, from its log line ("Add MemcpyToHost before T" / "Add MemcpyFromHost after T")."""

    op_type: MemcpyOp  # MemcpyToHost, MemcpyFromHost
    tensor: str  # the host-side name of the tensor
    provider: str
    # The graph ORT inserts it in, as ``RuntimeNode.graph`` names it ("" for the main graph): a prediction knows it;
    # ORT's log line does not say. Left out of the JSON when "".
    graph: str = field(default="", metadata={"omit_if_default": True})


@frozen
class NodeEvent:
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


@frozen
class RunEvent:
    """One ``model_run`` event of the ORT profile; ``warmup`` runs are excluded from analysis."""

    run: int
    ts_us: int
    dur_us: int
    warmup: bool


@frozen
class LogLine:
    """One line of ORT's session log."""

    severity: str  # V, I, W, E, F
    source: str
    message: str


@frozen
class SessionEvidence:
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


@frozen
class Timings:
    """Times of the timing session (no profiling): its creation, its first run, and the timed runs after warm-up."""

    warmup_runs: int
    profiled_runs: int
    run_ms: list[float]
    session_create_ms: float = 0.0
    first_run_ms: float = 0.0


@frozen
class Environment:
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
    ort_has_from_dlpack: Optional[bool] = field(default=None, metadata={"omit_if_default": True})


@frozen
class CensusEvidence:
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


@frozen
class VariantTiming:
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
    samples_ms: Optional[list[float]] = field(default=None, metadata={"omit_if_default": True})
    # The same calls timed on the GPU clock with CUDA events (torch or cupy), where one is importable.
    gpu_samples_ms: Optional[list[float]] = field(default=None, metadata={"omit_if_default": True})
    gpu_median_ms: Optional[float] = field(default=None, metadata={"omit_if_default": True})
    # The variant's code raised or gave other outputs than plain run() (skipped_reason says which): not a blocker
    # or a library missing here but a defect, reported as a finding. Left out of the JSON when False.
    failed: bool = field(default=False, metadata={"omit_if_default": True})


@frozen
class PhaseTiming:
    """One phase of a bound run: upload, inference, download (timed apart, same shapes)."""

    phase: str  # upload, inference, download
    what: str
    runs: int
    median_ms: Optional[float] = None
    p10_ms: Optional[float] = None
    p90_ms: Optional[float] = None
    bytes: Optional[int] = None


@frozen
class PinnedTiming:
    """Upload of the host-fed inputs into fixed device buffers from pageable vs pinned host memory."""

    method: str  # torch, cupy, none
    bytes: int
    runs: int = 0
    pageable_ms: Optional[float] = None
    pinned_ms: Optional[float] = None
    staging_ms: Optional[float] = None  # copying the numpy data into the pinned buffer (host to host)
    skipped_reason: str = ""


@frozen
class CodeCheck:
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
    nondeterministic: list[str] = field(default_factory=list, metadata={"omit_if_default": True})


@frozen
class BindingMeasurement:
    """A/B measurement of IO-binding variants on the same inputs, after warm-up (``check --measure-binding``)."""

    status: MeasurementStatus  # measured, skipped, off, failed
    reason: str = ""
    runs: int = 0
    warmup_runs: int = 0
    transfer_source: str = ""  # census (CUPTI), plan
    variants: list[VariantTiming] = field(default_factory=list)
    phases: list[PhaseTiming] = field(default_factory=list)
    phase_binding: str = ""  # all_device, plan: the binding the phase table used
    pinned: Optional[PinnedTiming] = None
    cuda_graph_blockers: list[str] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)
    # Adaptive sampling (stats.Sampler): the minimum rounds, the time budget, why sampling stopped; the CUDA-event
    # timer used for gpu_samples_ms ("" where none). Absent in older records (fixed run count).
    min_runs: Optional[int] = field(default=None, metadata={"omit_if_default": True})
    budget_s: Optional[float] = field(default=None, metadata={"omit_if_default": True})
    stop_reason: str = field(default="", metadata={"omit_if_default": True})
    gpu_timer: str = field(default="", metadata={"omit_if_default": True})


@frozen
class Evidence:
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
    failure: Optional[str] = field(default=None, metadata={"omit_if_default": True})
    # Transfer census of the profiled runs (CUDA EP only), and what happened: "recorded: ..." or "skipped: <why>".
    census: Optional[CensusEvidence] = None
    census_status: str = ""
    # A/B measurement of binding variants (measure.py); left out of the JSON when absent.
    binding_measurement: Optional[BindingMeasurement] = field(default=None, metadata={"omit_if_default": True})
    # Dynamic dims of synthesized inputs taken as 1 (no --dim/--shape for them); left out of the JSON when none.
    assumed_dims: list[AssumedDim] = field(default_factory=list, metadata={"omit_if_default": True})
    # The .npz passed to --inputs, as given (the generated code loads it); left out of the JSON when none.
    inputs_file: Optional[str] = field(default=None, metadata={"omit_if_default": True})
    # State the user named with --state IN=OUT: output OUT of one run is input IN of the next. Left out when none.
    given_state: dict[str, str] = field(default_factory=dict, metadata={"omit_if_default": True})
    # Every generated code block run next to plain run() (collect/code_check.py); left out of the JSON when none.
    code_checks: list[CodeCheck] = field(default_factory=list, metadata={"omit_if_default": True})
    tool_version: str = ""
    created_utc: str = ""
    format_version: int = FORMAT_VERSION


# --- JSON round trip -------------------------------------------------------------------------


_PLAIN = frozenset({str, int, float, bool, type(None)})


def to_jsonable(obj: Any) -> Any:
    """Dataclasses to dicts (field order kept), tuples to lists; everything else as is."""
    kind: Any = type(obj)
    if kind in _PLAIN:  # first: most values are plain (a 10k-node report holds ~400k of them)
        return obj
    dump = _DUMPERS.get(kind)
    if dump is not None:  # a dataclass seen before
        return dump(obj)
    if type(kind) is enum.EnumMeta:  # a closed set's member (model.vocabulary): its plain value
        return obj._value_
    if kind is list or kind is tuple:
        return [to_jsonable(v) for v in obj]
    if kind is dict:
        return {str(k): to_jsonable(v) for k, v in obj.items()}
    if dataclasses.is_dataclass(obj) and not isinstance(obj, type):
        dump = _DUMPERS[kind] = _dataclass_dumper(kind)
        return dump(obj)
    if isinstance(obj, (list, tuple)):
        return [to_jsonable(v) for v in obj]
    if isinstance(obj, dict):
        return {str(k): to_jsonable(v) for k, v in obj.items()}
    return obj


_DUMPERS: dict[type, Callable[[Any], dict[str, Any]]] = {}


def _dataclass_dumper(cls: type) -> Callable[[Any], dict[str, Any]]:
    """A function for ``cls`` that writes one of its objects as a dict: fields in order, a plain value as it is, a
    list item by item, anything else through ``to_jsonable``; a field marked omit_if_default is left out while it
    equals its default (newer optional data). No code is generated (``exec``): besides being code made at run time,
    it clears CPython 3.11's record of an uncaught KeyboardInterrupt when it runs at exit (watch/child.py)."""
    plan = [(name, omit, default() if omit else None) for name, omit, default in _to_json_plan(cls)]

    def dump(obj: Any) -> dict[str, Any]:
        out: dict[str, Any] = {}
        for name, omit, default in plan:
            v = getattr(obj, name)
            if omit and v == default:
                continue
            kind = type(v)
            if kind in _PLAIN:
                out[name] = v
            elif kind is list:
                out[name] = [x if type(x) in _PLAIN else to_jsonable(x) for x in v]
            else:
                out[name] = to_jsonable(v)
        return out

    return dump


@functools.lru_cache(maxsize=None)
def _to_json_plan(cls: Any) -> tuple[tuple[str, bool, Callable[[], Any]], ...]:
    """(name, omitted while default, its default) per field of a dataclass, read once per class."""
    return tuple((f.name, bool(f.metadata.get("omit_if_default")), functools.partial(_default, f))
                 for f in dataclasses.fields(cls))


def _default(f: dataclasses.Field) -> Any:  # type: ignore[type-arg]
    if f.default_factory is not dataclasses.MISSING:
        return f.default_factory()
    return f.default


Converter = Callable[[Any], Any]


class _Placed(Exception):
    """A bad value, its place in the document filled in as the error leaves each level.

    Places are only written out on this (rare) path: building "nodes[3].inputs[0]" for every value that is fine took
    a third of the load of a 10k-node report."""

    def __init__(self, what: str) -> None:
        super().__init__(what)
        self.what = what
        self.steps: list[tuple[str, Any]] = []  # innermost first: ("field", name), ("item", index), ("key", key)

    def message(self, where: str) -> str:
        """``where: what``, with ``where`` the place as the caller named it followed by the steps down."""
        for step, key in reversed(self.steps):
            if step == "field":
                where = f"{where}.".lstrip(".") + key
            elif step == "item":
                where = f"{where}[{key}]"
            else:
                where = f"{where}.{key}"
        return f"{where or 'value'}: {self.what}"


class _Misplaced(_Placed, TypeError):
    """A value of the wrong type (``from_jsonable`` raises ``TypeError``)."""


class _NotOneOf(_Placed, ValueError):
    """A string outside a closed set (``from_jsonable`` raises ``ValueError``)."""


def from_jsonable(cls: Any, data: Any, where: str = "") -> Any:
    """Rebuild ``cls`` (a dataclass or a typing annotation) from ``to_jsonable`` output.

    JSON from a file is untrusted: a value of the wrong type (a string for an int, a list for an object) raises
    ``TypeError`` naming its place (``nodes[3].inputs[0]: expected str, got a number``), rather than failing later
    inside the analysis. The work per annotation (what it is, its arguments, a dataclass's resolved field types) is
    done once, in ``_converter``."""
    try:
        return _converter(cls)(data)
    except _Placed as exc:
        raise (ValueError if isinstance(exc, ValueError) else TypeError)(exc.message(where)) from None


def _exact_types(cls: Any) -> frozenset[type]:
    """The JSON value types that ``cls`` takes as they are with no other check (empty: ``cls`` needs its converter).
    ``bool`` is never among them for ``int``/``float`` (JSON true is not a number here)."""
    if cls in _SCALARS:
        return frozenset({float, int}) if cls is float else frozenset({cls})
    if typing.get_origin(cls) in (Union, types.UnionType):
        parts = [_exact_types(a) for a in typing.get_args(cls) if a is not type(None)]
        if all(parts):
            return frozenset({type(None)}).union(*parts)
    return frozenset()


@functools.lru_cache(maxsize=None)
def _converter(cls: Any) -> Converter:
    """The function that checks and rebuilds a value of annotation ``cls``, built once per annotation.

    Loading a 10k-node report calls these ~300k times, so each takes the common case first: a value whose exact
    type the annotation takes (``_exact_types``) is returned as it is, a list of such values is kept, and a
    dataclass is built by a function generated for its fields (``_dataclass_loader``)."""
    expected = _SCALARS.get(cls)
    if expected is not None:
        strict_bool = cls is not bool
        name = cls.__name__
        exact = _exact_types(cls)

        def scalar(data: Any) -> Any:
            if type(data) in exact:
                return data
            if not isinstance(data, expected) or (strict_bool and isinstance(data, bool)):
                raise _Misplaced(f"expected {name}, got {_json_type(data)}")
            return data

        return scalar
    if isinstance(cls, type) and issubclass(cls, enum.Enum):
        return _enum_converter(cls)
    origin = typing.get_origin(cls)
    if origin in (Union, types.UnionType):
        args = [a for a in typing.get_args(cls) if a is not type(None)]
        objects: list[Any] = [a for a in args if dataclasses.is_dataclass(a)]
        plain = _exact_types(cls)
        converters = [_converter(a) for a in args]

        def union(data: Any) -> Any:
            if data is None or type(data) in plain:
                return data
            if objects and isinstance(data, dict):
                return _converter(objects[0])(data)
            for convert in converters:
                try:
                    return convert(data)
                except TypeError:
                    continue
            raise _Misplaced(f"{_json_type(data)} is not allowed here")

        return union
    if origin is list:
        (item,) = typing.get_args(cls) or (Any,)
        item_exact = _exact_types(item)
        convert_item = _converter(item)

        def listed(data: Any) -> Any:
            if type(data) is not list:
                if not isinstance(data, list):
                    raise _Misplaced(f"expected a list, got {_json_type(data)}")
                data = list(data)
            if item_exact:
                for v in data:
                    if type(v) not in item_exact:
                        break
                else:
                    return data[:]  # every item as it is (a copy: the caller may keep the parsed JSON)
            try:
                return [convert_item(v) for v in data]
            except _Placed as exc:
                for i, v in enumerate(data):  # which item: convert them again up to the bad one
                    try:
                        convert_item(v)
                    except _Placed:
                        exc.steps.append(("item", i))
                        break
                raise

        return listed
    if origin is dict:
        key_type, value_type = typing.get_args(cls) or (Any, Any)
        convert_value = _converter(value_type)
        # keys of a closed set (dict[CensusClass, ...]) become its members; other keys stay as JSON has them
        member = _converter(key_type) if isinstance(key_type, type) and issubclass(key_type, enum.Enum) else None

        def mapped(data: Any) -> Any:
            if not isinstance(data, dict):
                raise _Misplaced(f"expected an object, got {_json_type(data)}")
            out = {}
            for k, v in data.items():
                try:
                    out[member(k) if member is not None else k] = convert_value(v)
                except _Placed as exc:
                    exc.steps.append(("key", k))
                    raise
            return out

        return mapped
    if isinstance(cls, type) and dataclasses.is_dataclass(cls):
        target: type = cls
        loader: list[Converter] = []  # made on first use: a dataclass may contain itself

        def built(data: Any) -> Any:
            if not loader:
                loader.append(_dataclass_loader(target))
            return loader[0](data)

        return built
    return _as_is


def _enum_converter(cls: type[enum.Enum]) -> Converter:
    """A closed set (model.vocabulary): a JSON string that is one of its values becomes the member; anything else
    raises ``ValueError`` naming the place and the values allowed (``load_report`` turns it into a UsageError)."""
    members = {m.value: m for m in cls}
    allowed = ", ".join(str(v) for v in members)

    def member(data: Any) -> Any:
        found = members.get(data) if type(data) is str else None
        if found is not None:
            return found
        if not isinstance(data, str):
            raise _Misplaced(f"expected a string ({allowed}), got {_json_type(data)}")
        raise _NotOneOf(f"{data[:40]!r} is not one of {allowed}")

    return member


def _dataclass_loader(cls: type) -> Converter:
    """A function, generated for ``cls``'s fields, that checks a JSON object and builds a ``cls`` from it: each field
    present is taken as it is where its exact type is one the annotation takes, else through its converter; a
    missing field keeps its default (``cls``'s own ``__init__`` says which are required); ``_maker`` builds it."""
    namespace: dict[str, Any] = {"cls": cls, "make": _maker(cls), "_Misplaced": _Misplaced, "_Placed": _Placed,
                                 "_json_type": _json_type}
    lines = ["def load(data):",
             "    if type(data) is not dict and not isinstance(data, dict):",
             "        raise _Misplaced(f'expected an object, got {_json_type(data)}')",
             "    values = {}",
             "    field = None",
             "    try:"]
    for i, (name, hint) in enumerate(_field_hints(cls)):
        namespace[f"convert{i}"] = _converter(hint)
        exact = _exact_types(hint)
        lines.append(f"        if {name!r} in data:")
        lines.append(f"            field = {name!r}")
        lines.append(f"            value = data[{name!r}]")
        if exact:
            namespace[f"exact{i}"] = exact
            lines.append(f"            values[{name!r}] = value if type(value) in exact{i} else convert{i}(value)")
        else:
            lines.append(f"            values[{name!r}] = convert{i}(value)")
    lines += ["    except _Placed as exc:",
              "        exc.steps.append(('field', field))",
              "        raise",
              "    return make(cls, values)"]
    exec("\n".join(lines), namespace)  # noqa: S102 - code made here from the dataclass's own field names
    load: Converter = namespace["load"]
    return load


def _maker(cls: type) -> Callable[[type, dict[str, Any]], Any]:
    """How ``from_jsonable`` builds a ``cls`` from its field values: a frozen dataclass gets them, in field order
    with the defaults of those absent, written into a new object's ``__dict__`` (its ``__init__`` sets each field
    through ``object.__setattr__``, several times slower on the objects of a 10k-node evidence); any other class,
    or a value missing a required field (``__init__`` raises the usual TypeError), is built by ``__init__``."""
    params = getattr(cls, "__dataclass_params__", None)
    all_fields = dataclasses.fields(cls)
    if (params is None or not params.frozen or hasattr(cls, "__post_init__") or hasattr(cls, "__slots__")
            or not all(f.init for f in all_fields)):
        return _by_init
    defaults = tuple((f.name, f.default, f.default_factory) for f in all_fields)
    missing = dataclasses.MISSING

    def make(target: type, values: dict[str, Any]) -> Any:
        if len(values) < len(defaults):  # else every field is there, in field order (the converter's order)
            ordered = {}
            for name, default, factory in defaults:
                if name in values:
                    ordered[name] = values[name]
                elif factory is not missing:
                    ordered[name] = factory()
                elif default is not missing:
                    ordered[name] = default
                else:
                    return target(**values)  # raises: a required field is missing
            values = ordered
        obj: Any = object.__new__(target)
        obj.__dict__.update(values)
        return obj

    return make


def _by_init(target: type, values: dict[str, Any]) -> Any:
    return target(**values)


def _as_is(data: Any) -> Any:
    """An annotation with nothing to check (``Any``, ``object``): the value as it is."""
    return data


_SCALARS: dict[Any, Any] = {int: int, float: (int, float), str: str, bool: bool}


def _json_type(data: Any) -> str:
    return {dict: "an object", list: "a list", str: "a string", bool: "a boolean", int: "a number",
            float: "a number", type(None): "null"}.get(type(data), type(data).__name__)


@functools.lru_cache(maxsize=None)
def _field_hints(cls: type) -> tuple[tuple[str, Any], ...]:
    """(field name, resolved annotation) per field of a dataclass. Resolving the annotations
    (typing.get_type_hints) costs far more than building the object, so it is done once per class."""
    hints = typing.get_type_hints(cls)
    return tuple((f.name, hints[f.name]) for f in dataclasses.fields(cls))
