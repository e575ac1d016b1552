"""Execution provider names as the data holds them: their short form, and which providers run on a device.

Pure string functions that the report types' own properties and messages read (``ProviderFinding.line``,
``WatchReport.assert_no_host_transfers``); ``knowledge.providers`` re-exports them with the aliases and validation.
"""

from __future__ import annotations

CPU = "CPUExecutionProvider"
CUDA = "CUDAExecutionProvider"

# Providers whose kernels take and give tensors in device memory: a host tensor crossing into one is copied.
DEVICE_PROVIDERS = {CUDA, "TensorrtExecutionProvider", "ROCMExecutionProvider",
                    "MIGraphXExecutionProvider", "NvTensorRTRTXExecutionProvider", "DmlExecutionProvider"}

_SHORT: dict[str, str] = {}


def short(provider: str) -> str:
    """"CUDAExecutionProvider" -> "CUDA"."""
    name = _SHORT.get(provider)
    if name is None:
        # remembered: a report names the provider of each of thousands of nodes (a handful of distinct names)
        name = _SHORT[provider] = provider.replace("ExecutionProvider", "") or provider
    return name


def is_device(provider: str) -> bool:
    """Whether ``provider``'s kernels take and give tensors in device memory (a host tensor crossing into one is copied)."""
    return provider in DEVICE_PROVIDERS


__all__ = ["CPU", "CUDA", "DEVICE_PROVIDERS", "is_device", "short"]
