"""`ortcopy-doctor run -- python script.py`: the example pipelines run for real (CPU EP, subprocesses), the round
trips between stages are named exactly, the fixed examples have none; exit codes, exceptions and Ctrl-C."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from render_helpers import REPO, child_env
from signal_helpers import default_signals

ROOT = REPO
EXAMPLES = ROOT / "examples"
MB2 = 2 * 1024 * 1024  # features [1,32,128,128] and hidden [16,128,256], float32


@pytest.fixture(scope="module")
def model_cache(tmp_path_factory):
    return tmp_path_factory.mktemp("example-models")


def _env(cache: Path) -> dict[str, str]:
    return child_env(ORTCOPY_EXAMPLE_PROVIDERS="cpu", ORTCOPY_EXAMPLE_CACHE=str(cache))


def _run(tmp_path: Path, cache: Path, program: list[str], *options: str) -> tuple[subprocess.CompletedProcess, dict]:
    report = tmp_path / "report.json"
    cmd = [sys.executable, "-m", "ortcopy_doctor", "run", "--json", str(report), "--html", str(tmp_path / "r.html"),
           *options, "--", *program]
    proc = subprocess.run(cmd, cwd=tmp_path, env=_env(cache), capture_output=True, text=True, timeout=300)
    data = json.loads(report.read_text()) if report.is_file() else {}
    return proc, data


def _example(name: str, iterations: int = 3) -> list[str]:
    return ["python", str(EXAMPLES / f"{name}.py"), "--iterations", str(iterations)]


def _round_trips(data: dict) -> set[tuple]:
    return {(h["producer"], h["output"], h["consumer"], h["input"], h["d2h_bytes_per_call"], h["h2d_bytes_per_call"],
             h["calls"], h["how"], h["state"]) for h in data["round_trips"]}


def test_detector_classifier_round_trips_are_named(tmp_path, model_cache):
    proc, data = _run(tmp_path, model_cache, _example("detect_crop_classify"))
    assert proc.returncode == 0, proc.stderr
    assert _round_trips(data) == {
        ("det.onnx", "features", "cls.onnx", "features", MB2, MB2, 3, "object", False),
        ("det.onnx", "boxes", "cls.onnx", "rois", 64, 64, 3, "view", False),
    }
    assert "output `boxes` of det.onnx goes device→host (64 B/call), through numpy (a view of the same buffer), " \
           "and back host→device (64 B/call) as input `rois` of cls.onnx" in proc.stderr
    assert (tmp_path / "r.html").is_file()
    assert "3 frames" in proc.stdout  # the program's own output, untouched
    # every block of hand-off code offered (the pipeline's, and each round trip's own) was run after the program next
    # to plain run(), three calls with other inputs (on CPU OrtValues here: no GPU)
    assert {(c["block"], c["status"], c["device"], c["calls"]) for c in data["observations"]["code_checks"]} == {
        ("handoff:det.onnx->cls.onnx (features->features, boxes->rois)", "matched", "cpu", 3),
        ("handoff:det.onnx->cls.onnx (features->features)", "matched", "cpu", 3),
        ("handoff:det.onnx->cls.onnx (boxes->rois)", "matched", "cpu", 3)}
    assert data["pipelines"][0]["code_check"] == (
        "hand-off code: 1 of 1 block(s) run as printed next to plain run() after the program on CPU OrtValues ('cpu' "
        "for 'cuda'; no GPU here), with other inputs each call: the same outputs")


def test_detector_classifier_fixed_has_no_round_trip(tmp_path, model_cache):
    proc, data = _run(tmp_path, model_cache, _example("detect_crop_classify_fixed"))
    assert proc.returncode == 0, proc.stderr
    assert data["round_trips"] == []
    (pipeline,) = data["pipelines"]
    assert {(h["output"], h["input"], h["how"]) for h in pipeline["on_device"]} == {
        ("features", "features", "pointer"), ("boxes", "rois", "pointer")}


def test_text_pipeline_round_trip_found_by_equal_bytes(tmp_path, model_cache):
    proc, data = _run(tmp_path, model_cache, _example("text_pipeline"))
    assert proc.returncode == 0, proc.stderr
    assert _round_trips(data) == {("encoder.onnx", "hidden", "head.onnx", "hidden_states", MB2, MB2, 3, "hash", False)}
    assert [(c["block"], c["status"]) for c in data["observations"]["code_checks"]] == [
        ("handoff:encoder.onnx->head.onnx (hidden->hidden_states)", "matched")]


def test_text_pipeline_fixed_has_no_round_trip(tmp_path, model_cache):
    proc, data = _run(tmp_path, model_cache, _example("text_pipeline_fixed"))
    assert proc.returncode == 0, proc.stderr
    assert data["round_trips"] == []
    assert [(h["output"], h["input"]) for h in data["pipelines"][0]["on_device"]] == [("hidden", "hidden_states")]


def test_streaming_state_ping_pong_is_detected(tmp_path, model_cache):
    proc, data = _run(tmp_path, model_cache, _example("streaming_state", 5))
    assert proc.returncode == 0, proc.stderr
    # 5 steps: the state of steps 0..3 goes back in as h_in of steps 1..4.
    assert _round_trips(data) == {("cell.onnx", "h_out", "cell.onnx", "h_in", 262144, 262144, 4, "object", True)}
    assert "bind_ortvalue_output" in data["pipelines"][0]["code"]
    # the state code, run after the program for 4 steps with other inputs, carried the state as plain run() does
    assert [(c["block"], c["status"], c["calls"]) for c in data["observations"]["code_checks"]] == [
        ("state:cell.onnx (h_in<-h_out)", "matched", 4)]


def test_streaming_state_fixed_keeps_the_state_on_the_device(tmp_path, model_cache):
    proc, data = _run(tmp_path, model_cache, _example("streaming_state_fixed", 5))
    assert proc.returncode == 0, proc.stderr
    assert data["round_trips"] == []
    (state,) = data["pipelines"][0]["state"]
    assert (state["output"], state["input"], state["kind"], state["calls"]) == ("h_out", "h_in", "device", 4)


def test_stage_table_has_each_session_and_the_host_between(tmp_path, model_cache):
    """Three iterations: the first shown apart, the last without an end; the table has the second, each host stretch
    named by the lines of the example that called the sessions (issue 33)."""
    _, data = _run(tmp_path, model_cache, _example("detect_crop_classify"))
    (pipeline,) = data["pipelines"]
    det, cls = "detect_crop_classify.py:<module>:24", "detect_crop_classify.py:<module>:27"
    rows = [("det.onnx: inference", 1), (f"host: between {det} and {cls}", 1), ("cls.onnx: inference", 1),
            (f"host: between {cls} and {det}", 1)]
    assert [(r["stage"], r["calls"]) for r in pipeline["stages"]] == rows
    assert [(r["stage"], r["calls"]) for r in pipeline["first_iteration"]] == rows


def test_script_without_python_prefix_runs_in_this_interpreter(tmp_path, model_cache):
    proc, data = _run(tmp_path, model_cache, [str(EXAMPLES / "text_pipeline.py"), "--iterations", "2"])
    assert proc.returncode == 0, proc.stderr
    assert len(data["round_trips"]) == 1


def test_fail_on_round_trip(tmp_path, model_cache):
    proc, _ = _run(tmp_path, model_cache, _example("streaming_state", 2), "--fail-on", "round-trip")
    assert proc.returncode == 1


_FAILING = """
import sys
import numpy as np
import onnxruntime as ort
sys.path.insert(0, {examples!r})
import _common
cell = ort.InferenceSession(_common.model_path("cell"), providers=["CPUExecutionProvider"])
h = np.zeros((_common.STREAMS, _common.STATE), np.float32)
x = np.ones((_common.STREAMS, _common.STEP_IN), np.float32)
for _ in range(2):
    y, h = cell.run(None, {{"x": x, "h_in": h}})
