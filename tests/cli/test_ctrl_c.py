"""Ctrl-C at any moment of the command is one line, `error: interrupted`, and exit 130; never a traceback, a core
dump or another error line (README "What is guaranteed", cli/interrupts.py). And a process started with a signal
ignored (a background job, nohup) keeps ignoring it.

The command runs as a real process, through each entry point: the `ortcopy-doctor` script (a copy of the one pip
writes, `from ortcopy_doctor.cli.app import main`) and `python -m ortcopy_doctor`. A real SIGINT is sent:

* at a chosen moment, by the process to itself, from a sitecustomize of the test (first on PYTHONPATH, as
  tests/cli/test_demo_outputs.py does): when an import starts, inside a C extension's initialisation, at an audited
  file operation (the model read, ORT's temporary folder, the template, the final rename), or in the exit handlers.
  Nothing depends on timing;
* after a sweep of delays, counted from the moment the command's start-up handler is installed.

What no handler covers, measured on the 2-CPU machine (Python 3.11, idle; two to three times as long under load):
Python's own start-up, ~8 ms (`python -c pass`, exit included; before `site` a SIGINT kills the process silently,
during `site` Python prints "Fatal Python error: init_import_site" and a traceback; `python -m` then imports runpy),
then ~3.5 ms of ours until `install_startup`: `import signal` ~3 ms (it loads enum), the package's __init__ and
cli/interrupts.py under 1 ms. Before, the handler came after the package's __init__ had also imported typing and
importlib: ~8 ms of ours, where a Ctrl-C printed a traceback through typing (seen 10-25 ms after the start). The
sweep therefore starts once the handler is in place: /proc/PID/status lists SIGHUP as caught, which Python never
does by itself. `test_the_modules_before_the_handler_are_few` keeps that part short.
"""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import threading
from pathlib import Path

import onnx
import pytest

import models
from render_helpers import child_env
from signal_helpers import default_signals, ignoring

# pip's console script for `ortcopy-doctor = "ortcopy_doctor.cli.app:main"` (pip 24-25), run with this interpreter.
SCRIPT = """\
import sys
from ortcopy_doctor.cli.app import main
if __name__ == '__main__':
    sys.argv[0] = sys.argv[0].removesuffix('.exe')
    sys.exit(main())
"""

