"""OCD008 cpu-preferred-node: ORT put a small shape computation on CPU on purpose."""

from __future__ import annotations

from ortcopy_doctor.rules import cpu_preferred_node
from rule_cases import findings_of, recorded_evidence

RULE = cpu_preferred_node.RULE


def test_fires_for_each_node_ort_preferred_on_cpu():
    findings = findings_of(RULE, recorded_evidence("shape_subgraph"))
    assert [(f.rule, f.slug, f.severity, f.location) for f in findings] == [
        ("OCD008", "cpu-preferred-node", "info", name) for name in ("gather", "double", "unsqueeze", "concat")]
    gather = findings[0]
    assert gather.message == ("Gather 'gather' runs on CPU because ORT judged the CPU path faster for this small shape "
                              "computation")
    assert gather.fix == "Nothing to do: this is ORT's own choice and adds no Memcpy node"
    assert gather.bytes_per_run is None and gather.details == {}


def test_silent_for_a_fallback_without_a_kernel():
    """cpu_op_between's Celu is on CPU for want of a kernel: OCD002's, not this rule's."""
    assert findings_of(RULE, recorded_evidence("cpu_op_between")) == []
