"""Dims that are expressions of symbols (torch's dynamo exporter writes `past + 1`, `4*batch`, `Max(1, s0)`):
sized from the symbols the inputs fix, exactly, or not at all."""

from __future__ import annotations

import onnx
import pytest
from onnx import TensorProto, helper

from ortcopy_doctor import check
from ortcopy_doctor.analysis.dimexpr import SymbolSizes, evaluate

SIZES = {"batch": 2, "past": 8, "s0": 5}


@pytest.mark.parametrize(("text", "size"), [
    ("past + 1", 9), ("4*batch", 8), ("2*batch + past - 1", 11), ("Max(1, past)", 8), ("Min(s0, past)", 5),
    ("past//3", 2), ("floor(past/3)", 2), ("ceiling(past/3)", 3), ("past % 3", 2), ("batch**3", 8),
    ("(past + 1)*(batch)", 18),
])
def test_an_expression_of_known_symbols_has_its_size(text, size):
    assert evaluate(text, SIZES) == size


@pytest.mark.parametrize("text", [
    "past + unknown", "past/3", "batch - 3", "past.bit_length()", "__import__('os')", "past if batch else 1",
    "past + 1.5", "", "past +",
])
def test_what_is_no_size_has_none(text):
    assert evaluate(text, SIZES) is None


def test_symbol_sizes_answer_for_an_expression_as_for_a_symbol():
    sizes = SymbolSizes(SIZES)
    assert ("past + 1" in sizes, sizes["past + 1"], sizes.get("past + 1"), sizes.get("nope + 1", "dflt")) == (
        True, 9, 9, "dflt")
    assert "past-unknown" not in sizes and sizes.get("batch") == 2


def _kv_concat() -> onnx.ModelProto:
    node = helper.make_node("Concat", ["past_key", "new_key"], ["present_key"], name="cat", axis=2)
    graph = helper.make_graph(
        [node], "g",
        [helper.make_tensor_value_info("past_key", TensorProto.FLOAT, ["batch", 4, "past", 16]),
         helper.make_tensor_value_info("new_key", TensorProto.FLOAT, ["batch", 4, 1, 16])],
        [helper.make_tensor_value_info("present_key", TensorProto.FLOAT, ["batch", 4, "past + 1", 16])])
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17)])
    model.ir_version = 8
    return model


def test_an_output_declared_with_an_expression_has_its_size_in_the_copies(tmp_path):
    """It was `unknown size`, and --max-transfer-bytes did not count it."""
    onnx.save(_kv_concat(), str(tmp_path / "kv.onnx"))
    report = check(tmp_path / "kv.onnx", static=True, dims={"batch": 2, "past": 8})
    (fetch,) = [c for c in report.copies if c.tensor == "present_key"]
    assert (fetch.shape, fetch.bytes_per_run) == ([2, 4, 9, 16], 2 * 4 * 9 * 16 * 4)


def test_an_output_declared_with_an_expression_is_preallocated_by_the_binding_code(tmp_path):
    onnx.save(_kv_concat(), str(tmp_path / "kv.onnx"))
    report = check(tmp_path / "kv.onnx", static=True, dims={"batch": 2, "past": 8})
    (entry,) = [e for e in report.binding.entries if e.name == "present_key"]
    assert (entry.shape, entry.preallocate) == ([2, 4, 9, 16], True)
