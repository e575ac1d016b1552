"""analysis/codelayout.py: generated code laid out within 88 characters, the same program."""

from __future__ import annotations

import pytest

from fixture_loader import recorded_report
from ortcopy_doctor.analysis import binding as binding_module
from ortcopy_doctor.analysis import codelayout
from ortcopy_doctor.analysis.binding import FLAVORS, render_code, render_cuda_graph_code
from ortcopy_doctor.analysis.codelayout import WIDTH, fit
from render_helpers import fixture_report_dict, program, renamed, write_report_json

GPU_MODELS = ["conv_net", "cpu_op_between", "data_dependent_shape", "sequence_output", "map_output", "if_on_device",
              "cpu_only_inputs", "stateful", "shape_subgraph", "demo"]


def test_code_within_the_width_is_kept_as_it_is():
    code = "x = f(a, b)  # a note\n"
    assert fit(code) is code


def test_a_trailing_comment_that_does_not_fit_goes_above_its_statement():
    code = "value = compute(alpha)  # " + "why " * 20 + "\n"
    assert fit(code, width=40) == (
        "# why why why why why why why why why\n"
        "# why why why why why why why why why\n"
        "# why why\n"
        "value = compute(alpha)\n")


def test_the_comment_above_keeps_the_statements_indentation():
    code = "def infer():\n    session.run_with_iobinding(binding)  # no copies for what is bound on the device\n"
    assert fit(code, width=50) == (
        "def infer():\n"
        "    # no copies for what is bound on the device\n"
        "    session.run_with_iobinding(binding)\n")


def test_a_comment_breaks_between_words_never_inside_one():
    word = "x" * 60
    code = f"# short {word} end\n"
    assert fit(code, width=40) == f"# short\n# {word}\n# end\n"


def test_a_long_call_puts_its_arguments_on_one_line_of_their_own():
    code = "scores = ort.OrtValue.ortvalue_from_shape_and_type([32, 128], np.float32, 'cuda', 0)\n"
    assert fit(code, width=60) == (
        "scores = ort.OrtValue.ortvalue_from_shape_and_type(\n"
        "    [32, 128], np.float32, 'cuda', 0\n"
        ")\n")


def test_arguments_too_long_for_one_line_go_one_per_line_with_a_trailing_comma():
    code = "binding.bind_input('state_out', 'cuda', 0, np.float32, tuple(state_out.shape), state_out.data_ptr())\n"
    assert fit(code, width=50) == (
        "binding.bind_input(\n"
        "    'state_out',\n"
        "    'cuda',\n"
        "    0,\n"
        "    np.float32,\n"
        "    tuple(state_out.shape),\n"
        "    state_out.data_ptr(),\n"
        ")\n")


def test_an_argument_still_too_long_is_split_again():
    code = ("session = ort.InferenceSession(MODEL, providers=[('CUDAExecutionProvider', {'device_id': 0, "
            "'enable_cuda_graph': '1'}), 'CPUExecutionProvider'])\n")
    assert fit(code) == (
        "session = ort.InferenceSession(\n"
        "    MODEL,\n"
        "    providers=[\n"
        "        ('CUDAExecutionProvider', {'device_id': 0, 'enable_cuda_graph': '1'}),\n"
        "        'CPUExecutionProvider',\n"
        "    ],\n"
        ")\n")


def test_a_for_statement_splits_inside_its_call_and_keeps_the_colon():
    code = "for name, value in zip(['scores', 'active_indices', 'more'], outputs):\n    print(name)\n"
    assert fit(code, width=45) == (
        "for name, value in zip(\n"
        "    ['scores', 'active_indices', 'more'],\n"
        "    outputs,\n"
        "):\n"
        "    print(name)\n")


def test_one_item_too_long_for_its_line_goes_on_a_line_of_its_own():
    code = "x = rng.standard_normal((32, 256)).astype(np.float32)\n"
    assert fit(code, width=45) == "x = rng.standard_normal((32, 256)).astype(\n    np.float32\n)\n"


