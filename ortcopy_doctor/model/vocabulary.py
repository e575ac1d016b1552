"""The closed sets of names every layer uses: kinds of copy, directions, census classes, the closed sets of the
evidence (its mode, where a feed came from, the binding measurement's status) and of the report (where a tensor is
bound, what a copy was derived from, the recommendation's variants and verdicts): strings in the JSON.

Each set is an enum of ``Word``: a ``str`` that equals, hashes, prints and formats as its JSON value on every Python
version (``CopyKind.FEED == "feed"``, ``f"{CopyKind.FEED}" == "feed"``), so dict keys, comparisons with plain strings
and the JSON written stay what they were. The module-level names (``FEED``, ``HOST_TO_DEVICE``, ...) are the members.
"""

from __future__ import annotations

import enum


class Word(str, enum.Enum):
    """A member of a closed set of names: a ``str`` enum whose ``str()`` and ``format()`` give the plain value.

    ``(str, enum.Enum)`` rather than ``enum.StrEnum`` (Python 3.11) because 3.10 is supported. Since Python 3.11
    ``str()`` and ``format()`` of a mixed-in enum give ``Class.MEMBER`` (3.10 formatted the value), so both are fixed
    here, for every version. Members hash like their values (dict keys)."""

    def __str__(self) -> str:
        return str.__str__(self)

    def __format__(self, format_spec: str) -> str:
        return str.__format__(str.__str__(self), format_spec)

    __hash__ = str.__hash__


class CopyKind(Word):
    """The kind of a host<->device copy (docs/ort-notes.md), or ``unexplained`` for a traced one no rule explains."""

    FEED = "feed"  # a host input consumed on the device
    FETCH = "fetch"  # an output produced on the device, returned to the host
    MEMCPY_NODE = "memcpy_node"  # a Memcpy node ORT inserted at a CPU/device boundary
    IN_KERNEL = "in_kernel"  # a kernel's own transfer inside its run
    UNEXPLAINED = "unexplained"  # traced by the census, explained by no rule (counted, never dropped)


class Direction(Word):
    """Which way a copy goes."""

    HOST_TO_DEVICE = "host_to_device"
    DEVICE_TO_HOST = "device_to_host"
    DEVICE_TO_DEVICE = "device_to_device"


class CensusClass(Word):
    """Where a traced transfer belongs: one of the four kinds of copy, or a class beyond them."""

    FEED = "feed"
    FETCH = "fetch"
    MEMCPY_NODE = "memcpy_node"
    IN_KERNEL = "in_kernel"
    DEVICE_TO_DEVICE = "device_to_device"  # does not cross the bus
    OTHER_COPY = "other_copy"  # host_to_host, peer_to_peer, ...: neither crosses host<->device nor is D2D
    OUTSIDE = "outside"  # issued outside every model_run event
    BETWEEN_NODES = "between_nodes"  # inside a run, after its first node started and before its last ended, in no node


class EvidenceMode(Word):
    """How the evidence was gathered (``Evidence.mode``)."""

    MEASURED = "measured"  # a session ran, profiled
    STATIC = "static"  # predicted from the model file (check --static)


class FeedSource(Word):
    """Where an input fed to ``run()`` came from (``Feed.source``)."""

    SYNTHESIZED = "synthesized"
    FILE = "file"  # --inputs
    VALUE = "value"  # --value NAME=V


class StateBasis(Word):
    """Why an output is taken as the next run's input (``BindingEntry.state_basis``): only evidence pairs them.

    A pair seen only in names and shapes alike (``image_in``/``image_out``) is a guess: said, never carried."""

    GIVEN = "given"  # check --state IN=OUT
    RECURRENT_NODE = "recurrent_node"  # the initial state of an RNN/GRU/LSTM node in, its final state out
    CONVENTION = "convention"  # an exporter's naming of recurrent state: past/present, state/stateN, cache_in/out
    GUESS = "guess"  # names and shapes alike, nothing more: not carried


class CodeCheckStatus(Word):
    """What became of running a generated code block next to plain ``run()`` (``CodeCheck.status``)."""

    MATCHED = "matched"  # every call's outputs equal plain run()'s (floats within the stated tolerance)
    DIFFERS = "differs"  # a call's outputs differ from plain run()'s
    FAILED = "failed"  # the code raised
    NOT_RUN = "not_run"  # it could not run here (the detail says why)


