"""OCD106 host-download: outputs the program's code reads, copied to the host (recorded on the H200)."""

from __future__ import annotations

from ortcopy_doctor.rules import host_download
from rule_cases import pipeline_observations, run_findings_of

RULE = host_download.RULE


def test_fires_for_each_output_host_code_reads():
    findings = run_findings_of(RULE, pipeline_observations("pipelines/detect_crop_classify"))
    assert [(f.severity, f.location, f.bytes_per_run) for f in findings] == [("info", "det.onnx", 16),
                                                                             ("info", "cls.onnx", 160)]
    assert findings[1].fix.startswith("post-process `logits` on the device")


def test_is_silent_where_nothing_is_downloaded():
    assert run_findings_of(RULE, pipeline_observations("pipelines/detect_classify_torch_fixed")) == []
