"""Replay of tests/fixtures/rnn_names (the H200, onnxruntime-gpu 1.31.1, 2026-12-03): an LSTM's sequence_lens is read
in host memory (no copy of it; the kernel's own 12 B upload), a zero length adds a 4 B upload that is no failed
consistency check, and unnamed nodes take the names ORT's profile gives them. Each report is re-analysed by the
current code; the models are rebuilt here byte for byte (their sha256 is the recorded one)."""

from __future__ import annotations

import gzip
import hashlib
import json
import sys
from pathlib import Path

import onnx
import pytest

from ortcopy_doctor import check
from ortcopy_doctor.report.core import load_report
from ortcopy_doctor.analysis.watch import analyse_watch
from ortcopy_doctor.watch.observations import load_observations
from render_helpers import REPO, TESTS

sys.path.insert(0, str(REPO / "tools"))
import record_rnn_names  # noqa: E402

FIXTURES = TESTS / "fixtures" / "rnn_names"


def _raw(name: str) -> dict:
    with gzip.open(FIXTURES / f"{name}.json.gz", "rt", encoding="utf-8") as f:
        return json.load(f)


def _report(name: str, tmp_path: Path):
    path = tmp_path / f"{name}.json"
    path.write_text(json.dumps(_raw(name)), encoding="utf-8")
    return load_report(path)


def _rows(report) -> list[tuple[str, str, str, int | None, int]]:
    return [(c.kind.value, c.direction.value, c.tensor, c.bytes_per_run, c.count_per_run) for c in report.copies]


@pytest.mark.parametrize("name", ["lstm_nolens", "lstm_lens", "lstm_lens_zero", "unnamed_chain"])
def test_each_report_was_recorded_on_the_h200_with_ort_1_31_1(name):
    evidence = _raw(f"{name}.cuda")["evidence"]
    assert (evidence["environment"]["ort_version"], evidence["session"]["active_providers"][0]) == (
        "1.31.1", "CUDAExecutionProvider")
    assert evidence["census_status"].startswith("recorded: cupti-python 13.4.0, 3 profiled run(s) traced")


def test_lengths_fed_from_numpy_are_not_copied_the_kernel_uploads_them(tmp_path):
    report = _report("lstm_lens.cuda", tmp_path)
    assert _rows(report) == [("feed", "host_to_device", "x", 240, 1), ("fetch", "device_to_host", "y", 360, 1),
                             ("in_kernel", "host_to_device", "lens", 12, 1)]
    assert report.census is not None and not report.census.notes and not report.census.mismatches


def test_a_zero_length_adds_an_upload_that_fails_no_consistency_check(tmp_path):
    report = _report("lstm_lens_zero.cuda", tmp_path)
    assert _rows(report)[-1] == ("in_kernel", "host_to_device", "lens", 16, 2)
    assert [f.rule for f in report.findings if f.rule == "OCD011"] == []
    assert report.verdict.startswith("4 host↔device copies per run (616 B): 1 feed, 1 fetch, 2 in-kernel;")


def test_without_lengths_the_upload_is_of_no_tensor_of_the_graph(tmp_path):
    report = _report("lstm_nolens.cuda", tmp_path)
    assert _rows(report)[-1] == ("in_kernel", "host_to_device", "", 12, 1)


def test_the_static_prediction_gives_the_copies_the_h200_traced(tmp_path):
    onnx.save(record_rnn_names.lstm(with_lengths=True), str(tmp_path / "lstm_lens.onnx"))
    recorded = _raw("lstm_lens.cuda")["evidence"]["model"]["sha256"]
    assert hashlib.sha256((tmp_path / "lstm_lens.onnx").read_bytes()).hexdigest() == recorded
    predicted = check(tmp_path / "lstm_lens.onnx", static=True)
    measured = _report("lstm_lens.cuda", tmp_path)
    # the same copies and sizes (Y's declared shape is empty: its size is the one shape inference gives it)
    assert [r[:4] for r in _rows(predicted)] == [r[:4] for r in _rows(measured)]


def test_watch_names_the_lstms_upload_after_its_kernel():
    data = _raw("lstm_nolens.watch")
    assert data["observations"]["ort_version"] == "1.31.1"
    report = analyse_watch(load_observations(data["observations"]))
    assert len(report.calls) == 3
    for call in report.calls:
        assert [(t.kind.value, t.direction.value, t.tensor, t.node, t.bytes) for t in call.transfers] == [
            ("feed", "host_to_device", "x", "", 240), ("fetch", "device_to_host", "y", "", 360),
            ("in_kernel", "host_to_device", "", "lstm", 12)]


