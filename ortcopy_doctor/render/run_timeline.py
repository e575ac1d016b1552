"""The run of a program on the program's own clock, as the run's trace (``run --trace``) and the timeline of its HTML
report draw it: each session call, each stretch of host code between two calls, each upload and download, and the
iterations of each loop the report found.

Computed from the report alone (``PipelineReport`` and its ``observations``; renderers import neither watch/ nor
analysis/): the times are those the stage table is made of (report/pipeline.py, ``_loop_calls``), re-derived here
the same way, so that the lanes agree with the table:

* the *program's clock* is the wall clock less the recorder's own time so far: between two calls the recorder's
  work counted from the ``overhead_end_ns`` of one to the ``overhead_start_ns`` of the next, within a call its
  wrapper's time less ORT's; ORT's time in a call's bind_* calls (``bind_ns``) counts in the call, not in the host
  time before it. Times here are ns from the program's start (``PipelineObservations.started_ns``) on that clock.
* each loop's iterations start at the calls of its head (``Pipeline.head`` called at ``head_site``): its last
  ``Pipeline.iterations`` ones. The last iteration runs up to the first call of another key (session and site) than
  the loop's; where nothing repeats, the one iteration is every call. Where the durations derived so differ from the report's (``first_iteration_ms``, ``iteration_ms``), the
  iterations are not marked and ``PipelineTimeline.note`` says why: a drawing that disagrees with the table would
  mislead.
* an upload is an input the report counts host→device: one with no link to an earlier output that the pipeline
  lists as uploaded (``Pipeline.uploads``), or one a round trip brings back (``round_trips``, state round trips),
  at the start of its call (bind_* calls and run()'s feed copies come first); a download is an output the report
  counts device→host, at the end of its call, or where the program's code turned an OrtValue on the device into
  numpy (``Download.at_ns``), at that time.
"""

from __future__ import annotations

import statistics
from typing import Optional

import msgspec

from ortcopy_doctor.model.pipeline import (
    ROUND_TRIP,
    Pipeline,
    PipelineCall,
    PipelineObservations,
    PipelineReport,
    short_site,
)
from ortcopy_doctor.model.vocabulary import DEVICE_TO_HOST, HOST_TO_DEVICE


class CallSpan(msgspec.Struct, frozen=True):
    """One session call on the program's clock (ns from the program's start)."""

    seq: int
    session: int  # index into the observations' sessions
    label: str  # the session's label (its model file)
    start_ns: int
    end_ns: int
    method: str
    site: str  # file:function:line of the program's code that made the call ("" where not recorded)
    shape: str  # each input's shape (1x3x960x544), in the order of the call's inputs
    input_bytes: int  # the bytes of the inputs it took, wherever they lived
    output_bytes: int
    h2d_bytes: int  # of those, what the report counts host→device (``TransferMark``)
    d2h_bytes: int
    error: str = ""


class HostSpan(msgspec.Struct, frozen=True):
    """The program's own code between two calls (or before the first, or after the last), named by the code sites
    on either side as the stage table names it."""

    name: str
    start_ns: int
    end_ns: int
    before_seq: int  # the call before it (-1: the program's start)
    after_seq: int  # the call after it (-1: the program's end)


class TransferMark(msgspec.Struct, frozen=True):
    """One host↔device copy of one value of one call, at its time on the program's clock."""

    direction: str  # host_to_device, device_to_host
    at_ns: int
    bytes: Optional[int]
    seq: int  # the call whose input or output it is
    session: str
    tensor: str
    how: str  # "upload", "round trip", "download", "the program's .numpy()"


class IterationSpan(msgspec.Struct, frozen=True):
    """One iteration of a loop: from the start of its head call to the start of the next one (the last: to the end
    of its last call, ``complete`` False)."""

    index: int  # 0-based
    start_ns: int
    end_ns: int
    calls: list[int]  # seq of its calls
    complete: bool


