"""Pipeline analysis across sessions: which tensors make a host round trip between the stages of a program.

``ortcopy-doctor run -- python serve.py`` (``ortcopy_doctor.watch.program``) records every call of every
``onnxruntime.InferenceSession`` the program creates, with the same recorder as ``watch`` (one
``WatchObservations`` per session), and for each input of each call *where the value came from*: the output of
an earlier call, followed by identity of the object (the numpy array itself, a numpy view of it or any array over
the same buffer, the OrtValue or the device pointer bound), by an OrtValue output turned into numpy by the user's
code (``OrtValue.numpy()``, ``IOBinding.copy_outputs_to_cpu()``), or, as a fallback, by an equal value hash of
host arrays. Those links are plain data (``PipelineObservations``); this module turns them into a report without
onnxruntime, which is how recorded GPU runs are replayed in CI.

A *round trip* is a link whose value left the device after the producing call (the watch report of that call
has a fetch copy of that output, or the user's code downloaded the OrtValue) and went back to the device as the
consumer's input (the watch report of that call has a feed copy of that input). The same session on both ends is
*state* carried between calls (ping-pong); state traced by equal bytes alone is only a *possible* round trip,
reported and not counted (a constant input that the model returns unchanged gives the same link). Where no device
provider is active, the watch's prediction for the device provider (``WatchReport.predicted``) says where each
tensor is read and written, and an OrtValue handed over as is counts as kept on the device (the code binds to the
session's device), which the report states.

The code written for the hand-offs binds every tensor by the model's own name, as a Python literal (``repr``), with
variables made from the names by ``analysis.binding.code_identifier``; a name in a comment cannot end the comment.
"""

from __future__ import annotations

import msgspec
import html as html_lib
import re
import statistics
from collections.abc import Sequence
from msgspec import field
from msgspec.structs import replace
from typing import Any, Optional

from ortcopy_doctor.model import codec
from ortcopy_doctor.analysis.binding import code_comment, code_identifier, code_sha256
from ortcopy_doctor.analysis.loops import (
    CALL,
    Iteration,
    Loop,
    LoopCall,
    StageSummary,
    find_loops,
    first_calls_at_shape,
    iteration_bytes,
    stage_table,
)
from ortcopy_doctor.analysis.codelayout import fit
from ortcopy_doctor.model.format import fmt_bytes
from ortcopy_doctor.model.evidence import CodeCheck
from ortcopy_doctor.knowledge.providers import is_device, short
from ortcopy_doctor.render.terminal import safe
from ortcopy_doctor.watch.analysis import analyse_watch
from ortcopy_doctor.watch.observations import (
    BASIS_CENSUS,
    DEVICE_TO_HOST,
    FEED,
    FETCH,
    HOST_TO_DEVICE,
    PLACEMENT_HOST_ONLY,
    WatchObservations,
)
from ortcopy_doctor.watch.report import CallReport, TensorReport, WatchReport

PIPELINE_FORMAT = "ortcopy-doctor-pipeline"
PIPELINE_FORMAT_VERSION = 1

# How a consumed value was traced back to the output that produced it.
HOW_OBJECT = "object"  # the very object the producing call returned (or bound)
HOW_VIEW = "view"  # a numpy view of it, or another array over the same host buffer (torch.from_numpy, ...)
HOW_POINTER = "pointer"  # the same device/host pointer (an OrtValue of a binding, bind_input(buffer_ptr=...))
HOW_DOWNLOAD = "download"  # the user's code turned the OrtValue output into numpy (OrtValue.numpy(), copy_outputs_to_cpu)
HOW_HASH = "hash"  # a different host array with equal bytes (a copy: .copy(), astype, np.array(...))

_HOW_WORDS = {HOW_OBJECT: "through numpy (the same array)", HOW_VIEW: "through numpy (a view of the same buffer)",
              HOW_POINTER: "through the same buffer", HOW_DOWNLOAD: "through numpy (the user's code called .numpy() on it)",
              HOW_HASH: "through numpy (a copy with equal bytes)"}

HOST_KINDS = ("numpy", "torch_cpu", "host_pointer")

# What a hand-off is (HandOff.kind). A state hand-off traced by equal bytes alone (HOW_HASH) is only a *possible*
# round trip: a program that feeds the same constant every call to a model that returns it unchanged (Relu of ones)
# gives the same link, and the recorder keeps nothing that tells the two apart. It is reported, and not counted.
ROUND_TRIP = "round_trip"  # device->host after the producing call, and back host->device as the consumer's input
POSSIBLE_ROUND_TRIP = "possible_round_trip"  # state that would be a round trip, traced by equal bytes alone
DEVICE = "device"  # handed over on the device
HOST = "host"  # through host memory, but one end lives there anyway


# --- observations ----------------------------------------------------------------------------------------------------


class ValueLink(msgspec.Struct, frozen=True):
    """The output of an earlier call that a consumed value came from."""

    seq: int  # the producing call's PipelineCall.seq
    output: str
    how: str  # object, view, pointer, download, hash


class ValueInfo(msgspec.Struct):
    """One input or output of one call as the program handed it over."""

    name: str
    role: str  # input, output
    kind: str  # numpy, ortvalue, torch_cpu, torch_cuda, cupy, host_pointer, device_pointer, other
    device: str  # cpu, cuda, ...
    bytes: Optional[int] = None
    link: Optional[ValueLink] = None  # inputs only: where the value came from


class Download(msgspec.Struct, frozen=True):
    """An OrtValue output of a call turned into numpy by the program after the call."""

    seq: int
    output: str
    device: str
    bytes: Optional[int]
    at_ns: int


class PipelineCall(msgspec.Struct):
    """One session call in the program's order: the recorder's and ORT's times, and the values it took and gave."""

    seq: int  # order of the call in the program, over all sessions
    session: int  # index into PipelineObservations.sessions
    call: int  # index into that session's WatchObservations.calls
    method: str
    # The program's view: from entering the recorder to leaving it (host time between calls is measured with these,
    # so the recorder's own work is no stage of the program's).
    wrap_start_ns: int = 0
    wrap_end_ns: int = 0
    # The recorder's own time so far (a running total over the program: its work around run and bind_* calls,
    # CUPTI tracing included) at wrap_start_ns and at wrap_end_ns: subtracted from every interval measured.
    overhead_start_ns: int = 0
    overhead_end_ns: int = 0
    # The ORT call alone (the session's method, inside the census when there is one).
    start_ns: int = 0
    end_ns: int = 0
    # ORT's own time in the bind_* calls made on this call's IOBinding since its previous run (bind_cpu_input
    # uploads its array there): the session's work, so counted in its stage and not in the host time before it.
    bind_ns: int = 0
    inputs: list[ValueInfo] = field(default_factory=list)
    outputs: list[ValueInfo] = field(default_factory=list)
    error: str = ""
    # The program's code that made the call: file:function:line of the first frame that is neither ortcopy_doctor's
    # nor onnxruntime's ("" where not recorded: observations of earlier versions).
    site: str = ""


class SessionRecord(msgspec.Struct, frozen=True):
    """One session the program created: its unique label, its model file and the watch's observations of it."""

    label: str  # the model file's name (made unique with #2, #3)
    model: str
    observations: WatchObservations
    created_at: str = ""  # file:function:line of the program's code that created it ("" where not recorded)
    available_providers: list[str] = field(default_factory=list)  # onnxruntime.get_available_providers() then
    provider_failures: dict[str, str] = field(default_factory=dict)  # provider -> ORT's reason it did not load


class PipelineObservations(msgspec.Struct):
    """Everything ``ortcopy-doctor run`` recorded of one program (``analyse_pipeline`` needs no onnxruntime)."""

    format: str = PIPELINE_FORMAT
    format_version: int = PIPELINE_FORMAT_VERSION
    ort_version: str = ""
    program: list[str] = field(default_factory=list)
    exit_code: int = 0
    ended_by: str = "exit"  # exit, exception, interrupt, signal (killed by the signal named in error)
    error: str = ""
    started_ns: int = 0
    ended_ns: int = 0
    census_requested: bool = True
    sessions: list[SessionRecord] = field(default_factory=list)
    calls: list[PipelineCall] = field(default_factory=list)
    downloads: list[Download] = field(default_factory=list)
    libraries: list[str] = field(default_factory=list)  # torch, cupy: where the program imported them
    notes: list[str] = field(default_factory=list)
    # Each block of hand-off code run as printed next to plain run() after the program (watch/handoff_check.py).
    code_checks: list[CodeCheck] = field(default_factory=list)
    # A device provider of the program's onnxruntime tried after the program, where a session ran without it and
    # did not ask for it: "" where it loads, else ORT's reason (``device_status``); absent where not tried.
    device_status: dict[str, str] = field(default_factory=dict)


def load_pipeline_observations(data: dict[str, Any]) -> PipelineObservations:
    """Observations from ``codec.to_builtins(observations)`` (a recorded fixture); ``ValueError`` for another format."""
    if data.get("format") != PIPELINE_FORMAT:
        raise ValueError("not ortcopy-doctor pipeline observations")
    if int(data.get("format_version", 0)) > PIPELINE_FORMAT_VERSION:
        raise ValueError(f"pipeline observations format {data.get('format_version')} is newer than this ortcopy-doctor reads")
    observations: PipelineObservations = codec.convert(data, PipelineObservations)
    return observations


# --- the report ------------------------------------------------------------------------------------------------------


