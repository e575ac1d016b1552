"""Static placement and Memcpy prediction (ortcopy_doctor/knowledge/prediction.py).

Expected values for the tests/models.py models are what ORT 1.31.1 did on an H200 (CUDA EP and
CPU EP, verbose log and assignment info). Tests marked "from ORT's source" cover rules read from
fallback_cpu_capability.cc / transformer_memcpy.cc and not yet checked on the GPU.
"""

from __future__ import annotations

import numpy as np
import onnx
import pytest
from onnx import TensorProto, helper, numpy_helper

import models
from ortcopy_doctor.knowledge.prediction import CPU, CUDA, OBSERVED_CORRECTIONS, Prediction, predict


def _placement(p: Prediction) -> dict[str, tuple[str, str | None]]:
    return {n.name: (n.provider, n.fallback_reason) for n in p.nodes}


def _insertions(p: Prediction) -> list[tuple[str, str]]:
    return [(m.op_type, m.tensor) for m in p.memcpy_insertions]


def _model(nodes, inputs, outputs, inits=(), opset: int = 17, extra_opsets: dict[str, int] | None = None):
    graph = helper.make_graph(nodes, "g", inputs, outputs, list(inits))
    opsets = [helper.make_opsetid("", opset)] + [helper.make_opsetid(d, v) for d, v in (extra_opsets or {}).items()]
    model = helper.make_model(graph, opset_imports=opsets)
    model.ir_version = 10
    return model


def _f32(name: str, shape: list) -> onnx.ValueInfoProto:
    return helper.make_tensor_value_info(name, TensorProto.FLOAT, shape)


# --- observed on the H200 with ORT 1.31.1 ------------------------------------------------------


def test_cpu_op_between() -> None:
    p = predict(models.cpu_op_between())
    assert _placement(p) == {
        "matmul1": (CUDA, None),
        "celu": (CPU, "no_kernel"),
        "matmul2": (CUDA, None),
    }
    assert _insertions(p) == [("MemcpyFromHost", "h2"), ("MemcpyToHost", "h1")]


def test_cpu_op_between_detail() -> None:
    p = predict(models.cpu_op_between())
    assert p.node("celu").fallback_detail == "no CUDA kernel for Celu"


def test_insertions_name_the_provider() -> None:
    p = predict(models.cpu_op_between())
    assert {m.provider for m in p.memcpy_insertions} == {CUDA}


def test_sequence_output() -> None:
    p = predict(models.sequence_output())
    assert _placement(p) == {"matmul": (CUDA, None), "split_to_sequence": (CPU, "no_kernel")}
    assert _insertions(p) == [("MemcpyToHost", "h")]


def test_map_output() -> None:
    p = predict(models.map_output())
    assert _placement(p) == {"softmax": (CUDA, None), "zipmap": (CPU, "no_kernel")}
    assert _insertions(p) == [("MemcpyToHost", "probabilities")]


def test_if_on_device_places_subgraph_nodes() -> None:
    p = predict(models.if_on_device())
    assert _placement(p) == {
        "reduce_sum": (CUDA, None),
        "greater": (CUDA, None),
        "branch": (CUDA, None),
        "then_mul": (CUDA, None),
        "else_neg": (CUDA, None),
    }
    assert {n.name: n.graph for n in p.nodes if n.graph} == {
        "then_mul": "branch.then_branch",
        "else_neg": "branch.else_branch",
    }


def test_if_reads_condition_on_host() -> None:
    p = predict(models.if_on_device())
    assert _insertions(p) == [("MemcpyToHost", "cond")]


def test_cpu_only_inputs() -> None:
    p = predict(models.cpu_only_inputs())
    assert _placement(p) == {
        "reshape": (CUDA, None),
        "relu": (CUDA, None),
        "bitshift": (CPU, "no_kernel"),
    }
    # Reshape reads target_shape in host memory; graph inputs get no Memcpy
    assert _insertions(p) == []


@pytest.mark.parametrize("name", ["data_dependent_shape", "conv_net", "stateful"])
def test_all_cuda_models(name: str) -> None:
    p = predict(models.ALL[name]())
    assert {n.provider for n in p.nodes} == {CUDA}
    assert _insertions(p) == []


