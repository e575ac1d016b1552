"""Record tests/fixtures/rnn_names on a GPU machine: `python3 tools/record_rnn_names.py OUTDIR`.

One LSTM (X [5, 3, 4], hidden 6, opset 14) without sequence_lens, with lengths 5,3,2 and with 5,0,2 (given with
--inputs), each checked on the CUDA EP with the CUPTI census (`check --json --no-measure-binding`); a `watch` of 3
plain runs of the LSTM without lengths; a GRU and an RNN with lengths 5,3,2; Relu -> Cosh -> Relu with no node named, and a local function of unnamed
nodes called twice, each checked on CUDA and with --static. Writes OUTDIR/<name>.json (gzip them into the fixture folder; its README says what each shows).
"""

from __future__ import annotations

import os
import subprocess
import sys
import tempfile
from pathlib import Path

import numpy as np
import onnx
from onnx import TensorProto, helper, numpy_helper

HIDDEN, SIZE, SEQ, BATCH = 6, 4, 5, 3


def recurrent(op_type: str, with_lengths: bool = True) -> onnx.ModelProto:
    """An LSTM, GRU or RNN of the fixtures (X [5, 3, 4], hidden 6, opset 14; weights from seeded normals), named as
    its op in lower case, with the lengths input ``lens`` or without (tests/analysis/test_rnn_names_fixtures.py
    builds them too and checks their sha256 against the recorded reports)."""
    gates = {"LSTM": 4, "GRU": 3, "RNN": 1}[op_type]
    w = numpy_helper.from_array(np.random.default_rng(0).standard_normal((1, gates * HIDDEN, SIZE)).astype(np.float32),
                                "W")
    r = numpy_helper.from_array(np.random.default_rng(1).standard_normal((1, gates * HIDDEN, HIDDEN)).astype(np.float32),
                                "R")
    inputs = ["x", "W", "R", "", "lens"] if with_lengths else ["x", "W", "R"]
    node = helper.make_node(op_type, inputs, ["y"], name=op_type.lower(), hidden_size=HIDDEN)
    graph_inputs = [helper.make_tensor_value_info("x", TensorProto.FLOAT, [SEQ, BATCH, SIZE])]
    if with_lengths:
        graph_inputs.append(helper.make_tensor_value_info("lens", TensorProto.INT32, [BATCH]))
    graph = helper.make_graph([node], "g", graph_inputs, [helper.make_tensor_value_info("y", TensorProto.FLOAT, None)],
                              [w, r])
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 14)])
    model.ir_version = 8
    return model


def lstm(with_lengths: bool) -> onnx.ModelProto:
    """The LSTM of the fixtures, with or without lengths."""
    return recurrent("LSTM", with_lengths)


def unnamed_chain() -> onnx.ModelProto:
    """Relu -> Cosh -> Relu, no node named (Cosh has no CUDA kernel)."""
    nodes = [helper.make_node("Relu", ["x"], ["a"]), helper.make_node("Cosh", ["a"], ["b"]),
             helper.make_node("Relu", ["b"], ["y"])]
    graph = helper.make_graph(nodes, "g", [helper.make_tensor_value_info("x", TensorProto.FLOAT, [2])],
                              [helper.make_tensor_value_info("y", TensorProto.FLOAT, [2])])
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17)])
    model.ir_version = 8
    return model


def function_twice() -> onnx.ModelProto:
    """A local function Relu -> Cosh -> Neg, no body node named, called twice (Cosh has no CUDA kernel)."""
    body = [helper.make_node("Relu", ["a"], ["t"]), helper.make_node("Cosh", ["t"], ["u"]),
            helper.make_node("Neg", ["u"], ["b"])]
    fn = helper.make_function("local", "Fn", ["a"], ["b"], body, [helper.make_opsetid("", 17)])
    nodes = [helper.make_node("Fn", ["x"], ["y"], domain="local", name="call1"),
             helper.make_node("Fn", ["y"], ["z"], domain="local", name="call2")]
    graph = helper.make_graph(nodes, "g", [helper.make_tensor_value_info("x", TensorProto.FLOAT, [2])],
                              [helper.make_tensor_value_info("z", TensorProto.FLOAT, [2])])
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17), helper.make_opsetid("local", 1)],
                              functions=[fn])
    model.ir_version = 8
    return model


def _check(model_path: Path, json_path: Path, *extra: str) -> None:
    cmd = [sys.executable, "-m", "ortcopy_doctor", "check", str(model_path), "--json", str(json_path),
           "--no-measure-binding", "--fail-on", "never", "--no-html", *extra]
    result = subprocess.run(cmd, capture_output=True, text=True, env={**os.environ, "COLUMNS": "200"}, check=False)
    print(f"== {json_path.name}: exit {result.returncode}\n{result.stdout[-3000:]}{result.stderr[-1500:]}")


def main(out: Path) -> None:
    import ortcopy_doctor

    out.mkdir(parents=True, exist_ok=True)
    with tempfile.TemporaryDirectory() as folder:
        work = Path(folder)
        for name, lengths in (("lstm_nolens", None), ("lstm_lens", [5, 3, 2]), ("lstm_lens_zero", [5, 0, 2])):
            path = work / f"{name}.onnx"
            onnx.save(lstm(lengths is not None), str(path))
            extra: list[str] = []
            if lengths is not None:
                x = np.random.default_rng(2).standard_normal((SEQ, BATCH, SIZE)).astype(np.float32)
                np.savez(work / f"{name}.npz", x=x, lens=np.array(lengths, np.int32))
                extra = ["--inputs", str(work / f"{name}.npz")]
            _check(path, out / f"{name}.cuda.json", *extra)
        session = ortcopy_doctor.instrumented_session(str(work / "lstm_nolens.onnx"), profile=False,
                                                      providers=["CUDAExecutionProvider", "CPUExecutionProvider"])
        x = np.random.default_rng(2).standard_normal((SEQ, BATCH, SIZE)).astype(np.float32)
        with ortcopy_doctor.watch(session) as w:
            for _ in range(3):
                session.run(None, {"x": x})
        (out / "lstm_nolens.watch.json").write_text(w.report.to_json(), encoding="utf-8")
        onnx.save(unnamed_chain(), str(work / "unnamed_chain.onnx"))
        _check(work / "unnamed_chain.onnx", out / "unnamed_chain.cuda.json")
        _check(work / "unnamed_chain.onnx", out / "unnamed_chain.static.json", "--static")
        for op_type in ("GRU", "RNN"):
            path = work / f"{op_type}.onnx"
            onnx.save(recurrent(op_type), str(path))
            x = np.random.default_rng(2).standard_normal((SEQ, BATCH, SIZE)).astype(np.float32)
            np.savez(work / f"{op_type}.npz", x=x, lens=np.array([5, 3, 2], np.int32))
            for suffix, extra in ((".cuda", ()), (".static", ("--static",))):
                _check(path, out / f"{op_type.lower()}_lens{suffix}.json", "--inputs", str(work / f"{op_type}.npz"), *extra)
        onnx.save(function_twice(), str(work / "fn_unnamed.onnx"))
        _check(work / "fn_unnamed.onnx", out / "fn_unnamed.cuda.json")
        _check(work / "fn_unnamed.onnx", out / "fn_unnamed.static.json", "--static")


if __name__ == "__main__":
    if len(sys.argv) != 2:
        sys.exit("usage: python3 tools/record_rnn_names.py OUTDIR")
    main(Path(sys.argv[1]))
