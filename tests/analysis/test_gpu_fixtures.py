"""Replay of evidence recorded on the H200 (ORT 1.31.1): the findings and copies, asserted exactly.

The census tests compare what the report says with what CUPTI counted in the same configuration:
the copies of one plain run(), and what is left after the generated binding code.
"""

from __future__ import annotations

from ortcopy_doctor.model import codec
import json

import pytest

from fixture_loader import recorded, recorded_report
from transfer_checks import census_totals, report_totals

MODELS = ["conv_net", "cpu_op_between", "data_dependent_shape", "sequence_output", "map_output", "if_on_device",
          "cpu_only_inputs", "stateful", "shape_subgraph", "demo"]


def _copies(report):
    return [(c.kind, c.direction, c.tensor, c.bytes_per_run) for c in report.copies]


def _findings(report):
    return [(f.rule, f.location) for f in report.findings]


def test_recorded_with_cuda_active_on_ort_1_31_1(tmp_path):
    for name in MODELS:
        report = recorded_report(name, tmp_path)
        assert report.evidence.session.active_providers == ["CUDAExecutionProvider", "CPUExecutionProvider"]
        assert report.evidence.environment.ort_version == "1.31.1"


@pytest.mark.parametrize("name", MODELS)
def test_copies_per_run_equal_cupti_census_of_plain_run(tmp_path, name):
    report = recorded_report(name, tmp_path)
    copies = json.loads(json.dumps(codec.to_builtins(report.copies)))
    assert report_totals(copies) == census_totals(recorded(name)["census_plain_run"])


@pytest.mark.parametrize("name", [m for m in MODELS if m != "map_output"])
def test_generated_binding_leaves_exactly_the_unremovable_copies(tmp_path, name):
    data = recorded(name)
    assert data["binding_code_ran"] is True
    report = recorded_report(name, tmp_path)
    copies = json.loads(json.dumps(codec.to_builtins(report.copies)))
    assert census_totals(data["census_bound_run"]) == report_totals(copies, only_unremovable=True)


def test_conv_net_copies_only_its_feed_and_fetch(tmp_path):
    report = recorded_report("conv_net", tmp_path)
    assert _copies(report) == [("feed", "host_to_device", "image", 24576), ("fetch", "device_to_host", "logits", 80)]
    assert _findings(report) == [("OCD004", "image"), ("OCD005", "logits")]
    assert report.summary.nodes_by_provider == {"CUDA": 7}


def test_cpu_op_between_gets_two_memcpy_nodes_around_the_fallback(tmp_path):
    report = recorded_report("cpu_op_between", tmp_path)
    assert _copies(report) == [
        ("feed", "host_to_device", "x", 512),
        ("fetch", "device_to_host", "y", 256),
        ("memcpy_node", "device_to_host", "h1", 1024),
        ("memcpy_node", "host_to_device", "h2", 1024),
    ]
    memcpy = [c for c in report.copies if c.kind == "memcpy_node"]
    assert [c.node for c in memcpy] == ["Memcpy_token_0", "Memcpy"]
    assert memcpy[0].producers == ["MatMul 'matmul1' (CUDA)"]
    assert memcpy[0].consumers == ["Celu 'celu' (CPU)"]
    assert memcpy[1].producers == ["Celu 'celu' (CPU)"]
    assert memcpy[1].consumers == ["MatMul 'matmul2' (CUDA)"]
    assert _findings(report) == [("OCD002", "celu"), ("OCD003", "Memcpy_token_0"), ("OCD003", "Memcpy"),
                                 ("OCD004", "x"), ("OCD005", "y")]
    fallback = report.findings[0]
    assert fallback.details["reason"] == "no_kernel"
    assert fallback.details["copied_in"] == ["h1"]
    assert fallback.details["copied_out"] == ["h2"]


