"""Which inputs a CUDA kernel reads from host memory, and which outputs it writes there.

ORT's CUDA kernels declare some arguments as CPU memory (``InputMemoryType(OrtMemTypeCPUInput, i)``
and ``OutputMemoryType(OrtMemTypeCPUOutput, i)`` in onnxruntime/core/providers/cuda). A graph input
that only reaches such arguments is never copied to the device; a tensor computed on the device
that reaches one gets a MemcpyToHost node. Read from ORT's source; Reshape's shape input and If's
condition were checked on the H200 with ORT 1.31.1 (tests/fixtures/gpu).
"""

from __future__ import annotations

import msgspec
from collections.abc import Sequence

from ortcopy_doctor.model.vocabulary import DEVICE_TO_HOST, HOST_TO_DEVICE, Direction

# (domain, op_type) -> indices of inputs read from host memory, for every opset the CUDA EP registers
# unless a minimum opset is given as (since_version, indices) pairs, newest first.
CUDA_HOST_INPUTS: dict[tuple[str, str], list[tuple[int, frozenset[int]]]] = {
    ("", "Reshape"): [(5, frozenset({1}))],
    ("", "Expand"): [(8, frozenset({1}))],
    ("", "Tile"): [(6, frozenset({1}))],
    ("", "Slice"): [(10, frozenset({1, 2, 3, 4}))],
    ("", "Squeeze"): [(13, frozenset({1}))],
    ("", "Unsqueeze"): [(13, frozenset({1}))],
    ("", "Split"): [(13, frozenset({1}))],
    ("", "ReduceSum"): [(13, frozenset({1}))],
    ("", "ReduceMean"): [(18, frozenset({1}))],
    ("", "ReduceMax"): [(18, frozenset({1}))],
    ("", "ReduceMin"): [(18, frozenset({1}))],
    ("", "ReduceProd"): [(18, frozenset({1}))],
    ("", "ReduceL1"): [(18, frozenset({1}))],
    ("", "ReduceL2"): [(18, frozenset({1}))],
    ("", "ReduceLogSum"): [(18, frozenset({1}))],
    ("", "ReduceLogSumExp"): [(18, frozenset({1}))],
    ("", "ReduceSumSquare"): [(18, frozenset({1}))],
    ("", "Resize"): [(11, frozenset({1, 2, 3})), (10, frozenset({1}))],
    ("", "Upsample"): [(9, frozenset({1}))],
    ("", "ConstantOfShape"): [(9, frozenset({0}))],
    ("", "Range"): [(11, frozenset({0, 1, 2}))],
    ("", "TopK"): [(10, frozenset({1}))],
    ("", "OneHot"): [(9, frozenset({1}))],
    ("", "Pad"): [(11, frozenset({1, 2, 3}))],
    ("", "Clip"): [(11, frozenset({1, 2}))],
    ("", "Trilu"): [(14, frozenset({1}))],
    ("", "CumSum"): [(11, frozenset({1}))],
    ("", "Dropout"): [(12, frozenset({1, 2}))],
    ("", "NonMaxSuppression"): [(10, frozenset({2, 3, 4}))],
    ("", "If"): [(1, frozenset({0}))],
    ("", "MemcpyFromHost"): [(1, frozenset({0}))],
    ("", "Loop"): [(1, frozenset({0, 1}))],
    # an RNN, GRU or LSTM's sequence_lens (cuda/rnn/rnn.cc, gru.cc, lstm.cc: InputMemoryType(OrtMemTypeCPUInput,
    # sequence_lens) for every opset): fed from numpy it stays in host memory, and the kernel uploads it itself
    # (CUDA_IN_KERNEL_RULES). Seen on the H200 with ORT 1.31.1 for LSTM and RNN: no copy of the lengths
    # (tests/fixtures/rnn_names); GRU from the source only (its default linear_before_reset=0 has no CUDA kernel).
    ("", "RNN"): [(1, frozenset({4}))],
    ("", "GRU"): [(1, frozenset({4}))],
    ("", "LSTM"): [(1, frozenset({4}))],
    # sequence ops (cuda/tensor/sequence_op.cc): positions are read on the host
    ("", "SequenceAt"): [(11, frozenset({1}))],
    ("", "SequenceInsert"): [(11, frozenset({2}))],
    ("", "SequenceErase"): [(11, frozenset({1}))],
}

# Outputs a CUDA kernel writes to host memory.
CUDA_HOST_OUTPUTS: dict[tuple[str, str], frozenset[int]] = {
    ("", "Shape"): frozenset({0}),
    ("", "Size"): frozenset({0}),
    # SequenceLength's CUDA kernel writes its count to host memory (checked on the H200, ORT 1.31.1:
    # a Loop reading it as its trip count gets no MemcpyToHost; tests/fixtures/accuracy)
    ("", "SequenceLength"): frozenset({0}),
    ("", "MemcpyToHost"): frozenset({0}),
}