# The generated code blocks a report may offer (``CodeCheck.block``), as the report names them.
CODE_BLOCK_LABELS = {"plan": "the binding plan's code", "plan_torch": "the plan's torch code",
                     "plan_cupy": "the plan's cupy code", "all_device": "the everything-on-the-device code",
                     "cuda_graph": "the CUDA-graph code", "cpu_provider": "the CPU-provider code"}


class MeasurementStatus(Word):
    """What became of the A/B measurement of binding variants (``BindingMeasurement.status``)."""

    MEASURED = "measured"
    SKIPPED = "skipped"  # asked for, or on by default, but it could not run here (the reason says why)
    OFF = "off"  # --no-measure-binding
    FAILED = "failed"


class ValueKind(Word):
    """What an input or output of the model holds (``ValueInfo.kind``)."""

    TENSOR = "tensor"
    SEQUENCE = "sequence"
    MAP = "map"
    OPTIONAL = "optional"
    SPARSE_TENSOR = "sparse_tensor"
    UNKNOWN = "unknown"


class MemcpyOp(Word):
    """The op types of the Memcpy nodes ORT inserts at a CPU/device boundary (``MemcpyInsertion.op_type``)."""

    TO_HOST = "MemcpyToHost"
    FROM_HOST = "MemcpyFromHost"


class Role(Word):
    """Whether a value is an input or an output of the model."""

    INPUT = "input"
    OUTPUT = "output"


class BindingPlace(Word):
    """Where an input or output should live for IO binding (``BindingEntry.place``)."""

    DEVICE = "device"
    HOST = "host"
    UNBOUND = "unbound"  # a sequence or map: it cannot be bound


class PlacedBy(Word):
    """What placed a traced transfer on the profile's clock (``AttributedTransfer.placed_by``)."""

    API = "api"  # the start of the runtime/driver API call that issued it
    DEVICE = "device"  # the memcpy's start on the device: the census has no API record of it


class CensusCheck(Word):
    """What a consistency check of the census compares (``ConsistencyCheck.check``)."""

    MEMCPY_NODE_BYTES = "memcpy_node_bytes"  # a Memcpy node's traced bytes against the profile's output_size
    FEED_BYTES = "feed_bytes"  # an input's traced host->device bytes against the array fed
    FETCH_BYTES = "fetch_bytes"  # an output's traced bytes against the analysis
    IN_KERNEL_BYTES = "in_kernel_bytes"  # a node's in-kernel transfer bytes against the analysis


class CopySource(Word):
    """What a copy of the report was derived from (``Copy.source``)."""

    PLACEMENT = "placement"  # the nodes' placement: a feed or fetch, or an in-kernel transfer of a known op
    PREDICTED = "predicted"  # a Memcpy node of a prediction (check --static)
    PROFILE = "profile"  # a Memcpy node seen in the profile only
    LOG = "log"  # a Memcpy node seen in ORT's log only
    PROFILE_AND_LOG = "profile+log"  # a Memcpy node seen in both
    CENSUS = "census"  # a transfer the census traced that no other source explains


class AdviceStatus(Word):
    """Whether the recommendation rests on a measurement (``Advice.status``)."""

    MEASURED = "measured"
    NOT_MEASURED = "not_measured"


class Variant(Word):
    """A variant of the binding A/B that the recommendation may name (``Advice.recommended``,
    ``BindingView.recommended``); ``NONE`` ("") where nothing is recommended (not measured)."""

    NONE = ""
    PLAIN = "plain"  # plain run(): no change
    PLAN = "plan"  # the binding plan's code
    ALL_DEVICE = "all_device"  # everything bound on the device
    CUDA_GRAPH = "cuda_graph"  # the CUDA graph
    CPU_PROVIDER = "cpu_provider"  # the CPU provider instead of CUDA (evidence.provider_choice; issue 34)