class PipelineTimeline(msgspec.Struct, frozen=True):
    """The iterations of one pipeline of the report, the first one and a typical one (the median of the iterations
    the stage table covers)."""

    pipeline: int  # index into PipelineReport.pipelines
    iterations: list[IterationSpan]
    typical: Optional[int]  # index into iterations: the steady iteration of median duration (None: none)
    note: str = ""  # why the iterations are not marked ("" where they are)


class RunTimeline(msgspec.Struct, frozen=True):
    """The whole run on the program's clock: its calls, the host code between them, the copies and the loops."""

    program_ns: int  # from the program's start to its end, on the program's clock
    sessions: list[str]
    calls: list[CallSpan]
    hosts: list[HostSpan]
    transfers: list[TransferMark]
    pipelines: list[PipelineTimeline]


def _program_clock(calls: list[PipelineCall], started_ns: int) -> list[tuple[int, int, int]]:
    """(start, end, offset after it) of each call on the program's clock, as report/pipeline.py's ``_loop_calls``:
    the recorder's own time so far taken out, ORT's time in the bind_* calls counted in the call. ``offset`` starts
    at the recorder's time before the first call, so that the program's start is 0."""
    result: list[tuple[int, int, int]] = []
    offset = calls[0].overhead_start_ns if calls else 0
    previous: Optional[PipelineCall] = None
    for c in calls:
        if previous is not None:
            offset += max(0, c.overhead_start_ns - previous.overhead_end_ns)
        start = c.wrap_start_ns - offset - c.bind_ns
        inside = ((c.wrap_end_ns - c.wrap_start_ns) - (c.end_ns - c.start_ns) if c.end_ns > c.start_ns
                  else c.overhead_end_ns - c.overhead_start_ns)
        offset += max(0, inside)
        end = max(start, c.wrap_end_ns - offset)
        result.append((start - started_ns, end - started_ns, offset))
        previous = c
    return result


def _shape(obs: PipelineObservations, c: PipelineCall) -> str:
    calls = obs.sessions[c.session].observations.calls if 0 <= c.session < len(obs.sessions) else []
    if not 0 <= c.call < len(calls):
        return ""
    return ", ".join("?" if t.shape is None else "x".join(str(d) for d in t.shape) or "scalar"
                     for t in calls[c.call].inputs)


class _Counted:
    """Which inputs and outputs of which calls the report counts as crossing host↔device (module doc)."""

    def __init__(self, report: PipelineReport) -> None:
        self.uploads: dict[tuple[str, str], Optional[int]] = {}
        self.downloads: dict[tuple[str, str], Optional[int]] = {}
        self.trips: dict[tuple[str, str, str, str], tuple[Optional[int], Optional[int]]] = {}
        for p in report.pipelines:
            self.uploads.update({(e.session, e.tensor): e.bytes_per_call for e in p.uploads})
            self.downloads.update({(e.session, e.tensor): e.bytes_per_call for e in p.downloads})
            for h in p.round_trips + [s for s in p.state if s.kind == ROUND_TRIP]:
                self.trips[(h.producer, h.output, h.consumer, h.input)] = (h.d2h_bytes_per_call, h.h2d_bytes_per_call)
        self.sent: set[tuple[int, str]] = set()  # (seq, output) a round trip takes device→host


