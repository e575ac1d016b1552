"""The audit's baseline gate (report/audit_gate.py, issue 37): reading rows, merging shards, comparing with a
baseline, and the gate's exit status. Rows are built in code."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from ortcopy_doctor.model import codec
from ortcopy_doctor.model.audit import AUDIT_FORMAT_VERSION, AuditRow, Regression, RegressionKind, RowStatus
from ortcopy_doctor.report.audit_gate import compare, gate_exit, merge, read_rows, row_of_report


def ok_row(row_id: str = "resnet18", **fields) -> AuditRow:
    values = dict(id=row_id, model=f"models/{row_id}.onnx", status=RowStatus.OK, copies_per_run=2, bytes_per_run=1000,
                  memcpy_nodes=0, fallback_nodes=0, median_ms=2.0, ci_low_ms=1.9, ci_high_ms=2.1)
    values.update(fields)
    return AuditRow(**values)


def write_jsonl(path: Path, rows: list[AuditRow], tail: str = "") -> Path:
    path.write_text("".join(codec.to_json(r, indent=0) + "\n" for r in rows) + tail, encoding="utf-8")
    return path


# --- read_rows ----------------------------------------------------------------------------------------------------


def test_read_rows_gives_back_the_rows_written(tmp_path):
    rows = [ok_row("a"), ok_row("b", status=RowStatus.CRASHED, exit_code=-11, error="killed by SIGSEGV")]
    assert read_rows(write_jsonl(tmp_path / "audit.jsonl", rows)) == rows


def test_read_rows_of_a_folder_reads_its_audit_jsonl(tmp_path):
    write_jsonl(tmp_path / "audit.jsonl", [ok_row("a")])
    assert read_rows(tmp_path) == [ok_row("a")]


def test_a_cut_short_last_line_is_skipped_with_a_warning(tmp_path):
    path = write_jsonl(tmp_path / "audit.jsonl", [ok_row("a")], tail='{"format": "ortcopy-doctor-audit-row", "id')
    warnings: list[str] = []
    assert read_rows(path, warn=warnings.append) == [ok_row("a")]
    assert warnings == [f"{path}: line 2 is cut short (an audit stopped while writing it): skipped"]


def test_a_bad_line_in_the_middle_names_the_file_and_line(tmp_path):
    path = tmp_path / "audit.jsonl"
    path.write_text(codec.to_json(ok_row("a"), indent=0) + "\nnot json\n" + codec.to_json(ok_row("b"), indent=0)
                    + "\n", encoding="utf-8")
    with pytest.raises(ValueError, match=r"^.*audit\.jsonl: line 2 is not an audit row: "):
        read_rows(path)


def test_a_line_of_another_format_is_refused(tmp_path):
    path = tmp_path / "rows.jsonl"
    path.write_text('{"format": "ortcopy-doctor-report", "format_version": 2}\n', encoding="utf-8")
    with pytest.raises(ValueError) as caught:
        read_rows(path)
    assert str(caught.value) == (f"{path}: line 1 is not an audit row: format 'ortcopy-doctor-report', not "
                                 "'ortcopy-doctor-audit-row'")


def test_a_newer_format_version_is_a_clear_error(tmp_path):
    data = codec.to_builtins(ok_row("a"))
    data["format_version"] = AUDIT_FORMAT_VERSION + 1
    path = tmp_path / "rows.jsonl"
    path.write_text(json.dumps(data) + "\n", encoding="utf-8")
    with pytest.raises(ValueError) as caught:
        read_rows(path)
    assert str(caught.value) == (f"{path}: line 1 is not an audit row: format_version {AUDIT_FORMAT_VERSION + 1} is "
                                 f"newer than this ortcopy-doctor reads ({AUDIT_FORMAT_VERSION}): upgrade ortcopy-doctor")


def test_a_wrong_value_names_its_place(tmp_path):
    data = codec.to_builtins(ok_row("a"))
    data["copies_per_run"] = "two"
    path = tmp_path / "rows.jsonl"
    path.write_text(json.dumps(data) + "\n", encoding="utf-8")
    with pytest.raises(ValueError) as caught:
        read_rows(path)
    assert str(caught.value) == (f"{path}: line 1 is not an audit row: Expected `int | null`, got `str` - at "
                                 "`$.copies_per_run`")


def test_a_missing_file_is_a_value_error(tmp_path):
    with pytest.raises(ValueError, match=r"nope\.jsonl: cannot read: "):
        read_rows(tmp_path / "nope.jsonl")


def report_document(model: str) -> dict:
    return {"format": "ortcopy-doctor-report", "format_version": 2, "verdict": "2 copies per run",
            "summary": {"copies_per_run": 2, "bytes_per_run": 4096, "memcpy_nodes": 1, "fallback_nodes": 1,
                        "median_run_ms": 1.25, "findings_by_severity": {"warning": 1}},
            "advice": {"status": "measured", "recommended": "plan", "recommended_label": "IOBinding plan",
                       "speedup": 1.4, "speedup_ci_low": 1.3, "speedup_ci_high": 1.5},
            "evidence": {"model": {"path": model}, "environment": {"ort_version": "1.31.1"},
                         "session": {"active_providers": ["CUDAExecutionProvider", "CPUExecutionProvider"]},
                         "nodes": [{"name": "n0", "op_type": "NonZero", "fallback_reason": "no_kernel"},
                                   {"name": "n1", "op_type": "Conv", "fallback_reason": None}]}}


def test_a_folder_of_check_reports_gives_one_row_per_report(tmp_path):
    (tmp_path / "yolo.json").write_text(json.dumps(report_document("/m/yolo.onnx")), encoding="utf-8")
    assert read_rows(tmp_path) == [AuditRow(
        id="yolo", model="/m/yolo.onnx", status=RowStatus.OK, ort_version="1.31.1",
        providers=["CUDAExecutionProvider", "CPUExecutionProvider"], verdict="2 copies per run", copies_per_run=2,
        bytes_per_run=4096, memcpy_nodes=1, fallback_nodes=1, fallback_ops=["NonZero"],
        findings_by_severity={"warning": 1}, median_ms=1.25, recommended="plan", recommended_label="IOBinding plan",
        gain=1.4, gain_ci_low=1.3, gain_ci_high=1.5, report="yolo.json")]


def test_an_unmeasured_advice_gives_no_recommendation():
    document = report_document("m.onnx")
    document["advice"]["status"] = "not_measured"
    row = row_of_report(document, "m")
    assert (row.recommended, row.gain) == ("", None)


def test_a_folder_without_rows_or_reports_is_refused(tmp_path):
    with pytest.raises(ValueError) as caught:
        read_rows(tmp_path)
    assert str(caught.value) == f"{tmp_path}: neither audit.jsonl nor check --json reports (*.json) in it"


def test_a_json_file_that_is_no_report_is_refused_by_name(tmp_path):
    (tmp_path / "x.json").write_text('{"format": "ortcopy-doctor-sweep"}', encoding="utf-8")
    with pytest.raises(ValueError) as caught:
        read_rows(tmp_path)
    assert str(caught.value) == f"{tmp_path / 'x.json'}: not a check --json report (no format 'ortcopy-doctor-report')"


# --- merge --------------------------------------------------------------------------------------------------------


def test_merge_unites_shards_sorted_by_id():
    assert merge([[ok_row("c"), ok_row("a")], [ok_row("b")]]) == [ok_row("a"), ok_row("b"), ok_row("c")]


def test_merge_keeps_an_identical_duplicate_once():
    assert merge([[ok_row("a")], [ok_row("a")]]) == [ok_row("a")]


def test_merge_refuses_a_conflicting_duplicate_by_id():
    with pytest.raises(ValueError, match=r"^row 'a' is in two shards with different results"):
        merge([[ok_row("a")], [ok_row("a", copies_per_run=3)]])


# --- compare ------------------------------------------------------------------------------------------------------


def regression(kind: RegressionKind, words: str, row_id: str = "resnet18", allowed: bool = False) -> Regression:
    return Regression(kind=kind, id=row_id, model=f"models/{row_id}.onnx", words=words, allowed=allowed)


def test_equal_rows_have_no_regression():
    assert compare([ok_row()], [ok_row()], set()) == []


def test_more_memcpy_nodes_is_new_memcpy():
    assert compare([ok_row()], [ok_row(memcpy_nodes=2)], set()) == [
        regression(RegressionKind.NEW_MEMCPY, "Memcpy nodes 0 -> 2")]


def test_a_new_fallback_op_type_is_new_fallback():
    old = ok_row(fallback_nodes=1, fallback_ops=["NonZero"])
    new = ok_row(fallback_nodes=1, fallback_ops=["NonZero", "TopK"])
    assert compare([old], [new], set()) == [
        regression(RegressionKind.NEW_FALLBACK, "CPU fallback nodes 1 -> 1; new on the CPU: TopK")]


def test_more_fallback_nodes_of_known_types_is_new_fallback():
    old = ok_row(fallback_nodes=1, fallback_ops=["NonZero"])
    new = ok_row(fallback_nodes=3, fallback_ops=["NonZero"])
    assert compare([old], [new], set()) == [regression(RegressionKind.NEW_FALLBACK, "CPU fallback nodes 1 -> 3")]


def test_more_copies_and_bytes_are_two_regressions_in_kind_order():
    assert compare([ok_row()], [ok_row(copies_per_run=4, bytes_per_run=2000)], set()) == [
        regression(RegressionKind.MORE_COPIES, "copies per run 2 -> 4"),
        regression(RegressionKind.MORE_BYTES, "bytes per run 1000 -> 2000")]


def test_fewer_copies_is_no_regression():
    assert compare([ok_row()], [ok_row(copies_per_run=1, bytes_per_run=10)], set()) == []


def test_a_median_whose_interval_lies_above_the_baselines_is_slower():
    assert compare([ok_row()], [ok_row(median_ms=3.0, ci_low_ms=2.8, ci_high_ms=3.2)], set()) == [
        regression(RegressionKind.SLOWER, "median run 2 ms -> 3 ms (1.50x; 95% CI 1.9-2.1 ms -> 2.8-3.2 ms)")]


def test_overlapping_intervals_are_not_slower():
    assert compare([ok_row()], [ok_row(median_ms=2.2, ci_low_ms=2.05, ci_high_ms=2.4)], set()) == []


def test_a_median_without_an_interval_is_not_compared():
    assert compare([ok_row()], [ok_row(median_ms=9.0, ci_low_ms=None, ci_high_ms=None)], set()) == []


def test_ok_then_crashed_is_newly_failing_with_the_error():
    new = ok_row(status=RowStatus.CRASHED, error="killed by SIGSEGV", copies_per_run=None)
    assert compare([ok_row()], [new], set()) == [
        regression(RegressionKind.NEWLY_FAILING, "status ok -> crashed: killed by SIGSEGV")]


def test_failing_in_both_is_no_regression():
    row = ok_row(status=RowStatus.TIMEOUT, error="ran past 900 s")
    assert compare([row], [row], set()) == []


def test_a_baseline_row_missing_now_is_missing():
    assert compare([ok_row("a"), ok_row()], [ok_row()], set()) == [
        regression(RegressionKind.MISSING, "in the baseline, not in this audit", row_id="a")]


def test_a_new_row_is_no_regression():
    assert compare([ok_row()], [ok_row(), ok_row("new")], set()) == []


def test_an_allowed_kind_is_named_allowed():
    assert compare([ok_row()], [ok_row(memcpy_nodes=1, copies_per_run=3)], {RegressionKind.NEW_MEMCPY}) == [
        regression(RegressionKind.NEW_MEMCPY, "Memcpy nodes 0 -> 1", allowed=True),
        regression(RegressionKind.MORE_COPIES, "copies per run 2 -> 3")]


def test_regressions_are_ordered_by_id_whatever_the_rows_order():
    baseline = [ok_row("b"), ok_row("a")]
    result = compare(baseline, [ok_row("b", memcpy_nodes=1), ok_row("a", memcpy_nodes=1)], set())
    assert [r.id for r in result] == ["a", "b"]


# --- gate_exit ----------------------------------------------------------------------------------------------------


def test_the_gate_passes_without_regressions():
    assert gate_exit([]) == 0


def test_the_gate_passes_where_every_regression_is_allowed():
    assert gate_exit([regression(RegressionKind.SLOWER, "x", allowed=True)]) == 0


def test_the_gate_fails_on_a_regression_not_allowed():
    assert gate_exit([regression(RegressionKind.SLOWER, "x", allowed=True),
                      regression(RegressionKind.MISSING, "y")]) == 1
