"""The program's loop: which session calls repeat, where each iteration starts, and what each iteration spends.

``ortcopy-doctor run`` records every session call of a program in order (watch/program.py). Serving code calls its
sessions in a loop (detector, then the classifier once per box, then the recogniser once or twice: ``det, cls, cls,
cls, rec, rec``), with numpy or OpenCV between them; whether a tensor passes unchanged from one session to the next
says nothing about whether they are stages of one loop (an OCR package cuts each crop from the original image). This
module finds the loop from the order of the calls alone, as plain data in and out (no onnxruntime, no watch):

* a call is known by its *key*: its session and its call site (the user's ``file:function:line`` that called it),
  so a warm-up call made from another line than the loop's is told apart from the loop's own calls;
* for each key called at least twice (the candidate *head*), the calls are cut at each call of that key into
  segments; each segment's *pattern* is its keys in order of first appearance. The most common pattern of the
  complete segments (of two equally common, the longer) is the loop's; the loop starts at the first segment with
  that pattern, or at an earlier segment whose calls are all made in it (an iteration with fewer calls), its
  members are the keys of the complete segments from there on, and its last iteration runs from the head's last
  call up to the first call of a key that is no member (or the end of the calls);
* the head whose loop covers the most calls wins (of equal ones, the earliest); the calls before and after it are
  searched the same way, so a program with two loops one after the other (detector and classifier, then a
  streaming cell) has two. Calls outside every loop are shown apart: those before a loop as its calls *before the
  loop* (warm-up, initialisation), those after the last loop as its calls *after the loop*. Where no key repeats,
  all the calls are one iteration of one loop.

Times are on the *program's clock*: the caller takes the recorder's own time out of every timestamp, so that an
iteration (from the start of its head call to the start of the next iteration's head call) is exactly the sum of
its stages: each call, and each host stretch between the end of one call and the start of the next.
"""

from __future__ import annotations

import msgspec
import statistics
from collections import Counter
from collections.abc import Sequence
from typing import Optional


Key = tuple[int, str]  # (session, call site)

CALL = "call"
HOST = "host"


class LoopCall(msgspec.Struct, frozen=True):
    """One session call, in the program's order, on the program's clock (ns, the recorder's own time taken out)."""

    session: int
    start_ns: int
    end_ns: int
    shape: str = ""  # the call's input shapes as one text ("1x3x960x544"); "" where unknown
    site: str = ""  # the user's code that made the call (file:function:line); "" where unknown
    h2d_bytes: int = 0  # bytes the call copies host->device (its inputs' uploads)
    d2h_bytes: int = 0  # bytes it copies device->host (its outputs' downloads)

    @property
    def key(self) -> Key:
        """(session, call site): what tells the calls of a loop apart."""
        return (self.session, self.site)


class Stage(msgspec.Struct, frozen=True):
    """One stretch of an iteration: a call (``kind`` "call") or the host time between two calls (``kind`` "host")."""

    kind: str
    start_ns: int
    end_ns: int
    call: int = -1  # a call: its index in the calls; a host stretch: the index of the call before it
    next_call: int = -1  # a host stretch: the index of the call after it

    @property
    def ns(self) -> int:
        """Its duration on the program's clock."""
        return self.end_ns - self.start_ns


class Iteration(msgspec.Struct, frozen=True):
    """One iteration of a loop: its calls (indices into the calls) and its stages, in order. ``end_ns`` is the start
    of the next iteration's first call; the last iteration has none (its last host stretch is not measured)."""

    index: int
    calls: list[int]
    stages: list[Stage]
    start_ns: int
    end_ns: Optional[int] = None

    @property
    def ns(self) -> Optional[int]:
        """From the start of its first call to the start of the next iteration's (None for the last iteration)."""
        return None if self.end_ns is None else self.end_ns - self.start_ns


class Loop(msgspec.Struct, frozen=True):
    """A loop of the program: the key each iteration starts with, its sessions in order of first call, its
    iterations, and the calls outside every loop shown with it (``before``: warm-up or initialisation before it;
    ``after``: calls after the program's last loop), each as stages."""

    head: Key
    sessions: list[int]
    iterations: list[Iteration]
    before: list[Stage]
    after: list[Stage]

    @property
    def complete(self) -> list[Iteration]:
        """The iterations whose end is known (every one but the last)."""
        return [it for it in self.iterations if it.end_ns is not None]

    @property
    def steady(self) -> list[Iteration]:
        """The complete iterations after the first, which is shown apart."""
        return [it for it in self.complete if it.index > 0]


