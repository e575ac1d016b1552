"""Every generated code block run as printed next to plain run() before a report offers it (collect/code_check.py),
and the code feeding what the check fed (issue 36). On this machine CUDA does not load: the checks run the predicted
plan's code on CPU OrtValues, as a user's CPU machine does."""

from __future__ import annotations

import msgspec

import numpy as np
import onnx
import pytest

import models
from ortcopy_doctor.analysis.binding import code_names, make_plan, render_code
from ortcopy_doctor.api import check
from ortcopy_doctor.collect.code_check import (
    CALLS,
    Reference,
    call_inputs,
    check_block,
    code_sha256,
    execute,
    quiet,
    reference_options,
)
from ortcopy_doctor.collect.feeds import build_feeds
from ortcopy_doctor.collect.session import CheckOptions

CUDA_AND_CPU = ["CUDAExecutionProvider", "CPUExecutionProvider"]


def _save(model: onnx.ModelProto, tmp_path, name: str = "model.onnx"):
    path = tmp_path / name
    onnx.save(model, str(path))
    return path


def _predicted_checks(report):
    """The checks of the code the report shows: the predicted plan's, where CUDA did not load (this machine)."""
    assert report.evidence.session.active_providers == ["CPUExecutionProvider"], "this test assumes no CUDA here"
    return {c.block: c for c in report.evidence.predicted.code_checks}


def test_the_shown_code_of_a_cpu_machine_is_run_for_three_calls_and_matches(tmp_path):
    report = check(_save(models.stateful(), tmp_path), dims={"batch": 2}, timed_runs=1)
    (plan_check,) = _predicted_checks(report).values()
    assert (plan_check.block, plan_check.status, plan_check.device, plan_check.calls) == ("plan", "matched", "cpu", 4)
    shown = report.shown_binding()
    assert plan_check.code_sha256 == code_sha256(shown.code)  # the very code the report shows
    assert shown.code_check == ("checked on CPU OrtValues ('cpu' for 'cuda'; no GPU here): run as printed for 4 calls "
                                "with different inputs, the same outputs as plain run()")
    assert report.findings == [f for f in report.findings if f.rule != "OCD013"]


def test_plain_runs_session_keeps_its_threads_from_spinning():
    """Plain run()'s session (the reference) has the check's options, and its idle intra-op threads do not spin,
    which would take the CPUs from the block's session."""
    import onnxruntime as ort

    so = reference_options(ort, CheckOptions())
    assert so.get_session_config_entry("session.intra_op.allow_spinning") == "0"
    assert so.log_severity_level == 3
    assert so.enable_profiling is False


def test_the_sigmoid_in_out_code_carries_no_guessed_state(tmp_path):
    """Issue 36: a one-node Sigmoid, image_in -> image_out, got code that fed each output back as the next input;
    call 2 returned sigmoid(sigmoid(x)). Names alike are a guess now: the code carries nothing, and its calls match
    plain run() with other inputs each time."""
    report = check(_save(models.sigmoid_in_out(), tmp_path), dims={"n": 2}, timed_runs=1)
    shown = report.shown_binding()
    assert shown.state_pairs == []
    assert [(c.input, c.output, c.basis) for c in shown.possible_state] == [("image_in", "image_out", "guess")]
    assert "image_in_on_device, image_out_on_device = " not in shown.code
    assert _predicted_checks(report)["plan"].status == "matched"


def test_code_that_swaps_a_state_the_model_does_not_carry_gives_other_outputs(tmp_path):
    """The defect itself, run: the code of --state image_in=image_out feeds the output back. Checked against the loop
    --state describes, it matches; checked as a stateless model's code (plain run() of the same image each call), the
    call that writes no new input (code pasted as is) returns sigmoid(sigmoid(x)) and differs."""
    path = _save(models.sigmoid_in_out(), tmp_path)
    report = check(path, dims={"n": 2}, timed_runs=1, state={"image_in": "image_out"})
    evidence = report.evidence.predicted
    carried = msgspec.structs.replace(make_plan(evidence), device_type="cpu")
    assert carried.state_pairs == [("image_in", "image_out")]
    stateless = msgspec.structs.replace(carried, entries=[msgspec.structs.replace(e, state_pair=None) for e in carried.entries])
    import onnxruntime as ort

    arrays, _ = build_feeds(evidence.model.inputs, {"n": 2})
    later = call_inputs(evidence, arrays)
    with quiet():
        reference = Reference(ort.InferenceSession(str(path), providers=["CPUExecutionProvider"]), ["image_out"])
        block = execute("plan", render_code(evidence, carried), carried, None)
        as_said = check_block(block, reference, later, "cpu")
        block.namespace.clear()
        block = execute("plan", render_code(evidence, carried), stateless, None)
        differs = check_block(block, reference, later, "cpu")
        block.namespace.clear()
    assert as_said.status == "matched"
    assert differs.status == "differs"
    assert differs.detail.startswith("call 4: output 'image_out': values differ (largest difference ")


