"""The statistics of the binding A/B (ortcopy_doctor/analysis/stats.py) on synthetic distributions with known answers.

Every distribution is drawn from a seeded generator and every interval from a seeded bootstrap, so each
assertion is deterministic. A "known 1.25x" sample is the base sample divided by 1.25 with its own noise.
"""

from __future__ import annotations

import math

import statistics

import numpy as np
import pytest

from ortcopy_doctor.analysis.stats import (
    Sampler,
    list_median,
    list_quantiles,
    median,
    median_ci,
    precise_enough,
    ratio_ci,
    summary_ratio_ci,
)


def _rng(seed: int = 1) -> np.random.Generator:
    return np.random.default_rng(seed)


def _lognormal(rng, median, n, sigma=0.05):
    return median * np.exp(rng.normal(0.0, sigma, n))


def _bimodal(rng, median, n):
    # 70% fast mode, 30% a slow mode 40% higher (a second clock state): the median sits in the fast mode.
    slow = rng.random(n) < 0.3
    return np.where(slow, 1.4, 1.0) * median * np.exp(rng.normal(0.0, 0.02, n))


def _heavy_tailed(rng, median, n):
    # Pareto tail: a few runs 10x longer (preemption); the median barely moves.
    return median * (1.0 + 0.02 * rng.standard_normal(n) ** 2 + (rng.pareto(1.5, n) * 0.05))


def _drifting(rng, median, n):
    # The machine slows down by 30% over the measurement, the same for every variant (interleaved rounds).
    return median * np.linspace(1.0, 1.3, n) * np.exp(rng.normal(0.0, 0.02, n))


@pytest.mark.parametrize("shape", ["lognormal", "bimodal", "heavy_tailed"])
def test_known_ratio_is_inside_the_interval_and_one_outside(shape):
    rng = _rng()
    draw = {"lognormal": _lognormal, "bimodal": _bimodal, "heavy_tailed": _heavy_tailed}[shape]
    base = draw(rng, 1.0, 400)
    other = draw(rng, 1.0 / 1.25, 400)
    ci = ratio_ci(base, other)
    assert ci.low <= 1.25 <= ci.high, (ci.low, ci.high)
    assert ci.low > 1.0
    assert ci.verdict == "faster"


def test_known_ratio_under_drift_with_paired_rounds():
    rng = _rng(2)
    n = 300
    trend = np.linspace(1.0, 1.3, n)
    base = 1.0 * trend * np.exp(rng.normal(0.0, 0.02, n))
    other = (1.0 / 1.25) * trend * np.exp(rng.normal(0.0, 0.02, n))
    ci = ratio_ci(base, other)
    assert ci.method == "bootstrap_paired"
    assert ci.low <= 1.25 <= ci.high and ci.low > 1.0
    # Pairing by round keeps the drift out of the interval: narrower than resampling each side on its own.
    unpaired = ratio_ci(base, other[:-1])
    assert unpaired.method == "bootstrap"
    assert (ci.high - ci.low) < (unpaired.high - unpaired.low)


@pytest.mark.parametrize("draw", [_lognormal, _bimodal, _heavy_tailed, _drifting])
def test_identical_distributions_are_within_noise(draw):
    rng = _rng(3)
    base = draw(rng, 1.0, 300)
    other = draw(rng, 1.0, 300)
    ci = ratio_ci(base, other)
    assert ci.low <= 1.0 <= ci.high, (ci.low, ci.high)
    assert ci.verdict == "within_noise"
    assert ci.text().startswith("within noise (")


def test_slower_variant_is_slower():
    rng = _rng(4)
    ci = ratio_ci(_lognormal(rng, 1.0, 200), _lognormal(rng, 1.5, 200))
    assert ci.verdict == "slower"
    assert ci.high < 1.0
    assert ci.text().startswith("1.5")  # 1.50x slower, give or take the noise
    assert "x slower (95% CI" in ci.text()


def test_text_says_speed_up_with_interval():
    rng = _rng(5)
    ci = ratio_ci(_lognormal(rng, 1.34, 500, 0.02), _lognormal(rng, 1.0, 500, 0.02))
    assert ci.text() == f"{ci.ratio:.2f}x faster (95% CI {ci.low:.2f}–{ci.high:.2f})"
    assert ci.text().startswith("1.3")


def test_intervals_are_deterministic():
    rng = _rng(6)
    from ortcopy_doctor.analysis import stats

    base, other = _bimodal(rng, 1.0, 150), _bimodal(rng, 0.9, 150)
    first, first_median = ratio_ci(base, other), median_ci(base)
    stats._MEMO.clear()  # computed again, not remembered
    assert ratio_ci(base, other) == first and ratio_ci(base, other) is not first
    assert median_ci(base) == first_median


def test_median_interval_covers_the_true_median_about_95_percent_of_the_time():
    # One sample's interval misses the truth 5% of the time by design: check the coverage over 100 samples.
    hits = 0
    for seed in range(100):
        median, low, high = median_ci(_lognormal(_rng(seed), 2.0, 200), resamples=500)
        assert low <= median <= high
        hits += low <= 2.0 <= high
    assert 88 <= hits <= 100, hits


