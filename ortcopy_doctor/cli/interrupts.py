"""Signals for the command line: Ctrl-C at any point gives one line and exit 130; SIGTERM and SIGHUP unwind
like an error, so temporary folders (ORT's optimized model with a copy of the weights) are removed, and exit
128 + the signal number (143, 129).

* ``install_startup``: while the modules load (nothing to clean up yet), a signal prints the line and exits
  at once instead of a traceback. Installed from the package's ``__init__`` only when the process is the CLI.
* ``install``: from ``main()`` on, the first signal raises (``KeyboardInterrupt`` or ``Terminated``) so that
  every ``with``/``finally`` cleans up; further signals are ignored until the process exits, so the cleanup
  itself is not cut short. A signal that arrives while a finalizer runs (``__del__``, a weakref callback), whose
  exception Python drops, is delivered again after it (``_raised_again``).
* ``quiet_teardown``: frees what an interrupted traceback holds (an ORT session logs verbosely while it is
  destroyed) with fd 2 muted, so that nothing follows the error line.
"""

from __future__ import annotations

import _thread
import os
import signal
import sys
import threading
from typing import Any

SIGNALS = tuple(s for s in (getattr(signal, "SIGINT", None), getattr(signal, "SIGTERM", None),
                            getattr(signal, "SIGHUP", None)) if s is not None)


class Terminated(BaseException):
    """SIGTERM or SIGHUP arrived: unwind (running every cleanup) and exit 128 + signum."""

    def __init__(self, signum: int) -> None:
        super().__init__(signum)
        self.signum = signum

    @property
    def exit_code(self) -> int:
        """The process's exit code: 128 + the signal number (143 for SIGTERM, 129 for SIGHUP)."""
        return 128 + self.signum

    @property
    def message(self) -> str:
        """The error line's text, e.g. ``terminated by SIGTERM``."""
        return f"terminated by {signal.Signals(self.signum).name}"


def _startup_handler(signum: int, _frame: object) -> None:
    text = "interrupted" if signum == signal.SIGINT else f"terminated by {signal.Signals(signum).name}"
    try:
        os.write(2, f"error: {text}\n".encode())
    finally:
        os._exit(128 + signum)


def _is_default(signum: int) -> bool:
    current = signal.getsignal(signum)
    return current in (signal.SIG_DFL, signal.default_int_handler)  # never override SIG_IGN (nohup)


def install_startup() -> None:
    """While the modules load: a signal prints its one line and exits at once (handlers left as the user set
    them, SIG_IGN included, are kept)."""
    for signum in SIGNALS:
        if _is_default(signum):
            signal.signal(signum, _startup_handler)


def _handler(signum: int, _frame: object) -> None:
    for s in SIGNALS:
        if signal.getsignal(s) is _handler:
            signal.signal(s, signal.SIG_IGN)
    if signum == signal.SIGINT:
        raise KeyboardInterrupt
    raise Terminated(signum)


def install() -> None:
    """From ``main()`` on: the first signal raises ``KeyboardInterrupt`` or ``Terminated``; later ones are ignored.
    One that arrives while a finalizer runs is raised again after it (``_raised_again``)."""
    global _unraisable_before
    for signum in SIGNALS:
        if _is_default(signum) or signal.getsignal(signum) is _startup_handler:
            signal.signal(signum, _handler)
    if sys.unraisablehook is not _raised_again:
        _unraisable_before = sys.unraisablehook
        sys.unraisablehook = _raised_again


_unraisable_before = sys.unraisablehook


def _raised_again(unraisable: Any) -> None:
    """``sys.unraisablehook``: a signal whose exception was raised inside a finalizer (an object's ``__del__``, a
    weakref callback), where Python prints it as "Exception ignored" and carries on, is delivered again to the main
    thread, which then unwinds as usual. Without this the check went on with the signals ignored (a SIGHUP under
    `make test`'s load left a check running)."""
    exc = unraisable.exc_value
    if isinstance(exc, (KeyboardInterrupt, Terminated)):
        signum = exc.signum if isinstance(exc, Terminated) else signal.SIGINT
        signal.signal(signum, _handler)  # _handler set every signal to SIG_IGN: armed again for this one
        # from another thread, a moment later: raised here (in this hook) it would be lost the same way; raised
        # in another finalizer, it comes back here
        again = threading.Timer(0.05, _thread.interrupt_main, (signum,))
        again.daemon = True
        again.start()
        return
    _unraisable_before(unraisable)


def quiet_teardown(exc: BaseException) -> None:
    """Clear the frames of ``exc``'s traceback and collect garbage with fd 2 sent to /dev/null."""
    import gc
    import traceback

    try:
        sys.stderr.flush()
        saved = os.dup(2)
        devnull = os.open(os.devnull, os.O_WRONLY)
    except OSError:
        return
    os.dup2(devnull, 2)
    try:
        seen: set[int] = set()
        item: BaseException | None = exc
        while item is not None and id(item) not in seen:
            seen.add(id(item))
            if item.__traceback__ is not None:
                traceback.clear_frames(item.__traceback__)
                item.__traceback__ = None
            item = item.__context__
        gc.collect()
    finally:
        os.dup2(saved, 2)
        os.close(saved)
        os.close(devnull)


def is_cli_process() -> bool:
    """True while Python starts the ``ortcopy-doctor`` script or ``python -m ortcopy_doctor``; not for ``python -m``
    of another module that imports ortcopy_doctor as it starts (``sys.argv`` is ``['-m']`` then too)."""
    argv0 = sys.argv[0] if sys.argv else ""
    if argv0 == "-m":
        return _module_run() in ("ortcopy_doctor", "ortcopy_doctor.__main__")
    return os.path.basename(argv0) == "ortcopy-doctor"


def _module_run() -> str:
    """The module of ``python -m MODULE`` (or ``-mMODULE``) on the interpreter's original command line; "" if none."""
    args = [str(arg) for arg in getattr(sys, "orig_argv", [])][1:]
    for i, arg in enumerate(args):
        if arg == "-m":
            return args[i + 1] if i + 1 < len(args) else ""
        if arg.startswith("-m") and not arg.startswith("--"):
            return arg[2:]
    return ""


__all__ = ["Terminated", "install", "install_startup", "is_cli_process", "quiet_teardown"]
