"""OCD102 state-round-trip: state fed back to the next call through the host, recorded on the H200
(examples/streaming_state.py) and built here with a call site."""

from __future__ import annotations

from ortcopy_doctor.rules import state_round_trip
from rule_cases import pipeline_observations, run_findings_of, state_observations

RULE = state_round_trip.RULE


def test_fires_for_recorded_state_going_through_the_host():
    (finding,) = run_findings_of(RULE, pipeline_observations("pipelines/streaming_state"))
    assert (finding.severity, finding.location, finding.bytes_per_run) == ("warning", "cell.onnx", 506812)
    assert finding.details["subject"] == "cell.onnx:h_out -> h_in"
    assert finding.fix.startswith("keep the state on the device: bind `h_out` to a device OrtValue")


def test_is_located_at_the_call_site_the_observations_record():
    (finding,) = run_findings_of(RULE, state_observations("object"))
    assert (finding.location, finding.details["site"], finding.bytes_per_run) == ("/w/prog.py:main:12",
                                                                                  "/w/prog.py:main:12", 5461)


def test_is_silent_for_state_traced_by_equal_bytes_alone():
    assert run_findings_of(RULE, state_observations("hash")) == []