# The process sends itself the signal ORTCOPY_TEST_SIGNAL once, at ORTCOPY_TEST_AT:
#   import:NAME        when the import of NAME starts (before its code runs)
#   init:NAME          inside the initialisation of the C extension NAME: at the first Python code that runs there
#                      (a function it calls, or the audit hook of an event it raises)
#   init:NAME:FUNC     inside that initialisation, when it calls the Python function FUNC
#   run:NAME           as the body of the Python module NAME ends, all of it run (for a module lazy_import hands
#                      out: at its first attribute read, not at the import that found it)
#   event:EVENT:NAME   at the audit event EVENT on the main thread whose path argument's name is NAME (NAME* a prefix)
#   exit               in the last exit handler (atexit), after the command's own
# and writes ORTCOPY_TEST_SENT when it did.
HOOK = r'''
import atexit, os, sys, threading

_AT = os.environ["ORTCOPY_TEST_AT"]
_SIGNUM = int(os.environ["ORTCOPY_TEST_SIGNAL"])
_SENT = os.environ["ORTCOPY_TEST_SENT"]
_kind, _, _what = _AT.partition(":")
_what, _, _function = _what.partition(":") if _kind == "init" else (_what, "", "")
_done = []
_armed = []
_busy = []


def _send():
    if not _done:
        _done.append(True)
        with open(_SENT, "w"):
            pass
        os.kill(os.getpid(), _SIGNUM)


def _matches(path, name):
    if not isinstance(path, (str, bytes, os.PathLike)):
        return False
    base = os.path.basename(os.fsdecode(path))
    return base == name or (name.endswith("*") and base.startswith(name[:-1]))


def _inside_init(frame):
    # whether ``frame`` runs inside the C code of NAME's initialisation: below the frame of importlib's
    # _call_with_frames_removed that calls it, under the extension loader's create_module or exec_module
    while frame is not None:
        outer = frame.f_back
        if (frame.f_code.co_name == "_call_with_frames_removed" and outer is not None
                and outer.f_code.co_name in ("create_module", "exec_module")
                and type(outer.f_locals.get("self")).__name__ == "ExtensionFileLoader"
                and getattr(outer.f_locals.get("self"), "name", None) == _what):
            return True
        frame = outer
    return False


class _AtImport:
    def find_spec(self, fullname, path=None, target=None):
        if fullname == _what and not _done:
            if _kind == "import":
                _send()
            elif _kind == "run":
                sys.setprofile(_module_runs)
            else:
                _armed.append(True)
                sys.setprofile(_called_in_init)
        return None


def _module_runs(frame, event, arg):
    if event == "return" and frame.f_code.co_name == "<module>" and frame.f_globals.get("__name__") == _what:
        sys.setprofile(None)
        _send()


def _called_in_init(frame, event, arg):
    # a Python function the init calls (onnx's nanobind module makes its enums with enum.py)
    if event != "call" or _done or _busy or (_function and frame.f_code.co_name != _function):
        return
    _busy.append(True)  # looking at the frames raises audit events: not the init's
    try:
        if _inside_init(frame.f_back):
            sys.setprofile(None)
            _send()
    finally:
        _busy.clear()


def _audited_in_init(event, args):
    # an event the init raises (ORT's pybind11 module calls no Python function once numpy is loaded, but sets
    # attributes of its types: "object.__setattr__"); not the "import" event importlib raises before the init runs
    if not _armed or _done or _busy or event == "import":
        return
    _busy.append(True)  # looking at the frames raises audit events: not the init's
    try:
        if _inside_init(sys._getframe(1)):
            _send()
    finally:
        _busy.clear()


def _audit(event, args):
    name, _, pattern = _what.partition(":")
    if event == name and not _done and threading.current_thread() is threading.main_thread():
        if any(_matches(arg, pattern) for arg in args[:2]):
            _send()


if _kind in ("import", "init", "run"):
    sys.meta_path.insert(0, _AtImport())
if _kind == "init" and not _function:
    sys.addaudithook(_audited_in_init)
elif _kind == "event":
    sys.addaudithook(_audit)
elif _kind == "exit":
    atexit.register(_send)  # registered first: runs last
'''

CHECK = ["check", "model.onnx", "--dim", "batch=2", "--provider", "cpu", "--json", "out.json", "-o", "out.html", "-q"]
LOUD = ["check", "model.onnx", "--dim", "batch=2", "--provider", "cpu", "--json", "out.json", "-o", "out.html"]
STATIC = ["check", "model.onnx", "--dim", "batch=2", "--static", "--json", "out.json", "-o", "out.html", "-q"]
VERDICT = "CPU-only session: no host↔device copies (all 3 nodes on CPU).\n"


@pytest.fixture
def work(tmp_path: Path) -> Path:
    folder = tmp_path / "work"
    folder.mkdir()
    (tmp_path / "tmp").mkdir()
    onnx.save(models.cpu_op_between(), str(folder / "model.onnx"))  # x: float32 [batch, 64], 3 nodes
    (tmp_path / "ortcopy-doctor").write_text(SCRIPT, encoding="utf-8")
    return folder


def _command(work: Path, entry: str) -> list[str]:
    if entry == "script":
        return [sys.executable, str(work.parent / "ortcopy-doctor")]
    return [sys.executable, "-m", "ortcopy_doctor"]


def _env(work: Path, *first: Path, **extra: str) -> dict[str, str]:
    env = child_env(*first, TMPDIR=str(work.parent / "tmp"), **extra)
    for name in ("ORTCOPY_DOCTOR_DEBUG", "COLUMNS", "FORCE_COLOR"):
        env.pop(name, None)
    return env


