"""collect.check._importing: modules a device check needs later are imported on a helper thread while the
evidence session is created, and the thread is gone when the block ends (before any run is profiled or timed)."""

from __future__ import annotations

import subprocess
import sys
import threading

from render_helpers import REPO

from ortcopy_doctor.collect.check import _LOADED_AFTER_A_GPU_SESSION, _importing, _loaded_ahead
from ortcopy_doctor.collect.session import CheckOptions


def test_the_modules_are_loaded_and_the_thread_joined_when_the_block_ends():
    code = ("import sys, threading\n"
            "from ortcopy_doctor.collect.check import _importing\n"
            "assert 'ortcopy_doctor.render.html' not in sys.modules\n"
            "with _importing(['ortcopy_doctor.render.html', 'no_such_module_here']):\n"
            "    pass\n"
            "print('ortcopy_doctor.render.html' in sys.modules, 'no_such_module_here' in sys.modules,"
            " threading.active_count())\n")
    result = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120, check=False,
                            env={"PYTHONPATH": str(REPO), "PATH": "/usr/bin:/bin"})
    assert (result.stdout, result.stderr) == ("True False 1\n", "")


def test_nothing_to_import_starts_no_thread():
    before = threading.active_count()
    with _importing(()):
        assert threading.active_count() == before


def test_a_cpu_check_imports_nothing_ahead():
    assert _loaded_ahead(CheckOptions(providers=["CPUExecutionProvider"])) == ()


def test_a_device_check_imports_the_cupti_bindings_ahead(monkeypatch):
    monkeypatch.delenv("ORTCOPY_CENSUS_BACKEND", raising=False)
    assert _loaded_ahead(CheckOptions(providers=["CUDAExecutionProvider", "CPUExecutionProvider"]))[0] == "cupti.cupti"


def test_with_the_torch_profiler_census_cupti_is_not_imported_ahead(monkeypatch):
    # imported ahead beside the profiler's Kineto (which drives CUPTI too), the live test of that backend failed
    monkeypatch.setenv("ORTCOPY_CENSUS_BACKEND", "torch-profiler")
    assert _loaded_ahead(CheckOptions(providers=["CUDAExecutionProvider"])) == _LOADED_AFTER_A_GPU_SESSION


def test_what_is_imported_ahead_exists():
    import importlib.util

    assert all(importlib.util.find_spec(name) is not None for name in _LOADED_AFTER_A_GPU_SESSION
               if name.startswith("ortcopy_doctor."))
