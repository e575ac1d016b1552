"""Watch mode: audit the user's own calls of an existing ``onnxruntime.InferenceSession``.

>>> from ortcopy_doctor import watch
>>> with watch(session) as w:                                   # doctest: +SKIP
...     outputs = session.run(None, {"x": x})
>>> print(w.report.to_text())                                   # doctest: +SKIP
>>> w.report.assert_no_host_transfers(except_outputs=["y"])     # doctest: +SKIP

For the duration of the ``with`` block the session's ``run``, ``run_with_iobinding`` and ``run_with_ort_values``
(instance attributes) and the ``bind_*`` / ``clear_binding_*`` methods of ``onnxruntime.IOBinding`` (class
attributes; only bindings of the watched session are recorded) are wrapped; all are restored on exit, also when
the block raises. Per call it records where each input was given (numpy, an OrtValue and its ``device_name()``,
what was bound with which ``bind_*``) and where each output was delivered, and, where CUPTI can trace, the
memcpys of exactly that call (one ``census.CuptiTracer`` around each call and each ``bind_*``: ORT copies a
host input bound for a device consumer inside ``bind_cpu_input``, not inside ``run_with_iobinding``).

Placement (which inputs a device kernel reads in device memory, which outputs it writes there) comes from the
session itself where it was created with the session config ``session.record_ep_graph_assignment_info=1``
(``instrumented_session`` does that and also keeps the graph ORT ran), else from static prediction
(``predict.predict``) on the model file, and the report says which.

What counts as a *host transfer of the user's code* (``assert_no_host_transfers``): feed copies (an input given
in host memory that a device kernel reads, or given on the device and read in host memory) and fetch copies (an
output produced on the device and delivered to host memory, or produced on the host and bound on the device).
Those are the ones the calling code can remove. Transfers of Memcpy nodes ORT inserted (a CPU-fallback op) and
transfers inside kernels (NonZero's count) are the model's: reported per call as ``model`` transfers, never
counted by ``assert_no_host_transfers``.

Recorded observations (``Watch.observations``) are plain data: ``analyse_watch`` turns them into a report without
onnxruntime, which is how the recorded GPU fixtures are replayed (tests/fixtures/watch, tools/record_watch.py).
"""

from __future__ import annotations

import contextlib
import inspect
import json
import os
import shutil
import tempfile
import threading
import time
import types
import weakref
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Optional

from ortcopy_doctor.model.format import fmt_bytes
from ortcopy_doctor.collect.census import CuptiTracer
from ortcopy_doctor.model.census import TransferRecord
from ortcopy_doctor.model.evidence import MemcpyInsertion, RuntimeNode, from_jsonable, to_jsonable
from ortcopy_doctor.knowledge.providers import CPU, is_device, short

WATCH_FORMAT = "ortcopy-doctor-watch"
WATCH_FORMAT_VERSION = 1

HOST_TO_DEVICE = "host_to_device"
DEVICE_TO_HOST = "device_to_host"
DEVICE_TO_DEVICE = "device_to_device"

# Transfer kinds. feed/fetch belong to the user's code; the others are the model's.
FEED = "feed"
FETCH = "fetch"
MEMCPY_NODE = "memcpy_node"
IN_KERNEL = "in_kernel"
UNEXPLAINED = "unexplained"
USER_KINDS = (FEED, FETCH)

# Where placement came from.
PLACEMENT_SESSION = "session"  # get_provider_graph_assignment_info() of this session
PLACEMENT_PREDICTED = "predicted"  # static prediction from the model file
PLACEMENT_HOST_ONLY = "host_only"  # no device provider is active: everything is in host memory
PLACEMENT_UNKNOWN = "unknown"

# Where a transfer's claim rests.
BASIS_CENSUS = "census"  # CUPTI saw this memcpy in this call
BASIS_PLACEMENT = "placement"  # implied by the session's placement and the devices of the values (no census)
BASIS_PREDICTION = "prediction"  # implied by predicted placement (no census)

_DEVICE_TYPES = {"CUDAExecutionProvider": "cuda", "TensorrtExecutionProvider": "cuda",
                 "NvTensorRTRTXExecutionProvider": "cuda", "ROCMExecutionProvider": "rocm",
                 "MIGraphXExecutionProvider": "rocm", "DmlExecutionProvider": "dml"}


# --- observations: what the watch recorded (plain data, JSON-able) -------------------------------------------------


@dataclass
class TensorUse:
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


@dataclass
class BindRecords:
    """The memcpys CUPTI saw while one ``bind_*`` of this binding ran (ORT copies bound inputs at bind time)."""

    method: str
    name: str
    records: list[TransferRecord] = field(default_factory=list)


@dataclass
class ProfileMemcpy:
    name: str
    op_type: str
    bytes: int
    dur_us: int


@dataclass
class CallProfile:
    """The ORT profile's view of one call (``watch(..., profile=True)`` on a profiling session)."""

    run_dur_us: int
    memcpy_nodes: list[ProfileMemcpy] = field(default_factory=list)


@dataclass
class CallObservation:
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


@dataclass
class ModelTransferSite:
    """A place in the model where ORT itself moves data between host and device on every run."""

    kind: str  # memcpy_node, in_kernel
    direction: str
    node: str
    op_type: str
    tensor: str
    cause: str


@dataclass
class Placement:
    """Where the session reads its inputs and writes its outputs, and the model's own transfer sites."""

    source: str  # session, predicted, host_only, unknown
    provider: str  # the device provider these facts are about ("" for host_only/unknown)
    detail: str = ""
    inputs_on_device: dict[str, str] = field(default_factory=dict)  # input -> the device reader, described
    inputs_on_host: dict[str, str] = field(default_factory=dict)  # input -> why it is read in host memory
    outputs_on_device: dict[str, str] = field(default_factory=dict)  # output -> the device writer
    outputs_on_host: dict[str, str] = field(default_factory=dict)
    model_sites: list[ModelTransferSite] = field(default_factory=list)

    @property
    def device_type(self) -> str:
        return _DEVICE_TYPES.get(self.provider, "cuda")


@dataclass
class WatchObservations:
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


# --- the report -----------------------------------------------------------------------------------------------------


@dataclass
class Transfer:
    """One host<->device transfer of one watched call."""

    call: int
    kind: str  # feed, fetch (the user's code); memcpy_node, in_kernel, unexplained (the model's / ORT's)
    direction: str  # host_to_device, device_to_host
    tensor: str
    bytes: Optional[int]
    basis: str  # census, placement, prediction
    phase: str = "run"  # run, or bind (copied inside a bind_* call of the binding)
    node: str = ""
    src_kind: str = ""  # census only: pageable, pinned, device
    dst_kind: str = ""
    cause: str = ""
    fix: str = ""

    @property
    def user(self) -> bool:
        """Whether the calling code causes it (and can remove it)."""
        return self.kind in USER_KINDS

    def describe(self) -> str:
        size = "? B" if self.bytes is None else fmt_bytes(self.bytes)
        arrow = "H2D" if self.direction == HOST_TO_DEVICE else "D2H"
        where = f" in {self.phase}" if self.phase != "run" else ""
        return f"call {self.call}: {self.kind} {arrow} '{self.tensor or self.node}' {size}{where} [{self.basis}]"


