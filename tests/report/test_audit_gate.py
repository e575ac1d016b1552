"""An audit's rows against a baseline (report/audit.py, issue 37): each kind of regression with both values, allowed
kinds, shards merged, and rows read from a JSONL whose last line was cut off."""

from __future__ import annotations

import pytest

from ortcopy_doctor.model import codec
from ortcopy_doctor.model.audit import AuditRow, RegressionKind, RowStatus
from ortcopy_doctor.report.audit import compare, gate_exit, merge, read_rows


def row(id: str = "m", **fields) -> AuditRow:
    base = {"model": f"{id}.onnx", "status": RowStatus.OK, "copies_per_run": 2, "bytes_per_run": 1000,
            "memcpy_nodes": 0, "fallback_nodes": 0, "fallback_ops": [], "median_ms": 1.0, "ci_low_ms": 0.9,
            "ci_high_ms": 1.1}
    return AuditRow(id=id, **{**base, **fields})


def _words(old: AuditRow, new: AuditRow) -> list[tuple[str, str]]:
    return [(str(r.kind), r.words) for r in compare([old], [new])]


def test_the_same_rows_have_no_regression():
    assert compare([row()], [row()]) == []


def test_new_memcpy_nodes():
    assert _words(row(), row(memcpy_nodes=2)) == [("new_memcpy", "Memcpy nodes per run 0 -> 2")]


def test_a_new_cpu_fallback_names_its_op_types():
    assert _words(row(), row(fallback_nodes=1, fallback_ops=["Celu"])) == [
        ("new_fallback", "CPU fallback nodes 0 -> 1 (new op types: Celu)")]


def test_more_copies_and_bytes():
    assert _words(row(), row(copies_per_run=3, bytes_per_run=5000)) == [
        ("more_copies", "host<->device copies per run 2 -> 3"), ("more_bytes", "bytes copied per run 1000 -> 5000")]


def test_slower_only_outside_both_intervals():
    assert _words(row(), row(median_ms=1.2, ci_low_ms=1.05, ci_high_ms=1.3)) == []
    assert _words(row(), row(median_ms=1.5, ci_low_ms=1.4, ci_high_ms=1.6)) == [
        ("slower", "median run 1 ms -> 1.5 ms (1.50x; 95% CIs 0.9–1.1 and 1.4–1.6 apart)")]


def test_newly_failing_and_missing():
    failed = row(status=RowStatus.CRASHED, error="killed by SIGSEGV")
    assert _words(row(), failed) == [("newly_failing", "ok in the baseline, crashed now: killed by SIGSEGV")]
    assert [(str(r.kind), r.id) for r in compare([row("a"), row("b")], [row("a")])] == [("missing", "b")]


def test_a_row_new_since_the_baseline_is_no_regression():
    assert compare([row("a")], [row("a"), row("b", memcpy_nodes=9)]) == []


def test_an_allowed_kind_is_named_and_does_not_fail_the_gate():
    found = compare([row()], [row(memcpy_nodes=1, copies_per_run=4)], allow=[RegressionKind.NEW_MEMCPY])
    assert [(str(r.kind), r.allowed) for r in found] == [("new_memcpy", True), ("more_copies", False)]
    assert gate_exit(found) == 1
    assert gate_exit([r for r in found if r.allowed]) == 0


def test_merge_sorts_by_id_and_keeps_a_repeated_row_once():
    assert [r.id for r in merge([[row("b"), row("a")], [row("c"), row("a")]])] == ["a", "b", "c"]


def test_merge_refuses_a_row_with_two_results():
    with pytest.raises(ValueError, match="row 'a' is in two shards with other results"):
        merge([[row("a")], [row("a", copies_per_run=9)]])


def _jsonl(tmp_path, rows, tail: bytes = b""):
    path = tmp_path / "audit.jsonl"
    path.write_bytes(b"".join(codec.to_json_bytes(r, indent=0) + b"\n" for r in rows) + tail)
    return path


def test_rows_read_back_from_the_jsonl_or_its_folder(tmp_path):
    rows = [row("a"), row("b", status=RowStatus.TIMEOUT)]
    _jsonl(tmp_path, rows)
    assert read_rows(tmp_path / "audit.jsonl") == read_rows(tmp_path) == rows


def test_a_cut_off_last_line_is_left_out_with_a_warning(tmp_path):
    path = _jsonl(tmp_path, [row("a")], tail=b'{"format":"ortcopy-doctor-audit-row","id":"b","mo')
    said: list[str] = []
    assert [r.id for r in read_rows(path, said.append)] == ["a"]
    assert said == [f"{path}: its last line was cut off (an audit stopped while writing it): left out"]


