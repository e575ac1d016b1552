"""`report` re-analyses recorded evidence: a check JSON recorded on the H200 (Python 3.12, onnxruntime-gpu 1.31.1,
with a CUPTI census and a binding measurement) comes back byte for byte here (Python 3.11, CPU onnxruntime)."""

from __future__ import annotations

import gzip
import json

import pytest

from ortcopy_doctor.api import load_report
from ortcopy_doctor.model.errors import UsageError
from render_helpers import TESTS, programs_in

RECORDED = TESTS / "fixtures" / "check_json" / "demo.json.gz"


def _same_report(reanalysed: str, written: str) -> bool:
    """The same JSON, each generated program compared as a program: the fixtures hold the code as it ran on the
    H200, one statement a line; it is printed now laid out within 88 characters (analysis/codelayout.py)."""
    return programs_in(json.loads(reanalysed)) == programs_in(json.loads(written))


def test_a_check_json_recorded_on_the_h200_reanalyses_to_what_it_wrote(tmp_path):
    # The census shares are means of floats: summed with math.fsum (exactly rounded), since Python 3.12's sum()
    # rounds differently from 3.11's in the last digit.
    written = gzip.decompress(RECORDED.read_bytes()).decode("utf-8")
    path = tmp_path / "demo.json"
    path.write_text(written, encoding="utf-8")
    assert _same_report(load_report(path).to_json(), written)


CUDART = TESTS / "fixtures" / "check_json" / "conv16_cudart.json.gz"


def _reanalysed(fixture, tmp_path):
    """(the report re-analysed from the recorded --json file, that file's text)."""
    written = gzip.decompress(fixture.read_bytes()).decode("utf-8")
    path = tmp_path / "check.json"
    path.write_text(written, encoding="utf-8")
    return load_report(path), written


def test_a_check_timed_through_the_cuda_runtime_reanalyses_to_what_it_wrote(tmp_path):
    report, written = _reanalysed(CUDART, tmp_path)
    assert _same_report(report.to_json(), written)
    measured = report.evidence.binding_measurement
    assert (measured.gpu_timer, measured.pinned.method) == ("cudaEventRecord (libcudart)", "cudaHostAlloc (libcudart)")
    assert "pinned buffer from cudaHostAlloc (libcudart)" in report.measured.pinned


ORT127 = TESTS / "fixtures" / "check_json" / "conv16_ort127.json.gz"


def test_a_check_recorded_with_onnxruntime_1_27_reanalyses_to_what_it_wrote(tmp_path):
    report, written = _reanalysed(ORT127, tmp_path)
    assert _same_report(report.to_json(), written)
    assert (report.evidence.environment.ort_version, report.evidence.census_status) == (
        "1.27.0", "recorded: cupti-python 13.4.0, 3 profiled run(s) traced, 6 memcpy record(s)")


def _written(tmp_path, **changes):
    """The recorded H200 report with top-level (``report``) or evidence (``evidence``) members changed."""
    data = json.loads(gzip.decompress(RECORDED.read_bytes()))
    data.update(changes.get("report", {}))
    data["evidence"].update(changes.get("evidence", {}))
    path = tmp_path / "changed.json"
    path.write_text(json.dumps(data), encoding="utf-8")
    return path


@pytest.mark.parametrize("version", ["2", True, -1, 2.0, None])
def test_a_report_format_version_that_is_no_version_number_is_refused(tmp_path, version):
    path = _written(tmp_path, report={"format_version": version})
    with pytest.raises(UsageError) as exc:
        load_report(path)
    assert str(exc.value) == (f"{path} has report format_version {str(version)!r}, not a version number: pass a file "
                              "written by `check --json`")


def test_a_report_format_newer_than_this_tool_reads_asks_for_an_upgrade(tmp_path):
    path = _written(tmp_path, report={"format_version": 99})
    with pytest.raises(UsageError) as exc:
        load_report(path)
    assert str(exc.value) == f"{path} has report format 99, newer than this ortcopy-doctor reads (2): upgrade ortcopy-doctor"


def test_an_evidence_format_newer_than_this_tool_reads_asks_for_an_upgrade(tmp_path):
    path = _written(tmp_path, evidence={"format_version": 99})
    with pytest.raises(UsageError) as exc:
        load_report(path)
    assert str(exc.value) == (f"{path} has evidence format 99, newer than this ortcopy-doctor reads (1): upgrade "
                              "ortcopy-doctor")