class HandOff(msgspec.Struct, frozen=True):
    """Values of one producer output consumed as one input of a later call, aggregated over the run."""

    producer: str  # session label
    output: str
    consumer: str
    input: str
    calls: int  # how many consuming calls
    how: str
    state: bool  # the same session: output of call k fed to call k+1
    kind: str  # round_trip, possible_round_trip (state traced by equal bytes alone), device, host
    d2h_bytes_per_call: Optional[int] = None
    h2d_bytes_per_call: Optional[int] = None
    basis: str = ""  # census, placement, prediction, assumed
    census_d2h: Optional[int] = None  # consuming calls whose producing call's census shows the fetch copy
    census_h2d: Optional[int] = None  # consuming calls whose census shows the feed copy
    host_ms_between: Optional[float] = None  # median host time between the producing and the consuming call
    message: str = ""
    fix: str = ""
    code: str = ""


class HostEdge(msgspec.Struct, frozen=True):
    """An input uploaded from host code (not traced to any session output) or an output downloaded at the end."""

    session: str
    tensor: str
    direction: str
    calls: int
    bytes_per_call: Optional[int]
    basis: str


class StageRow(msgspec.Struct, frozen=True):
    """One row of a pipeline's stage table: a host, inference or download stage, its calls and times."""

    stage: str
    kind: str  # host, inference, download
    calls: int
    median_ms: Optional[float]
    total_ms: Optional[float]
    note: str = ""
    # ms per iteration of the iterations the table covers: the rows other than download add up to their mean time
    per_iteration_ms: Optional[float] = None
    site: str = ""  # inference: the program's code that made the call; host: the code of the call after it
    before_site: str = ""  # host: the code of the call before it (file:function:line)


class ShapeCall(msgspec.Struct, frozen=True):
    """The first call of a session at an input shape, its time and the median of its later calls at that shape."""

    session: str
    shape: str  # each input's shape (1x3x960x544), in the order of the call's inputs
    iteration: int  # 1-based; 0 for a call outside the loop (before or after it)
    site: str
    ms: float
    later_median_ms: Optional[float]
    later_calls: int
    steady_median_ms: Optional[float] = None  # the session's calls that were no first call at their shape


class Pipeline(msgspec.Struct, frozen=True):
    """Sessions called in a repeating order: hand-offs, uploads, downloads, stage times and the code to fix them."""

    sessions: list[str]
    iterations: int
    round_trips: list[HandOff]
    state: list[HandOff]  # state carried between calls of one session (round trips, possible ones, kept on device)
    on_device: list[HandOff]  # hand-offs between sessions kept on the device
    host_hand_offs: list[HandOff]  # through host memory but no round trip (read or written on the host)
    uploads: list[HostEdge]
    downloads: list[HostEdge]
    stages: list[StageRow]
    iteration_ms: Optional[float]  # median wall time of one iteration (first session's call to the next)
    code: str = ""
    timing_note: str = ""  # what the times include (the CUPTI census, where it was taken)
    # What running the hand-off code as printed next to plain run() showed (watch/handoff_check.py).
    code_check: str = ""
    # The loop (analysis/loops.py): each iteration starts at a call of `head` made at `head_site`; `stages` covers
    # `stage_iterations` iterations (those after the first whose end is known; all of them where there are no such);
    # the first iteration, the calls before the loop (warm-up) and after it, and the first call of each session at
    # each input shape, apart.
    head: str = ""
    head_site: str = ""
    stage_iterations: int = 0
    first_iteration: list[StageRow] = field(default_factory=list)
    first_iteration_ms: Optional[float] = None
    before_loop: list[StageRow] = field(default_factory=list)
    after_loop: list[StageRow] = field(default_factory=list)
    new_shapes: list[ShapeCall] = field(default_factory=list)
    # bytes copied host->device and device->host per iteration (mean over the iterations; the watch's per-call
    # transfers, predicted for the device provider where none was active: bytes_predicted)
    h2d_bytes_per_iteration: Optional[float] = None
    d2h_bytes_per_iteration: Optional[float] = None
    bytes_predicted: bool = False
    largest_cost: str = ""  # the largest cost the report names a fix for (_largest_cost)


class SessionSummary(msgspec.Struct, frozen=True):
    """One session of the program in brief: providers, calls, placement source, census, user transfers."""

    label: str
    model: str
    providers: list[str]
    calls: int
    placement: str
    census: str
    user_transfers: int


class ProviderFinding(msgspec.Struct, frozen=True):
    """A session that runs on the CPU although this onnxruntime has a device provider: where the program created
    it, why it is not on the device, and what to change (``audit_providers``)."""

    session: str
    created_at: str  # file:function:line ("" where not recorded)
    available: str  # the device provider this onnxruntime has (CUDAExecutionProvider first)
    cause: str
    fix: str

    @property
    def line(self) -> str:
        """One line: the session, where it was created, and why it is not on the device."""
        where = f" (created at {self.created_at})" if self.created_at else ""
        return f"session {self.session}{where} runs on the CPU although {short(self.available)} is available: {self.cause}"


def audit_providers(obs: PipelineObservations) -> list[ProviderFinding]:
    """Each session that runs with no device provider while the onnxruntime the program used had one (recorded
    at its creation): requested and not loaded, with ORT's reason; or not requested (no ``providers``, or none of
    the device) where the device provider is known to load (another session of the program ran on it, or it was
    tried after the program: ``PipelineObservations.device_status``). Whether the device is faster for the model
    is not measured here."""
    found: list[ProviderFinding] = []
    for record in obs.sessions:
        o = record.observations
        devices = [p for p in record.available_providers if is_device(p)]
        if not devices or any(is_device(p) for p in o.active_providers):
            continue
        available = "CUDAExecutionProvider" if "CUDAExecutionProvider" in devices else devices[0]
        requested = [p for p in o.requested_providers if is_device(p)]
        site = f" at {record.created_at}" if record.created_at else ""
        used = any(available in r.observations.active_providers for r in obs.sessions)
        if not requested and not used and obs.device_status.get(available) != "":
            continue  # not known to load here (a build's list names providers whose libraries are missing)
        if requested:
            reason = record.provider_failures.get(requested[0], "")
            cause = (f"{requested[0]} was requested and did not load"
                     + (f" ({reason})" if reason else " (no reason recorded: see what onnxruntime wrote on the program's "
                                                       "stderr)"))
            fix = (f"make {short(requested[0])} load where the program runs (its libraries: `ortcopy-doctor env` "
                   "lists what is missing); the session falls back to the CPU silently meanwhile")
        else:
            cause = ("no `providers` given, so onnxruntime chose the CPU" if not o.requested_providers else
                     f"`providers` names no device provider ({', '.join(o.requested_providers)})")
            fix = (f"create it with providers=['{available}', 'CPUExecutionProvider']{site}; whether "
                   f"{short(available)} is faster for this model at the program's shapes is not measured by run: "
                   f"`ortcopy-doctor check {record.model or 'MODEL.onnx'} --provider {short(available).lower()},cpu` "
                   "measures the copies it would make")
        found.append(ProviderFinding(session=record.label, created_at=record.created_at, available=available,
                                     cause=cause, fix=fix))
    return found


class PipelineReport(msgspec.Struct, frozen=True):
    """What ``ortcopy-doctor run`` found: each session, each pipeline of sessions and its host round trips."""

    program: list[str]
    exit_code: int
    ended_by: str
    error: str
    sessions: list[SessionSummary]
    pipelines: list[Pipeline]
    observed: list[str]
    not_observed: list[str]
    notes: list[str]
    observations: Optional[PipelineObservations] = None
    providers: list[ProviderFinding] = field(default_factory=list)  # sessions on the CPU though a device is available

    # queries -------------------------------------------------------------------------------------------------------

    @property
    def round_trips(self) -> list[HandOff]:
        """Every host round trip: between sessions and of state carried between calls."""
        return [h for p in self.pipelines for h in p.round_trips + [s for s in p.state if s.kind == ROUND_TRIP]]

    @property
    def possible_round_trips(self) -> list[HandOff]:
        """State that would make a host round trip, traced by equal bytes alone: not counted in ``round_trips``."""
        return [s for p in self.pipelines for s in p.state if s.kind == POSSIBLE_ROUND_TRIP]

    @property
    def verdict(self) -> str:
        """One line, led by the bytes that cross PCIe per iteration of each loop and the largest removable cost; then
        how many host round trips between stages, or that there is none; and how many possible ones."""
        n = len(self.round_trips)
        calls = sum(p.iterations for p in self.pipelines)
        if not self.sessions:
            return "no onnxruntime session was created by the program"
        possible = len(self.possible_round_trips)
        maybe = (f"; {possible} possible state round trip(s), traced by equal bytes alone (not counted)"
                 if possible else "")
        parts: list[str] = []

        def moved(p: Pipeline) -> float:
            return (p.h2d_bytes_per_iteration or 0) + (p.d2h_bytes_per_iteration or 0)

        for p in sorted(self.pipelines, key=moved, reverse=True):
            loop = " → ".join(p.sessions)
            if moved(p) > 0:
                predicted = " (predicted for the device: no device provider was active)" if p.bytes_predicted else ""
                parts.append(f"{fmt_bytes(int(moved(p)))} cross PCIe per iteration of {loop}{predicted}: "
                             f"{fmt_bytes(int(p.h2d_bytes_per_iteration or 0))} up, "
                             f"{fmt_bytes(int(p.d2h_bytes_per_iteration or 0))} down (mean of {p.iterations} "
                             "iteration(s))")
            if p.largest_cost:
                parts.append(p.largest_cost)
        if not any(moved(p) > 0 for p in self.pipelines):
            parts.insert(0, "no bytes cross PCIe between host and device")
        if n == 0:
            parts.append(f"no host round trip between stages ({len(self.sessions)} session(s), {calls} iteration(s))")
        else:
            # the largest round trip, with its fix, is the largest removable cost named above
            parts.append(f"{n} host round trip(s) between stages"
                         + ("" if any(p.largest_cost for p in self.pipelines) else
                            ": pass the OrtValues (or torch tensors via DLPack) instead"))
        return "; ".join([f.line for f in self.providers] + parts) + maybe  # first: what predicted bytes are about

    # output --------------------------------------------------------------------------------------------------------

    def to_dict(self) -> dict[str, Any]:
        """JSON-able: the fields with the round trips and the verdict, the observations last."""
        data = codec.to_builtins(self)
        data.pop("observations", None)
        data["round_trips"] = codec.to_builtins(self.round_trips)
        data["verdict"] = self.verdict
        return {"format": PIPELINE_FORMAT + "-report", "format_version": PIPELINE_FORMAT_VERSION, **data,
                "observations": None if self.observations is None else codec.to_builtins(self.observations)}

    def to_json(self) -> str:
        """``to_dict`` as indented JSON."""
        return codec.to_json(self.to_dict())

    def to_text(self) -> str:
        """The report as plain text (``render_text``)."""
        return render_text(self)

    def to_html(self) -> str:
        """The report as one HTML page (``render_html``)."""
        return render_html(self)

    def __str__(self) -> str:
        return self.to_text()


