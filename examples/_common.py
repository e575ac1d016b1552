"""Shared by the example pipelines: tiny models built with onnx.helper, the providers, the iteration count.

Models are built at start-up into a cache folder ($ORTCOPY_EXAMPLE_CACHE, default ~/.cache/ortcopy-doctor/examples)
with random weights: what matters here is where tensors live between the stages, not what the models predict.

Providers: `--providers cuda,cpu` on the command line, else $ORTCOPY_EXAMPLE_PROVIDERS, else CUDA then CPU.
Iterations: `--iterations N` (default 8).
"""

from __future__ import annotations

import os
import sys
import tempfile
from pathlib import Path

import numpy as np
import onnx
from onnx import TensorProto, helper, numpy_helper

_NAMES = {"cuda": "CUDAExecutionProvider", "cpu": "CPUExecutionProvider", "tensorrt": "TensorrtExecutionProvider"}


def _option(flag: str, default: str | None) -> str | None:
    """Read and remove `flag VALUE` from sys.argv (the example's own options)."""
    if flag in sys.argv:
        i = sys.argv.index(flag)
        if i + 1 < len(sys.argv):
            value = sys.argv[i + 1]
            del sys.argv[i:i + 2]
            return value
    return default


def providers() -> list[str]:
    import onnxruntime as ort

    wanted = _option("--providers", os.environ.get("ORTCOPY_EXAMPLE_PROVIDERS", "cuda,cpu")) or "cuda,cpu"
    names = [_NAMES.get(p.strip().lower(), p.strip()) for p in wanted.split(",") if p.strip()]
    available = set(ort.get_available_providers())
    return [p for p in names if p in available] or ["CPUExecutionProvider"]


def iterations(default: int = 8) -> int:
    return int(_option("--iterations", str(default)) or default)


def loop(count: int):
    """range(count) for the example's main loop. With $ORTCOPY_EXAMPLE_TIMES set to a path, the wall time of each
    iteration (ns) is written there as JSON at the end: tools/record_pipelines.py times the examples without the
    recorder this way, so a fixed version is compared with its broken one on the program's own clock."""
    path = os.environ.get("ORTCOPY_EXAMPLE_TIMES")
    if not path:
        yield from range(count)
        return
    import json
    import time

    times = []
    for i in range(count):
        start = time.perf_counter_ns()
        yield i
        times.append(time.perf_counter_ns() - start)
    Path(path).write_text(json.dumps(times))


def device_of(session) -> str:
    """The device the session computes on: where the fixed examples keep their OrtValues."""
    return "cuda" if "CUDAExecutionProvider" in session.get_providers() else "cpu"


def cache_dir() -> Path:
    path = Path(os.environ.get("ORTCOPY_EXAMPLE_CACHE", Path.home() / ".cache" / "ortcopy-doctor" / "examples"))
    path.mkdir(parents=True, exist_ok=True)
    return path


def model_path(name: str) -> str:
    """The path of a tiny example model, built on first use."""
    path = cache_dir() / f"{name}.onnx"
    if not path.is_file():
        model = BUILDERS[name]()
        onnx.checker.check_model(model)
        fd, tmp = tempfile.mkstemp(dir=path.parent, suffix=".tmp")
        os.close(fd)
        onnx.save(model, tmp)
        os.replace(tmp, path)  # another process building the same model at the same time is harmless
    return str(path)


def _w(rng: np.random.Generator, name: str, shape: tuple[int, ...], scale: float = 0.1) -> onnx.TensorProto:
    return numpy_helper.from_array((rng.standard_normal(shape) * scale).astype(np.float32), name)


def _model(nodes, inputs, outputs, inits, name: str) -> onnx.ModelProto:
    graph = helper.make_graph(nodes, name, inputs, outputs, inits)
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17)], producer_name="ortcopy-doctor-examples")
    model.ir_version = 8
    return model


# Detector: image [1,3,256,256] -> features [1,32,128,128], boxes [4,4] (x1,y1,x2,y2 in image pixels), scores [4].
IMAGE = 256
FEATURES = 32
BOXES = 4
CLASSES = 10


