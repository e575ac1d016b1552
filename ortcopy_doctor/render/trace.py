"""The profiled runs as Chrome/Perfetto trace JSON (``check --trace FILE``), with the host<->device transfers marked;
and a program's run as seen by ``ortcopy-doctor run`` (``run --trace FILE``: ``run_trace``, at the end).

Open the file in ui.perfetto.dev or chrome://tracing. Layout: one process (the session), with tracks

* ``model_run``: each run of the ORT profile (warm-up runs named so);
* one track per execution provider: the node events of the profile (``evidence.node_events``);
* ``host↔device transfers``: every transfer with its bytes in ``args``. Where the evidence has a transfer census
  (``report.census``), each attributed memcpy of a traced run is a complete event at the time its API call was
  issued, lasting as long as the copy ran on the device (shortened where it would overlap the next one;
  ``args.device_us`` keeps the full time). Runs the census did not trace (the warm-up runs), and every run where
  there is no census, show the copies the analysis derived (``args.source`` "analysis"): Memcpy nodes and
  in-kernel transfers span the node event that makes them, feed copies are instant events at the start of each
  run and fetch copies at its end;
* ``other copies (census)``: device-to-device and other traced copies that do not cross host<->device.

Times are µs since the ORT profiling start (``ts``/``dur`` are µs in this format; ``displayTimeUnit`` is ms).
Events: ``X`` (complete), ``i`` (instant, thread scope) and ``M`` (process/thread names and sort order).

The run's trace (``run_trace``) has one process (the program) with tracks ``host code`` (each stretch of the
program's own code between two calls, named by the code sites on either side as the stage table names it),
``iterations`` (each iteration of each loop the report found; the first and the typical one, the median of those
the stage table covers, named so), one per session (each call, with its input shapes and bytes in ``args``),
``uploads (host→device)`` and ``downloads (device→host)`` (instant events with the bytes of each value the report
counts crossing). Its times are µs since the program started on the program's clock (``render.run_timeline``: the
recorder's own time taken out, as the stage table), so that the tracks add up to the table's times.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from ortcopy_doctor.model import codec
from ortcopy_doctor.model.version import __version__
from ortcopy_doctor.knowledge.providers import is_device, short
from ortcopy_doctor.model.format import fmt_bytes
from ortcopy_doctor.render.run_timeline import RunTimeline, run_timeline
from ortcopy_doctor.render.terminal import json_safe, json_safe as _json_safe

if TYPE_CHECKING:
    from ortcopy_doctor.model.pipeline import PipelineReport
    from ortcopy_doctor.model.report import Report

PID = 1
TID_RUNS = 1
TID_TRANSFERS = 2
TID_OTHER = 3
TID_PROVIDER0 = 10

ARROW = {"host_to_device": "host→device", "device_to_host": "device→host", "device_to_device": "device→device"}
KIND_NAME = {"feed": "feed", "fetch": "fetch", "memcpy_node": "Memcpy node", "in_kernel": "in-kernel",
             "device_to_device": "device copy", "other_copy": "copy", "outside": "outside runs",
             "between_nodes": "between nodes"}
HOST_DEVICE = ("host_to_device", "device_to_host")


def _meta(name: str, tid: int | None, args: dict[str, Any]) -> dict[str, Any]:
    event: dict[str, Any] = {"name": name, "ph": "M", "pid": PID, "args": args}
    if tid is not None:
        event["tid"] = tid
    return event


def _provider_tids(report: Report) -> dict[str, int]:
    providers = {e.provider for e in report.evidence.node_events}
    ordered = sorted(providers, key=lambda p: (not is_device(p), p))
    return {p: TID_PROVIDER0 + i for i, p in enumerate(ordered)}


def _label(kind: str, direction: str, tensor: str, nbytes: int | None) -> str:
    parts = [KIND_NAME.get(kind, kind), ARROW.get(direction, direction)]
    if tensor:
        parts.append(tensor)
    parts.append(fmt_bytes(nbytes))
    return " ".join(parts)


def _census_transfers(report: Report) -> list[dict[str, Any]] | None:
    census = getattr(report, "census", None)
    if census is None:
        return None
    events: list[dict[str, Any]] = []
    for t in getattr(census, "transfers", []):
        if t.at_us is None:
            continue
        tid = TID_TRANSFERS if t.direction in HOST_DEVICE else TID_OTHER
        events.append({
            "name": _label(t.kind, t.direction, t.tensor, t.bytes), "cat": "transfer", "ph": "X",
            "ts": round(float(t.at_us), 3), "dur": round(max(t.duration_ns, 0) / 1000.0, 3), "pid": PID, "tid": tid,
            "args": {"bytes": t.bytes, "kind": t.kind, "direction": t.direction, "tensor": t.tensor, "node": t.node,
                     "run": t.run, "src_kind": t.src_kind, "dst_kind": t.dst_kind, "confirms": t.confirms,
                     "device_us": round(max(t.duration_ns, 0) / 1000.0, 3), "placed_by": t.placed_by,
                     "source": "census"},
        })
        boundary = getattr(t, "boundary_us", None)
        if boundary is not None:
            events[-1]["args"]["boundary_us"] = boundary
    return events


def _traced_runs(report: Report) -> set[int]:
    census = getattr(report, "census", None)
    if census is None:
        return set()
    return set(getattr(census, "traced_runs", []) or []) | {t.run for t in getattr(census, "transfers", []) if t.run >= 0}


def _derived_transfers(report: Report, skip_runs: set[int] | None = None) -> list[dict[str, Any]]:
    """The analysis' copies placed on each run of the profile (but ``skip_runs``: those the census traced)."""
    ev = report.evidence
    events: list[dict[str, Any]] = []
    by_run: dict[int, list[Any]] = {}
    for e in ev.node_events:
        by_run.setdefault(e.run, []).append(e)
    for run in ev.run_events:
        if skip_runs and run.run in skip_runs:
            continue
        nodes = by_run.get(run.run, [])
        for c in report.copies:
            args = {"bytes": c.bytes_per_run, "kind": c.kind, "direction": c.direction, "tensor": c.tensor,
                    "node": c.node, "run": run.run, "warmup": run.warmup, "source": "analysis"}
            name = _label(c.kind, c.direction, c.tensor, c.bytes_per_run)
            if c.kind in ("feed", "fetch"):
                ts = run.ts_us if c.kind == "feed" else run.ts_us + run.dur_us
                events.append({"name": name, "cat": "transfer", "ph": "i", "s": "t", "ts": ts, "pid": PID,
                               "tid": TID_TRANSFERS, "args": args})
                continue
            for e in nodes:
                if e.name == c.node:
                    events.append({"name": name, "cat": "transfer", "ph": "X", "ts": e.ts_us, "dur": e.dur_us,
                                   "pid": PID, "tid": TID_TRANSFERS, "args": args})
    return events


