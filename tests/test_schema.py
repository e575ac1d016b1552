"""The published JSON Schema of the report (ortcopy_doctor/model/schema/report.schema.json).

Everything the tool writes validates: the GPU fixtures as recorded, their re-analysis, the golden files, a static
and a CPU check; the schema catches drift (a wrong kind, direction or severity, a missing key, a wrong type) and
tolerates the optional fields added within format version 1. The CLI tests validate the JSON they write too
(schema_helpers.assert_valid_report).
"""

from __future__ import annotations

import copy
import gzip
import json
import re

import jsonschema
import onnx
import pytest

import models
from ortcopy_doctor.model.evidence import FORMAT_VERSION as EVIDENCE_FORMAT_VERSION
from ortcopy_doctor.report.core import REPORT_FORMAT, REPORT_FORMAT_VERSION, load_report
from ortcopy_doctor.rules import RULES
from ortcopy_doctor.model.schema import SCHEMA_ID, load_schema, validation_errors
from render_helpers import FIXTURES, GOLDEN, REPO, fixture_report_dict, write_report_json
from schema_helpers import assert_valid_report, run_cli

ALL_FIXTURES = sorted(p.name[: -len(".json.gz")] for p in FIXTURES.glob("*.json.gz"))


def test_schema_is_valid_draft_2020_12():
    schema = load_schema()
    assert schema["$schema"] == "https://json-schema.org/draft/2020-12/schema"
    assert schema["$id"] == SCHEMA_ID
    jsonschema.Draft202012Validator.check_schema(schema)


def test_schema_versions_match_the_code():
    schema = load_schema()
    assert schema["properties"]["format"] == {"const": REPORT_FORMAT}
    # Version 2 added "advice"; version 1 files (the recorded fixtures) still validate.
    assert schema["properties"]["format_version"] == {"enum": list(range(1, REPORT_FORMAT_VERSION + 1))}
    evidence_version = schema["$defs"]["evidence"]["properties"]["format_version"]
    assert evidence_version["maximum"] == EVIDENCE_FORMAT_VERSION, "evidence FORMAT_VERSION changed: update the schema"


def test_schema_ships_in_the_package_directory():
    # hatchling puts every file under ortcopy_doctor/ into the wheel (tests/test_wheel.py checks the wheel).
    assert (REPO / "ortcopy_doctor" / "model" / "schema" / "report.schema.json").is_file()


def test_format_doc_names_the_versions():
    doc = (REPO / "docs" / "json-format.md").read_text(encoding="utf-8")
    assert f"format_version` {REPORT_FORMAT_VERSION}" in doc
    assert "report.schema.json" in doc and "Change log" in doc


def test_every_rule_fits_the_finding_patterns():
    finding = load_schema()["$defs"]["finding"]["properties"]
    for rule in RULES:
        assert re.fullmatch(finding["rule"]["pattern"], rule.id), rule.id
        assert re.fullmatch(finding["slug"]["pattern"], rule.slug), rule.slug


# --- what the tool writes validates -------------------------------------------------------------------------------


@pytest.mark.parametrize("name", ALL_FIXTURES)
def test_recorded_gpu_report_validates(name):
    assert_valid_report(fixture_report_dict(name))


@pytest.mark.parametrize("name", ALL_FIXTURES)
def test_reanalysed_gpu_report_validates(name, tmp_path):
    report = load_report(write_report_json(fixture_report_dict(name), tmp_path / f"{name}.json"))
    assert_valid_report(json.loads(report.to_json()))


def _unmask(value):
    """Golden JSON has timing numbers masked as "<time>": put numbers back to validate the structure."""
    if isinstance(value, dict):
        return {k: _unmask(v) for k, v in value.items()}
    if isinstance(value, list):
        return [_unmask(v) for v in value]
    return 0 if value == "<time>" else value


# <fixture>.json are report goldens; <fixture>.sarif.json and <fixture>.trace.json are other formats.
@pytest.mark.parametrize("golden", sorted(p.name for p in GOLDEN.glob("*.json") if p.name.count(".") == 1))
def test_golden_report_json_validates(golden):
    data = json.loads((GOLDEN / golden).read_text(encoding="utf-8"))
    if data.get("format") != REPORT_FORMAT:
        pytest.skip(f"{golden} is not a report")
    assert_valid_report(_unmask(data))


def test_static_report_validates(tmp_path):
    from ortcopy_doctor.api import check

    onnx.save(models.cpu_op_between(), str(tmp_path / "m.onnx"))
    report = check(tmp_path / "m.onnx", dims={"batch": 2}, static=True)
    data = assert_valid_report(json.loads(report.to_json()))
    assert data["evidence"]["mode"] == "static"


