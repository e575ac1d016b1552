"""What ORT writes as it loads never reaches the terminal (issue 38, class 10).

onnxruntime 1.31.1's telemetry keeps a device ID in ``$XDG_CACHE_HOME`` (else ``~/.cache``)
``/Microsoft/DeveloperTools/.onnxruntime``; where it cannot make that folder (a user whose home cannot be written:
``nobody``, a CI container's user) it warns on fd 2 as its module is imported, colour codes included:
``\\x1b[0;93m... [W:onnxruntime:Default, telemetry_1ds.cc:600 operator()] Failed to persist telemetry device ID; using
an in-memory identifier\\x1b[m``. The commands import onnxruntime with fd 2 captured (collect/ortlog.py,
``import_onnxruntime``); the text goes with the evidence session's log. Before, every command that loads ORT printed
the line.

In the style of tests/project/test_promises.py: real processes, exact stderr.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
import sysconfig
import tempfile
from collections.abc import Iterator
from pathlib import Path

import onnx
import pytest
from onnx import TensorProto, helper

import models
from render_helpers import REPO, child_env

TELEMETRY = "Failed to persist telemetry device ID"
VERDICT = "CPU-only session: no host↔device copies (all 3 nodes on CPU).\n"
RECORDED = ("\n128 B cross PCIe per iteration of relu.onnx → relu.onnx#2 (predicted for the device: no device provider "
            "was active): 64 B up, 64 B down (mean of 3 iteration(s)); largest removable cost: the round trip of `y` "
            "from relu.onnx to relu.onnx#2, 64 B per iteration: pass the OrtValue (or a torch tensor via DLPack) "
            "instead; 1 host round trip(s) between stages\n")

# Two sessions, the first's output fed to the second as numpy: one host round trip, and (under --subprocess) the
# hand-off code is checked in the command's own process, which then imports onnxruntime for the first time.
PROGRAM = """\
import numpy as np
import onnxruntime as ort
a = ort.InferenceSession("relu.onnx", providers=["CPUExecutionProvider"])
b = ort.InferenceSession("relu.onnx", providers=["CPUExecutionProvider"])
x = np.zeros((2, 4), np.float32)
for _ in range(3):
    b.run(None, {"x": a.run(None, {"x": x})[0]})
"""


def _relu() -> onnx.ModelProto:
    graph = helper.make_graph([helper.make_node("Relu", ["x"], ["y"])], "relu",
                              [helper.make_tensor_value_info("x", TensorProto.FLOAT, [2, 4])],
                              [helper.make_tensor_value_info("y", TensorProto.FLOAT, [2, 4])])
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 13)])
    model.ir_version = 8
    return model


def _fill(folder: Path) -> None:
    onnx.save(models.cpu_op_between(), str(folder / "model.onnx"))  # x: float32 [batch, 64], 3 nodes
    onnx.save(_relu(), str(folder / "relu.onnx"))
    (folder / "two.py").write_text(PROGRAM, encoding="utf-8")


def _env(**extra: str) -> dict[str, str]:
    env = child_env(**extra)
    for name in ("ORTCOPY_DOCTOR_DEBUG", "COLUMNS", "FORCE_COLOR", "XDG_CACHE_HOME"):
        env.pop(name, None)
    env.update(extra)
    return env


# --- any user: a cache folder that cannot be made ------------------------------------------------------------------


@pytest.fixture
def work(tmp_path: Path) -> Path:
    folder = tmp_path / "work"
    folder.mkdir()
    _fill(folder)
    (tmp_path / "a-file").write_text("", encoding="utf-8")
    return folder


def _cache_unwritable(work: Path) -> dict[str, str]:
    """The environment where ORT's telemetry cannot make its folder, for root too (a path under a regular file)."""
    return _env(XDG_CACHE_HOME=str(work.parent / "a-file" / "cache"), TMPDIR=str(work.parent))


def _ort_warns_as_it_loads(env: dict[str, str], cwd: Path) -> str:
    """What ``import onnxruntime`` alone writes on stderr in ``env`` (the condition this file tests); skips where it
    writes nothing."""
    result = subprocess.run([sys.executable, "-c", "import onnxruntime"], cwd=cwd, env=env, capture_output=True,
                            text=True, timeout=120, check=False)
    if TELEMETRY not in result.stderr:
        pytest.skip(f"this onnxruntime writes nothing about its telemetry as it loads here ({result.stderr[-200:]!r})")
    return result.stderr


COMMANDS = [
    (["check", "model.onnx", "--provider", "cpu", "--no-html", "-q"], 0, VERDICT, ""),
    (["check", "model.onnx", "--dim", "batch=2", "--static", "--no-html", "-q"], 0, None, ""),
    (["run", "--no-html", "-q", "--", "python", "two.py"], 0, "", RECORDED),
    (["run", "--subprocess", "--no-html", "-q", "--", "python", "two.py"], 0, "", RECORDED),
    (["env"], 0, None, ""),
]


@pytest.mark.parametrize("args, code, stdout, stderr", COMMANDS,
                         ids=["check", "check-static", "run", "run-subprocess", "env"])