def test_nonzero_in_kernel_transfer_noted() -> None:
    p = predict(models.data_dependent_shape())
    assert "nonzero (NonZero) reads the count of non-zero elements back to the host (4 B device-to-host) to size its output" in p.notes


def test_non_maxsuppression_observed_correction() -> None:
    nodes = [helper.make_node("NonMaxSuppression", ["boxes", "scores"], ["selected"], name="nms")]
    model = _model(
        nodes,
        [_f32("boxes", [1, 10, 4]), _f32("scores", [1, 1, 10])],
        [helper.make_tensor_value_info("selected", TensorProto.INT64, ["n", 3])],
    )
    p = predict(model)
    assert _placement(p) == {"nms": (CUDA, None)}
    assert any("NonMaxSuppression" in n and "1.31.1" in n for n in p.notes)


def test_correction_not_applied_to_other_versions() -> None:
    nodes = [helper.make_node("NonMaxSuppression", ["boxes", "scores"], ["selected"], name="nms")]
    model = _model(
        nodes,
        [_f32("boxes", [1, 10, 4]), _f32("scores", [1, 1, 10])],
        [helper.make_tensor_value_info("selected", TensorProto.INT64, ["n", 3])],
    )
    p = predict(model, ort_version="1.20.0")
    assert _placement(p) == {"nms": (CPU, "no_kernel")}


def test_corrections_record_version() -> None:
    assert {c.ort_version for c in OBSERVED_CORRECTIONS} == {"1.31.1"}
    assert ("NonMaxSuppression", True) in {(c.op_type, c.has_kernel) for c in OBSERVED_CORRECTIONS}


# --- fallback details ----------------------------------------------------------------------------


def test_no_type_detail_suggests_cast() -> None:
    # CUDA's Relu takes float types only; an int32 Relu falls back to CPU
    nodes = [
        helper.make_node("Cast", ["x"], ["xi"], name="to_int", to=TensorProto.INT32),
        helper.make_node("Relu", ["xi"], ["y"], name="relu"),
    ]
    model = _model(nodes, [_f32("x", [4])], [helper.make_tensor_value_info("y", TensorProto.INT32, [4])])
    p = predict(model)
    assert _placement(p) == {"to_int": (CUDA, None), "relu": (CPU, "no_kernel")}
    assert p.node("relu").fallback_detail == (
        "no CUDA kernel for input 0 type int32 of Relu (supported: float32, float16, bfloat16, float64); "
        "a Cast to float32 would help"
    )
    assert _insertions(p) == [("MemcpyToHost", "xi")]


def test_no_opset_detail() -> None:
    # Add-6 exists in ONNX; the CUDA EP registers Add from opset 7
    nodes = [helper.make_node("Add", ["a", "b"], ["c"], name="add")]
    model = _model(nodes, [_f32("a", [4]), _f32("b", [4])], [_f32("c", [4])], opset=6)
    p = predict(model)
    assert _placement(p) == {"add": (CPU, "no_kernel")}
    assert p.node("add").fallback_detail == "no CUDA kernel for opset 6 of Add (nearest: 7)"


def test_node_opset_is_schema_since_version() -> None:
    # opset 17 resolves Relu to Relu-14, which the CUDA EP registers as "14+"
    nodes = [helper.make_node("Relu", ["x"], ["y"], name="relu")]
    p = predict(_model(nodes, [_f32("x", [4])], [_f32("y", [4])], opset=17))
    assert _placement(p) == {"relu": (CUDA, None)}


# --- from ORT's source (fallback_cpu_capability.cc, transformer_memcpy.cc) -------------------------


def _shape_chain() -> onnx.ModelProto:
    nodes = [
        helper.make_node("Relu", ["x"], ["r"], name="relu"),
        helper.make_node("Shape", ["r"], ["shape"], name="shape"),
        helper.make_node("Gather", ["shape", "zero"], ["batch"], name="gather", axis=0),
        helper.make_node("Unsqueeze", ["batch", "axes"], ["batch_1d"], name="unsqueeze"),
        helper.make_node("Concat", ["batch_1d", "minus_one"], ["new_shape"], name="concat", axis=0),
        helper.make_node("Reshape", ["r", "new_shape"], ["y"], name="reshape"),
    ]
    inits = [
        numpy_helper.from_array(np.array(0, np.int64), "zero"),
        numpy_helper.from_array(np.array([0], np.int64), "axes"),
        numpy_helper.from_array(np.array([-1], np.int64), "minus_one"),
    ]
    return _model(nodes, [_f32("x", ["batch", 4, 8])], [_f32("y", ["batch", 32])], inits)


