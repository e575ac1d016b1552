"""ORT's native log (ortcopy_doctor.collect.ortlog), parsed from raw output recorded on the H200 (ORT 1.31.1)."""

from __future__ import annotations

from fixture_loader import raw_text
from ortcopy_doctor.collect import ortlog
from ortcopy_doctor.model.evidence import MemcpyInsertion


def _facts(name: str) -> ortlog.LogFacts:
    return ortlog.extract_facts(ortlog.parse_lines(raw_text(name)))


def test_log_names_the_node_without_a_cuda_kernel():
    assert _facts("cpu_op_between.h200.log.gz").kernel_not_found == {"celu": "Celu"}


def test_log_memcpy_insertions_in_insertion_order():
    assert _facts("cpu_op_between.h200.log.gz").memcpy == [
        MemcpyInsertion("MemcpyFromHost", "h2", "CUDAExecutionProvider"),
        MemcpyInsertion("MemcpyToHost", "h1", "CUDAExecutionProvider"),
    ]


def test_log_node_placement_section():
    facts = _facts("cpu_op_between.h200.log.gz")
    assert facts.placement == {
        "CPUExecutionProvider": [("Celu", "celu")],
        "CUDAExecutionProvider": [("MatMul", "matmul1"), ("MatMul", "matmul2"), ("MemcpyFromHost", "Memcpy"),
                                  ("MemcpyToHost", "Memcpy_token_0")],
    }
    assert facts.placement_counts == {"CPUExecutionProvider": 1, "CUDAExecutionProvider": 4}


def test_log_all_nodes_placed_counts_subgraph_nodes():
    facts = _facts("if_on_device.h200.log.gz")
    assert facts.placement_counts == {"CUDAExecutionProvider": 6}
    assert facts.memcpy == [MemcpyInsertion("MemcpyToHost", "cond", "CUDAExecutionProvider")]


def test_log_reason_the_cuda_provider_did_not_load():
    facts = _facts("cuda_missing.cpu.log.gz")
    assert facts.ep_failures == {
        "CUDAExecutionProvider": "Failed to load library libonnxruntime_providers_cuda.so with error: "
        "libcublasLt.so.13: cannot open shared object file: No such file or directory "
        "(Failed to create CUDAExecutionProvider. Require cuDNN 9.* and CUDA 13.*)"
    }


def test_log_force_fallback_line_marks_cpu_preferred_node():
    line = ("2026-11-30 08:49:57.291 [I:onnxruntime:, fallback_cpu_capability.cc:185 GetCpuPreferredNodes] "
            "Force fallback to CPU execution for node: gather because the CPU execution path is deemed faster "
            "than overhead involved with execution on other EPs  capable of executing this node")
    facts = ortlog.extract_facts(ortlog.parse_lines(line))
    assert list(facts.cpu_preferred) == ["gather"]


def test_log_continuation_lines_join_the_previous_severity():
    lines = ortlog.parse_lines("2026-01-01 00:00:00.0 [E:onnxruntime:x, a.cc:1 f] first\nsecond line\n")
    assert [(line.severity, line.message) for line in lines] == [("E", "first"), ("E", "second line")]


def test_capture_native_stderr_catches_writes_to_fd_2(capfd):
    import os

    with ortlog.capture_native_stderr() as captured:
        os.write(2, b"native line\n")
    assert captured.text == "native line\n"
    assert capfd.readouterr().err == ""