def test_ort_telemetry_warning_never_reaches_stderr(work, args, code, stdout, stderr):
    env = _cache_unwritable(work)
    assert "\x1b[0;93m" in _ort_warns_as_it_loads(env, work)
    result = subprocess.run([sys.executable, "-m", "ortcopy_doctor", *args], cwd=work, env=env, capture_output=True,
                            text=True, timeout=300, check=False, stdin=subprocess.DEVNULL)
    assert (result.returncode, result.stderr) == (code, stderr)
    if stdout is not None:
        assert result.stdout == stdout
    assert TELEMETRY not in result.stdout


def test_what_ort_wrote_as_it_loaded_is_kept_for_the_log(work):
    env = _cache_unwritable(work)
    _ort_warns_as_it_loads(env, work)
    code = ("from ortcopy_doctor.collect import ortlog\n"
            "ortlog.import_onnxruntime()\n"
            "lines = ortlog.parse_lines(ortlog.import_log())\n"
            "print([(line.severity, line.source, line.message) for line in lines])\n")
    result = subprocess.run([sys.executable, "-c", code], cwd=work, env=env, capture_output=True, text=True,
                            timeout=120, check=False)
    assert (result.returncode, result.stderr) == (0, "")
    assert result.stdout == ("[('W', 'telemetry_1ds.cc:600 operator()', 'Failed to persist telemetry device ID; using "
                             "an in-memory identifier')]\n")


# --- a user who is not root, whose home cannot be written ----------------------------------------------------------

NOBODY = 65534


def _as_nobody() -> None:
    os.setgroups([])
    os.setgid(NOBODY)
    os.setuid(NOBODY)


@pytest.fixture
def shared() -> Iterator[Path]:
    """A folder uid 65534 owns where this is root (pytest's own folders are root's, mode 0700), removed afterwards."""
    folder = Path(tempfile.mkdtemp(prefix="ortcopy-doctor-test-"))
    try:
        _fill(folder)
        if os.geteuid() == 0:
            for path in (folder, *folder.iterdir()):
                os.chown(path, NOBODY, NOBODY)
        yield folder
    finally:
        shutil.rmtree(folder, ignore_errors=True)


def _interpreter_for_nobody(env: dict[str, str]) -> str | None:
    """A Python of this version that uid 65534 can run, with this environment's packages: this one, else the system's
    (this one can be in a folder only root enters: /root/.pyenv, /root is 0700)."""
    version = f"python{sys.version_info.major}.{sys.version_info.minor}"
    for candidate in (sys.executable, shutil.which(version, path="/usr/local/bin:/usr/bin:/bin")):
        if candidate is None:
            continue
        try:
            result = subprocess.run([candidate, "-c", "import numpy, onnx, onnxruntime, typer, ortcopy_doctor"],
                                    env=env, capture_output=True, timeout=120, check=False, preexec_fn=_as_nobody,
                                    cwd="/")
        except OSError:  # it cannot be run by that user (exec refused)
            continue
        if result.returncode == 0:
            return candidate
    return None


@pytest.mark.skipif(not hasattr(os, "geteuid"), reason="needs POSIX users and uids")
def test_as_a_user_whose_home_cannot_be_written_check_prints_only_its_verdict(shared, tmp_path):
    if os.geteuid() != 0:  # not root already: this user, with a home it cannot write
        home = tmp_path / "home"
        home.mkdir(mode=0o500)
        env = _env(HOME=str(home), TMPDIR=str(tmp_path))
        python, run, cwd = sys.executable, {}, tmp_path
        _fill(tmp_path)
    else:  # root: uid 65534 (nobody), whose home /nonexistent it cannot make
        if Path("/nonexistent").exists():
            pytest.skip("/nonexistent exists here: nobody's home must be one it cannot make")
        packages = {sysconfig.get_paths()["purelib"], sysconfig.get_paths()["platlib"]}
        env = _env(HOME="/nonexistent", TMPDIR=str(shared))
        env["PYTHONPATH"] = os.pathsep.join([str(REPO), *sorted(packages)])
        found = _interpreter_for_nobody(env)
        if found is None:
            pytest.skip(f"no python{sys.version_info.major}.{sys.version_info.minor} that uid 65534 can run with "
                        "these packages")
        python, run, cwd = found, {"preexec_fn": _as_nobody}, shared
    probe = subprocess.run([python, "-c", "import onnxruntime"], cwd=cwd, env=env, capture_output=True, text=True,
                           timeout=120, check=False, **run)
    if TELEMETRY not in probe.stderr:
        pytest.skip(f"onnxruntime wrote nothing about its telemetry as it loaded for this user ({probe.stderr[-200:]!r})")
    result = subprocess.run([python, "-m", "ortcopy_doctor", "check", "model.onnx", "--provider", "cpu", "--no-html",
                             "-q"],
                            cwd=cwd, env=env, capture_output=True, text=True, timeout=300, check=False,
                            stdin=subprocess.DEVNULL, **run)
    assert (result.returncode, result.stdout, result.stderr) == (0, VERDICT, "")
