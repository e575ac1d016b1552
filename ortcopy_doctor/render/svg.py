"""Inline SVG pictures for the HTML report: the timeline of one run, and where the CPU islands sit in the graph.

Pure functions of a :class:`~ortcopy_doctor.model.report.Report` (no onnxruntime). Node and tensor names are untrusted
model text: every text node and attribute value goes through :func:`esc` (``html.escape(quote=True)``); the only
other things written into the markup are numbers formatted here and constant strings.

Both pictures stay usable for models with thousands of nodes:

* the timeline draws one rect per node event; above ``MERGE_EVENTS_ABOVE`` events of a run, neighbouring events
  of one lane narrower than a pixel are drawn as one rect (its tooltip says how many nodes it holds), and above
  ``MERGE_MARKS_ABOVE`` transfers, transfers of one direction less than two pixels apart are one mark;
* the graph draws every node up to ``COLLAPSE_ABOVE`` nodes; above, it keeps the CPU islands, the Memcpy nodes and
  their immediate neighbours and collapses every run of other device nodes (consecutive in topological order, so
  the collapsed graph is still acyclic) into one box "N CUDA nodes"; at most ``MAX_BOXES`` boxes are drawn.
"""

from __future__ import annotations

import msgspec
import heapq
import math
from collections import defaultdict
from msgspec import field
from typing import TYPE_CHECKING, Optional

from ortcopy_doctor.knowledge.providers import CPU, is_device, short
from ortcopy_doctor.model.format import fmt_bytes

if TYPE_CHECKING:
    from collections.abc import Callable

    from ortcopy_doctor.model.evidence import Evidence, NodeEvent, RunEvent, RuntimeNode
    from ortcopy_doctor.model.report import Report

MEMCPY_OPS = ("MemcpyToHost", "MemcpyFromHost")

# Colours (presentation attributes, so the pictures print and copy out the same as on screen).
DEVICE_FILL = "#4e79a7"
CPU_FILL = "#f28e2b"
MEMCPY_FILL = "#e15759"
OTHER_FILL = "#9c9c9c"
H2D_FILL = "#2f7d32"
D2H_FILL = "#7b3fa0"
D2D_FILL = "#777777"
ISLAND_FILL = "#fff1e0"
ISLAND_STROKE = "#c85f00"
INK = "#1a1a1a"
MUTED = "#555555"
GRID = "#e4e4e4"

FONT = 'font-family="system-ui, -apple-system, Segoe UI, Roboto, sans-serif"'
CHAR_W = 6.3  # rough width of one character at font-size 11 (for fitting labels)

MERGE_EVENTS_ABOVE = 2000
MERGE_MARKS_ABOVE = 300
COLLAPSE_ABOVE = 300
MAX_BOXES = 1500
WIDE_ABOVE = 1500  # px: a wider graph scrolls on screen instead of shrinking to fit the page

ARROW = {"host_to_device": "host→device", "device_to_host": "device→host", "device_to_device": "device→device"}
KIND_LABEL = {"feed": "feed copy", "fetch": "fetch copy", "memcpy_node": "Memcpy node", "in_kernel": "in-kernel",
              "device_to_device": "device-to-device", "other_copy": "other copy", "outside": "outside every run",
              "between_nodes": "between nodes"}


def esc(value: object) -> str:
    """Text or attribute value for SVG/HTML: &, <, >, " and ' escaped, as ``html.escape(quote=True)`` does
    (importing ``html`` and its entity tables costs every check ~3 ms)."""
    return (str(value).replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;").replace('"', "&quot;")
            .replace("'", "&#x27;"))


def num(value: float) -> str:
    """A coordinate: at most one decimal, no trailing zeros."""
    text = f"{value:.1f}"
    return text[:-2] if text.endswith(".0") else text


def fit(text: str, width: float) -> str:
    """``text`` shortened with an ellipsis to about ``width`` pixels (before escaping)."""
    room = int(width / CHAR_W)
    if room <= 1:
        return ""
    return text if len(text) <= room else text[: room - 1] + "…"


def fmt_us(value: float) -> str:
    """A duration in µs as short text: µs below 10 ms, else ms."""
    if abs(value) >= 10_000:
        return f"{value / 1000:.1f} ms"
    return f"{value:.0f} µs" if abs(value) >= 100 else f"{value:.1f} µs".replace(".0 µs", " µs")


def provider_fill(provider: str, op_type: str = "") -> str:
    """The fill colour of a node: Memcpy, CPU, device or other provider."""
    if op_type in MEMCPY_OPS:
        return MEMCPY_FILL
    if provider == CPU:
        return CPU_FILL
    return DEVICE_FILL if is_device(provider) else OTHER_FILL


def direction_fill(direction: str) -> str:
    """The fill colour of a transfer by its direction (host to device, device to host, other)."""
    return {"host_to_device": H2D_FILL, "device_to_host": D2H_FILL}.get(direction, D2D_FILL)


class Figure(msgspec.Struct, frozen=True):
    """One picture for the report: ``svg`` ("" where there is nothing to draw) and a sentence to show with it."""

    svg: str
    note: str
    wide: bool = False  # wider than the page: scrolls on screen, scaled to the page width in print
    stats: dict[str, int] = field(default_factory=dict)