class StageSummary(msgspec.Struct, frozen=True):
    """One row of a loop's stage table: a call key or a host stretch between two call keys, over the steady
    iterations. ``total_ns`` of all rows adds up to the steady iterations' time exactly."""

    kind: str
    session: int  # a call: its session; a host stretch: the session of the call after it
    site: str  # a call: its site; a host stretch: the site of the call after it
    before_session: int  # a host stretch: the session and site of the call before it (-1, "" for a call)
    before_site: str
    count: int
    total_ns: int
    median_ns: float
    per_iteration_ns: float  # total_ns over the steady iterations


class ShapeFirst(msgspec.Struct, frozen=True):
    """The first call of a session at an input shape, its time, and the median of its later calls at that shape."""

    call: int  # index into the calls
    session: int
    shape: str
    ns: int
    later_median_ns: Optional[float]  # None where no later call had that shape
    later_calls: int
    # the median of the session's calls that were no first call at their shape (None where there is none)
    steady_median_ns: Optional[float] = None


# --- finding the loops ---------------------------------------------------------------------------------------------


class _Found(msgspec.Struct, frozen=True):
    head: Key
    start: int  # index of the loop's first call
    end: int  # one past its last call
    heads: list[int]  # index of each iteration's first call


def _candidate(keys: Sequence[Key], lo: int, hi: int, head: Key) -> Optional[_Found]:
    """The loop that starts at each call of ``head`` in keys[lo:hi] (module doc), or None where it has one call."""
    positions = [i for i in range(lo, hi) if keys[i] == head]
    if len(positions) < 2:
        return None
    segments = list(zip(positions, positions[1:]))
    patterns = [tuple(dict.fromkeys(keys[a:b])) for a, b in segments]
    counts = Counter(patterns)
    main = max(counts, key=lambda p: (counts[p], len(p)))
    first = patterns.index(main)
    members = {k for p in patterns[first:] for k in p}
    while first > 0 and set(patterns[first - 1]) <= members:  # an earlier iteration with fewer calls (no box found)
        first -= 1
    end = positions[-1] + 1
    while end < hi and keys[end] in members:
        end += 1
    return _Found(head=head, start=segments[first][0], end=end, heads=positions[first:])


def _search(keys: Sequence[Key]) -> list[_Found]:
    """Every loop in ``keys``: the one covering the most calls, then the same in the calls before and after it."""
    found: list[_Found] = []
    ranges = [(0, len(keys))]
    while ranges:
        lo, hi = ranges.pop()
        best: Optional[_Found] = None
        for head in dict.fromkeys(keys[lo:hi]):
            candidate = _candidate(keys, lo, hi, head)
            if candidate is None:
                continue
            if best is None or (candidate.end - candidate.start, -candidate.start) > (best.end - best.start,
                                                                                      -best.start):
                best = candidate
        if best is not None:
            found.append(best)
            ranges += [(lo, best.start), (best.end, hi)]
    return sorted(found, key=lambda f: f.start)


def _stages(calls: Sequence[LoopCall], indices: Sequence[int], following: int = -1) -> list[Stage]:
    """Each call and each host stretch after it, in order; the last host stretch runs up to the call ``following``
    (an index into the calls; none where -1)."""
    stages: list[Stage] = []
    for n, i in enumerate(indices):
        stages.append(Stage(CALL, calls[i].start_ns, calls[i].end_ns, call=i))
        j = indices[n + 1] if n + 1 < len(indices) else following
        if j >= 0:
            stages.append(Stage(HOST, calls[i].end_ns, calls[j].start_ns, call=i, next_call=j))
    return stages


def _next_head_index(found: _Found, k: int) -> int:
    return found.heads[k + 1] if k + 1 < len(found.heads) else -1


def find_loops(calls: Sequence[LoopCall]) -> list[Loop]:
    """The program's loops in the order they ran (module doc); no calls, no loop."""
    if not calls:
        return []
    keys = [c.key for c in calls]
    found = _search(keys)
    if not found:  # nothing repeats: every call is one iteration of one loop
        found = [_Found(head=keys[0], start=0, end=len(calls), heads=[0])]
    loops: list[Loop] = []
    previous_end = 0
    for n, f in enumerate(found):
        iterations: list[Iteration] = []
        for k, head in enumerate(f.heads):
            nxt = _next_head_index(f, k)
            stop = nxt if nxt >= 0 else f.end
            indices = list(range(head, stop))
            end_ns = calls[nxt].start_ns if nxt >= 0 else None
            iterations.append(Iteration(index=k, calls=indices, stages=_stages(calls, indices, nxt),
                                        start_ns=calls[head].start_ns, end_ns=end_ns))
        before_calls = list(range(previous_end, f.start))
        before = _stages(calls, before_calls, f.start)
        last = n + 1 == len(found)
        after_calls = list(range(f.end, len(calls))) if last else []
        after = _stages(calls, after_calls)
        sessions = list(dict.fromkeys(calls[i].session for it in iterations for i in it.calls))
        loops.append(Loop(head=f.head, sessions=sessions, iterations=iterations, before=before, after=after))
        previous_end = f.end
    return loops