def _signalled_at(work: Path, entry: str, at: str, args: list[str], signum: int = signal.SIGINT,
                  preexec=default_signals) -> subprocess.CompletedProcess[str]:
    """The command ``args`` through ``entry``, sending itself ``signum`` at ``at`` (see HOOK), which must happen."""
    hook = work.parent / "hook"
    hook.mkdir()
    (hook / "sitecustomize.py").write_text(HOOK, encoding="utf-8")
    sent = hook / "sent"
    env = _env(work, hook, ORTCOPY_TEST_AT=at, ORTCOPY_TEST_SIGNAL=str(int(signum)), ORTCOPY_TEST_SENT=str(sent))
    result = subprocess.run([*_command(work, entry), *args], cwd=work, env=env, capture_output=True, text=True,
                            timeout=300, check=False, stdin=subprocess.DEVNULL, preexec_fn=preexec)
    assert sent.exists(), f"the process never reached {at}: {result.stderr[-2000:]}"
    return result


def _ours_in_tmp(work: Path) -> list[str]:
    return sorted(p.name for p in (work.parent / "tmp").glob("ortcopy-doctor-*"))


# --- at a chosen moment --------------------------------------------------------------------------------------------

# In the order the command reaches them: a measured check (onnx imported as the model is read), then a static one
# (onnx's shape inference).
MOMENTS = [
    (CHECK, "import:typer"),  # the first module cli/app.py imports after its handler; the arguments are parsed with it
    (CHECK, "import:ortcopy_doctor.api"),
    (CHECK, "import:numpy"),
    (CHECK, "event:open:model.onnx"),  # the model read
    (CHECK, "import:onnxruntime"),
    # a real Ctrl-C there gave "error: internal error: ImportError: initialization failed" (pybind11 wraps what its
    # init raises), exit 4; raised from an event of the init, it aborted the process ("terminate called after
    # throwing an instance of 'pybind11::error_already_set'")
    (CHECK, "init:onnxruntime.capi.onnxruntime_pybind11_state"),
    # collect/environment.py hands importlib.metadata out with lazy_import; its body first runs inside onnx's
    # `import importlib.metadata`, which reads its __spec__ from C and (3.10-3.12) drops what the read raised: a real
    # Ctrl-C there was lost and the check exited 0 (test_ctrl_c_after_any_delay_is_one_line, under load)
    (CHECK, "run:importlib.metadata"),
    (CHECK, "event:os.mkdir:ortcopy-doctor-*"),  # the session's temporary folder, made just before ORT's session
    (CHECK, "import:jinja2"),  # rendering the HTML report
    (CHECK, "event:open:report.html.j2"),
    (CHECK, "event:os.rename:out.html"),  # the final write (os.replace; signals wait until every output is in)
    (LOUD, "import:rich"),  # printing the report on the terminal
    (CHECK, "exit"),  # the exit handlers, after the command's outcome is printed
    (STATIC, "import:onnx"),
    # onnx's nanobind module makes its enums with enum.py: a KeyboardInterrupt raised in the enum's __setattr__
    # made nanobind call std::terminate (the process aborted with a core dump, "terminate called after throwing an
    # instance of 'nanobind::python_error'"), as a real Ctrl-C did in a sweep of delays
    (STATIC, "init:onnx.onnx_cpp2py_export:__setattr__"),
]


@pytest.mark.parametrize("args, at", MOMENTS, ids=[at for _, at in MOMENTS])
def test_ctrl_c_at_each_moment_of_a_check_is_one_line(work, args, at):
    result = _signalled_at(work, "script", at, args)
    assert (result.returncode, result.stderr) == (130, "error: interrupted\n"), result.stderr[-3000:]
    assert _ours_in_tmp(work) == []


