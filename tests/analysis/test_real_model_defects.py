"""Defects seen on real exported models (issue 11), each reproduced on a tiny model built in code.

- a literal ``dim_value: -1`` in an output's declared shape (paddle2onnx writes them) must not reach generated code;
- with a census, the copies table and the verdict equal the census per run, unexplained transfers included;
- zero-byte fetches are no copies, and data-dependent sizes come from the run.
"""

from __future__ import annotations

import copy
import msgspec
import re

import onnx
import pytest

import models
from fixture_loader import recorded_report
from transfer_checks import add_transfer
from ortcopy_doctor.analysis.binding import make_plan, render_code, render_cuda_graph_code
from ortcopy_doctor.collect.code_check import quiet as _quiet, run_generated


def _minus_one_conv_net() -> onnx.ModelProto:
    """conv_net with its output declared as [-1, 10] (literal dim_value -1, as paddle2onnx writes)."""
    model = models.conv_net()
    dim = model.graph.output[0].type.tensor_type.shape.dim[0]
    dim.Clear()
    dim.dim_value = -1
    return model


def _negative_dims(code: str) -> list[str]:
    return re.findall(r"ortvalue_from_shape_and_type\(\[[^\]]*-\d", code)


def test_cpu_check_of_a_minus_one_output_runs_its_generated_code(tmp_path):
    from ortcopy_doctor import check

    path = tmp_path / "minus_one.onnx"
    onnx.save(_minus_one_conv_net(), str(path))
    report = check(path, dims={"batch": 2}, timed_runs=1)
    assert report.evidence.model.outputs[0].shape == [-1, 10]
    assert not _negative_dims(report.prediction.binding.code)  # the code the report shows (CUDA did not load here)
    code = render_code(report.evidence, report.binding)  # the generator on this CPU session's plan, run here
    assert not _negative_dims(code)
    with _quiet():
        namespace, _, _ = run_generated(code, "plan", None)
    assert [v.shape() for v in namespace["infer"]()] == [[2, 10]]


def test_device_binding_code_treats_a_minus_one_dim_as_dynamic(tmp_path):
    """Evidence recorded on the H200 (conv_net, batch 2) with the output declared [-1, 10]: the generated code
    pre-allocates the shape the profiled run produced, never [-1, 10]; it runs (on CPU OrtValues)."""
    evidence = copy.deepcopy(recorded_report("conv_net", tmp_path).evidence)
    path = tmp_path / "minus_one.onnx"
    onnx.save(_minus_one_conv_net(), str(path))
    evidence = msgspec.structs.replace(evidence, model=msgspec.structs.replace(evidence.model, path=str(path)))
    evidence.model.outputs[0] = msgspec.structs.replace(evidence.model.outputs[0], shape=[-1, 10])
    plan = make_plan(evidence)
    (logits,) = plan.outputs
    assert logits.shape == [2, 10] and logits.preallocate
    assert not _negative_dims(plan.code)
    assert not _negative_dims(render_cuda_graph_code(evidence, plan))
    plan = msgspec.structs.replace(plan, device_type="cpu")
    with _quiet():
        namespace, _, _ = run_generated(render_code(evidence, plan), "plan", None)
    assert [v.shape() for v in namespace["infer"]()] == [[2, 10]]


def test_minus_one_dim_without_profile_shape_is_bound_by_ort(tmp_path):
    """No profiled shape for the output: ``bind_output(name, device)`` and ORT allocates; no negative size."""
    evidence = copy.deepcopy(recorded_report("conv_net", tmp_path).evidence)
    path = tmp_path / "minus_one.onnx"
    onnx.save(_minus_one_conv_net(), str(path))
    evidence = msgspec.structs.replace(evidence, model=msgspec.structs.replace(evidence.model, path=str(path)))
    evidence.model.outputs[0] = msgspec.structs.replace(evidence.model.outputs[0], shape=[-1, 10])
    evidence = msgspec.structs.replace(evidence, node_events=[])
    plan = make_plan(evidence)
    (logits,) = plan.outputs
    assert not logits.preallocate and logits.shape == [None, 10]
    assert "binding.bind_output('logits', 'cuda', 0)" in plan.code
    assert not _negative_dims(plan.code)
    plan = msgspec.structs.replace(plan, device_type="cpu")
    with _quiet():
        namespace, _, _ = run_generated(render_code(evidence, plan), "plan", None)
    assert [v.shape() for v in namespace["infer"]()] == [[2, 10]]


