"""`diff A.json B.json` of two sweeps (`check --dim batch=1,2 --json`): the shapes matched by label, those only in a
or b listed, a table of the shapes in both, then each one's diff as a single diff writes it; `--fail-on-regression`
on any shape; a sweep against a check report is one error line, exit 2."""

from __future__ import annotations

import gzip
import json
from pathlib import Path

import onnx
import pytest
from msgspec.structs import replace

import models
from ortcopy_doctor.model import codec
from ortcopy_doctor.model.sweep import ShapeSweep
from ortcopy_doctor.render.diff import render_sweep_diff_text
from ortcopy_doctor.report.diff import diff_sweeps
from render_helpers import TESTS
from schema_helpers import run_cli


def _sweep(tmp_path: Path, name: str, dims: str, provider: str = "cpu", model: str = "conv_net") -> Path:
    """The sweep `check MODEL --provider PROVIDER --dim batch=DIMS --json NAME` writes."""
    model_path = tmp_path / f"{model}.onnx"
    if not model_path.exists():
        onnx.save(getattr(models, model)(), model_path)
    proc = run_cli(["check", str(model_path), "--provider", provider, "--dim", f"batch={dims}", "--json", name,
                    "--fail-on", "never"], tmp_path)
    assert proc.returncode == 0, proc.stderr
    return tmp_path / name


@pytest.fixture(scope="module")
def sweeps(tmp_path_factory) -> tuple[Path, Path]:
    """Two sweeps of conv_net on the CPU provider: at batch 1 and 2, and at batch 2 and 4."""
    tmp = tmp_path_factory.mktemp("sweeps")
    return _sweep(tmp, "a.json", "1,2"), _sweep(tmp, "b.json", "2,4")


def test_diff_of_two_sweeps_lists_the_shapes_in_one_and_tables_the_common_ones(sweeps):
    a, b = sweeps
    proc = run_cli(["diff", "a.json", "b.json"], a.parent)
    assert proc.returncode == 0, proc.stderr
    lines = proc.stdout.splitlines()
    assert lines[:4] == ["ortcopy-doctor diff (sweeps): a.json → b.json",
                         "No new transfers or findings at any of the 1 shape(s) in both sweeps.",
                         "shapes only in a: batch=1", "shapes only in b: batch=4"]
    assert lines[5].split() == ["shape", "copies/run", "bytes/run", "median", "faster", "findings"]
    assert lines[6].split()[:4] == ["batch=2", "0", "0", "B"]  # copies and bytes the same: one value each
    assert lines[6].endswith("  -       +0 -0")  # faster: not measured (the CPU provider alone); no finding moved
    assert lines[7:10] == ["", "=== batch=2 ===", "ortcopy-doctor diff: a.json [batch=2] → b.json [batch=2]"]


def test_each_common_shape_is_diffed_as_a_single_diff(sweeps):
    a, _ = sweeps
    proc = run_cli(["diff", "a.json", "b.json"], a.parent)
    section = proc.stdout.split("=== batch=2 ===\n", 1)[1]
    assert section.splitlines()[1:2] == ["No new transfers or findings."]
    assert "Transfers per run (0 added, 0 removed, 0 changed, 0 unchanged):\n  (no change)\n" in section
    assert "Findings (0 added, 0 removed, 0 changed, 0 unchanged):\n  (no change)\n" in section


def test_diff_of_two_sweeps_writes_a_page_with_the_table_and_a_section_per_shape(sweeps, tmp_path):
    a, _ = sweeps
    proc = run_cli(["diff", "a.json", "b.json", "--html", str(tmp_path / "d.html")], a.parent)
    assert proc.returncode == 0, proc.stderr
    page = (tmp_path / "d.html").read_text(encoding="utf-8")
    assert '<table id="sweep-diff-table">' in page
    assert '<a href="#shape-1"><code>batch=2</code></a>' in page
    assert '<p id="only-a">shapes only in a: <code>batch=1</code></p>' in page
    assert '<p id="only-b">shapes only in b: <code>batch=4</code></p>' in page
    assert '<h2 id="shape-1">batch=2</h2>' in page
    assert 'id="shape-1-headline">No new transfers or findings.</div>' in page
    assert 'id="headline"' in page and page.count('id="headline"') == 1


@pytest.mark.no_cuda
def test_fail_on_regression_exits_1_where_a_shape_regresses(sweeps):
    a, _ = sweeps
    _sweep(a.parent, "cuda.json", "1,2", provider="cuda")  # CUDA does not load here: ep-not-active at each shape
    proc = run_cli(["diff", "a.json", "cuda.json", "--fail-on-regression"], a.parent)
    assert proc.returncode == 1, proc.stderr
    lines = proc.stdout.splitlines()
    assert lines[1] == "Regression at 2 of 2 shape(s): batch=1, batch=2."
    assert lines[4].startswith("batch=1") and lines[4].endswith("+1 -0")
    assert "  + error   OCD001 ep-not-active at session" in lines
    back = run_cli(["diff", "cuda.json", "a.json", "--fail-on-regression"], a.parent)
    assert back.returncode == 0, back.stderr


