"""Signals for the command line: Ctrl-C at any point gives one line and exit 130; SIGTERM and SIGHUP unwind
like an error, so temporary folders (ORT's optimized model with a copy of the weights) are removed, and exit
128 + the signal number (143, 129).

* ``install_startup``: from the first line of the entry point (``cli.app`` for the ``ortcopy-doctor`` script,
  ``__main__`` for ``python -m ortcopy_doctor``), while the modules load (nothing to clean up yet), a signal prints
  the line and exits at once instead of a traceback. The library (``import ortcopy_doctor``) installs nothing.
* ``install``: from ``main()`` on, the first signal raises (``KeyboardInterrupt`` or ``Terminated``) so that
  every ``with``/``finally`` cleans up; further signals are ignored until the process exits, so the cleanup
  itself is not cut short (``_ignored``, a handler that does nothing: not ``SIG_IGN``, see ``_ignore_all``; a report of one Python says it
  ignored "due to race condition" is dropped: ``_ignored_on_purpose``). A
  signal that arrives while a finalizer runs (``__del__``, a weakref callback), whose exception Python drops, is
  delivered again after it (``_raised_again``). One handled where its exception must not be raised (as a context
  manager's ``__exit__`` starts, in importlib's own code, inside a C extension's initialisation, in the first run of
  a lazily imported module, which Python's import statement may start and then drop its exception) is delivered
  again 50 ms later (``_again``). Where code the signal's exception passed through raised another one instead
  (pybind11 turns what a module's init raised into ``ImportError: initialization failed``, Python 3.11 what a
  ``__set_name__`` raised into ``RuntimeError``), ``received`` still names the signal, and the command ends as that
  signal.
* ``ending``: once the command's outcome is decided (its outputs written, its line printed), a signal prints its
  line and exits at once: the exit (flushing stdout into a pipe, the ``atexit`` handlers) is not cut into a
  traceback.
* ``quiet_teardown``: frees what an interrupted traceback holds (an ORT session logs verbosely while it is
  destroyed) with fd 2 muted, so that nothing follows the error line.

Two signals back to back (Ctrl-C, then a supervisor's SIGTERM; CI cancelling with SIGTERM, then SIGHUP) end as the
first with its one line: the second is ignored (tests/project/test_two_signals.py). Which came first is the order
Python's C handler saw them in (``_first_arrived``), not the order Python calls their Python handlers in. Two that
reach the process at the same moment have no order to keep, and the command ends as either: the kernel hands over
the lower-numbered first, and a second one handed to the same thread before its handler ran runs its handler first.

A signal that was ignored when the process started (a shell's background job ignores SIGINT, ``nohup`` SIGHUP) stays
ignored, as Python and the shells leave it: no handler replaces ``SIG_IGN``.

What no code of the package can cover: Python's own start-up (before ``site`` it is the default action, death by
the signal with no output; during ``site``, "Fatal Python error: init_import_site" and a traceback; for ``python
-m``, the import of runpy), then the package's ``__init__`` and this module's imports, until ``install_startup``.
This module and the package's ``__init__`` import no more than that needs (no typing, no threading), so that last
part is short: ~3.5 ms on the 2-CPU machine, most of it ``import signal`` (tests/cli/test_ctrl_c.py).
"""

from __future__ import annotations

import _thread
import os
import signal
import sys

# Not typing's: this module loads before the command installs its start-up handler, and typing takes milliseconds.
TYPE_CHECKING = False
if TYPE_CHECKING:
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
        return _line(self.signum)


def _line(signum: int) -> str:
    """The error line's text for ``signum``: ``interrupted`` for SIGINT, ``terminated by SIGTERM`` otherwise."""
    return "interrupted" if signum == signal.SIGINT else f"terminated by {signal.Signals(signum).name}"