def _legend(items: list[tuple[str, str]], x: float, y: float) -> list[str]:
    out = []
    for label, fill in items:
        out.append(f'<rect x="{num(x)}" y="{num(y - 9)}" width="12" height="10" rx="2" fill="{fill}"/>'
                   f'<text x="{num(x + 16)}" y="{num(y)}">{esc(label)}</text>')
        x += 28 + len(label) * CHAR_W
    return out


def _svg_open(element_id: str, width: float, height: float, label: str) -> str:
    return (f'<svg id="{esc(element_id)}" class="figure-svg" role="img" aria-label="{esc(label)}" '
            f'viewBox="0 0 {num(width)} {num(height)}" width="{num(width)}" height="{num(height)}" '
            f'{FONT} font-size="11" fill="{INK}">')


# --- timeline --------------------------------------------------------------------------------------------------


class Mark(msgspec.Struct, frozen=True):
    """A transfer to mark on the timeline, at ``at_us`` (profile clock)."""

    at_us: float
    bytes: Optional[int]
    direction: str
    kind: str
    tensor: str = ""
    node: str = ""
    source: str = ""  # census, analysis


def timeline_run(report: Report) -> Optional[RunEvent]:
    """The run the timeline shows: the last profiled (not warm-up) run; with a census, the last traced one."""
    ev = report.evidence
    measured = [r for r in ev.run_events if not r.warmup]
    if report.census is not None:
        traced = set(report.census.traced_runs)
        measured = [r for r in measured if r.run in traced] or measured
    return max(measured, key=lambda r: r.run) if measured else None


def timeline_marks(report: Report, run: RunEvent, events: list[NodeEvent]) -> tuple[list[Mark], int]:
    """Transfers of ``run``: the census's attributed transfers where there is a census, else the analysis copies
    (Memcpy nodes at their node events, feeds at run start, fetches at run end, in-kernel in their node).
    Also returns how many copies could not be placed (a node with no event in the run)."""
    if report.census is not None:
        traced = [Mark(t.at_us, t.bytes, t.direction, t.kind, t.tensor, t.node, "census")
                  for t in report.census.transfers if t.run == run.run and t.at_us is not None]
        return sorted(traced, key=lambda m: m.at_us), 0
    by_node: dict[str, list[NodeEvent]] = defaultdict(list)
    for e in events:
        by_node[e.name].append(e)
    marks: list[Mark] = []
    unplaced = 0
    for c in report.copies:
        if c.kind == "feed":
            marks.append(Mark(run.ts_us, c.bytes_per_run, c.direction, c.kind, c.tensor, "", "analysis"))
        elif c.kind == "fetch":
            marks.append(Mark(run.ts_us + run.dur_us, c.bytes_per_run, c.direction, c.kind, c.tensor, "", "analysis"))
        elif c.kind in ("memcpy_node", "in_kernel"):
            node_events = by_node.get(c.node, [])
            if not node_events:
                unplaced += 1
                continue
            share = None if c.bytes_per_run is None else c.bytes_per_run // max(len(node_events), 1)
            for e in node_events:
                at = e.ts_us if c.kind == "memcpy_node" else e.ts_us + e.dur_us / 2
                marks.append(Mark(at, share, c.direction, c.kind, c.tensor, c.node, "analysis"))
    return sorted(marks, key=lambda m: m.at_us), unplaced


def _nice_step(span: float, ticks: int = 8) -> float:
    """A tick step of 1, 2 or 5 times a power of ten giving about ``ticks`` ticks over ``span``."""
    raw = max(span / ticks, 1e-9)
    power = 10.0 ** math.floor(math.log10(raw))
    for factor in (1, 2, 5):
        if raw <= factor * power:
            return factor * power
    return 10 * power


def _lane_order(providers: list[str], active: list[str]) -> list[str]:
    def rank(p: str) -> tuple[int, int, str]:
        position = active.index(p) if p in active else len(active)
        return (0 if is_device(p) else (2 if p == CPU else 1), position, p)
    return sorted(set(providers), key=rank)


def _merge_events(events: list[NodeEvent], scale: float) -> list[list[NodeEvent]]:
    """Events of one lane in groups to draw as one rect: neighbours narrower than a pixel, less than a pixel
    apart, a group spanning at most two pixels (a group holding a Memcpy node is drawn in the Memcpy colour)."""
    groups: list[list[NodeEvent]] = []
    for e in events:
        if groups:
            first, last = groups[-1][0], groups[-1][-1]
            if (e.dur_us * scale < 1 and last.dur_us * scale < 1
                    and (e.ts_us - (last.ts_us + last.dur_us)) * scale < 1
                    and (e.ts_us + e.dur_us - first.ts_us) * scale <= 2):
                groups[-1].append(e)
                continue
        groups.append([e])
    return groups


def _merge_marks(marks: list[Mark], scale: float) -> list[list[Mark]]:
    """Transfers of one direction less than two pixels apart, in groups to draw as one mark."""
    groups: list[list[Mark]] = []
    open_group: dict[str, list[Mark]] = {}
    for m in marks:
        group = open_group.get(m.direction)
        if group is not None and (m.at_us - group[0].at_us) * scale < 2:
            group.append(m)
            continue
        group = [m]
        open_group[m.direction] = group
        groups.append(group)
    return groups


