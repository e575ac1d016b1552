"""A run report read back (``model.pipeline.load_pipeline_report``, through the codec): what `run --json` wrote
comes back equal, and anything else is one ValueError line naming the file."""

from __future__ import annotations

import json

import pytest

from ortcopy_doctor.model.pipeline import is_pipeline_report, load_pipeline_report
from ortcopy_doctor.report.pipeline import analyse_pipeline, reanalysed
from pipeline_cases import pipeline_observations


@pytest.fixture(scope="module")
def report():
    return analyse_pipeline(pipeline_observations("pipelines/streaming_state"))


def test_a_written_run_report_reads_back_equal_with_its_findings(report):
    raw = report.to_json().encode()
    assert is_pipeline_report(raw)
    loaded = load_pipeline_report(raw, "r.json")
    assert loaded == report and [f.rule for f in loaded.findings] == ["OCD102", "OCD105", "OCD105", "OCD106",
                                                                      "OCD106", "OCD107"]


def test_reanalysed_makes_the_findings_again_from_the_observations(report):
    data = json.loads(report.to_json())
    data["findings"] = []
    assert reanalysed(load_pipeline_report(json.dumps(data).encode(), "r.json")).findings == report.findings


def test_without_observations_the_report_is_used_as_written(report):
    data = json.loads(report.to_json())
    data["observations"] = None
    data["findings"] = data["findings"][:1]
    loaded = reanalysed(load_pipeline_report(json.dumps(data).encode(), "r.json"))
    assert [f.rule for f in loaded.findings] == ["OCD102"] and loaded.observations is None


@pytest.mark.parametrize(("raw", "message"), [
    (b"{not json", r"^r.json is not readable JSON \("),
    (b'{"format": "ortcopy-doctor-report"}', r"^r.json is not a run report: pass a file written by `run --json`$"),
    (b'{"format": "ortcopy-doctor-pipeline-report", "format_version": 9}',
     r"^r.json has run report format 9, newer than this ortcopy-doctor reads \(1\): upgrade ortcopy-doctor$"),
    (b'{"format": "ortcopy-doctor-pipeline-report", "format_version": "1"}',
     r"^r.json has run report format_version '1', not a version number: pass a file written by `run --json`$"),
    (b'{"format": "ortcopy-doctor-pipeline-report", "program": 3}',
     r"^r.json does not match the run report format \(Expected `array`, got `int` - at `\$.program`\)"),
])
def test_anything_else_is_one_line(raw, message):
    assert not is_pipeline_report(raw) or b"pipeline-report" in raw
    with pytest.raises(ValueError, match=message):
        load_pipeline_report(raw, "r.json")
