"""The sequence lengths an LSTM on CUDA uploads in its kernel (4 B per batch entry, seen on the H200): a prediction
sizes them from X's declared or fed shape (it said "unknown size" without a profiled call)."""

from __future__ import annotations

import numpy as np
import onnx
from onnx import TensorProto, helper, numpy_helper

from ortcopy_doctor import check


def _lstm(layout: int) -> onnx.ModelProto:
    hidden, size = 6, 4
    w = numpy_helper.from_array(np.zeros((1, 4 * hidden, size), np.float32), "W")
    r = numpy_helper.from_array(np.zeros((1, 4 * hidden, hidden), np.float32), "R")
    x_shape = ["seq", "batch", size] if layout == 0 else ["batch", "seq", size]
    node = helper.make_node("LSTM", ["x", "W", "R"], ["y"], name="lstm", hidden_size=hidden, layout=layout)
    graph = helper.make_graph([node], "g", [helper.make_tensor_value_info("x", TensorProto.FLOAT, x_shape)],
                              [helper.make_tensor_value_info("y", TensorProto.FLOAT, None)], [w, r])
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 14)])
    model.ir_version = 8
    return model


def test_the_predicted_upload_is_4_bytes_per_batch_entry(tmp_path):
    """X is [seq, batch, input] (layout 0, what torch exports). The evidence keeps no node attributes, so a layout-1
    LSTM (batch first) is sized as if layout 0, measured or predicted alike."""
    onnx.save(_lstm(0), str(tmp_path / "lstm.onnx"))
    report = check(tmp_path / "lstm.onnx", static=True, dims={"seq": 5, "batch": 3})
    (upload,) = [c for c in report.copies if c.kind.value == "in_kernel"]
    assert (upload.direction.value, upload.bytes_per_run) == ("host_to_device", 12)
