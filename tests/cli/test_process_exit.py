"""The command ends its own process once everything is written (cli.app._exit_process): the exit code is the
command's, the atexit handlers still run, and stdout is flushed even when it is a pipe. Where another thread runs,
a profiler or tracer is attached, or the CUDA driver is loaded, it exits the normal way."""

from __future__ import annotations

import os
import pstats
import subprocess
import sys

from render_helpers import REPO, child_env

from ortcopy_doctor.cli.app import _cuda_driver_loaded

def _python(code: str, *argv: str) -> subprocess.CompletedProcess[str]:
    """``code`` run by this Python in a fresh process, with the checkout importable."""
    env = dict(os.environ)
    env["PYTHONPATH"] = os.pathsep.join([str(REPO)] + ([env["PYTHONPATH"]] if env.get("PYTHONPATH") else []))
    return subprocess.run([sys.executable, "-c", code, *argv], env=env, capture_output=True, text=True, timeout=120,
                          check=False)


def _command(*argv: str, before: str = "", catch: bool = False) -> subprocess.CompletedProcess[str]:
    """``ortcopy-doctor *argv`` run as ``python -m`` runs it, after ``before``; ``catch``: a SystemExit that reaches
    the caller is written to stderr. An atexit handler writes "atexit ran"; a line after the command, "not reached"."""
    run = "runpy.run_module('ortcopy_doctor', run_name='__main__')\n"
    if catch:
        run = ("try:\n    " + run + "except SystemExit as exc:\n"
               "    sys.stderr.write(f'SystemExit {exc.code}\\n')\n    raise\n")
    return _python("import atexit, sys, threading, time, runpy\n" + before
                   + "atexit.register(lambda: sys.stderr.write('atexit ran\\n'))\n"
                   "sys.argv = ['ortcopy-doctor', *sys.argv[1:]]\n" + run
                   + "sys.stderr.write('not reached\\n')\n", *argv)


def test_help_exits_0_with_stdout_flushed_and_atexit_run():
    result = _command("--help")
    assert (result.returncode, result.stderr) == (0, "atexit ran\n")
    assert result.stdout.rstrip().endswith("report its host round trips.")  # the whole help (its last command)


def test_a_usage_error_keeps_its_exit_code_and_runs_atexit():
    result = _command("check", "missing.onnx")
    assert result.returncode == 2
    assert result.stderr.splitlines()[-1] == "atexit ran"
    assert "not reached" not in result.stderr


def test_the_process_ends_inside_the_command_without_raising_systemexit():
    result = _command("--version", catch=True)
    assert (result.returncode, result.stderr) == (0, "atexit ran\n")


def test_with_another_thread_running_the_normal_exit_waits_for_it():
    thread = "threading.Thread(target=lambda: (time.sleep(0.3), sys.stderr.write('thread done\\n'))).start()\n"
    result = _command("--version", before=thread, catch=True)
    assert (result.returncode, result.stderr.splitlines()) == (0, ["SystemExit 0", "thread done", "atexit ran"])


def test_under_cprofile_the_profile_is_written(tmp_path):
    out = tmp_path / "check.prof"
    env = child_env()
    result = subprocess.run([sys.executable, "-m", "cProfile", "-o", str(out), "-m", "ortcopy_doctor", "--version"],
                            env=env, capture_output=True, text=True, timeout=120, check=False)
    assert (result.returncode, result.stderr) == (0, "")
    assert "ortcopy_doctor" in " ".join(file for file, _, _ in pstats.Stats(str(out)).stats)  # type: ignore[attr-defined]


def test_a_trace_hook_counts_as_an_attached_tool():
    result = _python("import sys\nfrom ortcopy_doctor.cli.app import _python_tool_attached as attached\n"
                     "before = attached()\nsys.settrace(lambda *a: None)\nprint(before, attached())")
    assert result.stdout == "False True\n"


def test_a_profile_hook_counts_as_an_attached_tool():
    result = _python("import cProfile\nfrom ortcopy_doctor.cli.app import _python_tool_attached as attached\n"
                     "profiler = cProfile.Profile()\nprofiler.enable()\nprint(attached())")
    assert result.stdout == "True\n"


def test_a_process_with_the_cuda_driver_mapped_exits_the_normal_way(tmp_path):
    maps = tmp_path / "maps"
    maps.write_text("7f0000000000-7f0000001000 r-xp 00000000 08:01 42 /usr/lib/x86_64-linux-gnu/libcuda.so.580.65\n")
    assert _cuda_driver_loaded(maps) is True


def test_a_process_without_the_cuda_driver_may_end_fast(tmp_path):
    maps = tmp_path / "maps"
    maps.write_text("7f0000000000-7f0000001000 r-xp 00000000 08:01 42 /usr/lib/x86_64-linux-gnu/libc.so.6\n")
    assert _cuda_driver_loaded(maps) is False


def test_an_unreadable_process_map_means_the_normal_exit(tmp_path):
    assert _cuda_driver_loaded(tmp_path / "missing") is True
