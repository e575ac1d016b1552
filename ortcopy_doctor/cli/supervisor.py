"""``check`` and ``demo`` from the command line run in a forked child that this process watches, so that even an
end Python cannot see in the child gets its one ``error:`` line and leaves no temporary folder.

onnxruntime aborts the process (SIGABRT, exit 134) where an allocation fails inside native code that cannot report
it, as when ``ulimit -v`` runs out during a profiled run; the kernel's out-of-memory killer sends SIGKILL. Neither
runs any Python code: no line was printed and the evidence session's temporary folder (ORT's optimized model,
with a copy of the weights, and its profile) stayed until the next check. The parent here is the process the user
started: it forks at once, before anything but the command line's modules is loaded, waits for the child (passing
on the signals sent to its PID: watch/forwarding.py; the terminal's reach the child directly), and then exits
with the child's exit code, or, where the child was ended by a signal, removes the child's temporary folders
(collect/scratch.py) and prints the line. The child dies with the parent (``PR_SET_PDEATHSIG``), should the
parent be killed.

Not supervised: the library (``api.check``), ``run`` (the program has an interpreter of its own already),
``report``, ``diff``, ``env``, and platforms without ``fork`` or ``/proc`` (there, an abort ends the check as
before).
"""

from __future__ import annotations

import os
import signal
from collections.abc import Callable
from typing import TYPE_CHECKING

from ortcopy_doctor.model.lazy import lazy_import

if TYPE_CHECKING:
    import ctypes as _ctypes

    from ortcopy_doctor.collect import scratch as _scratch
    from ortcopy_doctor.watch import forwarding as _forwarding
else:  # run on first use (model/lazy.py): only a supervised command forks, only its child asks for prctl
    _ctypes = lazy_import("ctypes")
    _scratch = lazy_import("ortcopy_doctor.collect.scratch")
    _forwarding = lazy_import("ortcopy_doctor.watch.forwarding")

COMMANDS = frozenset({"check", "demo"})
PR_SET_PDEATHSIG = 1  # linux/prctl.h

# What the line says for the signals no Python code sees, and the exit code (docs/guarantees.md).
_MEMORY = ("free memory, or lower what the check holds (--runs, the --dim/--shape values, --inputs; "
           "ORTCOPY_DOCTOR_MEMORY_BUDGET bounds what check plans for, docs/guarantees.md)")
ENDINGS: dict[int, tuple[int, str]] = {
    signal.SIGABRT: (3, "onnxruntime aborted the check (SIGABRT; an allocation failed in native code, as when "
                        f"memory or `ulimit -v` runs out): {_MEMORY}"),
    signal.SIGKILL: (3, "the check was killed (SIGKILL; the kernel's out-of-memory killer sends it when memory runs "
                        f"out): {_MEMORY}"),
    signal.SIGSEGV: (4, "native code crashed the check (SIGSEGV): set ORTCOPY_DOCTOR_DEBUG=1 and report it"),
    signal.SIGBUS: (4, "native code crashed the check (SIGBUS): set ORTCOPY_DOCTOR_DEBUG=1 and report it"),
}


def supervise(argv: list[str], print_error: Callable[[str], None]) -> None:
    """Fork where ``argv`` is a command to supervise: return in the child (it goes on as the command), never in the
    parent (it exits with the child's outcome, its line printed with ``print_error``)."""
    if (not argv or argv[0] not in COMMANDS or not hasattr(os, "fork") or not os.path.exists("/proc/self/ns/pid")
            or "--help" in argv or "-h" in argv):
        return
    parent = os.getpid()
    status = _forwarding.fork_forwarding()
    if status is None:
        if os.getpid() != parent:
            _die_with(parent)
        return
    os._exit(_outcome(status, print_error))


def _die_with(parent: int) -> None:
    """In the child: be killed when the parent ends (Linux); end at once if it already has."""
    try:
        _ctypes.CDLL(None, use_errno=True).prctl(PR_SET_PDEATHSIG, int(signal.SIGKILL), 0, 0, 0)
    except (OSError, AttributeError):  # not Linux's libc: the child outlives a killed parent, as a check did before
        return
    if os.getppid() != parent:  # the parent ended before the request: nobody waits for this check
        os._exit(128 + int(signal.SIGKILL))


def _outcome(status: int, print_error: Callable[[str], None]) -> int:
    """The exit code for the child's wait ``status``, with its line and its temporary folders removed where it was
    ended by a signal."""
    if os.WIFEXITED(status):
        return os.WEXITSTATUS(status)
    signum = os.WTERMSIG(status) if os.WIFSIGNALED(status) else 0
    _remove_left_folders()
    code, line = ENDINGS.get(int(signum), (128 + int(signum), ""))
    if line:
        try:
            print_error(line)
        except OSError:  # stderr closed: the exit code says it
            pass
    return code


def _remove_left_folders() -> None:
    _scratch.remove_left_behind()


__all__ = ["COMMANDS", "ENDINGS", "supervise"]
