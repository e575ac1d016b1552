"""Pausing Python's cyclic garbage collector while a large report is built, written or read.

The analysis, the renderers and the JSON reader and writer allocate hundreds of thousands of small objects (a
10,000-node model: 15,000 findings and their messages), and none of them form reference cycles. With the
collector on, every 700 allocations start a collection, and each full collection walks the whole heap again: a
third to a half of the time of these steps (docs/benchmarks.md). The collector is paused for the step and
restored after it (re-entrant: a nested step leaves it as it found it); reference counting still frees
everything at once, and a cycle made meanwhile is collected at the next collection after the step.
"""

from __future__ import annotations

import functools
import gc
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from typing import ParamSpec, TypeVar

P = ParamSpec("P")
R = TypeVar("R")


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
