"""ortcopy-doctor: find every host<->device copy an ONNX Runtime session makes, why, and how to remove it."""

from __future__ import annotations

import sys
import types

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
    from ortcopy_doctor.watch import WatchReport, instrumented_session, pytest_watch, watch, watch_fixture

# The public names are imported on first use (PEP 562): `check` loads numpy, onnx and onnxruntime, and
# `ortcopy-doctor --help` should not.
_LAZY = {"CheckOptions": ".api", "Report": ".api", "analyse": ".api", "check": ".api", "load_report": ".api",
         "render_html": ".render.html", "render_text": ".render.text",
         "WatchReport": ".watch", "instrumented_session": ".watch", "pytest_watch": ".watch", "watch": ".watch",
         "watch_fixture": ".watch"}


def __getattr__(name: str) -> Any:
    if name in _LAZY:
        from importlib import import_module

        value = getattr(import_module(_LAZY[name], __name__), name)
        globals()[name] = value
        return value
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


def __dir__() -> list[str]:
    return sorted(set(globals()) | set(_LAZY))


class _Package(types.ModuleType):
    """``ortcopy_doctor.watch`` is the function, as it was when it was imported eagerly: importing the package of
    the same name (``from ortcopy_doctor.watch.recorder import ...``) must not replace it with the module."""

    def __setattr__(self, name: str, value: Any) -> None:
        if name in _LAZY and isinstance(value, types.ModuleType):
            return  # the import system naming a submodule on its package; sys.modules has it
        super().__setattr__(name, value)


sys.modules[__name__].__class__ = _Package

__all__ = ["CheckOptions", "Report", "WatchReport", "__version__", "analyse", "check", "instrumented_session",
           "load_report", "pytest_watch", "render_html", "render_text", "watch", "watch_fixture"]
