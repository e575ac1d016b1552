"""The pipeline report of ``ortcopy-doctor run`` as plain text (``render_pipeline_text``: the terminal's, ``run``'s
text format) and as one self-contained HTML page (``render_pipeline_html``: ``run --html``). ``PipelineReport.to_text()``,
``to_html()`` and ``str(report)`` before issue 35; its JSON is the report's own ``to_json`` (``model.codec``).

The page is reports/templates/pipeline.html.j2, which extends base.html.j2 as check's and diff's pages do (their
look); ``pipeline_view_model`` prepares every string as plain view structs (escaped, breakable at a name's
separators, a `name` the report quotes in backticks as ``<code>``), and the template only loops and prints. Each
pipeline has a timeline: a typical iteration and the first one as inline SVG lanes (``render.run_svg``) on the
program's clock (``render.run_timeline``), each with the table of its stages beside it."""

from __future__ import annotations

import re
from typing import TYPE_CHECKING, Any, Optional

import msgspec

from ortcopy_doctor.model.format import fmt_bytes
from ortcopy_doctor.model.pipeline import (
    IterationMove,
    POSSIBLE_ROUND_TRIP,
    ROUND_TRIP,
    Pipeline,
    PipelineReport,
    StageRow,
    fmt_ms,
    shape_message,
    short_site,
)
from ortcopy_doctor.model.providers import short
from ortcopy_doctor.model.lazy import lazy_import
from ortcopy_doctor.model.text import safe
from ortcopy_doctor.render.run_timeline import RunTimeline, run_timeline

if TYPE_CHECKING:
    import markupsafe as _markupsafe
    from markupsafe import Markup

    from ortcopy_doctor.render import html as _html, run_svg as _run_svg
else:
    # The page's modules run where a page is written: the run's text loads neither jinja2 nor markupsafe.
    _html = lazy_import("ortcopy_doctor.render.html")
    _markupsafe = lazy_import("markupsafe")
    _run_svg = lazy_import("ortcopy_doctor.render.run_svg")


def render_pipeline_text(report: PipelineReport) -> str:
    """Plain text: the program and how it ended, the verdict, each session, each pipeline's edges and stages."""
    program = " ".join(report.program)
    ended = {"exit": f"exit code {report.exit_code}", "exception": f"raised ({report.error}), exit code {report.exit_code}",
             "interrupt": f"interrupted (Ctrl-C), exit code {report.exit_code}",
             "signal": f"killed by {report.error}, exit code {report.exit_code}"}.get(report.ended_by, report.ended_by)
    lines = [f"ortcopy-doctor run: {program} -- {ended}", f"verdict: {report.verdict}"]
    for finding in report.providers:
        lines.append(f"  providers: {finding.line}")
        lines.append(f"    fix: {finding.fix}")
    for replay in report.replays:
        lines.append(f"  replayed: {replay.summary()}")
    for s in report.sessions:
        lines.append(f"  session {s.label}: {s.calls} call(s) on {', '.join(short(p) for p in s.providers) or '?'}; "
                     f"placement {s.placement}; census {s.census}")
    lines += [f"  observed: {o}" for o in report.observed]
    lines += [f"  not observed: {o}" for o in report.not_observed]
    lines += finding_lines(report)
    for n, p in enumerate(report.pipelines, 1):
        lines.append("")
        lines.append(f"pipeline {n}: {' → '.join(p.sessions)} ({_loop_words(p)})")
        if p.h2d_bytes_per_iteration is not None:
            lines.append(f"  bytes across PCIe per iteration: {_bytes_words(p)}")
        if p.moves:
            lines.append(f"  every transfer, per iteration (mean of {p.iterations}; device time where CUPTI timed it):")
            lines += [f"    - {_move_words(m)}" for m in p.moves]
        if p.round_trips:
            lines.append("  round trips between stages:")
            for h in p.round_trips:
                lines.append(f"    - {h.message} [{h.basis}]"
                             + (f"; host time between: {fmt_ms(h.host_ms_between)} ms/call" if h.host_ms_between is not None else ""))
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
            lines.append(f"  first iteration, shown apart: {fmt_ms(p.first_iteration_ms)} ms")
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


