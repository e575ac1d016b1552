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

import keyword
import re
import statistics
from collections.abc import Mapping, Sequence
from msgspec.structs import replace
from typing import Any, Optional

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
from ortcopy_doctor.model.shape_switch import shape_switch_costs
from ortcopy_doctor.knowledge.providers import CPU, CUDA, is_device, short
from ortcopy_doctor.model.format import fmt_bytes
from ortcopy_doctor.model.replay import SessionReplay
from ortcopy_doctor.model.pipeline import (
    IterationMove,
    host_stretch_sites,
    DEVICE,
    HOST,
    HOST_KINDS,
    HOW_DOWNLOAD,
    HOW_HASH,
    HOW_OBJECT,
    HOW_POINTER,
    HOW_VIEW,
    PIPELINE_FORMAT,
    PIPELINE_FORMAT_VERSION,
    POSSIBLE_ROUND_TRIP,
    ROUND_TRIP,
    Download,
    HandOff,
    HandoffCode,
    HostEdge,
    NEW_SHAPE_MIN_EXCESS_MS,
    IoNames,
    Pipeline,
    PipelineCall,
    PipelineObservations,
    PipelineReport,
    ProviderFinding,
    SessionRecord,
    SessionSummary,
    ShapeCall,
    StageRow,
    ValueInfo,
    ValueLink,
    fmt_ms,
    load_pipeline_observations,
    shape_message,
    short_site,
)
from ortcopy_doctor.model.vocabulary import DEVICE_TO_HOST, FEED, FETCH, HOST_TO_DEVICE, HandoffBlock, LinkHow, StageKind
from ortcopy_doctor.model.watch import BASIS_CENSUS, PLACEMENT_HOST_ONLY, CallReport, TensorReport, WatchReport
from ortcopy_doctor.rules import RunContext, run_rules
from ortcopy_doctor.analysis.watch import analyse_watch


# The observation and report types, their closed sets of names and PIPELINE_FORMAT live in model/pipeline.py
# (issue 35), the report's text and HTML in render/pipeline.py; their names stay importable from here.

_HOW_WORDS = {HOW_OBJECT: "through numpy (the same array)", HOW_VIEW: "through numpy (a view of the same buffer)",
              HOW_POINTER: "through the same buffer", HOW_DOWNLOAD: "through numpy (the user's code called .numpy() on it)",
              HOW_HASH: "through numpy (a copy with equal bytes)"}


# --- the report ------------------------------------------------------------------------------------------------------


def audit_providers(obs: PipelineObservations) -> list[ProviderFinding]:
    """Each session that runs with no device provider while the onnxruntime the program used had one (recorded
    at its creation): requested and not loaded, with ORT's reason; or not requested (no ``providers``, or none of
    the device) where the device provider is known to load (another session of the program ran on it, or it was
    tried after the program: ``PipelineObservations.device_status``). Where the session was replayed on both
    providers after the program (``PipelineObservations.replays``), the finding says which was faster at the
    program's inputs, and the fix follows it: the device where it is faster, the CPU where the CPU is. A session on
    the device that the replay measured slower than the CPU is a finding too."""
    found: list[ProviderFinding] = []
    replays = {r.session: r for r in obs.replays}
    for record in obs.sessions:
        o = record.observations
        replay = replays.get(record.label)
        devices = [p for p in record.available_providers if is_device(p)]
        if any(is_device(p) for p in o.active_providers):
            if replay is not None and replay.verdict == CPU:
                found.append(ProviderFinding(
                    session=record.label, created_at=record.created_at, available=o.active_providers[0],
                    cause=replay.summary(), measured=replay.summary(), faster=CPU, on_device=True,
                    fix=f"create it with providers=['CPUExecutionProvider']"
                        + (f" at {record.created_at}" if record.created_at else "")
                        + "; the copies of its inputs and outputs and the launches cost more than the device saves"))
            continue
        if not devices:
            continue
        available = CUDA if CUDA in devices else devices[0]
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
            fix = _provider_fix(record, available, site, replay)
        found.append(ProviderFinding(session=record.label, created_at=record.created_at, available=available,
                                     cause=cause, fix=fix, measured=replay.summary() if replay is not None else "",
                                     faster=(replay.verdict or "") if replay is not None else ""))
    return found


