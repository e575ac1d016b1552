"""knowledge.onnx_proto: a model read with onnx's generated protobuf module alone is the message ``onnx.load`` gives,
its classes are onnx's own once onnx is imported, and reading it imports neither onnx nor importlib.metadata."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import numpy as np
import onnx
import pytest
from google.protobuf.message import DecodeError
from onnx import TensorProto, helper, numpy_helper

import models
from ortcopy_doctor.knowledge import model_file
from ortcopy_doctor.knowledge.onnx_proto import TEXT_FORMAT_SUFFIXES, read_model
from render_helpers import REPO


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


@pytest.mark.parametrize("build", [models.conv_net, models.if_on_device, models.sequence_output, models.map_output,
                                   models.shape_subgraph])
def test_a_model_reads_as_onnx_load_reads_it(tmp_path: Path, build):
    path = tmp_path / "m.onnx"
    onnx.save(build(), str(path))
    read = read_model(path)
    assert type(read) is onnx.ModelProto
    assert read.SerializeToString() == onnx.load(str(path), load_external_data=False).SerializeToString()


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


def test_a_text_format_file_is_read_by_onnx(tmp_path: Path):
    assert ".textproto" in TEXT_FORMAT_SUFFIXES
    path = tmp_path / "m.textproto"
    onnx.save(models.conv_net(), str(path), format="textproto")
    assert read_model(path).SerializeToString() == onnx.load(str(path)).SerializeToString()


def test_bytes_that_are_no_model_raise_what_onnx_load_raises(tmp_path: Path):
    path = tmp_path / "m.onnx"
    path.write_bytes(b"\xff" * 64)
    with pytest.raises(DecodeError):
        onnx.load(str(path))
    with pytest.raises(DecodeError):
        read_model(path)


def _fresh(code: str, **env_extra: str) -> dict:
    """Run ``code`` in a fresh interpreter with the repository on its path; what it prints last (JSON)."""
    env = {k: v for k, v in dict(os.environ, **env_extra).items() if v}  # "": not set
    env["PYTHONPATH"] = os.pathsep.join([str(REPO), str(REPO / "tests")] +
                                        ([env["PYTHONPATH"]] if env.get("PYTHONPATH") else []))
    result = subprocess.run([sys.executable, "-c", code], env=env, capture_output=True, text=True, timeout=120,
                            check=False)
    assert result.returncode == 0, result.stderr
    return json.loads(result.stdout.strip().splitlines()[-1])


@pytest.mark.parametrize("implementation", ["", "python"])
def test_a_model_read_without_onnx_is_onnx_s_model_once_onnx_is_imported(tmp_path: Path, implementation):
    # "": protobuf's default implementation (upb); "python": its pure-Python one
    path = tmp_path / "m.onnx"
    onnx.save(models.conv_net(), str(path))
    found = _fresh(
        "import json, sys\n"
        "from ortcopy_doctor.knowledge.model_file import inspect_model, load_model\n"
        "from ortcopy_doctor.knowledge.onnx_proto import protos\n"
        f"model = load_model(__import__('pathlib').Path({str(path)!r}))\n"
        f"info = inspect_model(__import__('pathlib').Path({str(path)!r}), model)\n"
        "before = [m for m in ('onnx', 'importlib.metadata', 'ml_dtypes') if m in sys.modules]\n"
        "import onnx\n"
        "inferred = onnx.shape_inference.infer_shapes(model)\n"
        "onnx.checker.check_model(model)\n"
        "print(json.dumps({'before': before, 'same_class': onnx.ModelProto is protos().ModelProto,\n"
        "                  'is_onnx_model': isinstance(model, onnx.ModelProto), 'nodes': len(info.nodes),\n"
        "                  'inferred': len(inferred.graph.value_info) > 0}))\n",
        PROTOCOL_BUFFERS_PYTHON_IMPLEMENTATION=implementation)
    assert found == {"before": [], "same_class": True, "is_onnx_model": True, "nodes": len(models.conv_net().graph.node),
                     "inferred": True}


def test_where_onnx_is_imported_first_its_classes_are_used():
    found = _fresh(
        "import json, onnx\n"
        "from ortcopy_doctor.knowledge.onnx_proto import protos\n"
        "print(json.dumps({'onnx': protos() is onnx}))\n")
    assert found == {"onnx": True}


def test_onnx_s_version_is_read_without_importing_onnx_or_importlib_metadata():
    found = _fresh(
        "import json, sys\n"
        "from ortcopy_doctor.knowledge.onnx_proto import onnx_version\n"
        "version = onnx_version()\n"
        "loaded = [m for m in ('onnx', 'importlib.metadata') if m in sys.modules]\n"
        "import onnx\n"
        "print(json.dumps({'loaded': loaded, 'same': version == onnx.__version__}))\n")
    assert found == {"loaded": [], "same": True}


def test_a_broken_onnx_install_is_not_reported_as_a_bad_model(tmp_path: Path, monkeypatch: pytest.MonkeyPatch):
    from ortcopy_doctor.knowledge import onnx_proto

    path = tmp_path / "m.onnx"
    onnx.save(models.conv_net(), str(path))
    monkeypatch.setattr(onnx_proto, "_protos", None)
    monkeypatch.setattr(onnx_proto, "_load_generated", lambda: None)
    monkeypatch.setitem(sys.modules, "onnx", None)  # `import onnx` raises ImportError
    with pytest.raises(ImportError):
        model_file.load_model(path)


def test_a_file_that_is_no_model_is_a_model_error(tmp_path: Path):
    from ortcopy_doctor.model.errors import ModelError

    path = tmp_path / "m.onnx"
    path.write_bytes(b"\xff" * 64)
    with pytest.raises(ModelError, match="is not a readable ONNX model"):
        model_file.load_model(path)


def test_the_generated_module_is_loaded_only_where_onnx_itself_uses_it(monkeypatch: pytest.MonkeyPatch):
    from ortcopy_doctor.knowledge import onnx_proto

    loaded = onnx_proto._load_generated()
    assert loaded is not None and loaded.ModelProto is onnx.ModelProto
    monkeypatch.setattr(onnx_proto, "_onnx_uses_it", lambda _folder: False)  # an onnx built without ONNX_ML
    assert onnx_proto._load_generated() is None
