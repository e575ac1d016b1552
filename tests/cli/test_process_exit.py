"""The command ends its own process once everything is written (cli.app._exit_process): the exit code is the
command's, the atexit handlers still run, and stdout is flushed even when it is a pipe. Where another thread runs
or the CUDA driver is loaded, it exits the normal way."""

from __future__ import annotations

import os
import subprocess
import sys

from render_helpers import REPO

from ortcopy_doctor.cli.app import _cuda_driver_loaded

_RUN = (
    "import atexit, sys, runpy\n"
    "atexit.register(lambda: sys.stderr.write('atexit ran\\n'))\n"
    "sys.argv = ['ortcopy-doctor', *sys.argv[1:]]\n"
    "runpy.run_module('ortcopy_doctor', run_name='__main__')\n"
    "sys.stderr.write('not reached\\n')\n")


def _run(*argv: str) -> subprocess.CompletedProcess[str]:
    env = dict(os.environ)
    env["PYTHONPATH"] = os.pathsep.join([str(REPO)] + ([env["PYTHONPATH"]] if env.get("PYTHONPATH") else []))
    return subprocess.run([sys.executable, "-c", _RUN, *argv], env=env, capture_output=True, text=True, timeout=120,
                          check=False)


def test_help_exits_0_with_stdout_flushed_and_atexit_run():
    result = _run("--help")
    assert (result.returncode, result.stderr) == (0, "atexit ran\n")
    assert result.stdout.rstrip().endswith("report its host round trips.")  # the whole help (its last command)


def test_a_usage_error_keeps_its_exit_code_and_runs_atexit():
    result = _run("check", "missing.onnx")
    assert result.returncode == 2
    assert result.stderr.splitlines()[-1] == "atexit ran"
    assert "not reached" not in result.stderr


def test_with_another_thread_running_the_normal_exit_waits_for_it():
    code = ("import atexit, sys, threading, time, runpy\n"
            "threading.Thread(target=lambda: (time.sleep(0.3), sys.stderr.write('thread done\\n'))).start()\n"
            "sys.argv = ['ortcopy-doctor', '--version']\n"
            "try:\n"
            "    runpy.run_module('ortcopy_doctor', run_name='__main__')\n"
            "except SystemExit as exc:\n"
            "    sys.stderr.write(f'SystemExit {exc.code}\\n')\n")
    env = dict(os.environ)
    env["PYTHONPATH"] = str(REPO)
    result = subprocess.run([sys.executable, "-c", code], env=env, capture_output=True, text=True, timeout=120,
                            check=False)
    assert (result.returncode, result.stderr.splitlines()) == (0, ["SystemExit 0", "thread done"])


def test_the_process_ends_inside_the_command_without_raising_systemexit():
    code = ("import atexit, sys, runpy\n"
            "atexit.register(lambda: sys.stderr.write('atexit ran\\n'))\n"
            "sys.argv = ['ortcopy-doctor', '--version']\n"
            "try:\n"
            "    runpy.run_module('ortcopy_doctor', run_name='__main__')\n"
            "except SystemExit as exc:\n"
            "    sys.stderr.write(f'SystemExit {exc.code}\\n')\n")
    env = dict(os.environ)
    env["PYTHONPATH"] = str(REPO)
    result = subprocess.run([sys.executable, "-c", code], env=env, capture_output=True, text=True, timeout=120,
                            check=False)
    assert (result.returncode, result.stderr) == (0, "atexit ran\n")


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