def _provider_fix(record: SessionRecord, available: str, site: str, replay: Optional[SessionReplay]) -> str:
    """What to change for a session that did not ask for the device: ask for it where the replay measured the
    device faster (or nothing was measured), keep the CPU where the CPU was faster."""
    ask = f"create it with providers=['{available}', 'CPUExecutionProvider']{site}"
    if replay is None or replay.error or not replay.shapes:
        why = ("no device provider loaded there, or --no-replay" if replay is None else replay.error or
               "none of the session's calls had inputs it could keep (numpy arrays or lists of numbers)")
        return (f"{ask}; whether {short(available)} is faster for this model at the program's shapes is not measured "
                f"(the replay after the program did not run: {why}): "
                f"`ortcopy-doctor check {record.model or 'MODEL.onnx'} --provider {short(available).lower()},cpu` "
                "measures the copies it would make")
    if replay.verdict == available:
        return f"{ask}: the replay measured {short(available)} faster at every input signature of the program"
    if replay.verdict == CPU:
        return ("keep it on the CPU: the replay measured the CPU faster at every input signature of the program "
                "(the copies and launches cost more than the device saves); a host round trip predicted for "
                f"{short(available)} does not apply")
    return (f"measure before moving it: the replay found no provider faster at every input signature of the program; "
            f"{ask} only where its shapes are those {short(available)} wins at")


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
    groups: dict[tuple[int, str, int, str, LinkHow], list[tuple[PipelineCall, PipelineCall]]] = {}
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
    report = PipelineReport(program=list(obs.program), exit_code=obs.exit_code, ended_by=obs.ended_by,
                            error=obs.error, sessions=sessions, pipelines=pipelines, observed=observed,
                            not_observed=not_observed,
                            notes=notes + [f"{short(p)} is in this onnxruntime build but does not load here ({why}): "
                                           "the sessions on the CPU could not have used it"
                                           for p, why in sorted(obs.device_status.items()) if why],
                            observations=obs, providers=audit_providers(obs),
                            replays=list(obs.replays))
    # the run rules (OCD1xx) name what the report found, each at the program's code
    return replace(report, findings=run_rules(RunContext(report=report, observations=obs)))


def reanalysed(report: PipelineReport) -> PipelineReport:
    """A run report read from a file (``load_pipeline_report``) made again by this code from its observations (its
    findings under the current rules); as written where it holds none."""
    return report if report.observations is None else analyse_pipeline(report.observations)


def _host_value(value: ValueInfo) -> bool:
    if value.kind in HOST_KINDS:
        return True
    if value.kind in ("ortvalue",):
        d = (value.device or "").lower()
        return d == "cpu" or "pinned" in d
    return False


def _hand_off(views: _Views, obs: PipelineObservations, ps: int, output: str, cs: int, name: str, how: LinkHow,
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
                        consumer_io=_io_names(obs, consumer), records=_records(obs))
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


