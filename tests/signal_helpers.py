"""Child processes that a test sends a signal to (or that send one to themselves).

A signal ignored when a process starts stays ignored across fork and exec, and a command keeps it ignored, as
Python and the shells do (cli/interrupts.py): so a test that launches its child with the dispositions this test
process inherited fails where pytest itself was started with the signal ignored. A shell's background job
(`make test &` from a script, `(make test > log 2>&1 &)`) ignores SIGINT and SIGQUIT; `nohup make test` ignores
SIGHUP. Every child a test signals is therefore started with ``preexec_fn=default_signals``: the child starts as
it would from an interactive terminal, whatever pytest inherited (tests/project/test_launched_in_background.py
runs some of these tests under pytest started with SIGINT and SIGHUP ignored).
"""

from __future__ import annotations

import signal
from collections.abc import Callable

# The signals a shell or nohup may leave ignored, and the ones the tests send.
RESET = tuple(getattr(signal, name) for name in ("SIGINT", "SIGTERM", "SIGHUP", "SIGQUIT") if hasattr(signal, name))


def default_signals() -> None:
    """``preexec_fn`` of a child a test signals: SIGINT, SIGTERM, SIGHUP and SIGQUIT at their default action (in the
    forked child, before exec; Python then installs its own SIGINT handler as it always does)."""
    for signum in RESET:
        signal.signal(signum, signal.SIG_DFL)


def ignoring(*signums: int) -> Callable[[], None]:
    """``preexec_fn`` that starts the child with ``signums`` ignored (as a background job or nohup starts it) and
    the others of ``RESET`` at their default action."""

    def preexec() -> None:
        default_signals()
        for signum in signums:
            signal.signal(signum, signal.SIG_IGN)

    return preexec
