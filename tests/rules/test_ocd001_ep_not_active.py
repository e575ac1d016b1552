"""OCD001 ep-not-active: the requested execution provider did not load."""

from __future__ import annotations

import msgspec

from ortcopy_doctor.rules import ep_not_active
from rule_cases import CPU, CUDA, findings_of, recorded_evidence

RULE = ep_not_active.RULE
REASON = "libcublasLt.so.13: cannot open shared object file"


def test_fires_when_cuda_was_requested_and_the_session_runs_on_cpu():
    evidence = recorded_evidence("conv_net")
    evidence = msgspec.structs.replace(evidence, session=msgspec.structs.replace(
        evidence.session, requested_providers=[CUDA, CPU], active_providers=[CPU], ep_failure=REASON))
    (finding,) = findings_of(RULE, evidence)
    assert (finding.rule, finding.slug, finding.severity, finding.location) == ("OCD001", "ep-not-active", "error",
                                                                               "session")
    assert finding.message == f"{CUDA} was requested but the session runs on CPU: {REASON}"
    assert finding.fix.startswith("Install the CUDA and cuDNN libraries this onnxruntime-gpu build needs")
    assert "--provider cpu" in finding.fix
    assert finding.bytes_per_run is None
    assert finding.details == {"provider": CUDA, "reason": REASON}


def test_says_so_when_ort_gave_no_reason():
    evidence = recorded_evidence("conv_net")
    evidence = msgspec.structs.replace(evidence, session=msgspec.structs.replace(
        evidence.session, active_providers=[CPU], ep_failure=None))
    (finding,) = findings_of(RULE, evidence)
    assert finding.message.endswith("the session runs on CPU: ORT gave no reason")


def test_silent_when_the_requested_provider_is_active():
    assert findings_of(RULE, recorded_evidence("conv_net")) == []


def test_silent_when_only_cpu_was_requested():
    evidence = recorded_evidence("conv_net")
    evidence = msgspec.structs.replace(evidence, session=msgspec.structs.replace(
        evidence.session, requested_providers=[CPU], active_providers=[CPU]))
    assert findings_of(RULE, evidence) == []
