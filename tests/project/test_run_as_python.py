"""`ortcopy-doctor run -- python PROG` runs the program as `python PROG` runs it (issue 38), one class of broken
promise per section; each test runs the same program both ways, as real processes, and compares what it prints.

* what the program sees of itself: ``__file__`` (absolute), ``sys.argv``, ``sys.path[0]``, its ``__main__`` module,
  the signal dispositions Python gives it and the default ``sys.excepthook``; a directory or a zip file with a
  ``__main__.py`` runs as Python runs it;
* a child the program makes with ``os.fork()`` that returns ends as Python ends it: its exit handlers run, and it
  never prints a report nor touches the report files;
* the report is made after the program's end as Python ends it: its non-daemon threads (an executor left running
  included) and its ``atexit`` handlers, whose sessions are in the report;
* a signal sent to `run`'s PID reaches the program, with ``--subprocess`` too, and the program's own handler and
  ``sys.excepthook`` are the ones called.
"""

from __future__ import annotations

import hashlib
import json
import os
import signal
import subprocess
import sys
import textwrap
import time
import zipfile
from pathlib import Path

import onnx
import pytest

import models
from render_helpers import REPO
from signal_helpers import default_signals

MODES = [[], ["--subprocess"]]
MODE_IDS = ["in-process", "subprocess"]

# What a program sees of itself, printed one fact a line.
PROBE = """
import os, signal, sys

def shown(handler):
    names = {signal.SIG_DFL: "SIG_DFL", signal.SIG_IGN: "SIG_IGN", signal.default_int_handler: "default_int_handler"}
    return names.get(handler, "another handler")

spec = globals().get("__spec__")
print("__file__", __file__)
print("argv", sys.argv)
print("sys.path", sys.path)
print("sys.orig_argv", sys.orig_argv[1:])
print("PYTHONPATH", os.environ.get("PYTHONPATH"), [name for name in os.environ if name.startswith("ORTCOPY_DOCTOR")])
print("__name__", __name__, "__package__", __package__, "__builtins__", type(__builtins__).__name__)
print("__spec__", spec and (spec.name, spec.origin))
print("__loader__", type(__loader__).__name__)
print("the __main__ module", sys.modules["__main__"].__dict__ is globals())
for name in ("SIGINT", "SIGTERM", "SIGHUP"):
    print(name, shown(signal.getsignal(getattr(signal, name))))
print("sys.excepthook", sys.excepthook is sys.__excepthook__)
print("sys.unraisablehook", sys.unraisablehook is sys.__unraisablehook__)
here = os.path.dirname(__file__)
os.chdir("/")
if os.path.isdir(here):  # a file next to the program, found through __file__ after a chdir
    with open(os.path.join(here, "data.txt"), encoding="utf-8") as f:
        print("next to it", f.read())
"""

SESSION = """
import numpy as np
import onnxruntime as ort

def infer(model, calls=1):
    session = ort.InferenceSession(model, providers=["CPUExecutionProvider"])
    for _ in range(calls):
        session.run(None, {"image": np.zeros((1, 3, 32, 32), np.float32)})
"""


def _env() -> dict[str, str]:
    env = {key: value for key, value in os.environ.items() if key != "ORTCOPY_DOCTOR_DEBUG"}
    env["PYTHONPATH"] = os.pathsep.join([str(REPO)] + ([env["PYTHONPATH"]] if env.get("PYTHONPATH") else []))
    return env


def _python(cwd: Path, *argv: str) -> subprocess.CompletedProcess[str]:
    """``python *argv`` in ``cwd``, alone."""
    return subprocess.run([sys.executable, *argv], cwd=cwd, env=_env(), capture_output=True, text=True, timeout=120,
                          check=False, stdin=subprocess.DEVNULL, preexec_fn=default_signals)


def _run(cwd: Path, *argv: str) -> subprocess.CompletedProcess[str]:
    """``python -m ortcopy_doctor run *argv`` in ``cwd``."""
    return subprocess.run([sys.executable, "-m", "ortcopy_doctor", "run", *argv], cwd=cwd, env=_env(),
                          capture_output=True, text=True, timeout=300, check=False, stdin=subprocess.DEVNULL,
                          preexec_fn=default_signals)


def _write(path: Path, body: str) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(textwrap.dedent(body), encoding="utf-8")
    return path


def _model(folder: Path) -> Path:
    path = folder / "model.onnx"
    onnx.save(models.conv_net(), str(path))
    return path


def _report(folder: Path) -> dict:
    return json.loads((folder / "r.json").read_text(encoding="utf-8"))


def _calls(report: dict) -> list[tuple[str, int]]:
    return [(s["label"], len(s["observations"]["calls"])) for s in report["observations"]["sessions"]]


# --- what the program sees of itself ----------------------------------------------------------------------------------