def _unoverlap(events: list[dict[str, Any]]) -> None:
    """Complete events on one track must nest: shorten each so it ends before the next one starts."""
    tracks: dict[int, list[dict[str, Any]]] = {}
    for e in events:
        if e["ph"] == "X":
            tracks.setdefault(e["tid"], []).append(e)
    for track in tracks.values():
        track.sort(key=lambda e: (e["ts"], -e["dur"]))
        for this, following in zip(track, track[1:]):
            if this["ts"] + this["dur"] > following["ts"]:
                this["dur"] = round(max(0.0, following["ts"] - this["ts"]), 3)


def trace(report: Report) -> dict[str, Any]:
    """The trace as a JSON-able dict: ``{"traceEvents": [...], "displayTimeUnit": "ms", "otherData": {...}}``."""
    ev = report.evidence
    tids = _provider_tids(report)
    events: list[dict[str, Any]] = []
    for run in ev.run_events:
        events.append({"name": f"model_run {run.run}" + (" (warm-up)" if run.warmup else ""), "cat": "run",
                       "ph": "X", "ts": run.ts_us, "dur": run.dur_us, "pid": PID, "tid": TID_RUNS,
                       "args": {"run": run.run, "warmup": run.warmup}})
    for e in ev.node_events:
        events.append({"name": e.name, "cat": e.op_type, "ph": "X", "ts": e.ts_us, "dur": e.dur_us, "pid": PID,
                       "tid": tids[e.provider],
                       "args": {"op_type": e.op_type, "provider": e.provider, "run": e.run,
                                "input_shapes": e.input_shapes, "output_shapes": e.output_shapes,
                                "output_bytes": e.output_bytes}})
    census = _census_transfers(report)
    transfers = _derived_transfers(report) if census is None else census + _derived_transfers(report, _traced_runs(report))
    _unoverlap(transfers)
    events += transfers

    model = ev.model.path.replace("\\", "/").rsplit("/", 1)[-1]
    meta = [
        _meta("process_name", None, {"name": f"ortcopy-doctor: {model}"}),
        _meta("thread_name", TID_RUNS, {"name": "model_run"}),
        _meta("thread_sort_index", TID_RUNS, {"sort_index": 0}),
        _meta("thread_name", TID_TRANSFERS, {"name": "host↔device transfers"}),
        _meta("thread_sort_index", TID_TRANSFERS, {"sort_index": 1}),
    ]
    if any(e["tid"] == TID_OTHER for e in transfers):
        meta += [_meta("thread_name", TID_OTHER, {"name": "other copies (census)"}),
                 _meta("thread_sort_index", TID_OTHER, {"sort_index": 2})]
    for i, (provider, tid) in enumerate(tids.items()):
        meta += [_meta("thread_name", tid, {"name": short(provider) or provider}),
                 _meta("thread_sort_index", tid, {"sort_index": 10 + i})]
    events.sort(key=lambda e: (e["ts"], e["tid"], -e.get("dur", 0)))
    return {
        "traceEvents": meta + events,
        "displayTimeUnit": "ms",
        "otherData": {
            "tool": f"ortcopy-doctor {__version__}",
            "model": model,
            "verdict": report.verdict,
            "bytes_per_run": report.summary.bytes_per_run,
            "transfers_from": "census" if census is not None else "analysis",
            "ort_version": ev.environment.ort_version,
        },
    }


