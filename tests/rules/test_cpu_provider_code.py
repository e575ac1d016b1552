"""The CPU-provider recommendation's code (issue 34): generated from the evidence (analysis/binding.cpu_provider_code),
run as printed next to CUDA's plain run() before a report offers it (collect/provider_choice.check_cpu_code), and
offered, or not, by what that run showed (report/recommend.py). Here the reference session is a CPU one (no GPU)."""

from __future__ import annotations

import msgspec
import numpy as np
import onnx
import onnxruntime as ort
import pytest

import models
from ortcopy_doctor.analysis.binding import code_sha256, cpu_provider_code, code_verdict
from ortcopy_doctor.collect.provider_choice import check_cpu_code
from ortcopy_doctor.model.evidence import CodeCheck
from ortcopy_doctor.model.replay import ProviderChoice, ProviderTiming, ShapeComparison
from ortcopy_doctor.report.core import analyse
from rule_cases import CPU, CUDA, recorded_evidence


@pytest.fixture(scope="module")
def model(tmp_path_factory):
    path = tmp_path_factory.mktemp("cpu_code") / "conv.onnx"
    onnx.save(models.conv_net(), str(path))
    evidence = msgspec.structs.replace(recorded_evidence("conv_net"),
                                       model=msgspec.structs.replace(recorded_evidence("conv_net").model,
                                                                     path=str(path)))
    session = ort.InferenceSession(str(path), providers=["CPUExecutionProvider"])
    arrays = {"image": np.random.default_rng(0).standard_normal((2, 3, 32, 32)).astype(np.float32)}
    return evidence, session, arrays


def test_the_code_names_the_model_and_the_cpu_provider_and_takes_the_inputs(model):
    evidence, _, _ = model
    code = cpu_provider_code(evidence)
    assert f"MODEL = {evidence.model.path!r}" in code
    assert "session = ort.InferenceSession(MODEL, providers=['CPUExecutionProvider'])" in code
    assert "feeds: {'image': ...}" in code


def test_run_as_printed_it_matches_plain_run(model):
    evidence, session, arrays = model
    code = cpu_provider_code(evidence)
    check = check_cpu_code(code, session, arrays)
    assert (check.block, check.status, check.calls, check.detail, check.code_sha256) == (
        "cpu_provider", "matched", 1, "", code_sha256(code))


def test_code_that_raises_is_failed(model):
    _, session, arrays = model
    check = check_cpu_code("def infer(feeds):\n    raise RuntimeError('boom')\n", session, arrays)
    assert (check.status, check.detail) == ("failed", "RuntimeError: boom")


def test_floats_that_differ_from_cuda_s_are_stated_not_judged(model):
    evidence, session, arrays = model
    check = check_cpu_code(cpu_provider_code(evidence), _Changed(session, lambda x: x - 0.5), arrays)
    assert (check.status, check.detail) == ("matched", "floats differ from CUDA's by 0.5 at most")


def test_outputs_of_another_shape_differ(model):
    evidence, session, arrays = model
    check = check_cpu_code(cpu_provider_code(evidence), _Changed(session, lambda x: x.reshape(-1)), arrays)
    assert check.status == "differs"
    assert check.detail == "output 'logits': shape [2, 10] where plain run() gives [20]"


class _Changed:
    """A reference session whose outputs are the real session's, changed by ``change``."""

    def __init__(self, session, change):
        self.session, self.change = session, change

    def run(self, names, feeds):
        return [self.change(x) for x in self.session.run(names, feeds)]

    def get_outputs(self):
        return self.session.get_outputs()


def _cpu_faster(evidence, check: CodeCheck | None):
    comparison = ShapeComparison(shape="2x3x32x32", program_calls=0,
                                 used=ProviderTiming(CUDA, first_ms=700.0, median_ms=0.72),
                                 other=ProviderTiming(CPU, first_ms=1.0, median_ms=0.22),
                                 ratio=3.27, ratio_low=3.1, ratio_high=3.4)
    return msgspec.structs.replace(evidence, provider_choice=ProviderChoice(cpu=comparison, cpu_threads="default"),
                                   code_checks=[*evidence.code_checks, *([check] if check else [])])


def test_the_recommendation_offers_the_code_its_check_matched(model):
    evidence, session, arrays = model
    code = cpu_provider_code(evidence)
    report = analyse(_cpu_faster(evidence, check_cpu_code(code, session, arrays)))
    assert (report.advice.recommended, report.advice.code) == ("cpu_provider", code)
    assert report.advice.code_check == ("checked: run as printed with the check's inputs, the outputs of CUDA's plain "
                                        "run() (names, shapes, dtypes, integers exactly)")
    assert code_verdict(report.evidence, "cpu_provider", code).offered


def test_code_that_gave_other_outputs_is_not_recommended(model):
    evidence, session, arrays = model
    code = cpu_provider_code(evidence)
    differs = CodeCheck(block="cpu_provider", status="differs", device="cpu", calls=1,
                        detail="output 'logits': values differ (largest difference 1)", code_sha256=code_sha256(code))
    report = analyse(_cpu_faster(evidence, differs))
    assert report.advice.recommended != "cpu_provider"
    assert report.advice.notes[-1] == ("The CPU provider was faster (3.27x) but its code is not offered: run as "
                                       "printed, it gave other outputs than plain run(): output 'logits': values "
                                       "differ (largest difference 1)")