def build_detector() -> onnx.ModelProto:
    rng = np.random.default_rng(1)
    f = FEATURES
    inits = [
        _w(rng, "conv_w", (f, 3, 3, 3)), _w(rng, "conv_b", (f,)),
        _w(rng, "box_w", (f, BOXES * 4)), _w(rng, "score_w", (f, BOXES)),
        numpy_helper.from_array(np.array([BOXES, 4], np.int64), "box_shape"),
        numpy_helper.from_array(np.array([BOXES], np.int64), "score_shape"),
        numpy_helper.from_array(np.array([[1, 0, 1, 0], [0, 1, 0, 1], [0, 0, 1, 0], [0, 0, 0, 1]], np.float32), "corner"),
        numpy_helper.from_array(np.array([IMAGE / 2], np.float32), "scale"),
        numpy_helper.from_array(np.array([0, 0, 16, 16], np.float32), "min_size"),
    ]
    nodes = [
        helper.make_node("Conv", ["image", "conv_w", "conv_b"], ["conv"], strides=[2, 2], pads=[1, 1, 1, 1]),
        helper.make_node("Relu", ["conv"], ["features"]),
        helper.make_node("GlobalAveragePool", ["features"], ["pooled"]),
        helper.make_node("Flatten", ["pooled"], ["flat"]),
        helper.make_node("MatMul", ["flat", "box_w"], ["box_logits"]),
        helper.make_node("Sigmoid", ["box_logits"], ["box_unit"]),
        helper.make_node("Reshape", ["box_unit", "box_shape"], ["box_rel"]),
        helper.make_node("Mul", ["box_rel", "scale"], ["box_xywh"]),
        helper.make_node("MatMul", ["box_xywh", "corner"], ["box_corner"]),
        helper.make_node("Add", ["box_corner", "min_size"], ["boxes"]),
        helper.make_node("MatMul", ["flat", "score_w"], ["score_logits"]),
        helper.make_node("Sigmoid", ["score_logits"], ["score_unit"]),
        helper.make_node("Reshape", ["score_unit", "score_shape"], ["scores"]),
    ]
    return _model(nodes, [helper.make_tensor_value_info("image", TensorProto.FLOAT, [1, 3, IMAGE, IMAGE])],
                  [helper.make_tensor_value_info("features", TensorProto.FLOAT, [1, FEATURES, IMAGE // 2, IMAGE // 2]),
                   helper.make_tensor_value_info("boxes", TensorProto.FLOAT, [BOXES, 4]),
                   helper.make_tensor_value_info("scores", TensorProto.FLOAT, [BOXES])], inits, "detector")


def build_classifier() -> onnx.ModelProto:
    """Crops each box out of the feature map on the device (RoiAlign) and classifies it."""
    rng = np.random.default_rng(2)
    inits = [_w(rng, "fc_w", (FEATURES * 7 * 7, CLASSES)), _w(rng, "fc_b", (CLASSES,))]
    nodes = [
        helper.make_node("RoiAlign", ["features", "rois", "batch_indices"], ["crops"], output_height=7, output_width=7,
                         spatial_scale=0.5, sampling_ratio=2),
        helper.make_node("Flatten", ["crops"], ["crop_flat"]),
        helper.make_node("Gemm", ["crop_flat", "fc_w", "fc_b"], ["logits"]),
    ]
    return _model(nodes, [helper.make_tensor_value_info("features", TensorProto.FLOAT, [1, FEATURES, IMAGE // 2, IMAGE // 2]),
                          helper.make_tensor_value_info("rois", TensorProto.FLOAT, ["n", 4]),
                          helper.make_tensor_value_info("batch_indices", TensorProto.INT64, ["n"])],
                  [helper.make_tensor_value_info("logits", TensorProto.FLOAT, ["n", CLASSES])], inits, "classifier")


# Text: input_ids [16,128] -> encoder -> hidden [16,128,256] -> head (mean pool + linear) -> logits [16,4]
VOCAB, BATCH, SEQ, HIDDEN, LABELS = 1000, 16, 128, 256, 4


def build_encoder() -> onnx.ModelProto:
    rng = np.random.default_rng(3)
    inits = [_w(rng, "embedding", (VOCAB, HIDDEN), 1.0), _w(rng, "proj_w", (HIDDEN, HIDDEN)), _w(rng, "proj_b", (HIDDEN,))]
    nodes = [
        helper.make_node("Gather", ["embedding", "input_ids"], ["embedded"]),
        helper.make_node("MatMul", ["embedded", "proj_w"], ["projected"]),
        helper.make_node("Add", ["projected", "proj_b"], ["biased"]),
        helper.make_node("Tanh", ["biased"], ["hidden"]),
    ]
    return _model(nodes, [helper.make_tensor_value_info("input_ids", TensorProto.INT64, [BATCH, SEQ])],
                  [helper.make_tensor_value_info("hidden", TensorProto.FLOAT, [BATCH, SEQ, HIDDEN])], inits, "encoder")


def build_head() -> onnx.ModelProto:
    rng = np.random.default_rng(4)
    inits = [_w(rng, "head_w", (HIDDEN, LABELS)), _w(rng, "head_b", (LABELS,))]
    nodes = [
        helper.make_node("ReduceMean", ["hidden_states"], ["pooled"], axes=[1], keepdims=0),
        helper.make_node("Gemm", ["pooled", "head_w", "head_b"], ["logits"]),
    ]
    return _model(nodes, [helper.make_tensor_value_info("hidden_states", TensorProto.FLOAT, [BATCH, SEQ, HIDDEN])],
                  [helper.make_tensor_value_info("logits", TensorProto.FLOAT, [BATCH, LABELS])], inits, "head")


# Streaming cell: x [64,256], h_in [64,1024] (256 KB) -> h_out = tanh(x Wx + h_in Wh + b), y = h_out Wy [64,16]
STREAMS, STEP_IN, STATE, STEP_OUT = 64, 256, 1024, 16


def build_cell() -> onnx.ModelProto:
    rng = np.random.default_rng(5)
    inits = [_w(rng, "wx", (STEP_IN, STATE)), _w(rng, "wh", (STATE, STATE), 0.02), _w(rng, "b", (STATE,)),
             _w(rng, "wy", (STATE, STEP_OUT))]
    nodes = [
        helper.make_node("MatMul", ["x", "wx"], ["xw"]),
        helper.make_node("MatMul", ["h_in", "wh"], ["hw"]),
        helper.make_node("Add", ["xw", "hw"], ["pre"]),
        helper.make_node("Add", ["pre", "b"], ["pre_b"]),
        helper.make_node("Tanh", ["pre_b"], ["h_out"]),
        helper.make_node("MatMul", ["h_out", "wy"], ["y"]),
    ]
    return _model(nodes, [helper.make_tensor_value_info("x", TensorProto.FLOAT, [STREAMS, STEP_IN]),
                          helper.make_tensor_value_info("h_in", TensorProto.FLOAT, [STREAMS, STATE])],
                  [helper.make_tensor_value_info("y", TensorProto.FLOAT, [STREAMS, STEP_OUT]),
                   helper.make_tensor_value_info("h_out", TensorProto.FLOAT, [STREAMS, STATE])], inits, "cell")


BUILDERS = {"det": build_detector, "cls": build_classifier, "encoder": build_encoder, "head": build_head,
            "cell": build_cell}


def image(rng: np.random.Generator) -> np.ndarray:
    """A camera frame as the host has it: uint8 HWC."""
    return rng.integers(0, 256, (IMAGE, IMAGE, 3), dtype=np.uint8)


def preprocess(frame: np.ndarray) -> np.ndarray:
    """uint8 HWC -> float32 NCHW in [0, 1]."""
    return np.ascontiguousarray(frame.transpose(2, 0, 1)[None].astype(np.float32) / 255.0)


def tokenize(texts: list[str]) -> np.ndarray:
    ids = np.zeros((BATCH, SEQ), np.int64)
    for row, text in enumerate(texts[:BATCH]):
        words = [sum(map(ord, w)) % VOCAB for w in text.split()][:SEQ]
        ids[row, :len(words)] = words
    return ids


def softmax(x: np.ndarray) -> np.ndarray:
    e = np.exp(x - x.max(axis=-1, keepdims=True))
    return e / e.sum(axis=-1, keepdims=True)
