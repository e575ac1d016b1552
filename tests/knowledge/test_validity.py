"""What onnxruntime would refuse as invalid, found without a session: `check --static` refuses it as ORT would
(exit 2), instead of predicting copies for a model that cannot run."""

from __future__ import annotations

import onnx
import pytest
from onnx import TensorProto, helper

import models
from ortcopy_doctor.knowledge.validity import rejection
from schema_helpers import run_cli

X = helper.make_tensor_value_info("x", TensorProto.FLOAT, [2])
Y = helper.make_tensor_value_info("y", TensorProto.FLOAT, [2])


def _model(nodes, opset: int = 17, inputs=(X,), outputs=(Y,), **kwargs) -> onnx.ModelProto:
    model = helper.make_model(helper.make_graph(nodes, "g", list(inputs), list(outputs), **kwargs),
                              opset_imports=[helper.make_opsetid("", opset)])
    model.ir_version = 8
    return model


def test_an_op_onnx_does_not_have_is_named():
    model = _model([helper.make_node("Relu", ["x"], ["a"], name="r"), helper.make_node("FooBar", ["a"], ["y"])])
    assert rejection(model) == "FooBar (node 1): no op FooBar is registered in domain 'ai.onnx' at opset 17"


def test_an_op_newer_than_the_models_opset_is_named():
    model = _model([helper.make_node("Gelu", ["x"], ["y"], name="g")], opset=17)  # Gelu is opset 20
    assert rejection(model) == "Gelu 'g': no op Gelu is registered in domain 'ai.onnx' at opset 17"


def test_a_cycle_is_named():
    model = _model([helper.make_node("Relu", ["y"], ["a"], name="r1"), helper.make_node("Relu", ["a"], ["y"], name="r2")])
    assert rejection(model) == "the graph is not acyclic: Relu 'r1' is on a cycle"


def test_an_input_nothing_defines_is_named():
    model = _model([helper.make_node("Add", ["x", "ghost"], ["y"], name="add")])
    assert rejection(model) == "Add 'add' reads 'ghost', which is not a graph input, an initializer or a node's output"


def _if_reading_x(inner_op: str) -> onnx.ModelProto:
    """An If whose branches run one ``inner_op`` node on the outer-scope value x."""
    branch = helper.make_graph([helper.make_node(inner_op, ["x"], ["b"], name="inner")], "branch", [], [
        helper.make_tensor_value_info("b", TensorProto.FLOAT, [2])])
    cond = helper.make_tensor_value_info("c", TensorProto.BOOL, [])
    return _model([helper.make_node("If", ["c"], ["y"], name="if", then_branch=branch, else_branch=branch)],
                  inputs=(X, cond))


def test_a_subgraph_reads_outer_values_and_its_own():
    assert rejection(_if_reading_x("Relu")) is None


def test_a_subgraphs_unknown_op_is_named_with_its_place():
    assert rejection(_if_reading_x("Nope")) == ("Nope 'inner' in If 'if'.else_branch: no op Nope is registered in domain 'ai.onnx' "
                                "at opset 17")


def test_contrib_and_custom_domains_are_left_to_onnxruntime():
    node = helper.make_node("FusedMatMul", ["x", "x"], ["y"], name="f", domain="com.microsoft")
    model = _model([node])
    model.opset_import.append(helper.make_opsetid("com.microsoft", 1))
    assert rejection(model) is None


@pytest.mark.parametrize("build", [models.conv_net, models.cpu_op_between, models.if_on_device, models.stateful,
                                   models.map_output, models.sequence_output, models.shape_subgraph])
def test_the_test_models_are_valid(build):
    assert rejection(build()) is None


def test_check_static_refuses_a_model_onnxruntime_would_reject(tmp_path):
    onnx.save(_model([helper.make_node("Relu", ["y"], ["a"]), helper.make_node("Relu", ["a"], ["y"])]),
              str(tmp_path / "cyc.onnx"))
    result = run_cli(["check", "cyc.onnx", "--static", "--no-html"], tmp_path)
    assert result.returncode == 2
    assert result.stderr == ("error: onnxruntime would reject cyc.onnx as invalid: the graph is not acyclic: Relu "
                             "(node 0) is on a cycle; fix or re-export the model (onnx.checker.check_model with "
                             "full_check=True shows the problem)\n")
    assert not (tmp_path / "cyc.ortcopy.html").exists()


def _lstm(layout: int) -> onnx.ModelProto:
    import numpy as np
    from onnx import numpy_helper

    w = numpy_helper.from_array(np.zeros((1, 24, 4), np.float32), "W")
    r = numpy_helper.from_array(np.zeros((1, 24, 6), np.float32), "R")
    x = helper.make_tensor_value_info("x", TensorProto.FLOAT, [3, 5, 4])
    return _model([helper.make_node("LSTM", ["x", "W", "R"], ["y"], name="lstm", hidden_size=6, layout=layout)],
                  opset=14, inputs=(x,), outputs=(helper.make_tensor_value_info("y", TensorProto.FLOAT, None),),
                  initializer=[w, r])


def test_the_h200_refuses_a_batch_first_lstm_on_cuda():
    """The evidence for device_refusal: the check on the H200 stopped as the CUDA session was created."""
    import gzip
    import json

    from render_helpers import TESTS

    evidence = json.loads(gzip.decompress((TESTS / "fixtures" / "dynamo" / "lstm_layout1.cuda.json.gz").read_bytes()))[
        "evidence"]
    assert evidence["environment"]["ort_version"] == "1.31.1"
    assert evidence["failure"].startswith("onnxruntime could not set up CUDA during session creation: ")
    assert "Batchwise recurrent operations (layout == 1) are not supported" in evidence["failure"]


def test_a_batch_first_lstm_is_refused_for_cuda_only():
    from ortcopy_doctor.knowledge.validity import device_refusal

    assert device_refusal(_lstm(1), "CUDAExecutionProvider").startswith("LSTM 'lstm' has layout=1 (batch first)")
    assert device_refusal(_lstm(1), "CPUExecutionProvider") is None
    assert device_refusal(_lstm(0), "CUDAExecutionProvider") is None


def test_check_static_stops_as_the_measured_check_does_for_a_batch_first_lstm(tmp_path):
    onnx.save(_lstm(1), str(tmp_path / "lstm.onnx"))
    result = run_cli(["check", "lstm.onnx", "--static", "--no-html"], tmp_path)
    assert result.returncode == 3
    assert result.stderr.startswith("error: onnxruntime's CUDA provider would fail to create a session for lstm.onnx: "
                                    "LSTM 'lstm' has layout=1 (batch first)")
    assert result.stderr.count("\n") == 1
