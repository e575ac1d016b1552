"""The CI gate over a run report (report/gate.py ``evaluate_run``, cli/ci.py): --fail-on over the run rules'
findings, --allow with run rule ids and slugs, --max-transfer-bytes per iteration, and run's older --fail-on
spellings (round-trip, host-transfer) judged as before."""

from __future__ import annotations

import pytest

from ortcopy_doctor.cli.ci import CiOptions
from ortcopy_doctor.model.errors import UsageError
from ortcopy_doctor.report.gate import Gate, evaluate_run, resolve_allow
from ortcopy_doctor.report.pipeline import analyse_pipeline
from pipeline_cases import pipeline_observations, state_observations

RUN = "run"


@pytest.fixture(scope="module")
def crop():
    """detect_crop_classify on the H200: 2 OCD101 warnings, infos (uploads, downloads, slow first calls)."""
    return analyse_pipeline(pipeline_observations("pipelines/detect_crop_classify"))


def test_fail_on_warning_fails_on_the_round_trips(crop):
    result = evaluate_run(crop, Gate(fail_on="warning"))
    assert result.reasons == ["2 finding(s) at or above --fail-on warning: OCD101 host-round-trip"]


def test_an_allowed_kind_never_fails_the_gate(crop):
    result = evaluate_run(crop, Gate(fail_on="warning", allow=resolve_allow(["host-round-trip"], report=RUN)))
    assert (result.failed, [f.rule for f in result.allowed]) == (False, ["OCD101", "OCD101"])


def test_fail_on_info_fails_on_every_kind_not_allowed(crop):
    result = evaluate_run(crop, Gate(fail_on="info", allow=frozenset({"OCD101"})))
    assert result.reasons == ["6 finding(s) at or above --fail-on info: OCD105 host-upload, OCD106 host-download, "
                              "OCD107 slow-new-shape"]


def test_max_transfer_bytes_judges_each_pipeline_s_bytes_per_iteration(crop):
    assert evaluate_run(crop, Gate(fail_on="never", max_transfer_bytes=6_000_000)).failed is False
    result = evaluate_run(crop, Gate(fail_on="never", max_transfer_bytes=1_000_000))
    assert result.reasons == ["host↔device bytes per iteration of det.onnx → cls.onnx 5.0 MB (4981072 B) exceed "
                              "--max-transfer-bytes 1000000 B"]


def test_the_older_round_trip_spelling_fails_on_a_round_trip_whatever_allow_says(crop):
    ci = CiOptions.parse("round-trip", allow=["OCD101"], report=RUN)
    assert (ci.legacy, ci.gate.fail_on, ci.exit_code(crop)) == ("round-trip", "never", 1)


def test_the_older_round_trip_spelling_does_not_fail_on_a_possible_one():
    possible = analyse_pipeline(state_observations("hash"))
    assert CiOptions.parse("round-trip", report=RUN).exit_code(possible) == 0


def test_the_older_host_transfer_spelling_fails_on_transfers_the_program_s_code_made(crop):
    result = evaluate_run(crop, Gate(fail_on="never"), legacy="host-transfer")
    assert result.reasons == ["host<->device transfers made by the program's code in det.onnx, cls.onnx "
                              "(--fail-on host-transfer)"]


def test_the_older_host_transfer_spelling_passes_without_them():
    fixed = analyse_pipeline(pipeline_observations("pipelines/detect_classify_torch_fixed"))
    assert CiOptions.parse("host-transfer", report=RUN).exit_code(fixed) == 0


def test_fail_on_gain_is_a_note_for_a_run_report(crop):
    result = evaluate_run(crop, Gate(fail_on="never", fail_on_gain=1.2))
    assert (result.failed, result.notes) == (False, [
        "--fail-on-gain: not judged: a run report has no binding measurement (`check` measures one)"])


def test_a_check_rule_is_refused_for_a_run_report_and_a_run_rule_for_a_check_one():
    with pytest.raises(UsageError, match=r"^--allow 'feed-copy' is a rule of check reports \(OCD004 feed-copy\), not "
                                         r"of run ones: give one of OCD101/host-round-trip, "):
        resolve_allow(["feed-copy"], report=RUN)
    with pytest.raises(UsageError, match=r"^--allow 'OCD105' is a rule of run reports \(OCD105 host-upload\), not of "
                                         r"check ones: give one of OCD001/ep-not-active, "):
        resolve_allow(["OCD105"])


def test_the_older_spellings_are_run_s_only():
    with pytest.raises(UsageError, match=r"^--fail-on 'round-trip': choose one of error, warning, info, never$"):
        CiOptions.parse("round-trip")
    with pytest.raises(UsageError, match=r"^--fail-on 'loud': choose one of error, warning, info, never, round-trip, "
                                         r"host-transfer$"):
        CiOptions.parse("loud", report=RUN)
