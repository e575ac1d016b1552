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
from ortcopy_doctor.report.core import REPORT_FORMAT, REPORT_FORMAT_VERSION, load_report, report_schema
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
    assert schema["properties"]["format"]["default"] == REPORT_FORMAT
    assert schema["properties"]["format_version"]["default"] == REPORT_FORMAT_VERSION
    assert (f"(format version {REPORT_FORMAT_VERSION}; evidence format version {EVIDENCE_FORMAT_VERSION})"
            in schema["description"])


def test_shipped_schema_is_the_one_generated_from_the_types():
    """The schema is generated from the types that write and read the JSON (report.core.report_schema); the file
    in the package is what tools/gen_schema.py writes: run it after changing a type."""
    shipped = (REPO / "ortcopy_doctor" / "model" / "schema" / "report.schema.json").read_text(encoding="utf-8")
    assert shipped == json.dumps(report_schema(), indent=1, ensure_ascii=False) + "\n", \
        "the report's types changed: run python tools/gen_schema.py"


def test_schema_ships_in_the_package_directory():
    # hatchling puts every file under ortcopy_doctor/ into the wheel (tests/project/test_wheel.py checks the wheel).
    assert (REPO / "ortcopy_doctor" / "model" / "schema" / "report.schema.json").is_file()


def test_format_doc_names_the_versions():
    doc = (REPO / "docs" / "json-format.md").read_text(encoding="utf-8")
    assert f"format_version` {REPORT_FORMAT_VERSION}" in doc
    assert "report.schema.json" in doc and "(../CHANGELOG.md)" in doc


def test_one_change_log_lists_every_format_version():
    """CHANGELOG.md at the root is the one change log; the docs and docstrings point at it instead of repeating it."""
    log = (REPO / "CHANGELOG.md").read_text(encoding="utf-8")
    report = log[log.index("## Report format"):log.index("## Evidence format")]
    evidence = log[log.index("## Evidence format"):]
    assert [int(v) for v in re.findall(r"^- \*\*(\d+)\*\*:", report, flags=re.M)] == list(
        range(REPORT_FORMAT_VERSION, 0, -1))
    assert [int(v) for v in re.findall(r"^- \*\*(\d+)\*\*:", evidence, flags=re.M)] == list(
        range(EVIDENCE_FORMAT_VERSION, 0, -1))
    for place in ("docs/json-format.md", "README.md", "ortcopy_doctor/report/core.py",
                  "ortcopy_doctor/model/evidence.py", "ortcopy_doctor/model/schema/report.schema.json"):
        text = (REPO / place).read_text(encoding="utf-8")
        assert "CHANGELOG.md" in text, place
        assert not re.search(r"^\s*[-*] \**(report format )?1\**:", text, flags=re.M), f"{place} repeats the change log"


# --- what the tool writes validates -------------------------------------------------------------------------------


@pytest.mark.parametrize("name", ALL_FIXTURES)
def test_recorded_gpu_report_validates(name):
    assert_valid_report(fixture_report_dict(name))


@pytest.mark.parametrize("name", ALL_FIXTURES)
def test_reanalysed_gpu_report_validates(name, tmp_path):
    report = load_report(write_report_json(fixture_report_dict(name), tmp_path / f"{name}.json"))
    assert_valid_report(json.loads(report.to_json()))


BINDING_AB = REPO / "tests" / "fixtures" / "binding_ab"


@pytest.mark.parametrize("name", sorted(p.name[: -len(".json.gz")] for p in BINDING_AB.glob("*.json.gz")))
def test_reanalysed_binding_ab_report_validates(name, tmp_path):
    """The H200 recordings with a binding measurement and a census: every closed object the JSON can hold is filled
    (advice, measured, census, evidence.binding_measurement), as recorded and as re-analysed."""
    with gzip.open(BINDING_AB / f"{name}.json.gz", "rt", encoding="utf-8") as f:
        recorded = json.load(f)["report"]
    assert_valid_report(recorded)
    data = json.loads(load_report(write_report_json(recorded, tmp_path / f"{name}.json")).to_json())
    assert_valid_report(data)
    assert data["evidence"]["binding_measurement"]["status"] == "measured"
    assert None not in (data["advice"], data["measured"], data["census"])


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
    (lambda d: d["summary"].pop("bytes_per_run"), "summary"),
    (lambda d: d.pop("verdict"), "<root>"),
    (lambda d: d.update(format_version="2"), "format_version"),
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
    """Fields added within a format version (evidence.census, a binding measurement, confirmed on a copy) validate."""
    def edit(d):
        d["evidence"]["census"] = {"backend": "cupti-python", "backend_version": "13.4.0", "records": [
            {"direction": "host_to_device", "bytes": 512, "src_kind": "pageable", "dst_kind": "device",
             "start_ns": 1, "end_ns": 2, "correlation_id": 3, "api_start_ns": None, "api_kind": "runtime"}],
            "clock_pairs": [[1, 2]], "traced_runs": [2, 3]}
        d["evidence"]["census_status"] = "recorded: 1 transfer"
        d["evidence"]["binding_measurement"] = {"status": "skipped", "reason": "no GPU"}
        d["copies"][0]["confirmed"] = True
        d["prediction"] = None
        d["measured"] = None
    assert _errors_after(good, edit) == []


def test_schema_tolerates_keys_it_does_not_know(good):
    """Readers ignore keys they do not know (fields are added within a format version), and so does the schema."""
    def edit(d):
        d["new_key"] = 1
        d["copies"][0]["new_field"] = "x"
    assert _errors_after(good, edit) == []


def test_finding_details_stay_open(good):
    """A finding's details are the rule's own data (rules add keys freely); the schema leaves them open."""
    def edit(d):
        d["findings"][0]["details"] = {"any_key": [1, "two"], "nested": {"x": None}}
    assert _errors_after(good, edit) == []


def test_schema_checks_census_records_when_present(good):
    def edit(d):
        d["evidence"]["census"] = {"backend": "cupti-python", "records": [{"direction": "host_to_device", "bytes": -1}]}
    errors = _errors_after(good, edit)
    assert any(e.startswith("evidence/census") for e in errors), errors


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
