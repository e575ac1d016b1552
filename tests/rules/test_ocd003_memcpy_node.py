"""OCD003 memcpy-node: ORT inserted a MemcpyToHost/MemcpyFromHost node."""

from __future__ import annotations

from ortcopy_doctor.rules import memcpy_node
from rule_cases import MEMCPY_FIX, findings_of, recorded_evidence

RULE = memcpy_node.RULE


def test_fires_once_per_memcpy_node_with_its_tensor_direction_and_bytes():
    findings = findings_of(RULE, recorded_evidence("cpu_op_between"))
    assert [(f.rule, f.slug, f.severity, f.location, f.bytes_per_run) for f in findings] == [
        ("OCD003", "memcpy-node", "warning", "Memcpy_token_0", 1024),
        ("OCD003", "memcpy-node", "warning", "Memcpy", 1024),
    ]
    to_host, from_host = findings
    assert to_host.message.startswith("MemcpyToHost 'Memcpy_token_0' copies 'h1' device→host (1.0 KB per run, "
                                      "shape [2, 128]): ")
    assert "Celu 'celu' runs on CPU" in to_host.message
    assert from_host.message.startswith("MemcpyFromHost 'Memcpy' copies 'h2' host→device (1.0 KB per run, ")
    assert to_host.fix == from_host.fix == MEMCPY_FIX
    assert to_host.details == {"tensor": "h1", "direction": "device_to_host"}
    assert from_host.details == {"tensor": "h2", "direction": "host_to_device"}


def test_silent_without_memcpy_nodes():
    assert findings_of(RULE, recorded_evidence("conv_net")) == []
