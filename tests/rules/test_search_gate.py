"""--fail-on-gain over the convolution search's recommendations (issue 34): OCD015's first run at a new shape in a
check, and what serving a sweep's shapes in turn recommends."""

from __future__ import annotations

import msgspec

from ortcopy_doctor.model.replay import ProviderChoice, SearchTiming
from ortcopy_doctor.model.sweep import ShapeSweep, ShapeSwitch, SwitchOption
from ortcopy_doctor.report.core import analyse
from ortcopy_doctor.report.gate import Gate, evaluate, evaluate_sweep
from rule_cases import recorded_evidence

H200 = [SearchTiming("EXHAUSTIVE", first_ms=1377.2, median_ms=6.85), SearchTiming("HEURISTIC", first_ms=190.7,
        median_ms=7.2), SearchTiming("DEFAULT", first_ms=261.5, median_ms=125.7)]


def _report():
    evidence = recorded_evidence("conv_net")
    return analyse(msgspec.structs.replace(evidence, provider_choice=ProviderChoice(search=H200)))


def test_the_first_run_gain_of_heuristic_fails_a_gate_below_it():
    result = evaluate(_report(), Gate(fail_on="never", fail_on_gain=5.0))
    assert result.failed
    assert result.reasons[-1].startswith("the first run at a new input shape is 7.22x faster with "
                                         "cudnn_conv_algo_search HEURISTIC (190.7 ms against 1377 ms")


def test_the_first_run_gain_passes_a_gate_above_it():
    assert not any("first run" in r for r in evaluate(_report(), Gate(fail_on="never", fail_on_gain=8.0)).reasons)


def test_an_allowed_search_finding_is_not_judged():
    result = evaluate(_report(), Gate(fail_on="never", fail_on_gain=2.0, allow=frozenset({"OCD015"})))
    assert not any("first run" in r for r in result.reasons)


def _sweep(recommended: str, low: float) -> ShapeSweep:
    switch = ShapeSwitch(shapes=["a", "b"], padded_to="b", rounds=3, options=[
        SwitchOption(option="EXHAUSTIVE", median_ms=600.0),
        SwitchOption(option="HEURISTIC", median_ms=70.0, ratio=8.5, ratio_low=low, ratio_high=9.0)])
    return ShapeSweep(verdict="", shapes=[], switch=switch, switch_recommended=recommended)


def test_the_sweep_fails_where_the_recommended_option_s_lower_bound_reaches_the_threshold():
    result = evaluate_sweep(_sweep("HEURISTIC", 8.0), Gate(fail_on_gain=8.0))
    assert result.reasons == ["with the shape changing at every call, HEURISTIC measured 8.50x faster than ORT's "
                              "default (95% CI 8.00–9.00): its lower bound is at or above --fail-on-gain 8x"]


def test_the_sweep_passes_below_the_threshold_or_without_a_recommendation_or_a_threshold():
    assert not evaluate_sweep(_sweep("HEURISTIC", 7.9), Gate(fail_on_gain=8.0)).failed
    assert not evaluate_sweep(_sweep("", 8.0), Gate(fail_on_gain=2.0)).failed
    assert not evaluate_sweep(_sweep("HEURISTIC", 8.0), Gate()).failed