def _rows(obs: PipelineObservations, summaries: list[StageSummary], with_downloads: bool) -> list[StageRow]:
    """Stage rows from analysis/loops.py's summaries: each call (``<model>: inference``, with its site where the
    session is called from more than one) and each host stretch (``host: between <site> and <site>``)."""
    labels = [s.label for s in obs.sessions]

    def label(session: int) -> str:
        return labels[session] if 0 <= session < len(labels) else "?"

    stacks: dict[tuple[int, str], list[str]] = {}  # each call key's whole stack, as its first call had it
    for c in obs.calls:
        stacks.setdefault((c.session, c.site), [c.site, *c.stack] if c.site else [])
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
            rows.append(StageRow(name, StageKind.INFERENCE, r.count, median, total,
                                 "the ORT call with its bind_* calls (where the bound inputs are copied), or for run() "
                                 "with the copies of its inputs and outputs", per_iteration_ms=per, site=r.site))
            if with_downloads and r.session not in downloaded:
                downloaded.add(r.session)
                rows += _download_row(obs, r.session, label(r.session))
            continue
        after = label(r.session) if r.session >= 0 else "the end of the calls"
        before = label(r.before_session)
        parted = ("", "")
        if r.site.rpartition(":")[0] == r.before_site.rpartition(":")[0]:
            # Both calls come from one function (a package's wrapper that runs every session): the lines where the
            # two calls' stacks part name the code that ran between them better than the wrapper's own line.
            parted = host_stretch_sites(stacks.get((r.before_session, r.before_site), []),
                                        stacks.get((r.session, r.site), []))
        if all(parted):
            name = f"host: between {short_site(parted[0])} and {short_site(parted[1])}"
        elif r.site and r.before_site:
            name = f"host: between {short_site(r.before_site)} and {short_site(r.site)}"
        else:
            name = f"host: between {before} and {after}"
        rows.append(StageRow(name, StageKind.HOST, r.count, median, total,
                             f"the program's code after {before} returned and before {after} was called",
                             per_iteration_ms=per, site=r.site, before_site=r.before_site))
    return rows


