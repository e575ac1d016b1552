"""Statistics of the binding A/B measurement: confidence intervals of median ratios, and when to stop sampling.

Pure numpy, deterministic (every bootstrap uses a fixed seed), no onnxruntime.

* ``ratio_ci(base, other)``: the speed-up of ``other`` over ``base``, median(base) / median(other), with a 95%
  confidence interval from a paired percentile bootstrap. The variants run interleaved, one call of each per
  round, so sample ``i`` of every variant comes from the same round: the bootstrap resamples whole rounds, which
  keeps whatever drift the machine had (clock boost, a neighbour's load) common to both sides of the ratio.
  Samples of unequal length (older records) are resampled independently.
* ``median_ci(samples)``: a 95% interval of one median (same bootstrap), in the samples' unit.
* ``summary_ratio_ci``: an approximate interval from the summary quantiles alone (median, IQR, run count), for
  records written before the raw samples were kept: normal approximation of the median's standard error
  (1.2533 σ/√n, σ = IQR/1.349) on the log scale, the two sides taken as independent. Marked ``method="summary"``.
* ``Sampler``: interleaved rounds, first ``min_rounds`` of them (the calibration), then more rounds in batches
  until each variant's speed-up interval is narrower than ±``target`` (3%) or the time budget is spent
  (pyperf's approach: calibrate, then sample).

A difference is "measured" (faster or slower) only where the interval excludes 1; otherwise it is within noise.
"""

from __future__ import annotations

import msgspec
import hashlib
import math
import time
from collections.abc import Callable, Sequence
from msgspec import field
from typing import TYPE_CHECKING, Any

from ortcopy_doctor.model.lazy import lazy_import
from ortcopy_doctor.model.report import CI_LEVEL
from ortcopy_doctor.model.vocabulary import CiMethod, VariantVerdict

if TYPE_CHECKING:
    import numpy as np
else:  # numpy runs where an interval is first computed (model/lazy.py): a report read from its file computes none
    np = lazy_import("numpy")

LEVEL = CI_LEVEL
SEED = 20240611
RESAMPLES = 2000
TARGET = 0.03  # stop when every interval is within ±3% of its ratio
MAX_ROUNDS = 10000  # bounds the raw samples kept in the JSON


class RatioCI(msgspec.Struct, frozen=True):
    """median(base) / median(other) with its interval: above 1 means ``other`` is faster."""

    ratio: float
    low: float
    high: float
    method: CiMethod
    n_base: int
    n_other: int
    level: float = LEVEL

    @property
    def verdict(self) -> VariantVerdict:
        """faster, slower or within_noise: ``other`` against ``base``, by whether the interval excludes 1."""
        if self.low > 1.0:
            return VariantVerdict.FASTER
        if self.high < 1.0:
            return VariantVerdict.SLOWER
        return VariantVerdict.WITHIN_NOISE

    @property
    def half_width(self) -> float:
        """Half the interval's width relative to the ratio (0.03 = ±3%)."""
        return (self.high - self.low) / 2.0 / self.ratio if self.ratio > 0 else math.inf

    def text(self) -> str:
        """'1.34x faster (95% CI 1.29–1.39)', '1.10x slower (95% CI ...)' or 'within noise (1.01x, 95% CI ...)'."""
        ci = f"{self.level:.0%} CI {self.low:.2f}–{self.high:.2f}"
        if self.method == CiMethod.SUMMARY:
            ci += ", approximate: no raw samples recorded"
        if self.verdict == "faster":
            return f"{self.ratio:.2f}x faster ({ci})"
        if self.verdict == "slower":
            return f"{1.0 / self.ratio:.2f}x slower ({ci} as a speed-up)"
        return f"within noise ({self.ratio:.2f}x, {ci})"


def median(values: np.ndarray) -> Any:
    """``np.median(values, axis=-1)`` for NaN-free samples, by the same partition and the same arithmetic (equal
    to the last bit), without what ``np.median`` adds around it: its NaN check imports ``numpy.ma`` (20 ms, once
    a process) and it costs ~10 µs a call more. A 1-D array gives a float, a 2-D one each row's median."""
    n = values.shape[-1]
    if n == 0:
        raise ValueError("median of no samples")
    half = n // 2
    if n % 2:
        return np.partition(values, half, axis=-1)[..., half]
    part = np.partition(values, (half - 1, half), axis=-1)
    return (part[..., half - 1] + part[..., half]) / 2