@dataclass
class TensorReport:
    name: str
    role: str  # input, output
    via: str
    device: str  # where the user's value lives / the output was delivered
    needed_on: str  # device, host, unknown: where the session reads (input) or writes (output) it
    transfer: str = ""  # host_to_device, device_to_host, or "" (none implied)
    bytes: Optional[int] = None


@dataclass
class CallReport:
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
        return [t.name for t in self.inputs + self.outputs if t.device and not _is_host(t.device)]

    @property
    def user_transfers(self) -> list[Transfer]:
        return [t for t in self.transfers if t.user]

    @property
    def model_transfers(self) -> list[Transfer]:
        return [t for t in self.transfers if not t.user]


@dataclass
class WatchReport:
    """What the watched calls moved between host and device, and what to change in the calling code."""

    calls: list[CallReport]
    providers: list[str]
    placement_source: str  # session, predicted, host_only, unknown
    placement_detail: str
    observed: list[str]  # what was observed in this process
    not_observed: list[str]  # what could not be observed, and why
    notes: list[str]
    predicted: Optional[WatchReport] = None  # the same calls on a requested device provider that is not active
    observations: Optional[WatchObservations] = None

    # queries -----------------------------------------------------------------------------------------------------

    def transfers(self) -> list[Transfer]:
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
        raise AssertionError("\n".join(lines))

    # output ------------------------------------------------------------------------------------------------------

    def to_dict(self) -> dict[str, Any]:
        """JSON-able: the fields, each call with its ``inputs_from_host``/``outputs_to_host``/``on_device``."""
        data = {k: to_jsonable(getattr(self, k)) for k in ("providers", "placement_source", "placement_detail",
                                                           "observed", "not_observed", "notes")}
        calls = []
        for call in self.calls:
            entry = to_jsonable(call)
            entry.update(inputs_from_host=call.inputs_from_host, outputs_to_host=call.outputs_to_host,
                         on_device=call.on_device)
            calls.append(entry)
        return {"format": WATCH_FORMAT + "-report", "format_version": WATCH_FORMAT_VERSION, **data, "calls": calls,
                "predicted": None if self.predicted is None else self.predicted.to_dict(),
                "observations": None if self.observations is None else to_jsonable(self.observations)}

    def to_json(self) -> str:
        return json.dumps(self.to_dict(), indent=1, ensure_ascii=False)

    def to_text(self) -> str:
        lines = [f"ortcopy-doctor watch: {len(self.calls)} call(s) on {', '.join(short(p) for p in self.providers)}; "
                 f"placement: {self.placement_source}" + (f" ({self.placement_detail})" if self.placement_detail else "")]
        lines += [f"  observed: {o}" for o in self.observed]
        lines += [f"  not observed: {o}" for o in self.not_observed]
        for call in self.calls:
            lines.append(f"call {call.index}: {call.method}" + (f" (raised: {call.error})" if call.error else ""))
            if call.census is not None:
                parts = [f"{d} {c}x {fmt_bytes(b)}" for d, (c, b) in sorted(call.census.items())]
                lines.append("  census: " + (", ".join(parts) if parts else "no memcpy"))
            lines.append(f"  inputs from host: {call.inputs_from_host or '-'}; outputs to host: {call.outputs_to_host or '-'}; "
                         f"on device: {call.on_device or '-'}")
            for t in call.transfers:
                owner = "" if t.user else " (model)"
                lines.append(f"  {t.describe()}{owner}: {t.cause}")
            for d in call.discrepancies:
                lines.append(f"  ! {d}")
            for f in call.fixes:
                lines.append(f"  fix: {f}")
        lines += [f"note: {n}" for n in self.notes]
        if self.predicted is not None:
            lines.append("")
            lines.append("predicted " + self.predicted.to_text())
        return "\n".join(lines)

    def __str__(self) -> str:
        return self.to_text()


def _is_host(device: str) -> bool:
    d = device.lower()
    return d == "cpu" or "pinned" in d or d.startswith("cpu")


# --- analysis: observations -> report (pure; no onnxruntime) --------------------------------------------------------


def analyse_watch(obs: WatchObservations) -> WatchReport:
    """The report of recorded observations; the predicted section where a device provider was requested."""
    report = _analyse(obs, obs.placement, census=True)
    if obs.predicted_placement is not None:
        report.predicted = _analyse(obs, obs.predicted_placement, census=False)
        report.predicted.providers = [obs.predicted_placement.provider, CPU]
        report.predicted.observed = []
        report.predicted.not_observed = [
            f"{obs.predicted_placement.provider} is not active in this session: every transfer here is predicted "
            "from the model for the same calls"]
    return report


def _analyse(obs: WatchObservations, placement: Placement, *, census: bool) -> WatchReport:
    observed: list[str] = []
    not_observed: list[str] = []
    if obs.calls:
        observed.append("how each call passed its inputs and received its outputs (numpy, OrtValue devices, bind_* calls)")
    basis = BASIS_PLACEMENT
    if placement.source == PLACEMENT_HOST_ONLY:
        observed.append(f"the session runs on {', '.join(short(p) for p in obs.active_providers) or 'CPU'} only: "
                        "no host<->device transfer can happen")
    elif placement.source == PLACEMENT_SESSION:
        observed.append(f"placement: the session's own EP assignment ({placement.detail})" if placement.detail
                        else "placement: the session's own EP assignment")
    elif placement.source == PLACEMENT_PREDICTED:
        basis = BASIS_PREDICTION
        if census:
            not_observed.append("the session's placement (it was not created with session config "
                                "session.record_ep_graph_assignment_info=1): placement is predicted from the model; "
                                "ortcopy_doctor.instrumented_session records it")
    else:
        not_observed.append(f"placement: {placement.detail or 'unknown'}")
    use_census = census and placement.source != PLACEMENT_HOST_ONLY
    if use_census:
        if obs.census_backend and any(c.traced for c in obs.calls):
            observed.append(f"the transfer census of each call ({obs.census_backend}): every memcpy the driver did")
        elif obs.census_note:
            not_observed.append(f"the transfer census: {obs.census_note}")
    if obs.profile_note and census:
        not_observed.append(f"the ORT profile: {obs.profile_note}")
    calls = [_analyse_call(c, placement, basis, use_census) for c in obs.calls]
    return WatchReport(calls=calls, providers=list(obs.active_providers), placement_source=placement.source,
                       placement_detail=placement.detail, observed=observed, not_observed=not_observed,
                       notes=list(obs.notes), observations=obs)


def _where(placement: Placement, use: TensorUse) -> str:
    if placement.source == PLACEMENT_HOST_ONLY:
        return "host"
    if use.role == "input":
        if use.name in placement.inputs_on_device:
            return "device"
        return "host" if use.name in placement.inputs_on_host else "unknown"
    if use.name in placement.outputs_on_device:
        return "device"
    return "host" if use.name in placement.outputs_on_host else "unknown"