def _download_row(obs: PipelineObservations, session: int, label: str) -> list[StageRow]:
    """The device time of the device->host memcpys CUPTI saw in the session's calls (part of its inference row)."""
    traced = [c for c in obs.sessions[session].observations.calls if c.traced]
    if not traced:
        return []
    per_call = [sum(r.end_ns - r.start_ns for r in c.records if r.direction == DEVICE_TO_HOST) for c in traced]
    return [StageRow(f"{label}: download (device→host copies)", StageKind.DOWNLOAD, len(per_call),
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
    iteration_ms = _median([_ms(v) for v in spans])
    pipeline = Pipeline(sessions=names, iterations=len(loop.iterations),
                        round_trips=[h for h in mine if h.kind == ROUND_TRIP and not h.state],
                        state=[h for h in mine if h.state and h.kind in (ROUND_TRIP, POSSIBLE_ROUND_TRIP, DEVICE)],
                        on_device=[h for h in mine if h.kind == DEVICE and not h.state],
                        host_hand_offs=[h for h in mine if h.kind == HOST],
                        uploads=edges(uploads, HOST_TO_DEVICE), downloads=edges(downloads, DEVICE_TO_HOST),
                        stages=stages, iteration_ms=iteration_ms,
                        moves=_moves(views, labels, [ordered[i] for it in loop.iterations for i in it.calls], count,
                                     iteration_ms),
                        head=labels[loop.head[0]], head_site=loop.head[1],
                        stage_iterations=len(steady) if steady else len(loop.iterations),
                        first_iteration=first_rows,
                        first_iteration_ms=None if first.ns is None or not steady else _ms(first.ns),
                        before_loop=before, after_loop=after, new_shapes=new_shapes,
                        h2d_bytes_per_iteration=h2d / count, d2h_bytes_per_iteration=d2h / count,
                        bytes_predicted=any(views.host_only[m] for m in members))
    if any(c.traced for m in members for c in obs.sessions[m].observations.calls):
        pipeline = replace(pipeline, timing_note=TIMING_UNDER_CENSUS)
    pipeline = replace(pipeline, largest_cost=_largest_cost(pipeline, {r.session: r for r in obs.replays}))
    return replace(pipeline, code=pipeline_code(pipeline, obs), code_check=pipeline_code_check(pipeline, obs))


def _moves(views: _Views, labels: list[str], calls: list[PipelineCall], iterations: int,
           iteration_ms: Optional[float]) -> list[IterationMove]:
    """Every transfer of the loop's iterations' calls (the watch's per-call transfers: census-named where CUPTI traced
    the call, else from the placement or the prediction), per (session, kind, direction, tensor, node, call site),
    per iteration; largest first."""
    totals: dict[tuple[int, str, str, str, str, str], list[Any]] = {}
    frames: dict[int, set[str]] = {}  # every frame of each session's calls' stacks
    for c in calls:
        frames.setdefault(c.session, set()).update([c.site, *c.stack])

    def own_line(c: PipelineCall) -> str:
        """The innermost frame of the call's stack that no other session's calls pass through: the program's (or a
        package's) line for this session, where every session is called through one wrapper; else the site."""
        shared = set().union(*(f for s, f in frames.items() if s != c.session))
        return next((f for f in [c.site, *c.stack] if f and f not in shared), c.site)

    for c in calls:
        report = views.call(c.session, c.call)
        for t in report.transfers if report is not None else []:
            entry = totals.setdefault((c.session, str(t.kind), str(t.direction), t.tensor, t.node, own_line(c)),
                                      [0, 0, 0, True, True, str(t.basis)])
            entry[0] += 1
            entry[1] += t.bytes or 0
            entry[2] += t.duration_ns or 0
            entry[3] = entry[3] and t.bytes is not None
            entry[4] = entry[4] and t.duration_ns is not None
    n = max(1, iterations)
    moves = []
    for (session, kind, direction, tensor, node, site), (count, nbytes, ns, sized, timed, basis) in totals.items():
        ms = _ms(ns) / n if timed else None
        moves.append(IterationMove(kind=kind, direction=direction, session=labels[session], tensor=tensor, node=node,
                                   site=site, calls=count, bytes_per_iteration=nbytes / n if sized else None,
                                   ms_per_iteration=ms,
                                   share=ms / iteration_ms if ms is not None and iteration_ms else None,
                                   basis=basis))
    return sorted(moves, key=lambda m: -(m.bytes_per_iteration or 0))


TIMING_UNDER_CENSUS = ("these times include the CUPTI census, which slows every traced call and bind_* call: "
                       "`ortcopy-doctor run --no-census` times the stages without it")



def _switch_cost(p: Pipeline, replays: dict[str, SessionReplay]) -> str:
    """The largest change-of-shape cost of the pipeline's CUDA sessions (``model.shape_switch``), as the largest
    removable cost; "" where none."""
    found = shape_switch_costs(p, replays)
    return "largest removable cost: " + max((c.extra_ms, c.words) for c in found)[1] if found else ""


def _largest_cost(p: Pipeline, replays: Optional[dict[str, SessionReplay]] = None) -> str:
    """The largest cost the report can name a fix for: a round trip (bytes per iteration), else the change of input
    shape a CUDA session pays at every call (``_switch_cost``), else the first call at a new shape that took longest
    over the later calls at that shape, else the largest host<->device transfer."""
    count = max(1, p.iterations)
    trips = [(h, ((h.d2h_bytes_per_call or 0) + (h.h2d_bytes_per_call or 0)) * h.calls / count)
             for h in p.round_trips + [s for s in p.state if s.kind == ROUND_TRIP]]
    if trips:
        h, per = max(trips, key=lambda t: t[1])
        what = (f"the state `{h.output}` → `{h.input}` of {h.producer}" if h.state
                else f"the round trip of `{h.output}` from {h.producer} to {h.consumer}")
        return f"largest removable cost: {what}, {fmt_bytes(int(per))} per iteration: {h.fix}"
    switch = _switch_cost(p, replays or {})
    if switch:
        return switch
    baselines = [(s, s.later_median_ms if s.later_median_ms is not None else s.steady_median_ms) for s in p.new_shapes]
    slow = [(s, s.ms - base) for s, base in baselines if base is not None and s.ms - base >= NEW_SHAPE_MIN_EXCESS_MS]
    if slow:
        s, extra = max(slow, key=lambda t: t[1])
        return (f"largest removable cost: the {shape_message(s)}: {fmt_ms(extra)} ms more; warm the session up at that shape before the loop, or "
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
    (session, role, ONNX name), each a unique ASCII identifier that is none of the names the code itself uses. Where
    the recorder saw the program's own names (``records``: label -> ``SessionRecord``, its ``variables``,
    ``input_variables``, ``output_variables``), those: ``det`` or ``self.det`` for a session, ``image`` for an array;
    else, and wherever a program's name is no identifier, is taken already in the block or (a session's) names
    another session too, ``sess_<model>`` and ``analysis.binding.code_identifier`` of the ONNX name. ONNX names themselves only ever appear as literals
    (``repr``)."""

    def __init__(self, records: Optional[Mapping[str, SessionRecord]] = None) -> None:
        self.used: set[str] = set(_CODE_NAMES)
        self._given: dict[tuple[str, str, str], str] = {}
        self._records = records or {}
        self._owners: set[str] = set()  # ``self`` of ``self.det``: shared by the sessions it holds

    def session(self, label: str) -> tuple[str, str]:
        """The session of ``label`` (a variable, or ``self.<attribute>``) and the variable of its IO binding."""
        record = self._records.get(label)
        for expression in record.variables if record is not None else []:
            if any(expression in r.variables for other, r in self._records.items() if other != label):
                continue  # one name for several sessions (a wrapper's ``self.session``) tells none apart
            chosen = self._program_session(expression)
            if chosen is not None:
                return chosen
        base = _var(label)
        var, n = base, 2
        while var in self.used or f"{var}_binding" in self.used:
            var, n = f"{base}_{n}", n + 1
        self.used.update((var, f"{var}_binding"))
        return var, f"{var}_binding"

    def _program_session(self, expression: str) -> Optional[tuple[str, str]]:
        """``expression`` (``det``, ``self.det``) and ``<its last name>_binding`` where both are free in the block."""
        parts = expression.split(".")
        if len(parts) > 2 or not all(_program_identifier(p) for p in parts):
            return None
        binding = f"{parts[-1]}_binding"
        if binding in self.used or expression in self.used:
            return None
        if len(parts) == 2:
            owner = parts[0]
            if owner in self.used and owner not in self._owners:
                return None
            self._owners.add(owner)
        self.used.update((*parts[:1], expression, binding))
        return expression, binding

    def __call__(self, label: str, role: str, name: str, prefix: str = "") -> str:
        """The variable of input or output (``role``) ``name`` of the session of ``label``; ``prefix``: of a value
        the program gives under that input's name (``initial_``: a state's initial value)."""
        key = (label, role, prefix + name)
        if key not in self._given:
            record = self._records.get(label)
            table = {} if record is None else record.input_variables if role == "input" else record.output_variables
            own = table.get(name, "")
            if _program_identifier(own) and own not in self.used:
                self.used.add(own)
                self._given[key] = own
            else:
                self._given[key] = code_identifier(prefix + name, self.used)
        return self._given[key]


def _program_identifier(name: str) -> bool:
    """A name of the program's that the code can use as written: an ASCII identifier, no keyword, no ``__dunder``
    (the check runs the code in a namespace of its own, with ``__name__``)."""
    return bool(name) and name.isascii() and name.isidentifier() and not name.startswith("__") and \
        not keyword.iskeyword(name) and not keyword.issoftkeyword(name)


def _records(obs: PipelineObservations) -> dict[str, SessionRecord]:
    """The sessions of ``obs`` by label: the program's names for the hand-off code (``_Names``)."""
    return {s.label: s for s in obs.sessions}


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