class VariantVerdict(Word):
    """A measured variant against another by the 95% interval of the ratio of their medians
    (``VariantAdvice.verdict``, ``Advice.cuda_graph_vs_plan``); ``NONE`` ("") where no comparison was made."""

    NONE = ""
    BASELINE = "baseline"  # plain run() itself
    FASTER = "faster"  # the interval lies above 1
    SLOWER = "slower"  # the interval lies below 1
    WITHIN_NOISE = "within_noise"  # the interval holds 1
    NOT_RUN = "not_run"  # the variant did not run
    NOT_COMPARED = "not_compared"  # no interval: too few samples, or a side did not run


class CiMethod(Word):
    """How an interval of a speed-up was computed (``Advice.ci_method``; analysis/stats.py); ``NONE`` ("") where
    none was."""

    NONE = ""
    BOOTSTRAP_PAIRED = "bootstrap_paired"  # paired bootstrap over the interleaved rounds
    BOOTSTRAP = "bootstrap"  # unpaired bootstrap
    SUMMARY = "summary"  # approximate, from the medians, quartiles and run counts (no raw samples recorded)


class LinkHow(Word):
    """How ``run`` traced a consumed value back to the output that produced it (``ValueLink.how``, ``HandOff.how``)."""

    OBJECT = "object"  # the very object the producing call returned (or bound)
    VIEW = "view"  # a numpy view of it, or another array over the same host buffer (torch.from_numpy, ...)
    POINTER = "pointer"  # the same device/host pointer (an OrtValue of a binding, bind_input(buffer_ptr=...))
    DOWNLOAD = "download"  # the user's code turned the OrtValue output into numpy (OrtValue.numpy(), ...)
    HASH = "hash"  # a different host array with equal bytes (a copy: .copy(), astype, np.array(...))


class HandedAs(Word):
    """What the program handed to or got from a call (``pipeline.ValueInfo.kind``)."""

    NUMPY = "numpy"
    ORTVALUE = "ortvalue"
    TORCH_CPU = "torch_cpu"
    TORCH_CUDA = "torch_cuda"
    CUPY = "cupy"
    HOST_POINTER = "host_pointer"
    DEVICE_POINTER = "device_pointer"
    OTHER = "other"


class HandOffKind(Word):
    """What a hand-off between two calls is (``HandOff.kind``)."""

    ROUND_TRIP = "round_trip"  # device->host after the producing call, and back host->device as the consumer's input
    POSSIBLE_ROUND_TRIP = "possible_round_trip"  # state that would be a round trip, traced by equal bytes alone
    DEVICE = "device"  # handed over on the device
    HOST = "host"  # through host memory, but one end lives there anyway


class StageKind(Word):
    """A row of a pipeline's stage table (``StageRow.kind``)."""

    HOST = "host"
    INFERENCE = "inference"
    DOWNLOAD = "download"


class HandoffBlock(Word):
    """What a block of hand-off code does (``HandoffCode.kind``)."""

    BETWEEN = "between"  # hands an output of one session to the next one
    STATE = "state"  # carries a session's state from one call to the next


class Ending(Word):
    """How a program run under ``ortcopy-doctor run`` ended (``ended_by``)."""

    EXIT = "exit"
    EXCEPTION = "exception"
    INTERRUPT = "interrupt"
    SIGNAL = "signal"  # killed by the signal the report's error names


def same_name(a: str, b: str) -> bool:
    """Whether two names are the same string: a ``CopyKind`` and a ``CensusClass`` (``FEED`` of each), or either and
    a plain ``str``. ``==`` says the same at run time; this says to the type checker that two sets are compared."""
    return str.__eq__(a, b)


# The four kinds of host<->device copy.
FEED = CopyKind.FEED
FETCH = CopyKind.FETCH
MEMCPY_NODE = CopyKind.MEMCPY_NODE
IN_KERNEL = CopyKind.IN_KERNEL
COPY_KINDS = (FEED, FETCH, MEMCPY_NODE, IN_KERNEL)

HOST_TO_DEVICE = Direction.HOST_TO_DEVICE
DEVICE_TO_HOST = Direction.DEVICE_TO_HOST
DEVICE_TO_DEVICE = Direction.DEVICE_TO_DEVICE
HOST_DEVICE = (HOST_TO_DEVICE, DEVICE_TO_HOST)

