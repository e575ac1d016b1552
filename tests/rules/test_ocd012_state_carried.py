"""OCD012 state-carried: an output taken as the next run's input on evidence (--state, a recurrent node, an
exporter's naming convention), and an input and output alike in name and shape only, said as a guess."""

from __future__ import annotations

import onnx

import models
from ortcopy_doctor.api import check
from ortcopy_doctor.rules import state_carried
from rule_cases import CPU, cpu_check_evidence, findings_of, recorded_evidence

RULE = state_carried.RULE


def _static(model, tmp_path, **options):
    path = tmp_path / "model.onnx"
    onnx.save(model, str(path))
    return check(path, static=True, **options).evidence


def test_fires_for_a_state_named_as_exporters_name_it():
    (finding,) = findings_of(RULE, recorded_evidence("stateful"))
    assert (finding.rule, finding.slug, finding.severity, finding.location) == ("OCD012", "state-carried", "info",
                                                                               "state")
    assert finding.message == ("Output 'state_out' is taken as the next run's input 'state' (named as exporters name "
                               "recurrent state): the binding code keeps both on the device and swaps their buffers "
                               "between runs")
    assert finding.details == {"output": "state_out", "basis": "convention"}


def test_fires_for_the_initial_and_final_state_of_an_lstm(tmp_path):
    findings = findings_of(RULE, _static(models.lstm_h_c(), tmp_path, dims={"steps": 5}))
    assert [(f.location, f.details["output"], f.details["basis"], f.predicted) for f in findings] == [
        ("h", "hn", "recurrent_node", True), ("c", "cn", "recurrent_node", True)]


def test_says_a_guess_for_names_alike_and_does_not_carry_it(tmp_path):
    evidence = _static(models.sigmoid_in_out(), tmp_path)
    (finding,) = findings_of(RULE, evidence)
    assert finding.message == ("Output 'image_out' may be the next run's input 'image_in' (names alike and the same "
                               "shape and dtype, nothing more): a guess, so the binding code treats them as "
                               "independent")
    assert finding.fix == ("If the program feeds 'image_out' back as 'image_in', check with --state "
                           "image_in=image_out for code that keeps it on the device")
    assert finding.details == {"output": "image_out", "basis": "guess"}


def test_fires_as_given_with_state(tmp_path):
    (finding,) = findings_of(RULE, _static(models.sigmoid_in_out(), tmp_path, state={"image_in": "image_out"},
                                            dims={"n": 2}))
    assert finding.message.startswith("Output 'image_out' is taken as the next run's input 'image_in' (as --state "
                                      "image_in=image_out says)")
    assert finding.details["basis"] == "given"


def test_says_state_it_cannot_carry_where_its_size_is_unknown(tmp_path):
    (finding,) = findings_of(RULE, _static(models.sigmoid_in_out(), tmp_path, state={"image_in": "image_out"}))
    assert finding.message == ("Output 'image_out' is the next run's input 'image_in' (as --state image_in=image_out "
                               "says), but the binding code does not carry it: its size is not known here (['n', 3, "
                               "8, 8]), so the code cannot pre-allocate it: size the dims (--dim) for code that "
                               "carries it")
    assert finding.details == {"output": "image_out", "basis": "given"}


def test_silent_without_a_device(tmp_path):
    assert findings_of(RULE, cpu_check_evidence(models.stateful(), tmp_path, batch=2)) == []
    assert CPU  # the check above ran on the CPU provider alone


def test_silent_without_state():
    assert findings_of(RULE, recorded_evidence("conv_net")) == []
