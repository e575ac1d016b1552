"""Two signals back to back are one line (issue 38, class 7): Ctrl-C then a supervisor's SIGTERM, CI cancelling with
SIGTERM then SIGHUP. The command ends as one of them, with its line and its exit code (130/143/129), and says nothing
about the other. Before, the second printed "OSError: Signal 15 ignored due to race condition" with a traceback under
load (the first's handler set the other signals to SIG_IGN while the second was pending in Python's signal
machinery).

Which one: the first to arrive (cli/interrupts.py reads the order Python's C handler saw them in). Before, SIGTERM then
SIGHUP that arrived while the main thread was in C code ended as SIGHUP: Python calls the handlers of the signals
pending at once in the order of their numbers (SIGHUP 1, SIGINT 2, SIGTERM 15). Two signals that reach the process
at the same moment have no order to keep: the kernel hands over the lower-numbered first, and a second one handed to
the same thread before its handler ran runs its handler first (its signal frame is on top). Under load that moment
lasts milliseconds, so the sweeps below accept either signal, with its own line and code, and the test of two
signals pending at once in Python, sent apart in time, holds the order.

In the style of tests/project/test_promises.py: real processes, real signals, exact stderr and exit codes.
"""

from __future__ import annotations

import os
import re
import signal
import subprocess
import sys
import threading
from pathlib import Path

import onnx
import pytest

import models
from render_helpers import child_env
from signal_helpers import default_signals

LINES = {signal.SIGINT: (130, "error: interrupted\n"), signal.SIGTERM: (143, "error: terminated by SIGTERM\n"),
         signal.SIGHUP: (129, "error: terminated by SIGHUP\n")}

# --- arrived while the main thread was busy in C code: both pending at once in Python ------------------------------

# A command of the test's own. Its main thread waits in os.read with the signals blocked (as it would in a session's
# run or a C extension's import), so the kernel hands both to the helper thread that sends them, one after the other,
# and its C handler marks them pending in that order; the main thread then reads, unblocks, and Python runs the
# handlers of both at its next check. Nothing depends on timing.
BUSY = """
import os, signal, threading
from ortcopy_doctor.cli import app as cli

@cli.app.command("busy-probe")
def busy_probe() -> None:
    def body():
        read, write = os.pipe()
        go = threading.Event()
        def send():
            go.wait()
            os.kill(os.getpid(), signal.{first})
            os.kill(os.getpid(), signal.{second})
            os.write(write, b"x")
        threading.Thread(target=send).start()  # made with the signals unblocked: it gets both
        old = signal.pthread_sigmask(signal.SIG_BLOCK, {{signal.SIGINT, signal.SIGTERM, signal.SIGHUP}})
        go.set()
        os.read(read, 1)
        signal.pthread_sigmask(signal.SIG_SETMASK, old)
        for _ in range(1000000):  # the handlers run here
            pass
        return 0
    cli._guard(body)

cli.main(["busy-probe"])
"""


@pytest.mark.parametrize("first, second", [(signal.SIGINT, signal.SIGTERM), (signal.SIGTERM, signal.SIGINT),
                                           (signal.SIGTERM, signal.SIGHUP), (signal.SIGHUP, signal.SIGTERM)],
                         ids=["INT-TERM", "TERM-INT", "TERM-HUP", "HUP-TERM"])
def test_two_signals_pending_at_once_end_as_the_first(tmp_path, first, second):
    code = BUSY.format(first=first.name, second=second.name)
    result = subprocess.run([sys.executable, "-c", code], cwd=tmp_path, env=child_env(), capture_output=True,
                            text=True, timeout=120, check=False, stdin=subprocess.DEVNULL, preexec_fn=default_signals)
    assert (result.returncode, result.stderr) == LINES[first]


# --- a real check and a real run, at many moments ------------------------------------------------------------------