def _fix(use: TensorUse, method: str, placement: Placement, direction: str) -> tuple[str, str]:
    """(cause, fix) of the copy a tensor given/delivered this way implies."""
    dev = placement.device_type
    on = short(placement.provider) or "the device"
    name = use.name
    if use.role == "input":
        reader = placement.inputs_on_device.get(name) or placement.inputs_on_host.get(name, "")
        if direction == HOST_TO_DEVICE:
            given = {"numpy": "as numpy (host memory)", "ortvalue": f"as an OrtValue on {use.device}",
                     "bind_cpu_input": "with bind_cpu_input (host memory)",
                     "bind_input": f"with bind_input(device_type={use.device!r})",
                     "bind_ortvalue_input": f"with bind_ortvalue_input of an OrtValue on {use.device}"}.get(use.via, f"in host memory ({use.via})")
            cause = f"input '{name}' arrives {given} and is read on {on} by {reader}"
            if method == "run_with_iobinding":
                fix = (f"keep '{name}' on the device: binding.bind_ortvalue_input({name!r}, value_on_{dev}) with an OrtValue "
                       f"that lives on {dev} (e.g. an output of the previous run bound with bind_output, or "
                       f"ort.OrtValue.ortvalue_from_numpy(arr, {dev!r}, 0) created once and updated with update_inplace)")
            else:
                fix = (f"pass '{name}' as an OrtValue on {dev} (ort.OrtValue.ortvalue_from_numpy(arr, {dev!r}, 0), created "
                       f"once and reused) or bind it with binding.bind_ortvalue_input({name!r}, value_on_{dev})")
        else:
            cause = f"input '{name}' is given on {use.device} but read in host memory ({reader})"
            fix = (f"give '{name}' in host memory: binding.bind_cpu_input({name!r}, array) or a numpy array; "
                   f"binding it on {dev} adds a copy")
        return cause, fix
    writer = placement.outputs_on_device.get(name) or placement.outputs_on_host.get(name, "")
    if direction == DEVICE_TO_HOST:
        if method == "run":
            cause = f"output '{name}' is produced on {on} by {writer} and returned as numpy"
            fix = (f"use IO binding and keep '{name}' on the device: binding.bind_output({name!r}, {dev!r}) "
                   f"(or bind_ortvalue_output with a pre-allocated OrtValue on {dev}); copy to host only what you need")
        elif method == "run_with_ort_values":
            cause = f"output '{name}' is produced on {on} by {writer} and run_with_ort_values returns it in host memory"
            fix = f"use run_with_iobinding with binding.bind_output({name!r}, {dev!r}) to keep it on the device"
        else:
            how = "bind_output(name) (cpu)" if use.via == "bind_output" else f"an OrtValue on {use.device}"
            cause = f"output '{name}' is bound to host memory ({how}) but produced on {on} by {writer}"
            fix = f"binding.bind_output({name!r}, {dev!r}) (or bind_ortvalue_output with an OrtValue on {dev})"
    else:
        cause = f"output '{name}' is produced in host memory ({writer}) but bound on {use.device}"
        fix = f"binding.bind_output({name!r}) (cpu): binding it on the device adds a copy"
    return cause, fix


def _analyse_call(call: CallObservation, placement: Placement, basis: str, use_census: bool) -> CallReport:
    inputs: list[TensorReport] = []
    outputs: list[TensorReport] = []
    expected: list[tuple[TensorUse, str, str]] = []  # (use, direction, phase)
    for use in call.inputs:
        needed = _where(placement, use)
        direction = ""
        if use.is_tensor and use.device and needed != "unknown":
            host = _is_host(use.device)
            if host and needed == "device":
                direction = HOST_TO_DEVICE
            elif not host and needed == "host":
                direction = DEVICE_TO_HOST
        if direction and (use.bytes == 0 or not use.fresh):
            direction = ""  # an empty tensor, or one copied when it was bound for an earlier call
        inputs.append(TensorReport(use.name, "input", use.via, use.device, needed, direction, use.bytes))
        if direction:
            phase = "bind" if call.method == "run_with_iobinding" and use.via.startswith("bind_") else "run"
            expected.append((use, direction, phase))
    for use in call.outputs:
        needed = _where(placement, use)
        direction = ""
        if use.is_tensor and use.device and needed != "unknown":
            host = _is_host(use.device)
            if host and needed == "device":
                direction = DEVICE_TO_HOST
            elif not host and needed == "host":
                direction = HOST_TO_DEVICE
        if direction and use.bytes == 0:
            direction = ""
        outputs.append(TensorReport(use.name, "output", use.via, use.device, needed, direction, use.bytes))
        if direction:
            expected.append((use, direction, "run"))

    report = CallReport(index=call.index, method=call.method, inputs=inputs, outputs=outputs, transfers=[],
                        error=call.error)
    if any(t.via == "bound_before_watch" and not t.device for t in call.inputs):
        names = [t.name for t in call.inputs if t.via == "bound_before_watch" and not t.device]
        report.discrepancies.append(f"input(s) {names} were bound before the watch started, in host memory or by "
                                    "pointer: where they live is not known; bind them inside the watch")
    have_census = use_census and call.traced
    if not have_census:
        for use, direction, phase in expected:
            cause, fix = _fix(use, call.method, placement, direction)
            report.transfers.append(Transfer(call=call.index, kind=FEED if use.role == "input" else FETCH,
                                             direction=direction, tensor=use.name, bytes=use.bytes, basis=basis,
                                             phase=phase, cause=cause, fix=fix))
        if placement.source not in (PLACEMENT_HOST_ONLY, PLACEMENT_UNKNOWN):
            for site in placement.model_sites:
                nbytes = None
                if call.profile is not None:
                    hit = [m for m in call.profile.memcpy_nodes if m.name == site.node]
                    nbytes = sum(m.bytes for m in hit) if hit else None
                report.transfers.append(Transfer(call=call.index, kind=site.kind, direction=site.direction,
                                                 tensor=site.tensor, bytes=nbytes, basis=basis, node=site.node,
                                                 cause=site.cause, fix=_MODEL_FIX))
    else:
        _match_census(call, placement, expected, report)
    report.fixes = list(dict.fromkeys(t.fix for t in report.transfers if t.user and t.fix))
    return report


_MODEL_FIX = ("the model's own transfer: IO binding cannot remove it; only a model or placement change does "
              "(see `ortcopy-doctor check`)")


