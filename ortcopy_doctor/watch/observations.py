"""What a watch records: plain, JSON-able data (how each call passed its values, the census of each call, the
session's placement) and its loading from JSON (``load_observations``). ``analyse_watch`` turns it into a report
without onnxruntime."""

from __future__ import annotations

import msgspec
from msgspec import field
from typing import Any, Optional

from ortcopy_doctor.model import codec
from ortcopy_doctor.model.census import TransferRecord
from ortcopy_doctor.model.vocabulary import (
    CopyKind,
    Direction,
    DEVICE_TO_DEVICE,
    DEVICE_TO_HOST,
    FEED,
    FETCH,
    HOST_TO_DEVICE,
    IN_KERNEL,
    MEMCPY_NODE,
    UNEXPLAINED,
    Word,
)

WATCH_FORMAT = "ortcopy-doctor-watch"
WATCH_FORMAT_VERSION = 1

# Directions and transfer kinds are the package's vocabulary (model.vocabulary). feed/fetch belong to the user's
# code; the others are the model's.
USER_KINDS = (FEED, FETCH)


class PlacementSource(Word):
    """Where placement came from."""

    SESSION = "session"  # get_provider_graph_assignment_info() of this session
    PREDICTED = "predicted"  # static prediction from the model file
    HOST_ONLY = "host_only"  # no device provider is active: everything is in host memory
    UNKNOWN = "unknown"


class Basis(Word):
    """Where a transfer's claim rests."""

    CENSUS = "census"  # CUPTI saw this memcpy in this call
    PLACEMENT = "placement"  # implied by the session's placement and the devices of the values (no census)
    PREDICTION = "prediction"  # implied by predicted placement (no census)


PLACEMENT_SESSION = PlacementSource.SESSION
PLACEMENT_PREDICTED = PlacementSource.PREDICTED
PLACEMENT_HOST_ONLY = PlacementSource.HOST_ONLY
PLACEMENT_UNKNOWN = PlacementSource.UNKNOWN
BASIS_CENSUS = Basis.CENSUS
BASIS_PLACEMENT = Basis.PLACEMENT
BASIS_PREDICTION = Basis.PREDICTION

_DEVICE_TYPES = {"CUDAExecutionProvider": "cuda", "TensorrtExecutionProvider": "cuda",
                 "NvTensorRTRTXExecutionProvider": "cuda", "ROCMExecutionProvider": "rocm",
                 "MIGraphXExecutionProvider": "rocm", "DmlExecutionProvider": "dml"}


# --- observations: what the watch recorded (plain data, JSON-able) -------------------------------------------------


class TensorUse(msgspec.Struct):
    """One input or output of one call, as the user's code gave or received it."""

    name: str
    role: str  # input, output
    via: str  # numpy, ortvalue, bind_cpu_input, bind_input, bind_ortvalue_input, bind_output, bind_ortvalue_output,
    #           returned (numpy output of run), bound_before_watch
    device: str  # where the value lives: cpu, cuda, cuda_pinned, ...; "" where unknown
    bytes: Optional[int] = None
    shape: Optional[list[int]] = None
    dtype: Optional[str] = None
    is_tensor: bool = True
    # IO binding inputs: bound (again) since the binding's previous run. ORT copies a bound input across devices
    # inside bind_*, once: an input bound earlier and reused costs nothing in this call.
    fresh: bool = True


class BindRecords(msgspec.Struct, frozen=True):
    """The memcpys CUPTI saw while one ``bind_*`` of this binding ran (ORT copies bound inputs at bind time)."""

    method: str
    name: str
    records: list[TransferRecord] = field(default_factory=list)


class ProfileMemcpy(msgspec.Struct, frozen=True):
    """A Memcpy node of one call as ORT's profile shows it: name, op type, output bytes, duration."""

    name: str
    op_type: str
    bytes: int
    dur_us: int


class CallProfile(msgspec.Struct, frozen=True):
    """The ORT profile's view of one call (``watch(..., profile=True)`` on a profiling session)."""

    run_dur_us: int
    memcpy_nodes: list[ProfileMemcpy] = field(default_factory=list)