def timeline_figure(report: Report, element_id: str = "timeline-svg") -> Figure:
    """The timeline of one profiled run (``timeline_run``): a lane per provider, transfers marked with their
    bytes; a note instead of a drawing where there is no run to draw."""
    ev = report.evidence
    if ev.mode == "static":
        return Figure("", "Static evidence: no session ran, so there is no timeline; the copies above are predicted "
                          "from the model.")
    run = timeline_run(report)
    if run is None:
        return Figure("", "No profiled run was recorded, so there is no timeline.")
    events = sorted((e for e in ev.node_events if e.run == run.run), key=lambda e: (e.ts_us, e.name))
    if not events:
        return Figure("", f"The profile has no node events for run {run.run}, so there is no timeline.")
    marks, unplaced = timeline_marks(report, run, events)

    t0 = run.ts_us
    end = max([run.ts_us + run.dur_us] + [e.ts_us + e.dur_us for e in events] + [m.at_us for m in marks])
    start = min([t0] + [e.ts_us for e in events] + [m.at_us for m in marks])
    span = max(end - start, 1)
    left, plot_w, right = 96.0, 1000.0, 24.0
    scale = plot_w / span

    def x(t: float) -> float:
        return left + (t - start) * scale

    lanes = _lane_order([e.provider for e in events], ev.session.active_providers)
    lane_h, lane_gap, top = 26.0, 6.0, 8.0
    lane_y = {p: top + i * (lane_h + lane_gap) for i, p in enumerate(lanes)}
    transfer_y = top + len(lanes) * (lane_h + lane_gap)
    label_rows = 3
    transfer_h = 14.0 + label_rows * 13.0
    axis_y = transfer_y + transfer_h + 4
    legend_y = axis_y + 34
    width = left + plot_w + right
    height = legend_y + 10

    out = [_svg_open(element_id, width, height, f"Timeline of run {run.run}: nodes by provider, transfers with bytes")]
    out.append(f"<title>Run {run.run}: {len(events)} node events in {esc(fmt_us(run.dur_us))}; "
               f"{len(marks)} transfers</title>")
    out += _timeline_axis(x, start, span, top, axis_y, left, plot_w, run.run)
    # lane labels
    for p in lanes:
        out.append(f'<text class="lane" x="{num(left - 8)}" y="{num(lane_y[p] + lane_h / 2 + 4)}" text-anchor="end" '
                   f'font-weight="600">{esc(short(p))}</text>')
    out.append(f'<text class="lane" x="{num(left - 8)}" y="{num(transfer_y + 12)}" text-anchor="end" '
               f'font-weight="600">transfers</text>')

    drawn, rects, merged_rects = _timeline_nodes(events, lanes, lane_y, lane_h, x, scale, t0)
    out += drawn
    drawn, mark_groups = _timeline_transfers(marks, x, scale, t0, top, transfer_y, left, plot_w, label_rows)
    out += drawn
    out.extend(_legend(_timeline_legend(lanes, events, marks), left, legend_y))
    out.append("</svg>")

    note = _timeline_note(report, run, events, marks, mark_groups, merged_rects, unplaced)
    return Figure("".join(out), note, stats={"rects": rects, "merged_rects": merged_rects, "marks": len(marks),
                                             "mark_groups": len(mark_groups),
                                             "events": len(events)})


def _timeline_axis(x: Callable[[float], float], start: float, span: float, top: float, axis_y: float, left: float,
                   plot_w: float, run: int) -> list[str]:
    """The timeline's grid (a vertical line at each tick) and its time axis, ticks labelled in µs since the start."""
    out = []
    step = _nice_step(span)
    tick = 0.0
    out.append(f'<g stroke="{GRID}">')
    ticks = []
    while tick <= span + 1e-9:
        out.append(f'<line x1="{num(x(start + tick))}" y1="{num(top)}" x2="{num(x(start + tick))}" y2="{num(axis_y)}"/>')
        ticks.append(tick)
        tick += step
    out.append("</g>")
    out.append(f'<line x1="{num(left)}" y1="{num(axis_y)}" x2="{num(left + plot_w)}" y2="{num(axis_y)}" stroke="{MUTED}"/>')
    out.append(f'<g fill="{MUTED}" text-anchor="middle">')
    for tick in ticks:
        out.append(f'<text x="{num(x(start + tick))}" y="{num(axis_y + 14)}">{esc(f"{tick:g} µs")}</text>')
    out.append("</g>")
    out.append(f'<text x="{num(left + plot_w)}" y="{num(axis_y + 28)}" text-anchor="end" fill="{MUTED}">'
               f'time since the start of run {run} (µs)</text>')
    return out


