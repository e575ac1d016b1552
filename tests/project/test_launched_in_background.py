"""The test suite passes however it is launched: a signal test run by a pytest that was started with SIGINT and SIGHUP
ignored (`(make test > log 2>&1 &)` from a script ignores SIGINT, `nohup make test` SIGHUP) still passes. Each
child a test signals starts with the signals at their default action (tests/signal_helpers.py); before, these
tests failed there (the child kept the signal ignored, as a command should) and `run`'s waited 120 s for a
child that never stopped."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
from pathlib import Path

from render_helpers import REPO
from signal_helpers import ignoring

# One test of each signal a background job or nohup ignores, among the cheapest (a second or two each).
SIGNAL_TESTS = [
    "tests/project/test_promises.py::test_ctrl_c_during_argument_parsing_is_one_line",
    "tests/cli/test_run_command_safety.py::test_sighup_exits_129_with_one_line_and_writes_no_report",
]


def test_signal_tests_pass_under_a_pytest_started_with_sigint_and_sighup_ignored(tmp_path: Path):
    env = {name: value for name, value in os.environ.items()
           if not name.startswith(("PYTEST_XDIST", "PYTEST_CURRENT_TEST"))}
    result = subprocess.run([sys.executable, "-m", "pytest", "-p", "no:cacheprovider", "-q", "-p", "no:xdist",
                             "--basetemp", str(tmp_path / "inner"), *SIGNAL_TESTS],
                            cwd=REPO, env=env, capture_output=True, text=True, timeout=600, check=False,
                            stdin=subprocess.DEVNULL, preexec_fn=ignoring(signal.SIGINT, signal.SIGHUP))
    assert result.returncode == 0, result.stdout[-4000:] + result.stderr[-2000:]
    assert f"{len(SIGNAL_TESTS)} passed" in result.stdout
