"""SARIF 2.1.0 of a run report (`run --sarif`, `report RUN.json --sarif`): the run rules, one result per finding at
the program's source line, relative to the base folder where the file lies under it."""

from __future__ import annotations

import json

from msgspec.structs import replace

from ortcopy_doctor.model.version import __version__
from ortcopy_doctor.render.sarif import render_run_sarif, run_sarif_log
from ortcopy_doctor.rules import RUN_RULES
from ortcopy_doctor.report.pipeline import analyse_pipeline
from render_helpers import check_golden
from pipeline_cases import pipeline_observations, state_observations
from schema_helpers import assert_valid_sarif


def _report(name: str):
    return analyse_pipeline(pipeline_observations(name))


def test_a_recorded_run_is_valid_sarif_with_the_run_rules():
    log = assert_valid_sarif(run_sarif_log(_report("pipelines/detect_crop_classify"), base=None))
    (run,) = log["runs"]
    assert [r["id"] for r in run["tool"]["driver"]["rules"]] == [r.id for r in RUN_RULES]
    assert [(r["ruleId"], r["level"]) for r in run["results"]] == [
        ("OCD101", "warning"), ("OCD101", "warning"), ("OCD105", "note"), ("OCD105", "note"), ("OCD106", "note"),
        ("OCD106", "note"), ("OCD107", "note"), ("OCD107", "note")]


def test_the_golden_sarif_of_a_recorded_run():
    text = render_run_sarif(_report("pipelines/detect_crop_classify"), ("OCD105",), base="/work/main")
    check_golden("run_detect_crop_classify.sarif.json", text.replace(f'"{__version__}"', '"VERSION"'))


def test_a_result_points_at_the_call_site_relative_to_the_base_folder(tmp_path):
    site = f"{tmp_path}/src/prog.py:main:12"
    report = analyse_pipeline(state_observations("object", site=site))
    (result,) = [r for r in run_sarif_log(report, base=tmp_path)["runs"][0]["results"] if r["ruleId"] == "OCD102"]
    (location,) = result["locations"]
    assert location["physicalLocation"] == {"artifactLocation": {"uri": "src/prog.py", "uriBaseId": "%SRCROOT%"},
                                            "region": {"startLine": 12}}
    assert location["logicalLocations"] == [{"name": "main", "kind": "function"},
                                            {"name": "a.onnx:y -> x", "kind": "object"}]
    assert (result["properties"]["bytesPerIteration"], result["properties"]["site"]) == (5461, site)


def test_a_site_outside_the_base_folder_is_an_absolute_file_uri(tmp_path):
    report = analyse_pipeline(state_observations("object", site="/elsewhere/prog.py:main:12"))
    result = run_sarif_log(report, base=tmp_path)["runs"][0]["results"][0]
    assert result["locations"][0]["physicalLocation"]["artifactLocation"] == {"uri": "file:///elsewhere/prog.py"}


def test_without_a_recorded_site_the_result_points_at_the_program_s_script():
    report = _report("pipelines/streaming_state")
    result = run_sarif_log(report, base="/work/main")["runs"][0]["results"][0]
    assert result["locations"][0]["physicalLocation"] == {
        "artifactLocation": {"uri": "examples/streaming_state.py", "uriBaseId": "%SRCROOT%"}}


def test_an_allowed_kind_is_a_suppressed_note():
    report = _report("pipelines/streaming_state")
    (result,) = [r for r in run_sarif_log(report, allow={"OCD102"})["runs"][0]["results"] if r["ruleId"] == "OCD102"]
    assert result["level"] == "note"
    assert result["suppressions"] == [{"kind": "external", "status": "accepted",
                                       "justification": "finding kind OCD102 state-round-trip accepted with --allow"}]


def test_the_fingerprint_leaves_the_line_out():
    moved = analyse_pipeline(state_observations("object", site="/w/prog.py:main:40"))
    here = analyse_pipeline(state_observations("object"))

    def prints(report):
        return [r["partialFingerprints"] for r in run_sarif_log(report)["runs"][0]["results"]]

    assert prints(moved) == prints(here)


def test_a_report_without_findings_lists_the_rules_and_no_result():
    report = replace(_report("pipelines/detect_classify_torch_fixed"), findings=[])
    log = json.loads(render_run_sarif(report))
    assert log["runs"][0]["results"] == [] and len(log["runs"][0]["tool"]["driver"]["rules"]) == len(RUN_RULES)
