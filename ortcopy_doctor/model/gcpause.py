"""Pausing Python's cyclic garbage collector while a large report is built, written or read.

The analysis, the renderers and the JSON reader and writer allocate hundreds of thousands of small objects (a
10,000-node model: 15,000 findings and their messages), and none of them form reference cycles. With the
collector on, every 700 allocations start a collection, and each full collection walks the whole heap again: a
third to a half of the time of these steps (docs/benchmarks.md). The collector is paused for the step and
restored after it (re-entrant: a nested step leaves it as it found it); reference counting still frees
everything at once, and a cycle made meanwhile is collected at the next collection after the step.

The ``ortcopy-doctor`` command also collects less often from its first import on (``for_the_command``, as mypy
does): loading its modules (typer, onnx, numpy, jinja2 and ours) allocates ~200,000 objects that live until the
process ends, and with Python's default thresholds a small ``check`` ran ~110 collections over them: 40-70 ms of a
0.7 s run, against ~20 ms for a bare ORT script (issue 15, goal c). A program that ``run`` watches gets the
default thresholds back (``default_thresholds``); the library (``import ortcopy_doctor`` in a user's process)
changes nothing.
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


def for_the_command() -> None:
    """Collect less often for the rest of this ``ortcopy-doctor`` process (module docstring)."""
    global _found
    if _found is None:
        _found = gc.get_threshold()
    gc.set_threshold(*COMMAND_THRESHOLDS)


@contextmanager
def default_thresholds() -> Iterator[None]:
    """Inside the block, the thresholds the process had before ``for_the_command`` (a user's program run by
    ``run``); the command's again after it."""
    before = gc.get_threshold()
    if _found is not None:
        gc.set_threshold(*_found)
    try:
        yield
    finally:
        gc.set_threshold(*before)


@contextmanager
def gc_paused() -> Iterator[None]:
    """The cyclic garbage collector off inside the block, as it was after it."""
    was_enabled = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        if was_enabled:
            gc.enable()


def without_cyclic_gc(func: Callable[P, R]) -> Callable[P, R]:
    """``func`` run with the cyclic garbage collector paused (``gc_paused``)."""

    @functools.wraps(func)
    def wrapper(*args: P.args, **kwargs: P.kwargs) -> R:
        with gc_paused():
            return func(*args, **kwargs)

    return wrapper
