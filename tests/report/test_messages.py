"""Messages say what is known: ORT's reasons whole, "shape unknown" and "unknown size" instead of "None" and
"0 B", and nothing about an inactive CUDA EP when CUDA was not requested."""

from __future__ import annotations

import msgspec

from ortcopy_doctor.collect import binding_ab as measure

from ortcopy_doctor import rules
from ortcopy_doctor.analysis.copies import GraphView
from ortcopy_doctor.model.format import fmt_total_bytes
from ortcopy_doctor.report.core import analyse
from render_helpers import load_fixture
from schema_helpers import run_cli

CUDA, CPU = "CUDAExecutionProvider", "CPUExecutionProvider"
FAST = ["--timed-runs", "1", "--runs", "1", "--warmup", "0"]
LONG_REASON = ("Failed to load library libonnxruntime_providers_cuda.so with error: libcublasLt.so.13: cannot open "
               "shared object file: No such file or directory (Failed to create CUDAExecutionProvider. Require "
               "cuDNN 9.* and CUDA 13.*)")


def _on_cpu(tmp_path, requested: list[str], ep_failure: str | None):
    evidence = load_fixture("demo", tmp_path).evidence
    return msgspec.structs.replace(evidence, session=msgspec.structs.replace(
        evidence.session, requested_providers=requested, active_providers=[CPU], ep_failure=ep_failure))


def test_binding_line_quotes_the_whole_ort_reason(tmp_path):
    assert len(LONG_REASON) > 200
    why = measure.decide(_on_cpu(tmp_path, [CUDA, CPU], LONG_REASON), None)
    assert why == (f"the CUDA EP is not active here ({LONG_REASON}): there is no device to bind on; run check where "
                   "the CUDA EP loads to measure binding")


def test_binding_line_for_cpu_on_purpose_does_not_say_cuda_is_inactive(tmp_path):
    why = measure.decide(_on_cpu(tmp_path, [CPU], None), None)
    assert why == "CUDA was not requested (the session runs on CPUExecutionProvider): there is no device to bind on"


def test_cpu_on_purpose_prints_nothing_about_an_inactive_cuda_ep(tmp_path):
    import onnx

    import models

    onnx.save(models.conv_net(), str(tmp_path / "model.onnx"))
    result = run_cli(["check", "model.onnx", "--dim", "batch=1", "-p", "cpu", "--no-html", *FAST], tmp_path)
    assert result.returncode == 0, result.stderr
    assert "not active" not in result.stdout
    assert "OCD001" not in result.stdout


def _context(report, copies):
    return rules.RuleContext(evidence=report.evidence, copies=copies, graph=GraphView.of(report.evidence),
                             census=report.census)


def test_memcpy_finding_with_no_shape_says_shape_unknown(tmp_path):
    report = load_fixture("demo", tmp_path)
    copies = [msgspec.structs.replace(c, shape=None) for c in report.copies]
    messages = [f.message for f in rules.memcpy_node.memcpy_nodes(_context(report, copies))]
    assert len(messages) == 2
    assert all("shape unknown)" in m and "None" not in m for m in messages)


def test_feed_finding_with_no_shape_says_shape_unknown(tmp_path):
    report = load_fixture("demo", tmp_path)
    copies = [msgspec.structs.replace(c, shape=None) for c in report.copies]
    (finding,) = rules.feed_copy.feed_copies(_context(report, copies))
    assert finding.message.startswith("Input 'features' (float32, shape unknown) is copied host→device on every run")


def test_total_bytes_say_unknown_instead_of_0_B():
    assert fmt_total_bytes([None, None]) == "size unknown"
    assert fmt_total_bytes([16, None]) == "16 B + 1 of unknown size"
    assert fmt_total_bytes([16, 4]) == "20 B"


def test_verdict_with_unknown_sizes_says_so(tmp_path):
    evidence = load_fixture("demo", tmp_path).evidence
    # no profile and no census: the sizes of the Memcpy nodes and NonZero output unknown
    evidence = msgspec.structs.replace(evidence, node_events=[], census=None)
    report = analyse(evidence)
    assert report.verdict.startswith("6 host↔device copies per run (49.2 KB + 3 of unknown size): 1 feed, 2 fetch")
