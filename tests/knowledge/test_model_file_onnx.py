"""knowledge.model_file reads a model through onnx's public API (``onnx.load`` without the external weights): the
numbers it uses are onnx's, a broken onnx install is not reported as a bad model, and reading a report JSON needs
no onnx (tests/project/test_startup.py)."""

from __future__ import annotations

import sys
from pathlib import Path

import numpy as np
import onnx
import pytest
from onnx import TensorProto, helper, numpy_helper

import models
from ortcopy_doctor.knowledge import model_file
from ortcopy_doctor.knowledge.model_file import read_model


def test_the_numbers_model_file_uses_are_onnx_s_own():
    assert [model_file.FLOAT, model_file.UINT8, model_file.INT8, model_file.UINT16, model_file.INT16,
            model_file.INT32, model_file.INT64, model_file.STRING, model_file.BOOL, model_file.FLOAT16,
            model_file.DOUBLE, model_file.UINT32, model_file.UINT64, model_file.COMPLEX64, model_file.COMPLEX128,
            model_file.BFLOAT16] == [
        TensorProto.FLOAT, TensorProto.UINT8, TensorProto.INT8, TensorProto.UINT16, TensorProto.INT16,
        TensorProto.INT32, TensorProto.INT64, TensorProto.STRING, TensorProto.BOOL, TensorProto.FLOAT16,
        TensorProto.DOUBLE, TensorProto.UINT32, TensorProto.UINT64, TensorProto.COMPLEX64, TensorProto.COMPLEX128,
        TensorProto.BFLOAT16]
    assert (model_file.ATTRIBUTE_TENSOR, model_file.ATTRIBUTE_GRAPH, model_file.ATTRIBUTE_GRAPHS) == (
        onnx.AttributeProto.TENSOR, onnx.AttributeProto.GRAPH, onnx.AttributeProto.GRAPHS)
    assert model_file.LOCATION_EXTERNAL == TensorProto.EXTERNAL


def test_an_element_type_without_a_numpy_name_gets_onnx_s_name():
    assert model_file.elem_dtype(TensorProto.FLOAT8E4M3FN) == "float8e4m3fn"
    assert model_file.elem_dtype(999) == "undefined"


def test_external_weights_stay_on_disk(tmp_path: Path):
    weights = numpy_helper.from_array(np.ones((64, 64), dtype=np.float32), "w")
    graph = helper.make_graph([helper.make_node("MatMul", ["x", "w"], ["y"])], "g",
                              [helper.make_tensor_value_info("x", TensorProto.FLOAT, [1, 64])],
                              [helper.make_tensor_value_info("y", TensorProto.FLOAT, [1, 64])], [weights])
    path = tmp_path / "m.onnx"
    onnx.save(helper.make_model(graph), str(path), save_as_external_data=True, location="m.data",
              size_threshold=0)
    read = read_model(path)
    (tensor,) = read.graph.initializer
    assert tensor.data_location == TensorProto.EXTERNAL and not tensor.raw_data
    assert read.SerializeToString() == onnx.load(str(path), load_external_data=False).SerializeToString()


def test_a_broken_onnx_install_is_not_reported_as_a_bad_model(tmp_path: Path, monkeypatch: pytest.MonkeyPatch):
    path = tmp_path / "m.onnx"
    onnx.save(models.conv_net(), str(path))
    monkeypatch.setitem(sys.modules, "onnx", None)  # `import onnx` raises ImportError
    with pytest.raises(ImportError):
        model_file.load_model(path)


def test_a_file_that_is_no_model_is_a_model_error(tmp_path: Path):
    from ortcopy_doctor.model.errors import ModelError

    path = tmp_path / "m.onnx"
    path.write_bytes(b"\xff" * 64)
    with pytest.raises(ModelError, match="is not a readable ONNX model"):
        model_file.load_model(path)


def test_the_onnx_version_recorded_is_onnx_s():
    from ortcopy_doctor.collect.environment import onnx_version

    assert onnx_version() == onnx.__version__


def test_a_text_format_model_file_is_read(tmp_path: Path):
    path = tmp_path / "m.textproto"
    onnx.save(models.conv_net(), str(path), format="textproto")
    assert read_model(path).SerializeToString() == models.conv_net().SerializeToString()