def _match_census(call: CallObservation, placement: Placement, expected: list[tuple[TensorUse, str, str]],
                  report: CallReport) -> None:
    """Name every host<->device memcpy CUPTI saw in this call.

    Feed copies happen before the first node runs (or inside bind_*), fetch copies after the last: expected feeds
    take the earliest record of their direction and size, expected fetches the latest. What remains is the
    model's: Memcpy nodes in ORT's order (sizes from the profile where there is one), then in-kernel transfers;
    anything else is unexplained. Expected copies the census does not show are discrepancies.
    """
    pool: list[tuple[str, TransferRecord]] = []
    totals: dict[str, list[int]] = {}
    for bound in call.bind_records:
        for r in bound.records:
            pool.append(("bind", r))
    for r in sorted(call.records, key=lambda r: (r.api_start_ns or r.start_ns, r.start_ns)):
        pool.append(("run", r))
    for _, r in pool:
        entry = totals.setdefault(r.direction, [0, 0])
        entry[0] += 1
        entry[1] += r.bytes
    report.census = totals
    host_device = [i for i, (_, r) in enumerate(pool) if r.direction in (HOST_TO_DEVICE, DEVICE_TO_HOST)]
    used: set[int] = set()

    def take(direction: str, nbytes: Optional[int], phase: str, latest: bool) -> Optional[int]:
        order = list(reversed(host_device)) if latest else host_device
        for exact in (True, False):
            for want_phase in (phase, None):
                for i in order:
                    ph, r = pool[i]
                    if i in used or r.direction != direction:
                        continue
                    if want_phase is not None and ph != want_phase:
                        continue
                    if exact and nbytes is not None and r.bytes != nbytes:
                        continue
                    if not exact and nbytes is not None:
                        continue  # a known size matches only exactly
                    return i
        return None

    for use, direction, phase in sorted(expected, key=lambda e: e[0].role != "input"):
        i = take(direction, use.bytes, phase, latest=use.role == "output")
        cause, fix = _fix(use, call.method, placement, direction)
        if i is None:
            size = "?" if use.bytes is None else fmt_bytes(use.bytes)
            report.discrepancies.append(f"expected a {direction} copy of {use.role} '{use.name}' ({size}) "
                                        "but the census shows none")
            continue
        used.add(i)
        ph, r = pool[i]
        report.transfers.append(Transfer(call=call.index, kind=FEED if use.role == "input" else FETCH,
                                         direction=r.direction, tensor=use.name, bytes=r.bytes, basis=BASIS_CENSUS,
                                         phase=ph, src_kind=r.src_kind, dst_kind=r.dst_kind, cause=cause, fix=fix))
    # The model's transfers, in ORT's order per direction.
    sites = {d: [s for s in placement.model_sites if s.direction == d and s.kind == MEMCPY_NODE]
             for d in (HOST_TO_DEVICE, DEVICE_TO_HOST)}
    kernels = [s for s in placement.model_sites if s.kind == IN_KERNEL]
    profile_bytes = {m.name: m.bytes for m in (call.profile.memcpy_nodes if call.profile else [])}
    remaining = [i for i in host_device if i not in used]
    for direction in (HOST_TO_DEVICE, DEVICE_TO_HOST):
        free = list(sites[direction])
        for i in [i for i in remaining if pool[i][1].direction == direction]:
            ph, r = pool[i]
            site = next((s for s in free if profile_bytes.get(s.node) == r.bytes), None)
            if site is None and free:
                site = free[0]  # ORT's order; the profile's sizes, where there is one, matched first
            if site is None and direction == DEVICE_TO_HOST:
                site = next((s for s in kernels), None)
            if site is not None:
                if site in free:
                    free.remove(site)
                report.transfers.append(Transfer(call=call.index, kind=site.kind, direction=r.direction,
                                                 tensor=site.tensor, bytes=r.bytes, basis=BASIS_CENSUS, phase=ph,
                                                 node=site.node, src_kind=r.src_kind, dst_kind=r.dst_kind,
                                                 cause=site.cause, fix=_MODEL_FIX))
            else:
                report.transfers.append(Transfer(
                    call=call.index, kind=UNEXPLAINED, direction=r.direction, tensor="", bytes=r.bytes,
                    basis=BASIS_CENSUS, phase=ph, src_kind=r.src_kind, dst_kind=r.dst_kind,
                    cause="a memcpy of this call that neither the inputs/outputs nor a known Memcpy node or kernel explains"
                          + (f" (issued in {ph})" if ph != "run" else ""),
                    fix="run `ortcopy-doctor check` on the model with a census to attribute it"))


# --- placement --------------------------------------------------------------------------------------------------------


def _describe(node: RuntimeNode) -> str:
    return f"{node.op_type} '{node.name}' ({short(node.provider) or '?'})"


def placement_from_nodes(nodes: list[RuntimeNode], inputs: list[str], outputs: list[str], opsets: dict[str, int],
                         *, source: str, provider: str, detail: str = "",
                         insertions: Sequence[MemcpyInsertion] = ()) -> Placement:
    """Placement facts of a graph whose nodes carry their providers (the runtime graph, or a prediction)."""
    from ortcopy_doctor.knowledge import kernel_memory
    from ortcopy_doctor.analysis.copies import GraphView

    view = GraphView.of(types.SimpleNamespace(nodes=nodes, model=types.SimpleNamespace(opsets=opsets)))  # type: ignore[arg-type]
    result = Placement(source=source, provider=provider, detail=detail)
    host_side = {m.tensor for m in insertions}
    for name in inputs:
        uses = view.consumers.get(name, [])
        device_uses = [u for u in uses if view.reads_on_device(u)]
        if device_uses:
            result.inputs_on_device[name] = ", ".join(_describe(u.node) for u in device_uses)
        elif uses:
            result.inputs_on_host[name] = ", ".join(
                (f"{_describe(u.node)} input {u.index} in host memory" if is_device(u.node.provider) else _describe(u.node))
                for u in uses)
        else:
            result.inputs_on_host[name] = "not read by any node"
    input_set = set(inputs)
    for name in outputs:
        producer = view.producers.get(name)
        if name in input_set:
            continue
        if producer is not None and name not in host_side and view.writes_on_device(producer):
            result.outputs_on_device[name] = _describe(producer.node)
        else:
            result.outputs_on_host[name] = _describe(producer.node) if producer else "not produced by a node"
    memcpy_nodes = [n for n in nodes if n.op_type in ("MemcpyToHost", "MemcpyFromHost")]
    if memcpy_nodes:
        for n in memcpy_nodes:
            to_host = n.op_type == "MemcpyToHost"
            tensor = (n.outputs[0] if to_host else n.inputs[0]) if (n.outputs and n.inputs) else ""
            result.model_sites.append(ModelTransferSite(
                kind=MEMCPY_NODE, direction=DEVICE_TO_HOST if to_host else HOST_TO_DEVICE, node=n.name,
                op_type=n.op_type, tensor=tensor,
                cause=f"ORT's {n.op_type} node '{n.name}' copies '{tensor}' at a CPU/{short(provider)} boundary"))
    else:
        for m in insertions:
            to_host = m.op_type == "MemcpyToHost"
            result.model_sites.append(ModelTransferSite(
                kind=MEMCPY_NODE, direction=DEVICE_TO_HOST if to_host else HOST_TO_DEVICE, node="",
                op_type=m.op_type, tensor=m.tensor,
                cause=f"ORT inserts a {m.op_type} node for '{m.tensor}' at a CPU/{short(provider)} boundary"))
    for n in nodes:
        if is_device(n.provider) and (what := kernel_memory.in_kernel_transfer(n.domain, n.op_type)):
            result.model_sites.append(ModelTransferSite(kind=IN_KERNEL, direction=DEVICE_TO_HOST, node=n.name,
                                                        op_type=n.op_type, tensor=n.outputs[0] if n.outputs else "",
                                                        cause=f"{n.op_type} '{n.name}' {what}"))
    return result


def _graph_io(model: Any) -> tuple[list[str], list[str], dict[str, int]]:
    inits = {t.name for t in model.graph.initializer}
    inputs = [i.name for i in model.graph.input if i.name not in inits]
    outputs = [o.name for o in model.graph.output]
    opsets = {(o.domain or "ai.onnx"): int(o.version) for o in model.opset_import}
    return inputs, outputs, opsets


def predicted_placement(model: Any, provider: str, ort_version: Optional[str] = None) -> Placement:
    """Placement predicted from the model alone for ``provider`` (no session, no GPU)."""
    from ortcopy_doctor.knowledge.prediction import predict

    prediction = predict(model, provider, ort_version=ort_version)
    inputs, outputs, opsets = _graph_io(model)
    return placement_from_nodes(prediction.nodes, inputs, outputs, opsets, source=PLACEMENT_PREDICTED,
                                provider=provider, detail="static prediction from the model",
                                insertions=prediction.memcpy_insertions)