class CallObservation(msgspec.Struct):
    """One call of the watched session: how it got its inputs and gave its outputs, and what CUPTI saw."""

    index: int
    method: str  # run, run_with_iobinding, run_with_ort_values
    inputs: list[TensorUse] = field(default_factory=list)
    outputs: list[TensorUse] = field(default_factory=list)
    # CUPTI records of the call itself (``traced``: a census was taken; without one, ``records`` stays empty).
    traced: bool = False
    records: list[TransferRecord] = field(default_factory=list)
    # CUPTI records of the bind_* calls made on this binding since its previous run (run_with_iobinding only).
    bind_records: list[BindRecords] = field(default_factory=list)
    start_ns: int = 0  # time.time_ns()
    end_ns: int = 0
    error: str = ""
    profile: Optional[CallProfile] = None


class ModelTransferSite(msgspec.Struct, frozen=True):
    """A place in the model where ORT itself moves data between host and device on every run."""

    kind: CopyKind  # memcpy_node, in_kernel
    direction: Direction
    node: str
    op_type: str
    tensor: str
    cause: str


class Placement(msgspec.Struct, frozen=True):
    """Where the session reads its inputs and writes its outputs, and the model's own transfer sites."""

    source: PlacementSource  # session, predicted, host_only, unknown
    provider: str  # the device provider these facts are about ("" for host_only/unknown)
    detail: str = ""
    inputs_on_device: dict[str, str] = field(default_factory=dict)  # input -> the device reader, described
    inputs_on_host: dict[str, str] = field(default_factory=dict)  # input -> why it is read in host memory
    outputs_on_device: dict[str, str] = field(default_factory=dict)  # output -> the device writer
    outputs_on_host: dict[str, str] = field(default_factory=dict)
    model_sites: list[ModelTransferSite] = field(default_factory=list)

    @property
    def device_type(self) -> str:
        """The device name of the provider for OrtValues and ``bind_*`` (cuda, rocm, dml); cuda where unknown."""
        return _DEVICE_TYPES.get(self.provider, "cuda")


class WatchObservations(msgspec.Struct):
    """Everything one watch recorded: enough to re-analyse without onnxruntime (``analyse_watch``)."""

    format: str = WATCH_FORMAT
    format_version: int = WATCH_FORMAT_VERSION
    ort_version: str = ""
    model: str = ""
    active_providers: list[str] = field(default_factory=list)
    requested_providers: list[str] = field(default_factory=list)
    placement: Placement = field(default_factory=lambda: Placement(source=PLACEMENT_UNKNOWN, provider=""))
    # What the same calls would do on a requested device provider that is not active (None: not predicted).
    predicted_placement: Optional[Placement] = None
    census_backend: str = ""  # cupti-python, or "" where no census was taken
    census_note: str = ""  # why no census was taken
    profile_note: str = ""
    calls: list[CallObservation] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)


def _is_host(device: str) -> bool:
    d = device.lower()
    return d == "cpu" or "pinned" in d or d.startswith("cpu")


def load_observations(data: dict[str, Any]) -> WatchObservations:
    """Observations from ``codec.to_builtins(w.observations)`` (e.g. a recorded fixture)."""
    if data.get("format") != WATCH_FORMAT:
        raise ValueError("not ortcopy-doctor watch observations")
    if int(data.get("format_version", 0)) > WATCH_FORMAT_VERSION:
        raise ValueError(f"watch observations format {data.get('format_version')} is newer than this ortcopy-doctor reads")
    observations: WatchObservations = codec.convert(data, WatchObservations)
    return observations


__all__ = [
    "BASIS_CENSUS", "BASIS_PLACEMENT", "BASIS_PREDICTION", "Basis", "DEVICE_TO_DEVICE", "DEVICE_TO_HOST", "FEED",
    "FETCH", "HOST_TO_DEVICE", "IN_KERNEL", "MEMCPY_NODE", "PLACEMENT_HOST_ONLY", "PLACEMENT_PREDICTED",
    "PLACEMENT_SESSION", "PLACEMENT_UNKNOWN", "PlacementSource", "UNEXPLAINED", "USER_KINDS", "WATCH_FORMAT",
    "WATCH_FORMAT_VERSION", "BindRecords",
    "CallObservation", "CallProfile", "ModelTransferSite", "Placement", "ProfileMemcpy", "TensorUse",
    "WatchObservations", "load_observations",
]
