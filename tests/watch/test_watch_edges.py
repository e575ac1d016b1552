"""`watch` and `instrumented_session` with what careless callers give them: provider names, bad feeds, calls that
raise, threads, hostile names, models ORT refuses, options used twice."""

from __future__ import annotations

import os
import tempfile
import threading

import numpy as np
import onnx
import onnxruntime as ort
import pytest
from onnx import TensorProto, helper

import models
from ortcopy_doctor import instrumented_session, watch
from ortcopy_doctor.model.errors import UsageError
from ortcopy_doctor.render.watch import render_watch_text

X = np.ones((2, 64), np.float32)


@pytest.fixture(scope="module")
def model_path(tmp_path_factory):
    path = tmp_path_factory.mktemp("edges") / "cpu_op_between.onnx"
    onnx.save(models.cpu_op_between(), str(path))
    return path


@pytest.fixture
def session(model_path):
    return ort.InferenceSession(str(model_path), providers=["CPUExecutionProvider"])


def test_predict_for_takes_the_short_name_the_command_line_takes(session):
    with watch(session, predict_for="cuda") as w:
        session.run(None, {"x": X})
    assert w.report.predicted.providers == ["CUDAExecutionProvider", "CPUExecutionProvider"]


def test_predict_for_a_name_that_is_no_provider_is_refused(session):
    with pytest.raises(UsageError, match=r"^watch\(predict_for='cdua'\): unknown provider: use one of "):
        watch(session, predict_for="cdua")


def test_predicted_true_fails_where_nothing_was_predicted(session):
    """TensorRT has no kernel table: there is no prediction, and the assertion once passed silently."""
    with watch(session, predict_for="tensorrt") as w:
        session.run(None, {"x": X})
    assert w.report.predicted is None
    with pytest.raises(AssertionError, match=r"but there is no prediction for a device \(no prediction for "
                                             r"TensorrtExecutionProvider: no kernel table"):
        w.report.assert_no_host_transfers(predicted=True)


def test_predicted_true_fails_where_prediction_was_turned_off(session):
    with watch(session, predict_for=None) as w:
        session.run(None, {"x": X})
    with pytest.raises(AssertionError, match=r"there is no prediction for a device: pass watch\(\.\.\., "
                                             r"predict_for='CUDAExecutionProvider'\)"):
        w.report.assert_no_host_transfers(predicted=True)


def test_a_prediction_for_the_cpu_names_the_cpu_once(session):
    with watch(session, predict_for="cpu") as w:
        session.run(None, {"x": X})
    assert w.report.predicted.providers == ["CPUExecutionProvider"]


@pytest.mark.parametrize("feed", [None, [X]])
def test_a_feed_that_is_no_dict_raises_ort_s_own_error_and_is_recorded(session, feed):
    with pytest.raises(Exception) as plain:
        session.run(None, feed)
    with watch(session) as w, pytest.raises(Exception) as watched:
        session.run(None, feed)
    assert (type(watched.value), str(watched.value)) == (type(plain.value), str(plain.value))
    assert [c.error.split(":")[0] for c in w.calls] == [type(plain.value).__name__]


def test_a_feed_keyed_by_bytes_is_recorded_and_the_report_writes_json(session):
    with watch(session) as w, pytest.raises(ValueError):
        session.run(None, {b"x": X})
    assert [u.name for u in w.calls[0].inputs] == ["b'x'"]
    assert '"name": "b\'x\'"' in w.report.to_json()


def test_a_call_ort_refuses_counts_no_transfer(session):
    """ORT refuses a wrong dtype before it copies anything: `pytest.raises` inside a watched test once failed
    `assert_no_host_transfers` with the prediction's feed copy and Memcpy nodes."""
    with watch(session) as w, pytest.raises(Exception, match="INVALID_ARGUMENT"):
        session.run(None, {"x": X.astype(np.float64)})
    (call,) = w.report.predicted.calls
    assert call.transfers == []
    assert call.discrepancies == ["the call raised: no transfer is counted for it (what it copied before it failed "
                                  "is not known without a census)"]
    w.report.assert_no_host_transfers(predicted=True)


def test_calls_from_several_threads_each_get_their_own_index(session):
    with watch(session) as w:
        threads = [threading.Thread(target=lambda: [session.run(None, {"x": X}) for _ in range(50)])
                   for _ in range(4)]
        for t in threads:
            t.start()
        for t in threads:
            t.join()
    assert [c.index for c in w.calls] == list(range(200))


