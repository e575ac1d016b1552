"""Synthesized integer inputs that index a small table (BERT's token_type_ids: 2 rows) stay below its rows; ids
of 2 or 3 made ORT refuse the run ("indices element out of data bounds"), so `check bert.onnx` exited 2."""

from __future__ import annotations

import numpy as np
import onnx
from onnx import TensorProto, helper, numpy_helper

from ortcopy_doctor import check
from ortcopy_doctor.collect.feeds import index_bounds


def _embeddings() -> onnx.ModelProto:
    words = numpy_helper.from_array(np.ones((30, 4), np.float32), "word_table")
    types = numpy_helper.from_array(np.ones((2, 4), np.float32), "type_table")
    nodes = [helper.make_node("Gather", ["word_table", "input_ids"], ["w"], name="words"),
             helper.make_node("Cast", ["token_type_ids"], ["tt"], name="cast", to=TensorProto.INT64),
             helper.make_node("Gather", ["type_table", "tt"], ["t"], name="types"),
             helper.make_node("Add", ["w", "t"], ["y"], name="add")]
    graph = helper.make_graph(nodes, "g",
                              [helper.make_tensor_value_info("input_ids", TensorProto.INT64, ["batch", "seq"]),
                               helper.make_tensor_value_info("token_type_ids", TensorProto.INT32, ["batch", "seq"])],
                              [helper.make_tensor_value_info("y", TensorProto.FLOAT, ["batch", "seq", 4])],
                              [words, types])
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17)])
    model.ir_version = 8
    return model


def test_an_input_that_indexes_a_two_row_table_is_bounded_by_it():
    assert index_bounds(_embeddings()) == {"token_type_ids": 2}


def test_a_check_runs_with_ids_inside_the_small_table(tmp_path):
    onnx.save(_embeddings(), str(tmp_path / "emb.onnx"))
    report = check(tmp_path / "emb.onnx", providers=["cpu"], dims={"batch": 2, "seq": 16}, warmup_runs=0,
                   profiled_runs=1, timed_runs=1)
    assert {f.name: f.high for f in report.evidence.feeds} == {"input_ids": None, "token_type_ids": 2}


def test_the_binding_code_draws_the_ids_below_the_tables_rows(tmp_path):
    onnx.save(_embeddings(), str(tmp_path / "emb.onnx"))
    code = check(tmp_path / "emb.onnx", static=True, dims={"batch": 2, "seq": 16}).binding.code
    assert "rng.integers(0, 2, size=(BATCH, SEQ)).astype(np.int32)" in code
    assert "rng.integers(0, 4, size=(BATCH, SEQ)).astype(np.int64)" in code


def test_the_binding_code_loads_the_inputs_file_that_was_passed(tmp_path):
    """It loaded 'inputs.npz' whatever --inputs named, and failed as printed."""
    onnx.save(_embeddings(), str(tmp_path / "emb.onnx"))
    np.savez(tmp_path / "real.npz", input_ids=np.zeros((1, 3), np.int64), token_type_ids=np.zeros((1, 3), np.int32))
    report = check(tmp_path / "emb.onnx", static=True, inputs_file=tmp_path / "real.npz")
    assert f"INPUTS_FILE = {str(tmp_path / 'real.npz')!r}" in report.binding.code  # its comment: above, if long
    assert report.evidence.inputs_file == str(tmp_path / "real.npz")