def _marks(obs: PipelineObservations, calls: list[CallSpan], clock: list[tuple[int, int, int]],
           counted: _Counted) -> tuple[list[TransferMark], dict[int, tuple[int, int]]]:
    """The uploads and downloads of every call, and each call's (h2d, d2h) bytes."""
    labels = [s.label for s in obs.sessions]
    by_seq = {c.seq: c for c in obs.calls}
    marks: list[TransferMark] = []
    totals: dict[int, tuple[int, int]] = {}
    for c, span in zip(sorted(obs.calls, key=lambda c: c.seq), calls):
        label = span.label
        for value in c.inputs:
            producer = by_seq.get(value.link.seq) if value.link is not None else None
            if producer is not None and value.link is not None:
                trip = counted.trips.get((labels[producer.session], value.link.output, label, value.name))
                if trip is None:
                    continue
                counted.sent.add((producer.seq, value.link.output))
                marks.append(TransferMark(HOST_TO_DEVICE, span.start_ns, value.bytes if value.bytes is not None
                                          else trip[1], c.seq, label, value.name, "round trip"))
            elif (label, value.name) in counted.uploads:
                size = value.bytes if value.bytes is not None else counted.uploads[(label, value.name)]
                marks.append(TransferMark(HOST_TO_DEVICE, span.start_ns, size, c.seq, label, value.name, "upload"))
    downloads = {(d.seq, d.output): d for d in obs.downloads}
    ends = {c.seq: (span, n) for n, (c, span) in enumerate(zip(sorted(obs.calls, key=lambda c: c.seq), calls))}
    for c in sorted(obs.calls, key=lambda c: c.seq):
        span, n = ends[c.seq]
        for value in c.outputs:
            if (c.seq, value.name) not in counted.sent and (span.label, value.name) not in counted.downloads:
                continue
            how, at = ("round trip" if (c.seq, value.name) in counted.sent else "download"), span.end_ns
            d = downloads.get((c.seq, value.name))
            if d is not None and (d.device or "cpu").lower() != "cpu":
                # turned into numpy by the program's code after the call: the copy is made then
                how, at = "the program's .numpy()", _at(d.at_ns - obs.started_ns, clock, n, span.end_ns)
            size = value.bytes if value.bytes is not None else (d.bytes if d is not None else None)
            marks.append(TransferMark(DEVICE_TO_HOST, at, size, c.seq, span.label, value.name, how))
    for m in marks:
        up, down = totals.get(m.seq, (0, 0))
        totals[m.seq] = (up + (m.bytes or 0), down) if m.direction == HOST_TO_DEVICE else (up, down + (m.bytes or 0))
    return sorted(marks, key=lambda m: (m.at_ns, m.seq)), totals


def _at(wall_ns: int, clock: list[tuple[int, int, int]], n: int, floor: int) -> int:
    """A time after call ``n`` (ns from the program's start, wall clock) on the program's clock, kept within the
    host stretch after that call."""
    offset = clock[n][2]
    ceiling = clock[n + 1][0] if n + 1 < len(clock) else None
    at = max(floor, wall_ns - offset)
    return min(at, ceiling) if ceiling is not None else at


def run_timeline(report: PipelineReport) -> Optional[RunTimeline]:
    """The run of ``report`` on the program's clock; None where the report carries no observations."""
    obs = report.observations
    if obs is None:
        return None
    ordered = sorted(obs.calls, key=lambda c: c.seq)
    clock = _program_clock(ordered, obs.started_ns)
    labels = [s.label for s in obs.sessions]
    spans = []
    for c, (start, end, _) in zip(ordered, clock):
        label = labels[c.session] if 0 <= c.session < len(labels) else "?"
        spans.append(CallSpan(seq=c.seq, session=c.session, label=label, start_ns=max(0, start), end_ns=max(0, end),
                              method=c.method, site=c.site, shape=_shape(obs, c),
                              input_bytes=sum(v.bytes or 0 for v in c.inputs),
                              output_bytes=sum(v.bytes or 0 for v in c.outputs), h2d_bytes=0, d2h_bytes=0,
                              error=c.error))
    marks, totals = _marks(obs, spans, clock, _Counted(report))
    spans = [msgspec.structs.replace(s, h2d_bytes=totals.get(s.seq, (0, 0))[0], d2h_bytes=totals.get(s.seq, (0, 0))[1])
             for s in spans]
    end = max(spans[-1].end_ns if spans else 0, obs.ended_ns - obs.started_ns - (clock[-1][2] if clock else 0))
    pipelines = [_pipeline_timeline(k, p, spans) for k, p in enumerate(report.pipelines)]
    return RunTimeline(program_ns=end, sessions=labels, calls=spans, hosts=_hosts(spans, end), transfers=marks,
                       pipelines=pipelines)