def _assignment(session: Any) -> Optional[dict[str, str]]:
    getter = getattr(session, "get_provider_graph_assignment_info", None)
    if getter is None:
        return None
    try:
        info = getter()
    except Exception:  # noqa: BLE001 - not recorded for this session, or an older ORT
        return None
    result: dict[str, str] = {}
    for subgraph in info or []:
        for node in subgraph.get_nodes():
            result[node.name] = subgraph.ep_name
    return result or None


def _session_placement(session: Any, model: Any, runtime_graph: Any, assignment: dict[str, str], provider: str,
                       ort_version: str) -> Placement:
    """Placement from the session's EP assignment, on the graph ORT ran (or the original graph)."""
    from ortcopy_doctor.knowledge.model_file import walk_nodes

    graph = runtime_graph if runtime_graph is not None else model
    eps = set(assignment.values())
    only = next(iter(eps)) if len(eps) == 1 else ""
    predicted: dict[str, str] = {}
    if runtime_graph is None:
        try:
            predicted = {n.name: n.provider for n in predicted_placement_nodes(model, provider, ort_version)}
        except Exception:  # noqa: BLE001 - no kernel table for this provider
            predicted = {}
    nodes: list[RuntimeNode] = []
    guessed: list[str] = []
    for path, node in walk_nodes(graph.graph):
        ep = assignment.get(node.name)
        if ep is None:
            fused = [v for k, v in assignment.items() if k.startswith(node.name + "/")]
            ep = fused[0] if fused else None
        if ep is None and node.op_type in ("MemcpyToHost", "MemcpyFromHost"):
            ep = provider
        if ep is None:
            ep = predicted.get(node.name) or only or provider
            guessed.append(node.name)
        nodes.append(RuntimeNode(name=node.name, op_type=node.op_type, domain=node.domain, provider=ep,
                                 inputs=list(node.input), outputs=list(node.output), graph=path))
    inputs, outputs, opsets = _graph_io(graph)
    detail = ("get_provider_graph_assignment_info() on the graph ORT ran" if runtime_graph is not None
              else "get_provider_graph_assignment_info() mapped onto the model file's graph")
    if guessed:
        detail += f"; {len(guessed)} node(s) not in the assignment (fused away) placed by prediction"
    return placement_from_nodes(nodes, inputs, outputs, opsets, source=PLACEMENT_SESSION, provider=provider,
                                detail=detail)


def predicted_placement_nodes(model: Any, provider: str, ort_version: Optional[str]) -> list[RuntimeNode]:
    from ortcopy_doctor.knowledge.prediction import predict

    return predict(model, provider, ort_version=ort_version).nodes


# --- instrumented sessions ----------------------------------------------------------------------------------------------


@dataclass
class _Instrumentation:
    requested_providers: list[str]
    runtime_graph: Any  # onnx.ModelProto of the graph ORT ran, or None
    ep_failures: dict[str, str]
    profiling: bool
    workdir: str
    notes: list[str] = field(default_factory=list)
    profile_ended: bool = False


_INFO_ATTR = "_ortcopy_doctor_instrumentation"


def instrumented_session(model_path: str | os.PathLike[str], providers: Sequence[Any] | None = None, *,
                         sess_options: Any = None, provider_options: Sequence[dict[str, Any]] | None = None,
                         profile: bool = True, **kwargs: Any) -> Any:
    """An ``onnxruntime.InferenceSession`` that ``watch`` can read fully: the EP assignment recorded (session
    config ``session.record_ep_graph_assignment_info=1``), the graph ORT ran saved and read back
    (``optimized_model_filepath``), ORT's verbose creation log captured from fd 2 (Memcpy insertions, why a
    provider did not load), and profiling on (``profile=False`` turns it off; profiling roughly doubles the run
    time of a small model).

    ``sess_options`` (an ``onnxruntime.SessionOptions``) is modified in place; ``providers``, ``provider_options``
    and ``kwargs`` go to ``InferenceSession`` unchanged.
    """
    import onnx
    import onnxruntime as ort

    from ortcopy_doctor.collect import ortlog

    so = sess_options if sess_options is not None else ort.SessionOptions()
    workdir = tempfile.mkdtemp(prefix="ortcopy-doctor-watch-")
    optimized = Path(workdir) / "runtime_graph.onnx"
    previous_level = so.log_severity_level
    so.log_severity_level = 0
    so.add_session_config_entry("session.record_ep_graph_assignment_info", "1")
    so.optimized_model_filepath = str(optimized)
    so.add_session_config_entry("session.optimized_model_external_initializers_file_name", optimized.name + ".data")
    so.add_session_config_entry("session.optimized_model_external_initializers_min_size_in_bytes", "1024")
    if profile:
        so.enable_profiling = True
        so.profile_file_prefix = str(Path(workdir) / "profile")
    with ortlog.capture_native_stderr() as captured:
        session = ort.InferenceSession(os.fspath(model_path), so, providers=providers,
                                       provider_options=provider_options, **kwargs)
    so.log_severity_level = previous_level
    facts = ortlog.extract_facts(ortlog.parse_lines(captured.text))
    notes: list[str] = []
    graph = None
    if optimized.is_file():
        try:
            graph = onnx.load(str(optimized), load_external_data=False)
        except Exception as exc:  # noqa: BLE001
            notes.append(f"the graph ORT saved could not be read ({exc}): placement is mapped onto the model file")
    for leftover in (optimized, Path(str(optimized) + ".data")):
        with contextlib.suppress(OSError):
            leftover.unlink()
    requested = [p[0] if isinstance(p, (tuple, list)) else str(p) for p in (providers or [])]
    info = _Instrumentation(requested_providers=requested, runtime_graph=graph, ep_failures=dict(facts.ep_failures),
                            profiling=profile, workdir=workdir, notes=notes)
    setattr(session, _INFO_ATTR, info)
    # When the session is collected (or at interpreter exit): end its profiling and destroy ORT's session while
    # fd 2 is captured, then remove the temporary folder. Left to ORT, the session writes profile_*.json there as it
    # is destroyed and logs "Writing profiler data to file ..." (or "Profiler is disabled.") on the terminal: its
    # logger stays verbose, it was created at level 0. The finalizer holds the wrapper's __dict__ (where ORT's
    # wrapper keeps the native session as ``_sess``), not the wrapper, so it does not keep the wrapper alive.
    weakref.finalize(session, _finish_instrumented, getattr(session, "__dict__", {}), info)
    return session


def _finish_instrumented(attributes: dict[str, Any], info: _Instrumentation) -> None:
    from ortcopy_doctor.collect import ortlog

    with contextlib.suppress(Exception), ortlog.capture_native_stderr():
        inner = attributes.get("_sess")
        if info.profiling and not info.profile_ended and inner is not None:
            path = inner.end_profiling()
            info.profile_ended = True
            if path:
                with contextlib.suppress(OSError):
                    os.unlink(path)
        del inner
        # The wrapper's metadata (inputs_meta, session_options, ...) keeps the native session alive as well
        # (pybind11 keep-alive): dropping them all drops its last reference in the usual case, so ORT's session
        # is destroyed, and logs, here.
        attributes.clear()
    shutil.rmtree(info.workdir, ignore_errors=True)