class InKernelTransfer(msgspec.Struct, frozen=True):
    """One kind of host<->device copy a CUDA kernel makes inside its own kernel time (not a Memcpy node).

    ``size``: "fixed" (``bytes`` per call), "per_batch" (``bytes`` times the batch of the op's first input, per
    call), or "data" (it depends on the data: only a census says how many and how large). ``host`` is the host
    memory the kernel uses (pinned for ORT's CudaAsyncBuffer / AllocateBufferOnCPUPinned, pageable for a stack
    variable). ``when``: the condition under which it happens at all. ``tensor``: the graph tensor the transfer
    is about (``transfer_tensor``): "output" (the node's first output, whose size the kernel reads back),
    "sequence_lens" (an RNN's input 4, from which the kernel makes the lengths it uploads; none where the input is
    not given: the kernel makes them up), or "none" (the kernel's own tables or a subgraph's values: no one
    tensor of the graph).
    """

    direction: Direction  # host_to_device, device_to_host
    host: str
    size: str
    reason: str
    bytes: int | None = None
    when: str = "every call"
    source: str = ""
    tensor: str = "output"


_RNN = InKernelTransfer(
    HOST_TO_DEVICE, "pinned", "per_batch",
    "uploads the sequence lengths cuDNN's RNN data descriptor reads on the device (4 B host-to-device per batch "
    "entry, from pinned memory)", bytes=4, when="every call (seen on the H200 with ORT 1.31.1: 4 B for batch 1, every LSTM run)",
    source="onnxruntime/core/providers/cuda/rnn/cudnn_rnn_base.cc", tensor="sequence_lens")
_RNN_ZERO = InKernelTransfer(
    HOST_TO_DEVICE, "pinned", "data",
    "uploads the indices of zero-length sequences to mask their outputs (host-to-device, pinned)", when="a sequence_lens "
    "entry is 0", source="onnxruntime/core/providers/cuda/rnn/cudnn_rnn_base.cc (SetZeroSequences)",
    tensor="sequence_lens")
_SUBGRAPH = InKernelTransfer(
    DEVICE_TO_HOST, "pageable", "data",
    "copies subgraph values back to the host where the subgraph reads them there (device-to-host, e.g. a 1 B "
    "condition or an 8 B trip count)", when="the subgraph's inputs or outputs live "
    "on another device than the node's", source="onnxruntime/core/framework/utils.cc (subgraph feeds/fetches copy)",
    tensor="none")
_SUBGRAPH_UP = InKernelTransfer(
    HOST_TO_DEVICE, "pinned", "data",
    "uploads small subgraph parameters and loop-carried values that live in host memory to the device "
    "(host-to-device, pinned)",
    when="the subgraph reads on the device a value that lives on the host",
    source="onnxruntime/core/framework/utils.cc (subgraph feeds/fetches copy)", tensor="none")

