"""Outputs against stdin, FIFOs and symlinks (issue 38, classes 1, 6 and 11), as tests/project/test_promises.py tests
the other promises of docs/guarantees.md: real processes, real files, one exact ``error:`` line and exit code.

1. Every input, however it arrives (a path, ``-``, ``/dev/stdin``, a symlink or hard link to either), is registered
   before any output is opened; an output that is one is refused with exit 2 and the input is unchanged.
6. No output step waits with signals held back: a FIFO with no reader is awaited for ``ORTCOPY_DOCTOR_FIFO_WAIT``
   seconds, then one line and exit 3; a signal while a FIFO or stdout waits ends the command at once with its one
   line and leaves no temporary file; several signals at once are still one line.
11. A symlinked output whose target's folder is missing (or is no folder) names that folder, as the link's target's.
"""

from __future__ import annotations

import fcntl
import os
import signal
import stat
import subprocess
import sys
import threading
from pathlib import Path
from typing import IO, Any

import onnx
import pytest

import models
from render_helpers import child_env
from signal_helpers import default_signals
from test_promises import assert_one_error, listing, sha, write_report_json


FIFO_WAIT = "ORTCOPY_DOCTOR_FIFO_WAIT"


def doctor(args: list[str], cwd: Path, *, stdin: Any = subprocess.DEVNULL, timeout: float = 120,
           **env: str) -> subprocess.CompletedProcess[str]:
    """The CLI as a subprocess with the given stdin (a file, a pipe), as ``cli`` of test_promises runs it."""
    environment = child_env()
    environment.pop("ORTCOPY_DOCTOR_DEBUG", None)
    environment.pop(FIFO_WAIT, None)
    environment.update(env)
    return subprocess.run([sys.executable, "-m", "ortcopy_doctor", *args], cwd=cwd, env=environment, stdin=stdin,
                          capture_output=True, text=True, timeout=timeout, check=False)


@pytest.fixture
def reports(tmp_path: Path) -> Path:
    write_report_json(tmp_path / "in.json")
    write_report_json(tmp_path / "b.json")
    return tmp_path


# --- 1. an input arriving on stdin is an input -------------------------------------------------------------------


@pytest.mark.parametrize("args, fragment", [
    (["report", "-", "-o", "in.json"], "--html in.json is the evidence JSON, read from stdin"),
    (["report", "-", "--sarif", "/dev/stdin"], "--sarif /dev/stdin is the evidence JSON, read from stdin"),
    (["report", "-", "--json", "/proc/self/fd/0"], "--json /proc/self/fd/0 is the evidence JSON, read from stdin"),
    (["report", "-", "--trace", "hard.json"], "--trace hard.json is the evidence JSON, read from stdin"),
    (["report", "-", "--json", "link.json"], "--json link.json is the evidence JSON, read from stdin"),
    (["diff", "-", "b.json", "--html", "in.json"], "--html in.json is report a, read from stdin"),
    (["diff", "b.json", "-", "--html", "/dev/stdin"], "--html /dev/stdin is report b, read from stdin"),
    (["report", "/dev/stdin", "-o", "in.json"], "--html in.json is the evidence JSON /dev/stdin"),
    (["diff", "b.json", "/dev/fd/0", "-o", "link.json"], "--html link.json is report b /dev/fd/0"),
])
def test_output_onto_the_json_read_from_stdin_is_refused(reports, args, fragment):
    # `report - -o in.json < in.json` replaced the JSON it read, exit 0: the file behind stdin was no input
    os.link(reports / "in.json", reports / "hard.json")
    (reports / "link.json").symlink_to("in.json")
    before, files = sha(reports / "in.json"), listing(reports)
    with open(reports / "in.json", "rb") as stdin:
        result = doctor(args, reports, stdin=stdin)
    assert_one_error(result, 2, fragment, "which would be overwritten")
    assert sha(reports / "in.json") == before
    assert listing(reports) == files
    assert os.stat(reports / "hard.json").st_ino == os.stat(reports / "in.json").st_ino  # the hard link kept


