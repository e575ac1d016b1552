"""OCD009 in-kernel-transfer: a kernel transfers data inside its own run."""

from __future__ import annotations

from ortcopy_doctor.rules import in_kernel_transfer
from rule_cases import findings_of, recorded_evidence

RULE = in_kernel_transfer.RULE


def test_fires_for_nonzero_reading_its_count_back():
    (finding,) = findings_of(RULE, recorded_evidence("data_dependent_shape"))
    assert (finding.rule, finding.slug, finding.severity, finding.location) == ("OCD009", "in-kernel-transfer", "info",
                                                                               "nonzero")
    assert finding.message == ("NonZero 'nonzero' reads the count of non-zero elements back to the host (4 B "
                               "device-to-host) to size its output (4 B per run)")
    assert finding.fix.startswith("Nothing to bind: the transfer is part of the op.")
    assert finding.bytes_per_run == 4 and finding.details == {}


def test_silent_without_such_an_op():
    assert findings_of(RULE, recorded_evidence("conv_net")) == []