def test_a_block_that_raises_is_failed_with_its_error(tmp_path):
    path = _save(models.stateful(), tmp_path)
    report = check(path, dims={"batch": 2}, timed_runs=1)
    evidence = report.evidence.predicted
    plan = msgspec.structs.replace(make_plan(evidence), device_type="cpu")
    import onnxruntime as ort

    arrays, _ = build_feeds(evidence.model.inputs, {"batch": 2})
    broken = render_code(evidence, plan).replace(
        "\ndef infer():\n", "\ncalls = []\n\ndef infer():\n    calls.append(1)\n    assert len(calls) < 2, 'a second call'\n", 1)
    with quiet():
        reference = Reference(ort.InferenceSession(str(path), providers=["CPUExecutionProvider"]), ["y", "state_out"])
        block = execute("plan", broken, plan, None)
        result = check_block(block, reference, call_inputs(evidence, arrays), "cpu")
        block.namespace.clear()
    assert (result.status, result.calls) == ("failed", 2)
    assert result.detail == "call 2 raised AssertionError: a second call"


def test_later_calls_get_other_synthesized_inputs_and_the_values_given(tmp_path):
    evidence = check(_save(models.streaming_state(), tmp_path), providers=["CPUExecutionProvider"],
                     dims={"batch": 1, "samples": 8}, values={"sr": "16000"}, timed_runs=1).evidence
    arrays = {"input": np.ones((1, 8), np.float32), "state": np.zeros((2, 1, 4), np.float32),
              "sr": np.array(16000, np.int64)}
    later = call_inputs(evidence, arrays)
    assert len(later) == CALLS - 1 == 3
    for feeds in later[:2]:
        assert not np.array_equal(feeds["input"], arrays["input"]) and feeds["input"].shape == (1, 8)
        assert feeds["sr"] is arrays["sr"]  # --value stays as given
    assert not np.array_equal(later[0]["input"], later[1]["input"])
    assert later[2] is None  # the last call writes nothing: infer() again, as code pasted as is is called


def test_a_value_given_is_fed_literally_and_the_code_matches(tmp_path):
    """Issue 36: with --value sr=16000 every code block synthesized sr = rng.integers(0, 4) and failed as printed
    (Silero VAD: "Pad reflect requires axis length >= 2"). The code feeds 16000 now, and runs."""
    report = check(_save(models.streaming_state(), tmp_path), dims={"batch": 1, "samples": 8},
                   values={"sr": "16000"}, timed_runs=1)
    code = report.shown_binding().code
    assert "sr = np.full((), 16000, dtype=np.int64)" in code
    assert "rng.integers(0, 4" not in code
    assert _predicted_checks(report)["plan"].status == "matched"
    feed = next(f for f in report.evidence.feeds if f.name == "sr")
    assert (feed.source, feed.value) == ("value", "16000")


def test_a_state_whose_output_dims_are_named_anew_is_carried_at_its_input_shape(tmp_path):
    """Silero VAD's stateN is declared [AddstateN_dim_0, batch, AddstateN_dim_2] for a [2, batch, 128] state: paired
    by the exporter's convention, pre-allocated at the input's shape, written with its constants."""
    report = check(_save(models.streaming_state(), tmp_path), dims={"batch": 1, "samples": 8},
                   values={"sr": "16000"}, timed_runs=1)
    shown = report.shown_binding()
    assert shown.state_pairs == [("state", "stateN")]
    assert shown.entry("stateN", "output").state_basis == "convention"
    assert "stateN_on_device = ort.OrtValue.ortvalue_from_shape_and_type(\n    [2, BATCH, 4]," in shown.code


