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


def test_is_silent_where_the_copies_were_predicted_for_a_device_the_session_stays_off():
    """On the H200 the session ran on the CPU (no providers) and its round trip is predicted for CUDA; where the
    replay measured the CPU faster, the session stays there and the predicted copies do not apply."""
    from msgspec.structs import replace

    from pipeline_cases import replay

    obs = pipeline_observations("providers/noproviders_h200")
    assert len(run_findings_of(RULE, obs)) == 1
    kept = replace(obs, replays=[replay("cell.onnx", "CPUExecutionProvider", "CUDAExecutionProvider", 0.1, 0.4, 0.2,
                                        0.3)])
    assert run_findings_of(RULE, kept) == []