def test_a_bad_line_inside_the_file_names_it(tmp_path):
    path = _jsonl(tmp_path, [row("a")], tail=b"not json\n")
    with pytest.raises(ValueError, match=r"audit.jsonl: line 2 is not an audit row"):
        read_rows(path)


def test_a_newer_format_is_refused(tmp_path):
    path = _jsonl(tmp_path, [AuditRow(id="a", model="a.onnx", status=RowStatus.OK, format_version=9)])
    with pytest.raises(ValueError, match="has audit row format 9, newer than this ortcopy-doctor reads"):
        read_rows(path)


def test_a_row_without_both_ends_of_an_interval_is_not_compared_for_time():
    # a baseline from another tool or an edited file: half an interval is no interval (and no crash)
    assert compare([row("m", ci_low_ms=None)], [row("m", median_ms=5.0, ci_low_ms=4.5, ci_high_ms=None)]) == []


def test_a_row_failing_in_both_is_no_regression():
    failed = row("m", status=RowStatus.CRASHED, error="killed by SIGSEGV", copies_per_run=None)
    assert compare([failed], [failed]) == []


def test_fewer_copies_and_bytes_are_no_regression():
    assert compare([row("m")], [row("m", copies_per_run=1, bytes_per_run=10, median_ms=0.5, ci_low_ms=0.4,
                                    ci_high_ms=0.6)]) == []


def test_regressions_come_by_id_whatever_the_rows_order():
    found = compare([row("b"), row("a")], [row("b", memcpy_nodes=1), row("a", memcpy_nodes=1)])
    assert [r.id for r in found] == ["a", "b"]


def test_a_line_of_another_document_says_what_it_is(tmp_path):
    path = tmp_path / "rows.jsonl"
    path.write_text('{"format": "ortcopy-doctor-report", "format_version": 2, "verdict": "x"}\n', encoding="utf-8")
    with pytest.raises(ValueError) as caught:
        read_rows(path)
    assert str(caught.value) == f"{path}: line 1 is a 'ortcopy-doctor-report' document, not an audit row"


def _one_row_refused(tmp_path, **changed):
    """(the file, what read_rows says of it): a JSONL of one row whose JSON has ``changed`` values."""
    data = codec.to_builtins(row("a"))
    data.update(changed)
    path = tmp_path / "rows.jsonl"
    path.write_bytes(codec.to_json_bytes(data, indent=0) + b"\n")
    with pytest.raises(ValueError) as caught:
        read_rows(path)
    return path, str(caught.value)


@pytest.mark.parametrize("version", [True, -1, "1"])
def test_a_row_whose_version_is_no_number_says_so(tmp_path, version):
    path, refused = _one_row_refused(tmp_path, format_version=version)
    assert refused == (f"{path}: line 1 has audit row format_version {str(version)!r}, not a version number: "
                       "pass a file written by an audit")


def test_a_newer_format_is_refused_before_its_fields_are_read(tmp_path):
    # a newer version may change a field's type: the version is what to say, not the field
    path, refused = _one_row_refused(tmp_path, format_version=9, copies_per_run={"feed": 1, "fetch": 1})
    assert refused == (f"{path}: line 1 has audit row format 9, newer than this ortcopy-doctor reads (1): "
                       "upgrade ortcopy-doctor")


def test_a_wrong_value_names_its_place(tmp_path):
    path, refused = _one_row_refused(tmp_path, copies_per_run="two")
    assert refused == (f"{path}: line 1 is not an audit row (Expected `int | null`, got `str` - at "
                       "`$.copies_per_run`): pass the audit.jsonl an audit wrote")


def test_a_file_that_cannot_be_read_is_a_value_error(tmp_path):
    with pytest.raises(ValueError, match=r"nope\.jsonl cannot be read \("):
        read_rows(tmp_path / "nope.jsonl")


def test_a_folder_without_rows_or_reports_is_refused(tmp_path):
    with pytest.raises(ValueError, match=r"holds neither audit\.jsonl nor check reports \(\*\.json\)"):
        read_rows(tmp_path)


def test_a_folder_of_check_reports_gives_a_row_per_report_named_by_its_file(tmp_path):
    from render_helpers import fixture_json

    folder = tmp_path / "reports"
    folder.mkdir()
    fixture_json("demo", tmp_path).rename(folder / "demo.json")
    (only,) = read_rows(folder)
    assert (only.id, only.status, only.report) == ("demo", RowStatus.OK, "demo.json")
    assert only.copies_per_run is not None and only.copies_per_run > 0
