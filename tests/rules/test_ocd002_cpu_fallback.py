"""OCD002 cpu-fallback: a node with no device kernel runs on CPU."""

from __future__ import annotations

import msgspec

from ortcopy_doctor.rules import cpu_fallback
from rule_cases import CPU, findings_of, recorded_evidence

RULE = cpu_fallback.RULE


def test_fires_for_a_node_without_a_cuda_kernel_naming_the_tensors_copied_around_it():
    (finding,) = findings_of(RULE, recorded_evidence("cpu_op_between"))
    assert (finding.rule, finding.slug, finding.severity, finding.location) == ("OCD002", "cpu-fallback", "warning",
                                                                               "celu")
    assert finding.message == ("Celu 'celu' runs on CPU: no CUDA kernel registered for Celu; tensors copied to it: h1; "
                               "tensors copied back from it: h2")
    assert finding.fix.startswith("Replace Celu with ops that have CUDA kernels")
    assert finding.bytes_per_run is None and finding.predicted is False
    assert finding.details == {"op_type": "Celu", "reason": "no_kernel", "copied_in": ["h1"], "copied_out": ["h2"],
                               "graph": ""}


def test_silent_when_every_node_runs_on_the_device():
    assert findings_of(RULE, recorded_evidence("conv_net")) == []


def test_silent_for_nodes_ort_put_on_cpu_on_purpose():
    """shape_subgraph has four CPU nodes, all cpu_preferred (OCD008's), none a fallback."""
    evidence = recorded_evidence("shape_subgraph")
    assert {n.fallback_reason for n in evidence.nodes if n.provider == CPU} == {"cpu_preferred"}
    assert findings_of(RULE, evidence) == []


def test_silent_when_the_session_runs_on_cpu():
    evidence = recorded_evidence("cpu_op_between")
    evidence = msgspec.structs.replace(evidence, session=msgspec.structs.replace(evidence.session, active_providers=[CPU]),
                                   nodes=[msgspec.structs.replace(node, provider=CPU) for node in evidence.nodes])
    assert findings_of(RULE, evidence) == []


def test_an_ai_onnx_ml_op_is_told_to_run_on_the_cpu_provider_not_to_be_re_exported():
    from ortcopy_doctor.model.evidence import RuntimeNode

    evidence = recorded_evidence("conv_net")
    node = RuntimeNode(name="scaler", op_type="Scaler", domain="ai.onnx.ml", provider=CPU,
                       fallback_reason="no_kernel", fallback_detail="no CUDA kernel registered for Scaler")
    evidence = msgspec.structs.replace(evidence, nodes=[*evidence.nodes, node])
    (finding,) = [f for f in findings_of(RULE, evidence) if f.location == "scaler"]
    assert finding.fix.startswith("Scaler is an ai.onnx.ml op (a scikit-learn pipeline's): no onnxruntime build has "
                                  "a device kernel for it, so re-exporting cannot move it; run this model on the CPU "
                                  "provider (providers=['CPUExecutionProvider'])")
