"""A check with no flags chooses sizes a model of its kind takes, and says which and why (issue 36, part 4): an
audio input that feeds a reflect Pad gets 512 samples, an image its height and width, a scalar named like a sample
rate 16000; where a run at those sizes still fails, ORT's error picks the next sizes (a Reshape's requested shape,
a stride that must divide them), in at most MAX_PROBE_RUNS runs on the CPU EP. --strict-shapes chooses nothing,
and flags win. Each model reproduces a failure of a real one (Silero VAD, a YOLO detector, PP-OCR)."""

from __future__ import annotations

import pytest
from sizing_models import audio_model, image_model, never_model, rate_model, reshape_model, stride_model

from ortcopy_doctor.api import check
from ortcopy_doctor.collect.sizes import MAX_PROBE_RUNS
from ortcopy_doctor.model.errors import ModelError, UsageError
from ortcopy_doctor.model.evidence import AssumedDim, assumed_dims_title, describe_assumed_dims

FAST = {"providers": ["cpu"], "warmup_runs": 0, "profiled_runs": 1, "timed_runs": 1}

AUDIO_REASON = ("feeds Pad 'stft_pad' in reflect mode (an STFT's padding): audio; 512 samples, a 32 ms chunk at "
                "16 kHz")


def test_an_audio_input_into_a_reflect_pad_gets_512_samples(tmp_path):
    report = check(audio_model(tmp_path), **FAST)
    assert report.evidence.assumed_dims == [
        AssumedDim("x", 0, "batch", 1, "--dim batch=N"),
        AssumedDim("x", 1, "samples", 512, "--dim samples=N", reason=AUDIO_REASON),
    ]
    assert report.evidence.feeds[0].shape == [1, 512]


def test_a_reshape_to_rows_of_64_gets_64_samples_after_one_probe(tmp_path):
    report = check(reshape_model(tmp_path), **FAST)
    assert report.evidence.assumed_dims == [
        AssumedDim("x", 0, "batch", 1, "--dim batch=N"),
        AssumedDim("x", 1, "samples", 64, "--dim samples=N", tried=[1], reason=(
            "a run at 1 failed in Reshape 'to_frames' (The input tensor cannot be reshaped to the requested shape. "
            "Input shape:{1,1}, requested shape:{-1,64}); a multiple of 64 elements for its requested shape {-1,64}: "
            "took 64 at probe run 1 of at most 4, on the CPU EP")),
    ]
    assert report.evidence.feeds[0].shape == [1, 64]
    assert ("the first run failed at the sizes first taken (Reshape 'to_frames': The input tensor cannot be reshaped "
            "to the requested shape. Input shape:{1,1}, requested shape:{-1,64}); probe runs on the CPU EP found sizes "
            "that run (1 of at most 4): the dims chosen are listed with why") in report.evidence.notes


def test_a_stride_of_32_gets_height_and_width_of_32(tmp_path):
    report = check(stride_model(tmp_path), **FAST)
    reason = ("a run at 1 failed in Concat 'merge' (Non concat axis dimensions must match: Axis 2 has mismatched "
              "dimensions of 32 and 1); took 32 at probe run 1 of at most 4, on the CPU EP")
    assert report.evidence.assumed_dims == [
        AssumedDim("x", 0, "batch", 1, "--dim batch=N"),
        AssumedDim("x", 2, "h", 32, "--dim h=N", reason=reason, tried=[1]),
        AssumedDim("x", 3, "w", 32, "--dim w=N", reason=reason, tried=[1]),
    ]


@pytest.mark.parametrize(("head", "size", "why"), [
    ("classifier", (224, 224), "and output 'y' is a class vector: a classifier's 224x224"),
    ("recogniser", (48, 320), "and output 'y' gives scores per step, as a text recogniser does: a text line of 48x320, "
                              "PaddleOCR's recogniser input"),
    ("detector", (640, 640), "and no output is a class vector: a detector's 640x640 (a multiple of 32, the stride of "
                             "its head)"),
])
def test_an_image_gets_a_real_image_size_for_its_kind(tmp_path, head, size, why):
    report = check(image_model(tmp_path, head), **FAST)
    reason = f"an image (3 channels, feeds Conv 'conv'), {why}"
    assert report.evidence.assumed_dims == [
        AssumedDim("x", 0, "batch", 1, "--dim batch=N"),
        AssumedDim("x", 2, "height", size[0], "--dim height=N", reason=reason),
        AssumedDim("x", 3, "width", size[1], "--dim width=N", reason=reason),
    ]
    assert report.evidence.feeds[0].shape == [1, 3, *size]