@pytest.mark.parametrize("at", ["import:typer", "import:numpy", "init:onnxruntime.capi.onnxruntime_pybind11_state",
                                "exit"])
def test_ctrl_c_through_python_dash_m_is_one_line(work, at):
    result = _signalled_at(work, "module", at, CHECK)
    assert (result.returncode, result.stderr) == (130, "error: interrupted\n"), result.stderr[-3000:]


@pytest.mark.parametrize("signum, code, line", [(signal.SIGTERM, 143, "error: terminated by SIGTERM\n"),
                                                (signal.SIGHUP, 129, "error: terminated by SIGHUP\n")])
@pytest.mark.parametrize("args, at", [(CHECK, "import:numpy"), (STATIC, "init:onnx.onnx_cpp2py_export:__setattr__"),
                                      (CHECK, "exit")], ids=["import:numpy", "init:onnx", "exit"])
def test_sigterm_and_sighup_at_a_moment_are_one_line(work, args, at, signum, code, line):
    result = _signalled_at(work, "script", at, args, signum=signum)
    assert (result.returncode, result.stderr) == (code, line), result.stderr[-3000:]


# What pybind11 does with an exception its module's init raised: another one takes its place (a real Ctrl-C inside
# onnxruntime's init gave "error: internal error: ImportError: initialization failed", exit 4). Here a command of
# the test raises it, in its body or while its option is parsed.
REPLACED = """
import os, signal, time, typer
from ortcopy_doctor.cli import app as cli

def replaced(value=None):
    try:
        os.kill(os.getpid(), signal.SIG{name})
        time.sleep(30)
    except BaseException as exc:
        raise ImportError("initialization failed") from exc
    return value

@cli.app.command("body-probe")
def body_probe() -> None:
    cli._guard(lambda: replaced() or 0)

@cli.app.command("parse-probe")
def parse_probe(x: str = typer.Option("a", callback=replaced)) -> None:
    pass

cli.main(["{command}"])
"""


@pytest.mark.parametrize("name, code, line", [("INT", 130, "error: interrupted\n"),
                                              ("TERM", 143, "error: terminated by SIGTERM\n")])
@pytest.mark.parametrize("command", ["body-probe", "parse-probe"])
def test_an_error_that_took_the_place_of_the_signal_ends_as_the_signal(tmp_path, command, name, code, line):
    result = subprocess.run([sys.executable, "-c", REPLACED.format(name=name, command=command)], cwd=tmp_path,
                            env=child_env(), capture_output=True, text=True, timeout=120, check=False,
                            preexec_fn=default_signals)
    assert (result.returncode, result.stderr) == (code, line)


# Where the command does not raise a signal's exception at once but a moment later: as a context manager's __exit__
# starts, and in importlib's own code (and, above, in a C extension's init). A real signal lands there by chance (the
# sweep below found both); here the handler is called as the signal would call it, with the frame of that moment.
AT_EXIT = """
import _imp, os, signal, sys, time
from ortcopy_doctor.cli import interrupts
from ortcopy_doctor.collect import ortlog
interrupts.install()
handled = []

def profile(frame, event, arg):
    if event == "call" and frame.f_code.co_name == "__exit__" and type(frame.f_locals.get("self")).__name__ == "{cls}":
        sys.setprofile(None)
        handled.append(True)
        interrupts._handler(signal.SIGINT, frame)  # a SIGINT handled as this __exit__ starts

fd2 = os.fstat(2).st_ino
try:
    sys.setprofile(profile)
    {block}
    time.sleep(30)
    print("went on")
except KeyboardInterrupt:
    print("unwound", bool(handled))
print("fd 2 restored", os.fstat(2).st_ino == fd2, "import lock released", not _imp.lock_held())
"""


