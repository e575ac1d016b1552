"""The timeline of one iteration of a program's loop as inline SVG, for the run's HTML report: a lane for the host
code, one per session, one for the uploads (host→device) and one for the downloads (device→host), on the program's
clock (``render.run_timeline``), with each stage's name, time, input shapes and bytes in its tooltip.

Names come from the program and its models: every text node and attribute value goes through ``svg.esc``; the only
other things written into the markup are numbers formatted here and constant strings.
"""

from __future__ import annotations

from ortcopy_doctor.model.format import fmt_bytes
from ortcopy_doctor.model.pipeline import fmt_ms
from ortcopy_doctor.render.run_timeline import IterationSpan, RunTimeline, TransferMark
from ortcopy_doctor.render.svg import (
    D2H_FILL,
    DEVICE_FILL,
    FONT,
    GRID,
    H2D_FILL,
    INK,
    MUTED,
    esc,
    fit,
    num,
)

HOST_FILL = "#f28e2b"  # the program's own code: the colour the check report gives the CPU
LEFT, PLOT_W, RIGHT, LANE_H, TOP = 150.0, 720.0, 16.0, 24.0, 22.0


def _step(span_ms: float) -> float:
    """A tick step of 1, 2 or 5 times a power of ten giving about six ticks over ``span_ms``."""
    raw, power = max(span_ms / 6, 1e-6), 1e-6
    while power * 10 <= raw:
        power *= 10
    return next(f * power for f in (1, 2, 5, 10) if raw <= f * power)


def iteration_svg(timeline: RunTimeline, iteration: IterationSpan, element_id: str, title: str) -> str:
    """One iteration's lanes as an ``<svg>`` element (its calls, the host code between them, its copies)."""
    start, span = iteration.start_ns, max(1, iteration.end_ns - iteration.start_ns)
    scale = PLOT_W / span
    seqs = set(iteration.calls)
    calls = [c for c in timeline.calls if c.seq in seqs]
    sessions = list(dict.fromkeys(c.session for c in calls))
    lanes = ["host code"] + [f"session {timeline.sessions[s]}" for s in sessions] + ["uploads", "downloads"]
    lane_of = {s: 1 + i for i, s in enumerate(sessions)}
    height = TOP + LANE_H * len(lanes) + 8

    def x(t: int) -> float:
        return LEFT + (min(max(t, start), start + span) - start) * scale

    out = [f'<svg id="{esc(element_id)}" class="figure-svg" role="img" aria-label="{esc(title)}" '
           f'viewBox="0 0 {num(LEFT + PLOT_W + RIGHT)} {num(height)}" width="{num(LEFT + PLOT_W + RIGHT)}" '
           f'height="{num(height)}" {FONT} font-size="11" fill="{INK}">']
    step = _step(span / 1e6)
    tick = 0.0
    while tick * 1e6 <= span:
        tx = LEFT + tick * 1e6 * scale
        out.append(f'<line x1="{num(tx)}" y1="{num(TOP - 4)}" x2="{num(tx)}" y2="{num(height - 8)}" stroke="{GRID}"/>'
                   f'<text x="{num(tx)}" y="{num(TOP - 8)}" text-anchor="middle" fill="{MUTED}">'
                   f'{esc(f"{tick:g} ms")}</text>')
        tick += step
    for i, name in enumerate(lanes):
        y = TOP + LANE_H * i
        out.append(f'<text x="4" y="{num(y + 15)}">{esc(fit(name, LEFT - 8))}<title>{esc(name)}</title></text>')
    for h in timeline.hosts:
        if h.before_seq not in seqs or h.start_ns >= start + span:  # the host code after each of its calls
            continue
        _bar(out, x(h.start_ns), x(h.end_ns), TOP, HOST_FILL,
             f"{h.name}: {fmt_ms((min(h.end_ns, start + span) - max(h.start_ns, start)) / 1e6)} ms")
    for c in calls:
        words = (f"{c.label}: {c.method}, {fmt_ms((c.end_ns - c.start_ns) / 1e6)} ms; inputs {c.shape or '?'}, "
                 f"{fmt_bytes(c.input_bytes)} in, {fmt_bytes(c.output_bytes)} out; {fmt_bytes(c.h2d_bytes)} "
                 f"host→device, {fmt_bytes(c.d2h_bytes)} device→host")
        _bar(out, x(c.start_ns), x(c.end_ns), TOP + LANE_H * lane_of[c.session], DEVICE_FILL, words)
    groups: list[tuple[bool, float, list[TransferMark]]] = []  # marks of one lane less than 3 px apart: one mark
    for m in timeline.transfers:
        if m.seq not in seqs:
            continue
        up, mx = m.direction == "host_to_device", x(m.at_ns)
        same = [g for g in groups if g[0] == up and mx - g[1] < 3]
        if same:
            same[-1][2].append(m)
        else:
            groups.append((up, mx, [m]))
    for up, mx, marks in groups:
        y = TOP + LANE_H * (len(lanes) - (2 if up else 1))
        words = "; ".join(f"{'upload' if up else 'download'} ({m.how}): {m.tensor} of {m.session}, "
                          f"{fmt_bytes(m.bytes)}, at {fmt_ms((m.at_ns - start) / 1e6)} ms" for m in marks)
        out.append(f'<rect x="{num(mx - 1.5)}" y="{num(y + 3)}" width="3" height="{num(LANE_H - 6)}" '
                   f'fill="{H2D_FILL if up else D2H_FILL}"><title>{esc(words)}</title></rect>')
        label = fit(fmt_bytes(sum(m.bytes or 0 for m in marks)), LEFT + PLOT_W - mx - 4)
        if label:
            out.append(f'<text x="{num(mx + 4)}" y="{num(y + 15)}" fill="{MUTED}">{esc(label)}</text>')
    out.append("</svg>")
    return "".join(out)


def _bar(out: list[str], x0: float, x1: float, y: float, fill: str, words: str) -> None:
    """One stage: a rect at least a pixel wide, its words in its tooltip and, where they fit, on it."""
    width = max(1.0, x1 - x0)
    out.append(f'<rect x="{num(x0)}" y="{num(y + 3)}" width="{num(width)}" height="{num(LANE_H - 6)}" rx="2" '
               f'fill="{fill}"><title>{esc(words)}</title></rect>')
    label = fit(words.split(":", 1)[0] if fill != HOST_FILL else words.rsplit(": ", 1)[-1], width - 4)
    if label:
        out.append(f'<text x="{num(x0 + 2)}" y="{num(y + 15)}" fill="#ffffff">{esc(label)}</text>')


__all__ = ["iteration_svg"]
