"""OCD107 slow-new-shape: the first call at an input shape much slower than the later ones (recorded on the H200)."""

from __future__ import annotations

from ortcopy_doctor.rules import slow_new_shape
from rule_cases import pipeline_observations, run_findings_of, state_observations

RULE = slow_new_shape.RULE


def test_fires_for_each_first_call_at_least_1_ms_slower():
    findings = run_findings_of(RULE, pipeline_observations("pipelines/detect_crop_classify"))
    assert [(f.severity, f.location, f.details["shape"]) for f in findings] == [
        ("info", "det.onnx", "1x3x256x256"), ("info", "cls.onnx", "1x32x128x128, 4x4, 4")]
    assert findings[0].message == ("the first call of det.onnx at shape 1x3x256x256 (iteration 1): 423.887 ms, next "
                                   "calls median 1.230 ms (19 call(s)): 422.658 ms more")
    assert findings[0].bytes_per_run is None


def test_is_silent_where_the_first_call_is_as_fast():
    assert run_findings_of(RULE, state_observations("object")) == []