def test_a_sweep_against_a_check_report_is_one_error_line(sweeps):
    a, _ = sweeps
    proc = run_cli(["check", "conv_net.onnx", "--provider", "cpu", "--json", "single.json"], a.parent)
    assert proc.returncode == 0, proc.stderr
    proc = run_cli(["diff", "a.json", "single.json"], a.parent)
    assert (proc.returncode, proc.stdout) == (2, "")
    assert proc.stderr == ("error: diff compares two reports of one kind: a.json is a sweep (`check --dim batch=1,8 "
                           "--json`, at several shapes) and single.json a check report (`check --json`)\n")


def test_a_sweep_of_a_newer_format_is_one_error_line(sweeps, tmp_path):
    a, _ = sweeps
    newer = tmp_path / "newer.json"
    newer.write_text(a.read_text(encoding="utf-8").replace('"format_version": 1,', '"format_version": 9,', 1),
                     encoding="utf-8")
    proc = run_cli(["diff", str(a), str(newer)], tmp_path)
    assert (proc.returncode, proc.stdout) == (2, "")
    assert proc.stderr == (f"error: {newer} has sweep format 9, newer than this ortcopy-doctor reads (1): upgrade "
                           "ortcopy-doctor\n")


def _report_of_changed_sweep(sweep, tmp_path, **changed):
    """(the file, `report`'s exit code, stdout and stderr) for the sweep ``sweep`` with ``changed`` values."""
    data = json.loads(sweep.read_text(encoding="utf-8"))
    data.update(changed)
    changed_file = tmp_path / "changed.json"
    changed_file.write_text(json.dumps(data), encoding="utf-8")
    proc = run_cli(["report", str(changed_file)], tmp_path)
    return changed_file, proc.returncode, proc.stdout, proc.stderr


def test_a_newer_sweep_is_refused_before_its_fields_are_read(sweeps, tmp_path):
    # a newer version may change a field's type: the version is what to say, not the field (model/codec.Header)
    newer, code, stdout, stderr = _report_of_changed_sweep(sweeps[0], tmp_path, format_version=9, shapes="all of them")
    assert (code, stdout) == (2, "")
    assert stderr == (f"error: {newer} has sweep format 9, newer than this ortcopy-doctor reads (1): upgrade "
                      "ortcopy-doctor\n")


def test_a_sweep_whose_version_is_no_number_is_one_error_line(sweeps, tmp_path):
    odd, code, stdout, stderr = _report_of_changed_sweep(sweeps[0], tmp_path, format_version="1")
    assert (code, stdout) == (2, "")
    assert stderr == (f"error: {odd} has sweep format_version '1', not a version number: pass a file written by "
                      "`check --dim ... --json`\n")


def test_the_break_even_of_each_sweep_is_told_a_to_b(sweeps):
    a, b = (codec.decode(path.read_bytes(), ShapeSweep) for path in sweeps)
    text = render_sweep_diff_text(diff_sweeps(a, replace(b, break_even="CUDA wins from batch 4")))
    assert text.splitlines()[2] == "break-even: none → CUDA wins from batch 4"


def test_a_sweep_against_a_run_report_is_one_error_line(sweeps, tmp_path):
    a, _ = sweeps
    with gzip.open(TESTS / "fixtures" / "pipelines" / "detect_crop_classify.json.gz", "rt", encoding="utf-8") as f:
        data = json.load(f)
    run = tmp_path / "run.json"
    run.write_text(json.dumps(data.get("report", data)), encoding="utf-8")
    proc = run_cli(["diff", str(run), str(a)], tmp_path)
    assert (proc.returncode, proc.stdout) == (2, "")
    assert proc.stderr == (f"error: diff compares two reports of one kind: {run} is a run report (`run --json`) and "
                           f"{a} a sweep (`check --dim batch=1,8 --json`, at several shapes)\n")


def test_a_sweep_that_does_not_match_its_format_is_one_error_line(sweeps, tmp_path):
    a, _ = sweeps
    data = json.loads(a.read_text(encoding="utf-8"))
    data["shapes"][0]["report"]["evidence"]["nodes"] = [{"name": 1}]
    bad = tmp_path / "bad.json"
    bad.write_text(json.dumps(data), encoding="utf-8")
    proc = run_cli(["diff", str(bad), str(a)], tmp_path)
    assert (proc.returncode, proc.stdout) == (2, "")
    assert proc.stderr == (f"error: {bad} does not match the sweep format (Expected `str`, got `int` - at "
                           "`$.shapes[0].report.evidence.nodes[0].name`): pass a file written by `check --dim ... "
                           "--json`\n")


def test_a_label_listed_twice_pairs_the_nth_with_the_nth(sweeps):
    a, b = (codec.decode(path.read_bytes(), ShapeSweep) for path in sweeps)
    twice = replace(a, shapes=[a.shapes[1], a.shapes[1]])  # batch=2 twice
    d = diff_sweeps(twice, b)
    assert ([s.label for s in d.shapes], d.only_a, d.only_b) == (["batch=2"], ["batch=2"], ["batch=4"])