def _host_name(before: Optional[CallSpan], after: Optional[CallSpan]) -> str:
    """``host: between det.py:main:12 and det.py:main:20`` as the stage table names it (the sessions where the sites
    are not recorded); the program's start and end by name."""
    if before is None:
        return f"host: before the first call ({_where(after)})" if after is not None else "host: the program"
    if after is None:
        return f"host: after the last call ({_where(before)})"
    if before.site and after.site:
        return f"host: between {short_site(before.site)} and {short_site(after.site)}"
    return f"host: between {before.label} and {after.label}"


def _where(c: Optional[CallSpan]) -> str:
    return "" if c is None else (f"{c.label} at {short_site(c.site)}" if c.site else c.label)


def _hosts(spans: list[CallSpan], end: int) -> list[HostSpan]:
    """Each stretch of the program's own code: before the first call, between two calls, after the last."""
    hosts: list[HostSpan] = []
    previous: Optional[CallSpan] = None
    for s in [*spans, None]:
        start = previous.end_ns if previous is not None else 0
        stop = s.start_ns if s is not None else end
        if stop > start or (previous is not None and s is not None):
            hosts.append(HostSpan(_host_name(previous, s), start, max(start, stop),
                                  previous.seq if previous is not None else -1, s.seq if s is not None else -1))
        previous = s
    return hosts


def _pipeline_timeline(k: int, p: Pipeline, spans: list[CallSpan]) -> PipelineTimeline:
    """The iterations of pipeline ``p`` (module doc), checked against the report's durations."""
    heads = [n for n, s in enumerate(spans) if s.label == p.head and s.site == p.head_site][-p.iterations:]
    if not heads or len(heads) != p.iterations:
        return PipelineTimeline(k, [], None, note="the loop's iterations could not be found in the calls")
    members = {(s.label, s.site) for s in spans[heads[0]:heads[-1]]} | {(p.head, p.head_site)}
    stop = heads[-1] + 1
    while stop < len(spans) and (spans[stop].label, spans[stop].site) in members:
        stop += 1
    if p.iterations == 1:  # nothing repeats (a loop found has two iterations or more): every call is one iteration
        stop = len(spans)
    iterations = []
    for i, head in enumerate(heads):
        nxt = heads[i + 1] if i + 1 < len(heads) else None
        last = (nxt if nxt is not None else stop) - 1
        iterations.append(IterationSpan(index=i, start_ns=spans[head].start_ns,
                                        end_ns=spans[nxt].start_ns if nxt is not None else spans[last].end_ns,
                                        calls=[s.seq for s in spans[head:last + 1]], complete=nxt is not None))
    steady = [it for it in iterations if it.complete and it.index > 0]
    spans_ms = [(it.end_ns - it.start_ns) / 1e6 for it in (steady or [it for it in iterations if it.complete])]
    median = statistics.median(spans_ms) if spans_ms else None
    first_ms = (iterations[0].end_ns - iterations[0].start_ns) / 1e6 if steady else None
    if not _same(median, p.iteration_ms) or not _same(first_ms, p.first_iteration_ms):
        return PipelineTimeline(k, [], None, note="the iterations found here differ from the stage table's: "
                                "not marked")
    typical = None
    if steady:
        by_time = sorted(steady, key=lambda it: (it.end_ns - it.start_ns, it.index))
        typical = by_time[(len(by_time) - 1) // 2].index  # the lower median: an iteration that ran
    return PipelineTimeline(k, iterations, typical)


def _same(a: Optional[float], b: Optional[float]) -> bool:
    """The report's ms and ours, made of the same ns: equal but for the rounding of a median of two."""
    if a is None or b is None:
        return a is None and b is None
    return abs(a - b) <= 1e-6 * max(1.0, abs(b))


__all__ = ["CallSpan", "HostSpan", "IterationSpan", "PipelineTimeline", "RunTimeline", "TransferMark",
           "run_timeline"]
