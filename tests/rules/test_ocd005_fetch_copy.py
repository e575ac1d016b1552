"""OCD005 fetch-copy: an output produced on the device is copied back to the host on every run."""

from __future__ import annotations

import models
from ortcopy_doctor.rules import fetch_copy
from rule_cases import cpu_check_evidence, findings_of, recorded_evidence

RULE = fetch_copy.RULE


def test_fires_for_an_output_produced_on_the_device():
    (finding,) = findings_of(RULE, recorded_evidence("cpu_op_between"))
    assert (finding.rule, finding.slug, finding.severity, finding.location) == ("OCD005", "fetch-copy", "warning", "y")
    assert finding.message == ("Output 'y' is copied device→host on every run (256 B): 'y' is produced on the device "
                               "by MatMul 'matmul2' (CUDA) and returned to the caller as numpy")
    assert finding.fix.startswith("Bind it on the device (`binding.bind_output('y', 'cuda')`")
    assert finding.bytes_per_run == 256 and finding.details == {}


def test_silent_for_an_output_produced_on_cpu():
    """map_output's only output comes out of ZipMap on CPU: no device-to-host fetch (a Memcpy node, OCD003)."""
    assert findings_of(RULE, recorded_evidence("map_output")) == []


def test_silent_on_a_cpu_session(tmp_path):
    assert findings_of(RULE, cpu_check_evidence(models.conv_net(), tmp_path, batch=2)) == []