# --- analysis ----------------------------------------------------------------------------------------------------------


def _median(values: list[float]) -> Optional[float]:
    return statistics.median(values) if values else None


def _ms(ns: float) -> float:
    return ns / 1e6


def _gap(a: PipelineCall, b: PipelineCall) -> float:
    """Host time of the program between the end of call a and the start of call b, less the recorder's and less
    ORT's time in b's bind_* calls (ms)."""
    return _ms(max(0, (b.wrap_start_ns - a.wrap_end_ns) - (b.overhead_start_ns - a.overhead_end_ns) - b.bind_ns))


class _Views:
    """The watch report of each session: the device one, or the prediction where no device provider is active."""

    def __init__(self, obs: PipelineObservations) -> None:
        self.reports: list[WatchReport] = []
        self.host_only: list[bool] = []
        for record in obs.sessions:
            report = analyse_watch(record.observations)
            host_only = record.observations.placement.source == PLACEMENT_HOST_ONLY
            self.host_only.append(host_only)
            self.reports.append(report.predicted if host_only and report.predicted is not None else report)
        self.plain = [analyse_watch(r.observations) for r in obs.sessions]

    def call(self, session: int, index: int) -> Optional[CallReport]:
        calls = self.reports[session].calls
        return calls[index] if 0 <= index < len(calls) else None

    def tensor(self, session: int, index: int, role: str, name: str) -> Optional[TensorReport]:
        call = self.call(session, index)
        if call is None:
            return None
        return next((t for t in (call.inputs if role == "input" else call.outputs) if t.name == name), None)

    def census_transfer(self, session: int, index: int, kind: str, name: str) -> Optional[int]:
        """Bytes of the census-matched feed/fetch copy of ``name`` in that call, or None."""
        calls = self.plain[session].calls
        if not 0 <= index < len(calls):
            return None
        for t in calls[index].transfers:
            if t.kind == kind and t.tensor == name and t.basis == BASIS_CENSUS:
                return t.bytes
        return None

    def basis(self, session: int) -> str:
        report = self.reports[session]
        if self.host_only[session] and self.plain[session].predicted is not None:
            return "prediction"
        return {"predicted": "prediction"}.get(report.placement_source, "placement")


def analyse_pipeline(obs: PipelineObservations) -> PipelineReport:
    """The pipeline report of recorded observations (pure: no onnxruntime)."""
    views = _Views(obs)
    by_seq = {c.seq: c for c in obs.calls}
    labels = [s.label for s in obs.sessions]
    observed: list[str] = []
    not_observed: list[str] = []
    notes = list(obs.notes)
    sessions: list[SessionSummary] = []
    for i, record in enumerate(obs.sessions):
        o = record.observations
        census = (f"{o.census_backend}, every call traced" if o.census_backend and any(c.traced for c in o.calls)
                  else (o.census_note if o.census_note.startswith("not taken") else f"not taken: {o.census_note or 'no call traced'}"))
        sessions.append(SessionSummary(label=record.label, model=record.model, providers=list(o.active_providers),
                                       calls=len(o.calls), placement=o.placement.source, census=census,
                                       user_transfers=len(views.plain[i].host_transfers())))
    if obs.calls:
        observed.append("every call of every session the program created, with where each value came from "
                        "(object identity, views, OrtValue pointers, .numpy() downloads, value hashes)")
        observed.append("the time of each call and the host time between calls, in the program's own run")
    host_only = [labels[i] for i, h in enumerate(views.host_only) if h]
    if host_only:
        not_observed.append(f"copies on a device: {', '.join(host_only)} ran without a device provider; round trips are "
                            "predicted for " + ", ".join(sorted({short(views.reports[i].providers[0]) if views.reports[i].providers else "the device"
                                                                  for i, h in enumerate(views.host_only) if h}))
                            + " from each model, and an OrtValue handed over as is counts as kept on the device")
    traced = [labels[i] for i, r in enumerate(obs.sessions) if r.observations.census_backend
              and any(c.traced for c in r.observations.calls)]
    if traced:
        observed.append(f"the CUPTI transfer census of each call of {', '.join(traced)}")
    untraced = {r.observations.census_note for r in obs.sessions if not r.observations.census_backend
                and r.observations.census_note}
    for note in sorted(untraced):
        not_observed.append(f"the CUPTI census: {note}")

    # Every consumed value with a link, one entry per consuming call.
    groups: dict[tuple[int, str, int, str, str], list[tuple[PipelineCall, PipelineCall]]] = {}
    linked_inputs: set[tuple[int, str]] = set()
    consumed_outputs: set[tuple[int, str]] = set()
    for call in obs.calls:
        for value in call.inputs:
            link = value.link
            if link is None or link.seq not in by_seq:
                continue
            producer = by_seq[link.seq]
            linked_inputs.add((call.seq, value.name))
            consumed_outputs.add((producer.seq, link.output))
            key = (producer.session, link.output, call.session, value.name, link.how)
            groups.setdefault(key, []).append((producer, call))

    downloads = {(d.seq, d.output): d for d in obs.downloads}
    hand_offs: list[HandOff] = []
    for (ps, output, cs, name, how), pairs in groups.items():
        hand_offs.append(_hand_off(views, obs, ps, output, cs, name, how, pairs, downloads))

    # Pipelines: the program's loops, found from the order of the calls (analysis/loops.py); the hand-offs annotate
    # them, each in the first loop that calls both of its sessions (else the first that calls its producer).
    ordered = sorted(obs.calls, key=lambda c: c.seq)
    loop_calls = _loop_calls(views, obs, ordered)
    loops = find_loops(loop_calls)
    called = [{ordered[i].session for i in _loop_indices(loop)} for loop in loops]
    owner: dict[int, int] = {}
    for n, h in enumerate(hand_offs):
        a, b = labels.index(h.producer), labels.index(h.consumer)
        owner[n] = next((k for k, sessions in enumerate(called) if a in sessions and b in sessions),
                        next((k for k, sessions in enumerate(called) if a in sessions), 0))
    pipelines = []
    for k, loop in enumerate(loops):
        mine = [h for n, h in enumerate(hand_offs) if owner[n] == k]
        pipelines.append(_pipeline(views, obs, loop, ordered, loop_calls, mine, linked_inputs, consumed_outputs))
    return PipelineReport(program=list(obs.program), exit_code=obs.exit_code, ended_by=obs.ended_by, error=obs.error,
                          sessions=sessions, pipelines=pipelines, observed=observed, not_observed=not_observed,
                          notes=notes + [f"{short(p)} is in this onnxruntime build but does not load here ({why}): the "
                                         "sessions on the CPU could not have used it"
                                         for p, why in sorted(obs.device_status.items()) if why],
                          observations=obs, providers=audit_providers(obs))


def _host_value(value: ValueInfo) -> bool:
    if value.kind in HOST_KINDS:
        return True
    if value.kind in ("ortvalue",):
        d = (value.device or "").lower()
        return d == "cpu" or "pinned" in d
    return False


def _hand_off(views: _Views, obs: PipelineObservations, ps: int, output: str, cs: int, name: str, how: str,
              pairs: list[tuple[PipelineCall, PipelineCall]], downloads: dict[tuple[int, str], Download]) -> HandOff:
    labels = [s.label for s in obs.sessions]
    producer, consumer = labels[ps], labels[cs]
    state = ps == cs
    round_trip = device = 0
    d2h: list[int] = []
    h2d: list[int] = []
    census_d2h = census_h2d = 0
    gaps: list[float] = []
    host_only = views.host_only[ps] or views.host_only[cs]
    assumed = False
    for p, c in pairs:
        out = views.tensor(ps, p.call, "output", output)
        value = next((v for v in c.inputs if v.name == name), None)
        inp = views.tensor(cs, c.call, "input", name)
        if value is None:
            continue
        gaps.append(_gap(p, c))
        direct = value.kind in ("ortvalue", "device_pointer", "torch_cuda", "cupy") and how in (HOW_OBJECT, HOW_POINTER)
        if host_only and direct:
            device += 1
            assumed = True
            continue
        left = out is not None and (out.transfer == DEVICE_TO_HOST or
                                    (how == HOW_DOWNLOAD and out.needed_on == "device"))
        back = inp is not None and inp.transfer == HOST_TO_DEVICE
        if left and back and out is not None and inp is not None:  # left and back say both are there
            round_trip += 1
            download = downloads.get((p.seq, output))
            d2h.append(out.bytes if out.bytes is not None else (download.bytes or 0) if download else 0)
            h2d.append(inp.bytes or 0)
            if views.census_transfer(ps, p.call, FETCH, output) is not None:
                census_d2h += 1
            if views.census_transfer(cs, c.call, FEED, name) is not None:
                census_h2d += 1
        elif not _host_value(value):
            device += 1
    calls = len(pairs)
    traced = all(views.plain[s].calls and any(cr.census is not None for cr in views.plain[s].calls) for s in (ps, cs))
    if round_trip and round_trip >= max(device, 1) and round_trip * 2 >= calls:
        # Equal bytes prove no state: the same constant fed to a model that returns it unchanged looks the same.
        kind = POSSIBLE_ROUND_TRIP if state and how == HOW_HASH else ROUND_TRIP
    elif device and device * 2 >= calls:
        kind = DEVICE
    else:
        kind = HOST
    d2h_b = max(set(d2h), key=d2h.count) if d2h else None
    h2d_b = max(set(h2d), key=h2d.count) if h2d else None
    basis = "assumed" if assumed and kind == DEVICE else (
        BASIS_CENSUS if traced and kind in (ROUND_TRIP, POSSIBLE_ROUND_TRIP) and census_d2h == round_trip
        and census_h2d == round_trip else views.basis(ps))
    hand = HandOff(producer=producer, output=output, consumer=consumer, input=name, calls=calls, how=how, state=state,
                   kind=kind, d2h_bytes_per_call=d2h_b, h2d_bytes_per_call=h2d_b, basis=basis,
                   census_d2h=census_d2h if traced else None, census_h2d=census_h2d if traced else None,
                   host_ms_between=_median(gaps))
    message, fix = _words(hand, round_trip)
    hand = replace(hand, message=message, fix=fix)
    code = handoff_code(hand, libraries=obs.libraries, producer_io=_io_names(obs, producer),
                        consumer_io=_io_names(obs, consumer))
    return replace(hand, code=code if code_offered(obs, code) else "")