def render_trace(report: Report) -> str:
    """The trace of ``report`` as Chrome/Perfetto JSON text (see ``trace``)."""
    # names and messages from the model or the report file: no raw control characters in the file
    return json_safe(codec.to_json(trace(report))) + "\n"


# --- the run of a program (``run --trace``) ------------------------------------------------------------------------

RUN_TID_HOST = 1
RUN_TID_ITERATIONS = 2
RUN_TID_UPLOADS = 3
RUN_TID_DOWNLOADS = 4
RUN_TID_SESSION0 = 10


def _us(ns: int) -> int:
    """Whole µs: the stage table's precision (ms with three decimals), and sums of whole numbers are exact, so an
    event that ends where the next one starts never overlaps it by a rounding."""
    return round(ns / 1000)


def _dur(start_ns: int, end_ns: int) -> int:
    return _us(end_ns) - _us(start_ns)


def _iteration_events(timeline: RunTimeline, report: PipelineReport) -> list[dict[str, Any]]:
    """One complete event per iteration of each loop on the iterations track (the first and the typical one named
    so), and an instant event where a loop's iterations could not be marked; then the calls outside every loop."""
    events: list[dict[str, Any]] = []
    for pt in timeline.pipelines:
        p = report.pipelines[pt.pipeline]
        loop = " → ".join(p.sessions)
        if pt.note:
            events.append({"name": f"pipeline {pt.pipeline + 1}: {pt.note}", "cat": "iteration", "ph": "i", "s": "t",
                           "ts": 0, "pid": PID, "tid": RUN_TID_ITERATIONS, "args": {"pipeline": pt.pipeline + 1}})
            continue
        for it in pt.iterations:
            what = " (first, shown apart)" if it.index == 0 and len(pt.iterations) > 1 else (
                " (typical: the median of the stage table's)" if it.index == pt.typical else "")
            events.append({"name": f"iteration {it.index + 1} of {loop}{what}", "cat": "iteration", "ph": "X",
                           "ts": _us(it.start_ns), "dur": _dur(it.start_ns, it.end_ns), "pid": PID,
                           "tid": RUN_TID_ITERATIONS,
                           "args": {"pipeline": pt.pipeline + 1, "iteration": it.index + 1, "calls": len(it.calls),
                                    "complete": it.complete, "first": it.index == 0,
                                    "typical": it.index == pt.typical}})
    return events + _outside_events(timeline, report)


