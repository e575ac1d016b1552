"""SARIF 2.1.0 output: golden files on recorded GPU evidence, validity against the SARIF 2.1.0 schema (vendored in
tests/schemas, see its README), one rule per finding kind, levels, locations, --allow, and the CLI gates
(--sarif, --max-transfer-bytes, --allow) of `check` and `report`.

Update the golden files after an intended change with ``ORTCOPY_UPDATE_GOLDEN=1 pytest tests/render/test_sarif.py``.
"""

from __future__ import annotations

import hashlib
import json
from pathlib import Path

import onnx
import pytest

import models
from ortcopy_doctor import __version__
from ortcopy_doctor.report.gate import resolve_allow
from ortcopy_doctor.render.sarif import LEVEL, artifact_location, sarif_log
from ortcopy_doctor.rules import CHECK_RULES
from render_helpers import (
    GOLDEN_FIXTURES,
    EVIL_NODE,
    FIXTURES,
    check_golden,
    evil_report,
    fixture_json,
    load_fixture,
    mask_text,
)
from schema_helpers import SARIF_SCHEMA, SARIF_SCHEMA_SHA256, assert_valid_report, assert_valid_sarif, run_cli

ALL_FIXTURES = sorted(p.name[: -len(".json.gz")] for p in FIXTURES.glob("*.json.gz"))


def mask_sarif(text: str, report) -> str:
    data = json.loads(text)
    for run in data["runs"]:
        driver = run["tool"]["driver"]
        driver["version"] = driver["semanticVersion"] = "<VERSION>"
        if run["properties"].get("medianRunMs") is not None:
            run["properties"]["medianRunMs"] = "<time>"
    return mask_text(json.dumps(data, indent=1, ensure_ascii=False), report) + "\n"


def sarif_of(report, **kw) -> dict:
    kw.setdefault("base", Path(report.evidence.model.path).parent)
    return sarif_log(report, **kw)


@pytest.fixture(params=GOLDEN_FIXTURES)
def fixture_report(request, tmp_path):
    return request.param, load_fixture(request.param, tmp_path)


def test_sarif_golden(fixture_report):
    name, report = fixture_report
    text = json.dumps(sarif_of(report), indent=1, ensure_ascii=False)
    check_golden(f"{name}.sarif.json", mask_sarif(text, report))


def test_vendored_sarif_schema_is_the_recorded_file():
    assert hashlib.sha256(SARIF_SCHEMA.read_bytes()).hexdigest() == SARIF_SCHEMA_SHA256, (
        "tests/schemas/sarif-2.1.0.json changed: it must stay the file tests/schemas/README.md names")


@pytest.mark.parametrize("name", ALL_FIXTURES)
def test_sarif_of_every_gpu_fixture_validates(name, tmp_path):
    report = load_fixture(name, tmp_path)
    log = assert_valid_sarif(sarif_of(report))
    assert len(log["runs"][0]["results"]) == len(report.findings)
    # And with every kind allowed (suppressions) and absolute URIs.
    assert_valid_sarif(sarif_log(report, allow=resolve_allow([r.id for r in CHECK_RULES]), base=None))


def test_sarif_validator_rejects_broken_logs(tmp_path):
    from schema_helpers import sarif_errors

    log = sarif_of(load_fixture("cpu_op_between", tmp_path))
    log["runs"][0]["results"][0]["level"] = "fatal"
    assert sarif_errors(log)
    del log["version"]
    assert sarif_errors(log)


def test_one_rule_per_finding_kind(tmp_path):
    report = load_fixture("demo", tmp_path)
    driver = sarif_of(report)["runs"][0]["tool"]["driver"]
    assert driver["name"] == "ortcopy-doctor" and driver["version"] == __version__
    assert [r["id"] for r in driver["rules"]] == [r.id for r in CHECK_RULES]
    for descriptor, rule in zip(driver["rules"], CHECK_RULES):
        assert descriptor["name"] == rule.slug
        assert descriptor["shortDescription"]["text"] == rule.title
        assert descriptor["help"]["text"] and descriptor["help"]["text"] != rule.title, rule.slug
        assert descriptor["defaultConfiguration"]["level"] == LEVEL[rule.severity.value]


