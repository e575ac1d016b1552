"""`--value NAME=V` for an input whose name holds "=": split where the model's input names say."""

from __future__ import annotations

import json

import onnx
from onnx import TensorProto, helper

from ortcopy_doctor.collect.feeds import parse_values, value_names
from ortcopy_doctor.model.evidence import ValueInfo
from schema_helpers import run_cli


def _inputs(*names: str) -> list[ValueInfo]:
    return [ValueInfo(n, "tensor", "int64", [], "tensor(int64)") for n in names]


def test_a_value_for_an_input_named_with_an_equals_sign_goes_to_that_input():
    assert value_names(parse_values(["a=b=3"]), _inputs("a=b", "x")) == {"a=b": "3"}


def test_an_input_named_by_the_first_part_keeps_the_first_split():
    assert value_names(parse_values(["a=b=3"]), _inputs("a", "a=b")) == {"a": "b=3"}


def test_the_longest_input_name_that_fits_wins():
    assert value_names(parse_values(["k=v=w=1"]), _inputs("k=v", "k=v=w")) == {"k=v=w": "1"}


def test_a_name_that_fits_no_input_is_left_for_check_names_to_refuse():
    assert value_names(parse_values(["nope=1"]), _inputs("x")) == {"nope": "1"}


def test_check_takes_a_value_for_an_input_named_with_an_equals_sign(tmp_path):
    graph = helper.make_graph([helper.make_node("Identity", ["a=b"], ["y"])], "g",
                              [helper.make_tensor_value_info("a=b", TensorProto.INT64, [])],
                              [helper.make_tensor_value_info("y", TensorProto.INT64, [])])
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17)])
    model.ir_version = 8
    onnx.save(model, str(tmp_path / "eq.onnx"))
    result = run_cli(["check", "eq.onnx", "--provider", "cpu", "--value", "a=b=3", "--no-html", "--json", "-"],
                     tmp_path)
    assert result.returncode == 0, result.stderr
    (feed,) = json.loads(result.stdout)["evidence"]["feeds"]
    assert (feed["name"], feed["source"]) == ("a=b", "value")
