"""`diff` of reports of two different model files warns first (text and HTML), and --fail-on-model-change fails."""

from __future__ import annotations

import copy

from ortcopy_doctor.render.diff import render_diff_html, render_diff_text
from ortcopy_doctor.report.diff import diff_files
from render_helpers import fixture_report_dict, write_report_json
from schema_helpers import run_cli


def _pair(tmp_path, sha_b: str | None, drop_a_hash: bool = False):
    data = fixture_report_dict("demo")
    a = copy.deepcopy(data["evidence"])
    b = copy.deepcopy(data["evidence"])
    if drop_a_hash:
        del a["model"]["sha256"]
    if sha_b is not None:
        b["model"]["sha256"] = sha_b
    return write_report_json(a, tmp_path / "a.json"), write_report_json(b, tmp_path / "b.json")


def test_same_model_has_no_model_warning(tmp_path):
    a, b = _pair(tmp_path, None)
    d = diff_files(a, b)
    assert d.model_change is None
    assert "warning:" not in render_diff_text(d)


def test_different_models_are_named_first_in_the_text(tmp_path):
    sha_a = fixture_report_dict("demo")["evidence"]["model"]["sha256"]
    a, b = _pair(tmp_path, "f" * 64)
    lines = render_diff_text(diff_files(a, b)).splitlines()
    assert lines[1] == (f"warning: Different models: a is demo.onnx (sha256 {sha_a[:12]}…), b is demo.onnx "
                        "(sha256 ffffffffffff…): this compares two models, not two runs of one "
                        "(--fail-on-model-change exits 1 on this)")
    assert lines[2] == "No new transfers or findings."


def test_different_models_are_a_banner_in_the_html(tmp_path):
    a, b = _pair(tmp_path, "f" * 64)
    page = render_diff_html(diff_files(a, b))
    assert '<div class="verdict bad" id="model-change">Different models: a is demo.onnx' in page


def test_report_without_a_model_hash_says_unknown(tmp_path):
    a, b = _pair(tmp_path, None, drop_a_hash=True)
    d = diff_files(a, b)
    assert d.model_change == ("Model unknown: a records no model hash (written by an older ortcopy-doctor), so "
                              "whether both reports are of the same model cannot be told")
    assert d.model_changed is False


def test_fail_on_model_change_exits_1(tmp_path):
    _pair(tmp_path, "f" * 64)
    result = run_cli(["diff", "a.json", "b.json", "--fail-on-model-change"], tmp_path)
    assert result.returncode == 1, result.stderr
    assert result.stdout.splitlines()[1].startswith("warning: Different models: ")


def test_different_models_without_the_flag_exit_0(tmp_path):
    _pair(tmp_path, "f" * 64)
    result = run_cli(["diff", "a.json", "b.json"], tmp_path)
    assert result.returncode == 0, result.stderr


def test_same_model_with_the_flag_exits_0(tmp_path):
    _pair(tmp_path, None)
    result = run_cli(["diff", "a.json", "b.json", "--fail-on-model-change"], tmp_path)
    assert result.returncode == 0, result.stderr
