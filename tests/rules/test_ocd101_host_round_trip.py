"""OCD101 host-round-trip: an output of one session copied to the host and back as another's input, recorded on the
H200 (examples/detect_crop_classify.py, tests/fixtures/pipelines)."""

from __future__ import annotations

from ortcopy_doctor.rules import host_round_trip
from rule_cases import pipeline_observations, run_findings_of

RULE = host_round_trip.RULE


def test_fires_for_each_round_trip_between_stages_with_its_bytes_per_iteration():
    findings = run_findings_of(RULE, pipeline_observations("pipelines/detect_crop_classify"))
    assert [(f.severity, f.location, f.bytes_per_run, f.details["subject"]) for f in findings] == [
        ("warning", "cls.onnx", 4194304, "det.onnx:features -> cls.onnx:features"),
        ("warning", "cls.onnx", 128, "det.onnx:boxes -> cls.onnx:rois")]
    first = findings[0]
    assert first.message == ("output `features` of det.onnx goes device→host (2.1 MB/call), through numpy (the same "
                             "array), and back host→device (2.1 MB/call) as input `features` of cls.onnx "
                             "(20 call(s))")
    assert first.fix == "pass the OrtValue (or a torch tensor via DLPack) instead"
    assert (first.details["site"], first.details["calls"], first.details["pipeline"], first.predicted) == ("", 20, 1,
                                                                                                          False)


def test_is_silent_for_the_fixed_program():
    assert run_findings_of(RULE, pipeline_observations("pipelines/detect_crop_classify_fixed")) == []