def _words(h: HandOff, round_trips: int) -> tuple[str, str]:
    through = _HOW_WORDS.get(h.how, "through host memory")
    if h.kind == POSSIBLE_ROUND_TRIP:
        message = (f"possible state round trip: output `{h.output}` of {h.producer} has the same bytes as input "
                   f"`{h.input}` of the next call ({round_trips} call(s)), but equal bytes alone do not show that the "
                   "program fed it back (a constant input that the model returns unchanged looks the same); if it "
                   f"did, it goes device→host ({fmt_bytes(h.d2h_bytes_per_call)}/call) and back host→device "
                   f"({fmt_bytes(h.h2d_bytes_per_call)}/call): not counted as a round trip")
        fix = (f"if the program feeds `{h.output}` back as `{h.input}`: keep the state on the device: bind "
               f"`{h.output}` to a device OrtValue with bind_ortvalue_output and feed it as `{h.input}` with "
               "bind_ortvalue_input on the next call, swapping two OrtValues")
        return message, fix
    if h.kind == ROUND_TRIP:
        size = fmt_bytes(h.d2h_bytes_per_call)
        back = fmt_bytes(h.h2d_bytes_per_call)
        if h.state:
            message = (f"state: output `{h.output}` of {h.producer} goes device→host ({size}/call), {through}, and back "
                       f"host→device ({back}/call) as input `{h.input}` of the next call ({round_trips} call(s))")
            fix = (f"keep the state on the device: bind `{h.output}` to a device OrtValue with bind_ortvalue_output and "
                   f"feed it as `{h.input}` with bind_ortvalue_input on the next call, swapping two OrtValues")
        else:
            message = (f"output `{h.output}` of {h.producer} goes device→host ({size}/call), {through}, and back "
                       f"host→device ({back}/call) as input `{h.input}` of {h.consumer} ({round_trips} call(s))")
            fix = "pass the OrtValue (or a torch tensor via DLPack) instead"
        return message, fix
    if h.kind == DEVICE:
        what = "state " if h.state else ""
        target = "the next call" if h.state else h.consumer
        message = f"{what}output `{h.output}` of {h.producer} is handed to {target} as input `{h.input}` on the device"
        if h.basis == "assumed":
            message += " (as an OrtValue; no device provider was active: assumed to live on the device)"
        return message, ""
    target = "the next call" if h.state else h.consumer
    message = (f"output `{h.output}` of {h.producer} reaches {target} as input `{h.input}` {through}, "
               "but one end is in host memory anyway: no round trip")
    return message, ""


def _shape_text(shape: Optional[list[int]]) -> str:
    return "?" if shape is None else "x".join(str(d) for d in shape) or "scalar"


def _loop_calls(views: _Views, obs: PipelineObservations, ordered: list[PipelineCall]) -> list[LoopCall]:
    """The calls as analysis/loops.py takes them: on the program's clock, each its input shapes, its site and the
    bytes its inputs and outputs cross between host and device (the watch's per-call transfers).

    The program's clock is the wall clock less the recorder's own time so far: between two calls, what the
    recorder counted (``overhead_start_ns`` of a call less ``overhead_end_ns`` of the one before: its work in the
    bind_* calls); within a call, its wrapper's time less ORT's (``wrap_*`` less ``start_ns``..``end_ns``). ORT's
    time in a call's bind_* calls (``bind_ns``) counts in the call, not in the host time before it. So a call lasts
    ORT's time with its bind_* calls, and an iteration is exactly the sum of its calls and the host time between."""
    result: list[LoopCall] = []
    offset = 0
    previous: Optional[PipelineCall] = None
    for c in ordered:
        if previous is not None:
            offset += max(0, c.overhead_start_ns - previous.overhead_end_ns)
        start = c.wrap_start_ns - offset - c.bind_ns
        if c.end_ns > c.start_ns:
            inside = (c.wrap_end_ns - c.wrap_start_ns) - (c.end_ns - c.start_ns)
        else:
            inside = c.overhead_end_ns - c.overhead_start_ns
        offset += max(0, inside)
        end = max(start, c.wrap_end_ns - offset)
        calls = obs.sessions[c.session].observations.calls if 0 <= c.session < len(obs.sessions) else []
        shape = ""
        if 0 <= c.call < len(calls) and calls[c.call].inputs:
            shape = ", ".join(_shape_text(t.shape) for t in calls[c.call].inputs)
        report = views.call(c.session, c.call)
        h2d = d2h = 0
        if report is not None:
            h2d = sum(t.bytes or 0 for t in report.inputs if t.transfer == HOST_TO_DEVICE)
            d2h = sum(t.bytes or 0 for t in report.outputs if t.transfer == DEVICE_TO_HOST)
        result.append(LoopCall(session=c.session, start_ns=start, end_ns=end, shape=shape, site=c.site, h2d_bytes=h2d,
                               d2h_bytes=d2h))
        previous = c
    return result


def _loop_indices(loop: Loop) -> list[int]:
    """Every call the loop shows: before it, its iterations', after it (indices into the calls in order)."""
    found = [s.call for s in loop.before if s.kind == CALL]
    found += [i for it in loop.iterations for i in it.calls]
    return found + [s.call for s in loop.after if s.kind == CALL]


def short_site(site: str) -> str:
    """``file:function:line`` with the file's folder left out (the JSON keeps the whole path)."""
    path, sep, rest = site.rpartition(":")
    path, sep2, function = path.rpartition(":")
    if not sep or not sep2:
        return site
    return f"{path.replace(chr(92), '/').rsplit('/', 1)[-1]}:{function}:{rest}"


def _rows(obs: PipelineObservations, summaries: list[StageSummary], with_downloads: bool) -> list[StageRow]:
    """Stage rows from analysis/loops.py's summaries: each call (``<model>: inference``, with its site where the
    session is called from more than one) and each host stretch (``host: between <site> and <site>``)."""
    labels = [s.label for s in obs.sessions]

    def label(session: int) -> str:
        return labels[session] if 0 <= session < len(labels) else "?"

    sites: dict[int, set[str]] = {}
    for r in summaries:
        if r.kind == CALL:
            sites.setdefault(r.session, set()).add(r.site)
    rows: list[StageRow] = []
    downloaded: set[int] = set()
    for r in summaries:
        median, total, per = _ms(r.median_ns), _ms(r.total_ns), _ms(r.per_iteration_ns)
        if r.kind == CALL:
            name = f"{label(r.session)}: inference"
            if len(sites[r.session]) > 1 and r.site:
                name += f" at {short_site(r.site)}"
            rows.append(StageRow(name, "inference", r.count, median, total,
                                 "the ORT call with its bind_* calls (where the bound inputs are copied), or for run() "
                                 "with the copies of its inputs and outputs", per_iteration_ms=per, site=r.site))
            if with_downloads and r.session not in downloaded:
                downloaded.add(r.session)
                rows += _download_row(obs, r.session, label(r.session))
            continue
        after = label(r.session) if r.session >= 0 else "the end of the calls"
        before = label(r.before_session)
        if r.site and r.before_site:
            name = f"host: between {short_site(r.before_site)} and {short_site(r.site)}"
        else:
            name = f"host: between {before} and {after}"
        rows.append(StageRow(name, "host", r.count, median, total,
                             f"the program's code after {before} returned and before {after} was called",
                             per_iteration_ms=per, site=r.site, before_site=r.before_site))
    return rows


def _download_row(obs: PipelineObservations, session: int, label: str) -> list[StageRow]:
    """The device time of the device->host memcpys CUPTI saw in the session's calls (part of its inference row)."""
    traced = [c for c in obs.sessions[session].observations.calls if c.traced]
    if not traced:
        return []
    per_call = [sum(r.end_ns - r.start_ns for r in c.records if r.direction == DEVICE_TO_HOST) for c in traced]
    return [StageRow(f"{label}: download (device→host copies)", "download", len(per_call),
                     _median([_ms(v) for v in per_call]), _ms(sum(per_call)),
                     "device time of the device→host memcpys CUPTI saw in the call (part of its inference above)")]