def test_output_onto_the_pipe_read_as_stdin_is_refused(reports):
    data = (reports / "in.json").read_bytes()
    proc = subprocess.Popen([sys.executable, "-m", "ortcopy_doctor", "report", "-", "--json", "/dev/stdin"],
                            cwd=reports, env=child_env(), stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE, text=False)
    stdout, stderr = proc.communicate(data, timeout=120)
    assert (proc.returncode, stdout, stderr.decode()) == (
        2, b"", "error: --json /dev/stdin is the evidence JSON, read from stdin, which would be overwritten: give the "
                "output another path\n")


def test_output_into_the_commands_own_unread_stdin_pipe_is_refused(reports):
    # it was written into the pipe this process holds the reading end of: lost, or (past the pipe's buffer) a wait
    # for a reader that is the process itself
    read, write = os.pipe()
    try:
        with os.fdopen(read, "rb") as stdin:
            result = doctor(["report", "in.json", "--json", "/dev/stdin"], reports, stdin=stdin)
    finally:
        os.close(write)
    assert_one_error(result, 2, "--json /dev/stdin is this command's stdin (a pipe), which it never reads")


def test_check_output_onto_the_model_on_stdin_is_refused(tmp_path):
    onnx.save(models.cpu_op_between(), str(tmp_path / "model.onnx"))
    before = sha(tmp_path / "model.onnx")
    with open(tmp_path / "model.onnx", "rb") as stdin:
        result = doctor(["check", "model.onnx", "--static", "--json", "/dev/stdin"], tmp_path, stdin=stdin)
    assert_one_error(result, 2, "--json /dev/stdin is the model model.onnx, which would be overwritten")
    assert sha(tmp_path / "model.onnx") == before


def test_a_model_file_named_dash_is_an_input(tmp_path):
    # `-` was taken for stdin and not registered at all, so `--json DIR/-` replaced a model file named "-"
    onnx.save(models.cpu_op_between(), str(tmp_path / "-"))
    before = sha(tmp_path / "-")
    result = doctor(["check", "-", "--static", "--no-html", "--json", str(tmp_path / "-")], tmp_path)
    assert_one_error(result, 2, f"--json {tmp_path / '-'} is the model -, which would be overwritten")
    assert sha(tmp_path / "-") == before


def test_run_output_onto_the_programs_stdin_is_refused(reports):
    (reports / "prog.py").write_text("import sys\nsys.stdin.read()\n", encoding="utf-8")
    before = sha(reports / "in.json")
    with open(reports / "in.json", "rb") as stdin:
        result = doctor(["run", "--json", "in.json", "--no-html", "--", "python", "prog.py"], reports, stdin=stdin)
    assert_one_error(result, 2, "--json in.json is the program's stdin, which would be overwritten")
    assert sha(reports / "in.json") == before


# --- 6. a FIFO (or stdout) that waits for its reader: never with signals held back ------------------------------


def test_fifo_output_with_no_reader_fails_after_the_wait_and_writes_nothing(reports):
    # it waited in open() forever, with SIGINT/SIGTERM/SIGHUP held back: only SIGKILL ended it
    os.mkfifo(reports / "pipe")
    files = listing(reports)
    try:
        result = doctor(["report", "in.json", "--json", "pipe", "-o", "out.html"], reports, timeout=60,
                        **{FIFO_WAIT: "0.3"})
    except subprocess.TimeoutExpired:
        pytest.fail("no end 60 s after a 0.3 s wait for the FIFO's reader")
    assert_one_error(result, 3, "--json pipe: no program opened this FIFO for reading within 0.3 s: start its reader "
                                f"first (or set {FIFO_WAIT}=SECONDS to wait longer), or give a file path")
    assert listing(reports) == files  # no out.html, no temporary file


def test_a_bad_fifo_wait_is_refused_before_any_work(reports):
    os.mkfifo(reports / "pipe")
    result = doctor(["report", "in.json", "--json", "pipe"], reports, **{FIFO_WAIT: "soon"})
    assert_one_error(result, 2, f"{FIFO_WAIT}=soon: give the seconds to wait for a FIFO output's reader")


def _start(args: list[str], cwd: Path, stdout: int | IO[bytes] = subprocess.DEVNULL) -> subprocess.Popen[bytes]:
    env = child_env()
    env.pop("ORTCOPY_DOCTOR_DEBUG", None)

    def preexec() -> None:
        default_signals()
        os.umask(0o022)

    return subprocess.Popen([sys.executable, "-m", "ortcopy_doctor", *args], cwd=cwd, env=env, stdout=stdout,
                            stderr=subprocess.PIPE, stdin=subprocess.DEVNULL, preexec_fn=preexec)