LONG_CHECK = ["check", "model.onnx", "--dim", "batch=2", "--provider", "cpu", "--warmup", "0", "--runs", "1000",
              "--timed-runs", "1000000", "--no-html", "-q"]
PAIRS = [(signal.SIGINT, signal.SIGTERM), (signal.SIGTERM, signal.SIGHUP)]
# after the start-up handler is in place (seconds): the modules loading, the session, the runs; each try also takes
# one of the gaps between the first signal's delivery and the second one
MOMENTS = [0.0, 0.003, 0.01, 0.03, 0.08, 0.15, 0.3, 0.5, 0.8, 1.2]
GAPS = [0.0, 0.0002, 0.001, 0.003, 0.01]

# A program that runs its session until it is stopped (sleeping between runs: the recorder keeps every run).
PROGRAM = """\
import time
import numpy as np
import onnxruntime as ort
session = ort.InferenceSession("model.onnx", providers=["CPUExecutionProvider"])
x = np.zeros((2, 64), np.float32)
session.run(None, {"x": x})
open("started", "w").close()
end = time.monotonic() + 120
while time.monotonic() < end:
    session.run(None, {"x": x})
    time.sleep(0.001)
"""
RUN_AFTER_START = [0.0, 0.02, 0.1, 0.3, 0.6]


@pytest.fixture
def work(tmp_path: Path) -> Path:
    folder = tmp_path / "work"
    folder.mkdir()
    (tmp_path / "tmp").mkdir()
    onnx.save(models.cpu_op_between(), str(folder / "model.onnx"))  # x: float32 [batch, 64], 3 nodes
    (folder / "prog.py").write_text(PROGRAM, encoding="utf-8")
    return folder


def _status_bits(pid: int, field: str) -> int:
    try:
        with open(f"/proc/{pid}/status", encoding="ascii") as status:
            for line in status:
                if line.startswith(field + ":"):
                    return int(line.split()[1], 16)
    except OSError:
        pass
    return 0


def _pending(pid: int, signum: int) -> bool:
    """Whether ``signum``, sent to the process, still waits for the kernel to hand it to one of its threads."""
    return bool(_status_bits(pid, "ShdPnd") >> (signum - 1) & 1)


def _busy_loop() -> subprocess.Popen[bytes]:
    """A process that keeps a CPU busy: the command is descheduled, and signals wait (the load under which the
    tracebacks were seen)."""
    return subprocess.Popen([sys.executable, "-c", "while True: pass"], stdin=subprocess.DEVNULL)


def _two_signals(proc: subprocess.Popen[str], first: int, second: int, gap: float) -> tuple[str, str]:
    """Send ``first``; once the kernel has handed it to the process, wait ``gap`` and send ``second``; the process's
    stdout and stderr."""
    try:
        proc.send_signal(first)
        while _pending(proc.pid, first) and proc.poll() is None:
            threading.Event().wait(0.0001)  # poll interval only
        if gap:
            threading.Event().wait(gap)
        if proc.poll() is None:
            proc.send_signal(second)
        return proc.communicate(timeout=120)
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.communicate()


def _ended_as_one(outcome: tuple[int, str], first: int, second: int, before: str = "") -> bool:
    """Whether ``outcome`` (exit code, stderr) is that of ``first`` or ``second`` alone: its line (after
    ``before``, a pattern) and its exit code."""
    code, stderr = outcome
    return any(code == LINES[s][0] and re.fullmatch(before + re.escape(LINES[s][1]), stderr)
               for s in (first, second))