def _pipeline(views: _Views, obs: PipelineObservations, loop: Loop, ordered: list[PipelineCall],
              loop_calls: list[LoopCall], mine: list[HandOff], linked_inputs: set[tuple[int, str]],
              consumed_outputs: set[tuple[int, str]]) -> Pipeline:
    labels = [s.label for s in obs.sessions]
    names = [labels[m] for m in loop.sessions]
    calls = [ordered[i] for i in sorted(_loop_indices(loop))]
    steady = loop.steady
    table = stage_table(loop_calls, loop, steady if steady else loop.iterations)
    stages = _rows(obs, table, with_downloads=True)
    first = loop.iterations[0]
    first_rows = _rows(obs, stage_table(loop_calls, loop, [first]), with_downloads=False) if steady else []
    before = _rows(obs, stage_table(loop_calls, loop, [Iteration(-1, [], loop.before, 0)]),
                   with_downloads=False) if loop.before else []
    after = _rows(obs, stage_table(loop_calls, loop, [Iteration(-1, [], loop.after, 0)]),
                  with_downloads=False) if loop.after else []
    spans = [it.ns for it in (steady or loop.complete) if it.ns is not None]
    iteration_of = {i: it.index + 1 for it in loop.iterations for i in it.calls}
    new_shapes = []
    for f in first_calls_at_shape(loop_calls, _loop_indices(loop)):
        new_shapes.append(ShapeCall(session=labels[f.session], shape=f.shape, iteration=iteration_of.get(f.call, 0),
                                    site=loop_calls[f.call].site, ms=_ms(f.ns),
                                    later_median_ms=None if f.later_median_ns is None else _ms(f.later_median_ns),
                                    later_calls=f.later_calls,
                                    steady_median_ms=None if f.steady_median_ns is None else _ms(f.steady_median_ns)))
    h2d, d2h = iteration_bytes(loop_calls, loop)
    count = max(1, len(loop.iterations))
    uploads: dict[tuple[int, str], list[Optional[int]]] = {}
    downloads: dict[tuple[int, str], list[Optional[int]]] = {}
    for c in calls:
        report = views.call(c.session, c.call)
        if report is None:
            continue
        for t in report.inputs:
            if t.transfer == HOST_TO_DEVICE and (c.seq, t.name) not in linked_inputs:
                uploads.setdefault((c.session, t.name), []).append(t.bytes)
        for t in report.outputs:
            if t.transfer == DEVICE_TO_HOST and (c.seq, t.name) not in consumed_outputs:
                downloads.setdefault((c.session, t.name), []).append(t.bytes)

    def edges(table: dict[tuple[int, str], list[Optional[int]]], direction: str) -> list[HostEdge]:
        result = []
        for (s, tensor), sizes in table.items():
            known = [b for b in sizes if b is not None]
            result.append(HostEdge(session=labels[s], tensor=tensor, direction=direction, calls=len(sizes),
                                   bytes_per_call=max(set(known), key=known.count) if known else None,
                                   basis=views.basis(s)))
        return result

    members = sorted({c.session for c in calls})
    pipeline = Pipeline(sessions=names, iterations=len(loop.iterations),
                        round_trips=[h for h in mine if h.kind == ROUND_TRIP and not h.state],
                        state=[h for h in mine if h.state and h.kind in (ROUND_TRIP, POSSIBLE_ROUND_TRIP, DEVICE)],
                        on_device=[h for h in mine if h.kind == DEVICE and not h.state],
                        host_hand_offs=[h for h in mine if h.kind == HOST],
                        uploads=edges(uploads, HOST_TO_DEVICE), downloads=edges(downloads, DEVICE_TO_HOST),
                        stages=stages, iteration_ms=_median([_ms(v) for v in spans]),
                        head=labels[loop.head[0]], head_site=loop.head[1],
                        stage_iterations=len(steady) if steady else len(loop.iterations),
                        first_iteration=first_rows,
                        first_iteration_ms=None if first.ns is None or not steady else _ms(first.ns),
                        before_loop=before, after_loop=after, new_shapes=new_shapes,
                        h2d_bytes_per_iteration=h2d / count, d2h_bytes_per_iteration=d2h / count,
                        bytes_predicted=any(views.host_only[m] for m in members))
    if any(c.traced for m in members for c in obs.sessions[m].observations.calls):
        pipeline = replace(pipeline, timing_note=TIMING_UNDER_CENSUS)
    pipeline = replace(pipeline, largest_cost=_largest_cost(pipeline))
    return replace(pipeline, code=pipeline_code(pipeline, obs), code_check=pipeline_code_check(pipeline, obs))


TIMING_UNDER_CENSUS = ("these times include the CUPTI census, which slows every traced call and bind_* call: "
                       "`ortcopy-doctor run --no-census` times the stages without it")

# A first call at a new shape is named as a cost where it took this much longer than the later calls at that shape.
NEW_SHAPE_MIN_EXCESS_MS = 1.0


def shape_message(s: ShapeCall) -> str:
    """``first call of det.onnx at shape 1x3x960x544 (iteration 3): 980.000 ms, next calls median 10.000 ms``."""
    where = f"iteration {s.iteration}" if s.iteration else "outside the loop"
    if s.later_median_ms is not None:
        later = f"next calls median {_fmt_ms(s.later_median_ms)} ms ({s.later_calls} call(s))"
    elif s.steady_median_ms is not None:
        later = (f"no later call at that shape; its calls at a shape seen before median {_fmt_ms(s.steady_median_ms)} "
                 "ms")
    else:
        later = "no later call at that shape"
    return f"first call of {s.session} at shape {s.shape} ({where}): {_fmt_ms(s.ms)} ms, {later}"


def _largest_cost(p: Pipeline) -> str:
    """The largest cost the report can name a fix for: a round trip (bytes per iteration), else the first call at a
    new shape that took longest over the later calls at that shape, else the largest host<->device transfer."""
    count = max(1, p.iterations)
    trips = [(h, ((h.d2h_bytes_per_call or 0) + (h.h2d_bytes_per_call or 0)) * h.calls / count)
             for h in p.round_trips + [s for s in p.state if s.kind == ROUND_TRIP]]
    if trips:
        h, per = max(trips, key=lambda t: t[1])
        what = (f"the state `{h.output}` → `{h.input}` of {h.producer}" if h.state
                else f"the round trip of `{h.output}` from {h.producer} to {h.consumer}")
        return f"largest removable cost: {what}, {fmt_bytes(int(per))} per iteration: {h.fix}"
    baselines = [(s, s.later_median_ms if s.later_median_ms is not None else s.steady_median_ms) for s in p.new_shapes]
    slow = [(s, s.ms - base) for s, base in baselines if base is not None and s.ms - base >= NEW_SHAPE_MIN_EXCESS_MS]
    if slow:
        s, extra = max(slow, key=lambda t: t[1])
        return (f"largest removable cost: the {shape_message(s)}: {_fmt_ms(extra)} ms more; warm the session up at that shape before the loop, or "
                "feed shapes it has already run")
    edges = [(e, (e.bytes_per_call or 0) * e.calls / count) for e in p.uploads + p.downloads]
    edges = [(e, per) for e, per in edges if per > 0]
    if edges:
        e, per = max(edges, key=lambda t: t[1])
        if e.direction == HOST_TO_DEVICE:
            return (f"largest transfer: the upload of input `{e.tensor}` of {e.session}, {fmt_bytes(int(per))} per "
                    "iteration: host code makes it, so IO binding cannot remove it")
        return (f"largest transfer: the download of output `{e.tensor}` of {e.session}, {fmt_bytes(int(per))} per "
                "iteration: host code reads it, so IO binding cannot remove it (post-processing on the device, torch "
                "or cupy via DLPack, could)")
    return ""


# --- generated code ---------------------------------------------------------------------------------------------------

# Names the generated code itself uses (its modules, variables and the builtins it calls): a variable made from an
# ONNX name never takes one of them.
_CODE_NAMES = frozenset({"np", "ort", "torch", "cp", "cupy", "t", "a", "device", "state", "first", "bindings",
                         "binding", "src", "dst", "step", "steps", "stream", "feeds", "host", "name", "value", "range",
                         "enumerate", "zip", "dict", "print", "len"})


class _Names:
    """The variables of one block of generated code: ``session(label)`` for a session, and one variable per
    (session, role, ONNX name), each a unique ASCII identifier (``analysis.binding.code_identifier``) that is none of
    the names the code itself uses. ONNX names themselves only ever appear as literals (``repr``)."""

    def __init__(self) -> None:
        self.used: set[str] = set(_CODE_NAMES)
        self._given: dict[tuple[str, str, str], str] = {}

    def session(self, label: str) -> str:
        """The variable of the session of ``label`` (``sess_<model file stem>``), and ``<it>_binding`` reserved."""
        base = _var(label)
        var, n = base, 2
        while var in self.used or f"{var}_binding" in self.used:
            var, n = f"{base}_{n}", n + 1
        self.used.update((var, f"{var}_binding"))
        return var

    def __call__(self, label: str, role: str, name: str, prefix: str = "") -> str:
        """The variable of input or output (``role``) ``name`` of the session of ``label``."""
        key = (label, role, prefix + name)
        if key not in self._given:
            self._given[key] = code_identifier(prefix + name, self.used)
        return self._given[key]


def _var(label: str) -> str:
    """``sess_`` and the model file's stem, as an ASCII identifier (``det.onnx#2`` -> ``sess_det_2``)."""
    stem, _, copy = label.partition("#")
    stem = stem.rsplit(".", 1)[0] + (f"_{copy}" if copy else "")
    return "sess_" + (re.sub(r"[^A-Za-z0-9_]", "_", stem).strip("_").lower() or "model")