def _at_once(signum: int, frame: Any) -> None:
    """While the modules load and once the command's outcome is decided: nothing to clean up, so the line and the
    exit code now (``os._exit``: no traceback, no second signal in the middle of an exit), of the signal that came
    first (``_first_arrived``). A second one handled while this runs (Python calls a handler between any two
    bytecodes, this one's too) returns at once: this one prints the line."""
    global _received
    if _in_own_handler(frame):
        return
    if _received is None:
        _received = _first_arrived(signum)
    first = _received
    try:
        os.write(2, f"error: {_line(first)}\n".encode())
    finally:
        os._exit(128 + first)


def _is_default(signum: int) -> bool:
    current = signal.getsignal(signum)
    return current in (signal.SIG_DFL, signal.default_int_handler)  # never override SIG_IGN (nohup)


def install_startup() -> None:
    """While the modules load: a signal prints its one line and exits at once (handlers left as the user set
    them, SIG_IGN included, are kept)."""
    _record_arrivals()  # first: two signals back to back, from the first moment a handler is in place
    for signum in SIGNALS:
        if _is_default(signum):
            signal.signal(signum, _at_once)


# The order in which signals arrived: Python's C handler writes each signal's number to the "wakeup fd" as the signal
# arrives, and later calls the Python handlers of the signals pending at once in the order of their numbers (SIGHUP
# 1, SIGINT 2, SIGTERM 15), not of their arrival: SIGTERM then SIGHUP, arrived while the main thread was in C code (a
# session's run, a module's import), ended as SIGHUP. The wakeup fd is a pipe of ours, set where no one else set
# one (asyncio's event loop sets its own; then the order Python calls the handlers in is all there is).
_arrivals_read = -1
_arrivals_write = -1
_arrived: list[int] = []  # the signal numbers read from the pipe, in the order they arrived


def _record_arrivals() -> None:
    """Set the wakeup fd to the pipe of ``_arrived`` (made the first time), unless another one is set. Bytes the pipe
    cannot take (a flood of signals once the first was raised, when nothing reads it) are dropped silently."""
    global _arrivals_read, _arrivals_write
    try:
        if _arrivals_write == -1:
            read, write = os.pipe()  # not inherited by child processes (PEP 446)
            _arrivals_read, _arrivals_write = _above_standard(read), _above_standard(write)
            os.set_blocking(_arrivals_read, False)
            os.set_blocking(_arrivals_write, False)  # as set_wakeup_fd requires
        before = signal.set_wakeup_fd(_arrivals_write, warn_on_full_buffer=False)
    except (OSError, ValueError, AttributeError):  # no pipe, not the main thread, or no set_wakeup_fd (Windows)
        return
    if before not in (-1, _arrivals_write):  # someone's own: theirs stays
        signal.set_wakeup_fd(before)


def _above_standard(fd: int) -> int:
    """``fd``, or a copy of it numbered above 2 where it took the number of a closed stdin, stdout or stderr
    (``>&-``): that number stays closed, as the command expects it (cli/app.py, ``_fill_closed_streams``)."""
    if fd > 2:
        return fd
    moved = _above_standard(os.dup(fd))  # the lowest free number: maybe another closed one of 0-2
    os.close(fd)
    return moved


def _read_arrivals() -> None:
    """Move what the pipe holds into ``_arrived``."""
    while _arrivals_read != -1:
        try:
            data = os.read(_arrivals_read, 512)
        except OSError:  # empty (BlockingIOError)
            return
        if not data:
            return
        _arrived.extend(data)


def _first_arrived(signum: int) -> int:
    """Of the signals handled here (``signum``, whose handler runs now, and those still armed with this module's
    handlers, which may be pending too), the one that arrived first; ``signum`` where the order is not known."""
    _read_arrivals()
    for arrived in _arrived:
        if arrived == signum or (arrived in SIGNALS and signal.getsignal(arrived) in (_handler, _at_once)):
            return arrived
    return signum