# Ops whose CUDA kernel moves data between host and device inside its own kernel time, read from ORT's source
# (paths in ``source``) and checked against CUPTI on the H200 where a fixture says so.
CUDA_IN_KERNEL_RULES: dict[tuple[str, str], list[InKernelTransfer]] = {
    ("", "NonZero"): [InKernelTransfer(
        DEVICE_TO_HOST, "pageable", "fixed",
        "reads the count of non-zero elements back to the host (4 B device-to-host) to size its output", bytes=4,
        when="every call with a non-empty input (an empty input returns before the copy)",
        source="onnxruntime/core/providers/cuda/tensor/nonzero_op.cc")],
    ("", "NonMaxSuppression"): [
        InKernelTransfer(DEVICE_TO_HOST, "pinned", "data",
                         "reads the number of boxes selected for each (batch, class) back to the host (4 B "
                         "device-to-host each, pinned)",
                         when="the input has boxes", source="onnxruntime/core/providers/cuda/object_detection/"
                         "non_max_suppression.cc (h_number_selected, pinned)"),
        InKernelTransfer(HOST_TO_DEVICE, "pinned", "data",
                         "uploads the concat tables of the selected indices (host-to-device, pinned: sizes, ranges, "
                         "pointers, 8 B per (batch, class) with a selection, and an 8 B mapping per selected box)",
                         when="at least one box is selected", source="onnxruntime/core/providers/cuda/"
                         "object_detection/non_max_suppression.cc (CudaAsyncBuffer::CopyToGpu)")],
    # Split/Concat pass their tables by value (TArray, no copy) only when the split/concat sizes along the axis are
    # all equal and there are at most 32 outputs/inputs; otherwise CudaAsyncBuffer uploads them from pinned memory.
    # Seen on the H200 with ORT 1.31.1 (tests/fixtures/corpus): retinanet/fcos heads' Split (fused from Slices,
    # unequal sizes) 24 + 24 + 24 B and 8 B per axis element; ssdlite's 90-input Concat 720 B (8 B per input).
    ("", "Split"): [InKernelTransfer(
        HOST_TO_DEVICE, "pinned", "data",
        "uploads its tables to the device (host-to-device, pinned): the output pointers (8 B each) where there are "
        "more than 32 outputs or the split sizes differ, and then also the split sizes, their running sums (8 B per "
        "output each) and the output index of every element along the axis (8 B each)",
        when="the split sizes differ or there are more than 32 outputs",
        source="onnxruntime/core/providers/cuda/tensor/split.cc (CudaAsyncBuffer::CopyToGpu)", tensor="none")],
    ("", "Concat"): [InKernelTransfer(
        HOST_TO_DEVICE, "pinned", "data",
        "uploads its tables to the device (host-to-device, pinned): the input pointers (8 B each) where there are "
        "more than 32 inputs or their sizes along the axis differ, and then also the concat sizes, their running sums "
        "(8 B per input each) and the input index of every element along the axis (8 B each)",
        when="the inputs' sizes along the axis differ or there are more than 32 inputs",
        source="onnxruntime/core/providers/cuda/tensor/concat.cc (CudaAsyncBuffer::CopyToGpu)", tensor="none")],
    ("", "LSTM"): [_RNN, _RNN_ZERO],
    ("", "GRU"): [_RNN, _RNN_ZERO],
    ("", "RNN"): [_RNN, _RNN_ZERO,
                  InKernelTransfer(HOST_TO_DEVICE, "pinned", "data",
                                   "uploads sequence_lens to mask the outputs past each sequence's end "
                                   "(host-to-device, pinned)",
                                   when="sequence_lens is given and Y and Y_h are produced",
                                   source="onnxruntime/core/providers/cuda/rnn/cudnn_rnn_base.cc (RnnMaskImpl)",
                                   tensor="sequence_lens")],
    ("", "If"): [_SUBGRAPH, _SUBGRAPH_UP],
    ("", "Loop"): [_SUBGRAPH, _SUBGRAPH_UP],
    ("", "Scan"): [_SUBGRAPH, _SUBGRAPH_UP],
}

# The ones that happen on every call, predictable from the graph alone (the "data" ones only explain a census).
CUDA_IN_KERNEL_TRANSFERS: dict[tuple[str, str], str] = {
    key: "; ".join(r.reason for r in rules if r.size != "data")
    for key, rules in CUDA_IN_KERNEL_RULES.items() if any(r.size != "data" for r in rules)}


def _norm(domain: str) -> str:
    return "" if domain in ("", "ai.onnx") else domain


def host_inputs(domain: str, op_type: str, opset: int | None = None) -> frozenset[int]:
    """Input indices of the CUDA kernel of ``op_type`` that live in host memory."""
    entries = CUDA_HOST_INPUTS.get((_norm(domain), op_type), [])
    for since, indices in entries:
        if opset is None or opset >= since:
            return indices
    return frozenset()


def host_outputs(domain: str, op_type: str) -> frozenset[int]:
    """Output indices of the CUDA kernel of ``op_type`` that it writes to host memory."""
    return CUDA_HOST_OUTPUTS.get((_norm(domain), op_type), frozenset())


def in_kernel_transfer(domain: str, op_type: str) -> str | None:
    """Why the CUDA kernel of ``op_type`` transfers between host and device on every call; None where it does not
    (transfers that depend on the data are not included)."""
    return CUDA_IN_KERNEL_TRANSFERS.get((_norm(domain), op_type))


# An ONNX RNN, GRU or LSTM's optional input of per-sequence lengths.
SEQUENCE_LENS_INPUT = 4


def transfer_tensor(rule: InKernelTransfer, inputs: Sequence[str], outputs: Sequence[str]) -> str:
    """The graph tensor an in-kernel transfer of a node with these inputs and outputs is about (``rule.tensor``);
    "" where there is none."""
    if rule.tensor == "output":
        return outputs[0] if outputs else ""
    if rule.tensor == "sequence_lens":
        return inputs[SEQUENCE_LENS_INPUT] if len(inputs) > SEQUENCE_LENS_INPUT else ""
    return ""


def in_kernel_rules(domain: str, op_type: str) -> list[InKernelTransfer]:
    """Every transfer the CUDA kernel of ``op_type`` makes inside itself, including those that depend on the data."""
    return list(CUDA_IN_KERNEL_RULES.get((_norm(domain), op_type), []))