def test_dynamic_dims_are_named_constants_that_say_where_they_came_from(tmp_path):
    report = check(_save(models.stateful(), tmp_path), timed_runs=1)  # batch not given: taken as 1
    code = report.shown_binding().code
    assert "BATCH = 1  # 'batch' taken as 1: nothing sized it (--dim batch=N)\n" in code
    assert "x = rng.standard_normal((BATCH, 32)).astype(np.float32)\n" in code
    assert "y_on_device = ort.OrtValue.ortvalue_from_shape_and_type(\n    [BATCH, 8], np.float32, 'cuda', 0\n)" in code
    given = check(_save(models.stateful(), tmp_path, "given.onnx"), dims={"batch": 3}, timed_runs=1)
    assert "BATCH = 3  # 'batch' as this check fed it\n" in given.shown_binding().code


def test_an_output_of_data_dependent_shape_is_bound_again_before_each_call(tmp_path):
    """Bound once with bind_output(name, device), NonZero's output failed on the next call whose count differed
    (onnxruntime 1.31.1: "The output OrtValue provided for output ... has shape {1,2} but the computed output shape
    for this run is {1,3}"). Found by running the code with other inputs; infer() binds it again now."""
    report = check(_save(models.data_dependent_shape(), tmp_path), dims={"batch": 2, "rows": 4, "cols": 8},
                   timed_runs=1)
    shown = report.shown_binding()
    dynamic = [e.name for e in shown.outputs if e.place == "device" and not e.preallocate]
    assert dynamic
    for name in dynamic:
        assert (f"def infer():\n    # its shape varies: ORT allocates it anew each run\n"
                f"    binding.bind_output({name!r}, 'cuda', 0)\n") in shown.code
    assert _predicted_checks(report)["plan"].status == "matched"


@pytest.mark.parametrize("name", ["conv_net", "stateful", "cpu_only_inputs", "data_dependent_shape", "if_on_device",
                                  "demo"])
def test_the_dry_run_checks_the_plan_and_everything_bound(tmp_path, name):
    """The machinery on a CUDA session's evidence recorded on the H200, run on CPU OrtValues: the plan's code and
    the everything-bound code each match plain run() over 3 calls; the other blocks say why they did not run."""
    from ortcopy_doctor.collect.code_check import check_code
    from ortcopy_doctor.collect.session import CheckOptions
    from test_measure import _dry_evidence

    evidence, path, arrays, options = _dry_evidence(tmp_path, name)
    with quiet():
        checks, blocks = check_code(evidence, path, arrays, options, dry_run=True)
        for block in blocks.values():
            block.namespace.clear()
    assert {c.block: (c.status, c.device, c.calls) for c in checks} == {
        "plan": ("matched", "cpu", 4), "all_device": ("matched", "cpu", 4)}
    assert isinstance(options, CheckOptions)


def test_a_symbol_naming_dims_of_other_sizes_is_no_constant(tmp_path):
    """paddle2onnx names every unknown dim '?' (PP-OCR's classifier: x is [-1, 3, '?', '?']): one constant for both
    fed 48 x 192 made the code's image 48 x 48, and its calls failed. Each such dim is its own constant now."""
    from onnx import TensorProto, helper

    model = models._model([helper.make_node("Relu", ["x"], ["y"], name="relu")],
                          [helper.make_tensor_value_info("x", TensorProto.FLOAT, [-1, 3, "?", "?"])],
                          [helper.make_tensor_value_info("y", TensorProto.FLOAT, [-1, 3, "?", "?"])])
    report = check(_save(model, tmp_path), shapes={"x": [2, 3, 48, 192]}, timed_runs=1)
    code = report.shown_binding().code
    assert ("X_DIM0 = 2  # dim 0 of 'x' (declared -1) as this check fed it\n"
            "X_DIM2 = 48  # dim 2 of 'x' (declared '?') as this check fed it\n"
            "X_DIM3 = 192  # dim 3 of 'x' (declared '?') as this check fed it\n") in code
    assert "x = rng.standard_normal((X_DIM0, 3, X_DIM2, X_DIM3)).astype(np.float32)" in code
    assert _predicted_checks(report)["plan"].status == "matched"