def test_shape_chain_is_cpu_preferred() -> None:
    p = predict(_shape_chain())
    assert _placement(p) == {
        "relu": (CUDA, None),
        "shape": (CUDA, None),
        "gather": (CPU, "cpu_preferred"),
        "unsqueeze": (CPU, "cpu_preferred"),
        "concat": (CPU, "cpu_preferred"),
        "reshape": (CUDA, None),
    }
    # Shape writes host memory, Reshape reads its shape from host memory: no copies
    assert _insertions(p) == []


def test_large_initializer_blocks_cpu_preference() -> None:
    # a 101-element initializer is over ORT's small-initializer threshold (100)
    nodes = [
        helper.make_node("Relu", ["x"], ["r"], name="relu"),
        helper.make_node("Shape", ["r"], ["shape"], name="shape"),
        helper.make_node("Concat", ["shape", "big"], ["joined"], name="concat", axis=0),
    ]
    big = numpy_helper.from_array(np.zeros(101, np.int64), "big")
    # a symbolic dim keeps ORT from constant-folding the Shape (and the Concat after it)
    model = _model(
        nodes, [_f32("x", ["n", 3])], [helper.make_tensor_value_info("joined", TensorProto.INT64, [103])], [big]
    )
    p = predict(model)
    assert _placement(p)["concat"] == (CUDA, None)
    assert _insertions(p) == [("MemcpyFromHost", "shape")]


def test_graph_input_read_on_host_and_device_is_copied() -> None:
    # ORT adds a Memcpy for a graph input only when both a host and a device reader consume it
    nodes = [
        helper.make_node("Relu", ["x"], ["y"], name="relu"),
        helper.make_node("Celu", ["x"], ["z"], name="celu"),
    ]
    p = predict(_model(nodes, [_f32("x", [4])], [_f32("y", [4]), _f32("z", [4])]))
    assert _insertions(p) == [("MemcpyFromHost", "x")]


def test_one_insertion_per_tensor_and_direction() -> None:
    nodes = [
        helper.make_node("Relu", ["x"], ["r"], name="relu"),
        helper.make_node("Celu", ["r"], ["a"], name="celu_a"),
        helper.make_node("Celu", ["r"], ["b"], name="celu_b"),
    ]
    p = predict(_model(nodes, [_f32("x", [4])], [_f32("a", [4]), _f32("b", [4])]))
    assert _insertions(p) == [("MemcpyToHost", "r")]


def test_outer_scope_value_read_in_subgraph_gets_no_memcpy() -> None:
    # the If copies implicit inputs into its subgraph itself
    then_g = helper.make_graph(
        [helper.make_node("Celu", ["r"], ["then_out"], name="then_celu")], "then", [], [_f32("then_out", [4])]
    )
    else_g = helper.make_graph(
        [helper.make_node("Neg", ["r"], ["else_out"], name="else_neg")], "else", [], [_f32("else_out", [4])]
    )
    nodes = [
        helper.make_node("Relu", ["x"], ["r"], name="relu"),
        helper.make_node("If", ["cond"], ["y"], name="branch", then_branch=then_g, else_branch=else_g),
    ]
    model = _model(nodes, [_f32("x", [4]), helper.make_tensor_value_info("cond", TensorProto.BOOL, [])], [_f32("y", [4])])
    p = predict(model)
    assert _placement(p)["then_celu"] == (CPU, "no_kernel")
    assert _insertions(p) == []


def test_cpu_provider_places_everything_on_cpu() -> None:
    p = predict(models.cpu_op_between(), provider=CPU)
    assert {n.provider for n in p.nodes} == {CPU}
    assert {n.fallback_reason for n in p.nodes} == {None}
    assert _insertions(p) == []


