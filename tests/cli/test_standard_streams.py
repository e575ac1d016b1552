"""stdout and stderr that cannot take the output.

Closed (`>&-`, `2>&-`): the command does its work and exits with its usual code; what it would print there is
dropped (cli.app._fill_closed_streams puts the null device there, so no file the command opens takes fd 1 or 2),
and an output asked for on a closed stdout (`--json -`) is refused with the one-line error and exit 2.
Refusing writes (`> /dev/full`): one error line and exit 3. A reader that goes away (`| head`): the command keeps
its exit code and prints nothing more."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import onnx
import pytest
from models import conv_net, cpu_op_between
from render_helpers import REPO, child_env, programs_in


@pytest.fixture(scope="module")
def model(tmp_path_factory: pytest.TempPathFactory) -> Path:
    path = tmp_path_factory.mktemp("closed") / "conv.onnx"
    onnx.save(conv_net(), str(path))
    return path


def _closed(redirect: str, *argv: str, cwd: Path | None = None) -> subprocess.CompletedProcess[str]:
    """``python -m ortcopy_doctor *argv`` with ``redirect`` (e.g. ``>&-``) applied by the shell."""
    env = child_env()
    return subprocess.run(["sh", "-c", f'exec "$@" {redirect}', "sh", sys.executable, "-m", "ortcopy_doctor", *argv],
                          env=env, cwd=cwd, capture_output=True, text=True, timeout=300, check=False)


def test_version_with_stdout_closed_exits_0_silently():
    result = _closed(">&-", "--version")
    assert (result.returncode, result.stderr) == (0, "")


def test_check_with_stdout_closed_writes_its_report(model, tmp_path):
    html = tmp_path / "r.html"
    result = _closed(">&-", "check", str(model), "--provider", "cpu", "--html", str(html), "--fail-on", "never")
    assert (result.returncode, result.stderr) == (0, "")
    assert html.read_text(encoding="utf-8").rstrip().endswith("</html>")


def test_check_quiet_with_stdout_closed_exits_0_silently(model, tmp_path):
    result = _closed(">&-", "check", str(model), "--provider", "cpu", "--no-html", "-q", "--fail-on", "never")
    assert (result.returncode, result.stderr) == (0, "")


def test_json_to_a_closed_stdout_is_refused_before_any_work(model):
    result = _closed(">&-", "check", str(model), "--provider", "cpu", "--no-html", "--json", "-")
    assert result.returncode == 2
    assert result.stderr == "error: --json -: stdout is closed (`>&-`): give a file path, or leave stdout open\n"


def test_check_with_stderr_closed_prints_its_verdict_on_stdout(model, tmp_path):
    out = tmp_path / "r.json"
    result = _closed("2>&-", "check", str(model), "--provider", "cpu", "--no-html", "-q", "--json", str(out),
                     "--fail-on", "never")
    assert result.returncode == 0
    assert result.stdout == "CPU-only session: no host↔device copies (all 6 nodes on CPU).\n"
    assert json.loads(out.read_text(encoding="utf-8"))["format"] == "ortcopy-doctor-report"


def test_a_usage_error_with_stderr_closed_keeps_exit_2(tmp_path):
    result = _closed("2>&-", "check", str(tmp_path / "missing.onnx"))
    assert (result.returncode, result.stdout) == (2, "")


def test_check_with_both_closed_writes_its_json(model, tmp_path):
    out = tmp_path / "r.json"
    result = _closed(">&- 2>&-", "check", str(model), "--provider", "cpu", "--no-html", "--json", str(out),
                     "--fail-on", "never")
    assert result.returncode == 0
    assert json.loads(out.read_text(encoding="utf-8"))["evidence"]["session"]["active_providers"] == ["CPUExecutionProvider"]


full = pytest.mark.skipif(not os.path.exists("/dev/full"), reason="no /dev/full on this system")
FULL_LINE = "error: stdout could not be written (No space left on device): free space, or send stdout elsewhere\n"


@full
def test_version_to_a_full_device_exits_3_with_one_line():
    result = _closed("> /dev/full", "--version")
    assert (result.returncode, result.stderr) == (3, FULL_LINE)


@full
def test_help_to_a_full_device_exits_3_with_one_line():
    result = _closed("> /dev/full", "--help")
    assert (result.returncode, result.stderr) == (3, FULL_LINE)


@full
def test_check_quiet_to_a_full_device_exits_3_with_one_line(model):
    result = _closed("> /dev/full", "check", str(model), "--provider", "cpu", "--no-html", "-q", "--fail-on", "never")
    assert (result.returncode, result.stderr) == (3, FULL_LINE)


@full
def test_a_usage_error_with_stderr_on_a_full_device_keeps_exit_2(tmp_path):
    result = _closed("2> /dev/full", "check", str(tmp_path / "missing.onnx"))
    assert (result.returncode, result.stdout) == (2, "")


def _reader_gone(*argv: str) -> tuple[int, str]:
    """``python -m ortcopy_doctor *argv`` writing into a pipe whose reader has already closed it (``| head``
    after its lines): (exit code, stderr)."""
    env = child_env()
    proc = subprocess.Popen([sys.executable, "-m", "ortcopy_doctor", *argv], env=env, stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE, text=True)
    assert proc.stdout is not None and proc.stderr is not None
    proc.stdout.close()
    err = proc.stderr.read()
    return proc.wait(timeout=300), err


def test_a_reader_that_goes_away_leaves_the_exit_code_and_no_traceback(model, tmp_path):
    html = tmp_path / "r.html"
    code, err = _reader_gone("check", str(model), "--provider", "cpu", "--html", str(html), "--fail-on", "never")
    assert (code, err) == (0, "")
    assert html.read_text(encoding="utf-8").rstrip().endswith("</html>")


def test_a_reader_that_goes_away_keeps_the_gate_exit_code(tmp_path):
    path = tmp_path / "fallback.onnx"
    onnx.save(cpu_op_between(), str(path))
    code, err = _reader_gone("check", str(path), "--static", "--no-html", "--fail-on", "info")
    assert (code, err) == (1, "")


def test_a_terminal_whose_encoding_lacks_a_character_gets_its_escape(model):
    env = child_env(PYTHONIOENCODING="ascii")
    result = subprocess.run([sys.executable, "-m", "ortcopy_doctor", "check", str(model), "--provider", "cpu",
                             "--no-html", "-q", "--fail-on", "never"], env=env, capture_output=True, timeout=300,
                            check=False)
    assert (result.returncode, result.stderr) == (0, b"")
    assert result.stdout == b"CPU-only session: no host\\u2194device copies (all 6 nodes on CPU).\n"


# --- stdin: `report -` and `diff A -` read the JSON from a pipe --------------------------------------------------


@pytest.fixture(scope="module")
def recorded_json(tmp_path_factory: pytest.TempPathFactory) -> Path:
    import gzip

    path = tmp_path_factory.mktemp("stdin") / "demo.json"
    path.write_bytes(gzip.decompress((REPO / "tests" / "fixtures" / "check_json" / "demo.json.gz").read_bytes()))
    return path


def _doctor_stdin(stdin: object, *argv: str) -> subprocess.CompletedProcess[str]:
    env = child_env()
    return subprocess.run([sys.executable, "-m", "ortcopy_doctor", *argv], env=env, stdin=stdin, capture_output=True,
                          text=True, timeout=300, check=False)


def test_report_dash_reads_the_json_from_stdin(recorded_json):
    with open(recorded_json, "rb") as f:
        piped = _doctor_stdin(f, "report", "-", "--json", "-")
    from_file = _doctor_stdin(subprocess.DEVNULL, "report", str(recorded_json), "--json", "-")
    assert (piped.returncode, piped.stderr) == (from_file.returncode, from_file.stderr)
    assert piped.stdout == from_file.stdout
    # what check wrote on the H200, its code compared as a program (laid out within 88 characters since)
    assert programs_in(json.loads(piped.stdout)) == programs_in(json.loads(recorded_json.read_text(encoding="utf-8")))


def test_diff_reads_one_report_from_stdin(recorded_json):
    with open(recorded_json, "rb") as f:
        result = _doctor_stdin(f, "diff", str(recorded_json), "-")
    assert (result.returncode, result.stderr) == (0, "")
    assert result.stdout.splitlines()[:2] == [f"ortcopy-doctor diff: {recorded_json} → stdin",
                                              "No new transfers or findings."]


def test_diff_refuses_both_reports_from_stdin(recorded_json):
    with open(recorded_json, "rb") as f:
        result = _doctor_stdin(f, "diff", "-", "-")
    assert (result.returncode, result.stderr) == (
        2, "error: diff - -: only one of the two reports can come from stdin: give the other one's path\n")


def test_report_dash_with_no_json_on_stdin_says_so():
    result = _doctor_stdin(subprocess.DEVNULL, "report", "-")
    assert (result.returncode, result.stderr) == (
        2, "error: stdin is not readable JSON (it is empty): pass a file written by `check --json`\n")


def test_report_dash_with_stdin_closed_says_so():
    result = _closed("<&-", "report", "-")
    assert (result.returncode, result.stderr) == (
        2, "error: report -: stdin is closed: pipe a JSON into it, or give a file path\n")


def test_report_dash_on_a_terminal_does_not_wait_for_typing():
    import pty

    primary, secondary = pty.openpty()
    try:
        result = _doctor_stdin(secondary, "report", "-")
    finally:
        os.close(primary)
        os.close(secondary)
    assert result.returncode == 2
    assert result.stderr.startswith("error: report -: stdin is a terminal: pipe a JSON into it")
