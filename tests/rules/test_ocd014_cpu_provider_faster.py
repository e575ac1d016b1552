"""OCD014 cpu-provider-faster: the CPU provider measured faster than CUDA at the check's inputs (issue 34)."""

from __future__ import annotations

import msgspec

from ortcopy_doctor.model.replay import ProviderChoice, ProviderTiming, ShapeComparison
from ortcopy_doctor.rules import cpu_provider_faster
from rule_cases import CPU, CUDA, findings_of, recorded_evidence

RULE = cpu_provider_faster.RULE
THREADS = "ORT's default session options (its intra-op threads: one per physical core; 16 CPUs here)"


def _choice(cuda_ms: float, cpu_ms: float, low: float, high: float) -> ProviderChoice:
    comparison = ShapeComparison(shape="1x576", program_calls=0,
                                 used=ProviderTiming(CUDA, first_ms=700.0, median_ms=cuda_ms),
                                 other=ProviderTiming(CPU, first_ms=1.0, median_ms=cpu_ms),
                                 ratio=cuda_ms / cpu_ms, ratio_low=low, ratio_high=high)
    return ProviderChoice(cpu=comparison, cpu_threads=THREADS)


def _evidence(choice):
    return msgspec.structs.replace(recorded_evidence("conv_net"), provider_choice=choice)


def test_fires_where_the_interval_shows_the_cpu_faster():
    (finding,) = findings_of(RULE, _evidence(_choice(0.72, 0.22, 3.1, 3.4)))
    assert (finding.rule, finding.slug, finding.severity, finding.location) == (
        "OCD014", "cpu-provider-faster", "warning", "session")
    assert finding.message == ("At 1x576 the CPU provider runs the model in 0.22 ms per run against 0.72 ms on CUDA "
                               "(numpy in and out, copies included, timed in turn): the CPU is 3.27x faster (95% CI "
                               f"3.10–3.40); {THREADS}")
    assert finding.fix.startswith("Create the session with providers=['CPUExecutionProvider']")


def test_silent_where_cuda_is_faster():
    assert findings_of(RULE, _evidence(_choice(2.5, 7.1, 0.33, 0.37))) == []


def test_silent_within_noise():
    assert findings_of(RULE, _evidence(_choice(1.0, 0.98, 0.97, 1.06))) == []


def test_silent_where_nothing_was_measured():
    assert findings_of(RULE, recorded_evidence("conv_net")) == []