def _timeline_nodes(events: list[NodeEvent], lanes: list[str], lane_y: dict[str, float], lane_h: float,
                    x: Callable[[float], float], scale: float, t0: float) -> tuple[list[str], int, int]:
    """The node events, a bar each in their provider's lane; with many events, neighbours narrower than a pixel
    drawn as one bar. Returns the SVG, the bars of one node and the merged bars."""
    out = []
    by_lane: dict[str, list[NodeEvent]] = defaultdict(list)
    for e in events:
        by_lane[e.provider].append(e)
    rects = 0
    merged_rects = 0
    for p in lanes:
        lane = by_lane[p]
        groups = _merge_events(lane, scale) if len(events) > MERGE_EVENTS_ABOVE else [[e] for e in lane]
        for group in groups:
            first, last = group[0], group[-1]
            x0 = x(first.ts_us)
            w = max((last.ts_us + last.dur_us - first.ts_us) * scale, 2.0)  # short kernels stay visible
            memcpy = next((e.op_type for e in group if e.op_type in MEMCPY_OPS), first.op_type)
            fill = provider_fill(p, memcpy)
            y = lane_y[p]
            if len(group) == 1:
                e = first
                tip = (f"{e.name} ({e.op_type}, {short(e.provider)}): {fmt_us(e.dur_us)} at +{fmt_us(e.ts_us - t0)}"
                       + (f", output {fmt_bytes(e.output_bytes)}" if e.output_bytes else ""))
                out.append(f'<g class="ev"><rect x="{num(x0)}" y="{num(y)}" width="{num(w)}" height="{num(lane_h)}" '
                           f'fill="{fill}"><title>{esc(tip)}</title></rect>')
                label = fit(e.name, w - 6)
                if label and w > 30:
                    out.append(f'<text x="{num(x0 + 3)}" y="{num(y + lane_h / 2 + 4)}" fill="#fff" '
                               f'pointer-events="none">{esc(label)}</text>')
                out.append("</g>")
                rects += 1
            else:
                busy = sum(e.dur_us for e in group)
                copies = sum(1 for e in group if e.op_type in MEMCPY_OPS)
                tip = (f"{len(group)} {short(p)} nodes{f' ({copies} Memcpy)' if copies else ''}, "
                       f"{first.name} … {last.name}: {fmt_us(busy)} of kernels "
                       f"between +{fmt_us(first.ts_us - t0)} and +{fmt_us(last.ts_us + last.dur_us - t0)}")
                out.append(f'<rect class="ev-merged" x="{num(x0)}" y="{num(y)}" width="{num(w)}" '
                           f'height="{num(lane_h)}" fill="{fill}" data-nodes="{len(group)}"><title>{esc(tip)}</title>'
                           f'</rect>')
                merged_rects += 1
    return out, rects, merged_rects


def _timeline_transfers(marks: list[Mark], x: Callable[[float], float], scale: float, t0: float, top: float,
                        transfer_y: float, left: float, plot_w: float,
                        label_rows: int) -> tuple[list[str], list[list[Mark]]]:
    """The transfers: a dashed line across the lanes, a triangle in the transfer lane (down: to the device), the
    bytes on the first of ``label_rows`` rows with room; with many transfers, those of one direction less than two
    pixels apart drawn as one mark. Returns the SVG and the marks' groups."""
    out = []
    rows_end = [-1e9] * label_rows
    mark_groups = _merge_marks(marks, scale) if len(marks) > MERGE_MARKS_ABOVE else [[m] for m in marks]
    for mark_group in mark_groups:
        m = mark_group[0]
        mx = x(m.at_us)
        fill = direction_fill(m.direction)
        known = [g.bytes for g in mark_group if g.bytes is not None]
        total = sum(known) if known else None
        size = "? bytes" if total is None else fmt_bytes(total)
        arrow = ARROW.get(m.direction, m.direction)
        if len(mark_group) == 1:
            what = KIND_LABEL.get(m.kind, m.kind)
            tip = (f"{what} {arrow}: {size}"
                   + (f", tensor {m.tensor}" if m.tensor else "") + (f", in node {m.node}" if m.node else "")
                   + f" at +{fmt_us(m.at_us - t0)}"
                   + (" (placed from the analysis, not traced)" if m.source == "analysis" else ""))
        else:
            tip = (f"{len(mark_group)} transfers {arrow}, {size} in all, between +{fmt_us(m.at_us - t0)} and "
                   f"+{fmt_us(mark_group[-1].at_us - t0)}: " + ", ".join(sorted({g.tensor or g.node for g in mark_group})[:5]))
        ty = transfer_y + 2
        tri = (f"{num(mx - 5)},{num(ty)} {num(mx + 5)},{num(ty)} {num(mx)},{num(ty + 9)}"
               if m.direction == "host_to_device" else
               f"{num(mx - 5)},{num(ty + 9)} {num(mx + 5)},{num(ty + 9)} {num(mx)},{num(ty)}")
        out.append(f'<g class="transfer" data-bytes="{"" if total is None else total}"'
                   + (f' data-transfers="{len(mark_group)}"' if len(mark_group) > 1 else "") + ">"
                   f'<title>{esc(tip)}</title>'
                   f'<line x1="{num(mx)}" y1="{num(top)}" x2="{num(mx)}" y2="{num(ty)}" stroke="{fill}" '
                   f'stroke-dasharray="3 2" stroke-width="1"/>'
                   f'<polygon points="{tri}" fill="{fill}"/>')
        text_w = len(size) * CHAR_W
        lx = min(max(mx - text_w / 2, left), left + plot_w - text_w)
        row = next((i for i in range(label_rows) if rows_end[i] < lx - 3), None)
        if row is not None:
            rows_end[row] = lx + text_w
            out.append(f'<text x="{num(lx)}" y="{num(ty + 22 + row * 13)}" fill="{fill}">{esc(size)}</text>')
        out.append("</g>")
    if not marks:
        out.append(f'<text x="{num(left + 4)}" y="{num(transfer_y + 12)}" fill="{MUTED}">'
                   f'no host↔device transfer in this run</text>')
    return out, mark_groups


