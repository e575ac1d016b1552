"""The command's garbage-collector policy (cli/gcpolicy.py): mypy's thresholds, set by the two entry points alone
(``python -m ortcopy_doctor``, the ``ortcopy-doctor`` script); importing the package, the API or the CLI module in
another program sets nothing."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

from render_helpers import child_env

from ortcopy_doctor.cli.gcpolicy import COMMAND_THRESHOLDS

# A sitecustomize of the test prints the process's thresholds at exit: the command prints nothing of them itself.
_AT_EXIT = "import atexit, gc, os\natexit.register(lambda: os.write(1, repr(gc.get_threshold()).encode()))\n"


def test_python_dash_m_sets_the_command_s_thresholds(tmp_path: Path) -> None:
    (tmp_path / "sitecustomize.py").write_text(_AT_EXIT)
    result = subprocess.run([sys.executable, "-m", "ortcopy_doctor", "--version"], capture_output=True, text=True,
                            env=child_env(tmp_path), timeout=120)
    assert result.returncode == 0, result.stderr
    assert result.stdout.endswith(repr(COMMAND_THRESHOLDS))


def test_the_console_script_sets_the_command_s_thresholds(tmp_path: Path) -> None:
    # the `ortcopy-doctor` script pip writes
    (tmp_path / "sitecustomize.py").write_text(_AT_EXIT)
    (tmp_path / "ortcopy-doctor").write_text(
        "import sys\nfrom ortcopy_doctor.cli.app import main\nif __name__ == '__main__':\n    sys.exit(main())\n")
    result = subprocess.run([sys.executable, str(tmp_path / "ortcopy-doctor"), "--version"], capture_output=True,
                            text=True, env=child_env(tmp_path), timeout=120)
    assert result.returncode == 0, result.stderr
    assert result.stdout.endswith(repr(COMMAND_THRESHOLDS))


def test_importing_the_package_the_api_and_the_cli_module_sets_no_thresholds() -> None:
    code = ("import gc; gc.set_threshold(1234, 7, 9)\n"
            "import ortcopy_doctor, ortcopy_doctor.api, ortcopy_doctor.cli.app\n"
            "print(gc.get_threshold())")
    result = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, env=child_env(),
                            timeout=120)
    assert (result.stdout, result.returncode) == ("(1234, 7, 9)\n", 0), result.stderr


def test_another_module_run_with_dash_m_that_imports_the_package_sets_no_thresholds(tmp_path: Path) -> None:
    # while Python starts `python -m other`, sys.argv is ['-m'] as for `python -m ortcopy_doctor`
    (tmp_path / "otherpkg").mkdir()
    (tmp_path / "otherpkg" / "__init__.py").write_text("import ortcopy_doctor.cli.app\n", encoding="utf-8")
    (tmp_path / "otherpkg" / "__main__.py").write_text("import gc\nprint(gc.get_threshold())\n", encoding="utf-8")
    alone = subprocess.run([sys.executable, "-c", "import gc; print(gc.get_threshold())"], capture_output=True,
                           text=True, timeout=120, check=True).stdout
    result = subprocess.run([sys.executable, "-m", "otherpkg"], capture_output=True, text=True,
                            env=child_env(tmp_path), timeout=120)
    assert (result.stdout, result.returncode) == (alone, 0), result.stderr
