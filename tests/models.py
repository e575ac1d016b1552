"""Tiny ONNX models built in code, one per behaviour the doctor must see.

Each builder returns an ``onnx.ModelProto`` with ``ir_version`` pinned to 10, because
ORT 1.31 loads IR versions up to 13 while onnx 1.23 writes IR 14 by default.
"""

from __future__ import annotations

from collections.abc import Callable

import numpy as np
import onnx
from onnx import TensorProto, helper, numpy_helper

IR_VERSION = 10


def _model(
    nodes: list[onnx.NodeProto],
    inputs: list[onnx.ValueInfoProto],
    outputs: list[onnx.ValueInfoProto],
    initializers: list[onnx.TensorProto] | None = None,
    opset: int = 17,
    name: str = "model",
    extra_opsets: dict[str, int] | None = None,
) -> onnx.ModelProto:
    graph = helper.make_graph(nodes, name, inputs, outputs, initializers or [])
    opsets = [helper.make_opsetid("", opset)]
    for domain, version in (extra_opsets or {}).items():
        opsets.append(helper.make_opsetid(domain, version))
    model = helper.make_model(graph, opset_imports=opsets, producer_name="ortcopy-doctor-tests")
    model.ir_version = IR_VERSION
    return model


def _weights(name: str, shape: tuple[int, ...], seed: int) -> onnx.TensorProto:
    rng = np.random.default_rng(seed)
    return numpy_helper.from_array((rng.standard_normal(shape) * 0.1).astype(np.float32), name)


def conv_net() -> onnx.ModelProto:
    """All-CUDA conv net: Conv-Relu-Conv-Relu-GlobalAveragePool-Flatten-Gemm."""
    nodes = [
        helper.make_node("Conv", ["image", "w1", "b1"], ["c1"], name="conv1", pads=[1, 1, 1, 1]),
        helper.make_node("Relu", ["c1"], ["r1"], name="relu1"),
        helper.make_node("Conv", ["r1", "w2", "b2"], ["c2"], name="conv2", pads=[1, 1, 1, 1]),
        helper.make_node("Relu", ["c2"], ["r2"], name="relu2"),
        helper.make_node("GlobalAveragePool", ["r2"], ["pooled"], name="pool"),
        helper.make_node("Flatten", ["pooled"], ["flat"], name="flatten"),
        helper.make_node("Gemm", ["flat", "fc_w", "fc_b"], ["logits"], name="fc", transB=1),
    ]
    inits = [
        _weights("w1", (16, 3, 3, 3), 1),
        _weights("b1", (16,), 2),
        _weights("w2", (32, 16, 3, 3), 3),
        _weights("b2", (32,), 4),
        _weights("fc_w", (10, 32), 5),
        _weights("fc_b", (10,), 6),
    ]
    return _model(
        nodes,
        [helper.make_tensor_value_info("image", TensorProto.FLOAT, ["batch", 3, 32, 32])],
        [helper.make_tensor_value_info("logits", TensorProto.FLOAT, ["batch", 10])],
        inits,
        name="conv_net",
    )


def cpu_op_between() -> onnx.ModelProto:
    """MatMul -> Celu (no CUDA kernel in ORT) -> MatMul: two Memcpy nodes around Celu."""
    nodes = [
        helper.make_node("MatMul", ["x", "w1"], ["h1"], name="matmul1"),
        helper.make_node("Celu", ["h1"], ["h2"], name="celu", alpha=1.0),
        helper.make_node("MatMul", ["h2", "w2"], ["y"], name="matmul2"),
    ]
    return _model(
        nodes,
        [helper.make_tensor_value_info("x", TensorProto.FLOAT, ["batch", 64])],
        [helper.make_tensor_value_info("y", TensorProto.FLOAT, ["batch", 32])],
        [_weights("w1", (64, 128), 7), _weights("w2", (128, 32), 8)],
        name="cpu_op_between",
    )


