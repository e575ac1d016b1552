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


def _workspace(first_ms: float, median_ms: float) -> SearchTiming:
    return SearchTiming("EXHAUSTIVE", first_ms=first_ms, median_ms=median_ms, max_workspace="0")


def test_names_the_other_workspace_with_its_measurement():
    (finding,) = findings_of(RULE, _evidence(*H200, _workspace(1377.0, 6.9)))
    assert finding.message.endswith("; EXHAUSTIVE with cudnn_conv_use_max_workspace=0: first run 1377 ms, then 6.9 "
                                    "ms per run (+1% in the steady state)")
    assert (finding.details["workspace"], finding.details["workspace_first_ms"]) == ("0", 1377.0)


def test_recommends_the_other_workspace_where_it_cuts_the_search_at_little_steady_cost():
    (finding,) = findings_of(RULE, _evidence(*H200, _workspace(400.0, 6.9)))
    assert ("to keep EXHAUSTIVE's kernels, {'cudnn_conv_use_max_workspace': '0'} cuts its first run from 1377 ms to "
            "400 ms at a +1% steady-state cost") in finding.fix


def test_does_not_recommend_the_other_workspace_where_its_kernels_are_slower():
    (finding,) = findings_of(RULE, _evidence(*H200, _workspace(400.0, 9.0)))
    assert "cudnn_conv_use_max_workspace" not in finding.fix


def test_the_workspace_timing_is_labelled_apart_from_ort_s_default():
    assert (_workspace(1.0, 1.0).label, H200[0].label) == ("EXHAUSTIVE with cudnn_conv_use_max_workspace=0",
                                                             "EXHAUSTIVE")
