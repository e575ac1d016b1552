"""`instrumented_session` leaves nothing behind: no ortcopy-doctor-watch-* folder (with ORT's profile_*.json) and no
ORT log line on the terminal, whether the session is collected or still alive at interpreter exit. `run --subprocess`
leaves no ortcopy-doctor-run-* folder, however its child ends."""

from __future__ import annotations

import gc
import os
import subprocess
import sys
import textwrap
from pathlib import Path

import onnx
import pytest

import models
from render_helpers import REPO

SCRIPT = """
import gc, sys
import numpy as np
import ortcopy_doctor

session = ortcopy_doctor.instrumented_session("model.onnx", providers=["CPUExecutionProvider"])
feeds = {{"image": np.zeros((1, 3, 32, 32), np.float32)}}
with ortcopy_doctor.watch(session, profile={profile}) as w:
    session.run(None, feeds)
{ending}
print("done", file=sys.stderr)
"""


def _run(tmp_path: Path, profile: bool, ending: str) -> subprocess.CompletedProcess[str]:
    onnx.save(models.conv_net(), str(tmp_path / "model.onnx"))
    temp = tmp_path / "tmp"
    temp.mkdir()
    env = dict(os.environ, TMPDIR=str(temp))
    env["PYTHONPATH"] = os.pathsep.join([str(REPO)] + ([env["PYTHONPATH"]] if env.get("PYTHONPATH") else []))
    script = textwrap.dedent(SCRIPT.format(profile=profile, ending=ending))
    return subprocess.run([sys.executable, "-c", script], cwd=tmp_path, env=env, capture_output=True, text=True,
                          timeout=120, check=False)


def test_session_alive_at_exit_leaves_no_folder_and_no_log_line(tmp_path):
    result = _run(tmp_path, profile=False, ending="")
    assert (result.returncode, result.stderr) == (0, "done\n")
    assert list((tmp_path / "tmp").glob("ortcopy-doctor-*")) == []


def test_collected_session_leaves_no_folder_and_no_log_line(tmp_path):
    result = _run(tmp_path, profile=False, ending="del session, w\ngc.collect()\nprint('collected', file=sys.stderr)")
    assert (result.returncode, result.stderr) == (0, "collected\ndone\n")
    assert list((tmp_path / "tmp").glob("ortcopy-doctor-*")) == []


def test_watch_reading_the_profile_leaves_no_folder_and_no_log_line(tmp_path):
    result = _run(tmp_path, profile=True, ending="del session, w\ngc.collect()\nprint('collected', file=sys.stderr)")
    assert (result.returncode, result.stderr) == (0, "collected\ndone\n")
    assert list((tmp_path / "tmp").glob("ortcopy-doctor-*")) == []


def test_temporary_folder_is_removed_when_the_session_is_collected(tmp_path):
    import ortcopy_doctor
    from ortcopy_doctor.watch.recorder import _INFO_ATTR

    onnx.save(models.conv_net(), str(tmp_path / "model.onnx"))
    session = ortcopy_doctor.instrumented_session(str(tmp_path / "model.onnx"), providers=["CPUExecutionProvider"])
    workdir = Path(getattr(session, _INFO_ATTR).workdir)
    assert workdir.is_dir()
    del session
    gc.collect()
    assert not workdir.exists()


CHILD_ENDINGS = {
    "exit": ("import numpy as np, onnxruntime as ort\n"
             "s = ort.InferenceSession('model.onnx', providers=['CPUExecutionProvider'])\n"
             "s.run(None, {'image': np.zeros((1, 3, 32, 32), np.float32)})\n", 0),
    "exception": ("raise RuntimeError('stage failed')\n", 1),
    "os._exit": ("import os\nos._exit(3)\n", 3),
    "SIGKILL": ("import os, signal\nos.kill(os.getpid(), signal.SIGKILL)\n", 137),
}


@pytest.mark.parametrize("ending", list(CHILD_ENDINGS))
def test_run_subprocess_removes_its_temporary_folder(tmp_path, ending):
    body, code = CHILD_ENDINGS[ending]
    onnx.save(models.conv_net(), str(tmp_path / "model.onnx"))
    (tmp_path / "prog.py").write_text(body, encoding="utf-8")
    temp = tmp_path / "tmp"
    temp.mkdir()
    env = dict(os.environ, TMPDIR=str(temp))
    env["PYTHONPATH"] = os.pathsep.join([str(REPO)] + ([env["PYTHONPATH"]] if env.get("PYTHONPATH") else []))
    result = subprocess.run([sys.executable, "-m", "ortcopy_doctor", "run", "--subprocess", "--no-html", "-q", "--",
                             "python", "prog.py"], cwd=tmp_path, env=env, capture_output=True, text=True, timeout=120,
                            check=False)
    assert result.returncode == code, result.stderr
    assert list(temp.glob("ortcopy-doctor-*")) == []
