"""OCD007 cpu-only-input: an input read only in host memory (keep it there)."""

from __future__ import annotations

import msgspec

from ortcopy_doctor.rules import cpu_only_input
from rule_cases import CPU, findings_of, recorded_evidence

RULE = cpu_only_input.RULE


def test_fires_for_each_input_read_only_on_the_host():
    findings = findings_of(RULE, recorded_evidence("cpu_only_inputs"))
    assert [(f.rule, f.slug, f.severity, f.location) for f in findings] == [
        ("OCD007", "cpu-only-input", "info", "target_shape"),
        ("OCD007", "cpu-only-input", "info", "bits"),
        ("OCD007", "cpu-only-input", "info", "amount"),
    ]
    shape = findings[0]
    assert shape.message == ("Input 'target_shape' is read only in host memory (by Reshape 'reshape'): it is not "
                             "copied, and binding it on CUDA would add a copy")
    assert shape.fix == "Keep it in host memory: `binding.bind_cpu_input('target_shape', array)`"
    assert shape.bytes_per_run is None and shape.details == {}
    assert "(by BitShift 'bitshift')" in findings[1].message


def test_silent_when_every_input_is_read_on_the_device():
    assert findings_of(RULE, recorded_evidence("conv_net")) == []


def test_silent_when_the_session_runs_on_cpu():
    evidence = recorded_evidence("cpu_only_inputs")
    evidence = msgspec.structs.replace(evidence, session=msgspec.structs.replace(evidence.session, active_providers=[CPU]))
    assert findings_of(RULE, evidence) == []
