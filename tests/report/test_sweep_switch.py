"""The sweep's shapes served in turn (issue 34): what the measurement of each option recommends
(report/sweep.switch_advice), the verdict naming it, and its table in the sweep's text and HTML."""

from __future__ import annotations

import gzip
import json

import msgspec

from ortcopy_doctor.model import codec
from ortcopy_doctor.model.sweep import ShapeSweep, ShapeSwitch, SwitchOption
from ortcopy_doctor.render import sweep as render_sweep
from ortcopy_doctor.report.sweep import switch_advice
from render_helpers import TESTS, check_golden

SHAPES = ["x=1x3x736x992", "x=1x3x960x544", "x=1x3x736x1312"]


def _switch(heuristic: tuple[float, float, float], padded: tuple[float, float, float],
            cpu: tuple[float, float, float]) -> ShapeSwitch:
    def option(name: str, numbers: tuple[float, float, float], median: float) -> SwitchOption:
        return SwitchOption(option=name, median_ms=median, ratio=numbers[0], ratio_low=numbers[1],
                            ratio_high=numbers[2])

    return ShapeSwitch(shapes=SHAPES, padded_to=SHAPES[2], rounds=3, options=[
        SwitchOption(option="EXHAUSTIVE", median_ms=660.0), option("HEURISTIC", heuristic, 75.0),
        option("padded", padded, 9.5), option("CPU", cpu, 180.0)])


def test_the_fastest_option_whose_interval_lies_above_the_default_is_recommended():
    recommended, words = switch_advice(_switch((8.8, 8.1, 9.6), (69.5, 60.0, 80.0), (3.67, 3.4, 3.9)))
    assert recommended == "padded"
    assert words == ("with the shape changing at every call (3 shapes in turn, 3 rounds), a call takes EXHAUSTIVE "
                     "(ORT's default) 660 ms, HEURISTIC 75 ms, padded to x=1x3x736x1312 9.5 ms, the CPU provider "
                     "180 ms: pad every input to x=1x3x736x1312 (zeros; crop the outputs) so that the shape repeats "
                     "and cuDNN searches once: 69.50x faster than ORT's default (95% CI 60.00–80.00)")


def test_heuristic_is_recommended_with_its_provider_line_where_it_is_fastest():
    recommended, words = switch_advice(_switch((8.8, 8.1, 9.6), (2.0, 0.9, 3.0), (3.67, 3.4, 3.9)))
    assert recommended == "HEURISTIC"
    assert words.endswith("create the session with providers=[('CUDAExecutionProvider', {'cudnn_conv_algo_search': "
                          "'HEURISTIC'}), 'CPUExecutionProvider']: 8.80x faster than ORT's default (95% CI 8.10–9.60)")


def test_nothing_is_recommended_where_no_interval_lies_above_the_default():
    recommended, words = switch_advice(_switch((1.1, 0.9, 1.3), (1.0, 0.8, 1.2), (0.5, 0.4, 0.6)))
    assert recommended == ""
    assert words.endswith(": nothing measured beats ORT's default")


def test_nothing_is_said_without_the_measurement():
    assert switch_advice(None) == ("", "")
    assert switch_advice(ShapeSwitch(shapes=SHAPES, skipped="the session does not run on CUDA")) == ("", "")


def _recorded_sweep(name: str = "ppocr_det_sizes") -> ShapeSweep:
    with gzip.open(TESTS / "fixtures" / "sweeps" / f"{name}.json.gz", "rt", encoding="utf-8") as f:
        return codec.convert(json.load(f)["sweep"], ShapeSweep)


def test_the_text_shows_the_shapes_in_turn_table_with_the_recommended_option_marked():
    # the PP-OCRv4 detector at three page sizes on the H200 (tools/record_sweeps.py)
    check_golden("sweep_switch.txt", render_sweep.render_text(_recorded_sweep()))


def test_the_html_shows_the_shapes_in_turn_table():
    page = render_sweep.render_html(_recorded_sweep(), "det.onnx")
    assert '<h2 id="shapes-in-turn">Shapes in turn</h2>' in page
    assert "padded to x=1x3x736x1312 (recommended)" in page


def test_a_sweep_without_the_measurement_renders_no_shapes_in_turn():
    sweep = msgspec.structs.replace(_recorded_sweep(), switch=None, switch_advice="", switch_recommended="")
    assert "Shapes in turn" not in render_sweep.render_text(sweep)
    assert "shapes-in-turn" not in render_sweep.render_html(sweep, "resnet18.onnx")
