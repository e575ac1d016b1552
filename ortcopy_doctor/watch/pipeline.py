"""``run``'s pipeline analysis under its earlier path: the analysis is ``report.pipeline``'s (issue 33: watch/ is a
collector, and the analysis of what it records lives with check's, in report/ and analysis/). The names are
re-exported here for programs that import them from ``ortcopy_doctor.watch.pipeline``."""

from __future__ import annotations

from ortcopy_doctor.report.pipeline import *  # noqa: F401,F403 - the earlier path of the same names
from ortcopy_doctor.report.pipeline import __all__ as __all__  # noqa: F401