def test_results_carry_level_message_locations_and_bytes(tmp_path):
    report = load_fixture("cpu_op_between", tmp_path)
    run = sarif_of(report)["runs"][0]
    rules = run["tool"]["driver"]["rules"]
    assert len(run["results"]) == len(report.findings)
    for result, finding in zip(run["results"], report.findings):
        assert result["ruleId"] == finding.rule
        assert rules[result["ruleIndex"]]["id"] == finding.rule
        assert result["level"] == LEVEL[finding.severity]
        assert finding.message in result["message"]["text"] and "Fix: " in result["message"]["text"]
        location = result["locations"][0]
        assert location["physicalLocation"]["artifactLocation"] == {"uri": "cpu_op_between.onnx",
                                                                    "uriBaseId": "%SRCROOT%"}
        assert location["logicalLocations"][0]["name"] == finding.location
        assert result["properties"]["bytesPerRun"] == finding.bytes_per_run
    kinds = {r["properties"]["slug"]: r["locations"][0]["logicalLocations"][0]["kind"] for r in run["results"]}
    assert kinds["cpu-fallback"] == "function"
    assert kinds["memcpy-node"] == "function"
    assert kinds["feed-copy"] == "parameter"
    assert kinds["fetch-copy"] == "returnType"
    memcpy = next(r for r in run["results"] if r["properties"]["slug"] == "memcpy-node")
    assert memcpy["locations"][0]["logicalLocations"][1]["kind"] == "variable"
    assert run["properties"]["bytesPerRun"] == report.summary.bytes_per_run
    fingerprints = [r["partialFingerprints"]["ortcopyDoctorFinding/v1"] for r in run["results"]]
    assert len(set(fingerprints)) == len(fingerprints)


def test_allowed_kinds_become_suppressed_notes(tmp_path):
    report = load_fixture("cpu_op_between", tmp_path)
    run = sarif_of(report, allow=resolve_allow(["feed-copy", "OCD003"]))["runs"][0]
    for result in run["results"]:
        if result["ruleId"] in ("OCD004", "OCD003"):
            assert result["level"] == "note"
            assert result["suppressions"][0]["kind"] == "external"
            assert result["suppressions"][0]["status"] == "accepted"
        else:
            assert "suppressions" not in result
            assert result["level"] == "warning"
    assert run["properties"]["allowed"] == ["OCD003", "OCD004"]


def test_artifact_location():
    assert artifact_location("models/m.onnx", Path("/repo")) == {"uri": "models/m.onnx", "uriBaseId": "%SRCROOT%"}
    assert artifact_location("/repo/models/m.onnx", Path("/repo")) == {"uri": "models/m.onnx", "uriBaseId": "%SRCROOT%"}
    assert artifact_location("/elsewhere/m.onnx", Path("/repo")) == {"uri": "file:///elsewhere/m.onnx"}
    assert artifact_location("/a b/m#1.onnx", None) == {"uri": "file:///a%20b/m%231.onnx"}


def test_evil_names_stay_data_in_sarif(tmp_path):
    report = evil_report(tmp_path)
    log = assert_valid_sarif(sarif_of(report))
    names = [loc["name"] for r in log["runs"][0]["results"] for loc in r["locations"][0]["logicalLocations"]]
    assert EVIL_NODE in names


def test_prediction_findings_are_marked(tmp_path):
    """A CPU session where CUDA was requested: the predicted findings for CUDA are results marked predicted."""
    from ortcopy_doctor.api import check

    onnx.save(models.cpu_op_between(), str(tmp_path / "m.onnx"))
    report = check(tmp_path / "m.onnx", dims={"batch": 2}, warmup_runs=1, profiled_runs=1, timed_runs=2)
    if report.prediction is None:
        pytest.skip("CUDA is active here: no prediction")
    log = assert_valid_sarif(sarif_of(report))
    results = log["runs"][0]["results"]
    assert results[0]["ruleId"] == "OCD001" and results[0]["level"] == "error"
    predicted = [r for r in results if r["properties"]["predicted"]]
    assert len(predicted) == len(report.prediction.findings)
    assert all(r["message"]["text"].startswith("Predicted for CUDA: ") for r in predicted)


