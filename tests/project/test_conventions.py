"""What users expect of a command-line tool: `--json -`, `-h`, a rules page linked from SARIF, a LICENSE and project
URLs, and a warning when two onnxruntime distributions fight over the same module."""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
import tomllib
from pathlib import Path

import onnx
import pytest

import models
from ortcopy_doctor.render.sarif import render_sarif
from ortcopy_doctor.rules import PROJECT_URL, RULES, RULES_DOC_URL
from render_helpers import REPO, load_fixture

FAST = ["--timed-runs", "1", "--runs", "1", "--warmup", "0"]


def _cli(args: list[str], cwd: Path, extra_path: str | None = None) -> subprocess.CompletedProcess[str]:
    env = dict(os.environ)
    paths = [str(REPO)] + ([extra_path] if extra_path else []) + ([env["PYTHONPATH"]] if env.get("PYTHONPATH") else [])
    env["PYTHONPATH"] = os.pathsep.join(paths)
    env.pop("COLUMNS", None)
    return subprocess.run([sys.executable, "-m", "ortcopy_doctor", *args], cwd=cwd, env=env, capture_output=True,
                          text=True, timeout=120, check=False)


# --- --json - ---------------------------------------------------------------------------------------------------


def test_check_json_dash_writes_only_json_to_stdout(tmp_path):
    onnx.save(models.conv_net(), str(tmp_path / "model.onnx"))
    result = _cli(["check", "model.onnx", "--dim", "batch=1", "-p", "cpu", "--no-html", "--json", "-", *FAST], tmp_path)
    assert result.returncode == 0, result.stderr
    data = json.loads(result.stdout)
    assert data["format"] == "ortcopy-doctor-report"
    assert result.stderr.splitlines()[0] == data["verdict"]
    assert not (tmp_path / "-").exists()


def test_report_json_dash_writes_only_json_to_stdout(tmp_path):
    report = load_fixture("demo", tmp_path)
    (tmp_path / "in.json").write_text(report.to_json(), encoding="utf-8")
    result = _cli(["report", "in.json", "--json", "-"], tmp_path)
    assert result.returncode == 0, result.stderr
    assert json.loads(result.stdout)["verdict"] == report.verdict
    assert result.stderr.splitlines()[0] == report.verdict
    assert not (tmp_path / "-").exists()


# --- -h ---------------------------------------------------------------------------------------------------------


@pytest.mark.parametrize("command", [[], ["check"], ["report"], ["diff"], ["env"], ["demo"], ["run"]])
def test_short_h_is_help(command, tmp_path):
    short = _cli([*command, "-h"], tmp_path)
    long = _cli([*command, "--help"], tmp_path)
    assert (short.returncode, long.returncode) == (0, 0), short.stderr
    assert short.stdout == long.stdout
    assert short.stdout.startswith("Usage: ")


# --- rules page and SARIF ---------------------------------------------------------------------------------------


def _rules_sections() -> dict[str, str]:
    text = (REPO / "docs" / "rules.md").read_text(encoding="utf-8")
    parts = re.split(r"^## ", text, flags=re.M)[1:]
    return {part.splitlines()[0]: part for part in parts}


def test_rules_page_has_one_section_per_rule_with_an_example_and_the_fix():
    sections = _rules_sections()
    assert list(sections) == [f"{rule.id} {rule.slug}" for rule in RULES]
    for heading, body in sections.items():
        assert body.count("```") == 2, heading
        assert "\nFix: " in body, heading


def test_sarif_rules_link_their_section_of_the_rules_page(tmp_path):
    sarif = json.loads(render_sarif(load_fixture("demo", tmp_path)))
    anchors = {h.lower().replace(" ", "-") for h in _rules_sections()}  # GitHub's heading anchors
    from ortcopy_doctor.model.pipeline import PipelineObservations
    from ortcopy_doctor.render.sarif import render_run_sarif
    from ortcopy_doctor.report.pipeline import analyse_pipeline

    run_sarif = json.loads(render_run_sarif(analyse_pipeline(PipelineObservations())))
    rules = sarif["runs"][0]["tool"]["driver"]["rules"] + run_sarif["runs"][0]["tool"]["driver"]["rules"]
    assert [r["helpUri"] for r in rules] == [f"{RULES_DOC_URL}#{r['id'].lower()}-{r['name']}" for r in rules]
    assert {r["helpUri"].split("#")[1] for r in rules} == anchors


# --- LICENSE and project URLs -----------------------------------------------------------------------------------


def test_license_is_mit_as_pyproject_says():
    project = tomllib.loads((REPO / "pyproject.toml").read_text(encoding="utf-8"))["project"]
    assert project["license"] == {"text": "MIT"}
    assert (REPO / "LICENSE").read_text(encoding="utf-8").startswith("MIT License\n")


def test_pyproject_has_project_urls():
    urls = tomllib.loads((REPO / "pyproject.toml").read_text(encoding="utf-8"))["project"]["urls"]
    assert urls["Homepage"] == PROJECT_URL
    assert urls["Rules"] == RULES_DOC_URL


# --- env: two onnxruntime distributions -------------------------------------------------------------------------


def _fake_distribution(root: Path, name: str, version: str) -> None:
    info = root / f"{name.replace('-', '_')}-{version}.dist-info"
    info.mkdir(parents=True)
    (info / "METADATA").write_text(f"Metadata-Version: 2.1\nName: {name}\nVersion: {version}\n", encoding="utf-8")


def test_env_warns_when_two_onnxruntime_distributions_are_installed(tmp_path):
    from ortcopy_doctor.collect.environment import installed_ort_distributions

    installed = installed_ort_distributions()
    if len(installed) != 1 or not installed[0].startswith("onnxruntime-gpu "):
        pytest.skip(f"this test adds a fake onnxruntime beside onnxruntime-gpu; installed here: {installed}")
    _fake_distribution(tmp_path / "site", "onnxruntime", "1.20.0")
    result = _cli(["env"], tmp_path, extra_path=str(tmp_path / "site"))
    assert result.returncode == 0, result.stderr
    assert result.stdout.splitlines()[1] == (
        f"warning: {installed[0]} and onnxruntime 1.20.0 are both installed: they ship the same `onnxruntime` "
        "module, so which one is imported depends on install order; keep one: `pip uninstall -y onnxruntime-gpu "
        "onnxruntime` then `pip install onnxruntime-gpu` (or the one you need)")


def test_env_says_nothing_with_one_onnxruntime_distribution(tmp_path):
    from ortcopy_doctor.collect.environment import installed_ort_distributions

    if len(installed_ort_distributions()) != 1:
        pytest.skip("more than one onnxruntime distribution is installed here")
    result = _cli(["env"], tmp_path)
    assert result.returncode == 0, result.stderr
    assert "warning:" not in result.stdout