def _forget_arrivals() -> None:
    """Empty the record of arrivals: a new command starts (``main()`` called again in one process)."""
    _read_arrivals()
    _arrived.clear()


# The signal whose exception ``_handler`` raised (the first one; later ones are ignored), None before any; and
# whether that exception was raised yet (``_again`` puts it off).
_received: int | None = None
_raised = False


def _handler(signum: int, frame: Any) -> None:
    global _received
    if _in_own_handler(frame):  # a second signal while the first one's handler runs: that one decides
        return
    if _received is None:
        _received = _first_arrived(signum)
        for s in SIGNALS:  # any other: ignored from now on, also as the first one is raised a moment later
            if s != _received and signal.getsignal(s) is _handler:
                signal.signal(s, _ignored)
    elif signum != _received:  # a later signal (its handler was set to _ignored as it arrived, or is being set)
        return
    if (_in_exit(frame) or _in_import_machinery(frame) or _in_extension_init(frame)
            or _in_lazy_module_load(frame)):  # again a moment later
        _again(_received)
        return
    _ignore_all()
    global _raised
    _raised = True
    raise as_exception(_received)


def _ignored(_signum: int, _frame: Any) -> None:
    """The handler of every signal once the first one was raised: nothing happens."""


def _ignore_all() -> None:
    """From now on every signal is ignored (``_ignored``), and the one just raised too, should it still be pending.

    A handler that does nothing, not ``SIG_IGN``: a signal that arrived before this and is still pending in Python's
    signal machinery (its C handler ran, its Python handler has not yet) finds no Python handler under ``SIG_IGN``,
    and Python prints "OSError: Signal 15 ignored due to race condition" with a traceback (CPython's
    ``_PyErr_CheckSignalsTstate``, bpo-43406): Ctrl-C then a supervisor's SIGTERM printed it under load. A
    handler of Python's is also not inherited across exec (``SIG_IGN`` is)."""
    for s in SIGNALS:
        if signal.getsignal(s) in (_handler, _at_once):
            signal.signal(s, _ignored)


def _in_own_handler(frame: Any) -> bool:
    """Whether ``frame`` (where a signal's handler is called) runs inside a handler of this module: Python calls a
    handler between any two bytecodes, those of another handler included."""
    while frame is not None:
        if frame.f_code in _HANDLER_CODES:
            return True
        frame = frame.f_back
    return False


def _in_exit(frame: Any) -> bool:
    """Whether ``frame`` is a context manager's ``__exit__``, the cleanup of a ``with`` block. Raised as it starts, a
    KeyboardInterrupt kept contextlib's ``__exit__`` from resuming its generator, so its ``finally`` did not run:
    fd 2 stayed in ORT's log capture (collect/ortlog.py), and the error line went into that temporary file instead
    of the terminal (exit 130 with nothing said; tests/cli/test_ctrl_c.py)."""
    return frame is not None and frame.f_code.co_name in ("__exit__", "__aexit__")


def _in_import_machinery(frame: Any) -> bool:
    """Whether ``frame`` is the import system's own code (importlib's bootstrap: its locks, finders and loaders),
    which is not written to be interrupted between taking a lock and releasing it. A KeyboardInterrupt raised there
    (as ``_ImportLockContext.__exit__`` started) left the import lock held: a thread importing the renderers
    meanwhile (a check had one then) waited for it, the check waited for that thread, and the process hung with
    every signal ignored (tests/cli/test_ctrl_c.py). Raised in a module's own code, it fails that import cleanly."""
    return frame is not None and frame.f_code.co_filename.startswith("<frozen importlib._bootstrap")


