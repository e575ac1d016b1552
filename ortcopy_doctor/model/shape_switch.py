"""The cost of a change of input shape of a CUDA session (issue 33, the replay): where the session's calls at shapes
it had run before are much slower in the program than the same calls when the shape repeats (replayed after the
program), and the replay measured the calls with the shape changing at every call, each change costs the difference:
ORT searches cuDNN's convolution algorithms again (cudnn_conv_algo_search EXHAUSTIVE, its default). The verdict names
the largest as the largest removable cost (report/pipeline.py), and run rule OCD109 each of them. In model/ (a query
of the report's types), as the rules read it and the renderers import the rules.
"""

from __future__ import annotations

from ortcopy_doctor.model.providers import is_device
from ortcopy_doctor.model.pipeline import Pipeline, SwitchCost, fmt_ms
from ortcopy_doctor.model.replay import SessionReplay

# A session's calls at shapes it had run before are a change-of-shape cost where they take this many times as long as
# the same calls when the shape repeats (the replay), and at least SWITCH_MIN_EXCESS_MS more.
SWITCH_MIN_RATIO = 3.0
SWITCH_MIN_EXCESS_MS = 5.0


def shape_switch_costs(p: Pipeline, replays: dict[str, SessionReplay]) -> list[SwitchCost]:
    """Each session of ``p`` whose calls at shapes it had run before are much slower in the program than the same
    calls when the shape repeats (the replay), where the replay measured the calls when the shape changes at every
    call: the cost of each change of shape, its cause and its measured fix, in the pipeline's order."""
    found: list[SwitchCost] = []
    for session in p.sessions:
        replay = replays.get(session)
        later = next((c.steady_median_ms for c in p.new_shapes if c.session == session
                      and c.steady_median_ms is not None), None)
        steady = replay.steady_ms() if replay is not None else None
        if replay is None or later is None or steady is None or not replay.switch:
            continue
        if later < SWITCH_MIN_RATIO * steady or later - steady < SWITCH_MIN_EXCESS_MS:
            continue
        found.append(SwitchCost(session=session, extra_ms=later - steady, words=_words(session, later, steady, replay)))
    return found


def _words(session: str, later: float, steady: float, replay: SessionReplay) -> str:
    timings = {t.option: t.median_ms for t in replay.switch}
    exhaustive, heuristic = timings.get("EXHAUSTIVE"), timings.get("HEURISTIC")
    words = (f"every change of input shape of {session} costs about {fmt_ms(later - steady)} ms: its calls at shapes "
             f"it had run before take {fmt_ms(later)} ms (median) in the program, {fmt_ms(steady)} ms when the shape "
             "repeats (replayed); ORT searches cuDNN's convolution algorithms again at each change "
             "(cudnn_conv_algo_search EXHAUSTIVE, its default)")
    cpu = sorted(c.other.median_ms for c in replay.shapes if not is_device(c.other.provider))
    cpu_ms = cpu[len(cpu) // 2] if cpu else None
    pad = f"pad the inputs to one shape ({fmt_ms(steady)} ms per call when it repeats)"
    if exhaustive is not None and heuristic is not None and heuristic < 0.9 * exhaustive:
        words += (f"; replayed with the shape changing at every call: {fmt_ms(exhaustive)} ms per call with "
                  f"EXHAUSTIVE, {fmt_ms(heuristic)} ms with HEURISTIC")
        heuristic_fix = ("create the session with providers=[('CUDAExecutionProvider', "
                         "{'cudnn_conv_algo_search': 'HEURISTIC'}), 'CPUExecutionProvider']")
        if cpu_ms is not None and cpu_ms < heuristic:
            words += (f", and {fmt_ms(cpu_ms)} ms on the CPU: {pad}; else the CPU provider beats CUDA for "
                      f"this session while its shapes vary ({heuristic_fix} still costs {fmt_ms(heuristic)} ms "
                      "per change)")
        else:
            words += f": {heuristic_fix}, or {pad}"
    else:
        words += f"; {pad} (or a few), so that the shape repeats"
        if cpu_ms is not None and cpu_ms < later:
            words += f", or run it on the CPU ({fmt_ms(cpu_ms)} ms per call at these shapes)"
    return words


__all__ = ["SWITCH_MIN_EXCESS_MS", "SWITCH_MIN_RATIO", "SwitchCost", "shape_switch_costs"]