def _timeline_legend(lanes: list[str], events: list[NodeEvent], marks: list[Mark]) -> list[tuple[str, str]]:
    """The timeline's legend: a node of each lane's provider, Memcpy nodes where there are some, the two
    directions of transfer, and device-to-device copies where there are some."""
    legend = [(f"{short(p)} node", provider_fill(p)) for p in lanes]
    if any(e.op_type in MEMCPY_OPS for e in events):
        legend.append(("Memcpy node", MEMCPY_FILL))
    legend += [("host→device transfer", H2D_FILL), ("device→host transfer", D2H_FILL)]
    if any(m.direction not in ("host_to_device", "device_to_host") for m in marks):
        legend.append(("device→device copy", D2D_FILL))
    return legend


def _timeline_note(report: Report, run: RunEvent, events: list[NodeEvent], marks: list[Mark],
                   mark_groups: list[list[Mark]], merged_rects: int, unplaced: int) -> str:
    """The note under the timeline: which run it draws, where its transfers come from, and what was merged or
    could not be placed."""
    ev = report.evidence
    source = ("the transfer census (every memcpy the driver performed, at the time it was issued)"
              if report.census is not None else
              "the analysis (Memcpy nodes at their node, feeds at the run's start, fetches at its end; not traced)")
    warm = sum(1 for r in ev.run_events if r.warmup)
    note = (f"Run {run.run} ({'the last traced' if report.census is not None else 'the last profiled'} run, "
            f"after {warm} warm-up run{'s' if warm != 1 else ''}): {len(events)} node events in {fmt_us(run.dur_us)}, "
            f"one lane per provider; transfers from {source}.")
    if merged_rects:
        note += (f" With {len(events)} node events, neighbouring nodes narrower than a pixel are drawn as one bar "
                 f"(its tooltip says how many).")
    if len(mark_groups) < len(marks):
        note += (f" With {len(marks)} transfers, transfers of one direction less than two pixels apart are drawn as "
                 f"one mark with their total bytes.")
    if unplaced:
        note += f" {unplaced} cop{'y' if unplaced == 1 else 'ies'} could not be placed (no node event in this run)."
    return note


# --- graph and CPU islands -------------------------------------------------------------------------------------


class Island(msgspec.Struct, frozen=True):
    """A connected component of CPU nodes in a session whose main provider is a device."""

    nodes: list[int]  # indices into evidence.nodes, in order of appearance
    names: list[str]
    neighbours: list[int]  # device nodes (Memcpy included) that feed it or read from it
    cpu_preferred: bool  # every node placed on CPU by ORT's choice (cpu_preferred), not for want of a kernel

    @property
    def label(self) -> str:
        """The island's caption: its node count, and whether ORT chose the CPU or fell back to it."""
        count = f"CPU island: {len(self.nodes)} node{'s' if len(self.nodes) != 1 else ''}"
        return count + (" (ORT's choice, not a fallback)" if self.cpu_preferred else " (fallback)")


class _Graph(msgspec.Struct, frozen=True):
    """The nodes drawn and their edges, by index."""

    nodes: list[RuntimeNode]
    succ: list[list[int]]
    pred: list[list[int]]
    edge_tensors: dict[tuple[int, int], list[str]]


def _graph(nodes: list[RuntimeNode]) -> _Graph:
    producer: dict[str, int] = {}
    for i, n in enumerate(nodes):
        for t in n.outputs:
            if t and t not in producer:
                producer[t] = i
    succ: list[list[int]] = [[] for _ in nodes]
    pred: list[list[int]] = [[] for _ in nodes]
    tensors: dict[tuple[int, int], list[str]] = {}
    for v, n in enumerate(nodes):
        for t in n.inputs:
            u = producer.get(t)
            if u is None or u == v:
                continue
            key = (u, v)
            if key not in tensors:
                tensors[key] = []
                succ[u].append(v)
                pred[v].append(u)
            if t not in tensors[key]:
                tensors[key].append(t)
    return _Graph(nodes, succ, pred, tensors)


def _is_cpu(n: RuntimeNode) -> bool:
    return n.provider == CPU and n.op_type not in MEMCPY_OPS


def find_islands(evidence: Evidence, graph: Optional[_Graph] = None) -> list[Island]:
    """CPU islands: connected components of CPU nodes, where the session's main provider is a device."""
    active = evidence.session.active_providers
    if not active or not is_device(active[0]):
        return []
    g = graph or _graph(evidence.nodes)
    nodes = g.nodes
    parent = list(range(len(nodes)))

    def root(i: int) -> int:
        while parent[i] != i:
            parent[i] = parent[parent[i]]
            i = parent[i]
        return i

    for (u, v) in g.edge_tensors:
        if _is_cpu(nodes[u]) and _is_cpu(nodes[v]):
            ru, rv = root(u), root(v)
            if ru != rv:
                parent[max(ru, rv)] = min(ru, rv)
    members: dict[int, list[int]] = defaultdict(list)
    for i, n in enumerate(nodes):
        if _is_cpu(n):
            members[root(i)].append(i)
    islands = []
    for idx in sorted(members.values(), key=lambda m: m[0]):
        inside = set(idx)
        around = sorted({j for i in idx for j in g.pred[i] + g.succ[i] if j not in inside})
        islands.append(Island(idx, [nodes[i].name for i in idx], around,
                              all(nodes[i].fallback_reason == "cpu_preferred" for i in idx)))
    return islands


