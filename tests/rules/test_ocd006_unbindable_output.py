"""OCD006 unbindable-output: a sequence, map or optional output cannot be bound on the device."""

from __future__ import annotations

import models
from ortcopy_doctor.rules import unbindable_output
from rule_cases import cpu_check_evidence, findings_of, recorded_evidence

RULE = unbindable_output.RULE
FIX = ("Leave it out of the IO binding; read it with a plain session.run() call or change the model to output a "
       "tensor")


def test_fires_for_a_map_output():
    (finding,) = findings_of(RULE, recorded_evidence("map_output"))
    assert (finding.rule, finding.slug, finding.severity, finding.location) == ("OCD006", "unbindable-output", "info",
                                                                               "labels")
    assert finding.message == ("Output 'labels' is a seq(map(int64,tensor(float))): IO binding cannot hold it on the "
                               "device (run_with_iobinding fails with 'Unsupported OrtValue type')")
    assert finding.fix == FIX
    assert finding.bytes_per_run is None and finding.details == {}


def test_fires_for_a_sequence_output_of_a_cpu_check(tmp_path):
    (finding,) = findings_of(RULE, cpu_check_evidence(models.sequence_output(), tmp_path))
    assert finding.location == "parts"
    assert finding.message.startswith("Output 'parts' is a seq(tensor(float)): IO binding cannot hold it")


def test_silent_for_tensor_outputs():
    assert findings_of(RULE, recorded_evidence("conv_net")) == []