def _programs(folder: Path) -> None:
    _write(folder / "prog.py", PROBE)
    _write(folder / "data.txt", "found")
    _write(folder / "app" / "__main__.py", PROBE)
    _write(folder / "app" / "data.txt", "found in app")
    with zipfile.ZipFile(folder / "app.pyz", "w") as archive:
        archive.writestr("__main__.py", PROBE)
    _write(folder / "pkg" / "__init__.py", "")
    _write(folder / "pkg" / "__main__.py", PROBE)
    _write(folder / "pkg" / "data.txt", "found in pkg")


@pytest.mark.parametrize("program", [["prog.py", "a", "-b"], ["./prog.py"], ["app", "x"], ["app.pyz", "y"],
                                     ["-m", "pkg", "z"]], ids=["script", "dot-slash", "directory", "zip", "module"])
def test_the_program_sees_itself_as_python_shows_it(tmp_path, program):
    _programs(tmp_path)
    alone = _python(tmp_path, *program)
    assert alone.returncode == 0, alone.stderr
    result = _run(tmp_path, "--no-html", "-q", "--", "python", *program)
    assert (result.returncode, result.stdout) == (0, alone.stdout), result.stderr
    assert result.stderr == "\nno onnxruntime session was created by the program\n"


def test_the_program_sees_itself_as_python_shows_it_in_a_child_interpreter(tmp_path):
    _programs(tmp_path)
    alone = _python(tmp_path, "prog.py", "a")
    result = _run(tmp_path, "--subprocess", "--no-html", "-q", "--", "python", "prog.py", "a")
    assert (result.returncode, result.stdout) == (0, alone.stdout), result.stderr


# --- the program's uncaught exception and its own excepthook -----------------------------------------------------------


@pytest.mark.parametrize("mode", MODES, ids=MODE_IDS)
def test_the_program_s_own_excepthook_prints_its_uncaught_exception(tmp_path, mode):
    _write(tmp_path / "prog.py", """
        import sys
        def hook(kind, value, tb):
            print("the program's hook:", kind.__name__, value, tb.tb_frame.f_code.co_filename == __file__)
        sys.excepthook = hook
        raise ValueError("bad frame")
    """)
    alone = _python(tmp_path, "prog.py")
    result = _run(tmp_path, *mode, "--no-html", "-q", "--", "python", "prog.py")
    assert (alone.returncode, alone.stdout) == (1, "the program's hook: ValueError bad frame True\n")
    assert (result.returncode, result.stdout) == (1, alone.stdout), result.stderr


@pytest.mark.parametrize("mode", MODES, ids=MODE_IDS)
def test_an_uncaught_exception_is_printed_as_python_prints_it(tmp_path, mode):
    _write(tmp_path / "prog.py", """
        def stage():
            raise ValueError("bad frame")
        stage()
    """)
    alone = _python(tmp_path, "prog.py")
    result = _run(tmp_path, *mode, "--no-html", "-q", "--", "python", "prog.py")
    assert alone.returncode == result.returncode == 1
    assert result.stderr == alone.stderr + "\nno onnxruntime session was created by the program\n"


# --- a child made by os.fork() ----------------------------------------------------------------------------------------

# The child returns normally; onnxruntime is imported in the parent only, after the fork (a child forked after
# `import onnxruntime` hangs at its exit, waiting for threads that stayed in the parent, with or without the tool).
FORK = """
import atexit, os, sys, time
parent = os.getpid()
pid = os.fork()
if pid == 0:
    atexit.register(lambda: open("child-exited", "w").close())  # Python runs it as the child returns
    print("child returns", flush=True)
    if {outlive}:
        while os.getppid() == parent:  # until the parent process has ended
            time.sleep(0.01)
else:
    if not {outlive}:
        _, status = os.waitpid(pid, 0)
        print("child status", os.waitstatus_to_exitcode(status), flush=True)
{session}
    infer("model.onnx", 3)
    print("parent returns", flush=True)
"""


def _fork_program(outlive: bool) -> str:
    return FORK.format(outlive=outlive, session=textwrap.indent(SESSION, "    "))


def _wait_for(path: Path) -> None:
    deadline = time.monotonic() + 60
    while not path.exists():
        assert time.monotonic() < deadline, f"{path.name} never appeared"
        time.sleep(0.02)


@pytest.mark.parametrize("mode", MODES, ids=MODE_IDS)
def test_a_forked_child_that_returns_ends_as_python_ends_it_without_a_report(tmp_path, mode):
    _model(tmp_path)
    _write(tmp_path / "prog.py", _fork_program(False))
    alone = _python(tmp_path, "prog.py")
    assert (alone.returncode, alone.stdout) == (0, "child returns\nchild status 0\nparent returns\n"), alone.stderr
    (tmp_path / "child-exited").unlink()
    result = _run(tmp_path, *mode, "--json", "r.json", "--no-html", "-q", "--", "python", "prog.py")
    assert (result.returncode, result.stdout) == (0, alone.stdout), result.stderr
    assert (tmp_path / "child-exited").exists()
    assert _calls(_report(tmp_path)) == [("model.onnx", 3)]  # the parent's calls, not the child's


