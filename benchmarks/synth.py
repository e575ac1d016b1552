"""Synthetic inputs for the benchmarks: ORT-style profiles and large generated models."""

from __future__ import annotations

import json
import os
from pathlib import Path

import numpy as np
import onnx
from onnx import TensorProto, helper, numpy_helper

IR_VERSION = 10  # ORT 1.31 loads IR <= 13; onnx 1.23 writes 14 by default

_OPS = [("MatMul", [{"float": [8, 128, 768]}, {"float": [768, 768]}], [{"float": [8, 128, 768]}]),
        ("Add", [{"float": [8, 128, 768]}, {"float": [768]}], [{"float": [8, 128, 768]}]),
        ("Gelu", [{"float": [8, 128, 768]}], [{"float": [8, 128, 768]}]),
        ("Reshape", [{"float": [8, 128, 768]}, {"int64": [4]}], [{"float": [8, 128, 12, 64]}]),
        ("Softmax", [{"float": [8, 12, 128, 128]}], [{"float": [8, 12, 128, 128]}]),
        ("MemcpyToHost", [{"int64": [4]}], [{"int64": [4]}])]


def _ort_line(event: dict) -> str:
    """One event the way ORT 1.31's profiler writes it: ``"key" :value`` pairs, args in its own spacing."""
    def value(v: object) -> str:
        return json.dumps(v, separators=(",", ":")) if not isinstance(v, dict) else json.dumps(v)

    head = ",".join(f'"{k}" :{json.dumps(v)}' if k not in ("cat", "ph", "args") else f'"{k}" : {json.dumps(v)}'
                    for k, v in event.items() if k != "args")
    args = ",".join(f'"{k}" : {value(v)}' for k, v in event.get("args", {}).items())
    return f"{{{head},\"args\" : {{{args}}}}}"


def write_profile(path: Path, events: int, nodes_per_run: int = 1000, sub_threads: int = 4) -> Path:
    """An ORT 1.31-style profile with ``events`` events in all, laid out as ORT writes it (one event per
    line, in end-time order, every args field ORT writes, thread-scheduling stats with ``sub_threads``
    pool threads): per run ``nodes_per_run`` Node ``*_kernel_time`` events, then one ``model_run``."""
    pid = os.getpid()
    stats = {"main_thread": {"thread_pool_name": "session-1-intra-op", "thread_id": str(139968336900416),
                             "block_size": [], "core": -1, "Distribution": 0, "DistributionEnqueue": 0, "Run": 0,
                             "Wait": 0, "WaitRevoke": 0},
             "sub_threads": {str(139954811999936 + 8392704 * k): {"num_run": 0, "core": -1}
                             for k in range(sub_threads)}}
    written = 0
    ts = 1000
    with Path(path).open("w", encoding="utf-8") as f:
        f.write("[\n")
        first = True
        while written < events:
            run_start = ts
            lines = []
            for i in range(nodes_per_run):
                if written + len(lines) + 1 >= events:
                    break
                op, ins, outs = _OPS[i % len(_OPS)]
                dur = 3 + i % 17
                provider = "CPUExecutionProvider" if op == "Reshape" else "CUDAExecutionProvider"
                nbytes = 4
                for d in next(iter(outs[0].values())):
                    nbytes *= d
                ts += dur + 1
                lines.append(_ort_line({
                    "cat": "Node", "pid": pid, "tid": pid, "dur": dur, "ts": ts - dur - 1, "ph": "X",
                    "name": f"/layers.{i // len(_OPS)}/{op}_{i}_kernel_time",
                    "args": {"input_type_shape": ins, "parameter_size": "0", "provider": provider,
                             "mem_bytes_requested_in_use": "50688", "output_type_shape": outs,
                             "mem_arena_held": "1048576", "output_size": str(nbytes), "op_name": op,
                             "mem_requested_in_use_delta": str(nbytes), "activation_size": str(nbytes),
                             "mem_bytes_in_use": "50688", "node_index": str(i), "mem_in_use_peak": "50688",
                             "thread_scheduling_stats": stats, "mem_arena_held_delta": "0",
                             "mem_in_use_delta": str(nbytes)}}))
            lines.append(_ort_line({"cat": "Session", "pid": pid, "tid": pid, "dur": ts - run_start, "ts": run_start,
                                    "ph": "X", "name": "model_run", "args": {}}))
            for line in lines:
                f.write(("" if first else ",\n") + line)
                first = False
            written += len(lines)
            ts += 50
        f.write("\n]\n")
    return Path(path)


