"""OCD105 host-upload: the program's own inputs copied to the device (recorded on the H200)."""

from __future__ import annotations

from ortcopy_doctor.rules import host_upload
from rule_cases import pipeline_observations, run_findings_of

RULE = host_upload.RULE


def test_fires_for_each_input_host_code_makes_with_its_bytes_per_iteration():
    findings = run_findings_of(RULE, pipeline_observations("pipelines/detect_crop_classify"))
    assert [(f.severity, f.location, f.bytes_per_run, f.details["calls"]) for f in findings] == [
        ("info", "det.onnx", 786432, 20), ("info", "cls.onnx", 32, 20)]
    assert findings[0].message == ("input `image` of det.onnx is uploaded from host code (786.4 KB/call, 20 call(s) "
                                   "over 20 iteration(s))")


def test_an_upload_on_one_call_is_averaged_over_the_iterations():
    findings = run_findings_of(RULE, pipeline_observations("pipelines/streaming_state"))
    assert [(f.details["tensor"], f.details["calls"], f.bytes_per_run) for f in findings] == [
        ("x", 30, 65536), ("h_in", 1, 8738)]


def test_bytes_predicted_for_the_device_are_marked_predicted():
    findings = run_findings_of(RULE, pipeline_observations("providers/noproviders_h200"))
    assert [(f.location, f.predicted) for f in findings] == [
        ("/work/main/examples/_noproviders.py:<module>:12", True)] * 2