# --- CLI ----------------------------------------------------------------------------------------------------------


def test_cli_report_writes_valid_sarif_and_gates(tmp_path):
    src = fixture_json("cpu_op_between", tmp_path)
    ok = run_cli(["report", src.name, "--sarif", "out.sarif", "--json", "out.json"], tmp_path)
    assert ok.returncode == 0, ok.stdout + ok.stderr
    assert "wrote out.sarif" in ok.stdout
    log = assert_valid_sarif(tmp_path / "out.sarif")
    assert len(log["runs"][0]["results"]) == 5
    assert_valid_report(tmp_path / "out.json")

    over = run_cli(["report", src.name, "--max-transfer-bytes", "2KB"], tmp_path)
    assert over.returncode == 1, over.stdout + over.stderr
    assert "gate failed: host↔device bytes per run 2.8 KB (2816 B) exceed --max-transfer-bytes 2000 B" in over.stdout
    assert run_cli(["report", src.name, "--max-transfer-bytes", "3KB"], tmp_path).returncode == 0

    warn = run_cli(["report", src.name, "--fail-on", "warning"], tmp_path)
    assert warn.returncode == 1 and "gate failed: 5 finding(s) at or above --fail-on warning" in warn.stdout
    allowed = run_cli(["report", src.name, "--fail-on", "warning", "--allow", "cpu-fallback", "--allow", "OCD003",
                       "--allow", "feed-copy,fetch-copy", "--sarif", "allowed.sarif"], tmp_path)
    assert allowed.returncode == 0, allowed.stdout + allowed.stderr
    levels = {r["level"] for r in assert_valid_sarif(tmp_path / "allowed.sarif")["runs"][0]["results"]}
    assert levels == {"note"}


def test_cli_bad_gate_options_exit_2_before_work(tmp_path):
    src = fixture_json("cpu_op_between", tmp_path)
    bad = run_cli(["report", src.name, "--allow", "feed"], tmp_path)
    assert bad.returncode == 2 and "--allow 'feed' is not a finding kind" in bad.stderr
    bad = run_cli(["report", src.name, "--max-transfer-bytes", "lots"], tmp_path)
    assert bad.returncode == 2 and "--max-transfer-bytes 'lots' is not a byte count" in bad.stderr
    bad = run_cli(["report", src.name, "--sarif", "missing/out.sarif"], tmp_path)
    assert bad.returncode == 2 and "--sarif missing/out.sarif" in bad.stderr


def test_cli_check_sarif_and_gate(tmp_path):
    """`check` on this CPU machine (CUDA requested, not active): the SARIF has the OCD001 error and the
    predicted CUDA findings; --allow ep-not-active lets --fail-on error pass."""
    onnx.save(models.cpu_op_between(), str(tmp_path / "model.onnx"))
    fast = ["--timed-runs", "2", "--runs", "1", "--warmup", "1", "--dim", "batch=2", "--no-html"]
    result = run_cli(["check", "model.onnx", *fast, "--sarif", "run.sarif", "--json", "run.json",
                      "--allow", "ep-not-active"], tmp_path)
    data = assert_valid_report(tmp_path / "run.json")
    if "CUDAExecutionProvider" in data["evidence"]["session"]["active_providers"]:
        pytest.skip("CUDA is active on this machine")
    assert result.returncode == 0, result.stdout + result.stderr
    log = assert_valid_sarif(tmp_path / "run.sarif")
    first = log["runs"][0]["results"][0]
    assert first["ruleId"] == "OCD001" and first["level"] == "note" and first["suppressions"]
    assert first["locations"][0]["physicalLocation"]["artifactLocation"] == {"uri": "model.onnx",
                                                                             "uriBaseId": "%SRCROOT%"}
    strict = run_cli(["check", "model.onnx", *fast, "--quiet"], tmp_path)
    assert strict.returncode == 1
    assert "gate failed" not in strict.stdout  # --quiet prints only the verdict