# --- live recording -------------------------------------------------------------------------------------------------


def _ort_dtype_bytes(element_type: Any) -> Optional[int]:
    import numpy as np

    try:
        if isinstance(element_type, int):
            from onnx import helper

            return int(np.dtype(helper.tensor_dtype_to_np_dtype(element_type)).itemsize)
        return int(np.dtype(element_type).itemsize)
    except Exception:  # noqa: BLE001
        return None


def _use_of_value(name: str, role: str, value: Any, via_numpy: str) -> TensorUse:
    """Describe a feed or a result: numpy array, OrtValue, or another Python object."""
    import numpy as np

    if hasattr(value, "device_name") and hasattr(value, "tensor_size_in_bytes"):  # OrtValue
        try:
            if not value.is_tensor():
                return TensorUse(name, role, "ortvalue", value.device_name().lower(), is_tensor=False)
            return TensorUse(name, role, "ortvalue", value.device_name().lower(), int(value.tensor_size_in_bytes()),
                             list(value.shape()), value.data_type())
        except Exception:  # noqa: BLE001 - a sparse or odd value
            return TensorUse(name, role, "ortvalue", "", is_tensor=False)
    if isinstance(value, (list, dict)):
        return TensorUse(name, role, via_numpy, "cpu", is_tensor=False)
    try:
        arr = np.asarray(value)
    except Exception:  # noqa: BLE001
        return TensorUse(name, role, via_numpy, "cpu", is_tensor=False)
    return TensorUse(name, role, via_numpy, "cpu", int(arr.nbytes), list(arr.shape), str(arr.dtype),
                     is_tensor=arr.dtype != object)


@dataclass
class _BindingState:
    inputs: dict[str, TensorUse] = field(default_factory=dict)
    outputs: dict[str, TensorUse] = field(default_factory=dict)
    pending: list[BindRecords] = field(default_factory=list)


class _IOBindingPatch:
    """Class-level wrappers of ``onnxruntime.IOBinding``'s bind methods, shared by every active watch."""

    METHODS = ("bind_cpu_input", "bind_input", "bind_ortvalue_input", "bind_output", "bind_ortvalue_output",
               "clear_binding_inputs", "clear_binding_outputs")
    _lock = threading.Lock()
    _watchers: dict[int, Watch] = {}  # id(C session) -> watch
    _saved: dict[str, Any] = {}
    _cls: Any = None

    @classmethod
    def add(cls, c_session: Any, watcher: Watch) -> None:
        import onnxruntime as ort

        with cls._lock:
            if not cls._watchers:
                cls._cls = ort.IOBinding
                for name in cls.METHODS:
                    original = cls._cls.__dict__.get(name)
                    if original is None:
                        continue
                    cls._saved[name] = original
                    setattr(cls._cls, name, cls._wrap(name, original))
            cls._watchers[id(c_session)] = watcher

    @classmethod
    def remove(cls, c_session: Any) -> None:
        with cls._lock:
            cls._watchers.pop(id(c_session), None)
            if not cls._watchers and cls._cls is not None:
                for name, original in cls._saved.items():
                    setattr(cls._cls, name, original)
                cls._saved = {}
                cls._cls = None

    @classmethod
    def _wrap(cls, method: str, original: Callable[..., Any]) -> Callable[..., Any]:
        signature = inspect.signature(original)

        def wrapper(binding: Any, *args: Any, **kwargs: Any) -> Any:
            watcher = cls._watchers.get(id(getattr(binding, "_session", None)))
            if watcher is None:
                return original(binding, *args, **kwargs)
            return watcher._on_bind(method, original, signature, binding, args, kwargs)

        wrapper.__name__ = method
        wrapper.__doc__ = original.__doc__
        wrapper.__wrapped__ = original  # type: ignore[attr-defined]
        return wrapper


