"""The real CLI as a subprocess: `check`, `report`, `env`, `demo`, `--version`.

These run on the CPU test machine, where onnxruntime-gpu is installed but CUDA cannot load: the
default providers (cuda, then cpu) give a CPU session and an "ep-not-active" verdict.
"""

from __future__ import annotations

import hashlib
import html
import json
from pathlib import Path

import onnx
import pytest

import models
from schema_helpers import assert_valid_report, run_cli

FAST = ["--timed-runs", "2", "--runs", "1", "--warmup", "1"]
NATIVE_LOG_MARKERS = ("[V:onnxruntime", "[I:onnxruntime", "[W:onnxruntime", "[E:onnxruntime", "EP Error")


def sha256(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


def words(text: str) -> str:
    """Whitespace-normalised text, so a verdict wrapped by the terminal renderer still compares."""
    return " ".join(text.split())


class Checked:
    def __init__(self, root: Path) -> None:
        self.root = root
        self.model = root / "model.onnx"
        onnx.save(models.cpu_op_between(), str(self.model))
        self.sha_before = sha256(self.model)
        self.result = run_cli(["check", "model.onnx", "--dim", "batch=2", "--json", "run.json", "--html", "run.html",
                               "--fail-on", "never", *FAST], root)
        self.json_path = root / "run.json"
        self.html_path = root / "run.html"


@pytest.fixture(scope="module")
def checked(tmp_path_factory) -> Checked:
    """One default `check` (CUDA requested, then CPU) shared by the tests that read its outputs."""
    run = Checked(tmp_path_factory.mktemp("check"))
    assert "Traceback" not in run.result.stdout + run.result.stderr, run.result.stderr
    assert run.result.returncode == 0, (run.result.stdout, run.result.stderr)
    return run


@pytest.fixture(scope="module")
def report_json(checked) -> dict:
    return json.loads(checked.json_path.read_text(encoding="utf-8"))


@pytest.fixture(scope="module")
def cuda_inactive(report_json) -> None:
    if "CUDAExecutionProvider" in report_json["evidence"]["session"]["active_providers"]:
        pytest.skip("CUDA is active on this machine: these assertions are for CUDA requested but not active")


# --- check -----------------------------------------------------------------------------------------


def test_check_writes_valid_json_report(report_json):
    assert_valid_report(report_json)  # the shipped JSON Schema (tests/model/test_schema.py)
    assert report_json["format"] == "ortcopy-doctor-report"
    assert report_json["format_version"] == 2
    assert isinstance(report_json["verdict"], str) and report_json["verdict"]
    assert report_json["evidence"]["model"]["path"].endswith("model.onnx")


def test_check_writes_html_report_with_the_verdict(checked, report_json):
    text = checked.html_path.read_text(encoding="utf-8")
    assert text.lstrip().lower().startswith("<!doctype html>")
    assert text.rstrip().endswith("</html>")
    assert html.escape(report_json["verdict"], quote=False) in text


def test_check_verdict_says_cuda_requested_but_inactive_and_why(report_json, cuda_inactive):
    verdict = report_json["verdict"]
    assert verdict.startswith("CUDA was requested but is not active: the model ran on CPU.")
    assert "libonnxruntime_providers_cuda.so" in verdict


def test_check_stdout_starts_with_the_verdict(checked, report_json, cuda_inactive):
    stdout = checked.result.stdout
    assert stdout.splitlines()[0].startswith("CUDA was requested but is not active: the model ran on CPU.")
    assert words(stdout).startswith(words(report_json["verdict"]))
    assert words("wrote run.json\nwrote run.html") in words(stdout)


def test_check_prints_nothing_on_stderr(checked):
    assert checked.result.stderr == ""


def test_check_does_not_leak_onnxruntime_native_log(checked):
    for marker in NATIVE_LOG_MARKERS:
        assert marker not in checked.result.stdout
        assert marker not in checked.result.stderr


def test_check_never_modifies_the_model(checked):
    assert sha256(checked.model) == checked.sha_before
    # Nothing but the requested reports appeared beside it (no optimized model, profile or default html).
    assert sorted(p.name for p in checked.root.iterdir()) == ["model.onnx", "run.html", "run.json"]


def test_check_quiet_prints_only_the_verdict_line(tmp_path, cuda_inactive):
    onnx.save(models.cpu_op_between(), str(tmp_path / "model.onnx"))
    result = run_cli(["check", "model.onnx", "--dim", "batch=2", "--quiet", "--no-html", "--json", "run.json",
                      "--fail-on", "never", *FAST], tmp_path)
    assert result.returncode == 0, (result.stdout, result.stderr)
    verdict = json.loads((tmp_path / "run.json").read_text(encoding="utf-8"))["verdict"]
    assert result.stdout == verdict + "\n"
    assert result.stderr == ""


def test_check_default_html_path_is_model_stem_in_cwd(tmp_path):
    onnx.save(models.cpu_op_between(), str(tmp_path / "model.onnx"))
    result = run_cli(["check", "model.onnx", "--dim", "batch=2", "--provider", "cpu", *FAST], tmp_path)
    assert result.returncode == 0, (result.stdout, result.stderr)
    assert (tmp_path / "model.ortcopy.html").is_file()
    assert result.stdout.splitlines()[-1] == "wrote model.ortcopy.html"


# --- report ----------------------------------------------------------------------------------------


def test_report_rerenders_recorded_json(checked, report_json, tmp_path):
    out = tmp_path / "out.html"
    result = run_cli(["report", str(checked.json_path), "-o", "out.html"], tmp_path)
    assert result.returncode == 0, (result.stdout, result.stderr)
    assert result.stderr == ""
    assert out.is_file()
    assert html.escape(report_json["verdict"], quote=False) in out.read_text(encoding="utf-8")
    assert words(result.stdout).startswith(words(report_json["verdict"]))
    assert result.stdout.splitlines()[-1] == "wrote out.html"


def test_report_on_non_json_file_exits_2(tmp_path):
    (tmp_path / "notes.txt").write_text("this is not json\n", encoding="utf-8")
    result = run_cli(["report", "notes.txt", "-o", "out.html"], tmp_path)
    assert result.returncode == 2, (result.stdout, result.stderr)
    assert "Traceback" not in result.stdout + result.stderr
    assert result.stdout == ""
    lines = result.stderr.splitlines()
    assert len(lines) == 1 and lines[0].startswith("error: notes.txt is not readable JSON")
    assert lines[0].endswith("pass a file written by `check --json`")
    assert not (tmp_path / "out.html").exists()


def test_report_on_json_with_a_lone_surrogate_exits_2_and_writes_nothing(tmp_path):
    """JSON allows "\\ud800", which no output can hold as UTF-8: once an internal error (exit 4) after the HTML,
    SARIF and trace had been written."""
    from render_helpers import fixture_report_dict

    data = fixture_report_dict("demo")
    text = json.dumps(data).replace('"name": "encoder_matmul"', '"name": "\\ud800encoder_matmul"', 1)
    (tmp_path / "bad.json").write_text(text, encoding="utf-8")
    result = run_cli(["report", "bad.json", "-o", "out.html", "--sarif", "out.sarif", "--json", "-"], tmp_path)
    assert (result.returncode, result.stdout, result.stderr) == (
        2, "", "error: bad.json is not readable JSON (JSON is malformed: unexpected end of hex escape (byte 23664)): "
        "pass a file written by `check --json`\n")
    assert sorted(p.name for p in tmp_path.iterdir()) == ["bad.json"]


# --- env -------------------------------------------------------------------------------------------


def _provider_row(stdout: str, provider: str) -> list[str]:
    """The cells of `provider`'s row in the providers table, continuation lines of the reason joined."""
    lines = stdout.splitlines()
    start = next(i for i, line in enumerate(lines) if f"│ {provider} " in line)
    cells = [c.strip() for c in lines[start].strip("│ ").split("│")]
    for line in lines[start + 1:]:
        parts = [c.strip() for c in line.strip().strip("│").split("│")]
        if len(parts) != 3 or parts[0]:  # the next row, or the table's bottom border
            break
        cells[2] = f"{cells[2]} {parts[2]}".strip()
    return cells


@pytest.mark.no_cuda
def test_env_lists_cuda_as_not_loadable_with_a_reason(tmp_path):
    result = run_cli(["env"], tmp_path)
    assert result.returncode == 0, (result.stdout, result.stderr)
    assert "Traceback" not in result.stdout + result.stderr
    name, loads, reason = _provider_row(result.stdout, "CUDAExecutionProvider")
    if loads == "yes":
        pytest.skip("CUDA loads on this machine")
    assert loads == "no"
    assert "libonnxruntime_providers_cuda.so" in reason
    assert "Failed to create CUDAExecutionProvider" in reason


def test_env_does_not_leak_onnxruntime_output(tmp_path):
    result = run_cli(["env"], tmp_path)
    assert result.returncode == 0, (result.stdout, result.stderr)
    for marker in NATIVE_LOG_MARKERS + ("Falling back to",):
        assert marker not in result.stdout
        assert marker not in result.stderr


# --- demo and --version ----------------------------------------------------------------------------


def test_demo_writes_html_and_says_where(tmp_path):
    result = run_cli(["demo", "--html", "tmp/demo.html", "--fail-on", "never"], tmp_path)
    assert result.returncode == 0, (result.stdout, result.stderr)
    assert "Traceback" not in result.stdout + result.stderr
    target = tmp_path / "tmp" / "demo.html"
    assert target.is_file()
    assert target.read_text(encoding="utf-8").lstrip().lower().startswith("<!doctype html>")
    assert f"Demo report: {target.resolve()}" in words(result.stdout)


def test_demo_exits_as_check_would_on_its_model(tmp_path):
    demo = run_cli(["demo", "--html", "out/demo.html"], tmp_path)
    check = run_cli(["check", "out/demo.onnx", "--dim", "batch=32", "--no-html", *FAST], tmp_path)
    assert demo.returncode in (0, 1), demo.stderr
    assert demo.returncode == check.returncode
    gate = [line for line in demo.stdout.splitlines() if line.startswith("gate failed:")]
    assert gate == [line for line in check.stdout.splitlines() if line.startswith("gate failed:")]


def test_version(tmp_path):
    result = run_cli(["--version"], tmp_path)
    assert result.returncode == 0
    assert result.stdout == "ortcopy-doctor 0.1.0\n"
    assert result.stderr == ""


# --- the app a command line runs with (cli.app.app_for) ----------------------------------------------------------


@pytest.mark.parametrize("argv", [["check", "m.onnx"], ["run", "--", "x.py"], ["diff", "a", "b"]])
def test_a_command_line_naming_a_command_builds_that_command_alone(argv):
    from ortcopy_doctor.cli.app import app, app_for

    chosen = app_for(argv)
    assert [info.callback.__name__ for info in chosen.registered_commands] == [argv[0]]
    assert chosen.registered_callback is app.registered_callback


@pytest.mark.parametrize("argv", [[], ["--help"], ["--version"], ["chek", "m.onnx"], ["-h", "check"]])
def test_any_other_command_line_gets_the_whole_app(argv):
    from ortcopy_doctor.cli.app import app, app_for

    assert app_for(argv) is app


@pytest.mark.parametrize("argv", [["check", "--help"], ["report", "-h"], ["diff", "--help"], ["run", "--help"],
                                  ["env", "--help"], ["demo", "--help"], ["check"], ["check", "--bogus", "m"],
                                  ["diff", "a.json"], ["report", "a.json", "--fail-on", "sometimes"]])
def test_a_command_alone_prints_and_exits_as_the_whole_app(argv):
    from typer.testing import CliRunner

    from ortcopy_doctor.cli.app import app, app_for

    alone, whole = (CliRunner().invoke(a, argv, prog_name="ortcopy-doctor") for a in (app_for(argv), app))
    assert app_for(argv) is not app
    assert (alone.exit_code, alone.output) == (whole.exit_code, whole.output)