def data_dependent_shape() -> onnx.ModelProto:
    """Relu -> NonZero: the output's shape depends on the data (NonZero reads its count back)."""
    nodes = [
        helper.make_node("Relu", ["x"], ["positive"], name="relu"),
        helper.make_node("NonZero", ["positive"], ["indices"], name="nonzero"),
    ]
    return _model(
        nodes,
        [helper.make_tensor_value_info("x", TensorProto.FLOAT, ["batch", 256])],
        [helper.make_tensor_value_info("indices", TensorProto.INT64, [2, "nnz"])],
        name="data_dependent_shape",
    )


def sequence_output() -> onnx.ModelProto:
    """MatMul -> SplitToSequence (CPU only): a sequence output, which cannot be bound on CUDA."""
    nodes = [
        helper.make_node("MatMul", ["x", "w"], ["h"], name="matmul"),
        helper.make_node("SplitToSequence", ["h"], ["parts"], name="split_to_sequence", axis=1, keepdims=1),
    ]
    seq = helper.make_tensor_sequence_value_info("parts", TensorProto.FLOAT, None)
    return _model(
        nodes,
        [helper.make_tensor_value_info("x", TensorProto.FLOAT, ["batch", 16])],
        [seq, helper.make_tensor_value_info("h", TensorProto.FLOAT, ["batch", 4])],
        [_weights("w", (16, 4), 9)],
        name="sequence_output",
    )


def map_output() -> onnx.ModelProto:
    """Softmax -> ZipMap (ai.onnx.ml, CPU only): a sequence of maps as output."""
    nodes = [
        helper.make_node("Softmax", ["x"], ["probabilities"], name="softmax", axis=1),
        helper.make_node(
            "ZipMap", ["probabilities"], ["labels"], name="zipmap", domain="ai.onnx.ml", classlabels_int64s=[0, 1, 2]
        ),
    ]
    out = helper.make_value_info(
        "labels",
        helper.make_sequence_type_proto(helper.make_map_type_proto(TensorProto.INT64, helper.make_tensor_type_proto(TensorProto.FLOAT, []))),
    )
    return _model(
        nodes,
        [helper.make_tensor_value_info("x", TensorProto.FLOAT, ["batch", 3])],
        [out],
        name="map_output",
        extra_opsets={"ai.onnx.ml": 3},
    )


def if_on_device() -> onnx.ModelProto:
    """ReduceSum on device -> Greater -> If: the If reads its condition back from the device."""
    then_g = helper.make_graph(
        [helper.make_node("Mul", ["x", "two"], ["then_out"], name="then_mul")],
        "then_branch",
        [],
        [helper.make_tensor_value_info("then_out", TensorProto.FLOAT, ["batch", 8])],
        [numpy_helper.from_array(np.array(2.0, np.float32), "two")],
    )
    else_g = helper.make_graph(
        [helper.make_node("Neg", ["x"], ["else_out"], name="else_neg")],
        "else_branch",
        [],
        [helper.make_tensor_value_info("else_out", TensorProto.FLOAT, ["batch", 8])],
    )
    nodes = [
        helper.make_node("ReduceSum", ["x"], ["total"], name="reduce_sum", keepdims=0),
        helper.make_node("Greater", ["total", "zero"], ["cond"], name="greater"),
        helper.make_node("If", ["cond"], ["y"], name="branch", then_branch=then_g, else_branch=else_g),
    ]
    return _model(
        nodes,
        [helper.make_tensor_value_info("x", TensorProto.FLOAT, ["batch", 8])],
        [helper.make_tensor_value_info("y", TensorProto.FLOAT, ["batch", 8])],
        [numpy_helper.from_array(np.array(0.0, np.float32), "zero")],
        name="if_on_device",
    )


def cpu_only_inputs() -> onnx.ModelProto:
    """An input consumed only as a Reshape shape (read from host by the CUDA kernel) and a CPU-only op."""
    nodes = [
        helper.make_node("Reshape", ["x", "target_shape"], ["reshaped"], name="reshape"),
        helper.make_node("Relu", ["reshaped"], ["y"], name="relu"),
        helper.make_node("BitShift", ["bits", "amount"], ["shifted"], name="bitshift", direction="LEFT"),
    ]
    return _model(
        nodes,
        [
            helper.make_tensor_value_info("x", TensorProto.FLOAT, ["batch", 16]),
            helper.make_tensor_value_info("target_shape", TensorProto.INT64, [2]),
            helper.make_tensor_value_info("bits", TensorProto.UINT32, [8]),
            helper.make_tensor_value_info("amount", TensorProto.UINT32, [8]),
        ],
        [
            helper.make_tensor_value_info("y", TensorProto.FLOAT, ["rows", "cols"]),
            helper.make_tensor_value_info("shifted", TensorProto.UINT32, [8]),
        ],
        name="cpu_only_inputs",
    )


