"""OCD108 cpu-faster: a session on the device that the replay after the program measured slower than the CPU."""

from __future__ import annotations

from msgspec.structs import replace

from ortcopy_doctor.rules import cpu_faster
from rule_cases import CPU, CUDA, pipeline_observations, run_findings_of
from pipeline_cases import replay

RULE = cpu_faster.RULE


def _streaming(*replays):
    obs = pipeline_observations("pipelines/streaming_state")
    record = replace(obs.sessions[0], created_at="/w/stream.py:main:9", available_providers=[CUDA, CPU])
    return replace(obs, sessions=[record], replays=list(replays))


def test_fires_at_the_creation_line_of_a_cuda_session_the_cpu_beats():
    (finding,) = run_findings_of(RULE, _streaming(replay("cell.onnx", CUDA, CPU, 0.4, 0.1, 3.5, 4.5)))
    assert (finding.severity, finding.location, finding.details["provider"]) == ("warning", "/w/stream.py:main:9",
                                                                                 CUDA)
    assert finding.message.startswith("session cell.onnx (created at /w/stream.py:main:9) runs on CUDA, and the CPU "
                                      "is faster for it at the program's inputs: ")
    assert finding.fix.startswith("create it with providers=['CPUExecutionProvider'] at /w/stream.py:main:9")


def test_is_silent_where_the_device_was_faster_or_nothing_was_replayed():
    assert run_findings_of(RULE, _streaming(replay("cell.onnx", CUDA, CPU, 0.1, 0.4, 0.2, 0.3))) == []
    assert run_findings_of(RULE, _streaming()) == []