def test_a_scalar_named_like_a_sample_rate_is_given_16000_as_a_value(tmp_path):
    feeds = check(rate_model(tmp_path), **FAST).evidence.feeds
    assert [(f.name, f.shape, f.source, f.chosen) for f in feeds] == [
        ("x", [2, 3], "synthesized", ""),
        ("sr", [], "value", "16000, named like a sample rate: 16 kHz, the rate speech models take")]


def test_a_value_given_wins_over_the_chosen_one(tmp_path):
    feeds = check(rate_model(tmp_path), values={"sr": "8000"}, **FAST).evidence.feeds
    assert [(f.name, f.source, f.chosen) for f in feeds] == [("x", "synthesized", ""), ("sr", "value", "")]


def test_a_dim_given_wins_over_the_chosen_size(tmp_path):
    report = check(audio_model(tmp_path), dims={"samples": 100}, **FAST)
    assert report.evidence.assumed_dims == [AssumedDim("x", 0, "batch", 1, "--dim batch=N")]
    assert report.evidence.feeds[0].shape == [1, 100]


def test_strict_shapes_chooses_no_size(tmp_path):
    with pytest.raises(UsageError, match="^input 'x' dim 1 is the symbol 'samples': pass --dim samples=N"):
        check(audio_model(tmp_path), strict_shapes=True, dims={"batch": 1}, **FAST)


def test_strict_shapes_chooses_no_value(tmp_path):
    feeds = check(rate_model(tmp_path), strict_shapes=True, **FAST).evidence.feeds
    assert [(f.name, f.source, f.chosen) for f in feeds] == [("x", "synthesized", ""), ("sr", "synthesized", "")]


def test_probes_stop_after_the_most_and_the_error_names_the_sizes_tried(tmp_path):
    with pytest.raises(ModelError) as caught:
        check(never_model(tmp_path), **FAST)
    assert MAX_PROBE_RUNS == 4
    assert caught.value.message == (
        "the model failed to run on the given inputs: [ONNXRuntimeError] : 1 : FAIL : Non-zero status code returned "
        "while running Reshape node. Name:'to_three' Status Message: input_shape_size == requested_shape_size was "
        "false. The input tensor cannot be reshaped to the requested shape. Input shape:{1,2}, requested shape:{1,3}; "
        "sizes run for dims no flag sizes: 'batch' (input 'x' axis 0) 1; 'samples' (input 'x' axis 1) 1, 32, 64, 128, "
        "256 (4 probe runs on the CPU EP after the first, at most 4); give real values: --value NAME=V for a scalar "
        "input, --inputs FILE.npz for tensors, --dim/--shape for sizes")


def test_a_reason_two_dims_share_is_said_once_and_what_was_tried_after_it():
    assumed = [AssumedDim("x", 0, "batch", 1, "--dim batch=N"),
               AssumedDim("x", 2, "height", 224, "--dim height=N", reason="an image"),
               AssumedDim("x", 3, "width", 224, "--dim width=N", reason="an image"),
               AssumedDim("y", 1, "", 64, "--shape y=AxBxC", reason="a run at 32 failed", tried=[1, 32])]
    assert assumed_dims_title(assumed) == ("Dynamic dims no --dim or --shape sizes (taken as 1, or chosen as said; "
                                           "--strict-shapes refuses instead):")
    assert describe_assumed_dims(assumed) == [
        "dim 'batch' (input 'x' axis 0) assumed 1: set it with --dim batch=N",
        "dim 'height' (input 'x' axis 2) chosen 224 (an image): set it with --dim height=N",
        "dim 'width' (input 'x' axis 3) chosen 224 (as above): set it with --dim width=N",
        "input 'y' axis 1 (no size or name) chosen 64 (a run at 32 failed; tried first: 1, 32): set it with "
        "--shape y=AxBxC"]


def test_the_title_stays_where_every_dim_is_1():
    assert assumed_dims_title([AssumedDim("x", 0, "batch", 1, "--dim batch=N")]) == (
        "Dynamic dims taken as 1 (no --dim or --shape sizes them; --strict-shapes refuses instead):")
