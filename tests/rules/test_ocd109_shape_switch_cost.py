"""OCD109 shape-switch-cost: every change of input shape of a CUDA session, measured by the replay after the program
(rapidocr-onnxruntime 1.4.4 recorded on the H200: tests/fixtures/real_programs)."""

from __future__ import annotations

import gzip
import json

from ortcopy_doctor.model.pipeline import load_pipeline_observations
from ortcopy_doctor.rules import shape_switch_cost, slow_new_shape
from render_helpers import TESTS
from rule_cases import pipeline_observations, run_findings_of

RULE = shape_switch_cost.RULE


def _real(name: str):
    with gzip.open(TESTS / "fixtures" / "real_programs" / f"{name}.json.gz", "rt", encoding="utf-8") as f:
        return load_pipeline_observations(json.load(f)["report"]["observations"])


def test_fires_for_each_cuda_session_whose_changes_of_shape_are_slow():
    findings = run_findings_of(RULE, _real("ocr_rapidocr"))
    assert [(f.severity, f.details["session"]) for f in findings] == [
        ("warning", "ch_PP-OCRv4_det_infer.onnx"), ("warning", "ch_ppocr_mobile_v2.0_cls_infer.onnx")]
    assert findings[1].message.startswith("every change of input shape of ch_ppocr_mobile_v2.0_cls_infer.onnx costs "
                                          "about 986.153 ms: its calls at shapes it had run before take 988.116 ms")
    assert findings[1].location.endswith("rapidocr_onnxruntime/utils/infer_engine.py:__call__:196")


def test_such_sessions_get_no_warm_up_advice():
    sessions = {f.details["session"] for f in run_findings_of(slow_new_shape.RULE, _real("ocr_rapidocr"))}
    assert sessions.isdisjoint({"ch_PP-OCRv4_det_infer.onnx", "ch_ppocr_mobile_v2.0_cls_infer.onnx"})


def test_is_silent_without_a_replay():
    assert run_findings_of(RULE, pipeline_observations("pipelines/detect_crop_classify")) == []
