"""OCD015 conv-algo-search: the first run at a new shape under each cudnn_conv_algo_search value (issue 34)."""

from __future__ import annotations

import msgspec

from ortcopy_doctor.model.replay import ProviderChoice, SearchTiming
from ortcopy_doctor.rules import conv_algo_search
from rule_cases import findings_of, recorded_evidence

RULE = conv_algo_search.RULE


def _evidence(*timings: SearchTiming):
    return msgspec.structs.replace(recorded_evidence("conv_net"), provider_choice=ProviderChoice(search=list(timings)))


# The PP-OCRv4 detector on the H200 (tools/probe_conv_search.py): first run and steady state per option.
H200 = (SearchTiming("EXHAUSTIVE", first_ms=1377.2, median_ms=6.85), SearchTiming("HEURISTIC", first_ms=190.7,
        median_ms=7.2), SearchTiming("DEFAULT", first_ms=261.5, median_ms=125.7))


def test_fires_with_the_measured_trade_off():
    (finding,) = findings_of(RULE, _evidence(*H200))
    assert (finding.rule, finding.severity, finding.location) == ("OCD015", "info", "session")
    assert finding.message == ("The first run at a new input shape takes 1377 ms with cudnn_conv_algo_search "
                               "EXHAUSTIVE (ORT's default) and 190.7 ms with HEURISTIC, which is 5% slower in the "
                               "steady state (7.2 ms against 6.85 ms per run); DEFAULT (no search): first run 261.5 "
                               "ms, then 126 ms per run")
    assert ("HEURISTIC cuts the first run at a new shape from 1377 ms to 190.7 ms at a +5% steady-state cost"
            in finding.fix)
    assert finding.details["steady_cost"] == 0.0511


def test_silent_where_the_search_costs_little():
    assert findings_of(RULE, _evidence(SearchTiming("EXHAUSTIVE", 30.0, 5.0), SearchTiming("HEURISTIC", 20.0, 5.0))) == []


def test_silent_without_the_measurement():
    assert findings_of(RULE, recorded_evidence("conv_net")) == []
