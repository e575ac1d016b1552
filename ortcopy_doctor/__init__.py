"""ortcopy-doctor: find every host<->device copy an ONNX Runtime session makes, why, and how to remove it."""

__version__ = "0.1.0"

from . import interrupts as _interrupts  # noqa: E402

if _interrupts.is_cli_process():  # Ctrl-C while the modules below load: one line and exit 130, no traceback
    _interrupts.install_startup()

from .api import CheckOptions, Report, analyse, check, load_report  # noqa: E402
from .watch import WatchReport, instrumented_session, pytest_watch, watch  # noqa: E402

__all__ = ["CheckOptions", "Report", "WatchReport", "__version__", "analyse", "check", "instrumented_session",
           "load_report", "pytest_watch", "watch"]