class Watch:
    """``with watch(session) as w: ...``; then ``w.report`` (a ``WatchReport``) and ``w.observations``."""

    def __init__(self, session: Any, *, census: bool | Callable[[], Any] = True, predict_for: Optional[str] = "auto",
                 profile: bool = False, model: Any = None) -> None:
        self.session = session
        self._census_option = census
        self._predict_for = predict_for
        self._profile = profile
        self._model_arg = model
        self.observations = WatchObservations()
        self._bindings: dict[int, tuple[Any, _BindingState]] = {}
        self._saved_attrs: dict[str, Any] = {}
        self._tracer_factory: Optional[Callable[[], Any]] = None
        self._report: Optional[WatchReport] = None
        self._active = False

    # context manager --------------------------------------------------------------------------------------------------

    def __enter__(self) -> Watch:
        import onnxruntime as ort

        obs = self.observations
        obs.ort_version = ort.__version__
        obs.active_providers = list(self.session.get_providers())
        info: Optional[_Instrumentation] = getattr(self.session, _INFO_ATTR, None)
        obs.requested_providers = list(info.requested_providers) if info else []
        obs.model = str(getattr(self.session, "_model_path", "") or "")
        self._set_placement(info)
        self._set_census()
        if self._profile:
            if info is not None and info.profile_ended:
                obs.profile_note = "an earlier watch ended this session's profiling"
                self._profile = False
            elif not self._session_profiles():
                obs.profile_note = "the session was not created with profiling on (instrumented_session does that)"
                self._profile = False
        self._patch()
        self._active = True
        return self

    def __exit__(self, *exc: object) -> None:
        self._restore()
        self._active = False
        if self._profile:
            self._read_profile()
        self._report = None

    # results ------------------------------------------------------------------------------------------------------------

    @property
    def report(self) -> WatchReport:
        if self._report is None or self._active:
            self._report = analyse_watch(self.observations)
        return self._report

    @property
    def calls(self) -> list[CallObservation]:
        return self.observations.calls

    # setup ----------------------------------------------------------------------------------------------------------------

    def _model(self) -> Any:
        import onnx

        if self._model_arg is not None:
            return self._model_arg if not isinstance(self._model_arg, (str, os.PathLike)) else onnx.load(
                os.fspath(self._model_arg), load_external_data=False)
        path = getattr(self.session, "_model_path", None)
        if path:
            return onnx.load(path, load_external_data=False)
        data = getattr(self.session, "_model_bytes", None)
        if data:
            return onnx.load_from_string(data)
        return None

    def _set_placement(self, info: Optional[_Instrumentation]) -> None:
        import onnxruntime as ort

        obs = self.observations
        active = obs.active_providers
        device = next((p for p in active if is_device(p)), "")
        try:
            model = self._model()
        except Exception as exc:  # noqa: BLE001
            model = None
            obs.notes.append(f"the model could not be read ({type(exc).__name__}: {exc})")
        if info is not None:
            obs.notes.extend(info.notes)
        if not device:
            obs.placement = Placement(source=PLACEMENT_HOST_ONLY, provider="",
                                      detail=f"active providers: {', '.join(active)}")
            wanted = self._predict_for
            if wanted == "auto":
                requested = [p for p in obs.requested_providers if is_device(p)]
                if requested:
                    wanted = requested[0]
                    reason = info.ep_failures.get(wanted) if info else None
                    obs.notes.append(f"{wanted} was requested but is not active" + (f": {reason}" if reason else ""))
                elif "CUDAExecutionProvider" in ort.get_available_providers():
                    wanted = "CUDAExecutionProvider"
                    obs.notes.append("this onnxruntime build has the CUDA provider but the session runs on CPU "
                                     "(not requested, or its libraries did not load): `predicted` shows the same calls on CUDA")
                else:
                    wanted = None
            if wanted and model is not None:
                try:
                    obs.predicted_placement = predicted_placement(model, wanted, ort.__version__)
                except Exception as exc:  # noqa: BLE001 - no kernel table for that provider
                    obs.notes.append(f"no prediction for {wanted}: {exc}")
            return
        assignment = _assignment(self.session)
        if assignment is not None and (model is not None or (info and info.runtime_graph is not None)):
            obs.placement = _session_placement(self.session, model, info.runtime_graph if info else None,
                                               assignment, device, ort.__version__)
        elif model is not None:
            try:
                obs.placement = predicted_placement(model, device, ort.__version__)
            except Exception as exc:  # noqa: BLE001
                obs.placement = Placement(source=PLACEMENT_UNKNOWN, provider=device,
                                          detail=f"no assignment info and no prediction for {device}: {exc}")
        else:
            obs.placement = Placement(source=PLACEMENT_UNKNOWN, provider=device,
                                      detail="the session has no assignment info and its model is not readable: pass model=")

    def _set_census(self) -> None:
        obs = self.observations
        if obs.placement.source == PLACEMENT_HOST_ONLY:
            obs.census_note = "not taken: no device provider is active, so there is nothing to trace"
            return
        option = self._census_option
        if option is False:
            obs.census_note = "turned off (watch(..., census=False))"
            return
        if callable(option):
            self._tracer_factory = option
            obs.census_backend = getattr(option, "backend", "custom")
            return
        if CuptiTracer._sink is not None:
            obs.census_note = "another CuptiTracer is active in this process (one tracer at a time)"
            return
        try:
            trial = CuptiTracer()
            with trial:
                pass
        except Exception as exc:  # noqa: BLE001 - CuptiUnavailable, NotSupportedError without a CUDA driver, ...
            from ortcopy_doctor.collect.census import _abandon

            _abandon(None)
            obs.census_note = f"CUPTI cannot trace here ({type(exc).__name__}: {str(exc).splitlines()[0] if str(exc) else ''})"
            return
        self._tracer_factory = CuptiTracer
        obs.census_backend = "cupti-python"

    def _session_profiles(self) -> bool:
        try:
            return bool(self.session.get_session_options().enable_profiling)
        except Exception:  # noqa: BLE001
            return False

    # patching -----------------------------------------------------------------------------------------------------------

    def _patch(self) -> None:
        session = self.session
        for name, wrapper in (("run", self._run), ("run_with_iobinding", self._run_with_iobinding),
                              ("run_with_ort_values", self._run_with_ort_values)):
            if not hasattr(session, name):
                continue
            self._saved_attrs[name] = session.__dict__.get(name, _MISSING)
            original = getattr(session, name)
            setattr(session, name, _bind_wrapper(wrapper, original, name))
        _IOBindingPatch.add(session._sess, self)

    def _restore(self) -> None:
        _IOBindingPatch.remove(self.session._sess)
        for name, saved in self._saved_attrs.items():
            if saved is _MISSING:
                self.session.__dict__.pop(name, None)
            else:
                setattr(self.session, name, saved)
        self._saved_attrs = {}

    @contextlib.contextmanager
    def _traced(self) -> Iterator[list[TransferRecord] | None]:
        if self._tracer_factory is None:
            yield None
            return
        records: list[TransferRecord] = []
        tracer = self._tracer_factory()
        try:
            with tracer:
                yield records
        finally:
            records.extend(tracer.census.records)

    def _state(self, binding: Any) -> _BindingState:
        entry = self._bindings.get(id(binding))
        if entry is None or entry[0] is not binding:
            state = _BindingState()
            # Bound before the watch: the Python wrapper keeps the OrtValues it bound (ORT >= 1.2x).
            for name, value in (getattr(binding, "_bound_inputs", None) or {}).items():
                state.inputs[name] = (_use_of_value(name, "input", value, "bound_before_watch") if value is not None
                                      else TensorUse(name, "input", "bound_before_watch", ""))
                state.inputs[name].via = "bound_before_watch"
                state.inputs[name].fresh = False  # copied (if at all) when it was bound, before the watch
            for name, value in (getattr(binding, "_bound_outputs", None) or {}).items():
                state.outputs[name] = TensorUse(name, "output", "bound_before_watch", "")
            self._bindings[id(binding)] = (binding, state)
            return state
        return entry[1]

    def _on_bind(self, method: str, original: Callable[..., Any], signature: inspect.Signature, binding: Any,
                 args: tuple[Any, ...], kwargs: dict[str, Any]) -> Any:
        state = self._state(binding)
        try:
            bound = signature.bind(binding, *args, **kwargs)
            bound.apply_defaults()
            a = bound.arguments
        except TypeError:
            return original(binding, *args, **kwargs)
        if method == "clear_binding_inputs":
            state.inputs.clear()
            return original(binding, *args, **kwargs)
        if method == "clear_binding_outputs":
            state.outputs.clear()
            return original(binding, *args, **kwargs)
        name = str(a.get("name"))
        if method == "bind_cpu_input":
            use = _use_of_value(name, "input", a.get("arr_on_cpu"), "bind_cpu_input")
            use.via, use.device = "bind_cpu_input", "cpu"
        elif method == "bind_input":
            shape = [int(d) for d in (a.get("shape") or [])]
            size = _ort_dtype_bytes(a.get("element_type"))
            count = 1
            for d in shape:
                count *= d
            use = TensorUse(name, "input", "bind_input", str(a.get("device_type", "")).lower(),
                            count * size if size is not None else None, shape, str(a.get("element_type")))
        elif method == "bind_ortvalue_input":
            use = _use_of_value(name, "input", a.get("ortvalue"), "bind_ortvalue_input")
            use.via = "bind_ortvalue_input"
        elif method == "bind_output":
            use = TensorUse(name, "output", "bind_output", str(a.get("device_type") or "cpu").lower())
        else:  # bind_ortvalue_output
            use = _use_of_value(name, "output", a.get("ortvalue"), "bind_ortvalue_output")
            use.via = "bind_ortvalue_output"
        with self._traced() as records:
            result = original(binding, *args, **kwargs)
        (state.inputs if use.role == "input" else state.outputs)[name] = use
        if records:
            state.pending.append(BindRecords(method=method, name=name, records=list(records)))
        return result

    def _record(self, method: str, inputs: list[TensorUse], call: Callable[[], Any],
                outputs_of: Callable[[Any], list[TensorUse]], bind_records: list[BindRecords] | None = None) -> Any:
        obs = CallObservation(index=len(self.observations.calls), method=method, inputs=inputs,
                              bind_records=bind_records or [])
        obs.start_ns = time.time_ns()
        try:
            with self._traced() as records:
                result = call()
        except BaseException as exc:
            obs.end_ns = time.time_ns()
            obs.error = f"{type(exc).__name__}: {str(exc).splitlines()[0] if str(exc) else ''}"[:300]
            obs.traced, obs.records = records is not None, list(records or [])
            self.observations.calls.append(obs)
            raise
        obs.end_ns = time.time_ns()
        obs.traced, obs.records = records is not None, list(records or [])
        try:
            obs.outputs = outputs_of(result)
        except Exception as exc:  # noqa: BLE001 - never break the user's call
            self.observations.notes.append(f"call {obs.index}: outputs not readable ({exc})")
        self.observations.calls.append(obs)
        return result

    def _output_names(self, requested: Any) -> list[str]:
        if requested:
            return list(requested)
        return [o.name for o in self.session.get_outputs()]

    def _run(self, original: Callable[..., Any], output_names: Any, input_feed: Any, *args: Any, **kwargs: Any) -> Any:
        inputs = [_use_of_value(k, "input", v, "numpy") for k, v in dict(input_feed).items()]
        names = self._output_names(output_names)

        def outputs_of(result: Any) -> list[TensorUse]:
            uses = [_use_of_value(n, "output", v, "returned") for n, v in zip(names, result)]
            return uses

        return self._record("run", inputs, lambda: original(output_names, input_feed, *args, **kwargs), outputs_of)

    def _run_with_ort_values(self, original: Callable[..., Any], output_names: Any, input_dict_ort_values: Any,
                             *args: Any, **kwargs: Any) -> Any:
        input_dict = input_dict_ort_values
        inputs = [_use_of_value(k, "input", v, "numpy") for k, v in dict(input_dict).items()]
        names = self._output_names(output_names)

        def outputs_of(result: Any) -> list[TensorUse]:
            return [_use_of_value(n, "output", v, "returned") for n, v in zip(names, result)]

        return self._record("run_with_ort_values", inputs,
                            lambda: original(output_names, input_dict, *args, **kwargs), outputs_of)

    def _run_with_iobinding(self, original: Callable[..., Any], iobinding: Any, *args: Any, **kwargs: Any) -> Any:
        state = self._state(iobinding)
        inputs = [TensorUse(**to_jsonable(u)) for u in state.inputs.values()]
        for use in state.inputs.values():
            use.fresh = False  # the next run reuses what ORT already copied at bind time
        pending, state.pending = state.pending, []
        bound = list(state.outputs.values())

        def outputs_of(_: Any) -> list[TensorUse]:
            values = iobinding.get_outputs()
            names = list(state.outputs) if len(state.outputs) == len(values) else \
                list(getattr(iobinding, "_bound_outputs", {}) or [])
            uses: list[TensorUse] = []
            for i, value in enumerate(values):
                name = names[i] if i < len(names) else f"output_{i}"
                how = next((b for b in bound if b.name == name), None)
                use = _use_of_value(name, "output", value, "bind_output")
                use.via = how.via if how is not None else "bound_before_watch"
                uses.append(use)
            return uses

        return self._record("run_with_iobinding", inputs, lambda: original(iobinding, *args, **kwargs), outputs_of,
                            bind_records=pending)

    # profile --------------------------------------------------------------------------------------------------------------

    def _read_profile(self) -> None:
        from ortcopy_doctor.analysis.profile import parse_profile

        obs = self.observations
        info: Optional[_Instrumentation] = getattr(self.session, _INFO_ATTR, None)
        try:
            from ortcopy_doctor.collect import ortlog

            start_ns = int(self.session.get_profiling_start_time_ns())
            with ortlog.capture_native_stderr():  # an instrumented session logs verbosely
                path = self.session.end_profiling()
            if info is not None:
                info.profile_ended = True
            runs, events = parse_profile(Path(path), 0)
        except Exception as exc:  # noqa: BLE001
            obs.profile_note = f"the profile could not be read ({type(exc).__name__}: {exc})"
            return
        for call in obs.calls:
            lo, hi = (call.start_ns - start_ns) / 1000.0, (call.end_ns - start_ns) / 1000.0
            mine = [r for r in runs if lo <= r.ts_us <= hi]
            if not mine:
                continue
            run_ids = {r.run for r in mine}
            memcpy = [ProfileMemcpy(e.name, e.op_type, e.output_bytes, e.dur_us) for e in events
                      if e.run in run_ids and e.op_type in ("MemcpyToHost", "MemcpyFromHost")]
            call.profile = CallProfile(run_dur_us=sum(r.dur_us for r in mine), memcpy_nodes=memcpy)
        with contextlib.suppress(OSError):
            os.unlink(path)


