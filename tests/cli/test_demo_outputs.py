"""What `demo` leaves on disk: nothing beside a device or FIFO output (`-o /dev/null` writes no /dev/demo.onnx),
and nothing at all after a refused option, an error or Ctrl-C, while a folder or file that was there before stays.

The CLI runs as a real subprocess from an empty working folder, with its own TMPDIR. Ctrl-C is a real SIGINT sent
to the process group once the process shows it reached the point under test: a sitecustomize of the test (first on
PYTHONPATH, as tests/cli/test_gc_policy.py does) holds the process there, at an audited file operation, and marks
it with a file, so no assertion depends on timing.
"""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import threading
from collections.abc import Iterator
from pathlib import Path

import pytest

from render_helpers import child_env
from signal_helpers import default_signals

DEMO = [sys.executable, "-m", "ortcopy_doctor", "demo"]
CPU = ["--provider", "cpu", "--fail-on", "never"]
DEV_MODEL = "/dev/demo.onnx"
NOT_KEPT = ("Demo report: /dev/null  (model: built in a temporary folder and removed; --html DIR/demo.html keeps it "
            "as DIR/demo.onnx)")

# Held at one audited event (the first that matches, on the main thread) until a signal ends the wait.
HOOK = '''
import os, sys, threading, time

_EVENT, _NAME = os.environ["DEMO_TEST_PAUSE_AT"].split(":")
_MARK = os.environ["DEMO_TEST_PAUSED"]
_held = []


def _pause(event, args):
    if event != _EVENT or _held or threading.current_thread() is not threading.main_thread():
        return
    path = args[1] if event == "os.link" else args[0]
    if not isinstance(path, (str, bytes, os.PathLike)):
        return
    name = os.path.basename(os.fsdecode(path))
    if name != _NAME and not (_NAME.endswith("*") and name.startswith(_NAME[:-1])):
        return
    _held.append(name)
    with open(_MARK, "w") as f:
        f.write(name)
    while True:
        time.sleep(0.01)


sys.addaudithook(_pause)
'''

# Where the process is held: before demo.onnx is linked into place (its folder made, its temporary file written),
# when the check opens the written model, and when the check removes the profile of its runs (the session has run,
# the page is not rendered yet).
BEFORE_LINK = "os.link:demo.onnx"
MODEL_READ = "open:demo.onnx"
AFTER_RUNS = "os.remove:profile_*"


@pytest.fixture
def work(tmp_path: Path) -> Path:
    folder = tmp_path / "work"
    folder.mkdir()
    (tmp_path / "tmp").mkdir()
    return folder


@pytest.fixture
def no_dev_model() -> Iterator[None]:
    """For a test whose output is in /dev: a /dev/demo.onnx the run created (as root the old demo wrote it
    there) is removed afterwards, and fails the test."""
    existed = os.path.lexists(DEV_MODEL)
    yield
    if not existed and os.path.lexists(DEV_MODEL):
        os.unlink(DEV_MODEL)
        pytest.fail(f"demo with its output in /dev wrote {DEV_MODEL} (removed now)")


def _env(work: Path, *first: Path, **extra: str) -> dict[str, str]:
    env = child_env(*first, TMPDIR=str(work.parent / "tmp"), **extra)
    for name in ("COLUMNS", "LINES", "FORCE_COLOR", "TTY_COMPATIBLE", "TTY_INTERACTIVE", "ORTCOPY_DOCTOR_DEBUG"):
        env.pop(name, None)
    return env


