"""What ``ortcopy-doctor run`` records and reports, as plain data: each call of each session in the program's
order with where its values came from (``PipelineObservations``, read back by ``load_pipeline_observations``), and
the report ``analyse_pipeline`` (report/pipeline.py) makes of them (``PipelineReport``: each session, each loop of
sessions with its hand-offs, stage times and the code for them).

The types, their closed sets of names and their queries only (``PipelineReport.verdict``, ``round_trips``); the
recorder and the analysis are watch/'s, the report's text and HTML ``render.pipeline``'s, its JSON ``to_json``
(through ``model.codec``).
"""

from __future__ import annotations

import msgspec
from msgspec import field
from typing import Any, Optional

from ortcopy_doctor.model import codec
from ortcopy_doctor.model.evidence import CodeCheck
from ortcopy_doctor.model.findings import Finding
from ortcopy_doctor.model.format import fmt_bytes
from ortcopy_doctor.model.providers import is_device, short
from ortcopy_doctor.model.replay import SessionReplay
from ortcopy_doctor.model.vocabulary import Ending, HandedAs, HandOffKind, HandoffBlock, LinkHow, Role, StageKind
from ortcopy_doctor.model.watch import WatchObservations

PIPELINE_FORMAT = "ortcopy-doctor-pipeline"
PIPELINE_FORMAT_VERSION = 1
PIPELINE_REPORT_FORMAT = PIPELINE_FORMAT + "-report"  # what `run --json` writes (PipelineReport.to_dict)

# How a consumed value was traced back to the output that produced it.
HOW_OBJECT = LinkHow.OBJECT
HOW_VIEW = LinkHow.VIEW
HOW_POINTER = LinkHow.POINTER
HOW_DOWNLOAD = LinkHow.DOWNLOAD
HOW_HASH = LinkHow.HASH

HOST_KINDS = ("numpy", "torch_cpu", "host_pointer")

# What a hand-off is (HandOff.kind). A state hand-off traced by equal bytes alone (HOW_HASH) is only a *possible*
# round trip: a program that feeds the same constant every call to a model that returns it unchanged (Relu of ones)
# gives the same link, and the recorder keeps nothing that tells the two apart. It is reported, and not counted.
ROUND_TRIP = HandOffKind.ROUND_TRIP
POSSIBLE_ROUND_TRIP = HandOffKind.POSSIBLE_ROUND_TRIP
DEVICE = HandOffKind.DEVICE
HOST = HandOffKind.HOST


# --- observations -------------------------------------------------------------------------------------------------


class ValueLink(msgspec.Struct, frozen=True):
    """The output of an earlier call that a consumed value came from."""

    seq: int  # the producing call's PipelineCall.seq
    output: str
    how: LinkHow


class ValueInfo(msgspec.Struct):
    """One input or output of one call as the program handed it over."""

    name: str
    role: Role
    kind: HandedAs
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
    # The program's frames that called ``site``'s function, innermost first (file:function:line, at most
    # watch/program.py's STACK_FRAMES; empty in observations of earlier versions): they tell apart the calls that a
    # package makes from one wrapper method, and name the host code between two calls (``host_stretch_sites``).
    stack: list[str] = field(default_factory=list)


def host_stretch_sites(before: list[str], after: list[str]) -> tuple[str, str]:
    """The frames that name the host code between two calls, from their whole stacks (site first, innermost
    first): the outermost frames where the two stacks part. Where a package calls every session from one wrapper
    (``infer_engine.py:__call__:196`` for all of them), these are the lines of the package's or the program's code
    that called the two stages (``main.py:__call__:85`` and ``main.py:__call__:97``). ("", "") where the stacks do
    not part (the same call in the next iteration: its site names it) or either is empty."""
    if not before or not after:
        return "", ""
    outer_before, outer_after = before[::-1], after[::-1]
    for a, b in zip(outer_before, outer_after):
        if a != b:
            return a, b
    return "", ""


