"""Nodes the model leaves unnamed are named as ORT's profiler names them (analysis/node_names.py): checked against
the profiles ORT wrote on the H200 (tests/fixtures/corpus) and here (the CPU EP), and on tiny graphs."""

from __future__ import annotations

import json
from pathlib import Path

import onnx
from onnx import TensorProto, helper

import models
from ortcopy_doctor.api import check
from ortcopy_doctor.collect.session import CheckOptions
from fixture_loader import CORPUS_FIXTURES, corpus_check


def test_an_unnamed_node_of_a_recorded_gpu_check_takes_the_name_in_its_profile():
    raw, report = corpus_check("ml_linear_zipmap")  # skl2onnx: every node unnamed
    assert [n["name"] for n in raw["evidence"]["nodes"]] == ["", "", ""]
    assert [n.name for n in report.evidence.nodes] == ["Scaler_0", "LinearClassifier_1", "ZipMap_2"]
    assert {n.name for n in report.evidence.nodes} == {e.name for e in report.evidence.node_events}


def test_every_name_given_in_the_recorded_corpus_is_one_its_profile_has():
    given = 0
    for path in sorted(CORPUS_FIXTURES.glob("*.json.gz")):
        name = path.name.split(".")[0]
        if name.startswith("_"):
            continue
        raw, report = corpus_check(name)
        events = {e.name for e in report.evidence.node_events}
        for before, after in zip(raw["evidence"]["nodes"], report.evidence.nodes):
            if not before["name"] and after.name:
                given += 1
                assert after.name in events, (name, after.name)
    assert given == 7  # the three skl2onnx pipelines' nodes


def test_a_finding_at_an_unnamed_node_is_located_by_that_name():
    _, report = corpus_check("ml_linear_zipmap")
    assert [f.location for f in report.findings if f.rule == "OCD002"] == ["Scaler_0", "LinearClassifier_1",
                                                                           "ZipMap_2"]


def _unnamed_chain(path: Path, names: tuple[str, str, str] = ("", "", "")) -> Path:
    nodes = [helper.make_node("Relu", ["x"], ["a"], name=names[0]), helper.make_node("Cosh", ["a"], ["b"], name=names[1]),
             helper.make_node("Relu", ["b"], ["y"], name=names[2])]
    onnx.save(models._model(nodes, [helper.make_tensor_value_info("x", TensorProto.FLOAT, [2])],
                            [helper.make_tensor_value_info("y", TensorProto.FLOAT, [2])]), str(path))
    return path


def test_a_cpu_check_names_unnamed_nodes_as_its_own_profile_does(tmp_path):
    report = check(_unnamed_chain(tmp_path / "m.onnx"), CheckOptions(providers=["CPUExecutionProvider"],
                                                                     warmup_runs=0, profiled_runs=1, timed_runs=1))
    assert [n.name for n in report.evidence.nodes] == ["Relu_0", "Cosh_1", "Relu_2"]
    assert {e.name for e in report.evidence.node_events} == {"Relu_0", "Cosh_1", "Relu_2"}


def test_a_predicted_fallback_at_an_unnamed_node_is_located_by_its_profiler_name(tmp_path):
    report = check(_unnamed_chain(tmp_path / "m.onnx"), CheckOptions(static=True))
    fallback = [f for f in report.findings if f.rule == "OCD002"]
    assert [(f.location, f.message.split(":")[0]) for f in fallback] == [("Cosh_1", "Cosh 'Cosh_1' runs on CPU")]


def test_a_name_another_node_has_is_not_given(tmp_path):
    report = check(_unnamed_chain(tmp_path / "m.onnx", ("", "Relu_0", "")), CheckOptions(static=True))
    assert [n.name for n in report.evidence.nodes] == ["", "Relu_0", "Relu_2"]


def _if_model(path: Path, threshold: float) -> Path:
    """ReduceSum(x) > threshold, then If: Neg in the then branch, Abs in the else branch; no node named."""
    then = helper.make_graph([helper.make_node("Neg", ["x"], ["t"])], "then", [],
                             [helper.make_tensor_value_info("t", TensorProto.FLOAT, [2])])
    other = helper.make_graph([helper.make_node("Abs", ["x"], ["e"])], "else", [],
                              [helper.make_tensor_value_info("e", TensorProto.FLOAT, [2])])
    nodes = [helper.make_node("ReduceSum", ["x"], ["s"], keepdims=0),
             helper.make_node("Greater", ["s", "threshold"], ["c"]),
             helper.make_node("If", ["c"], ["y"], then_branch=then, else_branch=other)]
    model = models._model(nodes, [helper.make_tensor_value_info("x", TensorProto.FLOAT, [2])],
                          [helper.make_tensor_value_info("y", TensorProto.FLOAT, [2])],
                          [helper.make_tensor("threshold", TensorProto.FLOAT, [], [threshold])])
    onnx.save(model, str(path))
    return path