def stateful() -> onnx.ModelProto:
    """A recurrent cell: state_out = tanh(x @ W + state @ U); state_out feeds the next run's state."""
    nodes = [
        helper.make_node("MatMul", ["x", "W"], ["xw"], name="input_projection"),
        helper.make_node("MatMul", ["state", "U"], ["su"], name="state_projection"),
        helper.make_node("Add", ["xw", "su"], ["pre"], name="add"),
        helper.make_node("Tanh", ["pre"], ["state_out"], name="tanh"),
        helper.make_node("MatMul", ["state_out", "V"], ["y"], name="readout"),
    ]
    return _model(
        nodes,
        [
            helper.make_tensor_value_info("x", TensorProto.FLOAT, ["batch", 32]),
            helper.make_tensor_value_info("state", TensorProto.FLOAT, ["batch", 64]),
        ],
        [
            helper.make_tensor_value_info("y", TensorProto.FLOAT, ["batch", 8]),
            helper.make_tensor_value_info("state_out", TensorProto.FLOAT, ["batch", 64]),
        ],
        [_weights("W", (32, 64), 10), _weights("U", (64, 64), 11), _weights("V", (64, 8), 12)],
        name="stateful",
    )


def shape_subgraph() -> onnx.ModelProto:
    """Shape -> Gather -> Mul -> Unsqueeze -> Concat -> Reshape: a shape computation ORT may keep on CPU."""
    nodes = [
        helper.make_node("Relu", ["x"], ["r"], name="relu"),
        helper.make_node("Shape", ["r"], ["shape"], name="shape"),
        helper.make_node("Gather", ["shape", "zero_index"], ["batch_dim"], name="gather", axis=0),
        # The Mul keeps ORT's ReshapeFusion from folding the chain into a constant shape.
        helper.make_node("Mul", ["batch_dim", "two"], ["doubled"], name="double"),
        helper.make_node("Unsqueeze", ["doubled", "axes0"], ["batch_dim_1d"], name="unsqueeze"),
        helper.make_node("Concat", ["batch_dim_1d", "minus_one"], ["new_shape"], name="concat", axis=0),
        helper.make_node("Reshape", ["r", "new_shape"], ["y"], name="reshape"),
    ]
    inits = [
        numpy_helper.from_array(np.array(0, np.int64), "zero_index"),
        numpy_helper.from_array(np.array([0], np.int64), "axes0"),
        numpy_helper.from_array(np.array([-1], np.int64), "minus_one"),
        numpy_helper.from_array(np.array(2, np.int64), "two"),
    ]
    return _model(
        nodes,
        [helper.make_tensor_value_info("x", TensorProto.FLOAT, ["batch", 4, 8])],
        [helper.make_tensor_value_info("y", TensorProto.FLOAT, ["doubled_batch", 16])],
        inits,
        name="shape_subgraph",
    )


ALL: dict[str, Callable[[], onnx.ModelProto]] = {
    "conv_net": conv_net,
    "cpu_op_between": cpu_op_between,
    "data_dependent_shape": data_dependent_shape,
    "sequence_output": sequence_output,
    "map_output": map_output,
    "if_on_device": if_on_device,
    "cpu_only_inputs": cpu_only_inputs,
    "stateful": stateful,
    "shape_subgraph": shape_subgraph,
}