def finding_lines(report: PipelineReport) -> list[str]:
    """The run rules' findings (OCD1xx), one ``severity id slug at site`` line each with its message and fix below;
    nothing where there are none (a report written before run had rules)."""
    if not report.findings:
        return []
    lines = ["", f"findings ({len(report.findings)}; rules: docs/rules.md):"]
    for f in report.findings:
        per = f", {fmt_bytes(f.bytes_per_run)} per iteration" if f.bytes_per_run is not None else ""
        lines.append(f"  {f.severity:<7} {f.rule} {f.slug} at {short_site(f.location)}{per}")
        lines.append(f"          {f.message}")
        lines.append(f"          fix: {f.fix}")
    return lines


def _loop_words(p: Pipeline) -> str:
    """``10 iteration(s) of the loop, each starting at det.onnx called at ocr.py:main:23, 12.000 ms each``."""
    words = f"{p.iterations} iteration(s) of the loop"
    if p.head:
        words += f", each starting at {p.head}" + (f" called at {short_site(p.head_site)}" if p.head_site else "")
    if p.iteration_ms is not None:
        words += f", {fmt_ms(p.iteration_ms)} ms each (median)"
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
        line = f"    {r.stage:<{width}}  {fmt_ms(r.median_ms):>9}  {r.calls:>6}  {fmt_ms(r.total_ms):>10}"
        if per_iteration:
            line += f"  {fmt_ms(r.per_iteration_ms):>9}"
        lines.append(line + (f"  ({r.note})" if r.median_ms is None and r.note else ""))
    return lines


# --- the HTML page (reports/templates/pipeline.html.j2, with the look of check's report) ----------------------------

TEMPLATE = "pipeline.html.j2"
_TICKS = re.compile(r"`([^`\n]*)`")


def marked(text: str) -> Markup:
    """``text`` escaped and breakable (``render.html.breakable``) with each `name` the report quotes in backticks
    shown as ``<code>name</code>``: no literal backtick reaches the page."""
    breakable = _html.breakable
    out, at = [], 0
    for m in _TICKS.finditer(text):
        out.append(str(breakable(text[at:m.start()])))
        out.append(f"<code>{breakable(m.group(1))}</code>")
        at = m.end()
    out.append(str(breakable(text[at:])))
    return _markupsafe.Markup("".join(out))


class StageView(msgspec.Struct, frozen=True):
    """One row of a stage table as the page shows it."""

    stage: Markup
    median_ms: str
    calls: int
    total_ms: str
    per_iteration_ms: str
    note: Markup


class TimelineView(msgspec.Struct, frozen=True):
    """One iteration drawn as lanes (inline SVG) and its stages, each with its time, beside it."""

    element_id: str
    title: str
    svg: Markup
    stages: list[tuple[Markup, str]]  # (stage, ms) in the order they ran


class ReplayRowView(msgspec.Struct, frozen=True):
    """One input signature of a session replayed on both providers: first call and median per call of each."""

    shape: Any
    program_calls: int
    used_first_ms: str
    used_ms: str
    other_first_ms: str
    other_ms: str
    verdict: Any


class ReplayView(msgspec.Struct, frozen=True):
    """A session replayed after the program on the provider it ran on and the other one."""

    session: Any
    used: str
    other: str
    threads: Any
    error: Any
    rows: list[ReplayRowView]


class SessionView(msgspec.Struct, frozen=True):
    """One session of the program as the sessions table shows it."""

    label: Markup
    providers: str
    calls: int
    placement: Markup
    census: Markup


class ItemView(msgspec.Struct, frozen=True):
    """One hand-off between stages: its class (rt: a round trip; ok: kept on the device), words and fix."""

    css: str
    message: Markup
    fix: Markup


class MoveView(msgspec.Struct, frozen=True):
    """One transfer of a loop per iteration, its cells prepared."""

    kind: str
    direction: str
    what: Any
    site: Any
    bytes: str
    ms: str
    share: str
    basis: str


class PipelineView(msgspec.Struct, frozen=True):
    """One pipeline of the report, every string prepared (escaped, breakable, `code` as <code>)."""

    number: int
    title: Markup
    loop: Markup
    bytes: Markup
    items: list[ItemView]
    moves: list[MoveView]
    before_loop: list[StageView]
    first_title: str
    first_iteration: list[StageView]
    new_shapes: list[Markup]
    timelines: list[TimelineView]
    timeline_note: str
    table_words: Markup
    timing_note: Markup
    stages: list[StageView]
    after_loop: list[StageView]
    code: str
    code_check: Markup