print("args", sys.argv[1:])
{ending}
"""


def _script(tmp_path: Path, ending: str) -> Path:
    path = tmp_path / "prog.py"
    path.write_text(_FAILING.format(examples=str(EXAMPLES), ending=ending))
    return path


def test_program_exception_propagates_with_its_traceback_and_the_report_is_written(tmp_path, model_cache):
    script = _script(tmp_path, "def stage():\n    raise ValueError('bad frame')\nstage()")
    proc, data = _run(tmp_path, model_cache, ["python", str(script), "a", "b"])
    assert proc.returncode == 1
    assert "args ['a', 'b']" in proc.stdout
    assert 'prog.py", line' in proc.stderr and "ValueError: bad frame" in proc.stderr
    assert "runpy" not in proc.stderr and "ortcopy_doctor" not in proc.stderr.split("ValueError")[0]
    assert data["ended_by"] == "exception" and data["exit_code"] == 1
    assert len(data["round_trips"]) == 1  # the state of call 0 fed to call 1


def test_program_exit_code_propagates(tmp_path, model_cache):
    proc, data = _run(tmp_path, model_cache, ["python", str(_script(tmp_path, "sys.exit(3)"))])
    assert proc.returncode == 3
    assert data["exit_code"] == 3 and data["ended_by"] == "exit"


def _interrupted(tmp_path: Path, model_cache, *options: str) -> dict:
    """``run`` on a program that loops until Ctrl-C, interrupted once the program is ready: SIGINT to ``run``, which
    passes it on (a terminal's Ctrl-C: tests/project/test_run_as_python.py); exit 130, and the JSON report."""
    script = _script(tmp_path, "import time\nprint('ready', flush=True)\nwhile True:\n"
                               "    y, h = cell.run(None, {'x': x, 'h_in': h})\n    time.sleep(0.01)")
    report = tmp_path / "report.json"
    cmd = [sys.executable, "-m", "ortcopy_doctor", "run", *options, "--json", str(report), "--no-html", "--",
           "python", str(script)]
    proc = subprocess.Popen(cmd, cwd=tmp_path, env=_env(model_cache), stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                            text=True, preexec_fn=default_signals)
    try:
        assert proc.stdout.readline().startswith("args")
        assert proc.stdout.readline().strip() == "ready"
        time.sleep(0.3)
        proc.send_signal(signal.SIGINT)
        _, err = proc.communicate(timeout=120)
    finally:
        if proc.poll() is None:
            proc.kill()
    assert proc.returncode == 130, err
    return json.loads(report.read_text())


def test_ctrl_c_writes_the_report(tmp_path, model_cache):
    data = _interrupted(tmp_path, model_cache)
    assert data["ended_by"] == "interrupt"
    assert data["round_trips"][0]["output"] == "h_out" and data["round_trips"][0]["calls"] >= 2


def test_missing_script_is_a_usage_error(tmp_path, model_cache):
    proc, _ = _run(tmp_path, model_cache, ["python", "no_such_script.py"])
    assert proc.returncode == 2
    assert "no_such_script.py: no such file" in proc.stderr


def test_a_directory_without_main_is_called_one(tmp_path, model_cache):
    # a directory with a __main__.py runs as Python runs it (tests/project/test_run_as_python.py)
    (tmp_path / "scripts").mkdir()
    proc, _ = _run(tmp_path, model_cache, ["python", "scripts"])
    assert (proc.returncode, proc.stderr.splitlines()[-1]) == (
        2, "error: scripts: is a directory without a __main__.py: give the path of the Python script to run, or of "
           "a directory or zip file with a __main__.py")


def test_subprocess_mode_names_the_same_round_trips(tmp_path, model_cache):
    proc, data = _run(tmp_path, model_cache, _example("text_pipeline", 2), "--subprocess")
    assert proc.returncode == 0, proc.stderr
    assert _round_trips(data) == {("encoder.onnx", "hidden", "head.onnx", "hidden_states", MB2, MB2, 2, "hash", False)}


def test_subprocess_mode_exception_and_exit_code(tmp_path, model_cache):
    script = _script(tmp_path, "raise RuntimeError('stage failed')")
    proc, data = _run(tmp_path, model_cache, ["python", str(script)], "--subprocess")
    assert proc.returncode == 1
    assert "RuntimeError: stage failed" in proc.stderr
    assert (data["ended_by"], data["exit_code"], len(data["round_trips"])) == ("exception", 1, 1)


def test_subprocess_mode_ctrl_c_writes_the_report(tmp_path, model_cache):
    # `--subprocess` is kept for earlier command lines: the program runs in an interpreter of its own either way
    data = _interrupted(tmp_path, model_cache, "--subprocess")
    assert data["ended_by"] == "interrupt"


def test_generated_state_code_runs_and_carries_the_state(tmp_path, model_cache):
    """The state hand-off code of the report, run as printed (device set to this machine's CPU, each step's feeds
    from ``stream``), gives the same outputs as the program's own loop; it binds the model's own names."""
    import numpy as np
    import onnxruntime as ort

    proc, data = _run(tmp_path, model_cache, _example("streaming_state", 3))
    assert proc.returncode == 0, proc.stderr
    code = data["pipelines"][0]["code"]
    assert data["round_trips"][0]["code"] == code  # the one state hand-off is the whole pipeline's code
    block = code[code.index("# cell.onnx: the state"):code.index("# with torch")]
    assert "bind_cpu_input('x', feeds['x'])" in block and "bind_output('y', 'cpu')" in block
    session = ort.InferenceSession(str(model_cache / "cell.onnx"), providers=["CPUExecutionProvider"])
    shapes = {i.name: list(i.shape) for i in session.get_inputs()}
    shape_h, shape_x = shapes["h_in"], shapes["x"]
    rng = np.random.default_rng(1)
    xs = [rng.standard_normal(shape_x).astype(np.float32) for _ in range(3)]
    # the program's own names: its session `cell` and its initial state `h`
    namespace = {"cell": session, "h": np.zeros(shape_h, np.float32), "stream": [{"x": x} for x in xs]}
    source = block.replace("device = 'cuda'", "device = 'cpu'")
    exec(compile(source, "<state code>", "exec"), namespace)  # noqa: S102 - generated code under test
    h = np.zeros(shape_h, np.float32)
    for x in xs:
        y, h = session.run(None, {"x": x, "h_in": h})
    assert np.array_equal(namespace["state"]["h_in"][3 % 2].numpy(), h)
    assert np.array_equal(namespace["host"]["y"], y)


def test_the_program_collects_garbage_with_the_thresholds_it_would_have_alone(tmp_path, model_cache):
    """``run`` itself collects less often (cli/gcpolicy.py); the program it runs does not inherit that."""
    alone = subprocess.run([sys.executable, "-c", "import gc; print(gc.get_threshold())"], capture_output=True,
                           text=True, check=True).stdout.strip()
    script = tmp_path / "thresholds.py"
    script.write_text("import gc\nprint('thresholds', gc.get_threshold())\n")
    proc, _ = _run(tmp_path, model_cache, ["python", str(script)])
    assert proc.returncode == 0, proc.stderr
    assert f"thresholds {alone}" in proc.stdout.splitlines()
