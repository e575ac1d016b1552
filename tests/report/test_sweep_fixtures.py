"""`check` over several batch sizes on the H200 (onnxruntime-gpu 1.31.1; tools/record_sweeps.py; issue 34): the
per-shape table's provider choice and the break-even, recomputed here by the current code from the recording."""

from __future__ import annotations

import gzip
import json

from ortcopy_doctor.model import codec
from ortcopy_doctor.model.sweep import ShapeSweep
from ortcopy_doctor.report.sweep import break_even, switch_advice, verdict
from render_helpers import TESTS

FIXTURES = TESTS / "fixtures" / "sweeps"


def _sweep(name: str) -> ShapeSweep:
    with gzip.open(FIXTURES / f"{name}.json.gz", "rt", encoding="utf-8") as f:
        data = json.load(f)
    assert (data["ort_version"], data["returncode"]) == ("1.31.1", 0)
    return codec.convert(data["sweep"], ShapeSweep)


def test_the_vad_keeps_the_cpu_at_small_batches_and_cuda_wins_from_batch_64():
    sweep = _sweep("silero_vad_batches")
    assert [(r.batch, r.faster) for r in sweep.shapes] == [(1, "CPU"), (8, "CPU"), (64, "CUDA")]
    assert break_even(sweep.shapes) == sweep.break_even == "CUDA wins from batch 64"
    assert verdict(sweep.shapes, sweep.break_even).endswith(
        "the CPU provider wins at input=1x512 state=2x1x128, input=8x512 state=2x8x128 (launches and synchronisation "
        "outweigh the work there); CUDA wins from batch 64")


def test_each_vad_batch_is_recommended_what_its_measurement_favours():
    sweep = _sweep("silero_vad_batches")
    assert [r.report.advice.recommended == "cpu_provider" for r in sweep.shapes] == [True, True, False]


def test_a_cnn_keeps_cuda_at_every_batch():
    sweep = _sweep("resnet18_batches")
    assert [(r.batch, r.faster) for r in sweep.shapes] == [(1, "CUDA"), (8, "CUDA"), (64, "CUDA")]
    assert break_even(sweep.shapes) == ""
    assert all(r.cpu_ms > 2 * r.cuda_ms for r in sweep.shapes)  # 4.3 vs 1.4, 25 vs 2.3, 229 vs 8.6 ms


def test_each_shape_s_first_run_is_apart_from_its_steady_state():
    for name in ("silero_vad_batches", "resnet18_batches"):
        assert all(r.first_ms > 10 * r.median_ms for r in _sweep(name).shapes), name


def test_the_ocr_detector_at_three_sizes_shows_each_size_s_first_run_under_each_search_option():
    sweep = _sweep("ppocr_det_sizes")
    firsts = [{t.label: t.first_ms for t in r.report.evidence.provider_choice.search} for r in sweep.shapes]
    assert [r.label for r in sweep.shapes] == ["x=1x3x736x992", "x=1x3x960x544", "x=1x3x736x1312"]
    assert [sorted(f) for f in firsts] == [["DEFAULT", "EXHAUSTIVE", "EXHAUSTIVE with cudnn_conv_use_max_workspace=0",
                                            "HEURISTIC"]] * 3
    assert all(f["EXHAUSTIVE"] > 2 * f["HEURISTIC"] for f in firsts)  # 457-534 ms against 98-211 ms


def test_the_ocr_detector_s_shapes_in_turn_recommend_what_the_measurement_favours():
    sweep = _sweep("ppocr_det_sizes")
    recommended, words = switch_advice(sweep.switch)
    assert (recommended, words) == (sweep.switch_recommended, sweep.switch_advice)
    fastest = max(sweep.switch.options, key=lambda o: o.ratio)
    assert recommended == fastest.option == "padded" and fastest.ratio_low > 1  # 5.7 ms against 462 ms
    assert [o.option for o in sweep.switch.options] == ["EXHAUSTIVE", "HEURISTIC", "padded", "CPU"]
    assert all(len(o.samples_ms) == 9 for o in sweep.switch.options)


def test_the_shapes_in_turn_ratios_are_recomputed_from_the_recorded_samples():
    from ortcopy_doctor.analysis.stats import ratio_ci

    switch = _sweep("ppocr_det_sizes").switch
    base = switch.options[0].samples_ms
    for option in switch.options[1:]:
        ci = ratio_ci(base, option.samples_ms)
        # this recording's ratios were taken on the samples before their rounding to 4 places (now: after): the
        # same within that rounding
        for got, recorded in zip((ci.ratio, ci.low, ci.high), (option.ratio, option.ratio_low, option.ratio_high)):
            assert abs(got - recorded) <= 2e-5 * recorded
