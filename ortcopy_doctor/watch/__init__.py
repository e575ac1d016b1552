"""Watching a program's own sessions: ``watch(session)`` for one session, ``ortcopy-doctor run`` for a whole
program (the recorder in ``program``, the pipeline analysis in ``pipeline``).

One session's watch, by responsibility: ``observations`` (what is recorded, and its JSON loading), ``recorder``
(``Watch``, the session and IOBinding patches, ``instrumented_session``), ``placement`` (where the session reads
and writes each value), ``analysis`` (``analyse_watch``: what each call copied), ``report`` (``WatchReport`` and its
text) and ``plugin`` (``watch_fixture``)."""

from ortcopy_doctor.watch.analysis import analyse_watch
from ortcopy_doctor.watch.observations import (
    CallObservation,
    Placement,
    TensorUse,
    WatchObservations,
    load_observations,
)
from ortcopy_doctor.watch.placement import predicted_placement
from ortcopy_doctor.watch.plugin import pytest_watch, watch_fixture
from ortcopy_doctor.watch.recorder import Watch, instrumented_session, watch
from ortcopy_doctor.watch.report import CallReport, TensorReport, Transfer, WatchReport

__all__ = [
    "CallObservation", "CallReport", "Placement", "TensorReport", "TensorUse", "Transfer", "Watch",
    "WatchObservations", "WatchReport", "analyse_watch", "instrumented_session", "load_observations",
    "predicted_placement", "pytest_watch", "watch", "watch_fixture",
]
