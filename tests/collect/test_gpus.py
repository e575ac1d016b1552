"""collect/gpus.py: the GPUs NVML sees and the other processes on one (issue 37), with NVML stood in for."""

from __future__ import annotations

import sys
import types
from typing import Any

import pytest

from ortcopy_doctor.collect.gpus import other_processes, visible_gpus


class _Failed(Exception):
    pass


def _fake_nvml(count: int = 2, procs: list[Any] | None = None, init_fails: bool = False) -> types.ModuleType:
    nvml = types.ModuleType("pynvml")

    def init() -> None:
        if init_fails:
            raise _Failed("Driver Not Loaded")

    nvml.nvmlInit = init  # type: ignore[attr-defined]
    nvml.nvmlShutdown = lambda: None  # type: ignore[attr-defined]
    nvml.nvmlDeviceGetCount = lambda: count  # type: ignore[attr-defined]
    nvml.nvmlDeviceGetHandleByIndex = lambda index: index  # type: ignore[attr-defined]
    nvml.nvmlDeviceGetComputeRunningProcesses = lambda handle: procs or []  # type: ignore[attr-defined]
    return nvml


@pytest.fixture(autouse=True)
def _no_visible_devices(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("CUDA_VISIBLE_DEVICES", raising=False)


def test_no_driver_no_gpus(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setitem(sys.modules, "pynvml", _fake_nvml(init_fails=True))
    assert (visible_gpus(), other_processes("0")) == ([], "not checked: NVML is not available here")


def test_without_the_package_nothing_is_checked(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setitem(sys.modules, "pynvml", None)
    assert (visible_gpus(), other_processes("0")) == ([], "not checked: NVML is not available here")


def test_visible_gpus_by_index(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setitem(sys.modules, "pynvml", _fake_nvml(count=2))
    assert visible_gpus() == ["0", "1"]


def test_visible_gpus_narrowed_by_cuda_visible_devices(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setitem(sys.modules, "pynvml", _fake_nvml(count=4))
    monkeypatch.setenv("CUDA_VISIBLE_DEVICES", "2, 3")
    assert visible_gpus() == ["2", "3"]


def test_other_processes_leave_out_ours(monkeypatch: pytest.MonkeyPatch) -> None:
    procs = [types.SimpleNamespace(pid=10, usedGpuMemory=2**30), types.SimpleNamespace(pid=11, usedGpuMemory=5 * 2**30),
             types.SimpleNamespace(pid=12, usedGpuMemory=None)]
    monkeypatch.setitem(sys.modules, "pynvml", _fake_nvml(procs=procs))
    assert other_processes("0", frozenset({10})) == "pid 11 (5.0 GiB), pid 12"


def test_an_index_nvml_cannot_read_is_not_checked(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setitem(sys.modules, "pynvml", _fake_nvml())
    assert other_processes("GPU-1234") == "not checked: ValueError"