_MOVE_KINDS = {"feed": "upload (feed)", "fetch": "download (fetch)", "memcpy_node": "Memcpy node",
               "in_kernel": "in-kernel", "unexplained": "unexplained"}


def _move_cells(m: IterationMove) -> tuple[str, str, str, str, str, str]:
    """kind, what (tensor of session, or node), bytes, ms, share, direction arrow."""
    what = f"`{m.tensor}` of {m.session}" if m.tensor else m.session
    if m.node:
        what += f" (node `{m.node}`)"
    size = "?" if m.bytes_per_iteration is None else fmt_bytes(int(round(m.bytes_per_iteration)))
    ms = "-" if m.ms_per_iteration is None else f"{m.ms_per_iteration:.3f}"
    share = "-" if m.share is None else f"{m.share:.1%}"
    arrow = "host→device" if m.direction == "host_to_device" else "device→host"
    return _MOVE_KINDS.get(m.kind, m.kind), what, size, ms, share, arrow


def _move_words(m: IterationMove) -> str:
    """``upload (feed) host→device `x` of det.onnx at text_detect.py:__call__:59: 11.8 MB, 1.383 ms (0.1%) [census]``."""
    kind, what, size, ms, share, arrow = _move_cells(m)
    timed = f", {ms} ms ({share} of the iteration)" if m.ms_per_iteration is not None else ""
    where = f" at {short_site(m.site)}" if m.site else ""
    return f"{kind} {arrow} {what}{where}: {size}{timed}, {m.calls} call(s) [{m.basis}]"


def _move_view(m: IterationMove) -> MoveView:
    kind, what, size, ms, share, arrow = _move_cells(m)
    return MoveView(kind, arrow, marked(what), marked(short_site(m.site)), size, ms, share, m.basis)


def _stage_views(rows: list[StageRow]) -> list[StageView]:
    return [StageView(marked(r.stage), fmt_ms(r.median_ms), r.calls, fmt_ms(r.total_ms), fmt_ms(r.per_iteration_ms),
                      marked(r.note)) for r in rows]


def _items(p: Pipeline) -> list[ItemView]:
    items = [ItemView("rt", marked(h.message + f" [{h.basis}]"), marked(h.fix)) for h in p.round_trips]
    items += [ItemView({ROUND_TRIP: "rt", POSSIBLE_ROUND_TRIP: ""}.get(h.kind, "ok"), marked(h.message + f" [{h.basis}]"),
                       marked(h.fix)) for h in p.state]
    items += [ItemView("ok", marked(h.message), _markupsafe.Markup("")) for h in p.on_device]
    items += [ItemView("", marked(h.message), _markupsafe.Markup("")) for h in p.host_hand_offs]
    return items


def _timeline_views(n: int, timeline: Optional[RunTimeline]) -> tuple[list[TimelineView], str]:
    """The typical iteration (the median of those the stage table covers) and the first one, each as lanes with its
    stages beside it; a sentence instead where there is nothing to draw."""
    if timeline is None:
        return [], "no timeline: the report was read without its observations"
    pt = timeline.pipelines[n - 1]
    if pt.note:
        return [], f"no timeline: {pt.note}"
    chosen = []
    if pt.typical is not None:
        chosen.append((pt.iterations[pt.typical], "typical", "a typical iteration"))
    if pt.iterations and (pt.typical is None or len(pt.iterations) > 1):
        chosen.append((pt.iterations[0], "first", "the first iteration"))
    views = []
    for it, key, words in chosen:
        ms = fmt_ms((it.end_ns - it.start_ns) / 1e6)
        title = (f"{words[0].upper()}{words[1:]}: iteration {it.index + 1} of {len(pt.iterations)}, {ms} ms"
                 + (" (the median of the stage table's iterations)" if key == "typical" else "")
                 + ("" if it.complete else " (the last: up to the end of its last call)"))
        seqs = set(it.calls)
        stages: list[tuple[int, Markup, str]] = [(c.start_ns, marked(f"{c.label}: inference"),
                                                  fmt_ms((c.end_ns - c.start_ns) / 1e6))
                                                 for c in timeline.calls if c.seq in seqs]
        stages += [(h.start_ns, marked(h.name), fmt_ms((min(h.end_ns, it.end_ns) - h.start_ns) / 1e6))
                   for h in timeline.hosts if h.before_seq in seqs and h.start_ns < it.end_ns]
        views.append(TimelineView(f"timeline-{n}-{key}", title,
                                  _markupsafe.Markup(_run_svg.iteration_svg(timeline, it, f"timeline-{n}-{key}-svg",
                                                                            title)),
                                  [(name, ms) for _, name, ms in sorted(stages, key=lambda s: s[0])]))
    return views, ""