def _note(text: str) -> str:
    """Text safe inside a ``# ...`` comment (``analysis.binding.code_comment``: a name cannot end the comment), with
    characters UTF-8 cannot hold escaped."""
    return code_comment(text).encode("utf-8", "backslashreplace").decode("utf-8")


def _targets(variables: list[str]) -> str:
    """The left-hand side that unpacks a list into ``variables`` (``a,`` for one)."""
    return ", ".join(variables) + ("," if len(variables) == 1 else "")


IoNames = tuple[list[str], list[str]]  # a session's input and output names, as the program called it


class HandoffCode(msgspec.Struct, frozen=True):
    """One block of hand-off code and the variables it uses, so that it can be run next to plain ``run()``
    (watch/handoff_check.py): ``sessions`` label -> variable; ``given`` the variables the program provides
    ("label|input|name" -> variable: its arrays; "label|initial|name" for a state's initial value); ``results`` the
    variables the block leaves ("label|output|name" -> variable)."""

    kind: str  # between, state
    code: str
    sessions: dict[str, str]
    given: dict[str, str]
    results: dict[str, str]
    producer: str = ""
    consumer: str = ""
    pairs: list[tuple[str, str]] = field(default_factory=list)  # between: (output, input); state: (input, output)
    stream: bool = False  # state: per-step inputs come from ``stream`` (else ``steps`` counts the steps)

    @property
    def block(self) -> str:
        """Its name in ``PipelineObservations.code_checks``: ``state:cell.onnx (h_in<-h_out)``,
        ``handoff:det.onnx->cls.onnx (features->features, boxes->rois)``."""
        if self.kind == "state":
            return f"state:{self.producer} ({', '.join(f'{i}<-{o}' for i, o in self.pairs)})"
        return f"handoff:{self.producer}->{self.consumer} ({', '.join(f'{o}->{i}' for o, i in self.pairs)})"


def handoff_code(h: HandOff, *, libraries: Sequence[str] = (), producer_io: Optional[IoNames] = None,
                 consumer_io: Optional[IoNames] = None) -> str:
    """Python that keeps this hand-off on the device (OrtValue passing; torch via DLPack; cupy); "" where it is no
    round trip. ``producer_io``/``consumer_io``: the input and output names of the two sessions, as the program called
    them (state: the session's), all bound as the model names them; without them only the handed-over tensor is."""
    if h.kind not in (ROUND_TRIP, POSSIBLE_ROUND_TRIP):
        return ""
    return handoff_block(h, libraries=libraries, producer_io=producer_io, consumer_io=consumer_io).code


def handoff_block(h: HandOff, *, libraries: Sequence[str] = (), producer_io: Optional[IoNames] = None,
                  consumer_io: Optional[IoNames] = None) -> HandoffCode:
    """``handoff_code``'s block with the variables it uses (HandoffCode)."""
    caveat = _possible_caveat([h])
    if h.state:
        return _state_code(h.producer, [(h.input, h.output)], producer_io or ([h.input], [h.output]), libraries, caveat)
    return _between_code(h.producer, h.consumer, [(h.output, h.input)], producer_io or ([], [h.output]),
                         consumer_io or ([h.input], []), libraries, caveat)


def _possible_caveat(hand_offs: list[HandOff]) -> str:
    possible = [h for h in hand_offs if h.kind == POSSIBLE_ROUND_TRIP]
    if not possible:
        return ""
    what = ", ".join(f"`{h.output}` back as `{h.input}`" for h in possible)
    return (f"# only if the program does feed {what}: it was traced by equal bytes alone, which do not show that "
            "the program fed it back")


def _between_code(producer: str, consumer: str, trips: list[tuple[str, str]], producer_io: IoNames,
                  consumer_io: IoNames, libraries: Sequence[str], caveat: str = "") -> HandoffCode:
    """The producer's and the consumer's calls with IO binding, the outputs of ``trips`` ((output, input) pairs)
    handed over as OrtValues on the device; every other input bound from the host, every other output to it."""
    names = _Names()
    p, c = names.session(producer), names.session(consumer)
    pb, cb = f"{p}_binding", f"{c}_binding"
    handed = list(dict.fromkeys(o for o, _ in trips))
    fed = {i: o for o, i in trips}
    p_in, p_out = producer_io
    p_out = list(p_out) + [o for o in handed if o not in p_out]
    c_in, c_out = consumer_io
    c_in = list(c_in) + [i for i in fed if i not in c_in]
    out_var = {o: names(producer, "output", o) for o in p_out}
    lines = [_note(f"# {producer} -> {consumer}: {', '.join(f'`{o}`' for o in handed)} stay on the device as "
                   "OrtValues")]
    if caveat:
        lines.append(_note(caveat))
    lines += ["import onnxruntime as ort", "", "device = 'cuda'  # the sessions' device",
              f"{pb} = {p}.io_binding()  # create once, reuse for every call", f"{cb} = {c}.io_binding()", ""]
    lines += [f"{pb}.bind_cpu_input({n!r}, {names(producer, 'input', n)})  # or bind_ortvalue_input with a device "
              "OrtValue" for n in p_in]
    lines += [f"{pb}.bind_output({o!r}, device)  # stays on the device" if o in handed else
              f"{pb}.bind_output({o!r}, 'cpu')  # needed on the host" for o in p_out]
    lines.append(f"{p}.run_with_iobinding({pb})")
    if p_out:
        lines.append(f"{_targets([out_var[o] for o in p_out])} = {pb}.get_outputs()  # OrtValues, in bind order")
    lines.append("")
    lines += [f"{cb}.bind_ortvalue_input({n!r}, {out_var[fed[n]]})  # no copy" if n in fed else
              f"{cb}.bind_cpu_input({n!r}, {names(consumer, 'input', n)})" for n in c_in]
    lines += [f"{cb}.bind_output({o!r}, 'cpu')  # only what the host needs" for o in c_out]
    lines.append(f"{c}.run_with_iobinding({cb})")
    if c_out:
        lines.append(f"{_targets([names(consumer, 'output', o) for o in c_out])} = {cb}.copy_outputs_to_cpu()"
                     "  # numpy arrays, in bind order")
    first_out, first_in = trips[0]
    lines += ["", "# with torch between the stages (DLPack: no copy either way)", "import torch",
              f"t = torch.from_dlpack({out_var[first_out]})  # ORT -> torch, on the device",
              "# ... torch post-/pre-processing on the device ...",
              f"{cb}.bind_ortvalue_input({first_in!r}, ort.OrtValue.from_dlpack(t.contiguous()))  # torch -> ORT"]
    if "cupy" in libraries:
        lines += ["", "# with cupy between the stages", "import cupy as cp",
                  f"a = cp.from_dlpack({out_var[first_out]})",
                  f"{cb}.bind_ortvalue_input({first_in!r}, ort.OrtValue.from_dlpack(cp.ascontiguousarray(a)))"]
    given = {f"{producer}|input|{n}": names(producer, "input", n) for n in p_in}
    given.update({f"{consumer}|input|{n}": names(consumer, "input", n) for n in c_in if n not in fed})
    results = {f"{producer}|output|{o}": out_var[o] for o in p_out}
    results.update({f"{consumer}|output|{o}": names(consumer, "output", o) for o in c_out})
    return HandoffCode(kind="between", code=fit("\n".join(lines)), sessions={producer: p, consumer: c}, given=given,
                       results=results, producer=producer, consumer=consumer, pairs=list(trips))