@pytest.mark.parametrize("cls, block", [
    # the __exit__ of ORT's log capture (contextlib's): interrupted as it started, fd 2 stayed in the capture file
    ("_GeneratorContextManager", "with ortlog.capture_native_stderr(): pass"),
    # importlib's: interrupted as it started, the import lock stayed held (a thread importing meanwhile hung)
    ("_ImportLockContext", "import json.tool"),
])
def test_a_signal_as_a_cleanup_starts_is_raised_after_it(tmp_path, cls, block):
    result = subprocess.run([sys.executable, "-c", AT_EXIT.format(cls=cls, block=block)], cwd=tmp_path,
                            env=child_env(), capture_output=True, text=True, timeout=120, check=False,
                            preexec_fn=default_signals)
    assert (result.returncode, result.stdout, result.stderr) == (
        0, "unwound True\nfd 2 restored True import lock released True\n", "")


# A signal handled during the first run of a module that `lazy_import` handed out, where that run was started by
# another module's plain `import` of it (as onnx's __init__ imports importlib.metadata, which collect/environment.py
# hands out lazily): the import statement reads the handle's __spec__ in C, and CPython 3.10-3.12 drop what it raised.
# A real Ctrl-C 0.2 s into a check landed there under load: the KeyboardInterrupt vanished and the check ran to its
# end, exit 0 (test_ctrl_c_after_any_delay_is_one_line, once in several CI runs). Here the module sends the signal
# from its own body.
LAZY_BODY = """
import os, signal
os.kill(os.getpid(), signal.SIGINT)
for _ in range(1000):  # the handler runs here, inside the module's first run
    pass
ran_to_the_end = True
"""
IN_LAZY_LOAD = """
import sys, time
sys.path.insert(0, ".")
from ortcopy_doctor.cli import interrupts
from ortcopy_doctor.model.lazy import lazy_import
interrupts.install()
handle = lazy_import("lazy_body")
try:
    import lazy_body  # runs it: the handle's first attribute read is the import's own (__spec__)
    time.sleep(30)
    print("went on")
except KeyboardInterrupt:
    print("unwound", getattr(sys.modules["lazy_body"], "ran_to_the_end", False))
"""


def test_a_signal_in_a_lazy_module_run_by_an_import_is_raised_after_it(tmp_path):
    (tmp_path / "lazy_body.py").write_text(LAZY_BODY, encoding="utf-8")
    result = subprocess.run([sys.executable, "-c", IN_LAZY_LOAD], cwd=tmp_path, env=child_env(), capture_output=True,
                            text=True, timeout=120, check=False, preexec_fn=default_signals)
    assert (result.returncode, result.stdout, result.stderr) == (0, "unwound True\n", "")


# --- a sweep of delays ---------------------------------------------------------------------------------------------

LONG_CHECK = ["check", "model.onnx", "--dim", "batch=2", "--provider", "cpu", "--warmup", "0", "--runs", "1000",
              "--timed-runs", "1000000", "--no-html", "-q"]
DELAYS = [0.0, 0.01, 0.03, 0.1, 0.2, 0.4, 0.8, 1.5]  # seconds after the start-up handler is in place


def _handler_installed(pid: int) -> bool:
    """Whether the process catches SIGHUP: ``install_startup`` ran (Python itself catches only SIGINT)."""
    try:
        with open(f"/proc/{pid}/status", encoding="ascii") as status:
            for line in status:
                if line.startswith("SigCgt:"):
                    return bool(int(line.split()[1], 16) >> (signal.SIGHUP - 1) & 1)
    except OSError:
        pass
    return False


@pytest.mark.skipif(not Path("/proc/self/status").exists(), reason="needs /proc to see the handler installed")
def test_ctrl_c_after_any_delay_is_one_line(work):
    outcomes = []
    for delay in DELAYS:
        proc = subprocess.Popen([*_command(work, "script"), *LONG_CHECK], cwd=work, env=_env(work),
                                stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, stdin=subprocess.DEVNULL,
                                preexec_fn=default_signals)
        try:
            while not _handler_installed(proc.pid):
                assert proc.poll() is None, proc.communicate()
                threading.Event().wait(0.0005)  # poll interval only
            threading.Event().wait(delay)
            proc.send_signal(signal.SIGINT)
            stdout, stderr = proc.communicate(timeout=120)
        finally:
            if proc.poll() is None:
                proc.kill()
                proc.communicate()
        outcomes.append((delay, proc.returncode, stderr[-2000:], stdout))
    assert [o for o in outcomes if o[1:] != (130, "error: interrupted\n", "")] == []
    assert _ours_in_tmp(work) == []