class SessionRecord(msgspec.Struct, frozen=True):
    """One session the program created: its unique label, its model file and the watch's observations of it."""

    label: str  # the model file's name (made unique with #2, #3)
    model: str
    observations: WatchObservations
    created_at: str = ""  # file:function:line of the program's code that created it ("" where not recorded)
    available_providers: list[str] = field(default_factory=list)  # onnxruntime.get_available_providers() then
    provider_failures: dict[str, str] = field(default_factory=dict)  # provider -> ORT's reason it did not load
    intra_op_threads: int = 0  # the program's session options (0: ORT's default): the replay uses the same
    inter_op_threads: int = 0
    # The program's own names at its call sites (watch/callsite.py), which the hand-off code uses; empty in
    # observations of earlier versions and where none was seen (the code then says ``sess_<model>`` and each
    # tensor's ONNX name). ``variables``: what holds the session where it is called, first seen first (``det``,
    # ``self.det``); ``input_variables``: ONNX input -> the variable a dict literal fed it from (``{"x": image}``:
    # ``x`` -> ``image``); ``output_variables``: ONNX output -> the variable the program unpacked it into
    # (``boxes, scores = det.run(...)``, ``boxes = det.run(...)[0]``). Lists and dicts filled in place as the
    # program runs (the record itself is frozen).
    variables: list[str] = field(default_factory=list)
    input_variables: dict[str, str] = field(default_factory=dict)
    output_variables: dict[str, str] = field(default_factory=dict)


class PipelineObservations(msgspec.Struct):
    """Everything ``ortcopy-doctor run`` recorded of one program (``analyse_pipeline`` needs no onnxruntime)."""

    format: str = PIPELINE_FORMAT
    format_version: int = PIPELINE_FORMAT_VERSION
    ort_version: str = ""
    program: list[str] = field(default_factory=list)
    exit_code: int = 0
    ended_by: Ending = Ending.EXIT  # signal: killed by the signal named in error
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
    # Each session replayed after the program on the provider it ran on and on the other one, with the program's
    # own inputs (watch/replay.py); empty where not replayed (no device provider loads, --no-replay).
    replays: list[SessionReplay] = field(default_factory=list)


def load_pipeline_observations(data: dict[str, Any]) -> PipelineObservations:
    """Observations from ``codec.to_builtins(observations)`` (a recorded fixture); ``ValueError`` for another format."""
    return codec.convert_versioned(data, PipelineObservations, PIPELINE_FORMAT, PIPELINE_FORMAT_VERSION,
                                   "pipeline observations")


# --- the report ---------------------------------------------------------------------------------------------------


class HandOff(msgspec.Struct, frozen=True):
    """Values of one producer output consumed as one input of a later call, aggregated over the run."""

    producer: str  # session label
    output: str
    consumer: str
    input: str
    calls: int  # how many consuming calls
    how: LinkHow
    state: bool  # the same session: output of call k fed to call k+1
    kind: HandOffKind  # a possible round trip: state traced by equal bytes alone
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
    kind: StageKind
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


class IterationMove(msgspec.Struct, frozen=True):
    """One host<->device transfer the loop makes, per iteration: a call's feed or fetch copy, a Memcpy node ORT
    inserted, a kernel's own transfer, or one the census could not explain; with the program's line that made the
    call, the bytes and (where CUPTI timed it) the device time per iteration and its share of the iteration."""

    kind: str  # feed, fetch, memcpy_node, in_kernel, unexplained
    direction: str  # host_to_device, device_to_host
    session: str
    tensor: str
    node: str = ""
    site: str = ""  # the program's code that made the call (file:function:line)
    calls: int = 0  # the loop's calls that made it, over all its iterations
    bytes_per_iteration: Optional[float] = None  # mean over the iterations; None where a size is unknown
    ms_per_iteration: Optional[float] = None  # CUPTI's device time, mean over the iterations; None without a census
    share: Optional[float] = None  # ms_per_iteration over the iteration's median time
    basis: str = ""  # census, placement, prediction


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
    # every host<->device transfer of the loop, per iteration, largest first (feeds, fetches, Memcpy nodes, in-kernel)
    moves: list[IterationMove] = field(default_factory=list)


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
    """A session that runs on the CPU although this onnxruntime has a device provider (``audit_providers``): where
    the program created it, why it is not on the device, what the replay on both providers measured and what to
    change. Also a session on the device that the replay measured slower than the CPU at the program's inputs
    (``on_device``)."""

    session: str
    created_at: str  # file:function:line ("" where not recorded)
    available: str  # the device provider this onnxruntime has (CUDAExecutionProvider first)
    cause: str
    fix: str
    measured: str = ""  # the replay on both providers, in words ("" where not replayed)
    faster: str = ""  # the provider the replay measured faster at every input signature ("": not replayed, or mixed)
    on_device: bool = False  # the session ran on the device provider, and the replay measured the CPU faster

    @property
    def line(self) -> str:
        """One line: the session, where it was created, and why it is not on the device (or should not be)."""
        where = f" (created at {self.created_at})" if self.created_at else ""
        if self.on_device:
            return (f"session {self.session}{where} runs on {short(self.available)}, and the CPU is faster for it at "
                    f"the program's inputs: {self.cause}")
        measured = ""
        if self.faster:
            measured = (f"; replayed on both, {short(self.faster)} is faster at the program's inputs"
                        + (": keep it on the CPU" if not is_device(self.faster) else ""))
        return (f"session {self.session}{where} runs on the CPU although {short(self.available)} is available: "
                f"{self.cause}{measured}")


