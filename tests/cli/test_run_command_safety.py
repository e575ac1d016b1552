"""`ortcopy-doctor run` keeps the promises `check` keeps, with a real program in a real process:

* its outputs are checked before the program starts: never an input (the script, a file the program's command line
  names, an existing model or Python file) nor another output, never a folder that takes no file; after the run,
  never a model the program loaded (exit 2, one line, nothing written);
* its outputs are one set: a device that refuses one leaves the others unwritten (exit 3);
* SIGTERM and SIGHUP give one line and 143 / 129, no traceback and no report, also when the program sends it itself;
* a program that closes or replaces stdout/stderr, or exits with a status out of C's range, gets its usual exit
  code, as it would without ortcopy-doctor."""

from __future__ import annotations

import hashlib
import json
import os
import signal
import subprocess
import sys
import textwrap
from pathlib import Path

import onnx
import pytest

import models
from render_helpers import REPO
from signal_helpers import default_signals

SESSION = """
import sys
import numpy as np
import onnxruntime as ort

session = ort.InferenceSession({model!r}, providers=["CPUExecutionProvider"])
session.run(None, {{"image": np.zeros((1, 3, 32, 32), np.float32)}})
open("ran", "w").close()
"""

LOOP = """
import time
import numpy as np
import onnxruntime as ort

session = ort.InferenceSession("model.onnx", providers=["CPUExecutionProvider"])
print("ready", flush=True)
while True:
    session.run(None, {"image": np.zeros((1, 3, 32, 32), np.float32)})
    time.sleep(0.01)
"""


def _env(**extra: str) -> dict[str, str]:
    """This environment with the checkout importable, ``ORTCOPY_DOCTOR_DEBUG`` only where ``extra`` sets it."""
    env = {key: value for key, value in os.environ.items() if key != "ORTCOPY_DOCTOR_DEBUG"}
    env.update(extra)
    env["PYTHONPATH"] = os.pathsep.join([str(REPO)] + ([env["PYTHONPATH"]] if env.get("PYTHONPATH") else []))
    return env


def _run(cwd: Path, *argv: str, **env: str) -> subprocess.CompletedProcess[str]:
    """``python -m ortcopy_doctor run *argv`` in ``cwd``."""
    return subprocess.run([sys.executable, "-m", "ortcopy_doctor", "run", *argv], cwd=cwd, env=_env(**env),
                          capture_output=True, text=True, timeout=300, check=False, preexec_fn=default_signals)


def _program(folder: Path, body: str, name: str = "prog.py") -> Path:
    path = folder / name
    path.write_text(textwrap.dedent(body), encoding="utf-8")
    return path


def _model(folder: Path, name: str = "model.onnx") -> Path:
    path = folder / name
    onnx.save(models.conv_net(), str(path))
    return path


