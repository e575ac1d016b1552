"""The bundled demo model: the typical problems in five nodes.

MatMul -> Celu (no CUDA kernel: CPU fallback between GPU ops) -> MatMul -> Relu -> NonZero
(data-dependent output shape), with the input fed from numpy and both outputs fetched to host.
"""

from __future__ import annotations

from pathlib import Path

import numpy as np
import onnx
from onnx import TensorProto, helper, numpy_helper


def build_demo_model() -> onnx.ModelProto:
    rng = np.random.default_rng(42)
    w1 = numpy_helper.from_array((rng.standard_normal((256, 512)) * 0.05).astype(np.float32), "w1")
    w2 = numpy_helper.from_array((rng.standard_normal((512, 128)) * 0.05).astype(np.float32), "w2")
    nodes = [
        helper.make_node("MatMul", ["features", "w1"], ["hidden"], name="encoder_matmul"),
        helper.make_node("Celu", ["hidden"], ["activated"], name="celu_activation", alpha=1.0),
        helper.make_node("MatMul", ["activated", "w2"], ["scores"], name="decoder_matmul"),
        helper.make_node("Relu", ["scores"], ["positive_scores"], name="relu"),
        helper.make_node("NonZero", ["positive_scores"], ["active_indices"], name="find_active"),
    ]
    graph = helper.make_graph(
        nodes,
        "ortcopy_doctor_demo",
        [helper.make_tensor_value_info("features", TensorProto.FLOAT, ["batch", 256])],
        [
            helper.make_tensor_value_info("scores", TensorProto.FLOAT, ["batch", 128]),
            helper.make_tensor_value_info("active_indices", TensorProto.INT64, [2, "active_count"]),
        ],
        [w1, w2],
    )
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17)], producer_name="ortcopy-doctor-demo")
    model.ir_version = 10  # ORT 1.31 loads IR <= 13; onnx 1.23 would write 14
    return model


def write_demo_model(path: Path) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    onnx.save(build_demo_model(), str(path))
    return path


DEMO_DIMS = {"batch": 32}
