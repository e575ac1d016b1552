"""The sweep's shapes served in turn under each option (collect/provider_choice.measure_shape_switch, issue 34): the
mechanics, on the CPU here (ORT takes the CUDA options for a CPU session and ignores them); what the options cost on
a GPU is in the recorded sweeps (tests/report/test_sweep_fixtures.py)."""

from __future__ import annotations

import onnx
import onnxruntime as ort
import pytest

import models
from ortcopy_doctor.collect.provider_choice import SWITCH_OPTIONS, measure_shape_switch
from ortcopy_doctor.collect.session import CheckOptions
from ortcopy_doctor.model.sweep import ShapeSet

SETS = [ShapeSet(label=f"batch={n}", dims={"batch": n}, batch=n) for n in (2, 4, 1)]


@pytest.fixture(scope="module")
def switch(tmp_path_factory):
    path = tmp_path_factory.mktemp("switch") / "conv.onnx"
    onnx.save(models.conv_net(), str(path))
    return measure_shape_switch(ort, path, CheckOptions(providers=["CPUExecutionProvider"]), SETS, rounds=2)


def test_every_option_is_measured_in_order(switch):
    assert [o.option for o in switch.options] == list(SWITCH_OPTIONS) == ["EXHAUSTIVE", "HEURISTIC", "padded", "CPU"]


def test_each_option_has_a_call_per_shape_per_round(switch):
    assert [len(o.samples_ms) for o in switch.options] == [6, 6, 6, 6]
    assert (switch.shapes, switch.rounds) == (["batch=2", "batch=4", "batch=1"], 2)


def test_padded_runs_at_the_largest_shape(switch):
    assert switch.padded_to == "batch=4"


def test_the_default_is_the_baseline_of_every_ratio(switch):
    base = switch.options[0]
    assert (base.ratio, base.ratio_low, base.ratio_high) == (1.0, 1.0, 1.0)
    assert all(o.ratio_low <= o.ratio <= o.ratio_high for o in switch.options[1:])


def test_inputs_that_cannot_be_made_are_skipped_with_the_reason(tmp_path):
    path = tmp_path / "conv.onnx"
    onnx.save(models.conv_net(), str(path))
    bad = [ShapeSet(label="x", shapes={"nope": [1]}), ShapeSet(label="y", shapes={"nope": [2]})]
    result = measure_shape_switch(ort, path, CheckOptions(providers=["CPUExecutionProvider"]), bad)
    assert result.options == [] and result.skipped.startswith("the inputs could not be made: UsageError: ")