def test_data_dependent_output_is_fetched_and_nonzero_reads_its_count_back(tmp_path):
    report = recorded_report("data_dependent_shape", tmp_path)
    assert _copies(report) == [
        ("feed", "host_to_device", "x", 2048),
        ("fetch", "device_to_host", "indices", 3920),
        ("in_kernel", "device_to_host", "indices", 4),
    ]
    plan = {e.name: (e.place, e.preallocate) for e in report.binding.entries}
    assert plan == {"x": ("device", False), "indices": ("device", False)}
    assert "binding.bind_output('indices', 'cuda', 0)" in report.binding.code


def test_sequence_output_is_unbindable_and_its_tensor_output_is_already_on_host(tmp_path):
    report = recorded_report("sequence_output", tmp_path)
    # 'h' feeds the CPU-only SplitToSequence: ORT's MemcpyToHost makes the graph output a host tensor.
    assert _copies(report) == [("feed", "host_to_device", "x", 128), ("memcpy_node", "device_to_host", "h", 32)]
    assert ("OCD006", "parts") in _findings(report)
    plan = {e.name: e.place for e in report.binding.entries}
    assert plan == {"x": "device", "parts": "unbound", "h": "host"}


def test_map_output_cannot_be_bound(tmp_path):
    report = recorded_report("map_output", tmp_path)
    assert _copies(report) == [("feed", "host_to_device", "x", 24),
                               ("memcpy_node", "device_to_host", "probabilities", 24)]
    assert ("OCD006", "labels") in _findings(report)
    assert "session.run(None, {'x': x_on_device})" in report.binding.code


def test_if_condition_is_copied_to_host_by_a_memcpy_node(tmp_path):
    report = recorded_report("if_on_device", tmp_path)
    assert _copies(report) == [
        ("feed", "host_to_device", "x", 64),
        ("fetch", "device_to_host", "y", 64),
        ("memcpy_node", "device_to_host", "cond", 1),
    ]
    memcpy = report.copies[2]
    assert "If 'branch' reads input 0 from host memory" in memcpy.cause


def test_inputs_read_only_on_host_are_not_copied_and_stay_on_cpu(tmp_path):
    report = recorded_report("cpu_only_inputs", tmp_path)
    assert _copies(report) == [("feed", "host_to_device", "x", 128), ("fetch", "device_to_host", "y", 128)]
    assert [f.location for f in report.findings if f.slug == "cpu-only-input"] == ["target_shape", "bits", "amount"]
    plan = {e.name: e.place for e in report.binding.entries}
    assert plan == {"x": "device", "target_shape": "host", "bits": "host", "amount": "host", "y": "device",
                    "shifted": "host"}


def test_stateful_model_copies_state_both_ways(tmp_path):
    report = recorded_report("stateful", tmp_path)
    assert _copies(report) == [
        ("feed", "host_to_device", "x", 256),
        ("feed", "host_to_device", "state", 512),
        ("fetch", "device_to_host", "y", 64),
        ("fetch", "device_to_host", "state_out", 512),
    ]


def test_shape_computation_kept_on_cpu_by_ort_is_not_a_fallback(tmp_path):
    report = recorded_report("shape_subgraph", tmp_path)
    preferred = [f.location for f in report.findings if f.slug == "cpu-preferred-node"]
    assert preferred == ["gather", "double", "unsqueeze", "concat"]
    assert [f for f in report.findings if f.slug == "cpu-fallback"] == []
    assert report.summary.fallback_nodes == 0
    assert [c.kind for c in report.copies] == ["feed", "fetch"]


def test_demo_model_shows_every_problem(tmp_path):
    report = recorded_report("demo", tmp_path)
    assert _copies(report) == [
        ("feed", "host_to_device", "features", 32768),
        ("fetch", "device_to_host", "scores", 16384),
        ("fetch", "device_to_host", "active_indices", 33040),
        ("memcpy_node", "device_to_host", "hidden", 65536),
        ("memcpy_node", "host_to_device", "activated", 65536),
        ("in_kernel", "device_to_host", "active_indices", 4),
    ]
    assert report.verdict == ("6 host↔device copies per run (213.3 KB): 1 feed, 2 fetch, 2 Memcpy node, 1 in-kernel; "
                              "1 node(s) fall back to CPU; IO binding removes 3.")
