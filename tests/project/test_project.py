"""How the project is built and tested: `make test` in parallel, chromium only where missing."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
import tomllib
from pathlib import Path

import pytest

from render_helpers import REPO


def _make_recipe(target: str) -> list[str]:
    lines = (REPO / "Makefile").read_text(encoding="utf-8").splitlines()
    start = next(i for i, line in enumerate(lines) if line.startswith(f"{target}:"))
    recipe = []
    for line in lines[start + 1:]:
        if not line.startswith("\t"):
            break
        recipe.append(line.strip())
    return recipe


def test_test_extras_include_pytest_xdist() -> None:
    extras = tomllib.loads((REPO / "pyproject.toml").read_text(encoding="utf-8"))["project"]["optional-dependencies"]
    assert "pytest-xdist>=3.5" in extras["test"]


def test_make_test_runs_in_parallel_without_the_full_backend_suite() -> None:
    assert _make_recipe("test") == ["$(PY) -m pytest -n auto --dist loadfile --durations=15"]


def test_make_test_full_runs_the_full_backend_suite_once() -> None:
    assert _make_recipe("test-full") == [
        "$(PY) -m pytest -n auto --dist loadfile --durations=15 "
        "--deselect tests/project/test_backend_suite.py::test_suite_sample",
        "$(MAKE) test-backend-full",
    ]
    assert _make_recipe("test-backend-full") == [
        "ORTCOPY_BACKEND_SUITE=full $(PY) -m pytest -s -v tests/project/test_backend_suite.py -k test_full_suite"]


def test_ci_runs_make_test_full() -> None:
    commands = [line for line in (REPO / ".ci" / "run").read_text(encoding="utf-8").splitlines()
                if line and not line.startswith("#")]
    assert commands[-1] == "make test-full"


def test_ensure_chromium_is_silent_where_chromium_exists() -> None:
    proc = subprocess.run(["sh", str(REPO / "tools" / "ensure_chromium.sh")], capture_output=True, text=True,
                          env=dict(os.environ, CHROMIUM=sys.executable), check=False)
    assert (proc.returncode, proc.stdout, proc.stderr) == (0, "", "")


def test_ensure_chromium_without_root_prints_one_line_and_succeeds() -> None:
    if shutil.which("chromium") or Path("/usr/bin/chromium").exists():
        pytest.skip("chromium is installed here: the script has nothing to do")
    if os.geteuid() == 0:
        setpriv = shutil.which("setpriv")
        if setpriv is None:
            pytest.skip("running as root without setpriv: cannot run the script as another user")
        prefix = [setpriv, "--reuid=65534", "--regid=65534", "--clear-groups"]
    else:
        prefix = []
    env = {k: v for k, v in os.environ.items() if k != "CHROMIUM"}
    proc = subprocess.run([*prefix, "/bin/sh", str(REPO / "tools" / "ensure_chromium.sh")], capture_output=True,
                          text=True, env=env, check=False, cwd="/")
    assert proc.returncode == 0
    assert proc.stdout == ("chromium not found and not root: skipping the browser tests "
                           "(tests/project/test_browser.py); install Debian's chromium or set "
                           "CHROMIUM=/path/to/chromium to run them\n")
    assert proc.stderr == ""


def test_browser_tests_skip_with_a_reason_without_chromium(tmp_path) -> None:
    env = dict(os.environ, CHROMIUM=str(tmp_path / "no-chromium"))
    proc = subprocess.run([sys.executable, "-m", "pytest", "-rs", "-p", "no:cacheprovider", "-p", "no:xdist",
                           str(REPO / "tests" / "project" / "test_browser.py")], capture_output=True, text=True,
                          env=env, cwd=REPO, check=False)
    assert proc.returncode == 0, proc.stdout[-2000:]
    assert "passed" not in proc.stdout.splitlines()[-1]
    assert "SKIPPED" in proc.stdout
    assert "chromium is not installed (/usr/bin/chromium)" in proc.stdout


def _make_demo(tmp_path: Path, doctor: str) -> subprocess.CompletedProcess[str]:
    stamp = tmp_path / "venv" / ".installed"
    env = dict(os.environ)
    env["PYTHONPATH"] = os.pathsep.join([str(REPO)] + ([env["PYTHONPATH"]] if env.get("PYTHONPATH") else []))
    return subprocess.run(["make", "-s", "-f", str(REPO / "Makefile"), "-o", str(stamp), "demo",
                           f"VENV={tmp_path / 'venv'}", f"DOCTOR={doctor}"], cwd=tmp_path, env=env,
                          capture_output=True, text=True, timeout=300, check=False)


def test_make_demo_accepts_the_findings_exit_code(tmp_path) -> None:
    if shutil.which("make") is None:
        pytest.skip("no make here")
    result = _make_demo(tmp_path, f"{sys.executable} -m ortcopy_doctor")
    assert result.returncode == 0, result.stdout[-2000:] + result.stderr[-2000:]
    assert (tmp_path / "reports" / "demo.html").is_file()


def test_make_demo_fails_on_a_real_error(tmp_path) -> None:
    if shutil.which("make") is None:
        pytest.skip("no make here")
    result = _make_demo(tmp_path, "sh -c 'exit 3'")
    assert result.returncode != 0


def test_nothing_refers_outside_the_repository() -> None:
    """The code, tests, tools and docs name no path into the shared folder beside the checkout: a fresh clone has
    every file they read or cite."""
    outside = "/".join(("..", "shared"))  # spelt so that this file does not name it itself
    offenders = []
    for folder in ("ortcopy_doctor", "tests", "docs"):
        for path in (REPO / folder).rglob("*"):
            if path.suffix in (".py", ".md", ".toml", ".j2") and path.is_file():
                if outside in path.read_text(encoding="utf-8", errors="replace"):
                    offenders.append(str(path.relative_to(REPO)))
    for name in ("Makefile", "pyproject.toml", "README.md", "tools/gen_kernel_table.py", "tools/backend_suite.py"):
        if outside in (REPO / name).read_text(encoding="utf-8"):
            offenders.append(name)
    assert offenders == []