def _topological(g: _Graph) -> list[int]:
    """Kahn's order, ties by first appearance; nodes on a cycle (never in ORT's graphs) go last."""
    indeg = [len(p) for p in g.pred]
    heap = [i for i, d in enumerate(indeg) if d == 0]
    heapq.heapify(heap)
    order: list[int] = []
    while heap:
        u = heapq.heappop(heap)
        order.append(u)
        for v in g.succ[u]:
            indeg[v] -= 1
            if indeg[v] == 0:
                heapq.heappush(heap, v)
    if len(order) < len(g.nodes):
        seen = set(order)
        order += [i for i in range(len(g.nodes)) if i not in seen]
    return order


class _Box(msgspec.Struct):
    """A box of the CPU-islands picture: one node, or a run of nodes drawn collapsed."""

    members: list[int]  # node indices
    collapsed: bool
    depth: int = 0
    row: int = 0
    x: float = 0.0
    y: float = 0.0


def _boxes(g: _Graph, order: list[int], islands: list[Island], collapse: bool) -> list[_Box]:
    if not collapse:
        return [_Box([i], False) for i in order]
    kept: set[int] = set()
    for island in islands:
        kept.update(island.nodes)
        kept.update(island.neighbours)
    for i, n in enumerate(g.nodes):
        if n.op_type in MEMCPY_OPS:
            kept.add(i)
            kept.update(g.pred[i])
            kept.update(g.succ[i])
    boxes: list[_Box] = []
    for i in order:
        if i in kept:
            boxes.append(_Box([i], False))
        elif boxes and boxes[-1].collapsed and g.nodes[boxes[-1].members[0]].provider == g.nodes[i].provider:
            boxes[-1].members.append(i)
        else:
            boxes.append(_Box([i], True))
    return boxes


class Layout(msgspec.Struct, frozen=True):
    """The graph laid out in boxes (one node, or a collapsed run of device nodes), by longest-path depth."""

    boxes: list[_Box]
    box_of: dict[int, int]  # node index -> box index (nodes of boxes left out are absent)
    edges: dict[tuple[int, int], list[str]]  # (box, box) -> tensors
    islands: list[Island]
    collapsed: bool
    truncated: int
    layers: dict[int, list[int]]


def graph_layout(evidence: Evidence) -> Layout:
    """Longest-path layering of the graph ORT ran; within a layer, order of first appearance in ``evidence.nodes``.

    Above ``COLLAPSE_ABOVE`` nodes, runs of device nodes that are not CPU islands, Memcpy nodes or their immediate
    neighbours are collapsed into one box each (runs are consecutive in topological order, so the boxes still form
    an acyclic graph); at most ``MAX_BOXES`` boxes are kept.
    """
    g = _graph(evidence.nodes)
    islands = find_islands(evidence, g)
    order = _topological(g)
    collapse = len(evidence.nodes) > COLLAPSE_ABOVE
    boxes = _boxes(g, order, islands, collapse)
    truncated = 0
    if len(boxes) > MAX_BOXES:
        truncated = len(boxes) - MAX_BOXES
        boxes = boxes[:MAX_BOXES]
    box_of: dict[int, int] = {}
    for b, box in enumerate(boxes):
        for i in box.members:
            box_of[i] = b
    # edges between boxes (forward in order: boxes are intervals of the topological order)
    box_edges: dict[tuple[int, int], list[str]] = {}
    for (u, v), tensors in g.edge_tensors.items():
        bu, bv = box_of.get(u), box_of.get(v)
        if bu is None or bv is None or bu == bv:
            continue
        box_edges.setdefault((bu, bv), []).extend(tensors)
    preds: list[list[int]] = [[] for _ in boxes]
    for (bu, bv) in box_edges:
        preds[bv].append(bu)
    for b, box in enumerate(boxes):  # longest-path layering
        box.depth = max((boxes[p].depth + 1 for p in preds[b] if p < b), default=0)
    layers: dict[int, list[int]] = defaultdict(list)
    for b, box in enumerate(boxes):
        layers[box.depth].append(b)
    for members in layers.values():  # within a layer: order of first appearance in the graph
        members.sort(key=lambda b: min(boxes[b].members))
        for row, b in enumerate(members):
            boxes[b].row = row
    return Layout(boxes, box_of, box_edges, islands, collapse, truncated, layers)


