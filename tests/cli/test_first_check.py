"""A first `check` with no flags works on models with dynamic dims (issue 14): they are taken as 1 and the report
says so (terminal, JSON, HTML); --strict-shapes refuses instead; --value sets scalar inputs; ORT's whole reason is
shown when it rejects the synthesized inputs."""

from __future__ import annotations

import json
from pathlib import Path

import onnx
import onnxruntime as ort
from onnx import TensorProto, helper

import models
from schema_helpers import assert_valid_report, run_cli

FAST = ["--timed-runs", "1", "--runs", "1", "--warmup", "0"]

ASSUMED_LINES = [
    "Dynamic dims taken as 1 (no --dim or --shape sizes them; --strict-shapes refuses instead):",
    "  dim 'batch' (input 'x' axis 0) assumed 1: set it with --dim batch=N",
    "  input 'x' axis 1 (declared -1) assumed 1: set it with --shape x=AxBxC",
    "  input 'x' axis 2 (no size or name) assumed 1: set it with --shape x=AxBxC",
]


def _dynamic_model(tmp_path: Path) -> str:
    """Relu over x: [batch, -1, ?, 4] (a symbol, a non-positive literal, a dim with neither)."""
    nodes = [helper.make_node("Relu", ["x"], ["y"], name="relu")]
    model = models._model(nodes, [helper.make_tensor_value_info("x", TensorProto.FLOAT, ["batch", -1, None, 4])],
                          [helper.make_tensor_value_info("y", TensorProto.FLOAT, ["batch", -1, None, 4])])
    onnx.save(model, str(tmp_path / "dynamic.onnx"))
    return "dynamic.onnx"


def _lstm_with_lengths(tmp_path: Path) -> str:
    """An LSTM whose sequence_lens input must lie in [0, seq_length]: synthesized lengths can break that."""
    hidden, size = 3, 4
    nodes = [helper.make_node("LSTM", ["x", "W", "R", "", "seq_lens"], ["y"], name="lstm", hidden_size=hidden)]
    model = models._model(
        nodes,
        [helper.make_tensor_value_info("x", TensorProto.FLOAT, ["seq", "batch", size]),
         helper.make_tensor_value_info("seq_lens", TensorProto.INT32, ["batch"])],
        [helper.make_tensor_value_info("y", TensorProto.FLOAT, None)],
        [models._weights("W", (1, 4 * hidden, size), 1), models._weights("R", (1, 4 * hidden, hidden), 2)])
    onnx.save(model, str(tmp_path / "lstm.onnx"))
    return "lstm.onnx"


def _rate_model(tmp_path: Path) -> str:
    """y = x * Cast(sample_rate), sample_rate a scalar int64 control input."""
    nodes = [helper.make_node("Cast", ["sample_rate"], ["rate_f"], name="cast", to=TensorProto.FLOAT),
             helper.make_node("Mul", ["x", "rate_f"], ["y"], name="mul")]
    model = models._model(nodes, [helper.make_tensor_value_info("x", TensorProto.FLOAT, [2, 3]),
                                  helper.make_tensor_value_info("sample_rate", TensorProto.INT64, [])],
                          [helper.make_tensor_value_info("y", TensorProto.FLOAT, [2, 3])])
    onnx.save(model, str(tmp_path / "rate.onnx"))
    return "rate.onnx"


def test_dynamic_dims_without_flags_are_listed_in_the_terminal(tmp_path):
    result = run_cli(["check", _dynamic_model(tmp_path), "-p", "cpu", "--no-html", *FAST], tmp_path)
    assert result.returncode == 0, result.stderr
    lines = result.stdout.splitlines()
    start = lines.index(ASSUMED_LINES[0])
    assert lines[start:start + 4] == ASSUMED_LINES


# An assumed dim no --dim names closely: no near name, no reason, no other sizes tried.
NOT_MISSPELT = {"near": "", "reason": "", "tried": []}


def test_dynamic_dims_without_flags_are_in_the_json(tmp_path):
    result = run_cli(["check", _dynamic_model(tmp_path), "-p", "cpu", "--no-html", "--json", "r.json", *FAST],
                     tmp_path)
    assert result.returncode == 0, result.stderr
    data = json.loads((tmp_path / "r.json").read_text(encoding="utf-8"))
    assert_valid_report(data)
    assert data["evidence"]["assumed_dims"] == [
        {"input": "x", "axis": 0, "declared": "batch", "value": 1, "flag": "--dim batch=N", **NOT_MISSPELT},
        {"input": "x", "axis": 1, "declared": "-1", "value": 1, "flag": "--shape x=AxBxC", **NOT_MISSPELT},
        {"input": "x", "axis": 2, "declared": "", "value": 1, "flag": "--shape x=AxBxC", **NOT_MISSPELT},
    ]
    assert data["evidence"]["feeds"][0]["shape"] == [1, 1, 1, 4]