def _state_code(label: str, pairs: list[tuple[str, str]], io: IoNames, libraries: Sequence[str],
                caveat: str = "") -> HandoffCode:
    """One session's calls with its state (``pairs``: (input, output)) kept on the device: two OrtValues per state
    and two bindings made once, run in turn; the other inputs bound from each step's feeds (``stream`` yields them
    by name, as ``run()`` takes them, or ``steps`` counts the steps where there are none), the other outputs to the
    host.

    Each input and each output is bound once (a second ``bind_*`` of a name replaces the first, and the state would
    read memory nothing wrote): an input paired with two outputs takes the first (the other goes to the host), and
    an output paired with two inputs is written into the first one's buffers, which the second input reads as well
    from the second step on (its own initial value on the first)."""
    names = _Names()
    s = names.session(label)
    owner: dict[str, str] = {}  # state output -> the input whose two buffers it is written into
    shared: list[tuple[str, str]] = []  # (input, the input whose buffers it reads): an output feeding both
    kept: list[tuple[str, str]] = []  # (input, output): a pair of buffers each
    carried: list[tuple[str, str]] = []  # every (input, output) the code carries, in the order given
    for i, o in pairs:
        if any(i == j for j, _ in carried):
            continue  # an input takes one value: the first pair's
        carried.append((i, o))
        if o in owner:
            shared.append((i, owner[o]))
        else:
            owner[o] = i
            kept.append((i, o))
    state_in = [i for i, _ in carried]
    ins, outs = io
    others = [n for n in ins if n not in state_in]
    host_outs = [o for o in outs if o not in owner]
    what = ", ".join(f"`{o}` -> `{i}`" for i, o in carried)
    lines = [_note(f"# {label}: the state {what} stays on the device (two OrtValues each, and two bindings made "
                   "once: one reads state[...][0] and writes state[...][1], the other the reverse)")]
    if caveat:
        lines.append(_note(caveat))
    lines += ["import numpy as np", "import onnxruntime as ort", "", "device = 'cuda'  # the session's device",
              "state = {}  # each state input: two OrtValues on the device"]
    for i, _ in kept:
        initial = names(label, "input", i, prefix="initial_")
        lines.append(f"state[{i!r}] = [ort.OrtValue.ortvalue_from_numpy({initial}, device, 0), "
                     f"ort.OrtValue.ortvalue_from_numpy(np.empty_like({initial}), device, 0)]  "
                     "# the initial state, copied to the device once")
    if shared:
        lines.append("first = {}  # the initial value of each state input that shares another one's buffers")
    for i, j in shared:
        initial = names(label, "input", i, prefix="initial_")
        lines.append(f"state[{i!r}] = state[{j!r}]  # the same output feeds both: one pair of buffers, no copy")
        lines.append(f"first[{i!r}] = ort.OrtValue.ortvalue_from_numpy({initial}, device, 0)  # read by the first "
                     "step only")
    lines += ["bindings = []", "for src, dst in ((0, 1), (1, 0)):", f"    binding = {s}.io_binding()"]
    lines += [f"    binding.bind_output({o!r}, 'cpu')  # only what the host needs" for o in host_outs]
    for i, o in kept:
        lines += [f"    binding.bind_ortvalue_input({i!r}, state[{i!r}][src])",
                  f"    binding.bind_ortvalue_output({o!r}, state[{i!r}][dst])  # written on the device, never "
                  "copied to host"]
    lines += [f"    binding.bind_ortvalue_input({i!r}, state[{i!r}][src])" for i, _ in shared]
    lines.append("    bindings.append(binding)")
    lines += [f"bindings[0].bind_ortvalue_input({i!r}, first[{i!r}])  # the first step reads its initial value"
              for i, _ in shared]
    if others:
        lines.append("for step, feeds in enumerate(stream):  # each step's other inputs by name, as run() takes them")
    else:
        lines.append("for step in range(steps):")
    lines.append("    binding = bindings[step % 2]")
    lines += [f"    binding.bind_cpu_input({n!r}, feeds[{n!r}])  # the per-step input: one small upload"
              for n in others]
    lines.append(f"    {s}.run_with_iobinding(binding)")
    if host_outs:
        lines.append(f"    host = {{name: value.numpy() for name, value in zip({host_outs!r}, binding.get_outputs())}}"
                     "  # the host outputs, bound first")
    if shared:
        lines.append("    if step == 0:  # from the second step on, the shared state is read from its buffers")
        lines += [f"        binding.bind_ortvalue_input({i!r}, state[{i!r}][0])" for i, _ in shared]
    first = state_in[0]
    lines.append(f"# after n steps the latest state is state[{first!r}][n % 2]")
    lines += ["", "# with torch on the state between two steps (DLPack: no copy either way)", "import torch",
              f"t = torch.from_dlpack(state[{first!r}][(step + 1) % 2])  # the state the last step wrote: ORT -> torch",
              "# ... torch work on the device ...",
              f"bindings[(step + 1) % 2].bind_ortvalue_input({first!r}, ort.OrtValue.from_dlpack(t.contiguous()))"
              "  # torch -> ORT"]
    twins = [i for i, j in shared if j == first]  # inputs the same output feeds: they read the same tensor
    lines += [f"bindings[(step + 1) % 2].bind_ortvalue_input({i!r}, ort.OrtValue.from_dlpack(t.contiguous()))"
              for i in twins]
    if "cupy" in libraries:
        lines += ["", "# with cupy on the state between two steps", "import cupy as cp",
                  f"a = cp.from_dlpack(state[{first!r}][(step + 1) % 2])"]
        lines += [f"bindings[(step + 1) % 2].bind_ortvalue_input({i!r}, "
                  "ort.OrtValue.from_dlpack(cp.ascontiguousarray(a)))" for i in [first, *twins]]
    given = {f"{label}|initial|{i}": names(label, "input", i, prefix="initial_") for i, _ in carried}
    return HandoffCode(kind="state", code=fit("\n".join(lines)), sessions={label: s}, given=given, results={},
                       producer=label, consumer=label, pairs=list(carried), stream=bool(others))


def _io_names(obs: PipelineObservations, label: str) -> IoNames:
    """The input and output names of a session, as its first recorded call with outputs used them."""
    index = next((i for i, s in enumerate(obs.sessions) if s.label == label), -1)
    mine = [c for c in obs.calls if c.session == index]
    call = next((c for c in mine if c.outputs), mine[0] if mine else None)
    if call is None:
        return [], []
    return list(dict.fromkeys(v.name for v in call.inputs)), list(dict.fromkeys(v.name for v in call.outputs))


def pipeline_code(pipeline: Pipeline, obs: PipelineObservations) -> str:
    """The hand-offs of a pipeline rewritten with IO binding: round-tripped tensors stay on the device as OrtValues
    (one block per pair of sessions, one per session carrying state); a block that raised or gave other outputs
    than plain run() where it was run (``obs.code_checks``, watch/handoff_check.py) is left out."""
    return "\n\n".join(b.code for b in pipeline_blocks(pipeline, obs) if code_offered(obs, b.code))


def pipeline_code_check(pipeline: Pipeline, obs: PipelineObservations) -> str:
    """One line: how the pipeline's hand-off code was checked (run as printed next to plain run()), and each block
    that is not offered with what happened; "" where it was not run."""
    by_digest = {c.code_sha256: c for c in obs.code_checks}
    checks = [by_digest.get(code_sha256(b.code)) for b in pipeline_blocks(pipeline, obs)]
    if not checks or all(c is None for c in checks):
        return ""
    matched = [c for c in checks if c is not None and c.status == "matched"]
    parts = []
    if matched:
        where = ("on the CUDA EP" if all(c.device == "cuda" for c in matched)
                 else "on CPU OrtValues ('cpu' for 'cuda'; no GPU here)")
        parts.append(f"{len(matched)} of {len(checks)} block(s) run as printed next to plain run() after the program "
                     f"{where}, with other inputs each call: the same outputs")
    for c in checks:
        if c is None or c.status == "matched":
            continue
        verb = {"failed": "raised", "differs": "gave other outputs"}.get(c.status)
        parts.append(f"{c.block} " + (f"{verb}, not offered: {c.detail}" if verb else f"not run: {c.detail}"))
    return "hand-off code: " + "; ".join(parts)


def code_offered(obs: PipelineObservations, code: str) -> bool:
    """False where a check of this very code (its SHA-256) raised or gave other outputs than plain run()."""
    digest = code_sha256(code)
    return not any(c.code_sha256 == digest and c.status in ("differs", "failed") for c in obs.code_checks)


def pipeline_blocks(pipeline: Pipeline, obs: PipelineObservations) -> list[HandoffCode]:
    """``pipeline_code``'s blocks, each with the variables it uses."""
    blocks: list[HandoffCode] = []
    pairs: dict[tuple[str, str], list[HandOff]] = {}
    for h in pipeline.round_trips:
        pairs.setdefault((h.producer, h.consumer), []).append(h)
    for (producer, consumer), trips in pairs.items():
        blocks.append(_between_code(producer, consumer, [(h.output, h.input) for h in trips], _io_names(obs, producer),
                                    _io_names(obs, consumer), obs.libraries, _possible_caveat(trips)))
    states: dict[str, list[HandOff]] = {}
    for h in pipeline.state:
        if h.kind in (ROUND_TRIP, POSSIBLE_ROUND_TRIP):
            states.setdefault(h.producer, []).append(h)
    for label, carried in states.items():
        # A possible round trip is left out where the session has real ones, as the verdict leaves it out of the
        # count: equal bytes alone may be chance (an output equal to a per-step input), and binding its output
        # again would take it from the real state.
        carried = [h for h in carried if h.kind == ROUND_TRIP] or carried
        blocks.append(_state_code(label, [(h.input, h.output) for h in carried], _io_names(obs, label),
                                  obs.libraries, _possible_caveat(carried)))
    return blocks


# --- rendering -------------------------------------------------------------------------------------------------------


def _fmt_ms(v: Optional[float]) -> str:
    return "-" if v is None else f"{v:.3f}"


def render_text(report: PipelineReport) -> str:
    """Plain text: the program and how it ended, the verdict, each session, each pipeline's edges and stages."""
    program = " ".join(report.program)
    ended = {"exit": f"exit code {report.exit_code}", "exception": f"raised ({report.error}), exit code {report.exit_code}",
             "interrupt": f"interrupted (Ctrl-C), exit code {report.exit_code}",
             "signal": f"killed by {report.error}, exit code {report.exit_code}"}.get(report.ended_by, report.ended_by)
    lines = [f"ortcopy-doctor run: {program} -- {ended}", f"verdict: {report.verdict}"]
    for finding in report.providers:
        lines.append(f"  providers: {finding.line}")
        lines.append(f"    fix: {finding.fix}")
    for s in report.sessions:
        lines.append(f"  session {s.label}: {s.calls} call(s) on {', '.join(short(p) for p in s.providers) or '?'}; "
                     f"placement {s.placement}; census {s.census}")
    lines += [f"  observed: {o}" for o in report.observed]
    lines += [f"  not observed: {o}" for o in report.not_observed]
    for n, p in enumerate(report.pipelines, 1):
        lines.append("")
        lines.append(f"pipeline {n}: {' → '.join(p.sessions)} ({_loop_words(p)})")
        if p.h2d_bytes_per_iteration is not None:
            lines.append(f"  bytes across PCIe per iteration: {_bytes_words(p)}")
        if p.round_trips:
            lines.append("  round trips between stages:")
            for h in p.round_trips:
                lines.append(f"    - {h.message} [{h.basis}]"
                             + (f"; host time between: {_fmt_ms(h.host_ms_between)} ms/call" if h.host_ms_between is not None else ""))
                lines.append(f"      fix: {h.fix}")
        if p.state:
            lines.append("  state carried between calls:")
            for h in p.state:
                lines.append(f"    - {h.message} [{h.basis}]")
                if h.fix:
                    lines.append(f"      fix: {h.fix}")
        for h in p.on_device:
            lines.append(f"  kept on the device: {h.message}")
        for h in p.host_hand_offs:
            lines.append(f"  host hand-off: {h.message}")
        for e in p.uploads:
            lines.append(f"  upload from host code: input `{e.tensor}` of {e.session}, {fmt_bytes(e.bytes_per_call)}/call, "
                         f"{e.calls} call(s) [{e.basis}]")
        for e in p.downloads:
            lines.append(f"  download to host code: output `{e.tensor}` of {e.session}, {fmt_bytes(e.bytes_per_call)}/call, "
                         f"{e.calls} call(s) [{e.basis}]")
        if p.before_loop:
            lines.append("  before the loop (warm-up, initialisation), ms:")
            lines += _text_table(p.before_loop, per_iteration=False)
        if p.first_iteration:
            lines.append(f"  first iteration, shown apart: {_fmt_ms(p.first_iteration_ms)} ms")
            lines += _text_table(p.first_iteration, per_iteration=False)
        if p.new_shapes:
            lines.append("  first call of each session at each input shape:")
            shown = sorted(p.new_shapes, key=lambda c: -c.ms)[:NEW_SHAPES_SHOWN]
            lines += [f"    - {shape_message(c)}" for c in sorted(shown, key=p.new_shapes.index)]
            if len(p.new_shapes) > len(shown):
                lines.append(f"    ({len(p.new_shapes) - len(shown)} more in the JSON report, each faster)")
        lines.append(f"  stage table ({_table_words(p)}; median ms per call, measured in this run):")
        if p.timing_note:
            lines.append(f"    ({p.timing_note})")
        lines += _text_table(p.stages, per_iteration=True)
        if p.after_loop:
            lines.append("  after the loop, ms:")
            lines += _text_table(p.after_loop, per_iteration=False)
        if p.code:
            lines.append("  code for the hand-offs:")
            lines += ["    " + line for line in p.code.splitlines()]
        if p.code_check:
            lines.append(f"  {p.code_check}")
    lines += [f"note: {n}" for n in report.notes]
    # names from the models and the program are untrusted: every line escaped (control characters, line breaks,
    # bidi overrides), so a name cannot clear the terminal or forge a line
    return "\n".join(safe(line) for line in lines)


