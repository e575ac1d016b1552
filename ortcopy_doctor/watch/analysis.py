"""One session's watch analysis under its earlier path: it is ``analysis.watch``'s (issue 33: watch/ is a collector,
and the analysis of what it records lives in analysis/). ``analyse_watch`` is re-exported here for programs that
import it from ``ortcopy_doctor.watch.analysis``."""

from __future__ import annotations

from ortcopy_doctor.analysis.watch import analyse_watch as analyse_watch

__all__ = ["analyse_watch"]