def test_ratio_interval_covers_the_known_ratio_about_95_percent_of_the_time():
    hits = 0
    for seed in range(100):
        rng = _rng(seed)
        ci = ratio_ci(_bimodal(rng, 1.0, 200), _bimodal(rng, 0.8, 200), resamples=500)
        hits += ci.low <= 1.25 <= ci.high
    assert 88 <= hits <= 100, hits


def test_summary_interval_from_quantiles():
    # Records without raw samples: the interval comes from median, IQR and the run count.
    ci = summary_ratio_ci(1.0, 0.98, 1.02, 50, 0.8, 0.79, 0.81, 50)
    assert ci.method == "summary" and ci.verdict == "faster"
    assert ci.low < 1.25 < ci.high
    assert "approximate" in ci.text()
    same = summary_ratio_ci(1.0, 0.9, 1.1, 50, 1.01, 0.91, 1.11, 50)
    assert same.verdict == "within_noise"


def test_a_summary_spread_too_wide_for_a_float_gives_an_unbounded_interval():
    """A recorded interquartile range ~400x its median (or a median of 1e-300) once raised OverflowError."""
    ci = summary_ratio_ci(0.225, 0.2, 0.25, 50, 0.187, 0.17, 1e5, 50)
    assert (ci.low, ci.high, ci.verdict) == (0.0, math.inf, "within_noise")
    assert ci.text() == "within noise (1.20x, 95% CI 0.00–inf, approximate: no raw samples recorded)"


def test_more_samples_narrow_the_interval():
    rng = _rng(8)
    small = ratio_ci(_lognormal(rng, 1.0, 30), _lognormal(rng, 0.8, 30))
    large = ratio_ci(_lognormal(rng, 1.0, 3000), _lognormal(rng, 0.8, 3000))
    assert large.half_width < small.half_width
    assert large.half_width < 0.03


class _FakeClock:
    """A clock that moves by each call's simulated duration: the budget is spent deterministically."""

    def __init__(self):
        self.now = 0.0

    def __call__(self):
        return self.now


def _sampler(noise: float, budget_s: float, min_rounds: int = 20) -> Sampler:
    rng = _rng(9)
    clock = _FakeClock()
    medians = {"plain": 1.0, "plan": 0.8}

    def timer(call):
        ms = call()
        clock.now += ms / 1000.0
        return ms, None

    calls = {name: (lambda m=m: float(m * np.exp(rng.normal(0.0, noise)))) for name, m in medians.items()}
    return Sampler(calls=calls, timer=timer, min_rounds=min_rounds, budget_s=budget_s, clock=clock)


def test_sampler_stops_when_precise():
    s = _sampler(noise=0.05, budget_s=100.0)
    host = s.run()
    assert len(host["plain"]) == len(host["plan"]) > 20
    assert precise_enough(host, "plain")
    assert s.stop_reason.startswith("every interval within ±3% after ")


def test_sampler_stops_when_the_budget_is_spent():
    s = _sampler(noise=0.8, budget_s=0.2)
    host = s.run()
    assert s.stop_reason.startswith("time budget of 0.2 s spent after ")
    assert not precise_enough(host, "plain")
    # Rounds stay interleaved: every variant has one sample per round.
    assert len(host["plain"]) == len(host["plan"])


def test_sampler_keeps_the_calibration_rounds_even_when_already_precise():
    s = _sampler(noise=0.0001, budget_s=100.0, min_rounds=30)
    host = s.run()
    assert len(host["plain"]) == 30


@pytest.mark.parametrize("n", [1, 2, 5, 6, 251, 1000])
def test_median_equals_numpy_to_the_last_bit(n):
    rng = np.random.default_rng(n)
    samples = rng.lognormal(size=n)
    rows = samples[rng.integers(0, n, size=(50, n))]  # the bootstrap's resampled rows, with ties
    assert median(samples) == np.median(samples)
    assert np.array_equal(median(rows), np.median(rows, axis=1))


def test_median_of_no_samples_is_refused():
    with pytest.raises(ValueError, match="no samples"):
        median(np.array([]))


@pytest.mark.parametrize("n", [1, 2, 3, 4, 20, 21, 22])
def test_list_median_equals_statistics_median_to_the_last_bit(n):
    values = [float(v) for v in np.random.default_rng(n).lognormal(size=n)]
    assert list_median(values) == statistics.median(values)
    assert list_median(values[::-1] + values[:1]) == statistics.median(values[::-1] + values[:1])  # a tie


def test_list_median_of_no_samples_is_refused():
    with pytest.raises(ValueError, match="no samples"):
        list_median([])


@pytest.mark.parametrize("n", [2, 3, 9, 10, 11, 20, 21, 100])
@pytest.mark.parametrize("parts", [4, 10])
def test_list_quantiles_equal_statistics_quantiles_to_the_last_bit(n, parts):
    values = [float(v) for v in np.random.default_rng(n).lognormal(size=n)]
    assert list_quantiles(values, parts) == statistics.quantiles(values, n=parts)


def test_list_quantiles_of_one_sample_are_refused():
    with pytest.raises(ValueError, match="at least two"):
        list_quantiles([1.0], 10)