def test_unnamed_nodes_of_a_cuda_check_take_their_profile_names(tmp_path):
    raw = _raw("unnamed_chain.cuda")["evidence"]
    assert [n["name"] for n in raw["nodes"] if n["op_type"] == "Relu"][0] == ""  # as recorded
    report = _report("unnamed_chain.cuda", tmp_path)
    assert [n.name for n in report.evidence.nodes] == ["Relu_0", "Memcpy_token_0", "Cosh_1", "Memcpy", "Relu_2"]
    assert {n.name for n in report.evidence.nodes} == {e.name for e in report.evidence.node_events}


def test_a_measured_and_a_predicted_fallback_at_an_unnamed_node_share_a_location(tmp_path):
    measured = _report("unnamed_chain.cuda", tmp_path)
    predicted = _report("unnamed_chain.static", tmp_path)
    where = [[(f.rule, f.location) for f in r.findings if f.rule == "OCD002"] for r in (measured, predicted)]
    assert where == [[("OCD002", "Cosh_1")], [("OCD002", "Cosh_1")]]


FN_NAMES = ["Relu_2", "Cosh_3", "Neg_4", "Relu_5", "Cosh_6", "Neg_7"]


def test_an_inlined_bodys_unnamed_nodes_of_a_cuda_check_take_their_profile_names(tmp_path):
    recorded = _raw("fn_unnamed.cuda")["evidence"]
    assert recorded["environment"]["ort_version"] == "1.31.1"
    report = _report("fn_unnamed.cuda", tmp_path)
    compute = [n.name for n in report.evidence.nodes if not n.op_type.startswith("Memcpy")]
    assert compute == FN_NAMES
    assert {n.name for n in report.evidence.nodes} == {e.name for e in report.evidence.node_events}


def test_the_prediction_names_an_inlined_body_as_ort_did_on_cuda(tmp_path):
    onnx.save(record_rnn_names.function_twice(), str(tmp_path / "fn.onnx"))
    assert hashlib.sha256((tmp_path / "fn.onnx").read_bytes()).hexdigest() == _raw("fn_unnamed.cuda")["evidence"][
        "model"]["sha256"]
    predicted = check(tmp_path / "fn.onnx", static=True)
    assert [n.name for n in predicted.evidence.nodes] == FN_NAMES
    measured = _report("fn_unnamed.cuda", tmp_path)
    fallback = [[(f.rule, f.location) for f in r.findings if f.rule == "OCD002"] for r in (predicted, measured)]
    assert fallback[0] == fallback[1] == [("OCD002", "Cosh_3"), ("OCD002", "Cosh_6")]


def test_an_rnns_lengths_are_not_copied_either_and_the_prediction_says_so(tmp_path):
    onnx.save(record_rnn_names.recurrent("RNN"), str(tmp_path / "rnn.onnx"))
    assert hashlib.sha256((tmp_path / "rnn.onnx").read_bytes()).hexdigest() == _raw("rnn_lens.cuda")["evidence"][
        "model"]["sha256"]
    measured = _report("rnn_lens.cuda", tmp_path)
    assert _rows(measured) == [("feed", "host_to_device", "x", 240, 1), ("fetch", "device_to_host", "y", 360, 1),
                               ("in_kernel", "host_to_device", "lens", 12, 1)]
    assert _rows(check(tmp_path / "rnn.onnx", static=True)) == _rows(measured)


def test_a_gru_of_the_default_linear_before_reset_ran_on_cpu_as_predicted(tmp_path):
    # ORT's CUDA GRU takes linear_before_reset=1 only: this one falls back, on the H200 and in the prediction
    measured = _report("gru_lens.cuda", tmp_path)
    assert [(n.op_type, n.provider) for n in measured.evidence.nodes] == [("GRU", "CPUExecutionProvider")]
    assert measured.copies == []
    onnx.save(record_rnn_names.recurrent("GRU"), str(tmp_path / "gru.onnx"))
    predicted = check(tmp_path / "gru.onnx", static=True)
    assert [(n.op_type, n.provider) for n in predicted.evidence.nodes] == [("GRU", "CPUExecutionProvider")]
