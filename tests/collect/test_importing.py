"""collect.check._Ahead/_importing: modules a check needs later (a device check's CUPTI and renderers, the renderers
a CLI check will use) are imported on a helper thread while the evidence session is created and warmed up, and the
thread is gone before the first profiled run."""

from __future__ import annotations

import subprocess
import sys
import threading

from render_helpers import REPO

from ortcopy_doctor.collect.check import (
    _AHEAD_SWITCH_INTERVAL_S,
    _LOADED_AFTER_A_GPU_SESSION,
    _Ahead,
    _importing,
    _loaded_ahead,
)
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


def test_the_switch_interval_is_short_while_modules_load_and_restored_after():
    before = sys.getswitchinterval()
    ahead = _Ahead(["json"])
    assert sys.getswitchinterval() == min(before, _AHEAD_SWITCH_INTERVAL_S)
    ahead.join()
    ahead.join()  # a second join does nothing
    assert sys.getswitchinterval() == before


def test_nothing_to_load_leaves_the_switch_interval_alone():
    before = sys.getswitchinterval()
    ahead = _Ahead([])
    assert sys.getswitchinterval() == before
    ahead.join()
    assert sys.getswitchinterval() == before


_CHECK_WITH_RUNS_RECORDED = """\
import json, sys, threading
import onnx
sys.path.insert(0, {tests!r})
from models import conv_net
import ortcopy_doctor.collect.check as check_module
from ortcopy_doctor.collect.session import CheckOptions
seen = []
real_run = check_module._run
def run(*args, **kwargs):
    seen.append([threading.active_count(), 'ortcopy_doctor.render.html' in sys.modules])
    return real_run(*args, **kwargs)
check_module._run = run
onnx.save(conv_net(), {model!r})
check_module.collect({model!r}, CheckOptions(providers=['CPUExecutionProvider'], warmup_runs=2, profiled_runs=3,
                                             timed_runs=2, measure_binding=False), load_ahead={ahead!r})
print(json.dumps({{'runs': seen, 'threads': threading.active_count(),
                  'html': 'ortcopy_doctor.render.html' in sys.modules}}))
"""


def _recorded_check(tmp_path, ahead):
    import json

    code = _CHECK_WITH_RUNS_RECORDED.format(tests=str(REPO / "tests"), model=str(tmp_path / "conv.onnx"), ahead=ahead)
    result = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120, check=False,
                            env={"PYTHONPATH": str(REPO), "PATH": "/usr/bin:/bin"}, cwd=tmp_path)
    assert result.returncode == 0, result.stderr
    return json.loads(result.stdout.strip().splitlines()[-1])


def test_a_cpu_check_loads_what_it_is_asked_to_ahead_and_no_profiled_run_shares_the_process(tmp_path):
    seen = _recorded_check(tmp_path, ["ortcopy_doctor.render.html"])
    profiled_and_timed = seen["runs"][2:]  # after the two warm-up runs
    assert profiled_and_timed == [[1, True]] * len(profiled_and_timed)
    assert len(profiled_and_timed) == 3 + 1 + 1 + 2  # profiled, first timed, warm-up - 1, timed
    assert (seen["threads"], seen["html"]) == (1, True)


def test_a_cpu_check_asked_for_nothing_ahead_starts_no_thread(tmp_path):
    seen = _recorded_check(tmp_path, [])
    assert {threads for threads, _ in seen["runs"]} == {1}
    assert seen["html"] is False