def _demo(work: Path, *args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([*DEMO, *args], cwd=work, env=_env(work), capture_output=True, text=True, timeout=300,
                          check=False, stdin=subprocess.DEVNULL)


def _ours_in_tmp(work: Path) -> list[str]:
    """This tool's temporary folders left in the run's TMPDIR (a library's own file there is not ours)."""
    return sorted(p.name for p in (work.parent / "tmp").glob("ortcopy-doctor-*"))


def _listing(folder: Path) -> list[str]:
    return sorted(os.listdir(folder))


def _interrupted(work: Path, pause_at: str, *args: str) -> subprocess.CompletedProcess[str]:
    """``demo ARGS`` held at ``pause_at`` (see HOOK), then sent SIGINT as a terminal sends it, to its group."""
    hook = work.parent / "hook"
    hook.mkdir()
    (hook / "sitecustomize.py").write_text(HOOK, encoding="utf-8")
    mark = hook / "paused"
    env = _env(work, hook, DEMO_TEST_PAUSE_AT=pause_at, DEMO_TEST_PAUSED=str(mark))
    proc = subprocess.Popen([*DEMO, *args], cwd=work, env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                            text=True, stdin=subprocess.DEVNULL, start_new_session=True, preexec_fn=default_signals)
    try:
        while not mark.exists():
            assert proc.poll() is None, proc.communicate()  # it ended without reaching the point under test
            threading.Event().wait(0.02)  # poll interval only; nothing asserts on time
        os.killpg(proc.pid, signal.SIGINT)
        stdout, stderr = proc.communicate(timeout=300)
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.communicate()
    return subprocess.CompletedProcess(proc.args, proc.returncode, stdout, stderr)


def _assert_interrupted(result: subprocess.CompletedProcess[str]) -> None:
    assert (result.returncode, result.stderr, result.stdout) == (130, "error: interrupted\n", "")


def _demo_model_bytes() -> bytes:
    from ortcopy_doctor.collect.demo_model import build_demo_model

    return build_demo_model().SerializeToString()


# --- a device or FIFO output: nothing beside it -------------------------------------------------------------------


def test_dev_null_output_writes_no_model_into_dev(work):
    existed = os.path.lexists(DEV_MODEL)
    result = _demo(work, *CPU, "-o", "/dev/null")
    created = not existed and os.path.lexists(DEV_MODEL)
    if created:  # as root the old demo wrote it there: never leave it behind
        os.unlink(DEV_MODEL)
    assert not created
    assert result.returncode == 0, result.stderr
    assert DEV_MODEL not in result.stdout  # (a /dev/demo.onnx left by an earlier run was not used either)


def test_dev_null_output_leaves_no_file_and_no_temporary_folder(work, no_dev_model):
    result = _demo(work, *CPU, "-o", "/dev/null")
    assert result.returncode == 0, result.stderr
    assert (_listing(work), _ours_in_tmp(work)) == ([], [])


def test_dev_null_output_says_the_model_was_not_kept(work, no_dev_model):
    result = _demo(work, *CPU, "-o", "/dev/null")
    assert result.returncode == 0, result.stderr
    assert result.stdout.splitlines()[-1] == NOT_KEPT


def test_fifo_output_gets_the_page_and_nothing_is_written_beside_it(work):
    fifo = work / "page.html"
    os.mkfifo(fifo)
    page: list[bytes] = []
    reader = threading.Thread(target=lambda: page.append(fifo.read_bytes()), daemon=True)
    reader.start()
    try:
        result = _demo(work, *CPU, "-o", "page.html")
    finally:
        try:  # a reader still waiting (the demo never opened the FIFO) gets its end of file
            os.close(os.open(fifo, os.O_WRONLY | os.O_NONBLOCK))
        except OSError:
            pass
        reader.join(timeout=60)
    assert result.returncode == 0, result.stderr
    assert page[0].startswith(b"<!DOCTYPE html>")
    assert (_listing(work), _ours_in_tmp(work)) == (["page.html"], [])


def test_dev_stdout_output_is_the_page_alone_on_stdout(work, no_dev_model):
    result = _demo(work, *CPU, "-o", "/dev/stdout")
    assert result.returncode == 0, result.stderr
    assert result.stdout.startswith("<!DOCTYPE html>\n")
    assert result.stdout.endswith("</html>")  # the page ends there: no report after it
    assert "Demo report: /dev/stdout  (model: built in a temporary folder and removed" in result.stderr


# --- a refused option or output: nothing created ------------------------------------------------------------------


@pytest.mark.parametrize("output", ["fresh/x.html", "fresh/a/b/x.html"])
def test_unknown_provider_creates_no_folder(work, output):
    result = _demo(work, "-p", "nope", "-o", output)
    assert result.returncode == 2
    assert result.stderr.startswith("error: unknown provider 'nope': ")
    assert len(result.stderr.splitlines()) == 1
    assert _listing(work) == []


def test_unknown_provider_keeps_an_existing_folder_as_it_was(work):
    (work / "out").mkdir()
    (work / "out" / "keep.txt").write_text("mine", encoding="utf-8")
    result = _demo(work, "-p", "nope", "-o", "out/x.html")
    assert result.returncode == 2
    assert result.stderr.startswith("error: unknown provider 'nope': ")
    assert _listing(work / "out") == ["keep.txt"]
    assert (work / "out" / "keep.txt").read_text(encoding="utf-8") == "mine"


def test_refused_output_removes_the_folder_made_for_it(work):
    """The folder is made first (the output is checked in it), then the name is refused: the folder goes again."""
    result = _demo(work, *CPU, "-o", "fresh/sub/" + "n" * 300 + ".html")
    assert result.returncode == 2
    assert "file name is too long" in result.stderr
    assert len(result.stderr.splitlines()) == 1
    assert _listing(work) == []


# --- Ctrl-C: nothing this run made is left, what was there before stays ------------------------------------------


@pytest.mark.parametrize("pause_at", [BEFORE_LINK, MODEL_READ, AFTER_RUNS])
def test_interrupt_leaves_no_folder_and_no_model(work, pause_at):
    result = _interrupted(work, pause_at, *CPU, "-o", "fresh/x.html")
    _assert_interrupted(result)
    assert (_listing(work), _ours_in_tmp(work)) == ([], [])


@pytest.mark.parametrize("pause_at", [BEFORE_LINK, MODEL_READ, AFTER_RUNS])
def test_interrupt_keeps_an_existing_folder_with_nothing_added(work, pause_at):
    (work / "out").mkdir()
    (work / "out" / "keep.txt").write_text("mine", encoding="utf-8")
    result = _interrupted(work, pause_at, *CPU, "-o", "out/x.html")
    _assert_interrupted(result)
    assert _listing(work / "out") == ["keep.txt"]


def test_interrupt_keeps_a_demo_model_that_was_there_before(work):
    (work / "out").mkdir()
    (work / "out" / "demo.onnx").write_bytes(_demo_model_bytes())
    result = _interrupted(work, MODEL_READ, *CPU, "-o", "out/x.html")
    _assert_interrupted(result)
    assert _listing(work / "out") == ["demo.onnx"]
    assert (work / "out" / "demo.onnx").read_bytes() == _demo_model_bytes()


@pytest.mark.parametrize("pause_at", [MODEL_READ, AFTER_RUNS])
def test_interrupt_with_dev_null_output_removes_the_temporary_model(work, pause_at, no_dev_model):
    result = _interrupted(work, pause_at, *CPU, "-o", "/dev/null")
    _assert_interrupted(result)
    assert (_listing(work), _ours_in_tmp(work)) == ([], [])