@pytest.mark.parametrize("mode", MODES, ids=MODE_IDS)
def test_a_forked_child_that_outlives_the_program_leaves_the_report_alone(tmp_path, mode):
    _model(tmp_path)
    _write(tmp_path / "prog.py", _fork_program(True))
    result = _run(tmp_path, *mode, "--json", "r.json", "-o", "r.html", "-q", "--", "python", "prog.py")
    assert result.returncode == 0, result.stderr
    written = {name: hashlib.sha256((tmp_path / name).read_bytes()).hexdigest() for name in ("r.json", "r.html")}
    _wait_for(tmp_path / "child-exited")
    time.sleep(0.2)  # what the child would do after its exit handlers (the command's report) has had time
    assert {name: hashlib.sha256((tmp_path / name).read_bytes()).hexdigest() for name in written} == written
    assert _calls(_report(tmp_path)) == [("model.onnx", 3)]
    assert sorted(p.name for p in tmp_path.iterdir()) == ["child-exited", "model.onnx", "prog.py", "r.html", "r.json"]


# --- the program's end: its threads and its exit handlers -------------------------------------------------------------

LATE = SESSION + """
import atexit, threading, time
from concurrent.futures import ThreadPoolExecutor

def late():
    time.sleep(0.3)  # the script has returned by now
    infer("model.onnx", 2)
    print("thread done", flush=True)

threading.Thread(target=late).start()
executor = ThreadPoolExecutor(1)  # left running: Python's exit stops its idle worker
executor.submit(infer, "model.onnx", 1)
atexit.register(lambda: (infer("model.onnx", 3), print("atexit done", flush=True)))
print("script returns", flush=True)
"""


@pytest.mark.parametrize("mode", MODES, ids=MODE_IDS)
def test_sessions_of_threads_and_exit_handlers_after_the_script_are_reported(tmp_path, mode):
    _model(tmp_path)
    _write(tmp_path / "prog.py", LATE)
    alone = _python(tmp_path, "prog.py")
    assert (alone.returncode, alone.stdout) == (0, "script returns\nthread done\natexit done\n"), alone.stderr
    result = _run(tmp_path, *mode, "--json", "r.json", "--no-html", "-q", "--", "python", "prog.py")
    assert (result.returncode, result.stdout) == (0, alone.stdout), result.stderr
    # the executor's session first, then the thread's, then the exit handler's
    assert _calls(_report(tmp_path)) == [("model.onnx", 1), ("model.onnx#2", 2), ("model.onnx#3", 3)]


# --- Ctrl-C at a terminal -------------------------------------------------------------------------------------------

ONCE = """
import sys, time
try:  # from before "ready": the Ctrl-C typed as it shows is the program's to catch
    sys.stdout.write("ready\\n")
    sys.stdout.flush()
    time.sleep(60)
except KeyboardInterrupt:
    print("interrupted", flush=True)
    time.sleep(0.5)  # a second SIGINT would interrupt this
    print("once", flush=True)
"""


def _at_a_terminal(cwd: Path, *argv: str) -> tuple[int, str]:
    """``argv`` run with a pseudo-terminal as its controlling terminal and standard streams, Ctrl-C typed there once
    the program is ready: the exit code and what the terminal showed."""
    import fcntl
    import pty
    import select
    import termios

    def session() -> None:
        default_signals()
        fcntl.ioctl(0, termios.TIOCSCTTY, 0)  # the terminal of this new session: Ctrl-C goes to its foreground

    master, slave = pty.openpty()
    proc = subprocess.Popen(list(argv), cwd=cwd, env=_env(), stdin=slave, stdout=slave, stderr=slave,
                            start_new_session=True, preexec_fn=session)
    os.close(slave)
    shown, deadline, typed = b"", time.monotonic() + 120, False
    try:
        while time.monotonic() < deadline:
            if not typed and b"ready" in shown:
                os.write(master, b"\x03")
                typed = True
            ready, _, _ = select.select([master], [], [], 1)
            if ready:
                try:
                    data = os.read(master, 4096)
                except OSError:  # EIO: every process holding the terminal has ended
                    break
                if not data:
                    break
                shown += data
        return proc.wait(timeout=60), shown.decode(errors="replace").replace("\r\n", "\n")
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait()
        os.close(master)