# --- with a census, the table and the verdict equal the census per run -------------------------------------------

def _traced(name: str = "data_dependent_shape"):
    from test_transfers import traced_evidence

    return traced_evidence(name)


def _census_per_run(report) -> tuple[int, int]:
    runs = [r for r in report.census.runs]
    assert len({(r.host_device_count, r.host_device_bytes) for r in runs}) == 1
    return runs[0].host_device_count, runs[0].host_device_bytes


def _rename(evidence, node: str, op_type: str, input_shape: dict | None = None) -> None:
    evidence.nodes[:] = [msgspec.structs.replace(n, op_type=op_type) if n.name == node else n for n in evidence.nodes]
    evidence.node_events[:] = [
        msgspec.structs.replace(e, op_type=op_type, **({} if input_shape is None else {"input_shapes": [input_shape]}))
        if e.name == node else e for e in evidence.node_events]


def test_an_unexplained_transfer_is_a_labelled_row_and_counted_in_the_verdict():
    from ortcopy_doctor.model.vocabulary import IN_KERNEL
    from ortcopy_doctor.report.core import analyse

    evidence = _traced()
    add_transfer(evidence, "relu", "host_to_device", 8)  # Relu has no rule: nothing explains it
    report = analyse(evidence)
    count, nbytes = _census_per_run(report)
    assert (report.summary.copies_per_run, report.summary.bytes_per_run) == (count, nbytes) == (4, 2048 + 4 + 3920 + 8)
    rows = [c for c in report.copies if c.kind == "unexplained"]
    assert [(r.node, r.direction, r.count_per_run, r.bytes_per_run) for r in rows] == [("relu", "host_to_device", 1, 8)]
    assert "in-kernel (unknown op Relu)" in rows[0].cause
    assert "1 unexplained" in report.verdict and report.verdict.startswith("4 host↔device copies per run")
    assert [c.node for c in report.copies if c.kind == IN_KERNEL] == ["nonzero"]
    assert ("OCD010", "relu") in [(f.rule, f.location) for f in report.findings]


def test_non_max_suppression_transfers_both_ways_are_explained_by_its_rule():
    from ortcopy_doctor.model.vocabulary import IN_KERNEL
    from ortcopy_doctor.report.core import analyse

    evidence = _traced()
    _rename(evidence, "relu", "NonMaxSuppression")
    add_transfer(evidence, "relu", "device_to_host", 4)  # the number selected, read back (pinned)
    for _ in range(4):  # the concat tables, uploaded through pinned buffers
        add_transfer(evidence, "relu", "host_to_device", 8)
    report = analyse(evidence)
    count, nbytes = _census_per_run(report)
    assert (report.summary.copies_per_run, report.summary.bytes_per_run) == (count, nbytes)
    nms = sorted((c.direction, c.count_per_run, c.bytes_per_run, c.confirmed) for c in report.copies
                 if c.kind == IN_KERNEL and c.node == "relu")
    assert nms == [("device_to_host", 1, 4, True), ("host_to_device", 4, 32, True)]
    assert not [c for c in report.copies if c.kind == "unexplained"]
    assert not [f for f in report.findings if f.rule == "OCD010"]


def test_lstm_uploads_its_sequence_lengths_every_run():
    """cuDNN RNN kernels upload one int32 sequence length per batch entry (4 B pinned for batch 1 on the H200)."""
    from ortcopy_doctor.model.vocabulary import IN_KERNEL
    from ortcopy_doctor.report.core import analyse

    evidence = _traced()
    _rename(evidence, "relu", "LSTM", {"float": [10, 3, 16]})  # X: [seq 10, batch 3, input 16]
    add_transfer(evidence, "relu", "host_to_device", 12)
    report = analyse(evidence)
    count, nbytes = _census_per_run(report)
    assert (report.summary.copies_per_run, report.summary.bytes_per_run) == (count, nbytes)
    lstm = [(c.direction, c.bytes_per_run, c.confirmed) for c in report.copies if c.kind == IN_KERNEL and c.node == "relu"]
    assert lstm == [("host_to_device", 12, True)]
    assert not [f for f in report.findings if f.rule == "OCD010"]


