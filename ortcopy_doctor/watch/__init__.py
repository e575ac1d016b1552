"""Watching a program's own sessions: ``watch(session)`` for one session, ``ortcopy-doctor run`` for a whole
program (the recorder in ``program``, the pipeline analysis in ``pipeline``)."""

from ortcopy_doctor.watch.core import (
    CallObservation,
    CallReport,
    Placement,
    TensorReport,
    TensorUse,
    Transfer,
    Watch,
    WatchObservations,
    WatchReport,
    analyse_watch,
    instrumented_session,
    load_observations,
    predicted_placement,
    pytest_watch,
    watch,
)

__all__ = [
    "CallObservation", "CallReport", "Placement", "TensorReport", "TensorUse", "Transfer", "Watch",
    "WatchObservations", "WatchReport", "analyse_watch", "instrumented_session", "load_observations",
    "predicted_placement", "pytest_watch", "watch",
]