def test_a_subgraph_node_is_counted_within_its_own_graph(tmp_path):
    _if_model(tmp_path / "if.onnx", 0.0)
    report = check(tmp_path / "if.onnx", CheckOptions(static=True))
    assert sorted((n.graph, n.name) for n in report.evidence.nodes) == [
        ("", "Greater_1"), ("", "If_2"), ("", "ReduceSum_0"), ("If.else_branch", "Abs_0"), ("If.then_branch", "Neg_0")]


def test_a_measured_subgraph_node_takes_the_name_in_its_profile(tmp_path):
    _if_model(tmp_path / "if.onnx", 1e30)  # the else branch runs
    report = check(tmp_path / "if.onnx", CheckOptions(providers=["CPUExecutionProvider"], warmup_runs=0,
                                                      profiled_runs=1, timed_runs=1))
    assert {e.name for e in report.evidence.node_events} == {"ReduceSum_0", "Greater_1", "If_2", "Abs_0"}
    assert {e.name for e in report.evidence.node_events} <= {n.name for n in report.evidence.nodes}


def _function_twice(path: Path) -> Path:
    """A local function with unnamed body nodes (Relu -> Neg), called on x [2] and on Concat(y, y) [4]."""
    body = [helper.make_node("Relu", ["a"], ["t"]), helper.make_node("Neg", ["t"], ["b"])]
    fn = helper.make_function("local", "Fn", ["a"], ["b"], body, [helper.make_opsetid("", 17)])
    nodes = [helper.make_node("Fn", ["x"], ["y"], domain="local", name="call1"),
             helper.make_node("Concat", ["y", "y"], ["w"], name="cat", axis=0),
             helper.make_node("Fn", ["w"], ["z"], domain="local", name="call2")]
    graph = helper.make_graph(nodes, "g", [helper.make_tensor_value_info("x", TensorProto.FLOAT, [2])],
                              [helper.make_tensor_value_info("z", TensorProto.FLOAT, [4])])
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17), helper.make_opsetid("local", 1)],
                              functions=[fn])
    model.ir_version = 8
    onnx.save(model, str(path))
    return path


def test_an_inlined_function_bodys_unnamed_nodes_take_their_profile_names(tmp_path):
    report = check(_function_twice(tmp_path / "fn.onnx"), CheckOptions(providers=["CPUExecutionProvider"],
                                                                       warmup_runs=0, profiled_runs=1, timed_runs=1))
    events = {e.name: e for e in report.evidence.node_events}
    assert sorted(n.name for n in report.evidence.nodes) == sorted(events)
    # each name is the event of that node: the first call's Relu makes 2 values, the second's 4
    relu = {n.inputs[0]: n.name for n in report.evidence.nodes if n.op_type == "Relu"}
    assert [events[relu["x"]].output_shapes, events[relu["w"]].output_shapes] == [[{"float": [2]}], [{"float": [4]}]]


def test_the_prediction_names_an_inlined_bodys_unnamed_nodes_as_the_profile_does(tmp_path):
    path = _function_twice(tmp_path / "fn.onnx")
    measured = check(path, CheckOptions(providers=["CPUExecutionProvider"], warmup_runs=0, profiled_runs=1,
                                        timed_runs=1))
    predicted = check(path, CheckOptions(static=True))
    assert [n.name for n in predicted.evidence.nodes] == ["Relu_3", "Neg_4", "cat", "Relu_5", "Neg_6"]
    assert [n.name for n in predicted.evidence.nodes] == [n.name for n in measured.evidence.nodes]


def test_findings_at_once_unnamed_nodes_get_one_sarif_fingerprint_each():
    from ortcopy_doctor.render.sarif import sarif_log

    _, report = corpus_check("ml_linear_zipmap")  # three CPU-fallback findings, at nodes the model leaves unnamed
    results = [r for r in sarif_log(report)["runs"][0]["results"] if r["ruleId"] == "OCD002"]
    assert len({r["partialFingerprints"]["ortcopyDoctorFinding/v1"] for r in results}) == len(results) == 3