class SwitchCost(msgspec.Struct, frozen=True):
    """One session's cost per change of input shape (``model.shape_switch``): the ms each change adds and the
    words naming it, its cause and its measured fix."""

    session: str
    extra_ms: float
    words: str


class PipelineReport(msgspec.Struct, frozen=True):
    """What ``ortcopy-doctor run`` found: each session, each pipeline of sessions and its host round trips (its text
    and HTML: ``render.pipeline``; its JSON: ``to_json``)."""

    program: list[str]
    exit_code: int
    ended_by: Ending
    error: str
    sessions: list[SessionSummary]
    pipelines: list[Pipeline]
    observed: list[str]
    not_observed: list[str]
    notes: list[str]
    observations: Optional[PipelineObservations] = None
    providers: list[ProviderFinding] = field(default_factory=list)  # sessions on the CPU though a device is available
    replays: list[SessionReplay] = field(default_factory=list)  # each session on both providers (watch/replay.py)
    # The run rules' findings (OCD1xx, rules/): made by the analysis (report/pipeline.py) from the facts above, errors
    # first, then by rule id; each located at the program's code (file:function:line) where the observations say it.
    findings: list[Finding] = field(default_factory=list)

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

        # sessions the replay measured faster on the CPU: what is predicted for the device does not apply to them
        on_cpu_faster = {f.session for f in self.providers if f.faster and not is_device(f.faster) and not f.on_device}
        for p in sorted(self.pipelines, key=moved, reverse=True):
            loop = " → ".join(p.sessions)
            if p.bytes_predicted and p.sessions and set(p.sessions) <= on_cpu_faster:
                n -= len(p.round_trips) + sum(1 for h in p.state if h.kind == ROUND_TRIP)
                parts.append(f"{loop} stays on the CPU (the replay measured it faster there): the "
                             f"{fmt_bytes(int(moved(p)))} per iteration predicted for the device do not apply")
                continue
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
        parts = [f.line for f in self.providers] + parts  # first: what predicted bytes are about
        if n == 0:
            parts.append(f"no host round trip between stages ({len(self.sessions)} session(s), {calls} iteration(s))")
        else:
            # the largest round trip, with its fix, is the largest removable cost named above
            parts.append(f"{n} host round trip(s) between stages"
                         + ("" if any(p.largest_cost for p in self.pipelines) else
                            ": pass the OrtValues (or torch tensors via DLPack) instead"))
        return "; ".join(parts) + maybe

    # output --------------------------------------------------------------------------------------------------------

    def to_dict(self) -> dict[str, Any]:
        """JSON-able: the fields with the round trips and the verdict, the observations last."""
        data = codec.to_builtins(self)
        data.pop("observations", None)
        data["round_trips"] = codec.to_builtins(self.round_trips)
        data["verdict"] = self.verdict
        return {"format": PIPELINE_REPORT_FORMAT, "format_version": PIPELINE_FORMAT_VERSION, **data,
                "observations": None if self.observations is None else codec.to_builtins(self.observations)}

    def to_json(self) -> str:
        """``to_dict`` as indented JSON."""
        return codec.to_json(self.to_dict())


class _Format(msgspec.Struct, frozen=True):
    """What tells a run report from other JSON: its ``format`` (the rest is skipped unread)."""

    format: Any = None


def is_pipeline_report(raw: bytes) -> bool:
    """Whether the JSON document ``raw`` is a run report (``run --json``); False for anything else, unreadable too."""
    try:
        return bool(codec.decode(raw, _Format).format == PIPELINE_REPORT_FORMAT)
    except (codec.DecodeError, RecursionError):
        return False


