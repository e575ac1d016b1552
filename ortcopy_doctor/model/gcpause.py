"""Pausing Python's cyclic garbage collector while a large report is built, written or read.

The analysis, the renderers and the JSON reader and writer allocate hundreds of thousands of small objects (a
10,000-node model: 15,000 findings and their messages), and none of them form reference cycles. With the
collector on, every 700 allocations start a collection, and each full collection walks the whole heap again: a
third to a half of the time of these steps (docs/benchmarks.md). The collector is paused for the step and
restored after it (re-entrant: a nested step leaves it as it found it); reference counting still frees
everything at once, and a cycle made meanwhile is collected at the next collection after the step.

The ``ortcopy-doctor`` command also collects less often from its entry point on (``for_the_command``, as mypy
does): loading its modules (typer, onnx, numpy, jinja2 and ours) allocates ~200,000 objects that live until the
process ends, and with Python's default thresholds a small ``check`` ran ~110 collections over them: 40-70 ms of a
0.7 s run, against ~20 ms for a bare ORT script (issue 15, goal c). A program that ``run`` watches gets the
default thresholds back (``default_thresholds``); the library (``import ortcopy_doctor`` in a user's process)
changes nothing.

Resuming the collector leaves every object a paused step made counted as new, so the first allocation after the
step starts a young collection over all of them (124 ms after `report` re-read a
10k-node JSON, ~50 ms after a `--static` check of that model analysed it; 6% and 2.5% of those commands). In the
command, where what a step builds lives until the process ends, a paused step therefore ends with ``gc.freeze()``:
its objects, and every other object alive then, move to the collector's permanent generation, which no collection
walks. Reference counting still frees them; but cyclic garbage made since the last collection, in the step or
before it, now stays until the process ends. So code of the command that leaves a cycle to the collector must
collect it before the next paused step ends (``collect.binding_ab`` does after a failed measurement). The library
never leaves anything frozen, nor does a paused step freeze while a program that ``run`` watches runs
(``default_thresholds``); once that program has returned, the steps that analyse and render what it did freeze
what it left, as the process is about to end.

In the library (``load_report``, ``check`` and ``analyse`` called from a user's process), a paused step ends by
moving every object to the oldest generation (``gc.freeze()`` then at once ``gc.unfreeze()``, where nothing was
frozen before): only a full collection walks them, and Python spaces those out by itself, instead of the next young
collection walking all of them (80 ms of the 0.17 s `load_report` of a 10k-node report, in-process). Cyclic garbage
is still collected, at the next full collection rather than the next young one. A process that keeps objects
frozen itself (``gc.get_freeze_count()`` not 0) is left as it is: unfreezing would undo its freeze.
"""

from __future__ import annotations

import functools
import gc
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from typing import ParamSpec, TypeVar

P = ParamSpec("P")
R = TypeVar("R")

# The command's thresholds (mypy's): a young collection every 200,000 net allocations instead of 700, so the
# startup's long-lived objects are scanned a few times, not ~100. The thresholds found before are kept for
# ``default_thresholds``.
COMMAND_THRESHOLDS = (200_000, 30, 30)
_found: tuple[int, int, int] | None = None
# Whether a paused step ends by freezing what exists (the command only; module docstring).
_freeze_after_steps = False


def for_the_command() -> None:
    """Collect less often for the rest of this ``ortcopy-doctor`` process, and freeze what each paused step built
    as it ends (module docstring)."""
    global _found, _freeze_after_steps
    if _found is None:
        _found = gc.get_threshold()
    gc.set_threshold(*COMMAND_THRESHOLDS)
    _freeze_after_steps = True


@contextmanager
def default_thresholds() -> Iterator[None]:
    """Inside the block, the thresholds the process had before ``for_the_command`` (a user's program run by
    ``run``), and no freezing: a paused step of ours inside it (a watched session's profile) leaves the program's
    objects to its collector. The command's behaviour again after it."""
    global _freeze_after_steps
    before, freezing = gc.get_threshold(), _freeze_after_steps
    if _found is not None:
        gc.set_threshold(*_found)
    _freeze_after_steps = False
    try:
        yield
    finally:
        gc.set_threshold(*before)
        _freeze_after_steps = freezing


@contextmanager
def gc_paused() -> Iterator[None]:
    """The cyclic garbage collector off inside the block, as it was after it; in the command, what exists when
    the outermost block ends is frozen (module docstring)."""
    was_enabled = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        if was_enabled:
            if _freeze_after_steps:
                gc.freeze()
            elif gc.get_freeze_count() == 0:
                # the library: what exists moves to the oldest generation, which only a full collection walks
                # (Python spaces those out by itself), instead of the next young collection walking everything
                # the step made (80 ms after a 10k-node report is read); nothing stays frozen
                gc.freeze()
                gc.unfreeze()
            gc.enable()


def without_cyclic_gc(func: Callable[P, R]) -> Callable[P, R]:
    """``func`` run with the cyclic garbage collector paused (``gc_paused``)."""

    @functools.wraps(func)
    def wrapper(*args: P.args, **kwargs: P.kwargs) -> R:
        with gc_paused():
            return func(*args, **kwargs)

    return wrapper