def test_dynamic_dims_without_flags_are_in_the_html(tmp_path):
    result = run_cli(["check", _dynamic_model(tmp_path), "-p", "cpu", "--html", "r.html", *FAST], tmp_path)
    assert result.returncode == 0, result.stderr
    page = (tmp_path / "r.html").read_text(encoding="utf-8")
    assert ('<div id="assumed-dims"><p><b>Dynamic dims taken as 1 (no --dim or --shape sizes them; --strict-shapes '
            'refuses instead):</b></p>') in page
    assert "<li>dim &#39;batch&#39; (input &#39;x&#39; axis 0) assumed 1: set it with --dim batch=N</li>" in page


def test_sized_dims_leave_no_assumed_dims_in_the_json(tmp_path):
    result = run_cli(["check", _dynamic_model(tmp_path), "-p", "cpu", "--no-html", "--json", "r.json",
                      "--dim", "batch=2", "--shape", "x=2x3x5x4", *FAST], tmp_path)
    assert result.returncode == 0, result.stderr
    data = json.loads((tmp_path / "r.json").read_text(encoding="utf-8"))
    assert data["evidence"]["assumed_dims"] == []
    assert "Dynamic dims taken as 1" not in result.stdout


def test_strict_shapes_refuses_a_non_positive_literal_dim(tmp_path):
    result = run_cli(["check", _dynamic_model(tmp_path), "-p", "cpu", "--no-html", "--strict-shapes",
                      "--dim", "batch=1", *FAST], tmp_path)
    assert result.returncode == 2
    assert result.stderr.strip() == ("error: input 'x' dim 1 is declared as -1 in the model, which is not a size: "
                                     "pass --shape x=AxBxC")


def test_ort_rejecting_synthesized_inputs_shows_its_whole_reason(tmp_path):
    result = run_cli(["check", _lstm_with_lengths(tmp_path), "-p", "cpu", "--no-html", "--dim", "batch=4",
                      "--dim", "seq=2", *FAST], tmp_path)
    assert result.returncode == 2
    # ORT's own sentence about the values differs by version (1.20: "> 0 and < seq_length"): the line around it
    # and its start and end are ours to keep
    line = result.stderr.strip()
    assert "\n" not in line
    assert line.startswith(
        "error: the model failed to run on the given inputs: [ONNXRuntimeError] : 2 : INVALID_ARGUMENT : Non-zero "
        "status code returned while running LSTM node. Name:'lstm' Status Message: Invalid value/s in sequence_lens. "
        "All values must be "), line
    assert line.endswith(
        " seq_length. seq_length=2; give real values: --value NAME=V for a scalar input, --inputs FILE.npz for "
        "tensors, --dim/--shape for sizes"), line
    if ort.__version__.startswith("1.31."):
        assert ">= 0 and <= seq_length." in line


def test_value_sets_a_scalar_input(tmp_path):
    result = run_cli(["check", _rate_model(tmp_path), "-p", "cpu", "--no-html", "--json", "r.json",
                      "--value", "sample_rate=16000", *FAST], tmp_path)
    assert result.returncode == 0, result.stderr
    feeds = json.loads((tmp_path / "r.json").read_text(encoding="utf-8"))["evidence"]["feeds"]
    assert [(f["name"], f["dtype"], f["shape"], f["bytes"], f["source"]) for f in feeds] == [
        ("x", "float32", [2, 3], 24, "synthesized"), ("sample_rate", "int64", [], 8, "value")]


def test_a_misspelt_dim_is_named_where_its_symbol_is_taken_as_1(tmp_path):
    result = run_cli(["check", _dynamic_model(tmp_path), "-p", "cpu", "--no-html", "--json", "r.json",
                      "--dim", "bacth=2", *FAST], tmp_path)
    assert result.returncode == 0, result.stderr
    assert ("dim 'batch' (input 'x' axis 0) assumed 1: set it with --dim batch=N (--dim bacth=... was given, which "
            "sizes no dim of the model: a typo?)") in " ".join(result.stdout.split())
    data = json.loads((tmp_path / "r.json").read_text(encoding="utf-8"))
    assert_valid_report(data)
    assert data["evidence"]["assumed_dims"][0] == {"input": "x", "axis": 0, "declared": "batch", "value": 1,
                                                   "flag": "--dim batch=N", "near": "bacth", "reason": "",
                                                   "tried": []}
