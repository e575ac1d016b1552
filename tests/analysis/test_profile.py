"""ORT's profile (ortcopy_doctor.analysis.profile), parsed from raw output recorded on the H200 (ORT 1.31.1)."""

from __future__ import annotations

import json

from fixture_loader import RAW_FIXTURES
from ortcopy_doctor.analysis.profile import parse_events, parse_profile, tensor_bytes


def test_profile_runs_and_kernel_events_sorted_by_ts():
    path = RAW_FIXTURES / "cpu_op_between.h200.profile.json.gz"
    import gzip

    events = json.loads(gzip.open(path, "rt").read())
    runs, nodes = parse_events(events, warmup_runs=1)
    assert [(r.run, r.warmup) for r in runs] == [(0, True), (1, False), (2, False)]
    measured = [(n.name, n.op_type, n.provider, n.output_bytes) for n in nodes if n.run == 1]
    assert measured == [
        ("matmul1", "MatMul", "CUDAExecutionProvider", 1024),
        ("Memcpy_token_0", "MemcpyToHost", "CUDAExecutionProvider", 1024),
        ("celu", "Celu", "CPUExecutionProvider", 1024),
        ("Memcpy", "MemcpyFromHost", "CUDAExecutionProvider", 1024),
        ("matmul2", "MatMul", "CUDAExecutionProvider", 256),
    ]


def test_profile_written_in_end_time_order_is_resorted():
    events = [
        {"cat": "Node", "name": "b_kernel_time", "ts": 20, "dur": 1, "args": {"op_name": "Relu", "provider": "P"}},
        {"cat": "Session", "name": "model_run", "ts": 5, "dur": 30},
        {"cat": "Node", "name": "a_kernel_time", "ts": 10, "dur": 1, "args": {"op_name": "Relu", "provider": "P"}},
    ]
    _, nodes = parse_events(events)
    assert [n.name for n in nodes] == ["a", "b"]


def test_profile_old_form_fence_events_are_skipped_and_missing_fields_default():
    events = [
        {"cat": "Session", "name": "model_run", "ts": 0, "dur": 100},
        {"cat": "Node", "name": "n_fence_before", "ts": 1, "dur": 0, "args": {}},
        {"cat": "Node", "name": "n_kernel_time", "ts": 2, "dur": 5,
         "args": {"output_type_shape": [{"float": [2, 3]}]}},
        {"cat": "Node", "name": "n_fence_after", "ts": 8, "dur": 0, "args": {}},
    ]
    _, nodes = parse_events(events)
    assert [(n.name, n.op_type, n.provider, n.output_bytes) for n in nodes] == [("n", "n", "", 24)]


def test_profile_trace_events_object_form(tmp_path):
    path = tmp_path / "p.json"
    path.write_text(json.dumps({"traceEvents": [{"cat": "Session", "name": "model_run", "ts": 0, "dur": 1}]}))
    runs, nodes = parse_profile(path)
    assert len(runs) == 1 and nodes == []


def test_tensor_bytes_of_profile_shape_entries():
    assert tensor_bytes({"float": [2, 128]}) == 1024
    assert tensor_bytes({"int64": [2, 245]}) == 3920
    assert tensor_bytes({"bool": []}) == 1
    assert tensor_bytes({"unknown_type": [4]}) == 0