@pytest.mark.skipif(not Path("/proc/self/status").exists(), reason="needs /proc to see a signal delivered")
@pytest.mark.parametrize("first, second", PAIRS, ids=["INT-TERM", "TERM-HUP"])
def test_two_signals_back_to_back_to_a_check_are_one_line(work, first, second):
    env = child_env(TMPDIR=str(work.parent / "tmp"))
    env.pop("ORTCOPY_DOCTOR_DEBUG", None)
    load = _busy_loop()
    outcomes = []
    try:
        for i, moment in enumerate(MOMENTS):
            proc = subprocess.Popen([sys.executable, "-m", "ortcopy_doctor", *LONG_CHECK], cwd=work, env=env,
                                    stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                                    stdin=subprocess.DEVNULL, preexec_fn=default_signals)
            while not _status_bits(proc.pid, "SigCgt") >> (signal.SIGHUP - 1) & 1:  # the start-up handler is in
                assert proc.poll() is None, proc.communicate()
                threading.Event().wait(0.0005)  # poll interval only
            threading.Event().wait(moment)
            stdout, stderr = _two_signals(proc, first, second, GAPS[i % len(GAPS)])
            outcomes.append((moment, GAPS[i % len(GAPS)], proc.returncode, stderr[-2000:], stdout))
    finally:
        load.kill()
        load.wait()
    assert [o for o in outcomes if not _ended_as_one(o[2:4], first, second) or o[4] != ""] == []
    assert list((work.parent / "tmp").glob("ortcopy-doctor-*")) == []


def _run_s_own_traceback(stderr: str) -> bool:
    """Whether ``stderr`` holds a traceback of run's own process (its command line, an exception ignored, the race
    condition of bpo-43406), not the program's (whose frames may pass through the recorder's wrappers)."""
    return any(sign in stderr for sign in ("ortcopy_doctor/cli", "Exception ignored", "race condition"))


@pytest.mark.skipif(not Path("/proc/self/status").exists(), reason="needs /proc to see a signal delivered")
@pytest.mark.parametrize("first, second", PAIRS, ids=["INT-TERM", "TERM-HUP"])
def test_two_signals_back_to_back_to_a_run_are_one_line(work, first, second):
    # Both reach the program (run passes on what is sent to its PID), which ends as Python ends it alone: by its
    # KeyboardInterrupt (its traceback, then what run recorded and the line), or by SIGTERM/SIGHUP, before or after
    # its exit handlers wrote what was recorded (the report, if any, then the line); no traceback of run's own
    env = child_env(TMPDIR=str(work.parent / "tmp"))
    env.pop("ORTCOPY_DOCTOR_DEBUG", None)
    # the program's traceback, cut short by SIGTERM/HUP: maybe in the middle of a line, which run's line then ends
    # (the program writes to the terminal directly: run cannot see where its output stopped)
    recorded = (r"(Traceback \(most recent call last\):\n(?:.*\n)*?[^\n]*)?"
                r"(\n(?:[^\n]*; )?no host round trip between stages \(1 session\(s\), \d+ iteration\(s\)\)\n)?")
    load = _busy_loop()
    outcomes = []
    try:
        for i, moment in enumerate(RUN_AFTER_START):
            started = work / "started"
            started.unlink(missing_ok=True)
            proc = subprocess.Popen([sys.executable, "-m", "ortcopy_doctor", "run", "--no-html", "-q", "--", "python",
                                     "prog.py"], cwd=work, env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                                    text=True, stdin=subprocess.DEVNULL, preexec_fn=default_signals)
            while not started.exists():
                assert proc.poll() is None, proc.communicate()
                threading.Event().wait(0.002)  # poll interval only
            threading.Event().wait(moment)
            stdout, stderr = _two_signals(proc, first, second, GAPS[i % len(GAPS)])
            # stderr whole: the program's traceback may be longer than any tail kept, and its first line is matched
            outcomes.append((moment, GAPS[i % len(GAPS)], proc.returncode, stderr, stdout))
    finally:
        load.kill()
        load.wait()
    wrong = [o for o in outcomes if not _ended_as_one(o[2:4], first, second, recorded) or o[4] != ""
             or (o[2] == 130 and "no host round trip" not in o[3]) or _run_s_own_traceback(o[3])]
    assert wrong == []
    assert list((work.parent / "tmp").glob("ortcopy-doctor-*")) == []
