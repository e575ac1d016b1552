"""OCD104 session-on-cpu: a session created without providers ran on the CPU while CUDA loads (recorded on the
H200: tests/fixtures/providers)."""

from __future__ import annotations

from ortcopy_doctor.rules import session_on_cpu
from rule_cases import pipeline_observations, run_findings_of

RULE = session_on_cpu.RULE


def test_fires_at_the_line_that_created_the_session():
    (finding,) = run_findings_of(RULE, pipeline_observations("providers/noproviders_h200"))
    assert (finding.severity, finding.location, finding.bytes_per_run) == (
        "warning", "/work/main/examples/_noproviders.py:<module>:7", None)
    assert finding.message == ("session cell.onnx (created at /work/main/examples/_noproviders.py:<module>:7) runs on "
                               "the CPU although CUDA is available: no `providers` given, so onnxruntime chose the CPU")
    assert finding.fix.startswith("create it with providers=['CUDAExecutionProvider', 'CPUExecutionProvider']")


def test_is_silent_for_sessions_on_the_device():
    assert run_findings_of(RULE, pipeline_observations("pipelines/streaming_state")) == []


def test_is_silent_where_the_replay_measured_the_cpu_faster():
    from msgspec.structs import replace

    from pipeline_cases import replay

    obs = pipeline_observations("providers/noproviders_h200")
    kept = replace(obs, replays=[replay("cell.onnx", "CPUExecutionProvider", "CUDAExecutionProvider", 0.1, 0.4, 0.2,
                                        0.3)])
    assert run_findings_of(RULE, kept) == []