def handoff_code(h: HandOff, *, libraries: Sequence[str] = (), producer_io: Optional[IoNames] = None,
                 consumer_io: Optional[IoNames] = None, records: Optional[Mapping[str, SessionRecord]] = None) -> str:
    """Python that keeps this hand-off on the device (OrtValue passing; torch via DLPack; cupy); "" where it is no
    round trip. ``producer_io``/``consumer_io``: the input and output names of the two sessions, as the program called
    them (state: the session's), all bound as the model names them; without them only the handed-over tensor is.
    ``records``: the sessions by label, whose program names the code uses where the recorder saw them (``_Names``)."""
    if h.kind not in (ROUND_TRIP, POSSIBLE_ROUND_TRIP):
        return ""
    return handoff_block(h, libraries=libraries, producer_io=producer_io, consumer_io=consumer_io,
                         records=records).code


def handoff_block(h: HandOff, *, libraries: Sequence[str] = (), producer_io: Optional[IoNames] = None,
                  consumer_io: Optional[IoNames] = None,
                  records: Optional[Mapping[str, SessionRecord]] = None) -> HandoffCode:
    """``handoff_code``'s block with the variables it uses (HandoffCode)."""
    caveat = _possible_caveat([h])
    if h.state:
        return _state_code(h.producer, [(h.input, h.output)], producer_io or ([h.input], [h.output]), libraries, caveat,
                           records)
    return _between_code(h.producer, h.consumer, [(h.output, h.input)], producer_io or ([], [h.output]),
                         consumer_io or ([h.input], []), libraries, caveat, records)


