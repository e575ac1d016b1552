"""The ``ortcopy-doctor`` command's garbage-collector policy, set once by its entry points (``cli/app.py`` as the
console script, ``__main__.py`` for ``python -m ortcopy_doctor``), as mypy's command sets its own.

Loading the command's modules (typer, numpy, onnxruntime, onnx, jinja2 and ours) allocates ~200,000 objects that
live until the process ends; with Python's default thresholds (700, 10, 10) a small ``check`` ran ~110 collections
over them (40-70 ms on the 2-CPU build machine, docs/benchmarks.md). With mypy's thresholds a young collection
starts every 200,000 net allocations instead of 700.

That is the whole policy: nothing is paused, frozen or restored around a step, and the library (``import
ortcopy_doctor`` in a user's process: ``check``, ``analyse``, ``load_report``, ``to_json``, the renderers) leaves the
collector as the caller set it. A program that ``run`` watches runs in an interpreter of its own, with Python's
defaults. This module imports nothing but ``gc``, so the entry points can load it before the command's modules.
"""

import gc

COMMAND_THRESHOLDS = (200_000, 30, 30)


def for_the_command() -> None:
    """Set the command's thresholds: called by the entry points alone, never by the library."""
    gc.set_threshold(*COMMAND_THRESHOLDS)