NEW_SHAPES_SHOWN = 8  # first calls at a shape the text shows (the slowest); the JSON has them all


def _loop_words(p: Pipeline) -> str:
    """``10 iteration(s) of the loop, each starting at det.onnx called at ocr.py:main:23, 12.000 ms each``."""
    words = f"{p.iterations} iteration(s) of the loop"
    if p.head:
        words += f", each starting at {p.head}" + (f" called at {short_site(p.head_site)}" if p.head_site else "")
    if p.iteration_ms is not None:
        words += f", {_fmt_ms(p.iteration_ms)} ms each (median)"
    return words


def _bytes_words(p: Pipeline) -> str:
    up, down = p.h2d_bytes_per_iteration or 0, p.d2h_bytes_per_iteration or 0
    return (f"{fmt_bytes(int(up + down))} ({fmt_bytes(int(up))} host→device, {fmt_bytes(int(down))} device→host; "
            f"mean of {p.iterations} iteration(s)"
            + ("; predicted for the device: no device provider was active)" if p.bytes_predicted else ")"))


def _table_words(p: Pipeline) -> str:
    if p.first_iteration:
        return (f"{p.stage_iterations} iteration(s) after the first, whose end is known; the rows but download add "
                "up to their time")
    return f"all {p.stage_iterations} iteration(s)"


def _text_table(rows: list[StageRow], per_iteration: bool) -> list[str]:
    width = max((len(r.stage) for r in rows), default=10)
    head = f"    {'stage':<{width}}  {'ms/call':>9}  {'calls':>6}  {'total ms':>10}"
    lines = [head + (f"  {'ms/iter':>9}" if per_iteration else "")]
    for r in rows:
        line = f"    {r.stage:<{width}}  {_fmt_ms(r.median_ms):>9}  {r.calls:>6}  {_fmt_ms(r.total_ms):>10}"
        if per_iteration:
            line += f"  {_fmt_ms(r.per_iteration_ms):>9}"
        lines.append(line + (f"  ({r.note})" if r.median_ms is None and r.note else ""))
    return lines


_CSS = """body{font-family:system-ui,sans-serif;margin:2em;max-width:70em}table{border-collapse:collapse}
td,th{border:1px solid #ccc;padding:.2em .6em;text-align:left}td.n{text-align:right}
.rt{color:#a00}.ok{color:#070}pre{background:#f4f4f4;padding:1em;overflow-x:auto}code{background:#f4f4f4}
.long{overflow-wrap:anywhere}"""


def render_html(report: PipelineReport) -> str:
    """One self-contained HTML page (no network references); every name is escaped, and breaks at its separators
    (``breakable``, as in the check report) so that a long model or tensor name wraps instead of widening the page."""
    from ortcopy_doctor.render.html import breakable as b  # jinja2 loads only where a page is written

    e = html_lib.escape
    out = ["<!doctype html><html><head><meta charset='utf-8'><title>ortcopy-doctor run</title>",
           f"<style>{_CSS}</style></head><body>",
           f"<h1>ortcopy-doctor run</h1><p><code>{b(' '.join(report.program))}</code> &mdash; ended by {e(report.ended_by)}, "
           f"exit code {report.exit_code}</p>",
           f"<p class='{'rt' if report.round_trips else 'ok'}'><b>{b(report.verdict)}</b></p>",
           *([("<h2>Providers</h2><ul>" + "".join(f"<li>{b(f.line)}<br>fix: {b(f.fix)}</li>" for f in report.providers)
               + "</ul>")] if report.providers else []),
           "<h2>Sessions</h2><table><tr><th>session</th><th>providers</th><th>calls</th><th>placement</th><th>census</th></tr>"]
    for s in report.sessions:
        out.append(f"<tr><td>{b(s.label)}</td><td>{e(', '.join(short(p) for p in s.providers))}</td><td class='n'>{s.calls}</td>"
                   f"<td>{b(s.placement)}</td><td>{b(s.census)}</td></tr>")
    out.append("</table><ul>")
    out += [f"<li>observed: {b(o)}</li>" for o in report.observed]
    out += [f"<li>not observed: {b(o)}</li>" for o in report.not_observed]
    out.append("</ul>")
    for n, p in enumerate(report.pipelines, 1):
        out.append(f"<h2>Pipeline {n}: {b(' → '.join(p.sessions))}</h2><p>{b(_loop_words(p))}</p>")
        if p.h2d_bytes_per_iteration is not None:
            out.append(f"<p>bytes across PCIe per iteration: {b(_bytes_words(p))}</p>")
        items = [("rt", h.message + f" [{h.basis}]", h.fix) for h in p.round_trips]
        items += [({ROUND_TRIP: "rt", POSSIBLE_ROUND_TRIP: ""}.get(h.kind, "ok"), h.message + f" [{h.basis}]", h.fix)
                  for h in p.state]
        items += [("ok", h.message, "") for h in p.on_device]
        items += [("", h.message, "") for h in p.host_hand_offs]
        if items:
            out.append("<h3>Hand-offs between stages</h3><ul>")
            for cls, message, fix in items:
                out.append(f"<li class='{cls}'>{b(message)}" + (f"<br>fix: {b(fix)}" if fix else "") + "</li>")
            out.append("</ul>")
        if p.before_loop:
            out.append("<h3>Before the loop (warm-up, initialisation)</h3>")
            out += _html_table(p.before_loop, b, per_iteration=False)
        if p.first_iteration:
            out.append(f"<h3>First iteration, shown apart: {_fmt_ms(p.first_iteration_ms)} ms</h3>")
            out += _html_table(p.first_iteration, b, per_iteration=False)
        if p.new_shapes:
            out.append("<h3>First call of each session at each input shape</h3><ul>")
            out += [f"<li>{b(shape_message(c))}</li>" for c in p.new_shapes]
            out.append("</ul>")
        out.append(f"<h3>Stage table</h3><p>{b(_table_words(p))}</p>")
        if p.timing_note:
            out.append(f"<p>{e(p.timing_note)}</p>")
        out += _html_table(p.stages, b, per_iteration=True)
        if p.after_loop:
            out.append("<h3>After the loop</h3>")
            out += _html_table(p.after_loop, b, per_iteration=False)
        if p.code:
            out.append(f"<h3>Code for the hand-offs</h3><pre>{e(p.code)}</pre>")
        if p.code_check:
            out.append(f"<p class=\"muted\">{e(p.code_check)}</p>")
    out += [f"<p>note: {b(n)}</p>" for n in report.notes]
    out.append("</body></html>")
    return "\n".join(out)


def _html_table(rows: list[StageRow], b: Any, per_iteration: bool) -> list[str]:
    extra = "<th>ms/iteration</th>" if per_iteration else ""
    out = [f"<table><tr><th>stage</th><th>ms/call (median)</th><th>calls</th><th>total ms</th>{extra}<th>what</th></tr>"]
    for r in rows:
        cell = f"<td class='n'>{_fmt_ms(r.per_iteration_ms)}</td>" if per_iteration else ""
        out.append(f"<tr><td>{b(r.stage)}</td><td class='n'>{_fmt_ms(r.median_ms)}</td><td class='n'>{r.calls}</td>"
                   f"<td class='n'>{_fmt_ms(r.total_ms)}</td>{cell}<td>{b(r.note)}</td></tr>")
    out.append("</table>")
    return out


__all__ = ["Download", "HandOff", "HostEdge", "Pipeline", "PipelineCall", "PipelineObservations", "PipelineReport",
           "SessionRecord", "ShapeCall", "StageRow", "ValueInfo", "ValueLink", "analyse_pipeline", "handoff_code",
           "load_pipeline_observations", "pipeline_code", "POSSIBLE_ROUND_TRIP", "ROUND_TRIP"]
