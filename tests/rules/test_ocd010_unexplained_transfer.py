"""OCD010 unexplained-transfer: the transfer census traced a copy that no other finding predicted."""

from __future__ import annotations

import msgspec

from ortcopy_doctor.rules import unexplained_transfer
from rule_cases import findings_of, recorded_evidence
from transfer_checks import add_transfer

RULE = unexplained_transfer.RULE


def test_fires_for_a_traced_copy_inside_a_node_no_rule_explains():
    evidence = recorded_evidence("conv_net")
    add_transfer(evidence, "conv1", "host_to_device", 8)  # Conv has no in-kernel transfer: nothing explains it
    (finding,) = findings_of(RULE, evidence)
    assert (finding.rule, finding.slug, finding.severity, finding.location) == (
        "OCD010", "unexplained-transfer", "warning", "conv1")
    assert finding.message == ("1 host→device copy of 8 B per traced run, pinned → device, issued inside Conv "
                               "'conv1': no finding of this report predicted it")
    assert finding.fix.startswith("Look the node up in the placement table and the ORT verbose log")
    assert finding.bytes_per_run == 8
    assert finding.details == {"kind": "in_kernel", "direction": "host_to_device", "count_per_run": 1.0}


def test_silent_when_every_traced_copy_is_explained():
    evidence = recorded_evidence("conv_net")
    assert evidence.census is not None and evidence.census.records
    assert findings_of(RULE, evidence) == []


def test_silent_without_a_census():
    evidence = recorded_evidence("conv_net")
    evidence = msgspec.structs.replace(evidence, census=None)
    assert findings_of(RULE, evidence) == []