def _sha(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


def _left(folder: Path) -> list[str]:
    """The reports and temporary output files in ``folder``."""
    return sorted(p.name for p in folder.iterdir() if p.suffix in (".json", ".html") or p.name.startswith(".ortcopy-"))


# --- outputs that are inputs or other outputs -------------------------------------------------------------------------


def test_json_over_the_program_script_is_refused_before_it_runs(tmp_path):
    _model(tmp_path)
    script = _program(tmp_path, SESSION.format(model="model.onnx"))
    before = _sha(script)
    result = _run(tmp_path, "--json", "prog.py", "--no-html", "--", "python", "prog.py")
    assert (result.returncode, result.stderr) == (
        2, "error: --json prog.py is the program's script prog.py, which would be overwritten: give the output "
           "another path\n")
    assert _sha(script) == before
    assert not (tmp_path / "ran").exists()


def test_html_over_the_program_script_is_refused_before_it_runs(tmp_path):
    _model(tmp_path)
    script = _program(tmp_path, SESSION.format(model="model.onnx"))
    before = _sha(script)
    result = _run(tmp_path, "-o", "prog.py", "--", "prog.py")
    assert (result.returncode, result.stderr) == (
        2, "error: --html prog.py is the program's script prog.py, which would be overwritten: give the output "
           "another path\n")
    assert _sha(script) == before
    assert not (tmp_path / "ran").exists()


def test_output_over_a_file_the_program_is_given_is_refused_before_it_runs(tmp_path):
    model = _model(tmp_path, "weights.bin")  # a model by any name: named on the program's command line
    _program(tmp_path, SESSION.format(model="weights.bin"))
    before = _sha(model)
    result = _run(tmp_path, "--json", "weights.bin", "--no-html", "--", "python", "prog.py", "--model=weights.bin")
    assert (result.returncode, result.stderr) == (
        2, "error: --json weights.bin is the program's argument weights.bin, which would be overwritten: give the "
           "output another path\n")
    assert _sha(model) == before
    assert not (tmp_path / "ran").exists()


def test_output_over_an_existing_onnx_model_is_refused_before_the_program_runs(tmp_path):
    _model(tmp_path)
    other = _model(tmp_path, "other.onnx")  # not loaded, not named: still never replaced by a report
    _program(tmp_path, SESSION.format(model="model.onnx"))
    before = _sha(other)
    result = _run(tmp_path, "--no-html", "--json", "other.onnx", "--", "python", "prog.py")
    assert (result.returncode, result.stderr) == (
        2, "error: --json other.onnx is an ONNX model other.onnx, which would be overwritten: give the output "
           "another path\n")
    assert _sha(other) == before
    assert not (tmp_path / "ran").exists()


def test_the_same_path_for_two_outputs_is_refused_before_the_program_runs(tmp_path):
    _model(tmp_path)
    _program(tmp_path, SESSION.format(model="model.onnx"))
    result = _run(tmp_path, "--json", "a.out", "-o", "a.out", "--", "python", "prog.py")
    assert (result.returncode, result.stderr) == (
        2, "error: --html a.out is the same file as --json a.out: give each output its own path\n")
    assert not (tmp_path / "a.out").exists()
    assert not (tmp_path / "ran").exists()


def test_output_over_a_model_the_program_loaded_is_refused_after_the_run_and_nothing_is_written(tmp_path):
    model = _model(tmp_path, "weights.bin")  # the program names it itself: known once it is loaded
    _program(tmp_path, SESSION.format(model="weights.bin"))
    before = _sha(model)
    result = _run(tmp_path, "--json", "weights.bin", "-o", "r.html", "--", "python", "prog.py")
    assert (result.returncode, result.stderr) == (
        2, f"error: --json weights.bin is the program's model {tmp_path / 'weights.bin'}, which would be "
           "overwritten: give the output another path\n")
    assert _sha(model) == before
    assert (tmp_path / "ran").exists()  # the program ran
    assert _left(tmp_path) == []


@pytest.mark.parametrize("mode", [[], ["--subprocess"]])
def test_output_over_the_weights_of_a_model_the_program_loaded_is_refused(tmp_path, mode):
    """Written over, the external data made the model compute garbage, with no error anywhere."""
    onnx.save(models.conv_net(), str(tmp_path / "model.onnx"), save_as_external_data=True,
              all_tensors_to_one_file=True, location="weights.bin", size_threshold=0)
    _program(tmp_path, SESSION.format(model="model.onnx"))
    before = _sha(tmp_path / "weights.bin")
    result = _run(tmp_path, *mode, "--no-html", "--json", "weights.bin", "--", "python", "prog.py")
    assert (result.returncode, result.stderr) == (
        2, f"error: --json weights.bin is the external data of the program's model {tmp_path / 'weights.bin'}, which "
           "would be overwritten: give the output another path\n")
    assert _sha(tmp_path / "weights.bin") == before
    assert (tmp_path / "ran").exists()


# --- outputs checked up front and written as a set --------------------------------------------------------------------


def test_an_output_in_a_folder_that_takes_no_file_is_refused_before_the_program_runs(tmp_path):
    _model(tmp_path)
    _program(tmp_path, SESSION.format(model="model.onnx"))
    result = _run(tmp_path, "--json", "r.json", "-o", "/proc/x.html", "--", "python", "prog.py")
    assert result.returncode == 2
    assert result.stderr in (  # root may write to /proc's folder, on paper; a file is refused there all the same
        "error: --html /proc/x.html could not be written (No such file or directory): choose another path\n",
        "error: --html /proc/x.html cannot be written (permission denied): choose another path\n")
    assert not (tmp_path / "ran").exists()
    assert _left(tmp_path) == []


def test_a_device_that_refuses_one_output_leaves_the_other_unwritten(tmp_path):
    _model(tmp_path)
    _program(tmp_path, SESSION.format(model="model.onnx"))
    result = _run(tmp_path, "--json", "r.json", "-o", "/dev/full", "--", "python", "prog.py")
    assert (result.returncode, result.stderr) == (
        3, "error: --html /dev/full could not be written (No space left on device): free space or choose another "
           "path; no output was left half-written\n")
    assert _left(tmp_path) == []


def test_both_outputs_are_written_when_they_can_be(tmp_path):
    _model(tmp_path)
    _program(tmp_path, SESSION.format(model="model.onnx"))
    result = _run(tmp_path, "--json", "r.json", "-o", "r.html", "--", "python", "prog.py")
    assert result.returncode == 0, result.stderr
    assert result.stderr.splitlines()[-2:] == ["wrote r.json", "wrote r.html"]
    assert json.loads((tmp_path / "r.json").read_text(encoding="utf-8"))["exit_code"] == 0
    assert _left(tmp_path) == ["r.html", "r.json"]


# --- signals ----------------------------------------------------------------------------------------------------------


def _signalled(tmp_path: Path, signum: int, *options: str) -> subprocess.CompletedProcess[str]:
    """``run`` on a program that loops, sent ``signum`` once the program is ready."""
    _model(tmp_path)
    _program(tmp_path, LOOP)
    cmd = [sys.executable, "-m", "ortcopy_doctor", "run", *options, "--json", "r.json", "-o", "r.html", "--",
           "python", "prog.py"]
    proc = subprocess.Popen(cmd, cwd=tmp_path, env=_env(), stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                            preexec_fn=default_signals)
    try:
        assert proc.stdout is not None and proc.stdout.readline() == "ready\n"
        proc.send_signal(signum)
        out, err = proc.communicate(timeout=120)
    finally:
        if proc.poll() is None:
            proc.kill()
    return subprocess.CompletedProcess(cmd, proc.returncode, out, err)


def test_sigterm_exits_143_with_one_line_and_writes_no_report(tmp_path):
    result = _signalled(tmp_path, signal.SIGTERM)
    assert (result.returncode, result.stderr) == (143, "error: terminated by SIGTERM\n")
    assert _left(tmp_path) == []


def test_sighup_exits_129_with_one_line_and_writes_no_report(tmp_path):
    result = _signalled(tmp_path, signal.SIGHUP)
    assert (result.returncode, result.stderr) == (129, "error: terminated by SIGHUP\n")
    assert _left(tmp_path) == []


def test_sigterm_in_subprocess_mode_exits_143_with_one_line_and_writes_no_report(tmp_path):
    result = _signalled(tmp_path, signal.SIGTERM, "--subprocess")
    assert (result.returncode, result.stderr) == (143, "error: terminated by SIGTERM\n")
    assert _left(tmp_path) == []


def test_a_program_that_sends_itself_sigterm_exits_143_with_one_line(tmp_path):
    _program(tmp_path, "import os, signal\nos.kill(os.getpid(), signal.SIGTERM)\n")
    result = _run(tmp_path, "--json", "r.json", "--", "python", "prog.py")
    assert (result.returncode, result.stderr) == (143, "error: terminated by SIGTERM\n")
    assert _left(tmp_path) == []


def test_a_program_in_a_child_interpreter_that_sends_itself_sigterm_exits_143_with_one_line(tmp_path):
    _program(tmp_path, "import os, signal\nos.kill(os.getpid(), signal.SIGTERM)\n")
    result = _run(tmp_path, "--subprocess", "--json", "r.json", "--", "python", "prog.py")
    assert (result.returncode, result.stderr) == (143, "error: terminated by SIGTERM\n")
    assert _left(tmp_path) == []


def test_a_child_interpreter_killed_by_sigkill_gives_one_line_and_the_shell_s_exit_code(tmp_path):
    _program(tmp_path, "import os, signal\nos.kill(os.getpid(), signal.SIGKILL)\n")
    result = _run(tmp_path, "--subprocess", "--json", "r.json", "--", "python", "prog.py")
    assert (result.returncode, result.stderr) == (
        137, "error: the program was killed by SIGKILL before it wrote what was recorded: no report (exit code 137)\n")
    assert _left(tmp_path) == []


def test_a_child_interpreter_ending_with_os_exit_is_told_apart_from_missing_dependencies(tmp_path):
    _program(tmp_path, "import os\nos._exit(0)\n")
    result = _run(tmp_path, "--subprocess", "--json", "r.json", "--", "python", "prog.py")
    assert (result.returncode, result.stderr) == (
        3, "error: the program ended (exit code 0) without Python's exit handlers, which write what was recorded "
           "(os._exit?): end it with sys.exit()\n")
    assert _left(tmp_path) == []


# --- the program's standard streams and exit status -------------------------------------------------------------------


@pytest.mark.parametrize("debug", ["0", "1"])
def test_a_program_closing_fd_1_and_2_gets_its_exit_code_and_the_reports(tmp_path, debug):
    _program(tmp_path, "import os\nos.close(1)\nos.close(2)\nraise SystemExit(5)\n")
    result = _run(tmp_path, "--json", "r.json", "-o", "r.html", "--", "python", "prog.py", ORTCOPY_DOCTOR_DEBUG=debug)
    # the program closed its own descriptors: `run` runs it in a process of its own, and prints its report
    assert (result.returncode, result.stdout, result.stderr) == (
        5, "", "\nortcopy-doctor run: python prog.py -- exit code 5\nverdict: no onnxruntime session was created by "
               "the program\nwrote r.json\nwrote r.html\n")
    assert json.loads((tmp_path / "r.json").read_text(encoding="utf-8"))["exit_code"] == 5
    assert _left(tmp_path) == ["r.html", "r.json"]


@pytest.mark.parametrize("debug", ["0", "1"])
def test_a_program_setting_stdout_and_stderr_to_none_gets_its_exit_code_and_the_report(tmp_path, debug):
    _program(tmp_path, "import sys\nsys.stdout = sys.stderr = None\n")
    result = _run(tmp_path, "--json", "r.json", "-o", "r.html", "--", "python", "prog.py", ORTCOPY_DOCTOR_DEBUG=debug)
    assert result.returncode == 0
    assert result.stderr.splitlines()[-3:] == ["verdict: no onnxruntime session was created by the program",
                                               "wrote r.json", "wrote r.html"]
    assert _left(tmp_path) == ["r.html", "r.json"]


def test_a_program_closing_sys_stdout_and_sys_stderr_gets_its_exit_code(tmp_path):
    _program(tmp_path, "import sys\nsys.stdout.close()\nsys.stderr.close()\n")
    result = _run(tmp_path, "--json", "r.json", "--no-html", "-q", "--", "python", "prog.py")
    # Python's own sys.stdout/sys.stderr leave fds 1 and 2 open when closed: the command prints on them still
    assert (result.returncode, result.stderr) == (0, "\nno onnxruntime session was created by the program\n")
    assert _left(tmp_path) == ["r.json"]


@pytest.mark.parametrize("status", ["2**31", "2**40", "-2**40", "2**63", "-1", "256"])
def test_an_exit_status_out_of_range_is_mapped_as_python_maps_it(tmp_path, status):
    alone = subprocess.run([sys.executable, "-c", f"raise SystemExit({status})"], capture_output=True, text=True,
                           timeout=60, check=False)
    _program(tmp_path, f"raise SystemExit({status})\n")
    result = _run(tmp_path, "--json", "r.json", "--no-html", "-q", "--", "python", "prog.py")
    assert result.returncode == alone.returncode
    assert result.stderr == "\nno onnxruntime session was created by the program\n"  # no traceback
    assert json.loads((tmp_path / "r.json").read_text(encoding="utf-8"))["exit_code"] == alone.returncode
