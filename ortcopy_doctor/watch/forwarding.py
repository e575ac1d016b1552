"""Wait for the program's interpreter as a shell waits for ``python PROGRAM``, passing on the signals sent to this
process.

A signal that another process sends to ``ortcopy-doctor run``'s PID (``kill``, a supervisor's SIGTERM, a container
stopping) is sent on to the program, which handles it as it would alone. A signal from the terminal (Ctrl-C's
SIGINT, Ctrl-\\'s SIGQUIT, a hang-up) already reaches the program, which is in the same foreground process group: it
is not sent a second time. The two are told apart by the kernel's record of the sender (``si_code``: a process
sent it, or the kernel did). Meanwhile this process takes them all itself, so none ends it before the program has
ended and its report is written.
"""

from __future__ import annotations

import os
import signal
import subprocess
from collections.abc import Sequence

FORWARDED = (signal.SIGINT, signal.SIGTERM, signal.SIGHUP, signal.SIGQUIT, signal.SIGUSR1, signal.SIGUSR2)
OWN = (signal.SIGINT, signal.SIGTERM, signal.SIGHUP)  # those this command handles itself (cli/interrupts.py)
SENT_BY_A_PROCESS = 0  # si_code <= 0: SI_USER (kill), SI_QUEUE (sigqueue), SI_TKILL (tgkill); > 0: the kernel's
POLL_S = 0.25  # the longest wait for the child's end should its SIGCHLD be missed


def call_forwarding(argv: Sequence[str], env: dict[str, str]) -> int:
    """Run ``argv``, pass on the signals another process sends to this one, and return its exit code (negative:
    the signal that ended it, as ``subprocess`` gives it)."""
    waited = set(FORWARDED) | {signal.SIGCHLD}
    late: set[int] = set()
    before = signal.pthread_sigmask(signal.SIG_BLOCK, waited)
    try:
        # The child starts with the signal mask this process had before (a mask is inherited across exec).
        proc = subprocess.Popen(list(argv), env=env,
                                preexec_fn=lambda: signal.pthread_sigmask(signal.SIG_SETMASK, before))
        while True:
            code = proc.poll()
            if code is not None:
                break
            info = signal.sigtimedwait(waited, POLL_S)
            if info is not None and _sent_on(info, proc.pid):
                try:
                    os.kill(proc.pid, info.si_signo)
                except ProcessLookupError:  # it has just ended: poll() says how
                    pass
        # What is still pending came as the program ended: the terminal's (the program had it too) is dropped, one
        # that a process sent is this command's own, taken as the mask is restored (cli/interrupts.py).
        while (info := signal.sigtimedwait(waited, 0)) is not None:
            if _sent_on(info, proc.pid):
                late.add(info.si_signo)
        return code
    finally:
        signal.pthread_sigmask(signal.SIG_SETMASK, before)
        for signum in sorted(late & set(OWN)):
            os.kill(os.getpid(), signum)


def _sent_on(info: signal.struct_siginfo, child: int) -> bool:
    """Whether the signal of ``info`` is one to pass on: sent by another process than the program's."""
    return (info.si_signo != signal.SIGCHLD and info.si_code <= SENT_BY_A_PROCESS and info.si_pid != child)


__all__ = ["FORWARDED", "call_forwarding"]
