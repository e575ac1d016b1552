"""Model-local functions (`model.functions`: TorchScript's export_modules_as_functions, onnxscript, graph tools):
ORT inlines every call before it places nodes, and so does the prediction. The call node was placed as an op of
its own with no kernel: a false CPU fallback and two Memcpy nodes around it."""

from __future__ import annotations

import onnx
from onnx import TensorProto, helper

from ortcopy_doctor import check
from ortcopy_doctor.knowledge.prediction import predict

BODY = [helper.make_node("Relu", ["i"], ["a"], name="r1"), helper.make_node("Celu", ["a"], ["b"], name="c1"),
        helper.make_node("Relu", ["b"], ["o"], name="r2")]


def _model(nodes, functions=()) -> onnx.ModelProto:
    graph = helper.make_graph(nodes, "g", [helper.make_tensor_value_info("x", TensorProto.FLOAT, [2, 8])],
                              [helper.make_tensor_value_info("y", TensorProto.FLOAT, [2, 8])])
    opsets = [helper.make_opsetid("", 17)] + ([helper.make_opsetid("pkg.local", 1)] if functions else [])
    model = helper.make_model(graph, opset_imports=opsets, functions=list(functions))
    model.ir_version = 8
    return model


def _with_function() -> onnx.ModelProto:
    block = helper.make_function("pkg.local", "Block", ["i"], ["o"], BODY, [helper.make_opsetid("", 17)])
    return _model([helper.make_node("Block", ["x"], ["y"], name="call", domain="pkg.local")], [block])


def _flat() -> onnx.ModelProto:
    return _model([helper.make_node("Relu", ["x"], ["a"], name="r1"), helper.make_node("Celu", ["a"], ["b"], name="c1"),
                   helper.make_node("Relu", ["b"], ["y"], name="r2")])


def _copies(path) -> list[tuple[str, str, int | None]]:
    return sorted((c.kind.value, c.direction.value, c.bytes_per_run) for c in check(path, static=True).copies)


def test_the_prediction_places_the_body_of_a_local_function():
    placed = [(n.op_type, n.provider) for n in predict(_with_function(), "CUDAExecutionProvider").nodes]
    assert sorted(placed) == [("Celu", "CPUExecutionProvider"), ("Relu", "CUDAExecutionProvider"),
                              ("Relu", "CUDAExecutionProvider")]


def test_a_static_check_of_a_local_function_predicts_what_its_body_inlined_predicts(tmp_path):
    onnx.save(_with_function(), str(tmp_path / "fn.onnx"))
    onnx.save(_flat(), str(tmp_path / "flat.onnx"))
    assert _copies(tmp_path / "fn.onnx") == _copies(tmp_path / "flat.onnx") == [
        ("feed", "host_to_device", 64), ("fetch", "device_to_host", 64),
        ("memcpy_node", "device_to_host", 64), ("memcpy_node", "host_to_device", 64)]


def test_the_fallback_is_the_body_s_node_named_as_ort_names_it(tmp_path):
    """On the H200 (onnxruntime-gpu 1.31.1) the same model's fallback is Celu '_inlfunc_Block_c1', and the tensors
    it copies '_inlfunc_Block_a' and '_inlfunc_Block_b' (tests/fixtures/dynamo, fn_block)."""
    onnx.save(_with_function(), str(tmp_path / "fn.onnx"))
    report = check(tmp_path / "fn.onnx", static=True)
    assert [f.location for f in report.findings if f.slug == "cpu-fallback"] == ["_inlfunc_Block_c1"]
    assert sorted(c.tensor for c in report.copies if c.kind.value == "memcpy_node") == [
        "_inlfunc_Block_a", "_inlfunc_Block_b"]


def test_a_second_call_of_a_function_is_named_as_ort_names_it(tmp_path):
    """Measured on the H200 (onnxruntime-gpu 1.31.1, tests/fixtures/dynamo/fn_twice.cuda.json.gz): the second call's
    values are _inlfunc_Block_token_0_a and _inlfunc_Block_token_0_b."""
    import gzip
    import json

    from render_helpers import TESTS

    block = helper.make_function("pkg.local", "Block", ["i"], ["o"], BODY, [helper.make_opsetid("", 17)])
    twice = _model([helper.make_node("Block", ["x"], ["h"], name="call1", domain="pkg.local"),
                    helper.make_node("Block", ["h"], ["y"], name="call2", domain="pkg.local")], [block])
    onnx.save(twice, str(tmp_path / "twice.onnx"))
    measured = json.loads(gzip.decompress((TESTS / "fixtures" / "dynamo" / "fn_twice.cuda.json.gz").read_bytes()))
    assert measured["evidence"]["environment"]["ort_version"] == "1.31.1"
    assert sorted((c.kind.value, c.tensor, c.bytes_per_run) for c in check(tmp_path / "twice.onnx", static=True).copies) \
        == sorted((c["kind"], c["tensor"], c["bytes_per_run"]) for c in measured["copies"])


def _with_function_and_castlike() -> onnx.ModelProto:
    """A local function call, then CastLike: an ONNX function op ORT has no kernel for (it expands its body)."""
    block = helper.make_function("pkg.local", "Block", ["i"], ["o"], BODY, [helper.make_opsetid("", 17)])
    return _model([helper.make_node("Block", ["x"], ["h"], name="call", domain="pkg.local"),
                   helper.make_node("CastLike", ["h", "x"], ["y"], name="castlike")], [block])


def test_a_local_function_stays_inlined_when_an_onnx_function_op_is_expanded_too():
    """The expansion of CastLike once started again from the model as loaded, so the local function's call came
    back as a node of its own: predicted on CPU with "ORT would refuse the model"."""
    prediction = predict(_with_function_and_castlike(), "CUDAExecutionProvider")
    assert sorted((n.op_type, n.provider) for n in prediction.nodes) == [
        ("Cast", "CUDAExecutionProvider"), ("Celu", "CPUExecutionProvider"), ("Relu", "CUDAExecutionProvider"),
        ("Relu", "CUDAExecutionProvider")]


def test_a_static_check_sizes_the_inlined_body_s_tensors(tmp_path):
    """The static evidence's shapes are those of the model as the prediction placed it (inferred once, there)."""
    onnx.save(_with_function_and_castlike(), str(tmp_path / "fn_cast.onnx"))
    shapes = {v.name: v.shape for v in check(tmp_path / "fn_cast.onnx", static=True).evidence.value_infos}
    assert (shapes["_inlfunc_Block_a"], shapes["_inlfunc_Block_b"], shapes["h"]) == ([2, 8], [2, 8], [2, 8])


def test_the_prediction_of_a_local_function_and_castlike_is_what_the_h200_ran(tmp_path):
    """Measured on the H200 (onnxruntime-gpu 1.31.1, tests/fixtures/dynamo/fn_castlike.cuda.json)."""
    import json

    from render_helpers import TESTS

    measured = json.loads((TESTS / "fixtures" / "dynamo" / "fn_castlike.cuda.json").read_text(encoding="utf-8"))
    assert measured["ort_version"] == "1.31.1"
    onnx.save(_with_function_and_castlike(), str(tmp_path / "fn_cast.onnx"))
    report = check(tmp_path / "fn_cast.onnx", static=True)
    assert sorted([c.kind.value, c.direction.value, c.tensor, c.bytes_per_run] for c in report.copies) == \
        sorted(measured["copies"])
    assert sorted((n.op_type, n.provider) for n in report.evidence.nodes) == sorted(
        (op, provider) for _, op, provider in measured["nodes"] if not op.startswith("Memcpy"))
