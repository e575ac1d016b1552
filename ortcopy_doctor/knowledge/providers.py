"""Execution provider names: short aliases, validation, and which providers run on a device."""

from __future__ import annotations

from ortcopy_doctor.model.errors import UsageError
# the model's: the names and pure string functions
from ortcopy_doctor.model.providers import CPU, CUDA, DEVICE_PROVIDERS, is_device, short

ALIASES = {
    "cuda": CUDA,
    "cpu": CPU,
    "tensorrt": "TensorrtExecutionProvider",
    "trt": "TensorrtExecutionProvider",
    "rocm": "ROCMExecutionProvider",
    "migraphx": "MIGraphXExecutionProvider",
    "openvino": "OpenVINOExecutionProvider",
    "dml": "DmlExecutionProvider",
    "coreml": "CoreMLExecutionProvider",
    "qnn": "QNNExecutionProvider",
    "webgpu": "WebGpuExecutionProvider",
    "nv-tensorrt-rtx": "NvTensorRTRTXExecutionProvider",
}
KNOWN = set(ALIASES.values()) | {"AzureExecutionProvider", "DnnlExecutionProvider", "XnnpackExecutionProvider",
                                 "ACLExecutionProvider", "ArmNNExecutionProvider", "VitisAIExecutionProvider",
                                 "CANNExecutionProvider", "JsExecutionProvider"}
DEFAULT = [CUDA, CPU]


def resolve(names: list[str] | None) -> list[str]:
    """Provider names from the command line, in order, with CPU last as ORT's fallback."""
    if not names:
        return list(DEFAULT)
    resolved: list[str] = []
    if not any(n.strip() for raw in names for n in raw.split(",")):
        raise UsageError(f"--provider {','.join(names)!r} names no provider: use one of {', '.join(sorted(ALIASES))} "
                         "(or a full name such as CUDAExecutionProvider)")
    for raw in names:
        for name in (n.strip() for n in raw.split(",")):
            if not name:
                continue
            full = ALIASES.get(name.lower(), name)
            if full not in KNOWN:
                choices = ", ".join(sorted(ALIASES))
                raise UsageError(f"unknown provider '{name}': use one of {choices} (or a full name such as CUDAExecutionProvider)")
            if full not in resolved:
                resolved.append(full)
    if CPU not in resolved:
        resolved.append(CPU)
    return resolved


__all__ = ["ALIASES", "CPU", "CUDA", "DEFAULT", "DEVICE_PROVIDERS", "KNOWN", "is_device", "resolve", "short"]
