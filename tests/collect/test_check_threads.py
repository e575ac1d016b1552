"""A check imports what it needs where it needs it, on its own thread: it starts no helper thread to import modules
ahead (issue 35), and loads no renderer (the caller imports the one it uses)."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path
from typing import Any

from render_helpers import REPO, child_env

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
    seen.append(threading.active_count())
    return real_run(*args, **kwargs)
check_module._run = run
onnx.save(conv_net(), {model!r})
check_module.collect({model!r}, CheckOptions(providers=['CPUExecutionProvider'], warmup_runs=2, profiled_runs=3,
                                             timed_runs=2, measure_binding=False))
print(json.dumps({{'runs': seen, 'renderers': sorted(m for m in sys.modules if m.startswith('ortcopy_doctor.render'))}}))
"""


def _recorded_check(tmp_path: Path) -> Any:
    code = _CHECK_WITH_RUNS_RECORDED.format(tests=str(REPO / "tests"), model=str(tmp_path / "conv.onnx"))
    result = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120, check=False,
                            env=child_env(), cwd=tmp_path)
    assert result.returncode == 0, result.stderr
    return json.loads(result.stdout.strip().splitlines()[-1])


def test_every_run_of_a_check_is_made_with_the_process_s_one_thread(tmp_path: Path) -> None:
    runs = _recorded_check(tmp_path)["runs"]
    # evidence: 2 warm-up + 3 profiled; timing: 1 first + (2 warm-up - 1) + 2 timed
    assert runs == [1] * (2 + 3 + 1 + 1 + 2)


def test_a_check_loads_no_renderer(tmp_path: Path) -> None:
    assert _recorded_check(tmp_path)["renderers"] == []
