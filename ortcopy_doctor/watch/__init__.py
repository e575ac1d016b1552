"""Watching a program's own sessions: ``watch(session)`` for one session, ``ortcopy-doctor run`` for a whole
program (the recorder in ``program``; the pipeline analysis is ``report.pipeline``'s, re-exported by ``pipeline``).

One session's watch, by responsibility: ``recorder`` (``Watch``, the session and IOBinding patches,
``instrumented_session``), ``placement`` (where the session reads and writes each value) and ``plugin``
(``watch_fixture``); what each call copied is ``analysis.watch``'s ``analyse_watch`` (re-exported by ``analysis``).
The watch is a collector: what it
records and reports are the model's types (``model.watch``: ``WatchObservations``, ``WatchReport``; ``model.pipeline``
for ``run``), re-exported by ``observations``, ``report`` and ``pipeline`` under their old paths, and their text and
HTML are the renderers' (``render.watch``, ``render.pipeline``): nothing here imports ``render/``."""

from __future__ import annotations

# Not typing's: the package's __init__ imports this one before the command installs its start-up handler
# (cli/interrupts.py), and typing takes milliseconds.
TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any

# Imported on first use (PEP 562), as the package's own names are: the program's interpreter under `run` imports
# watch.child at start-up and must not import numpy or onnxruntime before the program does (watch/child.py).
_LAZY = {"analyse_watch": "analysis", "CallObservation": "observations", "Placement": "observations",
         "TensorUse": "observations", "WatchObservations": "observations", "load_observations": "observations",
         "predicted_placement": "placement", "pytest_watch": "plugin", "watch_fixture": "plugin", "Watch": "recorder",
         "instrumented_session": "recorder", "watch": "recorder", "CallReport": "report", "TensorReport": "report",
         "Transfer": "report", "WatchReport": "report"}


def __getattr__(name: str) -> Any:
    if name in _LAZY:
        from importlib import import_module

        value = getattr(import_module(f"{__name__}.{_LAZY[name]}"), name)
        globals()[name] = value
        return value
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


__all__ = [
    "CallObservation", "CallReport", "Placement", "TensorReport", "TensorUse", "Transfer", "Watch",
    "WatchObservations", "WatchReport", "analyse_watch", "instrumented_session", "load_observations",
    "predicted_placement", "pytest_watch", "watch", "watch_fixture",
]