def islands_figure(report: Report, element_id: str = "islands-svg") -> Figure:
    """The graph drawn by placement, CPU islands marked; a note instead of a drawing where the evidence has no
    placement or the session has no device."""
    ev = report.evidence
    nodes = ev.nodes
    if not nodes:
        return Figure("", "The evidence has no placement of the graph's nodes, so there is nothing to draw.")
    active = ev.session.active_providers
    predicted = " (predicted placement)" if ev.mode == "static" else ""
    if not active or not is_device(active[0]):
        return Figure("", f"{short(active[0]) if active else 'CPU'}-only session: every node is placed on the host, "
                          f"so there are no CPU islands and no host↔device copies between nodes.")
    lay = graph_layout(ev)
    boxes, box_of, box_edges, islands, layers = lay.boxes, lay.box_of, lay.edges, lay.islands, lay.layers
    collapse, truncated = lay.collapsed, lay.truncated

    box_w, box_h, col_w, row_h = 126.0, 34.0, 154.0, 64.0
    margin_x, margin_top = 12.0, 30.0
    for box in boxes:
        box.x = margin_x + box.depth * col_w
        box.y = margin_top + box.row * row_h
    depth_count = max(layers) + 1
    rows = max(len(m) for m in layers.values())
    legend_y = margin_top + rows * row_h + 8
    width = margin_x * 2 + (depth_count - 1) * col_w + box_w
    width = max(width, 560.0)
    height = legend_y + 12

    out = [_svg_open(element_id, width, height,
                     f"The graph ORT ran{predicted}: {len(nodes)} nodes by provider, {len(islands)} CPU "
                     f"island{'s' if len(islands) != 1 else ''}")]
    out.append(f"<title>The graph ORT ran{esc(predicted)}: {len(nodes)} nodes, {len(islands)} CPU "
               f"island{'s' if len(islands) != 1 else ''}</title>")
    # island highlights behind everything
    drawn, island_boxes = _island_highlights(islands, boxes, box_of, box_w, box_h)
    out += drawn
    out += _box_edges(box_edges, boxes, box_w, box_h)
    # nodes
    drawn_nodes = 0
    for box in boxes:
        if box.collapsed:
            out.append(_collapsed_box(box, nodes, box_w, box_h))
            continue
        out.append(_node_box(nodes[box.members[0]], box, box_w, box_h))
        drawn_nodes += 1
    legend = [(f"{short(active[0])} node", DEVICE_FILL), ("CPU node", CPU_FILL), ("Memcpy node", MEMCPY_FILL)]
    out.extend(_legend(legend, margin_x, legend_y))
    lx = margin_x + sum(28 + len(label) * CHAR_W for label, _ in legend)
    out.append(f'<rect x="{num(lx)}" y="{num(legend_y - 9)}" width="14" height="10" fill="{ISLAND_FILL}" '
               f'stroke="{ISLAND_STROKE}" stroke-dasharray="3 2"/><text x="{num(lx + 18)}" y="{num(legend_y)}">'
               f'CPU island</text>')
    out.append("</svg>")

    note = _islands_note(islands, nodes, active, predicted, collapse, truncated)
    return Figure("".join(out), note, wide=width > WIDE_ABOVE,
                  stats={"boxes": len(boxes), "nodes_drawn": drawn_nodes, "islands": len(islands),
                         "island_boxes": island_boxes, "edges": len(box_edges),
                         "collapsed": sum(1 for b in boxes if b.collapsed)})


def _island_highlights(islands: list[Island], boxes: list[_Box], box_of: dict[int, int], box_w: float,
                       box_h: float) -> tuple[list[str], int]:
    """A dashed, labelled rectangle around the boxes of each CPU island that is drawn, to go behind everything.
    Returns the SVG and the islands drawn."""
    out = []
    island_boxes = 0
    for island in islands:
        drawn = [boxes[box_of[i]] for i in island.nodes if i in box_of]
        if not drawn:
            continue
        x0 = min(b.x for b in drawn) - 8
        y0 = min(b.y for b in drawn) - 8
        x1 = max(b.x for b in drawn) + box_w + 8
        y1 = max(b.y for b in drawn) + box_h + 8
        names = ", ".join(island.names[:8]) + (f", … ({len(island.names)} in all)" if len(island.names) > 8 else "")
        out.append(f'<g class="island" data-nodes="{len(island.nodes)}"><title>{esc(island.label)}: {esc(names)}'
                   f'</title><rect x="{num(x0)}" y="{num(y0)}" width="{num(x1 - x0)}" height="{num(y1 - y0)}" rx="6" '
                   f'fill="{ISLAND_FILL}" stroke="{ISLAND_STROKE}" stroke-width="1.5" stroke-dasharray="5 3"/>'
                   f'<text x="{num(x0 + 2)}" y="{num(y0 - 5)}" fill="{ISLAND_STROKE}" font-weight="600">'
                   f'{esc(island.label)}</text></g>')
        island_boxes += 1
    return out, island_boxes


def _box_edges(box_edges: dict[tuple[int, int], list[str]], boxes: list[_Box], box_w: float,
               box_h: float) -> list[str]:
    """The edges between boxes, a curve each (its tensors in the tooltip unless both ends are collapsed), then an
    arrow head at each edge's end."""
    out = ['<g fill="none" stroke="#8a8a8a" stroke-width="1.2">']
    for (bu, bv), tensors in box_edges.items():
        a, b = boxes[bu], boxes[bv]
        x1, y1 = a.x + box_w, a.y + box_h / 2
        x2, y2 = b.x, b.y + box_h / 2
        mid = (x1 + x2) / 2
        shown = ", ".join(tensors[:4]) + (" …" if len(tensors) > 4 else "")
        tip = "" if a.collapsed and b.collapsed else f"<title>{esc(shown)}</title>"
        out.append(f'<path d="M{num(x1)} {num(y1)}C{num(mid)} {num(y1)} {num(mid)} {num(y2)} {num(x2)} {num(y2)}">'
                   f'{tip}</path>')
    out.append("</g>")
    # arrow heads: a small triangle at each edge's end
    out.append('<g fill="#8a8a8a">')
    for (bu, bv) in box_edges:
        b = boxes[bv]
        x2, y2 = b.x, b.y + box_h / 2
        out.append(f'<polygon points="{num(x2)},{num(y2)} {num(x2 - 6)},{num(y2 - 3.5)} {num(x2 - 6)},{num(y2 + 3.5)}"/>')
    out.append("</g>")
    return out


