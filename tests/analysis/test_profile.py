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


RAW_NAMES = ['relu "one"\n\ttab\\end', "back\\tslash", "plain"]  # as written in rawnames.ort1300.profile.json.gz


def _unzipped(tmp_path, name):
    import gzip

    path = tmp_path / name.removesuffix(".gz")
    path.write_bytes(gzip.decompress((RAW_FIXTURES / name).read_bytes()))
    return path


def test_profile_of_onnxruntime_1_30_reads_unescaped_node_names_as_written(tmp_path):
    path = _unzipped(tmp_path, "rawnames.ort1300.profile.json.gz")
    runs, nodes = parse_profile(path, raw_names=True)
    assert (len(runs), [n.name for n in nodes]) == (2, RAW_NAMES * 2)


def test_profile_of_onnxruntime_1_30_read_as_escaped_json_is_refused_not_misread(tmp_path):
    import pytest

    from ortcopy_doctor.model.errors import ModelError

    path = _unzipped(tmp_path, "rawnames.ort1300.profile.json.gz")
    with pytest.raises(ModelError, match="is not readable JSON"):
        parse_profile(path)


def test_profile_line_with_an_unescaped_quote_in_its_name_is_not_read_as_a_shorter_name(tmp_path):
    # one event per line as onnxruntime 1.30 writes it: the fast reader must not take 'a ' for the name
    path = tmp_path / "p.json"
    path.write_text('[\n{"cat" : "Session","pid" :1,"tid" :1,"dur" :10,"ts" :0,"ph" : "X","name" :"model_run","args" : {}},\n'
                    '{"cat" : "Node","pid" :1,"tid" :1,"dur" :3,"ts" :2,"ph" : "X","name" :"a "q"_kernel_time",'
                    '"args" : {"op_name" : "Relu","provider" : "CPUExecutionProvider"}}\n]\n', encoding="utf-8")
    _, nodes = parse_profile(path, raw_names=True)
    assert [n.name for n in nodes] == ['a "q"']


def test_profile_line_with_an_unescaped_quote_read_as_escaped_json_is_refused(tmp_path):
    import pytest

    from ortcopy_doctor.model.errors import ModelError

    path = tmp_path / "p.json"
    path.write_text('[\n{"cat" : "Node","pid" :1,"tid" :1,"dur" :3,"ts" :2,"ph" : "X","name" :"a "q"_kernel_time",'
                    '"args" : {"op_name" : "Relu","provider" : "CPUExecutionProvider"}}\n]\n', encoding="utf-8")
    with pytest.raises(ModelError, match="is not readable JSON"):
        parse_profile(path)