def shared_input() -> onnx.ModelProto:
    """Input x read by Relu 'r1' (CUDA) and by Celu 'c3' (no CUDA kernel: CPU), with Relu -> Celu -> Relu -> Celu
    -> Relu after r1: ORT keeps x on the host and copies it for r1 with a MemcpyFromHost node, no feed copy
    (tests/fixtures/shared_input, recorded on the H200)."""
    nodes = [helper.make_node("Relu", ["x"], ["a1"], name="r1"), helper.make_node("Celu", ["a1"], ["b1"], name="c1"),
             helper.make_node("Relu", ["b1"], ["a2"], name="r2"), helper.make_node("Celu", ["a2"], ["b2"], name="c2"),
             helper.make_node("Relu", ["b2"], ["y"], name="r3"), helper.make_node("Celu", ["x"], ["z"], name="c3")]
    return _model(nodes, [helper.make_tensor_value_info("x", TensorProto.FLOAT, [2, 8])],
                  [helper.make_tensor_value_info("y", TensorProto.FLOAT, [2, 8]),
                   helper.make_tensor_value_info("z", TensorProto.FLOAT, [2, 8])], name="shared_input")


def sigmoid_in_out() -> onnx.ModelProto:
    """One Sigmoid, image_in -> image_out, the same shape and dtype: names alike, but not state (issue 36: the code
    once fed each run's output back as the next input, and call 2 returned sigmoid(sigmoid(x)))."""
    return _model([helper.make_node("Sigmoid", ["image_in"], ["image_out"], name="sigmoid")],
                  [helper.make_tensor_value_info("image_in", TensorProto.FLOAT, ["n", 3, 8, 8])],
                  [helper.make_tensor_value_info("image_out", TensorProto.FLOAT, ["n", 3, 8, 8])], name="sigmoid")


def streaming_state() -> onnx.ModelProto:
    """Silero VAD's interface in small: input [batch, samples], state [2, batch, 4] and a sample-rate scalar sr in;
    output [batch, 1] and stateN out, whose dims the exporter names anew. An If on sr == 16000 picks the branch:
    a random sr takes the other one, which fails (its Reshape needs 8 samples) as Silero's did for sr in 0..3."""
    then_branch = helper.make_graph(
        [helper.make_node("ReduceMean", ["input"], ["mean"], axes=[1], keepdims=1, name="then_mean")], "then", [],
        [helper.make_tensor_value_info("mean", TensorProto.FLOAT, ["batch", 1])])
    else_branch = helper.make_graph(
        [helper.make_node("Reshape", ["input", "eight"], ["mean"], name="else_reshape")], "else", [],
        [helper.make_tensor_value_info("mean", TensorProto.FLOAT, ["batch", 1])])
    nodes = [
        helper.make_node("Equal", ["sr", "sixteen_k"], ["is_16k"], name="is_16k"),
        helper.make_node("If", ["is_16k"], ["level"], then_branch=then_branch, else_branch=else_branch, name="by_rate"),
        helper.make_node("Add", ["state", "level"], ["mixed"], name="mix"),
        helper.make_node("Tanh", ["mixed"], ["stateN"], name="squash"),
        helper.make_node("ReduceMean", ["stateN"], ["pooled"], axes=[0, 2], keepdims=0, name="pool"),
        helper.make_node("Sigmoid", ["pooled"], ["probs"], name="prob"),
        helper.make_node("Unsqueeze", ["probs", "axes1"], ["output"], name="as_column"),
    ]
    return _model(
        nodes,
        [helper.make_tensor_value_info("input", TensorProto.FLOAT, ["batch", "samples"]),
         helper.make_tensor_value_info("state", TensorProto.FLOAT, [2, "batch", 4]),
         helper.make_tensor_value_info("sr", TensorProto.INT64, [])],
        [helper.make_tensor_value_info("output", TensorProto.FLOAT, ["batch", 1]),
         helper.make_tensor_value_info("stateN", TensorProto.FLOAT, ["AddstateN_dim_0", "batch", "AddstateN_dim_2"])],
        [numpy_helper.from_array(np.array(16000, np.int64), "sixteen_k"),
         numpy_helper.from_array(np.array([1], np.int64), "axes1"),
         numpy_helper.from_array(np.array([-1, 8], np.int64), "eight")],
        name="streaming_state")