# Census classes beyond the four kinds: where a traced transfer belongs when it is none of them.
OTHER_COPY = CensusClass.OTHER_COPY
OUTSIDE = CensusClass.OUTSIDE
BETWEEN_NODES = CensusClass.BETWEEN_NODES
CENSUS_CLASSES = tuple(CensusClass)
UNEXPLAINED = CopyKind.UNEXPLAINED

MEMCPY_OPS = (MemcpyOp.TO_HOST, MemcpyOp.FROM_HOST)

class FailOn(Word):
    """The severities ``--fail-on`` takes: exit 1 where a finding is at or above it; ``never``: no finding fails."""

    ERROR = "error"
    WARNING = "warning"
    INFO = "info"
    NEVER = "never"


class FasterSide(Word):
    """Which provider a sweep's shape measured faster (``ShapeResult.faster``): CUDA or the CPU provider; ``NONE``
    ("") where it was not measured, or the two are within noise."""

    NONE = ""
    CUDA = "CUDA"
    CPU = "CPU"


class GraphBlocker(Word):
    """What keeps a model from running as a captured CUDA graph (report/variants.py ``cuda_graph_blockers``)."""

    NO_DEVICE = "no_device"  # the session's first provider is no device
    MEMCPY_NODE = "memcpy_node"  # ORT inserted a Memcpy node: capture is refused at session creation
    CPU_NODE = "cpu_node"  # a node on CPU: the same
    CONTROL_FLOW = "control_flow"  # If, Loop, Scan: their branches and trip counts cannot be replayed
    IN_KERNEL_TRANSFER = "in_kernel_transfer"  # a kernel that synchronises with the host
    DATA_DEPENDENT_SHAPE = "data_dependent_shape"  # an output whose size depends on the data
    UNBOUND_INPUT = "unbound_input"  # an input that cannot sit at a fixed device address
    UNBOUND_OUTPUT = "unbound_output"  # an output that cannot


class RowStatus(Word):
    """How a row's child check ended."""

    OK = "ok"  # the check wrote its report (exit 0, or 1 where a gate of its own failed: the report stands)
    FAILED = "failed"  # the check refused the model or its flags (its one-line error; exit 2-5, no report)
    CRASHED = "crashed"  # the child died of a signal (a segfaulting custom-op library) or without a report
    TIMEOUT = "timeout"  # the child ran past the row's timeout and was killed
    INTERRUPTED = "interrupted"  # Ctrl-C stopped the audit while the row ran (not written: --resume runs it again)


class RegressionKind(Word):
    """What a baseline comparison names (each can be allowed with ``--allow-regression KIND``)."""

    NEW_MEMCPY = "new_memcpy"  # more Memcpy nodes than in the baseline
    NEW_FALLBACK = "new_fallback"  # a node (op type) on the CPU that the baseline ran on the device
    MORE_COPIES = "more_copies"  # more host<->device copies per run
    MORE_BYTES = "more_bytes"  # more bytes copied per run
    SLOWER = "slower"  # the median run's 95% interval above the baseline's (outside its CI band)
    NEWLY_FAILING = "newly_failing"  # ok in the baseline, not ok now
    MISSING = "missing"  # in the baseline, not in this audit


__all__ = ["AdviceStatus", "BETWEEN_NODES", "BindingPlace", "CENSUS_CLASSES", "CODE_BLOCK_LABELS", "COPY_KINDS",
           "CensusCheck", "CensusClass", "CiMethod", "CodeCheckStatus", "CopyKind", "CopySource", "DEVICE_TO_DEVICE",
           "DEVICE_TO_HOST", "Direction", "EvidenceMode", "FEED", "FETCH", "FailOn", "FasterSide", "FeedSource", "GraphBlocker", "HOST_DEVICE", "HOST_TO_DEVICE",
           "IN_KERNEL", "MEMCPY_NODE", "MEMCPY_OPS", "MeasurementStatus", "MemcpyOp", "OTHER_COPY", "OUTSIDE",
           "PlacedBy", "RegressionKind", "Role", "RowStatus", "StateBasis", "UNEXPLAINED", "ValueKind", "Variant", "VariantVerdict", "Word", "same_name"]
