"""`check` at several shapes (--dim SYMBOL=N,M, --shape NAME=AxB,CxD, --shapes FILE) as a subprocess: the per-shape
table first, each shape's report, the sweep JSON and page, the gate over every shape, and what is refused."""

from __future__ import annotations

import json
from pathlib import Path

import onnx
import pytest

import models
from schema_helpers import run_cli

FAST = ["--timed-runs", "2", "--runs", "1", "--warmup", "1"]


@pytest.fixture(scope="module")
def folder(tmp_path_factory) -> Path:
    root = tmp_path_factory.mktemp("shapes")
    onnx.save(models.conv_net(), str(root / "conv.onnx"))
    return root


@pytest.fixture(scope="module")
def swept(folder):
    result = run_cli(["check", "conv.onnx", "--dim", "batch=1,2,4", "-p", "cpu", "--json", "sweep.json", *FAST], folder)
    assert result.returncode == 0, (result.stdout, result.stderr)
    return result, json.loads((folder / "sweep.json").read_text(encoding="utf-8"))


def test_a_dim_list_checks_each_size(swept):
    _, document = swept
    assert (document["format"], document["format_version"]) == ("ortcopy-doctor-sweep", 1)
    assert [s["label"] for s in document["shapes"]] == ["batch=1", "batch=2", "batch=4"]
    assert [s["report"]["evidence"]["feeds"][0]["shape"] for s in document["shapes"]] == [
        [1, 3, 32, 32], [2, 3, 32, 32], [4, 3, 32, 32]]
    assert [s["copies_per_run"] for s in document["shapes"]] == [0, 0, 0]


def test_the_table_comes_first_then_each_shapes_report(swept, folder):
    result, document = swept
    lines = result.stdout.splitlines()
    assert lines[0] == document["verdict"] == "3 shapes: no host<->device copy at any shape"
    assert lines[2].split() == ["shape", "first", "run", "median", "(95%", "CI)", "copies/run", "bytes/run", "CUDA",
                                "CPU", "faster", "findings"]
    assert [line for line in lines if line.startswith("── ")] == ["── batch=1 ──", "── batch=2 ──", "── batch=4 ──"]
    assert '<a href="#shape-3"><code>batch=4</code></a>' in (folder / "conv.ortcopy.html").read_text(encoding="utf-8")


def test_a_shape_list_and_the_gate_over_every_shape(folder):
    # CUDA requested and not active here: each shape's report has the OCD001 error, so --fail-on error fails
    result = run_cli(["check", "conv.onnx", "--shape", "image=1x3x32x32,2x3x32x32", "-p", "cuda", "--no-html",
                      "--json", "shape.json", *FAST], folder)
    assert result.returncode == 1, (result.stdout, result.stderr)
    document = json.loads((folder / "shape.json").read_text(encoding="utf-8"))
    assert [(s["label"], s["batch"]) for s in document["shapes"]] == [("image=1x3x32x32", 1), ("image=2x3x32x32", 2)]
    assert result.stdout.count("gate failed:") == 2
    assert document["verdict"] == ("2 shapes: no host<->device copy at any shape; error findings at image=1x3x32x32, "
                                   "image=2x3x32x32 (see each shape's report)")


def test_lists_for_two_symbols_are_refused_on_one_line(folder):
    result = run_cli(["check", "conv.onnx", "--dim", "batch=1,2", "--dim", "seq=3,4", "-p", "cpu"], folder)
    assert result.returncode == 2
    assert result.stderr.splitlines() == ["error: --dim 'seq=3,4': a list of values is allowed for one symbol only "
                                          "(their cross product is not run): give the other combinations in a "
                                          "--shapes FILE"]


def test_a_bad_line_of_a_shapes_file_is_refused_on_one_line(folder):
    (folder / "shapes.txt").write_text("# sizes\nbatch=1\nbatch=1x\n", encoding="utf-8")
    result = run_cli(["check", "conv.onnx", "--shapes", "shapes.txt", "-p", "cpu"], folder)
    assert result.returncode == 2
    assert result.stderr.splitlines() == ["error: --shapes shapes.txt: line 3: 'batch=1x' is not SYMBOL=N or "
                                          "NAME=AxBxC (e.g. batch=8 or x=1x3x640x640)"]


def test_a_shape_the_model_cannot_take_is_refused_before_any_runs(folder):
    result = run_cli(["check", "conv.onnx", "--shape", "image=1x3x32x32,2x3x16x16", "-p", "cpu", "--no-html"], folder)
    assert result.returncode == 2
    assert result.stdout == ""
    assert result.stderr.splitlines() == ["error: at image=2x3x16x16: --shape image: dim 2 is fixed to 32 by the "
                                          "model, got 16"]


def test_the_sarif_of_a_sweep_has_a_run_per_shape(folder):
    result = run_cli(["check", "conv.onnx", "--dim", "batch=1,2", "-p", "cuda", "--no-html", "--sarif", "s.sarif",
                      "--fail-on", "never", *FAST], folder)
    assert result.returncode == 0, (result.stdout, result.stderr)
    log = json.loads((folder / "s.sarif").read_text(encoding="utf-8"))
    assert [(r["automationDetails"]["id"], r["properties"]["shape"]) for r in log["runs"]] == [
        ("ortcopy-doctor/check/batch=1", "batch=1"), ("ortcopy-doctor/check/batch=2", "batch=2")]
    assert [[res["ruleId"] for res in r["results"]][:1] for r in log["runs"]] == [["OCD001"], ["OCD001"]]


def test_a_trace_or_inputs_with_several_shapes_is_refused_on_one_line(folder):
    trace = run_cli(["check", "conv.onnx", "--dim", "batch=1,2", "-p", "cpu", "--trace", "t.json"], folder)
    assert (trace.returncode, trace.stderr.splitlines()) == (2, [
        "error: --trace writes one shape's timeline, and --dim/--shape lists or --shapes check several: drop it, or "
        "check that shape alone"])


def test_report_re_renders_a_sweep_as_check_wrote_it(swept, folder):
    result = run_cli(["report", "sweep.json", "--json", "again.json", "--html", "again.html"], folder)
    assert result.returncode == 0, (result.stdout, result.stderr)
    again = json.loads((folder / "again.json").read_text(encoding="utf-8"))
    _, document = swept
    assert again["verdict"] == document["verdict"]
    assert [s["label"] for s in again["shapes"]] == ["batch=1", "batch=2", "batch=4"]
    assert result.stdout.splitlines()[0] == document["verdict"]
    assert '<table id="sweep-table">' in (folder / "again.html").read_text(encoding="utf-8")


def test_report_of_a_sweep_refuses_a_trace(swept, folder):
    result = run_cli(["report", "sweep.json", "--trace", "t.json"], folder)
    assert (result.returncode, result.stderr.splitlines()) == (2, [
        "error: --trace writes one shape's timeline, and the file is a sweep (several shapes): drop it"])
