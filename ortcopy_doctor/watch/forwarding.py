"""Wait for a child process as a shell waits for it, passing on the signals sent to this process.

A signal that another process sends to this PID (``kill``, a supervisor's SIGTERM, a container stopping) is sent on
to the child, which handles it as it would alone. A signal from the terminal (Ctrl-C's SIGINT, Ctrl-\\'s SIGQUIT, a
hang-up) already reaches the child, which is in the same foreground process group: it is not sent a second time.
The two are told apart by the kernel's record of the sender (``si_code``: a process sent it, or the kernel did).
Meanwhile this process takes them all itself, so none ends it before the child has ended.

Two users: ``ortcopy-doctor run`` waits so for the program's interpreter (``call_forwarding``), and ``check``
runs in a forked child that a small parent watches (``fork_forwarding``, cli/supervisor.py).
"""

from __future__ import annotations

import os
import signal
from collections.abc import Callable, Sequence
from typing import Optional

FORWARDED = (signal.SIGINT, signal.SIGTERM, signal.SIGHUP, signal.SIGQUIT, signal.SIGUSR1, signal.SIGUSR2)
OWN = (signal.SIGINT, signal.SIGTERM, signal.SIGHUP)  # those this command handles itself (cli/interrupts.py)
SENT_BY_A_PROCESS = 0  # si_code <= 0: SI_USER (kill), SI_QUEUE (sigqueue), SI_TKILL (tgkill); > 0: the kernel's
POLL_S = 0.25  # the longest wait for the child's end should its SIGCHLD be missed
_WAITED = frozenset(FORWARDED) | {signal.SIGCHLD}


def call_forwarding(argv: Sequence[str], env: dict[str, str]) -> int:
    """Run ``argv``, pass on the signals another process sends to this one, and return its exit code (negative:
    the signal that ended it, as ``subprocess`` gives it)."""
    import subprocess

    late: set[int] = set()
    before = signal.pthread_sigmask(signal.SIG_BLOCK, _WAITED)
    try:
        # The child starts with the signal mask this process had before (a mask is inherited across exec).
        proc = subprocess.Popen(list(argv), env=env,
                                preexec_fn=lambda: signal.pthread_sigmask(signal.SIG_SETMASK, before))
        return _wait(proc.pid, proc.poll, late)
    finally:
        _restore(before, late)


def fork_forwarding() -> Optional[int]:
    """Fork. In the child: None, with the signal mask and handlers this process had. In this process: wait for the
    child, passing signals on, and return its wait status (``os.waitstatus_to_exitcode`` reads it).

    Where a signal is pending before the fork (it came as the signals were taken), nothing is forked: None, and the
    signal is handled here as it would have been (the caller goes on as the child would)."""
    late: set[int] = set()
    before = signal.pthread_sigmask(signal.SIG_BLOCK, _WAITED)
    try:
        if signal.sigpending() & set(FORWARDED):
            return None
        pid = os.fork()
        if pid == 0:
            return None  # the mask is restored in ``finally``, as in the parent
        status: list[int] = []

        def poll() -> Optional[int]:
            done, code = os.waitpid(pid, os.WNOHANG)
            if done == 0:
                return None
            status.append(code)
            return os.waitstatus_to_exitcode(code)

        _wait(pid, poll, late)
        return status[0]
    finally:
        _restore(before, late)


def _wait(child: int, poll: Callable[[], Optional[int]], late: set[int]) -> int:
    """Wait for ``child`` (``poll()`` gives its exit code once it has ended), passing signals on; the signals a
    process sent as it ended go into ``late``."""
    while True:
        code = poll()
        if code is not None:
            break
        info = signal.sigtimedwait(_WAITED, POLL_S)
        if info is not None and _sent_on(info, child):
            try:
                os.kill(child, info.si_signo)
            except ProcessLookupError:  # it has just ended: poll() says how
                pass
    # What is still pending came as the child ended: the terminal's (the child had it too) is dropped, one that a
    # process sent is this command's own, taken as the mask is restored (cli/interrupts.py).
    while (info := signal.sigtimedwait(_WAITED, 0)) is not None:
        if _sent_on(info, child):
            late.add(info.si_signo)
    return code


def _restore(before: set[int | signal.Signals], late: set[int]) -> None:
    signal.pthread_sigmask(signal.SIG_SETMASK, before)
    for signum in sorted(late & set(OWN)):
        os.kill(os.getpid(), signum)


def _sent_on(info: signal.struct_siginfo, child: int) -> bool:
    """Whether the signal of ``info`` is one to pass on: sent by another process than the child."""
    return info.si_signo != signal.SIGCHLD and info.si_code <= SENT_BY_A_PROCESS and info.si_pid != child


__all__ = ["FORWARDED", "call_forwarding", "fork_forwarding"]
