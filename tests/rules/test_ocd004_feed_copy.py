"""OCD004 feed-copy: an input given in host memory is copied to the device on every run."""

from __future__ import annotations

import models
from ortcopy_doctor.rules import feed_copy
from rule_cases import cpu_check_evidence, findings_of, recorded_evidence

RULE = feed_copy.RULE


def test_fires_for_an_input_read_on_the_device():
    (finding,) = findings_of(RULE, recorded_evidence("conv_net"))
    assert (finding.rule, finding.slug, finding.severity, finding.location) == ("OCD004", "feed-copy", "warning",
                                                                               "image")
    assert finding.message.startswith("Input 'image' (float32[2, 3, 32, 32]) is copied host→device on every run "
                                      "(24.6 KB): ")
    assert finding.bytes_per_run == 24576
    assert finding.fix.startswith("Bind it on the device: `binding.bind_ortvalue_input('image', "
                                  "ort.OrtValue.ortvalue_from_numpy(x, 'cuda', 0))`")
    assert finding.details == {}


def test_one_finding_per_copied_input():
    findings = findings_of(RULE, recorded_evidence("stateful"))
    assert sorted((f.location, f.bytes_per_run) for f in findings) == [("state", 512), ("x", 256)]


def test_silent_on_a_cpu_session(tmp_path):
    assert findings_of(RULE, cpu_check_evidence(models.conv_net(), tmp_path, batch=2)) == []