# --- zero-byte fetches are no copies; data-dependent sizes come from the run ---------------------------------------

def _drop_records(evidence, direction: str, nbytes: int) -> None:
    evidence.census.records[:] = [r for r in evidence.census.records if (r.direction, r.bytes) != (direction, nbytes)]


def test_a_fetch_of_an_empty_tensor_is_no_copy():
    from ortcopy_doctor.model.vocabulary import FETCH
    from ortcopy_doctor.report.core import analyse

    evidence = _traced()
    # NonZero found nothing: its output is [2, 0]
    evidence.node_events[:] = [msgspec.structs.replace(e, output_shapes=[{"int64": [2, 0]}]) if e.name == "nonzero" else e
                               for e in evidence.node_events]
    _drop_records(evidence, "device_to_host", 3920)  # and ORT copied nothing back
    report = analyse(evidence)
    assert not [c for c in report.copies if c.kind == FETCH]
    count, nbytes = _census_per_run(report)
    assert (report.summary.copies_per_run, report.summary.bytes_per_run) == (count, nbytes) == (2, 2048 + 4)
    assert "fetch" not in report.verdict
    evidence = msgspec.structs.replace(evidence, census=None)  # without a census too
    assert not [c for c in analyse(evidence).copies if c.kind == FETCH]


def test_non_zero_over_an_empty_input_makes_no_transfer_and_no_failed_check():
    from ortcopy_doctor.model.vocabulary import IN_KERNEL
    from ortcopy_doctor.report.core import analyse

    evidence = _traced()
    evidence.node_events[:] = [msgspec.structs.replace(e, input_shapes=[{"float": [2, 0]}]) if e.name == "nonzero" else e
                               for e in evidence.node_events]
    _drop_records(evidence, "device_to_host", 4)  # the kernel returned before reading a count back
    report = analyse(evidence)
    assert not [c for c in report.copies if c.kind == IN_KERNEL]
    assert not [c for c in report.census.checks if not c.ok], [c.detail for c in report.census.checks if not c.ok]
    count, nbytes = _census_per_run(report)
    assert (report.summary.copies_per_run, report.summary.bytes_per_run) == (count, nbytes)


# --- a declared output dim named like an input dim of another size (roberta_tiny on the H200) --------------------

def test_an_output_declared_with_a_wrong_dim_name_is_allocated_by_ort(tmp_path):
    """The exporter declared roberta's logits [batch, seq] while they are [batch, 2]: pre-allocating [1, 16] made
    run_with_iobinding fail ("Got invalid dimensions for output: logits ... Got: 16 Expected: 2"). Reproduced on
    conv_net with the output declared [batch, side] where the input's dim ``side`` is 32 and the output's is 10."""
    evidence = copy.deepcopy(recorded_report("conv_net", tmp_path).evidence)
    model = models.conv_net()
    model.graph.input[0].type.tensor_type.shape.dim[2].Clear()
    model.graph.input[0].type.tensor_type.shape.dim[2].dim_param = "side"
    model.graph.output[0].type.tensor_type.shape.dim[1].Clear()
    model.graph.output[0].type.tensor_type.shape.dim[1].dim_param = "side"
    path = tmp_path / "wrong_dim_name.onnx"
    onnx.save(model, str(path))
    evidence = msgspec.structs.replace(evidence, model=msgspec.structs.replace(evidence.model, path=str(path)))
    evidence.model.inputs[0] = msgspec.structs.replace(evidence.model.inputs[0], shape=["batch", 3, "side", 32])
    evidence.model.outputs[0] = msgspec.structs.replace(evidence.model.outputs[0], shape=["batch", "side"])
    plan = make_plan(evidence)
    (logits,) = plan.outputs
    assert not logits.preallocate and "[2, 10]" in logits.reason
    assert "ortvalue_from_shape_and_type([2, 32]" not in plan.code
    plan = msgspec.structs.replace(plan, device_type="cpu")
    with _quiet():
        namespace, _, _ = run_generated(render_code(evidence, plan), "plan", None)
    assert [v.shape() for v in namespace["infer"]()] == [[2, 10]]


