"""The tensor an in-kernel transfer names (knowledge/kernel_memory.transfer_tensor): an LSTM's sequence-length
upload names its sequence_lens input, or no tensor where the input is absent (the kernel makes the lengths up);
NonZero's count read-back names the output it sizes. Static checks of tiny models."""

from __future__ import annotations

import msgspec

import numpy as np
import onnx
from onnx import TensorProto, helper, numpy_helper

from ortcopy_doctor import check
from ortcopy_doctor.model.vocabulary import IN_KERNEL
from ortcopy_doctor.report.diff import diff_reports

HIDDEN, SIZE = 6, 4


def _lstm(with_lengths: bool) -> onnx.ModelProto:
    w = numpy_helper.from_array(np.zeros((1, 4 * HIDDEN, SIZE), np.float32), "W")
    r = numpy_helper.from_array(np.zeros((1, 4 * HIDDEN, HIDDEN), np.float32), "R")
    inputs = ["x", "W", "R", "", "lens"] if with_lengths else ["x", "W", "R"]
    node = helper.make_node("LSTM", inputs, ["y"], name="lstm", hidden_size=HIDDEN)
    graph_inputs = [helper.make_tensor_value_info("x", TensorProto.FLOAT, [5, 3, SIZE])]
    if with_lengths:
        graph_inputs.append(helper.make_tensor_value_info("lens", TensorProto.INT32, [3]))
    graph = helper.make_graph([node], "g", graph_inputs, [helper.make_tensor_value_info("y", TensorProto.FLOAT, None)],
                              [w, r])
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 14)])
    model.ir_version = 8
    return model


def _in_kernel(tmp_path, model: onnx.ModelProto):
    onnx.save(model, str(tmp_path / "m.onnx"))
    report = check(tmp_path / "m.onnx", static=True)
    return report, [(c.node, c.direction.value, c.tensor) for c in report.copies if c.kind == IN_KERNEL]


def test_an_lstm_without_sequence_lens_uploads_no_tensor_of_the_graph(tmp_path):
    _, rows = _in_kernel(tmp_path, _lstm(with_lengths=False))
    assert rows == [("lstm", "host_to_device", "")]


def test_an_lstm_with_sequence_lens_uploads_lengths_made_from_it(tmp_path):
    _, rows = _in_kernel(tmp_path, _lstm(with_lengths=True))
    assert rows == [("lstm", "host_to_device", "lens")]


def test_nonzero_reads_back_the_count_of_its_output(tmp_path):
    node = helper.make_node("NonZero", ["x"], ["idx"], name="nz")
    graph = helper.make_graph([node], "g", [helper.make_tensor_value_info("x", TensorProto.FLOAT, [4, 4])],
                              [helper.make_tensor_value_info("idx", TensorProto.INT64, None)])
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 13)])
    model.ir_version = 8
    _, rows = _in_kernel(tmp_path, model)
    assert rows == [("nz", "device_to_host", "idx")]


def test_diff_pairs_a_kernels_transfer_by_its_node_not_its_tensor(tmp_path):
    """A report written before (the LSTM's first output as the upload's tensor) against one written now: the same
    transfer, unchanged."""
    report, _ = _in_kernel(tmp_path, _lstm(with_lengths=False))
    older = msgspec.structs.replace(report, copies=[msgspec.structs.replace(c, tensor="y") if c.kind == IN_KERNEL else c
                                                for c in report.copies])
    changes = [c for c in diff_reports(older, report).copies if c.after is not None and c.after.kind == IN_KERNEL]
    assert [(c.status, c.what) for c in changes] == [("unchanged", [])]


def test_an_lstms_sequence_lens_fed_from_numpy_stays_in_host_memory(tmp_path):
    # cuda/rnn/lstm.cc declares sequence_lens a CPU input: no feed copy, bound on the host in the plan
    onnx.save(_lstm(with_lengths=True), str(tmp_path / "m.onnx"))
    report = check(tmp_path / "m.onnx", static=True)
    assert [(c.kind.value, c.tensor) for c in report.copies if c.tensor == "lens"] == [("in_kernel", "lens")]
    assert [(f.rule, f.location) for f in report.findings if f.location == "lens"] == [("OCD007", "lens")]
    assert "binding.bind_cpu_input('lens', lens)" in report.binding.code


def test_a_device_computed_sequence_lens_gets_a_memcpy_to_host(tmp_path):
    model = _lstm(with_lengths=True)
    # lens computed on the device (Abs has an int32 CUDA kernel), then read by the LSTM in host memory
    model.graph.node[0].input[4] = "lens_abs"
    model.graph.node.insert(0, helper.make_node("Abs", ["lens"], ["lens_abs"], name="abs"))
    onnx.save(model, str(tmp_path / "m.onnx"))
    report = check(tmp_path / "m.onnx", static=True)
    assert [(c.kind.value, c.direction.value, c.tensor) for c in report.copies if c.tensor.startswith("lens")] == [
        ("feed", "host_to_device", "lens"), ("memcpy_node", "device_to_host", "lens_abs"),
        ("in_kernel", "host_to_device", "lens_abs")]
