"""Models whose runs fail where every dynamic dim is 1, each after a real one (issue 36): Silero VAD's reflect
padding of audio, a Reshape into frames, a YOLO neck's upsample-and-concat, PP-OCR's images, a sample-rate input.
Each builder saves its model in ``tmp_path`` and returns the path."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import onnx
from onnx import TensorProto, helper, numpy_helper

import models


def _save(model: onnx.ModelProto, tmp_path: Path, name: str) -> Path:
    path = tmp_path / name
    onnx.save(model, str(path))
    return path


def _value(name: str, shape: list[object], elem: int = TensorProto.FLOAT) -> onnx.ValueInfoProto:
    return helper.make_tensor_value_info(name, elem, shape)


def audio_model(tmp_path: Path) -> Path:
    """x: [batch, samples] padded by 32 on each side in reflect mode (Silero VAD's STFT padding): a run at 1 sample
    fails ("Pad reflect requires axis length >= 2")."""
    nodes = [helper.make_node("Pad", ["x", "pads"], ["y"], name="stft_pad", mode="reflect")]
    pads = numpy_helper.from_array(np.array([0, 32, 0, 32], np.int64), "pads")
    return _save(models._model(nodes, [_value("x", ["batch", "samples"])], [_value("y", ["batch", None])], [pads]),
                 tmp_path, "audio.onnx")


def reshape_model(tmp_path: Path) -> Path:
    """x: [batch, samples] reshaped to rows of 64 (a framing by Reshape): a run at 1 sample fails."""
    nodes = [helper.make_node("Reshape", ["x", "frames"], ["y"], name="to_frames")]
    frames = numpy_helper.from_array(np.array([-1, 64], np.int64), "frames")
    return _save(models._model(nodes, [_value("x", ["batch", "samples"])], [_value("y", [None, 64])], [frames]),
                 tmp_path, "reshape.onnx")


def stride_model(tmp_path: Path) -> Path:
    """A feature map x: [batch, 8, h, w] pooled by 32 (rounding up), upsampled by 32 and concatenated with itself,
    as a YOLO neck does: it runs only where 32 divides h and w (at 1: "Non concat axis dimensions must match")."""
    nodes = [
        helper.make_node("MaxPool", ["x"], ["pooled"], name="down", kernel_shape=[32, 32], strides=[32, 32],
                         ceil_mode=1),
        helper.make_node("Resize", ["pooled", "", "scales"], ["up"], name="up", mode="nearest"),
        helper.make_node("Concat", ["x", "up"], ["y"], name="merge", axis=1),
    ]
    scales = numpy_helper.from_array(np.array([1, 1, 32, 32], np.float32), "scales")
    return _save(models._model(nodes, [_value("x", ["batch", 8, "h", "w"])], [_value("y", ["batch", 16, "h", "w"])],
                               [scales]), tmp_path, "stride.onnx")


def image_model(tmp_path: Path, head: str) -> Path:
    """An image x: [batch, 3, height, width] into a Conv, then a class vector [batch, 10] (``head="classifier"``)
    or per-step scores [batch, steps, 4] (``head="recogniser"``, PP-OCR's text recogniser), or a map (a
    detector's)."""
    nodes = [helper.make_node("Conv", ["x", "w"], ["features"], name="conv", pads=[1, 1, 1, 1])]
    inits = [models._weights("w", (4, 3, 3, 3), 1)]
    if head == "classifier":
        nodes += [helper.make_node("GlobalAveragePool", ["features"], ["pooled"], name="pool"),
                  helper.make_node("Flatten", ["pooled"], ["flat"], name="flatten"),
                  helper.make_node("Gemm", ["flat", "fc"], ["y"], name="fc", transB=1)]
        inits.append(models._weights("fc", (10, 4), 2))
        output = _value("y", ["batch", 10])
    elif head == "recogniser":
        nodes += [helper.make_node("ReduceMean", ["features"], ["columns"], name="collapse", axes=[2], keepdims=0),
                  helper.make_node("Transpose", ["columns"], ["y"], name="steps", perm=[0, 2, 1])]
        output = _value("y", ["batch", "steps", 4])
    else:
        nodes += [helper.make_node("Sigmoid", ["features"], ["y"], name="map")]
        output = _value("y", ["batch", 4, "height", "width"])
    model = models._model(nodes, [_value("x", ["batch", 3, "height", "width"])], [output], inits)
    if head == "recogniser":
        model.opset_import[0].version = 17  # ReduceMean's axes attribute: up to opset 17
    return _save(model, tmp_path, f"{head}.onnx")


def rate_model(tmp_path: Path) -> Path:
    """y = x * Cast(sr), sr a scalar int64 (Silero VAD's sample rate input)."""
    nodes = [helper.make_node("Cast", ["sr"], ["rate"], name="cast", to=TensorProto.FLOAT),
             helper.make_node("Mul", ["x", "rate"], ["y"], name="mul")]
    return _save(models._model(nodes, [_value("x", [2, 3]), _value("sr", [], TensorProto.INT64)],
                               [_value("y", [2, 3])]), tmp_path, "rate.onnx")


def never_model(tmp_path: Path) -> Path:
    """x: [batch, samples] with one more element appended, reshaped to [1, 3]: only 2 samples run, which no size
    tried reaches (the ladder starts at 32)."""
    nodes = [helper.make_node("Concat", ["x", "extra"], ["longer"], name="append", axis=1),
             helper.make_node("Reshape", ["longer", "three"], ["y"], name="to_three")]
    inits = [numpy_helper.from_array(np.zeros((1, 1), np.float32), "extra"),
             numpy_helper.from_array(np.array([1, 3], np.int64), "three")]
    return _save(models._model(nodes, [_value("x", ["batch", "samples"])], [_value("y", [1, 3])], inits), tmp_path,
                 "never.onnx")