def lstm_h_c() -> onnx.ModelProto:
    """An LSTM whose initial state comes from graph inputs h and c and whose final state goes to outputs hn and cn
    (faster-whisper's silero_vad_v6.onnx): single-letter names pair through the recurrent node, not by name."""
    hidden, features = 4, 3
    rng = np.random.default_rng(5)
    w = numpy_helper.from_array((rng.standard_normal((1, 4 * hidden, features)) * 0.1).astype(np.float32), "W")
    r = numpy_helper.from_array((rng.standard_normal((1, 4 * hidden, hidden)) * 0.1).astype(np.float32), "R")
    nodes = [helper.make_node("LSTM", ["x", "W", "R", "", "", "h", "c"], ["y", "hn", "cn"], hidden_size=hidden,
                              name="rnn")]
    return _model(nodes,
                  [helper.make_tensor_value_info("x", TensorProto.FLOAT, ["steps", 1, features]),
                   helper.make_tensor_value_info("h", TensorProto.FLOAT, [1, 1, hidden]),
                   helper.make_tensor_value_info("c", TensorProto.FLOAT, [1, 1, hidden])],
                  [helper.make_tensor_value_info("y", TensorProto.FLOAT, ["steps", 1, 1, hidden]),
                   helper.make_tensor_value_info("hn", TensorProto.FLOAT, [1, "LSTMhn_dim_1", hidden]),
                   helper.make_tensor_value_info("cn", TensorProto.FLOAT, [1, "LSTMhn_dim_1", hidden])],
                  [w, r], name="lstm_h_c")


def if_branch_transfers() -> onnx.ModelProto:
    """If on a host condition ``cond`` whose branches make different copies on CUDA: then_branch chains three
    NonZero (each reads its count back: 3 in-kernel copies of 4 B); else_branch is Neg -> Celu (no CUDA kernel:
    CPU) -> Cast, so its Celu's input goes device->host and its output host->device (2 Memcpy nodes of 16 B)."""
    then_g = helper.make_graph(
        [helper.make_node("NonZero", ["x"], ["idx1"], name="then_nonzero1"),
         helper.make_node("NonZero", ["idx1"], ["idx2"], name="then_nonzero2"),
         helper.make_node("NonZero", ["idx2"], ["then_out"], name="then_nonzero3")],
        "then_branch", [], [helper.make_tensor_value_info("then_out", TensorProto.INT64, [2, None])])
    else_g = helper.make_graph(
        [helper.make_node("Neg", ["x"], ["negated"], name="else_neg"),
         helper.make_node("Celu", ["negated"], ["activated"], name="else_celu"),
         helper.make_node("Cast", ["activated"], ["else_out"], name="else_cast", to=TensorProto.INT64)],
        "else_branch", [], [helper.make_tensor_value_info("else_out", TensorProto.INT64, [4])])
    nodes = [helper.make_node("If", ["cond"], ["y"], name="branch", then_branch=then_g, else_branch=else_g)]
    return _model(nodes,
                  [helper.make_tensor_value_info("x", TensorProto.FLOAT, [4]),
                   helper.make_tensor_value_info("cond", TensorProto.BOOL, [])],
                  [helper.make_tensor_value_info("y", TensorProto.INT64, None)], name="if_branch_transfers")


def symbolic_output() -> onnx.ModelProto:
    """Relu whose output declares dims of its own symbols (as paddle2onnx names them apart from the input's): shape
    inference cannot size y from the input, a run does."""
    return _model([helper.make_node("Relu", ["x"], ["y"], name="relu")],
                  [helper.make_tensor_value_info("x", TensorProto.FLOAT, ["batch", 16])],
                  [helper.make_tensor_value_info("y", TensorProto.FLOAT, ["out_batch", "out_width"])],
                  name="symbolic_output")


def data_dependent_memcpy() -> onnx.ModelProto:
    """NonZero -> Cast on the device -> Celu (no CUDA kernel): the Cast's output, of a size only the data decides,
    goes device->host through a MemcpyToHost node."""
    nodes = [helper.make_node("NonZero", ["x"], ["nz"], name="nonzero"),
             helper.make_node("Cast", ["nz"], ["positions"], name="cast", to=TensorProto.FLOAT),
             helper.make_node("Celu", ["positions"], ["y"], name="celu")]
    return _model(nodes, [helper.make_tensor_value_info("x", TensorProto.FLOAT, [8])],
                  [helper.make_tensor_value_info("y", TensorProto.FLOAT, None)], name="data_dependent_memcpy")


