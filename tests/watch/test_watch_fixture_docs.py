"""The fixture example of docs/api.md, run as written in a project's conftest.py."""

from __future__ import annotations

import re
import subprocess
import sys

import onnx

import models
from render_helpers import REPO, child_env


def _documented_example() -> tuple[str, str]:
    """The conftest.py and the test module of docs/api.md's fixture example."""
    text = (REPO / "docs" / "api.md").read_text(encoding="utf-8")
    block = next(b for b in re.findall(r"```python\n(.*?)```", text, re.S) if b.startswith("# conftest.py"))
    conftest, test = block.split("# test_loop.py")
    return conftest, test


def test_the_documented_conftest_runs_under_pytest(tmp_path):
    """`from ortcopy_doctor import pytest_watch` in a conftest.py stopped pytest: "unknown hook 'pytest_watch'"."""
    onnx.save(models.cpu_op_between(), str(tmp_path / "m.onnx"))
    conftest, test = _documented_example()
    (tmp_path / "conftest.py").write_text(
        "import numpy as np, onnxruntime as ort, pytest\n\n"
        "@pytest.fixture\n"
        "def session():\n"
        "    return ort.InferenceSession('m.onnx', providers=['CPUExecutionProvider'])\n\n"
        + conftest, encoding="utf-8")
    (tmp_path / "test_loop.py").write_text(
        "import numpy as np\n\n"
        "def run_my_loop(session):\n"
        "    session.run(None, {'x': np.ones((2, 64), np.float32)})\n\n"
        + test, encoding="utf-8")
    result = subprocess.run([sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", "test_loop.py"],
                            cwd=tmp_path, env=child_env(), capture_output=True, text=True, timeout=300)
    assert result.returncode == 0, result.stdout + result.stderr
    assert "1 passed" in result.stdout