# --- what comes before the handler ---------------------------------------------------------------------------------


def test_the_modules_before_the_handler_are_few():
    # the part of the start-up no handler covers: the package's __init__ and cli/interrupts.py load no typing,
    # threading or importlib (milliseconds each), whatever else a later import brings
    code = ("import sys; before = set(sys.modules); import ortcopy_doctor.cli.interrupts; "
            "print(' '.join(sorted(set(sys.modules) - before)))")
    result = subprocess.run([sys.executable, "-S", "-c", code], env=child_env(), capture_output=True, text=True,
                            timeout=120, check=False)
    assert result.returncode == 0, result.stderr
    loaded = set(result.stdout.split())
    assert loaded & {"typing", "threading", "importlib", "warnings", "re", "numpy", "typer"} == set()
    assert {"ortcopy_doctor", "ortcopy_doctor.cli.interrupts"} <= loaded


def test_importing_the_library_installs_no_handler():
    code = ("import signal; before = [signal.getsignal(s) for s in (signal.SIGINT, signal.SIGTERM, signal.SIGHUP)]; "
            "import ortcopy_doctor, ortcopy_doctor.cli.app, ortcopy_doctor.__main__; "
            "print([signal.getsignal(s) for s in (signal.SIGINT, signal.SIGTERM, signal.SIGHUP)] == before)")
    result = subprocess.run([sys.executable, "-c", code], env=child_env(), capture_output=True, text=True,
                            timeout=120, check=False)
    assert (result.returncode, result.stdout, result.stderr) == (0, "True\n", "")


# --- a signal ignored at start stays ignored ------------------------------------------------------------------------


@pytest.mark.parametrize("signum", [signal.SIGINT, signal.SIGHUP])
@pytest.mark.parametrize("at", ["import:numpy", "event:os.mkdir:ortcopy-doctor-*"])
def test_a_signal_ignored_at_start_stays_ignored(work, signum, at):
    # a background job (SIGINT ignored) or nohup (SIGHUP ignored): the signal, during the start-up or the run,
    # changes nothing; the check ends as it would have
    result = _signalled_at(work, "script", at, CHECK, signum=signum, preexec=ignoring(signum))
    assert (result.returncode, result.stdout, result.stderr) == (0, VERDICT, "")
    assert sorted(os.listdir(work)) == ["model.onnx", "out.html", "out.json"]


@pytest.mark.parametrize("mode", [[], ["--subprocess"]], ids=["in-process", "subprocess"])
@pytest.mark.parametrize("ignored", [False, True])
def test_the_program_run_watches_inherits_an_ignored_sigint(work, mode, ignored):
    # `run` started as a background job: the program ignores Ctrl-C too, as it would started from that shell (under
    # --subprocess, `run` made the child's SIGINT the default while it waited for it)
    (work / "prog.py").write_text("import signal\nprint(signal.getsignal(signal.SIGINT) is signal.SIG_IGN)\n",
                                  encoding="utf-8")
    result = subprocess.run([*_command(work, "script"), "run", *mode, "--no-html", "-q", "--", "python", "prog.py"],
                            cwd=work, env=_env(work), capture_output=True, text=True, timeout=300, check=False,
                            stdin=subprocess.DEVNULL,
                            preexec_fn=ignoring(signal.SIGINT) if ignored else default_signals)
    assert (result.returncode, result.stdout.splitlines()[0]) == (0, str(ignored)), result.stderr