def _sleeping(proc: subprocess.Popen[bytes]) -> bool:
    """Whether the process waits in the kernel (state S), not running (R)."""
    try:
        fields = Path(f"/proc/{proc.pid}/stat").read_text().rsplit(")", 1)[1].split()
    except OSError:
        return False
    return fields[0] == "S"


def _wait_until(proc: subprocess.Popen[bytes], reached: Any) -> None:
    while not reached():
        assert proc.poll() is None, proc.communicate()
        threading.Event().wait(0.02)  # poll interval only; nothing asserts on time


def _staged_and_waiting(proc: subprocess.Popen[bytes], folder: Path) -> bool:
    """The HTML's temporary file written whole (its mode is set last, 0644 under umask 022) and the process asleep:
    it is in the commit, waiting for the FIFO's reader (nothing else sleeps after staging)."""
    staged = [p for p in folder.glob(".ortcopy-*.tmp") if stat.S_IMODE(p.stat().st_mode) == 0o644]
    return bool(staged) and _sleeping(proc)


def _finish(proc: subprocess.Popen[bytes], fifo: Path | None = None, drain: IO[bytes] | None = None) -> str:
    """The process's stderr once it ended; where it did not within 60 s, its reader is given what it waits for
    (so that it ends) and the test fails."""
    try:
        return proc.communicate(timeout=60)[1].decode()
    except subprocess.TimeoutExpired:
        if fifo is not None:
            with open(fifo, "rb") as reader:
                reader.read()
        if drain is not None:
            drain.read()
        _, stderr = proc.communicate(timeout=60)
        pytest.fail(f"still waiting 60 s after the signal (it ended once its reader read); stderr: {stderr[-2000:]!r}")
    finally:
        if proc.poll() is None:
            proc.kill()


@pytest.mark.parametrize("signum, code, line", [
    (signal.SIGINT, 130, "error: interrupted"),
    (signal.SIGTERM, 143, "error: terminated by SIGTERM"),
    (signal.SIGHUP, 129, "error: terminated by SIGHUP"),
])
def test_a_signal_while_waiting_for_a_fifo_reader_ends_the_command(reports, signum, code, line):
    os.mkfifo(reports / "pipe")
    files = listing(reports)
    proc = _start(["report", "in.json", "--json", "pipe", "-o", "out.html"], reports)
    _wait_until(proc, lambda: _staged_and_waiting(proc, reports))
    proc.send_signal(signum)
    stderr = _finish(proc, fifo=reports / "pipe")
    assert (proc.returncode, stderr.splitlines()) == (code, [line])
    assert listing(reports) == files  # no out.html, no temporary file


def test_a_signal_while_a_fifo_reader_does_not_read_ends_the_command(reports):
    # a reader that opened the FIFO and reads nothing: the write waited with the signals held back
    os.mkfifo(reports / "pipe")
    files = listing(reports)
    reader = os.open(reports / "pipe", os.O_RDONLY | os.O_NONBLOCK)  # a reader, which never reads
    try:
        fcntl.fcntl(reader, fcntl.F_SETPIPE_SZ, 4096)  # the report's 34 KB do not fit: the write waits
        proc = _start(["report", "in.json", "--json", "pipe", "-o", "out.html"], reports)
        _wait_until(proc, lambda: _staged_and_waiting(proc, reports))
        proc.send_signal(signal.SIGTERM)
        with os.fdopen(os.dup(reader), "rb") as drain:
            os.set_blocking(drain.fileno(), True)
            stderr = _finish(proc, drain=drain)
    finally:
        os.close(reader)
    assert (proc.returncode, stderr.splitlines()) == (143, ["error: terminated by SIGTERM"])
    assert listing(reports) == files  # no out.html, no temporary file


def test_signals_sent_together_while_waiting_are_one_line(reports):
    # held back while it waited, they were all delivered once a reader came: a traceback per extra signal
    # ("OSError: Signal 15 ignored due to race condition")
    os.mkfifo(reports / "pipe")
    files = listing(reports)
    proc = _start(["report", "in.json", "--json", "pipe", "-o", "out.html"], reports)
    _wait_until(proc, lambda: _staged_and_waiting(proc, reports))
    for signum in (signal.SIGINT, signal.SIGTERM, signal.SIGHUP):
        proc.send_signal(signum)
    stderr = _finish(proc, fifo=reports / "pipe")
    lines = {130: "error: interrupted", 143: "error: terminated by SIGTERM", 129: "error: terminated by SIGHUP"}
    assert proc.returncode in lines, stderr
    assert stderr.splitlines() == [lines[proc.returncode]]
    assert listing(reports) == files