def _in_extension_init(frame: Any) -> bool:
    """Whether ``frame`` runs inside the initialisation of a C extension module: Python code it calls (onnx's
    nanobind module makes its enums with enum.py), or a check for signals from its C code. An exception raised
    there is often not one that module expects: nanobind called std::terminate (the process aborted with a core
    dump, "terminate called after throwing an instance of 'nanobind::python_error'"), and onnxruntime's import
    failed with pybind11's ``ImportError: initialization failed`` (onnx 1.23.2, onnxruntime 1.31.1, a sweep of real
    Ctrl-C; tests/cli/test_ctrl_c.py)."""
    # here, not a lazy_import (model/lazy.py): this module loads first, before the modules whose load Ctrl-C may
    # interrupt, and imports no more than that needs (its docstring); the same for the imports below
    from importlib.machinery import ExtensionFileLoader

    while frame is not None:
        if (frame.f_code.co_name in ("create_module", "exec_module")
                and isinstance(frame.f_locals.get("self"), ExtensionFileLoader)):
            return True
        frame = frame.f_back
    return False


def _in_lazy_module_load(frame: Any) -> bool:
    """Whether ``frame`` runs inside the first run of a module handed out by ``lazy_import`` (model/lazy.py:
    importlib's ``_LazyModule.__getattribute__`` runs it on the first attribute read). That read may come from
    Python's own import statement: ``import importlib.metadata`` in onnx's ``__init__``, with our handle of it in
    ``sys.modules``, reads its ``__spec__`` in C, where CPython 3.10 to 3.12 (``import_ensure_initialized``,
    ``_PyModuleSpec_IsInitializing``) drop any exception the read raised (3.13 passes it on). A KeyboardInterrupt
    raised there was lost, every other signal was already ignored, and the check ran to its end and exited 0 (a
    Ctrl-C 0.2 s into a check, under load, tests/cli/test_ctrl_c.py; its frames were importlib/metadata/__init__.py
    < importlib.util's ``__getattribute__`` < onnx/__init__.py). Put off, the signal is raised once the module has
    run. Only a run that the read of ``__spec__`` started, as the import statement's: one that Python code started by
    reading a function (``_api.check``, whose run imports for half a second) passes the exception on, and is
    interrupted at once."""
    util = sys.modules.get("importlib.util")  # not loaded: no lazy module exists yet (nor is it imported here)
    lazy = getattr(util, "_LazyModule", None)
    if lazy is None:
        return False
    getattribute = getattr(lazy.__dict__.get("__getattribute__"), "__code__", None)
    while frame is not None:
        if frame.f_code is getattribute:
            # its argument, the attribute read (``attr`` in Python 3.10-3.13; where not found: put off, to be safe)
            return bool(frame.f_locals.get("attr", "__spec__") == "__spec__")
        frame = frame.f_back
    return False


def _again(signum: int) -> None:
    """Deliver ``signum`` to the main thread again a moment later (its handler is left as it is meanwhile), from
    another thread: handled here and now, it would land in the same place. A real signal, sent to the main thread:
    it also ends a wait of the main thread in a system call (a sleep, a read), which ``_thread.interrupt_main``
    would leave to finish first."""
    import threading  # here: this module loads first and imports no more than it needs (see _in_extension_init)

    main = threading.main_thread().ident
    if hasattr(signal, "pthread_kill") and main is not None:
        again = threading.Timer(0.05, signal.pthread_kill, (main, signum))
    else:  # pragma: no cover - no pthread_kill (Windows)
        again = threading.Timer(0.05, _thread.interrupt_main, (signum,))
    again.daemon = True
    again.start()


def received() -> int | None:
    """The signal whose exception the command raised, or None: an exception that took its place on the way up (a
    C extension's init, a ``__set_name__``) is a consequence of it, and the command ends as the signal."""
    return _received


def as_exception(signum: int) -> BaseException:
    """The exception ``signum`` raises in the command: ``KeyboardInterrupt`` for SIGINT, ``Terminated`` otherwise."""
    return KeyboardInterrupt() if signum == signal.SIGINT else Terminated(signum)


