"""ORT's profile (ortcopy_doctor.analysis.profile), parsed from raw output recorded on the H200 (ORT 1.31.1)."""

from __future__ import annotations

import json
import re

import pytest

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


# --- every layout streamed (issue 38): memory holds the events kept, not the file ----------------------------------

def _events(count: int, padding: int = 0) -> list[dict]:
    events = [{"cat": "Session", "name": "model_run", "ts": 0, "dur": count * 10 + 10, "args": {}}]
    for i in range(count):
        events.append({"cat": "Node", "name": f"n{i % 7}_kernel_time", "ts": 1 + i * 10, "dur": 3,
                       "args": {"op_name": "Relu", "provider": "CPUExecutionProvider", "pad": "x" * padding,
                                "output_type_shape": [{"float": [2, 3]}]}})
    return events


def _peak(function, *args):
    import tracemalloc

    tracemalloc.start()
    try:
        result = function(*args)
        return result, tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()


def test_a_profile_in_one_line_is_streamed(tmp_path):
    from ortcopy_doctor.analysis.profile import load_events

    events = _events(3000, padding=4000)
    path = tmp_path / "p.json"
    path.write_text(json.dumps(events), encoding="utf-8")  # 12 MB on one line
    (runs, nodes), peak = _peak(parse_profile, path)
    assert (runs, nodes) == parse_events(load_events(path))
    assert len(nodes) == 3000
    assert peak < path.stat().st_size // 4  # was the whole text and every event's dict


@pytest.mark.parametrize("layout", ["pretty", "trace_events", "empty_list", "empty_object"])
def test_other_layouts_give_what_the_whole_file_gives(tmp_path, layout):
    from ortcopy_doctor.analysis.profile import load_events

    events = _events(50)
    text = {"pretty": json.dumps(events, indent=2),
            "trace_events": json.dumps({"displayTimeUnit": "ms", "traceEvents": events, "metadata": {"a": [1, 2]}}),
            "empty_list": "[ ]", "empty_object": "{}"}[layout]
    path = tmp_path / "p.json"
    path.write_text(text, encoding="utf-8")
    assert parse_profile(path, 1) == parse_events(load_events(path), 1)


@pytest.mark.parametrize("text, why", [
    ("[{\"cat\": \"Session\"}] extra", "is not readable JSON (extra data"),
    ("[{\"cat\": \"Session\"}", "is not readable JSON (expected one of ',]'"),
    ("", "is not readable JSON (the file is empty)"),
    ("3", "is not an ORT profile (expected a list of events, found int)"),
    ("{\"traceEvents\": 3}", "is not an ORT profile (expected a list of events)"),
])
def test_a_profile_that_is_no_list_of_events_is_refused(tmp_path, text, why):
    from ortcopy_doctor.model.errors import ModelError

    path = tmp_path / "p.json"
    path.write_text(text, encoding="utf-8")
    with pytest.raises(ModelError, match=re.escape(why)):
        parse_profile(path)


def test_an_unescaped_name_spanning_lines_is_streamed_with_the_lines_that_follow(tmp_path):
    # onnxruntime up to 1.30 wrote names as they are: a newline in a name splits its event over two lines
    path = tmp_path / "p.json"
    path.write_text('[\n{"cat" : "Session","pid" :1,"tid" :1,"dur" :10,"ts" :0,"ph" : "X","name" :"model_run",'
                    '"args" : {}},\n{"cat" : "Node","pid" :1,"tid" :1,"dur" :3,"ts" :2,"ph" : "X","name" :"a\n"b"'
                    '_kernel_time","args" : {"op_name" : "Relu","provider" : "CPUExecutionProvider"}}\n]\n',
                    encoding="utf-8")
    _, nodes = parse_profile(path, raw_names=True)
    assert [n.name for n in nodes] == ['a\n"b"']