def test_unknown_provider_refused() -> None:
    with pytest.raises(ValueError, match="no kernel table for DmlExecutionProvider"):
        predict(models.conv_net(), provider="DmlExecutionProvider")


# --- ORT's session preparation, checked on the H200 (tests/fixtures/accuracy, docs/static-accuracy.md) ----------


def test_constant_nodes_and_folded_nodes_are_removed_not_copied() -> None:
    # Constant -> initializer; Cast of it is constant-folded; the Celu reads a folded value: no Memcpy
    nodes = [
        helper.make_node("Constant", [], ["c"], name="k", value=numpy_helper.from_array(np.array([2.0], np.float32))),
        helper.make_node("Cast", ["c"], ["cd"], name="cast", to=TensorProto.FLOAT),
        helper.make_node("Celu", ["cd"], ["z"], name="celu"),
        helper.make_node("Add", ["x", "z"], ["y"], name="add"),
    ]
    p = predict(_model(nodes, [_f32("x", [1])], [_f32("y", [1])], opset=17))
    assert {(r.name, r.why) for r in p.removed} == {("k", "constant"), ("cast", "folded"), ("celu", "folded")}
    assert _placement(p) == {"add": (CUDA, None)}
    assert _insertions(p) == []


def test_shape_of_a_known_shape_is_folded() -> None:
    nodes = [
        helper.make_node("Shape", ["x"], ["s"], name="shape"),
        helper.make_node("Reshape", ["x", "s"], ["y"], name="reshape"),
    ]
    p = predict(_model(nodes, [_f32("x", [2, 3])], [_f32("y", [2, 3])]))
    assert [r.name for r in p.removed] == ["shape"]
    assert _placement(p) == {"reshape": (CUDA, None)}


def test_function_op_without_kernel_is_inlined_after_folding() -> None:
    # CastLike has no kernel: ORT expands it into a Cast (placed on CUDA), not folded although its input is constant
    nodes = [
        helper.make_node("Constant", [], ["c"], name="k", value=numpy_helper.from_array(np.array(2.0, np.float32))),
        helper.make_node("CastLike", ["c", "x"], ["cc"], name="cl"),
        helper.make_node("Mul", ["x", "cc"], ["y"], name="mul"),
    ]
    d = lambda n: helper.make_tensor_value_info(n, TensorProto.DOUBLE, [4])  # noqa: E731
    p = predict(_model(nodes, [d("x")], [d("y")], opset=21))
    assert {(r.name, r.why) for r in p.removed} == {("cl", "inlined"), ("k", "constant")}
    assert {n.op_type: n.provider for n in p.nodes} == {"Cast": CUDA, "Mul": CUDA}
    assert _insertions(p) == []


def test_observed_attribute_correction() -> None:
    nodes = [helper.make_node("ArgMax", ["x"], ["y"], name="argmax", select_last_index=1)]
    model = _model(nodes, [_f32("x", [2, 3])], [helper.make_tensor_value_info("y", TensorProto.INT64, [1, 3])], opset=13)
    p = predict(model, ort_version="1.31.1")
    assert _placement(p) == {"argmax": (CPU, "no_kernel")}
    assert "select_last_index" in p.node("argmax").fallback_detail
    assert _placement(predict(model, corrections=False)) == {"argmax": (CUDA, None)}


def test_sequence_length_writes_host_memory() -> None:
    # a Loop reads its trip count on the host; SequenceLength's CUDA kernel already writes it there
    body = helper.make_graph(
        [helper.make_node("Identity", ["cond_in"], ["cond_out"], name="id")], "body",
        [helper.make_tensor_value_info("i", TensorProto.INT64, []), helper.make_tensor_value_info("cond_in", TensorProto.BOOL, [])],
        [helper.make_tensor_value_info("cond_out", TensorProto.BOOL, [])],
    )
    nodes = [
        helper.make_node("SequenceLength", ["seq"], ["n"], name="len"),
        helper.make_node("Loop", ["n", ""], [], name="loop", body=body),
    ]
    seq = helper.make_tensor_sequence_value_info("seq", TensorProto.FLOAT, None)
    model = _model(nodes, [seq], [helper.make_tensor_value_info("n", TensorProto.INT64, [])])
    assert _insertions(predict(model)) == []
