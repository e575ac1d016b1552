"""onnxruntime behaviour that depends on its version (ortcopy_doctor.knowledge.ort_versions), and what check makes of
it: the profile's node names, unescaped up to onnxruntime 1.30."""

from __future__ import annotations

import pytest
from onnx import TensorProto, helper

from ortcopy_doctor.analysis.profile import profile_names_raw
from ortcopy_doctor.knowledge.model_file import walk_nodes
from ortcopy_doctor.knowledge.ort_versions import has_from_dlpack, profile_names_escaped


@pytest.mark.parametrize("version, escaped", [
    ("1.20.1", False), ("1.30.0", False), ("1.31.0", True), ("1.31.1", True), ("1.32.0.dev20261101", True),
    ("", True), ("custom", True)])
def test_profile_names_are_escaped_from_onnxruntime_1_31(version, escaped):
    assert profile_names_escaped(version) is escaped


@pytest.mark.parametrize("version, has", [("1.25.0", False), ("1.26.0", True), ("1.31.1+cu13", True), ("", False)])
def test_from_dlpack_is_public_from_onnxruntime_1_26(version, has):
    assert has_from_dlpack(version) is has


def _model(name: str):
    then = helper.make_graph([helper.make_node("Relu", ["x"], ["t"], name=name)], "then", [],
                             [helper.make_tensor_value_info("t", TensorProto.FLOAT, [2])])
    other = helper.make_graph([helper.make_node("Neg", ["x"], ["e"], name="neg")], "else", [],
                              [helper.make_tensor_value_info("e", TensorProto.FLOAT, [2])])
    node = helper.make_node("If", ["c"], ["y"], name="if", then_branch=then, else_branch=other)
    graph = helper.make_graph([node], "g", [helper.make_tensor_value_info("c", TensorProto.BOOL, []),
                                            helper.make_tensor_value_info("x", TensorProto.FLOAT, [2])],
                              [helper.make_tensor_value_info("y", TensorProto.FLOAT, [2])])
    return helper.make_model(graph)


def _profile_names_raw(version: str, model) -> bool:
    return profile_names_raw(version, [node.name for _, node in walk_nodes(model.graph)])


@pytest.mark.parametrize("name", ['a "quoted" name', "back\\slash", "new\nline", "tab\tbed"])
def test_a_node_name_json_escapes_is_read_raw_from_an_onnxruntime_1_30_profile(name):
    assert _profile_names_raw("1.30.0", _model(name)) is True  # the name is in a subgraph


def test_plain_node_names_keep_the_fast_profile_reader_on_onnxruntime_1_30():
    assert _profile_names_raw("1.30.0", _model("/model/layer.0/Add_1 [x]: 🙂")) is False


def test_an_onnxruntime_that_escapes_names_keeps_the_fast_profile_reader():
    assert _profile_names_raw("1.31.1", _model('a "quoted" name')) is False


def test_a_device_output_onnxruntime_1_27_cannot_return_as_numpy_is_an_environment_problem(tmp_path):
    """The error onnxruntime-gpu 1.27.0's run() raised on the H200 for tests/models.py's sequence_output model (its
    sequence output produced by the CUDA EP; 1.31.1 returns it): not the inputs' fault, so not "give real values"."""
    from ortcopy_doctor.collect.check import classify_ort_error
    from ortcopy_doctor.model.errors import EnvironmentProblem

    recorded = RuntimeError("GetPyObjFromTensor: Either data transfer manager or a function to copy data to the host "
                            "is needed to convert non-CPU tensor to numpy array")
    error = classify_ort_error(recorded, tmp_path / "seq.onnx", "run")
    assert isinstance(error, EnvironmentProblem)
    assert str(error).endswith("upgrade onnxruntime to check this model, or use --static")


@pytest.mark.parametrize("version, skipped", [("1.27.0", True), ("1.30.0", True), ("1.31.1", False), ("", False)])
def test_the_gpu_tests_skip_the_device_sequence_output_where_onnxruntime_cannot_return_it(version, skipped):
    from ort_limits import cannot_run

    assert bool(cannot_run("sequence_output", version)) is skipped
    assert cannot_run("conv_net", version) == ""


def test_an_unknown_graph_on_onnxruntime_1_30_reads_names_raw():
    """watch of a session whose ORT graph it could not get: the version alone decides."""
    assert (profile_names_raw("1.30.0", None), profile_names_raw("1.31.1", None)) == (True, False)
