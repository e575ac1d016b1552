"""The watch report (``WatchReport``: each call's inputs and outputs and the transfers they made): the types live in
``model.watch`` (issue 35), its text in ``render.watch`` (``render_watch_text``); this module keeps their old import
path."""

from __future__ import annotations

from ortcopy_doctor.model.watch import CallReport, TensorReport, Transfer, WatchReport

__all__ = ["CallReport", "TensorReport", "Transfer", "WatchReport"]