def load_pipeline_report(raw: bytes, name: str = "stdin") -> PipelineReport:
    """The run report ``raw`` holds (``run --json``), as written: its findings, verdict and numbers are the file's
    (``report.pipeline.reanalysed`` makes them again from its observations where it has them). ``ValueError`` with
    one line naming ``name`` where it is no run report, or of a newer format."""
    try:
        data = codec.decode(raw)
    except (codec.DecodeError, RecursionError) as exc:
        raise ValueError(f"{name} is not readable JSON ({codec.message(exc)})") from None
    if not isinstance(data, dict) or data.get("format") != PIPELINE_REPORT_FORMAT:
        raise ValueError(f"{name} is not a run report: pass a file written by `run --json`")
    problem = codec.version_problem(data.get("format_version", 0), PIPELINE_FORMAT_VERSION, "`run --json`")
    if problem:
        raise ValueError(f"{name} has run report {problem}")
    try:
        observations = data.get("observations")
        if observations is not None:
            data["observations"] = load_pipeline_observations(observations)
        return codec.convert(data, PipelineReport)
    except (codec.ValidationError, TypeError, ValueError, RecursionError) as exc:
        raise ValueError(f"{name} does not match the run report format ({codec.message(exc)}): pass a file "
                         "written by `run --json`") from None


# --- how the report words times, sites and first calls at a shape -------------------------------------------------

# A first call at a new shape is named as a cost where it took this much longer than the later calls at that shape
# (report/pipeline.py's largest cost, rule OCD107).
NEW_SHAPE_MIN_EXCESS_MS = 1.0


def fmt_ms(v: Optional[float]) -> str:
    """Milliseconds as the pipeline report writes them (``12.000``); "-" where none was measured."""
    return "-" if v is None else f"{v:.3f}"


def short_site(site: str) -> str:
    """``file:function:line`` with the file's folder left out (the JSON keeps the whole path)."""
    path, sep, rest = site.rpartition(":")
    path, sep2, function = path.rpartition(":")
    if not sep or not sep2:
        return site
    return f"{path.replace(chr(92), '/').rsplit('/', 1)[-1]}:{function}:{rest}"


def split_site(site: str) -> tuple[str, str, int]:
    """``file:function:line`` as (file, function, line); ("", "", 0) where ``site`` is not of that form."""
    rest, sep, line = site.rpartition(":")
    path, sep2, function = rest.rpartition(":")
    if not sep or not sep2 or not path or not line.isdigit():
        return "", "", 0
    return path, function, int(line)


def shape_message(s: ShapeCall) -> str:
    """``first call of det.onnx at shape 1x3x960x544 (iteration 3): 980.000 ms, next calls median 10.000 ms``."""
    where = f"iteration {s.iteration}" if s.iteration else "outside the loop"
    if s.later_median_ms is not None:
        later = f"next calls median {fmt_ms(s.later_median_ms)} ms ({s.later_calls} call(s))"
    elif s.steady_median_ms is not None:
        later = (f"no later call at that shape; its calls at a shape seen before median {fmt_ms(s.steady_median_ms)} "
                 "ms")
    else:
        later = "no later call at that shape"
    return f"first call of {s.session} at shape {s.shape} ({where}): {fmt_ms(s.ms)} ms, {later}"


# --- generated code for the hand-offs -----------------------------------------------------------------------------


IoNames = tuple[list[str], list[str]]  # a session's input and output names, as the program called it


class HandoffCode(msgspec.Struct, frozen=True):
    """One block of hand-off code and the variables it uses, so that it can be run next to plain ``run()``
    (watch/handoff_check.py): ``sessions`` label -> its variable, or ``self.<attribute>`` where the program holds it
    so (``SessionRecord.variables``); ``given`` the variables the program provides
    ("label|input|name" -> variable: its arrays; "label|initial|name" for a state's initial value); ``results`` the
    variables the block leaves ("label|output|name" -> variable)."""

    kind: HandoffBlock
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


__all__ = ["DEVICE", "HOST", "HOST_KINDS", "HOW_DOWNLOAD", "HOW_HASH", "HOW_OBJECT", "HOW_POINTER", "HOW_VIEW",
           "NEW_SHAPE_MIN_EXCESS_MS", "PIPELINE_FORMAT", "PIPELINE_FORMAT_VERSION", "PIPELINE_REPORT_FORMAT",
           "POSSIBLE_ROUND_TRIP", "ROUND_TRIP", "Download", "HandOff", "HandoffCode", "HostEdge", "IoNames", "Pipeline",
           "PipelineCall", "PipelineObservations", "PipelineReport", "ProviderFinding", "SessionRecord",
           "SessionSummary", "ShapeCall", "StageRow", "SwitchCost", "ValueInfo", "ValueLink", "fmt_ms", "is_pipeline_report",
           "load_pipeline_observations", "load_pipeline_report", "shape_message", "short_site", "split_site"]
