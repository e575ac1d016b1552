"""`ortcopy-doctor audit` recorded on the H200 (issue 37; tools/record_audit.py, onnxruntime-gpu 1.31.1, one GPU:
the two-GPU machine was not lent): the 42-model corpus measured on GPU 0 with a crashing and a hanging custom-op row,
another process holding the GPU for the first rows; then the same rows as static predictions, unsharded and as two
shards merged and gated against it."""

from __future__ import annotations

import functools
import gzip
import json
from datetime import datetime

from ortcopy_doctor.model import codec
from ortcopy_doctor.model.audit import AuditRow
from ortcopy_doctor.report.audit import compare
from fixture_loader import CORPUS_FIXTURES, corpus_check
from render_helpers import TESTS

FIXTURES = TESTS / "fixtures" / "audit"
TIMING = ("started", "seconds", "gpu", "gpu_busy")


@functools.lru_cache(maxsize=None)
def _recording(which: str) -> dict:
    with gzip.open(FIXTURES / f"audit_h200_{which}.json.gz", "rt", encoding="utf-8") as f:
        data = json.load(f)
    assert (data["format"], data["ort_version"]) == ("ortcopy-doctor-audit-fixture", "1.31.1")
    return data


def _measured() -> list[AuditRow]:
    return [codec.convert(r, AuditRow) for r in _recording("measured")["measured"]]


def test_the_corpus_audit_finished_with_its_crash_and_hang_as_rows():
    rows = _measured()
    assert (len(rows), _recording("measured")["commands"][0]["returncode"]) == (44, 0)
    status = {r.id: str(r.status) for r in rows}
    assert [i for i, s in status.items() if s != "ok"] == ["custom_op_crash", "custom_op_hang"]
    crash, hang = rows[-2], rows[-1]
    assert (crash.status, crash.exit_code, crash.error) == (
        "crashed", 4, "native code crashed the check (SIGSEGV): set ORTCOPY_DOCTOR_DEBUG=1 and report it")
    assert (hang.status, hang.exit_code, hang.error) == ("timeout", None, "timed out after 20 s: killed")
    assert {r.ort_version for r in rows if r.status == "ok"} == {"1.31.1"}
    assert all(r.providers[0] == "CUDAExecutionProvider" for r in rows if r.status == "ok")


def test_each_row_s_copies_equal_the_single_check_of_its_model():
    compared = 0
    for row in _measured():
        if row.status != "ok" or not (CORPUS_FIXTURES / f"{row.id}.json.gz").exists():
            continue
        s = corpus_check(row.id)[1].summary
        assert (row.copies_per_run, row.bytes_per_run, row.memcpy_nodes, row.fallback_nodes) == (
            s.copies_per_run, s.bytes_per_run, s.memcpy_nodes, s.fallback_nodes), row.id
        compared += 1
    assert compared == 42


def _span(row: AuditRow) -> tuple[float, float]:
    start = datetime.fromisoformat(row.started.replace("Z", "+00:00")).timestamp()
    return start, start + row.seconds


def test_one_row_at_a_time_held_the_gpu():
    rows = _measured()
    assert {r.gpu for r in rows} == {"0"}
    spans = sorted(_span(r) for r in rows)
    assert all(a[1] <= b[0] + 0.002 for a, b in zip(spans, spans[1:]))


def test_the_rows_that_started_while_another_process_held_the_gpu_say_so():
    busy = [(r.id, r.gpu_busy) for r in _measured() if r.gpu_busy]
    assert [i for i, _ in busy] == ["resnet18", "mobilenet_v3_small", "efficientnet_b0"]  # the holder's 25 s
    assert {words.split(" (")[0].startswith("pid ") for _, words in busy} == {True}


def _without_timing(rows: list[dict]) -> list[dict]:
    return sorted(({k: v for k, v in r.items() if k not in TIMING} for r in rows), key=lambda r: r["id"])


def test_two_shards_merged_equal_the_unsharded_audit():
    data = _recording("static")
    ids = [{r["id"] for r in data[k]} for k in ("shard1", "shard2")]
    assert not ids[0] & ids[1] and len(ids[0] | ids[1]) == len(data["static"]) == 44
    assert _without_timing(data["merged"]) == _without_timing(data["static"])


def test_the_merged_audit_gated_against_the_unsharded_one_has_no_regression():
    data = _recording("static")
    merge = data["commands"][-1]
    assert merge["args"][0] == "merge" and merge["returncode"] == 0
    assert merge["stdout"].splitlines()[0] == ("44 rows: 44 ok; 42 with host<->device copies; 0 regressions against "
                                               "the baseline")
    rows = [codec.convert(r, AuditRow) for r in data["merged"]]
    assert compare([codec.convert(r, AuditRow) for r in data["static"]], rows) == []


def test_the_static_audit_predicts_every_measured_row_s_cpu_fallbacks():
    static = {r["id"]: r for r in _recording("static")["static"]}
    measured = [r for r in _measured() if r.status == "ok"]
    assert [(r.id, r.fallback_nodes, r.fallback_ops) for r in measured] == [
        (r.id, static[r.id]["fallback_nodes"], static[r.id]["fallback_ops"]) for r in measured]


def test_an_onnxruntime_upgrade_gated_against_a_baseline_of_the_older_version():
    """A baseline audited under onnxruntime 1.24.4 and the same manifest under 1.31.1, on the CPU provider of the
    machine without a GPU (no older onnxruntime-gpu wheel is in this machine's package registry)."""
    with gzip.open(FIXTURES / "upgrade_cpu_1.24.4_to_1.31.1.json.gz", "rt", encoding="utf-8") as f:
        data = json.load(f)
    old = [codec.convert(r, AuditRow) for r in data["old"]]
    new = [codec.convert(r, AuditRow) for r in data["new"]]
    assert ({r.ort_version for r in old if r.status == "ok"}, {r.ort_version for r in new if r.status == "ok"}) == (
        {"1.24.4"}, {"1.31.1"})
    found = compare(old, new)
    assert [(r.id, str(r.kind)) for r in found] == [(line.split(": ")[0].strip(), line.split(": ")[1])
                                                    for line in data["gate_stdout"].splitlines()
                                                    if line.startswith("  ")]
    assert {str(r.kind) for r in found} == {"slower"}  # no copy, fallback or failure changed; some runs slower
    assert data["gate_returncode"] == 1
