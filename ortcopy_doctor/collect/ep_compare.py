"""Time one model on two execution providers with the same inputs, in turn: which is faster at these inputs.

The measurement that ``run``'s providers audit replays each session's calls with (watch/replay.py), and that
``check`` is meant to share for its GPU-or-CPU break-even (issue 34). Each provider gets a session of its own made
with the same session options; the first call of each is timed apart (allocation, cuDNN's algorithm search), a few
more are left out, then the two run in turn, one call each per round, the order alternating, until the time budget
or the round limit is spent. numpy in and numpy out, as a program that does not bind calls them: the copies are in
the times. The ratio of the medians gets a paired bootstrap interval (analysis/stats.ratio_ci).
"""

from __future__ import annotations

import time
from collections.abc import Mapping, Sequence
from typing import Any

import numpy as np

from ortcopy_doctor.analysis.stats import list_median, ratio_ci
from ortcopy_doctor.model.replay import ProviderTiming, SearchTiming, ShapeComparison, SwitchTiming

WARM_UP = 3  # calls left out after the first, per provider
MIN_ROUNDS = 5
MAX_ROUNDS = 60
BUDGET_S = 2.0  # per signature, both providers together


def _timed(session: Any, feeds: Mapping[str, np.ndarray]) -> float:
    start = time.perf_counter()
    session.run(None, dict(feeds))
    return (time.perf_counter() - start) * 1e3


def compare_providers(used: Any, other: Any, feeds: Mapping[str, np.ndarray], *, shape: str, program_calls: int,
                      budget_s: float = BUDGET_S, max_rounds: int = MAX_ROUNDS) -> ShapeComparison:
    """``used`` and ``other`` (two sessions of one model on different providers) at ``feeds``, timed in turn."""
    first = {"used": _timed(used, feeds), "other": _timed(other, feeds)}
    for _ in range(WARM_UP):
        _timed(used, feeds)
        _timed(other, feeds)
    samples: dict[str, list[float]] = {"used": [], "other": []}
    deadline = time.perf_counter() + budget_s
    rounds = 0
    while rounds < max_rounds and (rounds < MIN_ROUNDS or time.perf_counter() < deadline):
        order = ("used", "other") if rounds % 2 == 0 else ("other", "used")
        for side in order:
            samples[side].append(_timed(used if side == "used" else other, feeds))
        rounds += 1
    ci = ratio_ci(samples["used"], samples["other"])

    def timing(side: str, session: Any) -> ProviderTiming:
        return ProviderTiming(provider=session.get_providers()[0], first_ms=round(first[side], 4),
                              median_ms=round(list_median(samples[side]), 4),
                              samples_ms=[round(s, 4) for s in samples[side]])

    return ShapeComparison(shape=shape, program_calls=program_calls, used=timing("used", used),
                           other=timing("other", other), ratio=round(ci.ratio, 4), ratio_low=round(ci.low, 4),
                           ratio_high=round(ci.high, 4))


def first_and_steady(session: Any, feeds: Mapping[str, np.ndarray], option: str, budget_s: float = 1.0,
                     max_runs: int = 30) -> SearchTiming:
    """A fresh session's first run at ``feeds`` timed apart, then three left out, then runs until ``budget_s``
    (``MIN_ROUNDS`` at least, ``max_runs`` at most)."""
    first = _timed(session, feeds)
    for _ in range(WARM_UP):
        _timed(session, feeds)
    samples: list[float] = []
    deadline = time.perf_counter() + budget_s
    while len(samples) < max_runs and (len(samples) < MIN_ROUNDS or time.perf_counter() < deadline):
        samples.append(_timed(session, feeds))
    return SearchTiming(option=option, first_ms=round(first, 4), median_ms=round(list_median(samples), 4),
                        samples_ms=[round(v, 4) for v in samples])


SWITCH_ROUNDS = 3  # each signature this many times, in turn, after one call of each


def switch_cost(session: Any, feeds_list: Sequence[Mapping[str, np.ndarray]], option: str,
                rounds: int = SWITCH_ROUNDS) -> SwitchTiming:
    """``session``'s calls when the shape changes at every call: each of ``feeds_list`` run once, then all of them
    in turn ``rounds`` times, every call timed (``option``: the cudnn_conv_algo_search the session was made with)."""
    for feeds in feeds_list:
        _timed(session, feeds)
    samples = [_timed(session, feeds) for _ in range(rounds) for feeds in feeds_list]
    return SwitchTiming(option=option, median_ms=round(list_median(samples), 4),
                        samples_ms=[round(v, 4) for v in samples])


def shape_text(feeds: Mapping[str, np.ndarray], order: Sequence[str]) -> str:
    """Each input's shape in ``order`` (``1x3x320x320, 1``; a scalar is ``scalar``)."""
    return ", ".join("x".join(str(d) for d in feeds[n].shape) or "scalar" for n in order if n in feeds)


__all__ = ["BUDGET_S", "compare_providers", "first_and_steady", "shape_text", "switch_cost"]
