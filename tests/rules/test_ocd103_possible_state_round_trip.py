"""OCD103 possible-state-round-trip: state traced by equal bytes alone, said as info and not counted."""

from __future__ import annotations

from ortcopy_doctor.rules import possible_state_round_trip
from rule_cases import run_findings_of, state_observations

RULE = possible_state_round_trip.RULE


def test_fires_as_info_for_state_traced_by_equal_bytes_alone():
    (finding,) = run_findings_of(RULE, state_observations("hash"))
    assert (finding.severity, finding.location, finding.details["subject"]) == ("info", "/w/prog.py:main:12",
                                                                                "a.onnx:y -> x")
    assert finding.message.startswith("possible state round trip: output `y` of a.onnx has the same bytes as input "
                                      "`x` of the next call (2 call(s))")


def test_is_silent_where_the_program_is_seen_feeding_the_output_back():
    assert run_findings_of(RULE, state_observations("object")) == []