def install() -> None:
    """From ``main()`` on: the first signal raises ``KeyboardInterrupt`` or ``Terminated``; later ones are ignored.
    One that arrives while a finalizer runs is raised again after it (``_raised_again``)."""
    global _unraisable_before, _received, _raised
    _record_arrivals()
    if any(signal.getsignal(s) is _ignored for s in SIGNALS):  # an earlier main() in this process ended by a signal
        _forget_arrivals()
    for signum in SIGNALS:
        if _is_default(signum) or signal.getsignal(signum) in (_at_once, _ignored):
            signal.signal(signum, _handler)
    _received = None
    _raised = False
    if sys.unraisablehook is not _raised_again:
        _unraisable_before = sys.unraisablehook
        sys.unraisablehook = _raised_again


def ending() -> None:
    """The command's outcome is decided: a signal from now on prints its line and exits at once. Signals already
    ignored (one was received, or they were ignored at start) stay ignored. One received whose exception was put
    off (``_again``) and not yet raised ends the command now, as it would have a moment later: the command was
    quick enough to end before its timer (a static check, under load), and ended as if it had never come."""
    if _received is not None and not _raised:
        try:
            os.write(2, f"error: {_line(_received)}\n".encode())
        finally:
            os._exit(128 + _received)
    for signum in SIGNALS:
        if signal.getsignal(signum) is _handler:
            signal.signal(signum, _at_once)


_unraisable_before = sys.unraisablehook


def _raised_again(unraisable: Any) -> None:
    """``sys.unraisablehook``: a signal whose exception was raised inside a finalizer (an object's ``__del__``, a
    weakref callback), where Python prints it as "Exception ignored" and carries on, is delivered again to the main
    thread, which then unwinds as usual. Without this the check went on with the signals ignored (a SIGHUP under
    `make test`'s load left a check running)."""
    exc = unraisable.exc_value
    if _ignored_on_purpose(exc):
        return
    if isinstance(exc, (KeyboardInterrupt, Terminated)):
        signum = exc.signum if isinstance(exc, Terminated) else signal.SIGINT
        global _raised
        _raised = False  # lost in the finalizer: raised again below, or by ``ending``
        signal.signal(signum, _handler)  # _handler set every signal to _ignored: armed again for this one
        # a moment later: raised here (in this hook) it would be lost the same way; raised in another finalizer, it
        # comes back here
        _again(signum)
        return
    _unraisable_before(unraisable)


def _ignored_on_purpose(exc: object) -> bool:
    """Whether ``exc`` is Python's "Signal 15 ignored due to race condition": a second signal that arrived before
    ``_handler`` ran for the first (SIGINT, SIGTERM and SIGHUP sent at once, or held back together while the outputs
    were renamed into place) finds its handler set to ``SIG_IGN`` by then, and Python reports that as a traceback.
    It is ignored as ``_handler`` meant: the command prints one line, the first signal's."""
    if not isinstance(exc, OSError) or _received is None:
        return False
    return any(str(exc) == f"Signal {int(signum)} ignored due to race condition" for signum in SIGNALS)


def quiet_teardown(exc: BaseException) -> None:
    """Clear the frames of ``exc``'s traceback and collect garbage with fd 2 sent to /dev/null."""
    import gc  # here: this module loads first and imports no more than it needs (see _in_extension_init)
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


_HANDLER_CODES = (_handler.__code__, _at_once.__code__)


def is_console_script() -> bool:
    """True in the ``ortcopy-doctor`` script that pip writes (``from ortcopy_doctor.cli.app import main``), as
    ``cli.app`` starts to load; ``python -m ortcopy_doctor`` installs its handler in ``__main__``."""
    argv0 = os.path.basename(sys.argv[0]) if sys.argv else ""
    return argv0 in ("ortcopy-doctor", "ortcopy-doctor.exe")


__all__ = ["Terminated", "as_exception", "ending", "install", "install_startup", "is_console_script", "quiet_teardown",
           "received"]