_MISSING = object()


def _bind_wrapper(method: Callable[..., Any], original: Callable[..., Any], name: str) -> Callable[..., Any]:
    def wrapper(*args: Any, **kwargs: Any) -> Any:
        return method(original, *args, **kwargs)

    wrapper.__name__ = name
    wrapper.__doc__ = getattr(original, "__doc__", None)
    wrapper.__wrapped__ = original  # type: ignore[attr-defined]
    return wrapper


def watch(session: Any, *, census: bool | Callable[[], Any] = True, predict_for: Optional[str] = "auto",
          profile: bool = False, model: Any = None) -> Watch:
    """Watch every call of ``session`` (an ``onnxruntime.InferenceSession``) inside a ``with`` block.

    ``census``: trace each call with CUPTI where it can run (True), not at all (False), or with a factory returning
    a tracer (``census.CuptiTracer``'s contract: a context manager with ``.census.records`` afterwards).
    ``predict_for``: when no device provider is active, the provider whose placement ``report.predicted`` shows
    ("auto": the requested one for an ``instrumented_session``, else CUDA where this onnxruntime build has it;
    None: no prediction). ``profile``: on a profiling session (``instrumented_session``), end profiling when the
    block ends and read each call's Memcpy nodes from the profile. ``model``: the model (path or ModelProto) where
    the session was created from bytes.
    """
    return Watch(session, census=census, predict_for=predict_for, profile=profile, model=model)


# --- persistence and pytest -------------------------------------------------------------------------------------------


def load_observations(data: dict[str, Any]) -> WatchObservations:
    """Observations from ``to_jsonable(w.observations)`` (e.g. a recorded fixture)."""
    if data.get("format") != WATCH_FORMAT:
        raise ValueError("not ortcopy-doctor watch observations")
    if int(data.get("format_version", 0)) > WATCH_FORMAT_VERSION:
        raise ValueError(f"watch observations format {data.get('format_version')} is newer than this ortcopy-doctor reads")
    return from_jsonable(WatchObservations, data)


def pytest_watch(session_fixture: str = "session", *, except_inputs: Sequence[str] = (),
                 except_outputs: Sequence[str] = (), **watch_options: Any) -> Any:
    """A pytest fixture that watches the session fixture named ``session_fixture`` for the whole test and fails
    it (at teardown) when the test's calls made host<->device transfers of their own.

    In a conftest.py: ``watched = pytest_watch("session", except_outputs=["logits"])``; a test that asks for
    ``watched`` is audited; ``watched.report`` is there for finer assertions.
    """
    import pytest

    @pytest.fixture
    def _watched(request: Any) -> Iterator[Watch]:
        session = request.getfixturevalue(session_fixture)
        with watch(session, **watch_options) as w:
            yield w
        w.report.assert_no_host_transfers(except_inputs=except_inputs, except_outputs=except_outputs)

    return _watched


__all__ = [
    "CallObservation", "CallReport", "Placement", "TensorReport", "TensorUse", "Transfer", "Watch",
    "WatchObservations", "WatchReport", "analyse_watch", "instrumented_session", "load_observations",
    "predicted_placement", "pytest_watch", "watch",
]
