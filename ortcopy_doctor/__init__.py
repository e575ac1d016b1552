"""ortcopy-doctor: find every host<->device copy an ONNX Runtime session makes, why, and how to remove it."""

from __future__ import annotations

from ortcopy_doctor.model.version import __version__

# The command's entry points (cli/app.py, __main__.py) import this first, before they can install their Ctrl-C
# handler: so it loads no more than it needs (not typing, not importlib: milliseconds of a start-up where Ctrl-C
# would still print a traceback; cli/interrupts.py).
TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any

    from ortcopy_doctor.api import CheckOptions, Report, analyse, check, load_report
    from ortcopy_doctor.render.html import render_html
    from ortcopy_doctor.render.text import render_text
    from ortcopy_doctor.render.watch import render_watch_text
    from ortcopy_doctor.watch import WatchReport, instrumented_session, pytest_watch, watch, watch_fixture

# ``ortcopy_doctor.watch`` is the function ``watch(session)``, and ``ortcopy_doctor/watch/`` a subpackage of the
# same name. The import system names a subpackage on its package once, when it is first imported: the subpackage
# is imported here (its own names are lazy too: it loads nothing more), and that name dropped again, so that the
# function is what ``ortcopy_doctor.watch`` resolves to (below), also after ``import ortcopy_doctor.watch.recorder``.
__import__("ortcopy_doctor.watch")
del globals()["watch"]

# The public names are imported on first use (PEP 562): `check` loads numpy, onnx and onnxruntime, and
# `ortcopy-doctor --help` should not.
_LAZY = {"CheckOptions": ".api", "Report": ".api", "analyse": ".api", "check": ".api", "load_report": ".api",
         "render_html": ".render.html", "render_text": ".render.text", "render_watch_text": ".render.watch",
         "WatchReport": ".watch", "instrumented_session": ".watch", "pytest_watch": ".watch", "watch": ".watch",
         "watch_fixture": ".watch"}


def __getattr__(name: str) -> Any:
    if name in _LAZY:
        from importlib import import_module  # here: the package imports no importlib at start-up (above)

        value = getattr(import_module(_LAZY[name], __name__), name)
        globals()[name] = value
        return value
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


def __dir__() -> list[str]:
    return sorted(set(globals()) | set(_LAZY))


__all__ = ["CheckOptions", "Report", "WatchReport", "__version__", "analyse", "check", "instrumented_session",
           "load_report", "pytest_watch", "render_html", "render_text", "render_watch_text", "watch", "watch_fixture"]
