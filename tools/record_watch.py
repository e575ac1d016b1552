"""Record watch-mode fixtures on a GPU machine: `python3 tools/record_watch.py OUTDIR`.

For the model with a CPU-fallback op (tests/models.py cpu_op_between) and the stateful model (stateful), user code
(a) plain `run`, (b) a binding that leaves one output on host, (c) the full recommended binding, plus two extra
variants ((a) on a plain, uninstrumented session: placement predicted; and `bind_cpu_input`, whose copy ORT makes
inside the bind call). For each: a fresh session, two warm-up steps, one step under a CuptiTracer (the ground
truth: every memcpy the driver did while that code ran), then one step under `ortcopy_doctor.watch` (its own
per-call census). Writes OUTDIR/<model>.<scenario>.json.gz with the ORT and cupti-python versions, the raw census
records, the watch's observations (replayed by tests/watch/test_watch.py) and its report. Exit status 1 if any scenario
failed to record.
"""

from __future__ import annotations

from ortcopy_doctor.model import codec
import gzip
import inspect
import json
import os
import subprocess
import sys
import tempfile
import traceback
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np
import onnx

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "tests"))

import models  # noqa: E402

FIXTURE_FORMAT = "ortcopy-doctor-watch-fixture"
CUDA = [("CUDAExecutionProvider", {"device_id": 0}), "CPUExecutionProvider"]
BATCH = 2


@dataclass
class Scenario:
    model: str
    name: str  # a_plain_run, b_one_output_on_host, c_full_binding, ...
    description: str
    make: Callable[[Any], Callable[[], Any]]  # session -> step (the user code watched)
    instrumented: bool = True


# --- user code -----------------------------------------------------------------------------------------------------
# Each `make_*` gets the session and returns `step`, one iteration of the user's serving loop.


def cpu_op_plain(session: Any) -> Callable[[], Any]:
    x = np.random.default_rng(0).standard_normal((BATCH, 64)).astype(np.float32)

    def step() -> Any:
        return session.run(None, {"x": x})

    return step


def cpu_op_one_output_on_host(session: Any) -> Callable[[], Any]:
    import onnxruntime as ort

    x = np.random.default_rng(0).standard_normal((BATCH, 64)).astype(np.float32)
    x_dev = ort.OrtValue.ortvalue_from_numpy(x, "cuda", 0)

    def step() -> Any:
        binding = session.io_binding()
        binding.bind_ortvalue_input("x", x_dev)
        binding.bind_output("y")  # left on host: a fetch copy per run
        session.run_with_iobinding(binding)
        return binding.get_outputs()

    return step


def cpu_op_full_binding(session: Any) -> Callable[[], Any]:
    # What binding.make_plan's code does for this model: x on CUDA, y pre-allocated on CUDA.
    import onnxruntime as ort

    x = np.random.default_rng(0).standard_normal((BATCH, 64)).astype(np.float32)
    x_dev = ort.OrtValue.ortvalue_from_numpy(x, "cuda", 0)
    y_dev = ort.OrtValue.ortvalue_from_shape_and_type([BATCH, 32], np.float32, "cuda", 0)

    def step() -> Any:
        binding = session.io_binding()
        binding.bind_ortvalue_input("x", x_dev)
        binding.bind_ortvalue_output("y", y_dev)
        session.run_with_iobinding(binding)
        return binding.get_outputs()

    return step


def cpu_op_bind_cpu_input(session: Any) -> Callable[[], Any]:
    x = np.random.default_rng(0).standard_normal((BATCH, 64)).astype(np.float32)

    def step() -> Any:
        binding = session.io_binding()
        binding.bind_cpu_input("x", x)  # ORT copies it to CUDA inside this call
        binding.bind_output("y", "cuda", 0)
        session.run_with_iobinding(binding)
        return binding.get_outputs()

    return step


def stateful_plain(session: Any) -> Callable[[], Any]:
    rng = np.random.default_rng(0)
    x = rng.standard_normal((BATCH, 32)).astype(np.float32)
    carry = {"state": np.zeros((BATCH, 64), np.float32)}

    def step() -> Any:
        y, state_out = session.run(None, {"x": x, "state": carry["state"]})
        carry["state"] = state_out
        return y

    return step


def _stateful_bound(session: Any, y_device: str) -> Callable[[], Any]:
    import onnxruntime as ort

    rng = np.random.default_rng(0)
    x_dev = ort.OrtValue.ortvalue_from_numpy(rng.standard_normal((BATCH, 32)).astype(np.float32), "cuda", 0)
    carry = {"state": ort.OrtValue.ortvalue_from_numpy(np.zeros((BATCH, 64), np.float32), "cuda", 0)}

    def step() -> Any:
        binding = session.io_binding()
        binding.bind_ortvalue_input("x", x_dev)
        binding.bind_ortvalue_input("state", carry["state"])  # last run's state_out, still on CUDA
        binding.bind_output("y", y_device)
        binding.bind_output("state_out", "cuda", 0)
        session.run_with_iobinding(binding)
        y, state_out = binding.get_outputs()
        carry["state"] = state_out
        return y

    return step


def stateful_one_output_on_host(session: Any) -> Callable[[], Any]:
    return _stateful_bound(session, "cpu")  # y left on host: a fetch copy per run