def _pipeline_view(n: int, p: Pipeline, timeline: Optional[RunTimeline]) -> PipelineView:
    timelines, timeline_note = _timeline_views(n, timeline)
    return PipelineView(
        number=n, title=marked(" → ".join(p.sessions)), loop=marked(_loop_words(p)),
        bytes=marked(_bytes_words(p)) if p.h2d_bytes_per_iteration is not None else _markupsafe.Markup(""),
        items=_items(p), moves=[_move_view(m) for m in p.moves], before_loop=_stage_views(p.before_loop),
        first_title=f"First iteration, shown apart: {fmt_ms(p.first_iteration_ms)} ms" if p.first_iteration else "",
        first_iteration=_stage_views(p.first_iteration), new_shapes=[marked(shape_message(c)) for c in p.new_shapes],
        timelines=timelines, timeline_note=timeline_note, table_words=marked(_table_words(p)),
        timing_note=marked(p.timing_note), stages=_stage_views(p.stages), after_loop=_stage_views(p.after_loop),
        code=p.code, code_check=marked(p.code_check))


def pipeline_view_model(report: PipelineReport) -> dict[str, Any]:
    """Everything the page's template prints, each string prepared here (the template only loops and escapes)."""
    timeline = run_timeline(report) if report.pipelines else None
    return {
        "title": "ortcopy-doctor run",
        "program": marked(" ".join(report.program)),
        "ended_by": str(report.ended_by), "exit_code": report.exit_code,
        "verdict_class": "bad" if report.round_trips else "good",
        "verdict": marked(report.verdict),
        "providers": [(marked(f.line), marked(f.fix)) for f in report.providers],
        "replays": [ReplayView(marked(r.session), short(r.used), short(r.other), marked(r.threads), marked(r.error),
                               [ReplayRowView(marked(c.shape), c.program_calls, f"{c.used.first_ms:.3g}",
                                              f"{c.used.median_ms:.3g}", f"{c.other.first_ms:.3g}",
                                              f"{c.other.median_ms:.3g}", marked(c.line().rpartition(": ")[2]))
                                for c in r.shapes]) for r in report.replays],
        "sessions": [SessionView(marked(s.label), ", ".join(short(p) for p in s.providers), s.calls,
                                 marked(s.placement), marked(s.census)) for s in report.sessions],
        "observed": [marked(o) for o in report.observed],
        "not_observed": [marked(o) for o in report.not_observed],
        # the run rules' findings: (severity, rule, where, bytes per iteration, message, fix)
        "findings": [(str(f.severity), f"{f.rule} {f.slug}", marked(short_site(f.location)),
                      fmt_bytes(f.bytes_per_run) if f.bytes_per_run is not None else "-", marked(f.message),
                      marked(f.fix)) for f in report.findings],
        "pipelines": [_pipeline_view(n, p, timeline) for n, p in enumerate(report.pipelines, 1)],
        "notes": [marked(n) for n in report.notes],
    }


def render_pipeline_html(report: PipelineReport) -> str:
    """One self-contained HTML page (no network references) from reports/templates/pipeline.html.j2, with the look
    of check's report (base.html.j2): every name escaped, breaking at its separators (``breakable``) so that a long
    model or tensor name wraps instead of widening the page, and a timeline of a typical and of the first iteration
    of each loop (inline SVG)."""
    return _html.environment().get_template(TEMPLATE).render(**pipeline_view_model(report))


__all__ = ["NEW_SHAPES_SHOWN", "ItemView", "finding_lines", "PipelineView", "SessionView", "StageView", "TimelineView", "marked",
           "pipeline_view_model", "render_pipeline_html", "render_pipeline_text"]
