"""`check` with no flags on a machine without CUDA (issue 36, part 4): the sizes and values it chose are listed with
why; where nothing runs, the static prediction is still written as the JSON and HTML reports beside the one error
line, whose exit code stays the failure's; ORT's reason why CUDA did not load is stated once; findings alike are
one entry."""

from __future__ import annotations

import json

import pytest
from schema_helpers import assert_valid_report, run_cli
from sizing_models import audio_model, rate_model

FAST = ["--timed-runs", "1", "--runs", "1", "--warmup", "0"]


def test_chosen_sizes_are_listed_with_why_in_the_terminal(tmp_path):
    audio_model(tmp_path)
    result = run_cli(["check", "audio.onnx", "-p", "cpu", "--no-html", *FAST], tmp_path)
    assert result.returncode == 0, result.stderr
    lines = result.stdout.splitlines()
    start = lines.index("Dynamic dims no --dim or --shape sizes (taken as 1, or chosen as said; --strict-shapes "
                        "refuses instead):")
    assert lines[start + 1:start + 3] == [
        "  dim 'batch' (input 'x' axis 0) assumed 1: set it with --dim batch=N",
        "  dim 'samples' (input 'x' axis 1) chosen 512 (feeds Pad 'stft_pad' in reflect mode (an STFT's padding): "
        "audio; 512 samples, a 32 ms chunk at 16 kHz): set it with --dim samples=N"]


def test_chosen_sizes_and_values_are_in_the_json_and_html(tmp_path):
    rate_model(tmp_path)
    result = run_cli(["check", "rate.onnx", "-p", "cpu", "--json", "r.json", "--html", "r.html", *FAST], tmp_path)
    assert result.returncode == 0, result.stderr
    data = assert_valid_report(tmp_path / "r.json")
    assert data["evidence"]["feeds"][1] == {
        "name": "sr", "dtype": "int64", "shape": [], "bytes": 8, "source": "value", "high": None, "value": "16000",
        "chosen": "16000, named like a sample rate: 16 kHz, the rate speech models take"}
    assert ("  input 'sr' = 16000, named like a sample rate: 16 kHz, the rate speech models take: set it with --value "
            "sr=V") in result.stdout.splitlines()
    page = (tmp_path / "r.html").read_text(encoding="utf-8")
    assert ("<li>input &#39;sr&#39; = 16000, named like a sample rate: 16 kHz, the rate speech models take: set it "
            "with --value sr=V</li>") in page


def test_a_check_where_nothing_runs_still_writes_the_static_prediction(tmp_path):
    audio_model(tmp_path)  # 8 samples: less than the reflect Pad's 32 on each side
    result = run_cli(["check", "audio.onnx", "-p", "cpu", "--dim", "samples=8", "--json", "r.json", "--html", "r.html",
                      *FAST], tmp_path)
    assert result.returncode == 2
    error = ("the model failed to run on the given inputs: [ONNXRuntimeError] : 2 : INVALID_ARGUMENT : Non-zero status "
             "code returned while running Pad node. Name:'stft_pad' Status Message: Pad reflect: pre-pad (32) exceeds "
             "maximum allowed (7) for axis 1. Input shape:{1,8}; sizes run for dims no flag sizes: 'batch' (input 'x' "
             "axis 0) 1; --dim samples=N with N >= 33 would give Pad 'stft_pad' more than its pad of 32; give real "
             "values: --value NAME=V for a scalar input, --inputs FILE.npz for tensors, --dim/--shape for sizes")
    assert result.stderr.splitlines() == [
        f"error: {error} (evidence gathered so far, with the static prediction: r.json, r.html)"]
    data = assert_valid_report(tmp_path / "r.json")
    assert data["verdict"] == f"Incomplete: the check stopped early: {error}"
    assert data["evidence"]["failure"] == error
    assert data["evidence"]["predicted"]["mode"] == "static"
    assert data["prediction"]["verdict"] == "CPU-only session: no host↔device copies (all 1 nodes on CPU)."
    page = (tmp_path / "r.html").read_text(encoding="utf-8")
    assert '<h2 id="prediction">Predicted for CPUExecutionProvider</h2>' in page


def test_a_check_where_nothing_runs_writes_the_default_html(tmp_path):
    audio_model(tmp_path)
    result = run_cli(["check", "audio.onnx", "-p", "cpu", "--dim", "samples=8", *FAST], tmp_path)
    assert result.returncode == 2
    assert result.stderr.endswith("(evidence gathered so far, with the static prediction: audio.ortcopy.html)\n")
    assert (tmp_path / "audio.ortcopy.html").is_file()


@pytest.mark.no_cuda
def test_the_reason_cuda_did_not_load_is_stated_once(tmp_path):
    audio_model(tmp_path)
    result = run_cli(["check", "audio.onnx", "--no-html", "--json", "r.json", *FAST], tmp_path)
    assert result.returncode == 1, result.stderr  # OCD001 ep-not-active, an error
    data = json.loads((tmp_path / "r.json").read_text(encoding="utf-8"))
    reason = data["evidence"]["session"]["ep_failure"]
    assert result.stdout.count(reason.splitlines()[0]) == 1
    lines = result.stdout.splitlines()
    assert lines[0].endswith(reason.splitlines()[0])
    assert lines[1] == ("Best attainable latency not measured: the CUDA EP is not active here (reason above): there is "
                        "no device to bind on; run check where the CUDA EP loads to measure binding")
    assert "        CUDAExecutionProvider was requested but the session runs on CPU (reason above)" in lines
    assert ("Binding not measured: the CUDA EP is not active here (reason above): there is no device to bind on; run "
            "check where the CUDA EP loads to measure binding") in lines
