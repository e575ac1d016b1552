"""A check ended by what no Python code sees, an abort or SIGKILL, still gets its one line and leaves no temporary
folder (issue 38, class 8; cli/supervisor.py): the process the user started watches the check in a forked child.

Each test starts a long check (1000 profiled runs of a tiny model), waits for the child's temporary folder to appear
(named after the child's PID: collect/scratch.py), and sends the child the signal itself, as onnxruntime's abort or
the kernel's out-of-memory killer would.
"""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import onnx
import pytest

import models
from render_helpers import child_env
from signal_helpers import default_signals

LONG_CHECK = ["check", "model.onnx", "--dim", "batch=2", "--provider", "cpu", "--warmup", "0", "--runs", "1000",
              "--timed-runs", "1000000", "--no-html", "-q"]


@pytest.fixture
def work(tmp_path: Path) -> Path:
    folder = tmp_path / "work"
    folder.mkdir()
    (tmp_path / "tmp").mkdir()
    onnx.save(models.cpu_op_between(), str(folder / "model.onnx"))
    return folder


def _start(work: Path, entry: str = "module") -> subprocess.Popen[str]:
    env = child_env(TMPDIR=str(work.parent / "tmp"))
    env.pop("ORTCOPY_DOCTOR_DEBUG", None)
    command = [sys.executable, "-m", "ortcopy_doctor"] if entry == "module" else [
        sys.executable, "-c", "import sys; from ortcopy_doctor.cli.app import main; sys.argv[0] = 'ortcopy-doctor'; "
        "sys.exit(main())"]
    return subprocess.Popen([*command, *LONG_CHECK, "--json", "out.json"], cwd=work, env=env, stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE, text=True, stdin=subprocess.DEVNULL, preexec_fn=default_signals)


def _child_of(work: Path, proc: subprocess.Popen[str]) -> int:
    """The PID of the check's child, read from its temporary folder's name once it exists."""
    deadline = time.monotonic() + 120
    while time.monotonic() < deadline:
        assert proc.poll() is None, proc.communicate()
        for entry in (work.parent / "tmp").glob("ortcopy-doctor-*"):
            return int(entry.name.split("-")[2])
        time.sleep(0.01)
    raise AssertionError("the check never made its temporary folder")


def _ended(proc: subprocess.Popen[str]) -> tuple[int, str, str]:
    try:
        out, err = proc.communicate(timeout=120)
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.communicate()
    return proc.returncode, out, err


@pytest.mark.parametrize("entry", ["module", "script"])
def test_an_abort_of_the_check_is_one_line_and_exit_3_with_its_folder_removed(work, entry):
    proc = _start(work, entry)
    child = _child_of(work, proc)
    assert child != proc.pid
    os.kill(child, signal.SIGABRT)
    code, out, err = _ended(proc)
    assert (code, out, err) == (3, "", "error: onnxruntime aborted the check (SIGABRT; an allocation failed in native "
                                       "code, as when memory or `ulimit -v` runs out): free memory, or lower what the "
                                       "check holds (--runs, the --dim/--shape values, --inputs; "
                                       "ORTCOPY_DOCTOR_MEMORY_BUDGET bounds what check plans for, "
                                       "docs/guarantees.md)\n")
    assert list((work.parent / "tmp").glob("ortcopy-doctor-*")) == []  # ORT may leave its own files there
    assert sorted(p.name for p in work.iterdir()) == ["model.onnx"]  # no report, no temporary output


def test_sigkill_of_the_check_is_one_line_and_exit_3_with_its_folder_removed(work):
    proc = _start(work)
    os.kill(_child_of(work, proc), signal.SIGKILL)
    code, _, err = _ended(proc)
    assert (code, err.split(":")[0], err.count("\n")) == (3, "error", 1)
    assert "SIGKILL; the kernel's out-of-memory killer" in err
    assert list((work.parent / "tmp").glob("ortcopy-doctor-*")) == []  # ORT may leave its own files there


def test_a_crash_in_native_code_is_one_line_and_exit_4(work):
    proc = _start(work)
    os.kill(_child_of(work, proc), signal.SIGSEGV)
    code, _, err = _ended(proc)
    assert (code, err) == (4, "error: native code crashed the check (SIGSEGV): set ORTCOPY_DOCTOR_DEBUG=1 and report "
                              "it\n")
    assert list((work.parent / "tmp").glob("ortcopy-doctor-*")) == []  # ORT may leave its own files there


@pytest.mark.parametrize("signum, code, line", [(signal.SIGTERM, 143, "error: terminated by SIGTERM\n"),
                                                (signal.SIGINT, 130, "error: interrupted\n")])
def test_a_signal_sent_to_the_pid_the_user_started_reaches_the_check(work, signum, code, line):
    proc = _start(work)
    _child_of(work, proc)
    proc.send_signal(signum)
    assert _ended(proc) == (code, "", line)
    assert list((work.parent / "tmp").glob("ortcopy-doctor-*")) == []  # ORT may leave its own files there


def test_the_check_ends_when_the_process_the_user_started_is_killed(work):
    proc = _start(work)
    child = _child_of(work, proc)
    proc.kill()
    proc.communicate()
    deadline = time.monotonic() + 30
    while Path(f"/proc/{child}").exists() and time.monotonic() < deadline:
        time.sleep(0.01)
    assert not Path(f"/proc/{child}").exists()  # PR_SET_PDEATHSIG: no check runs on, orphaned


def test_a_check_that_ends_normally_has_the_child_s_exit_code(work):
    env = child_env(TMPDIR=str(work.parent / "tmp"))
    env.pop("ORTCOPY_DOCTOR_DEBUG", None)
    result = subprocess.run([sys.executable, "-m", "ortcopy_doctor", "check", "model.onnx", "--dim", "batch=2",
                             "--provider", "cpu", "--no-html", "-q", "--fail-on", "info"], cwd=work, env=env,
                            capture_output=True, text=True, timeout=120, check=False, stdin=subprocess.DEVNULL)
    plain = subprocess.run([sys.executable, "-c", "import sys; from ortcopy_doctor.cli.app import main; "
                            "main(sys.argv[1:])", "check", "model.onnx", "--dim", "batch=2", "--provider", "cpu",
                            "--no-html", "-q", "--fail-on", "info"], cwd=work, env=env, capture_output=True,
                           text=True, timeout=120, check=False, stdin=subprocess.DEVNULL)  # main(args): no child
    assert (result.returncode, result.stdout, result.stderr) == (plain.returncode, plain.stdout, plain.stderr)