def _possible_caveat(hand_offs: list[HandOff]) -> str:
    possible = [h for h in hand_offs if h.kind == POSSIBLE_ROUND_TRIP]
    if not possible:
        return ""
    what = ", ".join(f"`{h.output}` back as `{h.input}`" for h in possible)
    return (f"# only if the program does feed {what}: it was traced by equal bytes alone, which do not show that "
            "the program fed it back")


def _between_code(producer: str, consumer: str, trips: list[tuple[str, str]], producer_io: IoNames,
                  consumer_io: IoNames, libraries: Sequence[str], caveat: str = "",
                  records: Optional[Mapping[str, SessionRecord]] = None) -> HandoffCode:
    """The producer's and the consumer's calls with IO binding, the outputs of ``trips`` ((output, input) pairs)
    handed over as OrtValues on the device; every other input bound from the host, every other output to it."""
    names = _Names(records)
    (p, pb), (c, cb) = names.session(producer), names.session(consumer)
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
    return HandoffCode(kind=HandoffBlock.BETWEEN, code=fit("\n".join(lines)), sessions={producer: p, consumer: c}, given=given,
                       results=results, producer=producer, consumer=consumer, pairs=list(trips))


def _state_code(label: str, pairs: list[tuple[str, str]], io: IoNames, libraries: Sequence[str],
                caveat: str = "", records: Optional[Mapping[str, SessionRecord]] = None) -> HandoffCode:
    """One session's calls with its state (``pairs``: (input, output)) kept on the device: two OrtValues per state
    and two bindings made once, run in turn; the other inputs bound from each step's feeds (``stream`` yields them
    by name, as ``run()`` takes them, or ``steps`` counts the steps where there are none), the other outputs to the
    host.

    Each input and each output is bound once (a second ``bind_*`` of a name replaces the first, and the state would
    read memory nothing wrote): an input paired with two outputs takes the first (the other goes to the host), and
    an output paired with two inputs is written into the first one's buffers, which the second input reads as well
    from the second step on (its own initial value on the first)."""
    names = _Names(records)
    s, _ = names.session(label)
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
    return HandoffCode(kind=HandoffBlock.STATE, code=fit("\n".join(lines)), sessions={label: s}, given=given, results={},
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
                                    _io_names(obs, consumer), obs.libraries, _possible_caveat(trips), _records(obs)))
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
                                  obs.libraries, _possible_caveat(carried), _records(obs)))
    return blocks


__all__ = ["DEVICE", "Download", "HOST", "HOST_KINDS", "HOW_DOWNLOAD", "HOW_HASH", "HOW_OBJECT", "HOW_POINTER",
           "HOW_VIEW", "HandOff", "HandoffCode", "HostEdge", "IoNames", "PIPELINE_FORMAT", "PIPELINE_FORMAT_VERSION",
           "POSSIBLE_ROUND_TRIP", "Pipeline", "PipelineCall", "PipelineObservations", "PipelineReport",
           "ProviderFinding", "ROUND_TRIP", "SessionRecord", "SessionSummary", "ShapeCall", "StageRow", "ValueInfo",
           "ValueLink", "analyse_pipeline", "audit_providers", "code_offered", "fmt_ms", "handoff_block",
           "handoff_code", "load_pipeline_observations", "pipeline_blocks", "pipeline_code", "pipeline_code_check",
           "reanalysed", "shape_message", "short_site"]
