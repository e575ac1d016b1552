"""The bundled demo model: the typical problems in five nodes.

MatMul -> Celu (no CUDA kernel: CPU fallback between GPU ops) -> MatMul -> Relu -> NonZero
(data-dependent output shape), with the input fed from numpy and both outputs fetched to host.
"""

from __future__ import annotations

import os
import tempfile
from pathlib import Path

import numpy as np
import onnx
from onnx import TensorProto, helper, numpy_helper

from ortcopy_doctor.model.errors import UsageError


def build_demo_model() -> onnx.ModelProto:
    """The demo model (see the module docstring), with fixed random weights."""
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
    """Save the demo model to ``path`` (its folder made where missing) and return ``path``."""
    path.parent.mkdir(parents=True, exist_ok=True)
    onnx.save(build_demo_model(), str(path))
    return path


def write_demo_model_once(path: Path) -> Path:
    """Write the demo model to ``path``, where no file is, or where the file there already is the demo model;
    any other file is left alone and refused (exit 2), never replaced silently."""
    data = build_demo_model().SerializeToString()
    if path.exists() or path.is_symlink():
        try:
            same = path.is_file() and path.stat().st_size == len(data) and path.read_bytes() == data
        except OSError:
            same = False
        if same:
            return path
        raise UsageError(f"{path} exists and is not the demo model: move it away, or give demo another folder "
                         "with --html DIR/demo.html")
    _write_bytes(path, data)
    return path


def _write_bytes(path: Path, data: bytes) -> None:
    fd, tmp = tempfile.mkstemp(prefix=".ortcopy-", suffix=".tmp", dir=path.parent)
    try:
        with os.fdopen(fd, "wb") as f:
            f.write(data)
        mask = os.umask(0)
        os.umask(mask)
        os.chmod(tmp, 0o666 & ~mask)
        try:
            os.link(tmp, path)  # fails if a file appeared meanwhile: never replaces one
        except FileExistsError:
            raise
        except OSError:  # a file system without hard links
            os.replace(tmp, path)
            return
    finally:
        if os.path.lexists(tmp):
            os.unlink(tmp)


DEMO_DIMS = {"batch": 32}