@pytest.mark.parametrize("code", [
    "print([type(o).__name__ for o in outputs_with_a_long_name_to_go_past_the_width])\n",  # a comprehension
    "keep = sorted(names, key=lambda a, b=1: (a, b, 'a long enough default to pass it'))\n",  # a lambda's commas
    "value = table[some_long_index_name_that_goes_past_the_width_of_forty_columns]\n",  # one index: no tuple
    "x = 'a, b # c, d, e, f, g, h, i, j, k, l, m, n, o, p, q, r, s, t, u, v, w'\n",  # commas inside a string
    "print()\n" + "y = f()" + " " * 50 + "\n",  # an empty bracket
])
def test_what_has_no_place_to_break_stays_as_it_is(code):
    """Nothing to split at, or an item that does not fit on its own line and whose commas are not the bracket's
    (a trailing comma would make a tuple or break the comprehension)."""
    assert fit(code, width=40) == code


def test_commas_and_hashes_inside_strings_stay_inside_them():
    code = "binding.bind_cpu_input('a, b) # c', value_with_a_long_name, 'x # y, z')  # a note\n"
    assert fit(code, width=60) == (
        "# a note\n"
        "binding.bind_cpu_input(\n"
        "    'a, b) # c', value_with_a_long_name, 'x # y, z'\n"
        ")\n")


def test_code_that_does_not_parse_is_returned_as_it_is():
    code = "session = ort.InferenceSession(MODEL, providers=[('CUDAExecutionProvider', {'device_id': 0})\n"
    assert fit(code, width=40) is code


def test_a_layout_that_would_change_the_program_is_not_used(monkeypatch):
    code = "x = compute(alpha, beta)  # why " + "word " * 20 + "\n"
    monkeypatch.setattr(codelayout, "_fit_line", lambda line, width: ["x = compute(alpha)"])
    assert fit(code, width=40) is code


@pytest.mark.parametrize("name", GPU_MODELS)
def test_the_code_of_every_recorded_model_fits_the_width_and_is_the_program_generated(tmp_path, name):
    report = recorded_report(name, tmp_path)
    evidence, plan = report.evidence, report.binding
    laid_out = [(render_code(evidence, plan, f), binding_module._render_ort(evidence, plan) if f == "onnxruntime"
                 else binding_module._render_tensor_library(evidence, plan, f, True)) for f in FLAVORS]
    for code, generated in laid_out + [(render_cuda_graph_code(evidence, plan), None)]:
        assert [line for line in code.splitlines() if len(line) > WIDTH] == []
        if generated is not None:
            assert program(code) == program(generated)


def test_a_long_name_stays_whole_and_its_variable_is_cut_to_24_characters(tmp_path):
    from ortcopy_doctor.report.core import load_report

    long_name = "encoder/layers.0/self_attention/query_key_value/MatMul_output_0, (a) # not a comment 'x' \"y\""
    evidence = renamed(fixture_report_dict("demo")["evidence"], {"features": long_name})
    report = load_report(write_report_json(evidence, tmp_path / "long.json"))
    code = render_code(report.evidence, report.binding)
    assert program(code) == program(binding_module._render_ort(report.evidence, report.binding))
    assert [line for line in code.splitlines() if len(line) > WIDTH] == [f"    {long_name!r},"]
    assert "encoder_layers_0_self_at = rng.standard_normal((BATCH, 256)).astype(np.float32)\n" in code
    assert "encoder_layers_0_self_at_on_device = ort.OrtValue.ortvalue_from_numpy(\n" in code


def test_a_trailing_subscript_is_not_split_when_an_earlier_bracket_leaves_a_head_that_fits():
    """The finding: ``(...)[0]`` was split at ``[``, leaving the whole call on the first line. The call's bracket
    is split instead, the ``[0]`` kept after it, as black does."""
    code = ("y = session.run(None, {'input_0': input_0, 'input_1': input_1, 'input_2': input_2, "
            "'input_3': input_3})[0]\n")
    assert fit(code) == (
        "y = session.run(\n"
        "    None,\n"
        "    {'input_0': input_0, 'input_1': input_1, 'input_2': input_2, 'input_3': input_3},\n"
        ")[0]\n")
    assert fit("x = f(alpha, beta, gamma).numpy()\n", width=30) == "x = f(\n    alpha, beta, gamma\n).numpy()\n"