def test_cli_report_json_validates(tmp_path):
    """`report --json` writes the re-analysed report: it validates, and so does `report` re-reading it."""
    src = write_report_json(fixture_report_dict("demo"), tmp_path / "demo.json")
    result = run_cli(["report", str(src), "--json", "again.json"], tmp_path)
    assert result.returncode == 0, result.stderr
    assert_valid_report(tmp_path / "again.json")
    result = run_cli(["report", "again.json", "--json", "third.json"], tmp_path)
    assert result.returncode == 0, result.stderr
    assert_valid_report(tmp_path / "third.json")


# --- the schema catches drift -------------------------------------------------------------------------------------


@pytest.fixture
def good():
    return fixture_report_dict("cpu_op_between")


def _errors_after(data, edit) -> list[str]:
    data = copy.deepcopy(data)
    edit(data)
    return validation_errors(data)


@pytest.mark.parametrize("edit, where", [
    (lambda d: d["copies"][0].update(kind="memcpy"), "copies/0/kind"),
    (lambda d: d["copies"][0].update(direction="h2d"), "copies/0/direction"),
    (lambda d: d["copies"][0].pop("tensor"), "copies/0"),
    (lambda d: d["copies"][0].update(bytes_per_run="512"), "copies/0/bytes_per_run"),
    (lambda d: d["findings"][0].update(severity="fatal"), "findings/0/severity"),
    (lambda d: d["findings"][0].update(rule="X1"), "findings/0/rule"),
    (lambda d: d["summary"].update(findings_by_severity={"fatal": 1}), "summary/findings_by_severity"),
    (lambda d: d["summary"].pop("bytes_per_run"), "summary"),
    (lambda d: d.pop("verdict"), "<root>"),
    (lambda d: d.update(format_version=3), "format_version"),
    (lambda d: d["evidence"].update(format_version=2), "evidence/format_version"),
    (lambda d: d["evidence"].update(mode="guessed"), "evidence/mode"),
    (lambda d: d["evidence"]["run_events"][0].update(warmup="no"), "evidence/run_events/0/warmup"),
    (lambda d: d["evidence"]["node_events"][0].pop("ts_us"), "evidence/node_events/0"),
    (lambda d: d["evidence"]["model"].update(opsets={"ai.onnx": "17"}), "evidence/model/opsets/ai.onnx"),
    (lambda d: d["evidence"]["session"].update(active_providers="CUDA"), "evidence/session/active_providers"),
    (lambda d: d["binding"]["entries"][0].update(place="gpu"), "binding/entries/0/place"),
])
def test_schema_rejects_drift(good, edit, where):
    errors = _errors_after(good, edit)
    assert errors, f"schema accepted a broken report ({where})"
    assert any(e.startswith(where + ":") for e in errors), errors


def test_schema_tolerates_optional_additions(good):
    """New optional fields (evidence.census, a measurement, a new key on a copy) must not break old readers."""
    def edit(d):
        d["evidence"]["census"] = {"backend": "cupti-python", "backend_version": "13.4.0", "records": [
            {"direction": "host_to_device", "bytes": 512, "src_kind": "pageable", "dst_kind": "device",
             "start_ns": 1, "end_ns": 2, "correlation_id": 3, "api_start_ns": None, "api_kind": "runtime"}],
            "clock_pairs": [[1, 2]], "traced_runs": [2, 3], "future_field": True}
        d["evidence"]["census_status"] = "recorded: 1 transfer"
        d["evidence"]["binding_measurements"] = {"plain_ms": [0.1], "bound_ms": [0.05]}
        d["copies"][0]["confirmed"] = True
        d["copies"][0]["new_field"] = "x"
        d["census"] = {"backend": "cupti-python", "transfers": [], "per_run": {}}
        d["prediction"] = None
        d["summary"]["new_count"] = 3
    assert _errors_after(good, edit) == []


def test_schema_checks_census_records_when_present(good):
    def edit(d):
        d["evidence"]["census"] = {"backend": "cupti-python", "records": [{"direction": "host_to_device", "bytes": -1}]}
    errors = _errors_after(good, edit)
    assert any(e.startswith("evidence/census/records/0") for e in errors), errors


def test_older_report_without_prediction_key_validates(good):
    good.pop("prediction", None)
    assert validation_errors(good) == []


def test_validation_errors_name_the_path():
    errors = validation_errors({"format": "ortcopy-doctor-report"})
    assert "<root>: 'verdict' is a required property" in errors


def test_gzip_fixture_files_hold_reports():
    """The fixtures the schema tests read are what `check --json` wrote on the GPU machine."""
    for name in ALL_FIXTURES:
        with gzip.open(FIXTURES / f"{name}.json.gz", "rt", encoding="utf-8") as f:
            assert json.load(f)["report"]["format"] == REPORT_FORMAT