@pytest.mark.parametrize("mode", MODES, ids=MODE_IDS)
def test_ctrl_c_at_a_terminal_reaches_the_program_once(tmp_path, mode):
    # the terminal sends SIGINT to its whole foreground process group, the program's process included: `run` does
    # not pass it on again
    _write(tmp_path / "prog.py", ONCE)
    code, shown = _at_a_terminal(tmp_path, sys.executable, "-m", "ortcopy_doctor", "run", *mode, "--no-html", "-q",
                                 "--", "python", "prog.py")
    assert (code, shown) == (0, "ready\n^Cinterrupted\nonce\n\nno onnxruntime session was created by the program\n")


# --- signals sent to run's PID ----------------------------------------------------------------------------------------

LOOP = """
import signal, sys, time
{handler}
session = ort.InferenceSession("model.onnx", providers=["CPUExecutionProvider"])
print("ready", flush=True)
while True:
    session.run(None, {{"image": np.zeros((1, 3, 32, 32), np.float32)}})
    time.sleep(0.01)
"""


def _signalled(tmp_path: Path, handler: str, signum: int, *mode: str) -> subprocess.CompletedProcess[str]:
    """``run`` on a program that loops until a signal, sent ``signum`` to its own PID (not its process group) once
    the program is ready."""
    _model(tmp_path)
    _write(tmp_path / "prog.py", SESSION + LOOP.format(handler=handler))
    cmd = [sys.executable, "-m", "ortcopy_doctor", "run", *mode, "--json", "r.json", "--no-html", "-q", "--",
           "python", "prog.py"]
    proc = subprocess.Popen(cmd, cwd=tmp_path, env=_env(), stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                            stdin=subprocess.DEVNULL, preexec_fn=default_signals)
    try:
        assert proc.stdout is not None and proc.stdout.readline() == "ready\n"
        proc.send_signal(signum)
        out, err = proc.communicate(timeout=60)
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.communicate()
    return subprocess.CompletedProcess(cmd, proc.returncode, out, err)


@pytest.mark.parametrize("mode", MODES, ids=MODE_IDS)
def test_sigint_sent_to_run_s_pid_interrupts_the_program_and_the_report_is_written(tmp_path, mode):
    result = _signalled(tmp_path, "", signal.SIGINT, *mode)
    assert result.returncode == 130, result.stderr
    # the program's traceback, as Python prints it, then the verdict
    assert result.stderr.startswith("Traceback (most recent call last):\n"), result.stderr
    assert "\nKeyboardInterrupt\n\n" in result.stderr
    assert _report(tmp_path)["ended_by"] == "interrupt"


@pytest.mark.parametrize("mode", MODES, ids=MODE_IDS)
@pytest.mark.parametrize("signum", [signal.SIGTERM, signal.SIGHUP], ids=["SIGTERM", "SIGHUP"])
def test_a_signal_sent_to_run_s_pid_reaches_the_program_s_own_handler(tmp_path, mode, signum):
    handler = (f"signal.signal({int(signum)}, lambda *_: (print('handled', flush=True), sys.exit(7)))")
    result = _signalled(tmp_path, handler, signum, *mode)
    assert (result.returncode, result.stdout) == (7, "handled\n"), result.stderr
    assert (_report(tmp_path)["ended_by"], _report(tmp_path)["exit_code"]) == ("exit", 7)


# --- what the program does before its import of onnxruntime ------------------------------------------------------------


def test_a_lookup_of_onnxruntime_before_its_import_leaves_the_import_recorded(tmp_path):
    # torch.onnx asks importlib whether onnxruntime is installed before the program imports it (on the H200, the
    # detect_classify_torch example was reported as creating no session)
    _model(tmp_path)
    _write(tmp_path / "prog.py", "import importlib.util\nassert importlib.util.find_spec('onnxruntime') is not None\n"
           + SESSION + "\ninfer('model.onnx', 2)\n")
    result = _run(tmp_path, "--json", "r.json", "--no-html", "-q", "--", "python", "prog.py")
    assert result.returncode == 0, result.stderr
    assert _calls(_report(tmp_path)) == [("model.onnx", 2)]


def test_a_failed_import_of_onnxruntime_leaves_a_later_one_recorded(tmp_path):
    _model(tmp_path)
    _write(tmp_path / "prog.py", "import sys\nsys.modules['numpy'] = None  # numpy missing: onnxruntime fails to load\n"
           "try:\n    import onnxruntime\nexcept ImportError:\n    print('failed once', flush=True)\n"
           "del sys.modules['numpy']\n" + SESSION + "\ninfer('model.onnx', 1)\n")
    alone = _python(tmp_path, "prog.py")
    assert (alone.returncode, alone.stdout) == (0, "failed once\n"), alone.stderr
    result = _run(tmp_path, "--json", "r.json", "--no-html", "-q", "--", "python", "prog.py")
    assert (result.returncode, result.stdout) == (0, "failed once\n"), result.stderr
    assert _calls(_report(tmp_path)) == [("model.onnx", 1)]
