"""Which inputs a CUDA kernel reads from host memory, and which outputs it writes there.

ORT's CUDA kernels declare some arguments as CPU memory (``InputMemoryType(OrtMemTypeCPUInput, i)``
and ``OutputMemoryType(OrtMemTypeCPUOutput, i)`` in onnxruntime/core/providers/cuda). A graph input
that only reaches such arguments is never copied to the device; a tensor computed on the device
that reaches one gets a MemcpyToHost node. Read from ORT's source; Reshape's shape input and If's
condition were checked on the H200 with ORT 1.31.1 (tests/fixtures/gpu).
"""

from __future__ import annotations

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

# Ops whose CUDA kernel moves data between host and device inside its own kernel time.
CUDA_IN_KERNEL_TRANSFERS: dict[tuple[str, str], str] = {
    ("", "NonZero"): "reads the count of non-zero elements back to the host (4 B device-to-host) to size its output",
}


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
    return CUDA_HOST_OUTPUTS.get((_norm(domain), op_type), frozenset())


def in_kernel_transfer(domain: str, op_type: str) -> str | None:
    return CUDA_IN_KERNEL_TRANSFERS.get((_norm(domain), op_type))
