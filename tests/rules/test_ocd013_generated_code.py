"""OCD013 generated-code-failed: a code block that raised or gave other outputs than plain run() when it was run as
printed (collect/code_check.py) is not offered, and the finding says what happened."""

from __future__ import annotations

import msgspec

from ortcopy_doctor.model.evidence import BindingMeasurement, CodeCheck, VariantTiming
from ortcopy_doctor.rules import generated_code
from rule_cases import findings_of, recorded_evidence

RULE = generated_code.RULE
FIX = "Keep plain run() or use another block of the report; the code was generated for this model: report it"


def _with_checks(*checks, variants=()):
    evidence = recorded_evidence("stateful")
    measurement = BindingMeasurement(status="measured", variants=list(variants)) if variants else None
    return msgspec.structs.replace(evidence, code_checks=list(checks), binding_measurement=measurement)


def test_fires_for_a_block_that_gave_other_outputs():
    check = CodeCheck(block="plan", status="differs", device="cuda", calls=3,
                      detail="call 2: output 'y': values differ (largest difference 0.217)")
    (finding,) = findings_of(RULE, _with_checks(check))
    assert (finding.rule, finding.slug, finding.severity, finding.location) == ("OCD013", "generated-code-failed",
                                                                               "warning", "session")
    assert finding.message == ("The binding plan's code, run as printed on the CUDA EP, gave other outputs than plain "
                               "run(): call 2: output 'y': values differ (largest difference 0.217); it is not offered")
    assert finding.fix == FIX
    assert finding.details == {"block": "plan", "status": "differs",
                               "detail": "call 2: output 'y': values differ (largest difference 0.217)"}


def test_fires_for_a_block_that_raised_on_cpu_ortvalues():
    check = CodeCheck(block="all_device", status="failed", device="cpu", calls=1,
                      detail="call 1 raised RuntimeError: bad binding")
    (finding,) = findings_of(RULE, _with_checks(check))
    assert finding.message == ("The everything-on-the-device code, run as printed on CPU OrtValues, raised: call 1 "
                               "raised RuntimeError: bad binding; it is not offered")


def test_fires_for_a_variant_that_failed_while_timed():
    failed = VariantTiming(variant="cuda_graph", label="CUDA graph", ran=False, failed=True,
                           skipped_reason="failed during warm-up: CUDA failure 700")
    (finding,) = findings_of(RULE, _with_checks(variants=[failed]))
    assert finding.message == "The CUDA-graph code failed while it was timed: failed during warm-up: CUDA failure 700"


def test_silent_for_blocks_that_matched_or_could_not_run():
    checks = [CodeCheck(block="plan", status="matched", device="cuda", calls=3),
              CodeCheck(block="plan_cupy", status="not_run", detail="cupy is not importable here")]
    skipped = VariantTiming(variant="cuda_graph", label="CUDA graph", ran=False, skipped_reason="1 blocker(s)")
    assert findings_of(RULE, _with_checks(*checks, variants=[skipped])) == []