def stateful_full_binding(session: Any) -> Callable[[], Any]:
    return _stateful_bound(session, "cuda")


SCENARIOS = [
    Scenario("cpu_op_between", "a_plain_run", "session.run with a numpy feed", cpu_op_plain),
    Scenario("cpu_op_between", "b_one_output_on_host", "x bound on CUDA, y bound to cpu", cpu_op_one_output_on_host),
    Scenario("cpu_op_between", "c_full_binding", "x and y bound on CUDA (the recommended binding)", cpu_op_full_binding),
    Scenario("cpu_op_between", "x_plain_session", "session.run on a plain InferenceSession (placement predicted)",
             cpu_op_plain, instrumented=False),
    Scenario("cpu_op_between", "x_bind_cpu_input", "bind_cpu_input for x, y bound on CUDA", cpu_op_bind_cpu_input),
    Scenario("stateful", "a_plain_run", "session.run with numpy feeds, state fed back as numpy", stateful_plain),
    Scenario("stateful", "b_one_output_on_host", "x, state, state_out on CUDA; y bound to cpu",
             stateful_one_output_on_host),
    Scenario("stateful", "c_full_binding", "everything on CUDA, state_out fed back as state", stateful_full_binding),
    Scenario("stateful", "x_plain_session", "session.run on a plain InferenceSession (placement predicted)",
             stateful_plain, instrumented=False),
]


# --- recording -----------------------------------------------------------------------------------------------------


def model_file(name: str, folder: Path) -> Path:
    path = folder / f"{name}.onnx"
    if not path.exists():
        onnx.save(models.ALL[name](), str(path))
    return path


def make_session(scenario: Scenario, folder: Path) -> Any:
    import onnxruntime as ort

    from ortcopy_doctor import instrumented_session

    path = model_file(scenario.model, folder)
    if scenario.instrumented:
        return instrumented_session(path, providers=CUDA)
    return ort.InferenceSession(str(path), providers=CUDA)


def run_scenario(scenario: Scenario, folder: Path, warmup: int = 2) -> dict[str, Any]:
    """Ground-truth census and watch of one step of the scenario's user code; returns the fixture dict."""
    import onnxruntime as ort

    from ortcopy_doctor import watch
    from ortcopy_doctor.collect.census import CuptiTracer, backend_version

    session = make_session(scenario, folder)
    if session.get_providers()[0] != "CUDAExecutionProvider":
        raise RuntimeError(f"CUDA EP not active: {session.get_providers()}")
    step = scenario.make(session)
    for _ in range(warmup):
        step()
    with CuptiTracer() as tracer:
        step()
    ground_truth = codec.to_builtins(tracer.census)
    with watch(session, profile=scenario.instrumented) as w:
        step()
    report = w.report
    try:
        report.assert_no_host_transfers()
        passes, message = True, ""
    except AssertionError as exc:
        passes, message = False, str(exc)
    return {
        "format": FIXTURE_FORMAT,
        "format_version": 1,
        "model": scenario.model,
        "scenario": scenario.name,
        "description": scenario.description,
        "code": inspect.getsource(scenario.make),
        "ort_version": ort.__version__,
        "cupti_python_version": backend_version("cupti-python"),
        "device": gpu_name(),
        "ground_truth": ground_truth,
        "observations": codec.to_builtins(w.observations),
        "report": report.to_dict(),
        "assert_passes": passes,
        "assert_message": message,
    }


def gpu_name() -> str:
    try:
        out = subprocess.run(["nvidia-smi", "--query-gpu=name,driver_version", "--format=csv,noheader"],
                             capture_output=True, text=True, timeout=20)
        return out.stdout.strip().splitlines()[0] if out.stdout.strip() else ""
    except Exception:  # noqa: BLE001
        return ""


def host_device(records: list[dict[str, Any]]) -> list[tuple[str, int]]:
    return sorted((r["direction"], int(r["bytes"])) for r in records
                  if r["direction"] in ("host_to_device", "device_to_host"))


def main() -> int:
    out = Path(sys.argv[1] if len(sys.argv) > 1 else os.path.join(os.environ.get("OUT", "/tmp/out"), "watch"))
    out.mkdir(parents=True, exist_ok=True)
    folder = Path(tempfile.mkdtemp(prefix="record-watch-"))
    failures = 0
    for scenario in SCENARIOS:
        label = f"{scenario.model}.{scenario.name}"
        try:
            fixture = run_scenario(scenario, folder)
        except Exception:  # noqa: BLE001 - recorded, and the exit status says so
            failures += 1
            print(label, "ERROR", traceback.format_exc()[-1500:], flush=True)
            continue
        with gzip.open(out / f"{label}.json.gz", "wt", encoding="utf-8") as f:
            json.dump(fixture, f)
        truth = host_device(fixture["ground_truth"]["records"])
        named = sorted((t["direction"], t["bytes"]) for c in fixture["report"]["calls"] for t in c["transfers"])
        user = [(t["kind"], t["tensor"]) for c in fixture["report"]["calls"] for t in c["transfers"]
                if t["kind"] in ("feed", "fetch")]
        print(f"{label}: cupti={truth} watch_named={named} match={truth == named} user={user} "
              f"assert_passes={fixture['assert_passes']}", flush=True)
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