_HELD_TOGETHER = """
import os, signal, time
from ortcopy_doctor.cli import interrupts
interrupts.install()
held = {signal.SIGINT, signal.SIGTERM, signal.SIGHUP}
try:
    signal.pthread_sigmask(signal.SIG_BLOCK, held)  # as the renames of the outputs hold them back
    for signum in (signal.SIGTERM, signal.SIGINT, signal.SIGHUP):
        os.kill(os.getpid(), signum)
    signal.pthread_sigmask(signal.SIG_UNBLOCK, held)
    time.sleep(5)
    print("went on")
except (interrupts.Terminated, KeyboardInterrupt) as exc:
    print("unwound", type(exc).__name__)
for _ in range(100000):  # the other two are checked for here
    pass
"""


def test_signals_held_back_together_are_one_exception_and_no_traceback(tmp_path):
    result = subprocess.run([sys.executable, "-c", _HELD_TOGETHER], cwd=tmp_path, env=child_env(),
                            capture_output=True, text=True, timeout=120, preexec_fn=default_signals)
    assert (result.returncode, result.stdout, result.stderr) == (0, "unwound Terminated\n", "")  # SIGHUP: first


def test_a_signal_while_stdout_waits_for_its_reader_ends_the_command(reports):
    # `--json -` into a pipe whose reader does not read: the write waited with the signals held back
    read, write = os.pipe()
    fcntl.fcntl(write, fcntl.F_SETPIPE_SZ, 4096)  # the report's 34 KB do not fit: the write waits
    try:
        proc = _start(["report", "in.json", "--json", "-", "-o", "out.html"], reports, stdout=write)
    finally:
        os.close(write)
    with os.fdopen(read, "rb") as drain:
        _wait_until(proc, lambda: (reports / "out.html").exists() and _sleeping(proc))
        proc.send_signal(signal.SIGTERM)
        stderr = _finish(proc, drain=drain)
    assert (proc.returncode, stderr.splitlines()) == (143, ["error: terminated by SIGTERM"])
    assert [p.name for p in reports.glob(".ortcopy-*")] == []


# --- 11. a symlinked output names its target's folder ---------------------------------------------------------


@pytest.mark.parametrize("link, target, message", [
    ("out.json", "missing/deeper/out.json",
     "--json out.json is a symbolic link to {d}/missing/deeper/out.json, whose folder {d}/missing/deeper does not "
     "exist: create it or choose another path"),
    ("out.json", "in.json/out.json",
     "--json out.json is a symbolic link to {d}/in.json/out.json, whose folder {d}/in.json is not a folder: choose "
     "another path"),
    ("sub/out.json", "../missing/out.json",
     "--json sub/out.json is a symbolic link to {d}/missing/out.json, whose folder {d}/missing does not exist: "
     "create it or choose another path"),
    ("sub", "missing",
     "--json sub/out.json: folder sub is a symbolic link to {d}/missing, which does not exist: create it or choose "
     "another path"),
])
def test_a_symlinked_output_names_its_targets_missing_folder(reports, link, target, message):
    # it said "folder . does not exist" (the link's own folder, which exists)
    d = os.path.realpath(reports)
    if link.startswith("sub/"):
        (reports / "sub").mkdir()
    (reports / link).symlink_to(target)
    files = listing(reports)
    result = doctor(["report", "in.json", "--json", "sub/out.json" if link == "sub" else link], reports)
    assert result.stderr == f"error: {message.format(d=d)}\n"
    assert result.returncode == 2
    assert listing(reports) == files


def test_a_symlink_chain_names_the_last_targets_folder(reports):
    (reports / "b").symlink_to("missing/out.json")
    (reports / "a").symlink_to("b")
    d = os.path.realpath(reports)
    result = doctor(["report", "in.json", "--json", "a"], reports)
    assert_one_error(result, 2, f"--json a is a symbolic link to {d}/missing/out.json, whose folder {d}/missing does "
                                "not exist")
