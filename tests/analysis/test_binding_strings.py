"""A model with a string input: onnxruntime binds no string tensor, so the generated code calls run() instead.

Seen here with onnxruntime 1.31.1: ``bind_cpu_input`` refuses a string array ("Only binding non-string Tensors is
currently supported"), ``OrtValue.ortvalue_from_numpy`` refuses it too, and ``run_with_iobinding`` needs every input
bound; ``run()`` takes the string array as numpy beside OrtValues.
"""

from __future__ import annotations

import ast

import numpy as np
import onnx
import onnxruntime as ort
import pytest
from onnx import TensorProto, helper

from ortcopy_doctor.analysis.binding import FLAVORS, UNBOUND, render_code
from ortcopy_doctor.api import check
from ortcopy_doctor.collect.session import CheckOptions


def _strings_and_floats() -> onnx.ModelProto:
    graph = helper.make_graph(
        [helper.make_node("Identity", ["s"], ["s_out"]), helper.make_node("Relu", ["x"], ["y"])], "strings",
        [helper.make_tensor_value_info("s", TensorProto.STRING, [2, 3]),
         helper.make_tensor_value_info("x", TensorProto.FLOAT, [2, 3])],
        [helper.make_tensor_value_info("s_out", TensorProto.STRING, [2, 3]),
         helper.make_tensor_value_info("y", TensorProto.FLOAT, [2, 3])])
    return helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17)], ir_version=9)


@pytest.fixture(scope="module")
def report(tmp_path_factory):
    path = tmp_path_factory.mktemp("strings") / "strings.onnx"
    onnx.save(_strings_and_floats(), str(path))
    return check(path, CheckOptions(providers=["CPUExecutionProvider"], measure_binding=False))


def test_onnxruntime_binds_no_string_tensor():
    """What the plan relies on, measured with the installed onnxruntime."""
    session = ort.InferenceSession(_strings_and_floats().SerializeToString(), providers=["CPUExecutionProvider"])
    with pytest.raises(RuntimeError, match="Only binding non-string Tensors is currently supported"):
        session.io_binding().bind_cpu_input("s", np.full((2, 3), "a", dtype=object))


def test_a_string_input_is_left_unbound_with_the_reason(report):
    entry = report.binding.entry("s", "input")
    assert (entry.place, entry.reason) == (
        UNBOUND, "a string tensor, which onnxruntime does not bind: run() takes it as numpy")


@pytest.mark.parametrize("flavor", FLAVORS)
def test_the_code_of_every_flavor_binds_no_string_and_calls_run(report, flavor):
    tree = ast.parse(render_code(report.evidence, report.binding, flavor))
    calls = [(n.func.attr, n.args[0].value if n.args and isinstance(n.args[0], ast.Constant) else None)
             for n in ast.walk(tree) if isinstance(n, ast.Call) and isinstance(n.func, ast.Attribute)
             and n.func.attr.startswith(("bind_", "run"))]
    assert [c for c in calls if c[1] == "s" or c[0] == "run_with_iobinding"] == []
    assert ("run", None) in calls


def test_the_code_runs_as_printed_and_gives_what_run_gives(report):
    namespace: dict[str, object] = {"__name__": "generated"}
    code = render_code(report.evidence, report.binding)  # a CPU session's report shows none; the generator runs here
    exec(compile(code, "<binding code>", "exec"), namespace)  # noqa: S102 - generated code under test
    session = ort.InferenceSession(str(report.evidence.model.path), providers=["CPUExecutionProvider"])
    expected = session.run(None, {"s": namespace["s"], "x": namespace["x"]})
    outputs = namespace["outputs"]
    assert [o.tolist() for o in outputs] == [e.tolist() for e in expected]