def chain_model(nodes: int, width: int = 16) -> onnx.ModelProto:
    """``nodes`` small elementwise/MatMul nodes in a chain (fast to run, many nodes)."""
    rng = np.random.default_rng(0)
    w = numpy_helper.from_array((rng.standard_normal((width, width)) * 0.1).astype(np.float32), "w")
    b = numpy_helper.from_array(np.full((width,), 0.01, np.float32), "b")
    ops = ["MatMul", "Add", "Relu", "Tanh"]
    graph_nodes = []
    prev = "x"
    for i in range(nodes):
        op = ops[i % len(ops)]
        out = f"t{i}" if i < nodes - 1 else "y"
        inputs = {"MatMul": [prev, "w"], "Add": [prev, "b"]}.get(op, [prev])
        graph_nodes.append(helper.make_node(op, inputs, [out], name=f"/block{i // 4}/{op}_{i}"))
        prev = out
    graph = helper.make_graph(graph_nodes, "chain",
                              [helper.make_tensor_value_info("x", TensorProto.FLOAT, ["batch", width])],
                              [helper.make_tensor_value_info("y", TensorProto.FLOAT, ["batch", width])], [w, b])
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17)])
    model.ir_version = IR_VERSION
    return model


def relu_chain(nodes: int) -> onnx.ModelProto:
    """``nodes`` Relus in a chain on x: float32 [1, 4]: one profile event per node per run, and next to no compute
    (the memory of the profile, issue 38)."""
    graph_nodes = [helper.make_node("Relu", ["x" if i == 0 else f"t{i - 1}"], ["y" if i == nodes - 1 else f"t{i}"],
                                    name=f"relu{i}") for i in range(nodes)]
    graph = helper.make_graph(graph_nodes, "relu_chain", [helper.make_tensor_value_info("x", TensorProto.FLOAT, [1, 4])],
                              [helper.make_tensor_value_info("y", TensorProto.FLOAT, [1, 4])])
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17)])
    model.ir_version = IR_VERSION
    return model


def conv_net(channels: int = 64, blocks: int = 8) -> onnx.ModelProto:
    """A plain conv net (Conv-Relu blocks, pooling, Gemm) on 1x3x224x224."""
    rng = np.random.default_rng(1)
    inits, nodes = [], []

    def weight(name: str, shape: tuple[int, ...]) -> str:
        inits.append(numpy_helper.from_array((rng.standard_normal(shape) * 0.05).astype(np.float32), name))
        return name

    prev, cin = "image", 3
    nodes.append(helper.make_node("Conv", [prev, weight("stem_w", (channels, 3, 7, 7)), weight("stem_b", (channels,))],
                                  ["stem"], name="stem", pads=[3, 3, 3, 3], strides=[2, 2]))
    nodes.append(helper.make_node("MaxPool", ["stem"], ["pooled0"], name="pool0", kernel_shape=[3, 3], strides=[2, 2],
                                  pads=[1, 1, 1, 1]))
    prev, cin = "pooled0", channels
    for i in range(blocks):
        cout = channels * (2 if i >= blocks // 2 else 1)
        stride = 2 if i == blocks // 2 else 1
        nodes.append(helper.make_node("Conv", [prev, weight(f"w{i}", (cout, cin, 3, 3)), weight(f"b{i}", (cout,))],
                                      [f"c{i}"], name=f"conv{i}", pads=[1, 1, 1, 1], strides=[stride, stride]))
        nodes.append(helper.make_node("Relu", [f"c{i}"], [f"r{i}"], name=f"relu{i}"))
        prev, cin = f"r{i}", cout
    nodes.append(helper.make_node("GlobalAveragePool", [prev], ["gap"], name="gap"))
    nodes.append(helper.make_node("Flatten", ["gap"], ["flat"], name="flatten"))
    nodes.append(helper.make_node("Gemm", ["flat", weight("fc_w", (1000, cin)), weight("fc_b", (1000,))], ["logits"],
                                  name="fc", transB=1))
    graph = helper.make_graph(nodes, "conv_net",
                              [helper.make_tensor_value_info("image", TensorProto.FLOAT, [1, 3, 224, 224])],
                              [helper.make_tensor_value_info("logits", TensorProto.FLOAT, [1, 1000])], inits)
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17)])
    model.ir_version = IR_VERSION
    return model


