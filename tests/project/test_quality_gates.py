"""The quality gates `make test` runs: mypy (strict on model/, analysis/, rules/; pyproject's [tool.mypy]) and
interrogate (every public module, class and function has a docstring; [tool.interrogate])."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

from render_helpers import REPO, child_env


def _tool(name: str, *args: str) -> subprocess.CompletedProcess[str]:
    env = child_env()
    return subprocess.run([str(Path(sys.executable).parent / name), *args], cwd=REPO, env=env, capture_output=True,
                          text=True, timeout=900)


def test_mypy_passes():
    result = _tool("mypy", "--config-file", str(REPO / "pyproject.toml"), "--no-incremental")
    assert result.returncode == 0, result.stdout[-6000:] + result.stderr[-2000:]


def test_every_public_module_class_and_function_has_a_docstring():
    result = _tool("interrogate", "-c", str(REPO / "pyproject.toml"), "-v", "ortcopy_doctor")
    assert result.returncode == 0, result.stdout[-6000:] + result.stderr[-2000:]