# --- the stage table -----------------------------------------------------------------------------------------------


def _row_key(calls: Sequence[LoopCall], stage: Stage) -> tuple[str, Key, Key]:
    if stage.kind == CALL:
        return (CALL, calls[stage.call].key, (-1, ""))
    after = calls[stage.next_call].key if stage.next_call >= 0 else (-1, "")
    return (HOST, after, calls[stage.call].key)


def stage_table(calls: Sequence[LoopCall], loop: Loop, iterations: Optional[Sequence[Iteration]] = None
                ) -> list[StageSummary]:
    """The stage table of ``iterations`` (default: the loop's steady ones): one row per call key and per host stretch
    between two call keys, in the order the iterations run them. The rows' ``total_ns`` add up to the iterations'
    time exactly; ``per_iteration_ns`` to their mean."""
    chosen = list(loop.steady if iterations is None else iterations)
    values: dict[tuple[str, Key, Key], list[int]] = {}
    positions: dict[tuple[str, Key, Key], list[float]] = {}
    for it in chosen:
        first: dict[tuple[str, Key, Key], float] = {}
        for n, stage in enumerate(it.stages):
            key = _row_key(calls, stage)
            values.setdefault(key, []).append(stage.ns)
            first.setdefault(key, n / max(1, len(it.stages) - 1))
        for key, position in first.items():
            positions.setdefault(key, []).append(position)
    # In the order the iterations run them: by where in its iterations each row first comes (0 first, 1 last), on
    # average; of equal ones, the first seen.
    seen = list(values)
    order = sorted(seen, key=lambda k: (statistics.fmean(positions[k]), seen.index(k)))
    count = max(1, len(chosen))
    return [StageSummary(kind=k[0], session=k[1][0], site=k[1][1], before_session=k[2][0], before_site=k[2][1],
                         count=len(values[k]), total_ns=sum(values[k]), median_ns=float(statistics.median(values[k])),
                         per_iteration_ns=sum(values[k]) / count) for k in order]


def first_calls_at_shape(calls: Sequence[LoopCall], within: Optional[Sequence[int]] = None) -> list[ShapeFirst]:
    """The first call of each session at each input shape (over all the calls, in order), with the median of that
    session's later calls at the same shape and of all its calls that were no first call at their shape; only those
    whose index is in ``within`` where it is given."""
    seen: dict[tuple[int, str], int] = {}
    later: dict[int, list[int]] = {}
    for i, c in enumerate(calls):
        if not c.shape:
            continue
        first = seen.setdefault((c.session, c.shape), i)
        later.setdefault(first, [])
        if first != i:
            later[first].append(c.end_ns - c.start_ns)
    steady: dict[int, list[int]] = {}
    for first, rest in later.items():
        steady.setdefault(calls[first].session, []).extend(rest)
    wanted = None if within is None else set(within)
    result = []
    for i in sorted(later):
        if wanted is not None and i not in wanted:
            continue
        rest = later[i]
        c = calls[i]
        others = steady.get(c.session, [])
        result.append(ShapeFirst(call=i, session=c.session, shape=c.shape, ns=c.end_ns - c.start_ns,
                                 later_median_ns=float(statistics.median(rest)) if rest else None,
                                 later_calls=len(rest),
                                 steady_median_ns=float(statistics.median(others)) if others else None))
    return result


def iteration_bytes(calls: Sequence[LoopCall], loop: Loop) -> tuple[int, int]:
    """(host->device, device->host) bytes of all the loop's iterations together."""
    h2d = sum(calls[i].h2d_bytes for it in loop.iterations for i in it.calls)
    d2h = sum(calls[i].d2h_bytes for it in loop.iterations for i in it.calls)
    return h2d, d2h


__all__ = ["CALL", "HOST", "Iteration", "Loop", "LoopCall", "ShapeFirst", "Stage", "StageSummary", "find_loops",
           "first_calls_at_shape", "iteration_bytes", "stage_table"]