def list_median(values: Sequence[float]) -> float:
    """``statistics.median(values)``, the same arithmetic (the middle value, or the mean of the two middle ones),
    without importing ``statistics`` (and ``fractions``, ``decimal``) into every ``check`` (~3 ms, issue 15)."""
    data = sorted(values)
    n = len(data)
    if n == 0:
        raise ValueError("median of no samples")
    if n % 2:
        return data[n // 2]
    return (data[n // 2 - 1] + data[n // 2]) / 2


def list_quantiles(values: Sequence[float], n: int) -> list[float]:
    """``statistics.quantiles(values, n=n)`` (its default, ``method="exclusive"``), the same integer steps and
    float arithmetic; at least two values."""
    data = sorted(values)
    ld = len(data)
    if ld < 2:
        raise ValueError("quantiles need at least two samples")
    m = ld + 1
    result = []
    for i in range(1, n):
        j = i * m // n  # i rescaled to m/n, clamped to 1 .. ld-1
        j = 1 if j < 1 else ld - 1 if j > ld - 1 else j
        delta = i * m - j * n  # exact integer arithmetic
        result.append((data[j - 1] * (n - delta) + data[j] * delta) / n)
    return result


def _percentiles(values: np.ndarray, level: float) -> tuple[float, float]:
    alpha = (1.0 - level) / 2.0
    low, high = np.quantile(values, [alpha, 1.0 - alpha])
    return float(low), float(high)


CHUNK = 2_000_000  # resampled values held at once


def _boot_medians(rng: np.random.Generator, arrays: Sequence[np.ndarray], resamples: int) -> list[np.ndarray]:
    """Bootstrap medians of each array, resampling the same indices for all (paired; equal lengths), in chunks."""
    n = arrays[0].size
    rows = max(1, CHUNK // n)
    out: list[list[np.ndarray]] = [[] for _ in arrays]
    done = 0
    while done < resamples:
        k = min(rows, resamples - done)
        idx = rng.integers(0, n, size=(k, n))
        for i, arr in enumerate(arrays):
            out[i].append(median(arr[idx]))
        done += k
    return [np.concatenate(parts) for parts in out]


_MEMO: dict[tuple[Any, ...], Any] = {}  # a report asks for the same interval several times; each costs a bootstrap


def _digest(arr: np.ndarray) -> bytes:
    return hashlib.blake2b(arr.tobytes(), digest_size=16).digest()


def _remember(key: tuple[Any, ...], compute: Callable[[], Any]) -> Any:
    if key not in _MEMO:
        if len(_MEMO) > 256:
            _MEMO.clear()
        _MEMO[key] = compute()
    return _MEMO[key]


def ratio_ci(base: Sequence[float], other: Sequence[float], level: float = LEVEL, resamples: int = RESAMPLES,
             seed: int = SEED) -> RatioCI:
    """median(base)/median(other) and its percentile-bootstrap interval; paired by round where lengths match."""
    b = np.asarray(base, dtype=np.float64)
    o = np.asarray(other, dtype=np.float64)
    if b.size == 0 or o.size == 0:
        raise ValueError("ratio_ci needs samples on both sides")
    key = ("ratio", _digest(b), _digest(o), level, resamples, seed)
    return _remember(key, lambda: _ratio_ci(b, o, level, resamples, seed))  # type: ignore[no-any-return]


def _ratio_ci(b: np.ndarray, o: np.ndarray, level: float, resamples: int, seed: int) -> RatioCI:
    ratio = float(median(b) / median(o))
    rng = np.random.default_rng(seed)
    if b.size == o.size:
        mb, mo = _boot_medians(rng, [b, o], resamples)
        boot = mb / mo
        method = CiMethod.BOOTSTRAP_PAIRED
    else:
        boot = _boot_medians(rng, [b], resamples)[0] / _boot_medians(rng, [o], resamples)[0]
        method = CiMethod.BOOTSTRAP
    low, high = _percentiles(boot, level)
    return RatioCI(ratio, min(low, ratio), max(high, ratio), method, int(b.size), int(o.size), level)


def median_ci(samples: Sequence[float], level: float = LEVEL, resamples: int = RESAMPLES,
              seed: int = SEED) -> tuple[float, float, float]:
    """(median, low, high) of ``samples`` with a percentile-bootstrap interval."""
    arr = np.asarray(samples, dtype=np.float64)
    if arr.size == 0:
        raise ValueError("median_ci needs samples")
    return _remember(("median", _digest(arr), level, resamples, seed),  # type: ignore[no-any-return]
                     lambda: _median_ci(arr, level, resamples, seed))


def _median_ci(arr: np.ndarray, level: float, resamples: int, seed: int) -> tuple[float, float, float]:
    med = float(median(arr))
    rng = np.random.default_rng(seed)
    boot = _boot_medians(rng, [arr], resamples)[0]
    low, high = _percentiles(boot, level)
    return med, min(low, med), max(high, med)


def summary_ratio_ci(base_median: float, base_p25: float, base_p75: float, n_base: int, other_median: float,
                     other_p25: float, other_p75: float, n_other: int, level: float = LEVEL) -> RatioCI:
    """An approximate interval from summary quantiles (records without raw samples); see the module docstring."""
    z = _z(level)

    def se_log(median: float, p25: float, p75: float, n: int) -> float:
        sigma = max(p75 - p25, 0.0) / 1.349
        return 1.2533 * sigma / math.sqrt(max(n, 1)) / median if median > 0 else math.inf

    ratio = base_median / other_median
    se = math.hypot(se_log(base_median, base_p25, base_p75, n_base), se_log(other_median, other_p25, other_p75, n_other))
    log_r = math.log(ratio)
    return RatioCI(ratio, _exp(log_r - z * se), _exp(log_r + z * se), CiMethod.SUMMARY, n_base, n_other, level)


def _exp(x: float) -> float:
    """``math.exp`` that gives inf where the result is too large for a float (a recorded spread hundreds of times
    its median), rather than raising OverflowError."""
    try:
        return math.exp(x)
    except OverflowError:
        return math.inf


def _z(level: float) -> float:
    """The two-sided normal quantile for ``level`` (0.95 -> 1.96), by bisection on erf."""
    target = (1.0 + level) / 2.0
    lo, hi = 0.0, 10.0
    for _ in range(80):
        mid = (lo + hi) / 2.0
        if 0.5 * (1.0 + math.erf(mid / math.sqrt(2.0))) < target:
            lo = mid
        else:
            hi = mid
    return (lo + hi) / 2.0


def precise_enough(samples: dict[str, list[float]], base: str, target: float = TARGET,
                   resamples: int = 400, seed: int = SEED) -> bool:
    """Whether every variant's speed-up interval against ``base`` is within ±``target``."""
    if base not in samples or len(samples) < 2:
        return True
    for name, values in samples.items():
        if name == base:
            continue
        if ratio_ci(samples[base], values, resamples=resamples, seed=seed).half_width > target:
            return False
    return True


class Sampler(msgspec.Struct):
    """Interleaved timed rounds (one call of each variant per round) until precise enough or out of time.

    ``timer(call)`` times one call and returns (host_ms, gpu_ms or None). ``clock`` is the wall clock the budget is
    spent on (seconds). The first ``min_rounds`` rounds always run (the calibration); each later batch is sized
    from the interval's width (it narrows as 1/√n) and the time left.
    """

    calls: dict[str, Callable[[], Any]]
    timer: Callable[[Callable[[], Any]], tuple[float, float | None]]
    base: str = "plain"
    min_rounds: int = 50
    budget_s: float = 5.0
    target: float = TARGET
    max_rounds: int = MAX_ROUNDS
    clock: Callable[[], float] = time.perf_counter
    host: dict[str, list[float]] = field(default_factory=dict)
    gpu: dict[str, list[float]] = field(default_factory=dict)
    stop_reason: str = ""

    def _round(self) -> None:
        for name, call in self.calls.items():
            host_ms, gpu_ms = self.timer(call)
            self.host.setdefault(name, []).append(host_ms)
            if gpu_ms is not None:
                self.gpu.setdefault(name, []).append(gpu_ms)

    def run(self) -> dict[str, list[float]]:
        """Time the variants (class doc) and return the host times per variant, ms per call; ``gpu`` holds the GPU
        times where the timer gives them, ``stop_reason`` says why sampling stopped."""
        start = self.clock()
        self.host = {name: [] for name in self.calls}
        self.gpu = {}
        for _ in range(self.min_rounds):
            self._round()
        rounds = self.min_rounds
        while True:
            if precise_enough(self.host, self.base, self.target):
                self.stop_reason = f"every interval within ±{self.target:.0%} after {rounds} rounds"
                return self.host
            spent = self.clock() - start
            if spent >= self.budget_s:
                self.stop_reason = f"time budget of {self.budget_s:g} s spent after {rounds} rounds"
                return self.host
            if rounds >= self.max_rounds:
                self.stop_reason = f"{self.max_rounds} rounds reached"
                return self.host
            per_round = spent / rounds if rounds else 0.0
            worst = max((ratio_ci(self.host[self.base], v, resamples=400).half_width
                         for n, v in self.host.items() if n != self.base), default=self.target)
            wanted = int(rounds * ((worst / self.target) ** 2 - 1.0)) + 1
            left = int((self.budget_s - spent) / per_round) if per_round > 0 else wanted
            batch = max(1, min(wanted, left, rounds, self.max_rounds - rounds))  # at most double per step
            for _ in range(batch):
                self._round()
            rounds += batch
