"""Defects seen on real exported models (issue 11), each reproduced on a tiny model built in code.

- a literal ``dim_value: -1`` in an output's declared shape (paddle2onnx writes them) must not reach generated code;
- with a census, the copies table and the verdict equal the census per run, unexplained transfers included;
- zero-byte fetches are no copies, and data-dependent sizes come from the run.
"""

from __future__ import annotations

import copy
import re
from pathlib import Path

import onnx

import models
from fixture_loader import recorded_report
from ortcopy_doctor.binding import make_plan, render_code, render_cuda_graph_code
from ortcopy_doctor.measure import _quiet, run_generated


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
    assert not _negative_dims(report.binding.code)
    with _quiet():
        namespace, _, _ = run_generated(report.binding.code, "plan", None)
    assert [v.shape() for v in namespace["infer"]()] == [[2, 10]]


def test_device_binding_code_treats_a_minus_one_dim_as_dynamic(tmp_path):
    """Evidence recorded on the H200 (conv_net, batch 2) with the output declared [-1, 10]: the generated code
    pre-allocates the shape the profiled run produced, never [-1, 10]; it runs (on CPU OrtValues)."""
    evidence = copy.deepcopy(recorded_report("conv_net", tmp_path).evidence)
    path = tmp_path / "minus_one.onnx"
    onnx.save(_minus_one_conv_net(), str(path))
    evidence.model.path = str(path)
    evidence.model.outputs[0].shape = [-1, 10]
    plan = make_plan(evidence)
    (logits,) = plan.outputs
    assert logits.shape == [2, 10] and logits.preallocate
    assert not _negative_dims(plan.code)
    assert not _negative_dims(render_cuda_graph_code(evidence, plan))
    plan.device_type = "cpu"
    with _quiet():
        namespace, _, _ = run_generated(render_code(evidence, plan), "plan", None)
    assert [v.shape() for v in namespace["infer"]()] == [[2, 10]]


def test_minus_one_dim_without_profile_shape_is_bound_by_ort(tmp_path):
    """No profiled shape for the output: ``bind_output(name, device)`` and ORT allocates; no negative size."""
    evidence = copy.deepcopy(recorded_report("conv_net", tmp_path).evidence)
    path = tmp_path / "minus_one.onnx"
    onnx.save(_minus_one_conv_net(), str(path))
    evidence.model.path = str(path)
    evidence.model.outputs[0].shape = [-1, 10]
    evidence.node_events = []
    plan = make_plan(evidence)
    (logits,) = plan.outputs
    assert not logits.preallocate and logits.shape == [None, 10]
    assert "binding.bind_output('logits', 'cuda', 0)" in plan.code
    assert not _negative_dims(plan.code)
    plan.device_type = "cpu"
    with _quiet():
        namespace, _, _ = run_generated(render_code(evidence, plan), "plan", None)
    assert [v.shape() for v in namespace["infer"]()] == [[2, 10]]
