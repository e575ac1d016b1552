"""The GPUs an audit schedules its rows on (issue 37), through NVML (``nvidia-ml-py``, NVIDIA's own binding): which are
visible, and whether another process holds one before a row measures on it. Without a driver (a CI machine) NVML does
not load: no GPUs, and the busy check says it was not made."""

from __future__ import annotations

import os
from typing import Any


def _nvml() -> Any:
    """pynvml, initialised; None where the package or the driver is missing."""
    try:
        import pynvml  # here: only an audit asks, and only where it schedules GPUs
    except ImportError:
        return None
    try:
        pynvml.nvmlInit()
    except Exception:  # noqa: BLE001 - NVMLError_LibraryNotFound, _DriverNotLoaded, ...: no GPU here
        return None
    return pynvml


def visible_gpus() -> list[str]:
    """The GPUs this process may use, as ``CUDA_VISIBLE_DEVICES`` indexes them: NVML's count, narrowed by that
    variable where it is set (its entries as given); [] without NVML."""
    given = os.environ.get("CUDA_VISIBLE_DEVICES")
    if given is not None:
        return [g.strip() for g in given.split(",") if g.strip() and g.strip() != "-1"]
    nvml = _nvml()
    if nvml is None:
        return []
    try:
        return [str(i) for i in range(nvml.nvmlDeviceGetCount())]
    finally:
        nvml.nvmlShutdown()


def other_processes(gpu: str, ours: frozenset[int] = frozenset()) -> str:
    """The compute processes on ``gpu`` (an NVML index) other than ``ours``, as ``pid 1234 (2.1 GiB)`` words; ""
    where none; "not checked: ..." where NVML cannot say."""
    nvml = _nvml()
    if nvml is None:
        return "not checked: NVML is not available here"
    try:
        handle = nvml.nvmlDeviceGetHandleByIndex(int(gpu))
        processes = [p for p in nvml.nvmlDeviceGetComputeRunningProcesses(handle) if p.pid not in ours]
    except Exception as exc:  # noqa: BLE001 - an index NVML does not know, a permission error
        return f"not checked: {type(exc).__name__}"
    finally:
        nvml.nvmlShutdown()
    used = [f"pid {p.pid}" + (f" ({(p.usedGpuMemory or 0) / 2**30:.1f} GiB)" if p.usedGpuMemory else "")
            for p in processes]
    return ", ".join(used)


__all__ = ["other_processes", "visible_gpus"]