def _collapsed_box(box: _Box, nodes: list[RuntimeNode], box_w: float, box_h: float) -> str:
    """A run of nodes drawn collapsed: a stacked box with their count, the first and last named in the tooltip
    with the most frequent ops."""
    first = nodes[box.members[0]]
    count = len(box.members)
    label = f"{count} {short(first.provider)} node{'s' if count != 1 else ''}"
    ops: dict[str, int] = defaultdict(int)
    for i in box.members:
        ops[nodes[i].op_type] += 1
    top_ops = ", ".join(f"{op} {k}" for op, k in sorted(ops.items(), key=lambda item: -item[1])[:6])
    last = nodes[box.members[-1]]
    tip = f"{label}, collapsed: {first.name} … {last.name}; ops: {top_ops}"
    fill = provider_fill(first.provider)
    return (f'<g class="collapsed" data-nodes="{count}"><title>{esc(tip)}</title>'
            f'<rect x="{num(box.x + 4)}" y="{num(box.y - 4)}" width="{num(box_w)}" height="{num(box_h)}" '
            f'rx="4" fill="{fill}" opacity="0.45"/>'
            f'<rect x="{num(box.x)}" y="{num(box.y)}" width="{num(box_w)}" height="{num(box_h)}" rx="4" '
            f'fill="{fill}"/><text x="{num(box.x + box_w / 2)}" y="{num(box.y + box_h / 2 + 4)}" '
            f'text-anchor="middle" fill="#fff" font-weight="600">{esc(label)}</text></g>')


def _node_box(n: RuntimeNode, box: _Box, box_w: float, box_h: float) -> str:
    """One node's box, in its provider's colour (Memcpy nodes dashed, subgraph nodes dotted): its name, op and
    provider, with why it is on CPU, where it is, in the tooltip."""
    fill = provider_fill(n.provider, n.op_type)
    op = n.op_type if not n.domain else f"{n.domain}:{n.op_type}"
    why = ""
    if n.provider == CPU and n.fallback_reason:
        why = "; on CPU: " + (n.fallback_detail or n.fallback_reason)
    tip = (f"{n.name} ({op}) on {short(n.provider) if n.provider else '?'}"
           + (f", in {n.graph}" if n.graph else "") + why
           + ("; inputs: " + ", ".join(n.inputs[:6]) if n.inputs else "")
           + ("; outputs: " + ", ".join(n.outputs[:6]) if n.outputs else ""))
    cls = "memcpy" if n.op_type in MEMCPY_OPS else ("cpu" if n.provider == CPU else "node")
    dash = ' stroke="#fff" stroke-width="2" stroke-dasharray="4 2"' if n.op_type in MEMCPY_OPS else ""
    sub = ' stroke-dasharray="2 2" stroke="#333"' if n.graph else ""
    return (f'<g class="{cls}"><title>{esc(tip)}</title>'
            f'<rect x="{num(box.x)}" y="{num(box.y)}" width="{num(box_w)}" height="{num(box_h)}" rx="4" '
            f'fill="{fill}"{dash or sub}/>'
            f'<text x="{num(box.x + 6)}" y="{num(box.y + 14)}" fill="#fff" font-weight="600">'
            f'{esc(fit(n.name, box_w - 10))}</text>'
            f'<text x="{num(box.x + 6)}" y="{num(box.y + 27)}" fill="#fff" font-size="10">'
            f'{esc(fit(op + " · " + (short(n.provider) if n.provider else "?"), box_w - 10))}</text></g>')


def _islands_note(islands: list[Island], nodes: list[RuntimeNode], active: list[str], predicted: str, collapse: bool,
                  truncated: int) -> str:
    """The note under the graph: its CPU islands (the first six named) or that there are none, what the Memcpy
    nodes are, and how the graph was laid out, collapsed or cut short."""
    if islands:
        parts = []
        for island in islands[:6]:
            names = ", ".join(island.names[:3]) + (" …" if len(island.names) > 3 else "")
            parts.append(f"{names} ({len(island.nodes)} node{'s' if len(island.nodes) != 1 else ''}"
                         f"{', ORT chose CPU for speed' if island.cpu_preferred else ', no device kernel'})")
        more = f" and {len(islands) - 6} more" if len(islands) > 6 else ""
        note = (f"{len(islands)} CPU island{'s' if len(islands) != 1 else ''}{predicted}: " + "; ".join(parts) + more
                + ".")
    else:
        note = f"No CPU islands{predicted}: no node of the graph runs on the CPU between {short(active[0])} nodes."
    if any(n.op_type in MEMCPY_OPS for n in nodes):
        note += " Memcpy nodes (red, dashed outline) are the copies ORT inserted between host and device memory."
    note += f" Laid out left to right by depth in the graph ({len(nodes)} nodes)."
    if collapse:
        note += (f" Above {COLLAPSE_ABOVE} nodes, runs of device nodes away from the islands are collapsed into one "
                 f"box each (its tooltip names the first and last).")
    if truncated:
        note += f" Only the first {MAX_BOXES} boxes are drawn ({truncated} more left out)."
    return note