def test_split_with_unequal_sizes_uploads_its_tables():
    """retinanet's head on the H200: a Split fused from Slices (unequal sizes) uploads output pointers, sizes, running
    sums (24 B each for 3 outputs) and the per-element output index (8 B each) through pinned CudaAsyncBuffers."""
    from ortcopy_doctor.model.vocabulary import IN_KERNEL
    from ortcopy_doctor.report.core import analyse

    evidence = _traced()
    _rename(evidence, "relu", "Split")
    for nbytes in (24, 24, 24, 10368):
        add_transfer(evidence, "relu", "host_to_device", nbytes)
    report = analyse(evidence)
    count, nbytes = _census_per_run(report)
    assert (report.summary.copies_per_run, report.summary.bytes_per_run) == (count, nbytes)
    split = [(c.direction, c.count_per_run, c.bytes_per_run) for c in report.copies if c.kind == IN_KERNEL and c.node == "relu"]
    assert split == [("host_to_device", 4, 10440)]
    assert not [c for c in report.copies if c.kind == "unexplained"]


def test_concat_of_more_than_32_inputs_uploads_its_input_pointers():
    """ssdlite's 90-input Concat on the H200: 720 B of input pointers, host-to-device from pinned memory."""
    from ortcopy_doctor.model.vocabulary import IN_KERNEL
    from ortcopy_doctor.report.core import analyse

    evidence = _traced()
    _rename(evidence, "relu", "Concat")
    add_transfer(evidence, "relu", "host_to_device", 720)
    report = analyse(evidence)
    concat = [(c.direction, c.count_per_run, c.bytes_per_run) for c in report.copies if c.kind == IN_KERNEL and c.node == "relu"]
    assert concat == [("host_to_device", 1, 720)]
    assert not [c for c in report.copies if c.kind == "unexplained"]


# --- unnamed nodes keep their own provider (ml_tree_matmul on the H200) ------------------------------------------

def _unnamed_two_nodes() -> onnx.ModelProto:
    from onnx import TensorProto, helper

    graph = helper.make_graph([helper.make_node("Relu", ["X"], ["a"]), helper.make_node("Neg", ["a"], ["Y"])], "g",
                              [helper.make_tensor_value_info("X", TensorProto.FLOAT, [2])],
                              [helper.make_tensor_value_info("Y", TensorProto.FLOAT, [2])])
    return helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17)], ir_version=9)


def test_the_assignment_of_unnamed_nodes_is_kept_per_node():
    """skl2onnx/onnx.helper leave node names empty: ml_tree_matmul's TreeEnsembleRegressor (CPU) and MatMul (CUDA)
    both were looked up as "" and the MatMul was listed on CPU, so its fetch was 'unexplained'. Each unnamed node
    now gets the provider ORT assigned to it (by op type and rank)."""
    import onnxruntime as ort

    from ortcopy_doctor.collect import ortlog
    from ortcopy_doctor.collect.assignment import ep_assignment as _assignment
    from ortcopy_doctor.collect.check import _runtime_nodes

    if not hasattr(ort.InferenceSession, "get_provider_graph_assignment_info"):
        pytest.skip(f"onnxruntime {ort.__version__} has no placement data (get_provider_graph_assignment_info, "
                    "1.26 and later): placement comes from its verbose log")

    model = _unnamed_two_nodes()
    so = ort.SessionOptions()
    so.add_session_config_entry("session.record_ep_graph_assignment_info", "1")
    so.graph_optimization_level = ort.GraphOptimizationLevel.ORT_DISABLE_ALL
    session = ort.InferenceSession(model.SerializeToString(), so, providers=["CPUExecutionProvider"])
    found = _assignment(session)
    assert found is not None and found[("", "Relu", 0)] == found[("", "Neg", 0)] == "CPUExecutionProvider"
    # what the H200 reported for ml_tree_matmul, in the same form: the nodes on different providers
    assignment = {"": "CUDAExecutionProvider", ("", "Relu", 0): "CPUExecutionProvider",
                  ("", "Neg", 0): "CUDAExecutionProvider"}
    nodes = _runtime_nodes(model, assignment, ortlog.LogFacts(), ["CUDAExecutionProvider", "CPUExecutionProvider"])
    assert [(n.op_type, n.provider) for n in nodes] == [("Relu", "CPUExecutionProvider"), ("Neg", "CUDAExecutionProvider")]