def _evil_model(path) -> str:
    name = "x\x1b[31m\u202e"
    graph = helper.make_graph([helper.make_node("Relu", [name], ["y"], name="relu")], "g",
                              [helper.make_tensor_value_info(name, TensorProto.FLOAT, [2])],
                              [helper.make_tensor_value_info("y", TensorProto.FLOAT, [2])])
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17)])
    model.ir_version = 8
    onnx.save(model, str(path))
    return name


def test_the_text_and_the_assertion_message_escape_names_from_the_model(tmp_path):
    name = _evil_model(tmp_path / "evil.onnx")
    evil = ort.InferenceSession(str(tmp_path / "evil.onnx"), providers=["CPUExecutionProvider"])
    with watch(evil, predict_for="cuda") as w:
        evil.run(None, {name: np.ones(2, np.float32)})
    text = render_watch_text(w.report)
    assert "feed H2D 'x\\x1b[31m\\u202e'" in text and "\x1b" not in text and "\u202e" not in text
    with pytest.raises(AssertionError) as failed:
        w.report.assert_no_host_transfers(predicted=True)
    assert "\x1b" not in str(failed.value) and "'x\\x1b[31m\\u202e'" in str(failed.value)


def _our_folders() -> set[str]:
    return {n for n in os.listdir(tempfile.gettempdir()) if n.startswith("ortcopy-doctor-watch-")}


@pytest.mark.parametrize("bad", ["missing.onnx", "empty.onnx"])
def test_instrumented_session_leaves_no_folder_when_ort_refuses_the_model(tmp_path, monkeypatch, bad):
    monkeypatch.setattr(tempfile, "tempdir", str(tmp_path))
    (tmp_path / "empty.onnx").write_bytes(b"")
    with pytest.raises(Exception):
        instrumented_session(tmp_path / bad, providers=["CPUExecutionProvider"])
    assert _our_folders() == set()


def test_instrumented_session_takes_one_options_object_twice_without_warnings(model_path, capfd):
    options = ort.SessionOptions()
    first = instrumented_session(model_path, ["CPUExecutionProvider"], sess_options=options, profile=False)
    second = instrumented_session(model_path, ["CPUExecutionProvider"], sess_options=options, profile=False)
    assert first.run(None, {"x": X})[0].shape == second.run(None, {"x": X})[0].shape == (2, 32)
    out, err = capfd.readouterr()
    assert "already exists" not in out + err


def test_a_model_that_is_not_the_session_s_is_named_in_the_notes(session, tmp_path):
    other = helper.make_model(helper.make_graph(
        [helper.make_node("Relu", ["s"], ["t"])], "g", [helper.make_tensor_value_info("s", TensorProto.FLOAT, [2])],
        [helper.make_tensor_value_info("t", TensorProto.FLOAT, [2])]), opset_imports=[helper.make_opsetid("", 17)])
    with watch(session, model=other) as w:
        session.run(None, {"x": X})
    assert "model= is not the session's model (its inputs are ['s'], the session's ['x']): placement and " \
           "predictions below describe another graph; pass the model the session was created from" in w.report.notes


def test_the_session_s_own_model_given_as_model_adds_no_note(session, model_path):
    with watch(session, model=model_path) as w:
        session.run(None, {"x": X})
    assert not [n for n in w.report.notes if n.startswith("model=")]


def test_a_prediction_copies_an_input_read_on_the_host_too_with_one_memcpy_node(tmp_path):
    """ORT keeps such an input on the host (H200, onnxruntime-gpu 1.31.1: tests/fixtures/shared_input); the
    prediction counted a feed copy and a Memcpy node of unknown size."""
    onnx.save(models.shared_input(), str(tmp_path / "shared.onnx"))
    shared = ort.InferenceSession(str(tmp_path / "shared.onnx"), providers=["CPUExecutionProvider"])
    with watch(shared, predict_for="cuda") as w:
        shared.run(None, {"x": np.ones((2, 8), np.float32)})
    got = sorted((t.kind.value, t.direction.value, t.tensor, t.bytes) for t in w.report.predicted.transfers())
    assert [t for t in got if t[2] in ("x", "y")] == [("fetch", "device_to_host", "y", 64),
                                                     ("memcpy_node", "host_to_device", "x", 64)]
    assert w.report.predicted.calls[0].inputs[0].needed_on == "host"