def test_a_split_that_leaves_the_line_as_long_is_not_made():
    """The last bracket holds little and the text before it is far over the width: splitting there would only add
    lines, so the line stays as it is."""
    code = "x = " + ", ".join(f"f(a{i})" for i in range(20)) + "\n"
    assert fit(code) == code


def test_items_after_a_long_name_are_still_split():
    """A long name before the last bracket keeps its line long; what the bracket holds goes one item a line."""
    name = "x" * 120
    code = (f"state[{name!r}] = [ort.OrtValue.ortvalue_from_numpy(initial_x, device, 0), "
            "ort.OrtValue.ortvalue_from_numpy(np.empty_like(initial_x), device, 0)]\n")
    assert fit(code) == (f"state[{name!r}] = [\n"
                         "    ort.OrtValue.ortvalue_from_numpy(initial_x, device, 0),\n"
                         "    ort.OrtValue.ortvalue_from_numpy(np.empty_like(initial_x), device, 0),\n"
                         "]\n")


@pytest.mark.parametrize("code", ["x = " + "-" * 3000 + "1\n", "x = " + " + ".join(["[0]"] * 4000) + "\n"])
def test_input_nested_too_deep_to_compile_is_returned_as_it_is(code):
    """RecursionError of the compiler (Python 3.11, 3.12.1, 3.13): ``fit`` returns its input, as for any source that
    does not compile; Python 3.12.3 compiles these and ``fit`` finds no place to split them."""
    assert fit(code) == code


def _steps(code: str) -> int:
    """The Python steps (calls and lines, sys.settrace's events) that ``fit(code)`` takes: a measure of its work
    that does not depend on the machine's speed, nor on the C tokenizer, which is itself quadratic in a line's
    length on Python 3.12.0-3.12.3."""
    import sys

    steps = 0

    def tracer(frame, event, arg):
        nonlocal steps
        steps += 1
        return tracer

    sys.settrace(tracer)
    try:
        assert fit(code) == code
    finally:
        sys.settrace(None)
    return steps


def test_one_long_line_with_many_brackets_is_laid_out_in_linear_time():
    """Four times the brackets, four times the work: it was quadratic (12.5x; a 20,000-bracket line took over a
    minute)."""
    small, big = (_steps("x = " + ", ".join(f"f(a{i})" for i in range(n)) + "\n") for n in (500, 2000))
    assert big < 4.5 * small, (small, big)


@pytest.mark.parametrize("line", [
    "#!/usr/bin/env python3" + " -X dev" * 12,  # a shebang
    "#: " + "a Sphinx attribute comment " * 4,
    "z = foo(aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa1, aaaaaaaaaaaaaaaaaaaaaaaaaaaaaa2, aaaaaaaaaaa3)  # type: ignore[arg-type]",
    "z = foo(aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa1, aaaaaaaaaaaaaaaaaaaaaaaaaaaaaa2, aaaaaaaaaaaaa3)  # noqa: E501",
    "z = foo(aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa1, aaaaaaaaaaaaaaaaaaaaaaaaaaaaaa2)  # a reason # NOQA",
    "z = foo(aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa1, aaaaaaaaaaaaaaaaaaaaaaaaaaaaaa2, aaaaaaa3)  # pylint: disable=x",
    "z = foo(aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa1, aaaaaaaaaaaaaaaaaaaaaaaaaaaaaa2, aaaaaaaaaaaaa3)  # fmt: skip",
    "z = foo(aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa1, aaaaaaaaaaaaaaaaaaaaaaaaaaaaaa2, aaaa3)  # pragma: no cover",
])
def test_a_line_whose_comment_is_a_directive_stays_as_it_is(line):
    """A shebang moved under ``# `` is no shebang; a pragma on a line of its own no longer applies to the statement
    (a lone ``# type: ignore`` at the top of a file silences mypy for the whole module)."""
    code = "x = 1\n" + line + "\n"
    assert fit(code) == code


def test_tabs_in_a_comment_are_kept():
    """A node name with a tab (``node\\tname``) in a reason: the comment is wrapped at its spaces, the tab kept."""
    code = "value = compute(alpha)  # read by Relu 'node\tname' " + "why " * 20 + "\n"
    fitted = fit(code)
    assert fitted != code and "'node\tname'" in fitted and "    " not in fitted
    assert all(len(line) <= WIDTH for line in fitted.splitlines())
