"""OCD008 cpu-preferred-node: ORT put a small shape computation on CPU on purpose."""

from __future__ import annotations

from ortcopy_doctor.model import codec
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


def _gpt2_past():
    """GPT-2 with past key/values from torch's dynamo exporter, measured on the H200 (tests/fixtures/dynamo): ORT
    puts the position-id Unsqueezes on CPU by its heuristic, and the CUDA Gather of wpe reads one through a
    MemcpyFromHost."""
    import json
    import tarfile

    from ortcopy_doctor.model.evidence import Evidence
    from render_helpers import TESTS

    with tarfile.open(TESTS / "fixtures" / "dynamo" / "reports.tar.gz") as tar:
        return codec.convert(json.loads(tar.extractfile("gpt2_past.cuda.json").read())["evidence"], Evidence)


def test_a_node_whose_output_a_memcpy_copies_says_so():
    """It said "adds no Memcpy node" beside an OCD003 for the same node's output."""
    (unsqueeze,) = [f for f in findings_of(RULE, _gpt2_past()) if f.location == "node_unsqueeze"]
    assert unsqueeze.fix == ("ORT's own choice, but a device node reads its output 'unsqueeze': a MemcpyFromHost "
                             "copies it (OCD003). Only a model change removes that copy: compute the value from device "
                             "tensors, or give it as a model input")


def test_the_memcpy_of_such_a_nodes_output_does_not_ask_for_a_device_kernel():
    from ortcopy_doctor.rules import memcpy_node

    (copy,) = [f for f in findings_of(memcpy_node.RULE, _gpt2_past()) if f.location == "Memcpy"]
    assert copy.fix == ("Unsqueeze 'node_unsqueeze' has a device kernel; ORT put it on CPU by its own heuristic for "
                        "small shape computations (OCD008). Only a model change removes the copy: compute the value "
                        "from device tensors, or give it as a model input. IO binding cannot remove it.")