def tiny_model() -> onnx.ModelProto:
    """A small fast model: three MatMul/Relu layers on a [1, 64] input (thousands of runs per second)."""
    rng = np.random.default_rng(2)
    inits = [numpy_helper.from_array((rng.standard_normal((64, 64)) * 0.1).astype(np.float32), f"w{i}") for i in range(3)]
    nodes, prev = [], "x"
    for i in range(3):
        nodes.append(helper.make_node("MatMul", [prev, f"w{i}"], [f"m{i}"], name=f"matmul{i}"))
        out = "y" if i == 2 else f"r{i}"
        nodes.append(helper.make_node("Relu", [f"m{i}"], [out], name=f"relu{i}"))
        prev = out
    graph = helper.make_graph(nodes, "tiny", [helper.make_tensor_value_info("x", TensorProto.FLOAT, [1, 64])],
                              [helper.make_tensor_value_info("y", TensorProto.FLOAT, [1, 64])], inits)
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17)])
    model.ir_version = IR_VERSION
    return model


def external_data_model(folder: Path, gigabytes: float = 2.2, layers: int = 8) -> Path:
    """A model whose weights (``gigabytes`` in all, float32) live in one external data file; written
    tensor by tensor so that building it never holds all the weights in memory."""
    folder = Path(folder)
    folder.mkdir(parents=True, exist_ok=True)
    data_name = "big.onnx.data"
    per_layer = int(gigabytes * 1e9 / 4 / layers)
    rows = 64
    cols = per_layer // rows
    nodes, inits, offset = [], [], 0
    prev = "x"
    with (folder / data_name).open("wb") as data:
        for i in range(layers):
            block = np.full((rows, cols), 1e-3 * (i + 1), np.float32)
            data.write(block.tobytes())
            t = TensorProto()
            t.name, t.data_type = f"w{i}", TensorProto.FLOAT
            t.dims.extend([rows, cols])
            t.data_location = TensorProto.EXTERNAL
            for k, v in (("location", data_name), ("offset", str(offset)), ("length", str(block.nbytes))):
                entry = t.external_data.add()
                entry.key, entry.value = k, v
            offset += block.nbytes
            inits.append(t)
            # r_i = (x @ w_i)[:, :rows]: every layer's weight is used and the activations stay small
            nodes.append(helper.make_node("MatMul", [prev, f"w{i}"], [f"m{i}"], name=f"matmul{i}"))
            nodes.append(helper.make_node("Slice", [f"m{i}", "starts", "ends", "axes"], [f"r{i}"], name=f"slice{i}"))
            prev = f"r{i}"
            del block
    inits += [numpy_helper.from_array(np.array([0], np.int64), "starts"),
              numpy_helper.from_array(np.array([rows], np.int64), "ends"),
              numpy_helper.from_array(np.array([1], np.int64), "axes")]
    graph = helper.make_graph(nodes, "big", [helper.make_tensor_value_info("x", TensorProto.FLOAT, [1, rows])],
                              [helper.make_tensor_value_info(prev, TensorProto.FLOAT, [1, rows])], inits)
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17)])
    model.ir_version = IR_VERSION
    path = folder / "big.onnx"
    onnx.save(model, str(path))  # only the graph: the weights are already in big.onnx.data
    return path


def fallback_chain_model(nodes: int, width: int = 16) -> onnx.ModelProto:
    """``nodes`` elementwise nodes in a chain where every other one (Cosh) has no CUDA kernel: under a device
    provider half the nodes fall back to CPU and every one of them costs a copy in and a copy out, so a static
    check of 10,000 nodes reports about 15,000 findings (a stress test for the rules and the renderers)."""
    ops = ["Relu", "Cosh"]
    graph_nodes = []
    prev = "x"
    for i in range(nodes):
        op = ops[i % len(ops)]
        out = f"t{i}" if i < nodes - 1 else "y"
        graph_nodes.append(helper.make_node(op, [prev], [out], name=f"/block{i // 2}/{op}_{i}"))
        prev = out
    graph = helper.make_graph(graph_nodes, "fallback_chain",
                              [helper.make_tensor_value_info("x", TensorProto.FLOAT, ["batch", width])],
                              [helper.make_tensor_value_info("y", TensorProto.FLOAT, ["batch", width])])
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17)])
    model.ir_version = IR_VERSION
    return model
