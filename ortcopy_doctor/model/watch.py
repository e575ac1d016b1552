"""What a watch records and what it reports, as plain data: how each call passed its values, the census of each
call and the session's placement (``WatchObservations``, read back by ``load_observations``), and the report
``analyse_watch`` (analysis/watch.py) makes of them (``WatchReport``: each call's inputs, outputs and transfers).

The types and their queries only; the watch records and analyses them, ``render.watch`` writes the report's text,
``WatchReport.to_json`` its JSON (through ``model.codec``). ``WatchReport.assert_no_host_transfers`` is the pytest API.
"""

from __future__ import annotations

import msgspec
from collections.abc import Sequence
from msgspec import field
from typing import Any, Optional

from ortcopy_doctor.model import codec
from ortcopy_doctor.model.census import TransferRecord
from ortcopy_doctor.model.format import fmt_bytes
from ortcopy_doctor.model.providers import is_device, short
from ortcopy_doctor.model.text import safe
from ortcopy_doctor.model.vocabulary import (
    CopyKind,
    Direction,
    DEVICE_TO_HOST,
    FEED,
    FETCH,
    HOST_TO_DEVICE,
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


def is_host(device: str) -> bool:
    """Whether a value's device (``TensorUse.device``: cpu, cuda_pinned, ...) is host memory."""
    d = device.lower()
    return d == "cpu" or "pinned" in d or d.startswith("cpu")


def load_observations(data: dict[str, Any]) -> WatchObservations:
    """Observations from ``codec.to_builtins(w.observations)`` (e.g. a recorded fixture)."""
    return codec.convert_versioned(data, WatchObservations, WATCH_FORMAT, WATCH_FORMAT_VERSION, "watch observations")


# --- the report: what the watched calls moved, and the fixes ------------------------------------------------------


class Transfer(msgspec.Struct, frozen=True):
    """One host<->device transfer of one watched call."""

    call: int
    kind: CopyKind  # feed, fetch (the user's code); memcpy_node, in_kernel, unexplained (the model's / ORT's)
    direction: Direction  # host_to_device, device_to_host
    tensor: str
    bytes: Optional[int]
    basis: Basis  # census, placement, prediction
    phase: str = "run"  # run, or bind (copied inside a bind_* call of the binding)
    node: str = ""
    src_kind: str = ""  # census only: pageable, pinned, device
    dst_kind: str = ""
    cause: str = ""
    fix: str = ""
    duration_ns: Optional[int] = None  # census only: the memcpy's device time, as CUPTI timed it

    @property
    def user(self) -> bool:
        """Whether the calling code causes it (and can remove it)."""
        return self.kind in USER_KINDS

    def describe(self) -> str:
        """One line: call, kind, direction, tensor or node, size, phase (when not run) and basis."""
        size = "? B" if self.bytes is None else fmt_bytes(self.bytes)
        arrow = "H2D" if self.direction == HOST_TO_DEVICE else "D2H"
        where = f" in {self.phase}" if self.phase != "run" else ""
        return f"call {self.call}: {self.kind} {arrow} '{self.tensor or self.node}' {size}{where} [{self.basis}]"


class TensorReport(msgspec.Struct, frozen=True):
    """One input or output of one call: how it was given, where it lives and is needed, the copy implied."""

    name: str
    role: str  # input, output
    via: str
    device: str  # where the user's value lives / the output was delivered
    needed_on: str  # device, host, unknown: where the session reads (input) or writes (output) it
    transfer: str = ""  # host_to_device, device_to_host, or "" (none implied)
    bytes: Optional[int] = None


class CallReport(msgspec.Struct, frozen=True):
    """One watched call: its inputs and outputs, its transfers, its census totals, discrepancies and fixes."""

    index: int
    method: str
    inputs: list[TensorReport]
    outputs: list[TensorReport]
    transfers: list[Transfer]
    # direction -> [count, bytes] of every memcpy CUPTI saw in this call (bind_* included); None without a census.
    census: Optional[dict[str, list[int]]] = None
    discrepancies: list[str] = field(default_factory=list)
    fixes: list[str] = field(default_factory=list)
    error: str = ""

    @property
    def inputs_from_host(self) -> list[str]:
        """Inputs given in host memory that the session reads on the device (each one is copied)."""
        return [t.name for t in self.inputs if t.transfer == HOST_TO_DEVICE]

    @property
    def outputs_to_host(self) -> list[str]:
        """Outputs produced on the device and delivered to host memory (each one is copied)."""
        return [t.name for t in self.outputs if t.transfer == DEVICE_TO_HOST]

    @property
    def on_device(self) -> list[str]:
        """Inputs and outputs the code gave or received in device memory."""
        return [t.name for t in self.inputs + self.outputs if t.device and not is_host(t.device)]

    @property
    def user_transfers(self) -> list[Transfer]:
        """The transfers of the calling code (feed and fetch copies)."""
        return [t for t in self.transfers if t.user]

    @property
    def model_transfers(self) -> list[Transfer]:
        """The transfers of the model itself (Memcpy nodes, in-kernel, unexplained)."""
        return [t for t in self.transfers if not t.user]


class WatchReport(msgspec.Struct, frozen=True):
    """What the watched calls moved between host and device, and what to change in the calling code (its text:
    ``render.watch.render_watch_text``; its JSON: ``to_json``)."""

    calls: list[CallReport]
    providers: list[str]
    placement_source: PlacementSource  # session, predicted, host_only, unknown
    placement_detail: str
    observed: list[str]  # what was observed in this process
    not_observed: list[str]  # what could not be observed, and why
    notes: list[str]
    predicted: Optional[WatchReport] = None  # the same calls on a requested device provider that is not active
    observations: Optional[WatchObservations] = None

    # queries -----------------------------------------------------------------------------------------------------

    def transfers(self) -> list[Transfer]:
        """Every transfer of every call, in call order."""
        return [t for c in self.calls for t in c.transfers]

    def host_transfers(self, except_inputs: Sequence[str] = (), except_outputs: Sequence[str] = ()) -> list[Transfer]:
        """Feed and fetch copies of the user's calls, less the excepted tensors."""
        skip_in, skip_out = set(except_inputs), set(except_outputs)
        result = []
        for t in self.transfers():
            if not t.user:
                continue
            if t.kind == FEED and t.tensor in skip_in or t.kind == FETCH and t.tensor in skip_out:
                continue
            result.append(t)
        return result

    def model_transfers(self) -> list[Transfer]:
        """Transfers of the model itself (Memcpy nodes, in-kernel, unexplained): not the calling code's."""
        return [t for t in self.transfers() if not t.user]

    def assert_no_host_transfers(self, except_inputs: Sequence[str] = (), except_outputs: Sequence[str] = (), *,
                                 predicted: bool = False) -> None:
        """Raise ``AssertionError`` listing each feed/fetch copy of the watched calls (call, tensor, direction,
        bytes) and its fix. Memcpy-node and in-kernel transfers are the model's and do not count.

        ``predicted=True`` also fails on the copies predicted for a requested device provider that is not active
        (e.g. a CUDA session that fell back to CPU on a machine without a GPU).
        """
        if not self.calls:
            raise AssertionError("ortcopy-doctor watch recorded no session call: run the session inside the "
                                 "`with watch(session)` block (run, run_with_iobinding or run_with_ort_values)")
        if predicted and self.predicted is None and not any(is_device(p) for p in self.providers):
            # no device provider is active and nothing was predicted: passing would say nothing about the device
            why = next((n for n in self.notes if n.startswith("no prediction for")), "")
            raise AssertionError(
                "ortcopy-doctor watch: assert_no_host_transfers(predicted=True), but there is no prediction for a "
                "device" + (f" ({why})" if why else "") + ": pass watch(..., predict_for='CUDAExecutionProvider') "
                "(or 'cuda'), or drop predicted=True")
        offending = self.host_transfers(except_inputs, except_outputs)
        label = ""
        if predicted and self.predicted is not None:
            extra = self.predicted.host_transfers(except_inputs, except_outputs)
            if extra and not offending:
                label = f" (predicted for {short(self.predicted.providers[0]) if self.predicted.providers else 'the device'})"
            offending = offending + extra
        if not offending:
            return
        lines = [f"{len(offending)} host<->device transfer(s) in the watched calls{label}:"]
        for t in offending:
            lines.append(f"  - {t.describe()}: {t.cause}")
            if t.fix:
                lines.append(f"    fix: {t.fix}")
        model = self.model_transfers() + (self.predicted.model_transfers() if predicted and self.predicted else [])
        if model:
            lines.append(f"(not counted: {len(model)} transfer(s) of the model itself, e.g. Memcpy nodes: "
                         "only a model or placement change removes those)")
        if self.placement_source == PLACEMENT_PREDICTED:
            lines.append("(placement is predicted from the model: create the session with "
                         "ortcopy_doctor.instrumented_session to use the session's own placement)")
        raise AssertionError("\n".join(safe(line) for line in lines))  # pytest prints it to the CI log as it is

    # output ------------------------------------------------------------------------------------------------------

    def to_dict(self) -> dict[str, Any]:
        """JSON-able: the fields, each call with its ``inputs_from_host``/``outputs_to_host``/``on_device``."""
        data = {k: codec.to_builtins(getattr(self, k)) for k in ("providers", "placement_source", "placement_detail",
                                                           "observed", "not_observed", "notes")}
        calls = []
        for call in self.calls:
            entry = codec.to_builtins(call)
            entry.update(inputs_from_host=call.inputs_from_host, outputs_to_host=call.outputs_to_host,
                         on_device=call.on_device)
            calls.append(entry)
        return {"format": WATCH_FORMAT + "-report", "format_version": WATCH_FORMAT_VERSION, **data, "calls": calls,
                "predicted": None if self.predicted is None else self.predicted.to_dict(),
                "observations": None if self.observations is None else codec.to_builtins(self.observations)}

    def to_json(self) -> str:
        """``to_dict`` as indented JSON."""
        return codec.to_json(self.to_dict())


__all__ = [
    "BASIS_CENSUS", "BASIS_PLACEMENT", "BASIS_PREDICTION", "Basis", "BindRecords", "CallObservation", "CallProfile",
    "CallReport", "ModelTransferSite", "PLACEMENT_HOST_ONLY", "PLACEMENT_PREDICTED", "PLACEMENT_SESSION",
    "PLACEMENT_UNKNOWN", "Placement", "PlacementSource", "ProfileMemcpy", "TensorReport", "TensorUse", "Transfer",
    "USER_KINDS", "WATCH_FORMAT", "WATCH_FORMAT_VERSION", "WatchObservations", "WatchReport", "is_host",
    "load_observations",
]