def _outside_events(timeline: RunTimeline, report: PipelineReport) -> list[dict[str, Any]]:
    """The calls outside every iteration, on the iterations track as the report shows them: each run of them before a
    loop (warm-up, initialisation), and after the last loop."""
    loops = [pt for pt in timeline.pipelines if pt.iterations]
    if not loops:
        return []
    inside = {seq for pt in loops for it in pt.iterations for seq in it.calls}
    runs: list[list[Any]] = []
    for c in timeline.calls:
        if c.seq in inside:
            runs.append([])
        elif runs and runs[-1]:
            runs[-1].append(c)
        else:
            runs.append([c])
    events: list[dict[str, Any]] = []
    for calls in (r for r in runs if r):
        following = next((pt for pt in loops if pt.iterations[0].start_ns >= calls[-1].end_ns), None)
        where = (f"before the loop of {' → '.join(report.pipelines[following.pipeline].sessions)} (warm-up, "
                 "initialisation)" if following is not None else
                 f"after the loop of {' → '.join(report.pipelines[loops[-1].pipeline].sessions)}")
        events.append({"name": where, "cat": "iteration", "ph": "X", "ts": _us(calls[0].start_ns),
                       "dur": _dur(calls[0].start_ns, calls[-1].end_ns), "pid": PID, "tid": RUN_TID_ITERATIONS,
                       "args": {"calls": len(calls)}})
    return events


def run_trace(report: PipelineReport) -> dict[str, Any]:
    """The run of a program as a JSON-able trace dict: tracks for the host code between calls, the loops'
    iterations, each session's calls (shape and bytes in ``args``), the uploads (host→device) and the downloads
    (device→host), on the program's clock (``render.run_timeline``; µs since the program started)."""
    timeline = run_timeline(report)
    if timeline is None:
        raise ValueError("the run's trace needs the report's observations (a report read without them has none)")
    events: list[dict[str, Any]] = []
    for h in timeline.hosts:
        events.append({"name": h.name, "cat": "host", "ph": "X", "ts": _us(h.start_ns), "dur": _dur(h.start_ns, h.end_ns),
                       "pid": PID, "tid": RUN_TID_HOST, "args": {"after_call": h.before_seq, "before_call": h.after_seq}})
    events += _iteration_events(timeline, report)
    for c in timeline.calls:
        events.append({"name": f"{c.label}: {c.method}", "cat": "inference", "ph": "X", "ts": _us(c.start_ns),
                       "dur": _dur(c.start_ns, c.end_ns), "pid": PID, "tid": RUN_TID_SESSION0 + c.session,
                       "args": {"call": c.seq, "session": c.label, "site": c.site, "shape": c.shape,
                                "input_bytes": c.input_bytes, "output_bytes": c.output_bytes,
                                "host_to_device_bytes": c.h2d_bytes, "device_to_host_bytes": c.d2h_bytes,
                                **({"error": c.error} if c.error else {})}})
    for m in timeline.transfers:
        up = m.direction == "host_to_device"
        events.append({"name": f"{'upload' if up else 'download'} {m.tensor} {fmt_bytes(m.bytes)}", "cat": "transfer",
                       "ph": "i", "s": "t", "ts": _us(m.at_ns), "pid": PID,
                       "tid": RUN_TID_UPLOADS if up else RUN_TID_DOWNLOADS,
                       "args": {"bytes": m.bytes, "direction": m.direction, "session": m.session, "tensor": m.tensor,
                                "call": m.seq, "how": m.how}})
    tracks = [(RUN_TID_HOST, "host code"), (RUN_TID_ITERATIONS, "iterations")]
    tracks += [(RUN_TID_SESSION0 + i, f"session {label}") for i, label in enumerate(timeline.sessions)]
    tracks += [(RUN_TID_UPLOADS, "uploads (host→device)"), (RUN_TID_DOWNLOADS, "downloads (device→host)")]
    meta = [_meta("process_name", None, {"name": f"ortcopy-doctor run: {' '.join(report.program)}"})]
    for order, (tid, name) in enumerate(tracks):
        meta += [_meta("thread_name", tid, {"name": name}), _meta("thread_sort_index", tid, {"sort_index": order})]
    _unoverlap(events)
    events.sort(key=lambda e: (e["ts"], e["tid"], -e.get("dur", 0)))
    return {
        "traceEvents": meta + events,
        "displayTimeUnit": "ms",
        "otherData": {"tool": f"ortcopy-doctor {__version__}", "program": list(report.program),
                      "verdict": report.verdict, "clock": "the program's: µs since it started, the recorder's own "
                      "time taken out (as the stage table)",
                      "ort_version": report.observations.ort_version if report.observations else ""},
    }


def render_run_trace(report: PipelineReport) -> str:
    """The trace of a program's run (``run --trace``) as Chrome/Perfetto JSON text (see ``run_trace``)."""
    # names from the program and its models: no raw control characters in the file
    return _json_safe(codec.to_json(run_trace(report))) + "\n"