# Names as real exporters write them (issue 36: the HTML report wrapped them over 9 lines, split `active_indices`
# mid-word, and a long symbolic shape pushed the cause column off the screen).
LSTM_NODE = "If_0_else_branch__Inline_0__/decoder/rnn/LSTM"  # an If branch inlined by ORT's exporter
LAYER_PATH = "/encoder/layers.11/self_attention/output_projection/MatMul_1"  # 60 characters, as torch names them
# The output shape nudenet's 320n.onnx declares (YOLO: three strided heads of a height x width image).
NUDENET_DIM = ("(floor(floor(floor(height/2 - 1/2)/2)/2) + 1)*(floor(floor(floor(width/2 - 1/2)/2)/2) + 1) + "
               "(floor(floor(floor(floor(height/2 - 1/2)/2)/2)/2) + 1)*(floor(floor(floor(floor(width/2 - 1/2)/2)/2)/2)"
               " + 1) + (floor(floor(floor(floor(floor(height/2 - 1/2)/2)/2)/2)/2) + 1)*(floor(floor(floor(floor(floor("
               "width/2 - 1/2)/2)/2)/2)/2) + 1)")


def long_names() -> onnx.ModelProto:
    """cpu_op_between's MatMul -> Celu (CPU) -> Relu -> NonZero with real exporters' long names: the MatMul a
    60-character layer path, the Celu an inlined If branch's LSTM, the output `active_indices`, and an input and
    output of the symbolic shape nudenet declares."""
    nodes = [
        helper.make_node("MatMul", ["features", "w1"], ["encoder/hidden_states"], name=LAYER_PATH),
        helper.make_node("Celu", ["encoder/hidden_states"], ["activated"], name=LSTM_NODE, alpha=1.0),
        helper.make_node("Relu", ["activated"], ["scores"], name="relu"),
        helper.make_node("NonZero", ["scores"], ["active_indices"], name="find_active"),
        helper.make_node("Relu", ["images"], ["detections"], name="/model.22/Concat_25"),
    ]
    return _model(
        nodes,
        [helper.make_tensor_value_info("features", TensorProto.FLOAT, ["batch", 64]),
         helper.make_tensor_value_info("images", TensorProto.FLOAT, ["batch", 22, NUDENET_DIM])],
        [helper.make_tensor_value_info("scores", TensorProto.FLOAT, ["batch", 32]),
         helper.make_tensor_value_info("active_indices", TensorProto.INT64, [2, "active_count"]),
         helper.make_tensor_value_info("detections", TensorProto.FLOAT, ["batch", 22, NUDENET_DIM])],
        [_weights("w1", (64, 32), 11)],
        name="long_names",
    )


def relu_chain(length: int) -> onnx.ModelProto:
    """``length`` Relus one after the other on x: float32 [1, 4]: one profile event per node per run, and no
    more (the profile's memory, issue 38)."""
    nodes = [helper.make_node("Relu", ["x" if i == 0 else f"t{i - 1}"], ["y" if i == length - 1 else f"t{i}"],
                              name=f"relu{i}") for i in range(length)]
    return _model(nodes, [helper.make_tensor_value_info("x", TensorProto.FLOAT, [1, 4])],
                  [helper.make_tensor_value_info("y", TensorProto.FLOAT, [1, 4])], name="relu_chain")


def many_inputs(count: int) -> onnx.ModelProto:
    """A Sum of ``count`` inputs x0, x1, ...: float32 [n] each, so one --dim sizes them all (issue 38)."""
    names = [f"x{i}" for i in range(count)]
    return _model([helper.make_node("Sum", names, ["y"], name="sum")],
                  [helper.make_tensor_value_info(name, TensorProto.FLOAT, ["n"]) for name in names],
                  [helper.make_tensor_value_info("y", TensorProto.FLOAT, ["n"])], name="many_inputs")
