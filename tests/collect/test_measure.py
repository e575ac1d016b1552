"""The A/B measurement machinery (measure.py), runnable on a machine without a GPU.

The measurement itself needs the CUDA EP; here it is checked three ways: the decision and the record a CPU
check writes (skipped, with the reason, in JSON, text and HTML), the pieces (statistics, code splitting), and a
dry run of the whole machinery on CPU OrtValues over evidence recorded on the H200 (tests/fixtures/gpu).
"""

from __future__ import annotations

import copy
import msgspec
import gc
import importlib.util
import json
import os
import subprocess
import sys
from pathlib import Path

import numpy as np
import onnx
import pytest

import models
from fixture_loader import recorded_report
from ortcopy_doctor.model import codec
from ortcopy_doctor.report.advice import binding_view
from ortcopy_doctor.report.variants import promised_transfers
from ortcopy_doctor.collect.session import CheckOptions
from ortcopy_doctor.collect.demo_model import build_demo_model
from ortcopy_doctor.model.evidence import BindingMeasurement, Evidence
from ortcopy_doctor.collect.feeds import build_feeds
from ortcopy_doctor.collect.binding_ab import CudaRuntime
from ortcopy_doctor.collect.binding_ab import _measure, _quiet, decide, stats
from ortcopy_doctor.collect.code_check import split_code
from ortcopy_doctor.report.core import analyse
from ortcopy_doctor.render.html import render_html
from ortcopy_doctor.render.text import render_text
from render_helpers import REPO, child_env


# --- pieces -----------------------------------------------------------------------------------------------------


def test_stats_give_median_and_spread():
    s = stats([float(v) for v in range(1, 101)])
    assert s["median_ms"] == pytest.approx(50.5)
    assert s["p10_ms"] < s["p25_ms"] < s["median_ms"] < s["p75_ms"] < s["p90_ms"]


def test_split_code_keeps_the_code_as_printed(tmp_path):
    code = recorded_report("stateful", tmp_path).binding.code
    setup, rest = split_code(code)
    assert setup + rest == code
    assert rest.startswith("def infer():")
    compile(setup, "<setup>", "exec")
    assert split_code("x = 1\n") == ("x = 1\n", "")


def test_decide_measures_only_where_cuda_is_active(tmp_path):
    evidence = recorded_report("conv_net", tmp_path).evidence
    assert decide(evidence, None) is None
    assert decide(evidence, True) is None
    assert decide(evidence, False) == "turned off (--no-measure-binding)"
    cpu = msgspec.structs.replace(evidence, session=msgspec.structs.replace(
        evidence.session, active_providers=["CPUExecutionProvider"],
        ep_failure="Failed to create CUDAExecutionProvider\nmore"))
    reason = decide(cpu, None)
    assert reason.startswith("the CUDA EP is not active here (Failed to create CUDAExecutionProvider)")
    assert decide(cpu, True).startswith("--measure-binding was given, but the CUDA EP is not active here")


# --- the record in the evidence -----------------------------------------------------------------------------------


def test_measurement_round_trips_through_json(tmp_path):
    evidence = _dry_run(tmp_path, "stateful", runs=5)
    data = json.loads(json.dumps(codec.to_builtins(evidence)))
    assert data["binding_measurement"]["status"] == "measured"
    back = codec.convert(data, Evidence)
    assert back.binding_measurement == evidence.binding_measurement
    assert isinstance(back.binding_measurement, BindingMeasurement)


def test_report_with_measurement_validates_against_the_schema(tmp_path):
    from schema_helpers import assert_valid_report

    assert_valid_report(json.loads(analyse(_dry_run(tmp_path, "demo", runs=5)).to_json()))


def test_evidence_without_measurement_has_a_null_key(tmp_path):
    evidence = recorded_report("conv_net", tmp_path).evidence
    # Recorded with the measurement on: the record round-trips.
    assert codec.to_builtins(evidence)["binding_measurement"]["status"] == "measured"
    again = codec.convert(json.loads(json.dumps(codec.to_builtins(evidence))), Evidence).binding_measurement
    assert again == evidence.binding_measurement
    # Without one, the key is null and reads back as None.
    evidence = msgspec.structs.replace(evidence, binding_measurement=None)
    assert codec.to_builtins(evidence)["binding_measurement"] is None
    assert codec.convert(json.loads(json.dumps(codec.to_builtins(evidence))), Evidence).binding_measurement is None


def _save(tmp_path: Path, name: str, model: onnx.ModelProto) -> Path:
    path = tmp_path / f"{name}.onnx"
    onnx.save(model, str(path))
    return path


def test_cpu_check_records_why_binding_was_not_measured(tmp_path):
    from ortcopy_doctor import check

    report = check(_save(tmp_path, "conv_net", models.conv_net()), dims={"batch": 2}, timed_runs=2)
    if report.evidence.session.active_providers[0] == "CUDAExecutionProvider":
        pytest.skip("CUDA is active here: the measurement runs (tests/project/test_gpu.py territory)")
    m = report.evidence.binding_measurement
    assert m.status == "skipped"
    assert "the CUDA EP is not active here" in m.reason
    line = [x for x in render_text(report, width=1000).splitlines() if x.startswith("Binding not measured: ")]
    assert len(line) == 1
    html = render_html(report)
    assert 'id="binding-measured"' in html and "Binding not measured: the CUDA EP is not active here" in html
    off = check(_save(tmp_path, "conv_net2", models.conv_net()), dims={"batch": 2}, timed_runs=2, measure_binding=False)
    assert off.evidence.binding_measurement.status == "off"


def test_cli_flags(tmp_path):
    path = _save(tmp_path, "stateful", models.stateful())
    out = tmp_path / "r.json"
    result = subprocess.run([sys.executable, "-m", "ortcopy_doctor", "check", str(path), "--dim", "batch=2",
                             "--timed-runs", "2", "--no-html", "--json", str(out), "--no-measure-binding", "--fail-on", "never"],
                            cwd=tmp_path, capture_output=True, text=True, timeout=300,
                            env=child_env())
    assert result.returncode == 0, result.stderr
    assert "Binding not measured: turned off (--no-measure-binding)" in result.stdout
    assert json.loads(out.read_text())["evidence"]["binding_measurement"]["status"] == "off"
    bad = subprocess.run([sys.executable, "-m", "ortcopy_doctor", "check", str(path), "--measure-runs", "1"],
                         cwd=tmp_path, capture_output=True, text=True, timeout=300,
                         env=child_env())
    assert bad.returncode == 2


# --- dry run of the whole machinery on CPU, over the evidence recorded on the H200 -------------------------------


def _dry_evidence(tmp_path: Path, name: str, runs: int = 8, budget: float = 0.0):
    """(evidence recorded on the H200 pointing at the model saved here, its path, the arrays, the options)."""
    report = recorded_report(name, tmp_path)
    evidence = copy.deepcopy(report.evidence)
    model = build_demo_model() if name == "demo" else models.ALL[name]()
    path = _save(tmp_path, name, model)
    evidence = msgspec.structs.replace(evidence, model=msgspec.structs.replace(evidence.model, path=str(path)))
    dims = {"batch": 32} if name == "demo" else {"batch": 2, "rows": 4, "cols": 8}
    inputs_file = None
    if name == "cpu_only_inputs":
        inputs_file = tmp_path / "inputs.npz"
        np.savez(inputs_file, target_shape=np.array([4, 8], np.int64))
    arrays, _ = build_feeds(evidence.model.inputs, dims, {}, inputs_file)
    options = CheckOptions(dims=dims, measure_runs=runs, inputs_file=inputs_file, measure_budget_s=budget)
    return evidence, path, arrays, options


def _dry_run(tmp_path: Path, name: str, runs: int = 8, budget: float = 0.0) -> Evidence:
    evidence, path, arrays, options = _dry_evidence(tmp_path, name, runs, budget)
    with _quiet():
        measured = _measure(evidence, path, arrays, options, device_type="cpu")
    return msgspec.structs.replace(evidence, binding_measurement=measured)


def _variants(evidence: Evidence) -> dict:
    return {v.variant: v for v in evidence.binding_measurement.variants}


@pytest.mark.parametrize("name", ["conv_net", "stateful", "cpu_only_inputs"])
def test_a_finished_measurement_leaves_no_onnxruntime_object_in_a_reference_cycle(tmp_path, name):
    """measure_binding collects garbage only after a failure: a finished measurement frees its sessions, bindings
    and OrtValues by reference counting (on a GPU, their device memory at once)."""
    gc.collect()
    gc.disable()
    try:
        assert _dry_run(tmp_path, name).binding_measurement.status == "measured"
        gc.set_debug(gc.DEBUG_SAVEALL)
        gc.collect()
        in_cycles = sorted({type(o).__name__ for o in gc.garbage if type(o).__module__.startswith("onnxruntime")})
    finally:
        gc.set_debug(0)
        gc.garbage.clear()
        gc.enable()
    assert in_cycles == []


@pytest.mark.parametrize("name", ["conv_net", "stateful", "demo", "cpu_only_inputs", "data_dependent_shape"])
def test_dry_run_times_every_runnable_variant(tmp_path, name):
    evidence = _dry_run(tmp_path, name)
    m = evidence.binding_measurement
    assert m.status == "measured", m.reason
    v = _variants(evidence)
    for variant in ("plain", "plan", "all_device"):
        assert v[variant].ran, (variant, v[variant].skipped_reason)
        assert v[variant].runs == 8
        assert v[variant].p10_ms <= v[variant].p25_ms <= v[variant].median_ms <= v[variant].p75_ms <= v[variant].p90_ms
    assert not v["cuda_graph"].ran and "dry run" in v["cuda_graph"].skipped_reason
    assert v["plan"].first_run_ms is not None and v["plan"].session_create_ms is not None
    assert [p.phase for p in m.phases] == ["upload", "inference", "download"]
    assert m.phase_binding == "all_device"
    # Without CUPTI the transfers are the plan's promise, and the record says so.
    report = analyse(evidence)
    for variant in ("plain", "plan", "all_device"):
        promised = promised_transfers(report.evidence, report.binding, report.copies, variant)
        assert v[variant].transfer_source == "plan"
        assert (v[variant].h2d_count, v[variant].h2d_bytes) == promised.get("host_to_device", (0, 0))
        assert (v[variant].d2h_count, v[variant].d2h_bytes) == promised.get("device_to_host", (0, 0))
    assert m.transfer_source == "plan"
    assert any("dry run" in n for n in m.notes)
    view = binding_view(report)
    assert view.one_line.startswith("Binding measured (8 runs, median): plain ")
    assert view.ab_rows and view.phase_rows


def test_dry_run_keeps_every_raw_sample_interleaved(tmp_path):
    evidence = _dry_run(tmp_path, "conv_net", runs=8)
    m = evidence.binding_measurement
    ran = [v for v in m.variants if v.ran]
    assert {len(v.samples_ms) for v in ran} == {8} == {m.runs}
    for v in ran:
        assert v.median_ms == pytest.approx(float(np.median(v.samples_ms)), abs=1e-4)
        assert v.gpu_samples_ms is None  # no CUDA events in a dry run
    assert (m.min_runs, m.budget_s, m.gpu_timer) == (8, 0.0, "")
    assert m.stop_reason.startswith(("every interval within ±3% after 8 rounds", "time budget of 0 s spent after 8 rounds"))


def test_dry_run_samples_more_rounds_within_the_budget(tmp_path):
    evidence = _dry_run(tmp_path, "conv_net", runs=5, budget=1.0)
    m = evidence.binding_measurement
    assert m.runs >= 5 and m.budget_s == 1.0
    assert {len(v.samples_ms) for v in m.variants if v.ran} == {m.runs}
    assert m.stop_reason.startswith(("every interval within ±3%", "time budget of 1 s spent"))
    # The report compares the variants by the interval from these samples.
    view = binding_view(analyse(evidence))
    assert not any("summaries only" in w for w in view.warnings)


@pytest.mark.parametrize("name", ["map_output", "sequence_output"])
def test_dry_run_skips_everything_bound_for_non_tensor_outputs(tmp_path, name):
    evidence = _dry_run(tmp_path, name)
    v = _variants(evidence)
    assert v["plain"].ran and v["plan"].ran
    assert not v["all_device"].ran
    assert "cannot be bound on the device" in v["all_device"].skipped_reason
    assert evidence.binding_measurement.phase_binding == "plan"


def test_dry_run_plan_code_gets_the_same_inputs(tmp_path):
    """The generated code synthesizes the inputs with the same generator as check: identical arrays."""
    from ortcopy_doctor.collect.code_check import execute

    report = recorded_report("demo", tmp_path)
    evidence = copy.deepcopy(report.evidence)
    evidence = msgspec.structs.replace(evidence, model=msgspec.structs.replace(
        evidence.model, path=str(_save(tmp_path, "demo", build_demo_model()))))
    from ortcopy_doctor.analysis.binding import make_plan, render_code

    plan = make_plan(evidence)
    plan = msgspec.structs.replace(plan, device_type="cpu")
    plan = msgspec.structs.replace(plan, code=render_code(evidence, plan))
    with _quiet():
        block = execute("plan", plan.code, plan, None)
    arrays, _ = build_feeds(evidence.model.inputs, {"batch": 32})
    assert np.array_equal(block.namespace["features"], arrays["features"])
    assert np.array_equal(block.first_inputs["features"], arrays["features"])
    block.namespace.clear()


def test_stateful_plan_swaps_buffers_between_runs(tmp_path):
    from ortcopy_doctor.analysis.binding import make_plan, render_code
    from ortcopy_doctor.collect.code_check import execute

    report = recorded_report("stateful", tmp_path)
    evidence = copy.deepcopy(report.evidence)
    evidence = msgspec.structs.replace(evidence, model=msgspec.structs.replace(
        evidence.model, path=str(_save(tmp_path, "stateful", models.stateful()))))
    plan = make_plan(evidence)
    plan = msgspec.structs.replace(plan, device_type="cpu")
    with _quiet():
        ns = execute("plan", render_code(evidence, plan), plan, None).namespace
        first_state = ns["state_on_device"]  # after the printed first call: the output of run 1
        y2, state2 = (v.numpy() for v in ns["infer"]())
    import onnxruntime as ort

    session = ort.InferenceSession(evidence.model.path, providers=["CPUExecutionProvider"])
    arrays, _ = build_feeds(evidence.model.inputs, {"batch": 2})
    _, s1 = session.run(None, arrays)
    # 1e-3: the two sessions' float32 sums differ by up to ~2e-4 on the H200 host's Xeon (1e-6 here); a state not
    # swapped, or swapped twice, is off by the size of the values (~1)
    assert np.allclose(first_state.numpy(), s1, atol=1e-3)
    y_expected, s_expected = session.run(None, {"x": arrays["x"], "state": s1})
    assert np.allclose(y2, y_expected, atol=1e-3) and np.allclose(state2, s_expected, atol=1e-3)


# --- the all-CPU model of the recording tool ---------------------------------------------------------------------


def _record_tool():
    spec = importlib.util.spec_from_file_location("record_binding_ab", REPO / "tools" / "record_binding_ab.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_all_cpu_model_builds_and_runs(tmp_path):
    ort = pytest.importorskip("onnxruntime")
    model = _record_tool().all_cpu_ml_model()
    onnx.checker.check_model(model, full_check=True)
    assert model.ir_version == 10 and {o.domain: o.version for o in model.opset_import}["ai.onnx.ml"] == 3
    session = ort.InferenceSession(model.SerializeToString(), providers=["CPUExecutionProvider"])
    label, scores = session.run(None, {"features": np.ones((4, 16), np.float32)})
    assert label.shape == (4,) and scores.shape == (4, 3)


# --- on a CUDA GPU (pytest -m gpu) --------------------------------------------------------------------------------


@pytest.mark.gpu
@pytest.mark.parametrize("name", ["conv_net", "stateful", "demo", "map_output"])
def test_gpu_measurement_runs_and_every_flavor_runs_as_printed(tmp_path, name):
    ort = pytest.importorskip("onnxruntime")
    if "CUDAExecutionProvider" not in ort.get_available_providers():
        pytest.skip("no CUDA EP in this onnxruntime")
    from ortcopy_doctor import check

    path = _save(tmp_path, name, build_demo_model() if name == "demo" else models.ALL[name]())
    report = check(path, dims={"batch": 32} if name == "demo" else {"batch": 2}, timed_runs=3, measure_runs=10)
    if report.evidence.session.active_providers[0] != "CUDAExecutionProvider":
        pytest.skip("the CUDA EP did not load here")
    m = report.evidence.binding_measurement
    assert m.status == "measured", m.reason
    assert {v.variant: v.ran for v in m.variants}["plan"]
    # Adaptive sampling kept every raw sample, and timed the same calls with CUDA events where torch or cupy is here.
    ran = [v for v in m.variants if v.ran]
    assert m.runs >= 10 and {len(v.samples_ms) for v in ran} == {m.runs}
    # the CUDA runtime ORT's CUDA EP loaded gives the events (no torch or cupy needed)
    assert m.gpu_timer == CudaRuntime.TIMER
    assert {len(v.gpu_samples_ms) for v in ran} == {m.runs}
    assert all(v.gpu_median_ms > 0 for v in ran)
    assert report.to_dict()["advice"]["status"] == "measured"
    # Every block was run as printed next to plain run() on the CUDA EP (collect/code_check.py): each matched, or
    # could not run here (a library missing, a CUDA-graph blocker) and says why.
    checks = {c.block: c for c in report.evidence.code_checks}
    # the CPU-provider code runs (with the check's inputs, next to CUDA's plain run()) where the CPU measured faster
    cpu_faster = report.evidence.provider_choice.cpu_faster
    assert set(checks) == {"plan", "plan_torch", "plan_cupy", "all_device", "cuda_graph",
                           *(["cpu_provider"] if cpu_faster else [])}
    if cpu_faster:
        cpu = checks.pop("cpu_provider")
        assert (cpu.status, cpu.device, cpu.calls) == ("matched", "cpu", 1), cpu.detail
    for block, c in checks.items():
        assert c.status in ("matched", "not_run"), (block, c.status, c.detail)
        assert c.status == "not_run" or (c.device, c.calls) == ("cuda", 4)
    assert checks["plan"].status == "matched"


_NO_TORCH_SCRIPT = """
import json, sys
sys.modules["torch"] = sys.modules["cupy"] = None  # as where neither is installed: an import of either fails
from ortcopy_doctor import check
report = check(sys.argv[1], timed_runs=3, measure_runs=10)
m = report.evidence.binding_measurement
print(json.dumps({"providers": report.evidence.session.active_providers, "status": m.status, "timer": m.gpu_timer,
                  "gpu": [v.gpu_median_ms for v in m.variants if v.ran],
                  "pinned": m.pinned and [m.pinned.method, m.pinned.pinned_ms, m.pinned.pageable_ms],
                  "loaded": sorted(name for name in ("torch", "cupy") if sys.modules.get(name) is not None),
                  "checks": {c.block: c.status for c in report.evidence.code_checks},
                  "cpu_faster": report.evidence.provider_choice.cpu_faster}))
"""


@pytest.mark.gpu
def test_gpu_events_and_pinned_buffers_need_neither_torch_nor_cupy(tmp_path):
    ort = pytest.importorskip("onnxruntime")
    if "CUDAExecutionProvider" not in ort.get_available_providers():
        pytest.skip("no CUDA EP in this onnxruntime")
    path = _save(tmp_path, "conv_net", models.conv_net())
    env = dict(os.environ, PYTHONPATH=os.pathsep.join([str(Path(__file__).resolve().parents[2]),
                                                       os.environ.get("PYTHONPATH", "")]))
    out = subprocess.run([sys.executable, "-c", _NO_TORCH_SCRIPT, str(path)], env=env, capture_output=True, text=True,
                         timeout=600, check=True).stdout
    result = json.loads(out.strip().splitlines()[-1])
    if result["providers"][0] != "CUDAExecutionProvider":
        pytest.skip("the CUDA EP did not load here")
    assert (result["status"], result["timer"], result["loaded"]) == ("measured", CudaRuntime.TIMER, [])
    # the torch and cupy code could not run without them, and says so; the others ran on the device
    assert result["checks"] == {"plan": "matched", "plan_torch": "not_run", "plan_cupy": "not_run",
                                "all_device": "matched", "cuda_graph": "matched",
                                **({"cpu_provider": "matched"} if result["cpu_faster"] else {})}
    assert result["gpu"] and all(ms > 0 for ms in result["gpu"])
    method, pinned_ms, pageable_ms = result["pinned"]
    assert method == CudaRuntime.ALLOCATOR and pinned_ms > 0 and pageable_ms > 0


def test_no_cuda_runtime_in_the_memory_map_means_none(tmp_path):
    maps = tmp_path / "maps"
    maps.write_text("7f0000000000-7f0000001000 r-xp 00000000 08:01 42 /usr/lib/x86_64-linux-gnu/libc.so.6\n")
    assert CudaRuntime.loaded(maps) is None


def test_a_cuda_runtime_that_cannot_be_opened_means_none(tmp_path):
    maps = tmp_path / "maps"
    maps.write_text(f"7f0000000000-7f0000001000 r-xp 00000000 08:01 42 {tmp_path}/gone/libcudart.so.13\n")
    assert CudaRuntime.loaded(maps) is None


def test_an_unreadable_memory_map_means_none(tmp_path):
    assert CudaRuntime.loaded(tmp_path / "missing") is None


def test_a_failed_measurement_frees_its_sessions_before_it_returns_without_a_collection(tmp_path, monkeypatch):
    # A session a failed A/B left behind holds its device memory until a collection, which the command's thresholds
    # (cli/gcpolicy.py) may bring late or never, and which the library may not run on its caller's heap: the A/B
    # releases the generated code's namespaces (a cycle through their functions) and its traceback's frames itself.
    import weakref

    from ortcopy_doctor.collect import binding_ab

    evidence, path, arrays, options = _dry_evidence(tmp_path, "conv_net")
    sessions: list[weakref.ref] = []
    check_code, measure = binding_ab.check_code, binding_ab._measure

    def checked(*args, **kwargs):
        found, blocks = check_code(*args, **kwargs)
        sessions.extend(weakref.ref(b.namespace["session"]) for b in blocks.values() if "session" in b.namespace)
        return found, blocks

    def out_of_memory(*_args, **_kwargs):
        raise RuntimeError("CUDA out of memory")

    monkeypatch.setattr(binding_ab, "decide", lambda *_args: None)
    monkeypatch.setattr(binding_ab, "check_code", checked)
    monkeypatch.setattr(binding_ab, "_measure", lambda *a, **k: measure(*a, **{**k, "device_type": "cpu"}))
    monkeypatch.setattr(binding_ab, "_phases", out_of_memory)  # after every variant's session was made and timed
    monkeypatch.setattr(gc, "collect", lambda *_args: pytest.fail("the library collected its caller's heap"))
    gc.disable()  # nothing but reference counting may free them
    try:
        result = binding_ab.measure_binding(evidence, path, arrays, options)
        alive = [ref() is not None for ref in sessions]
    finally:
        gc.enable()
    assert (result.status, result.reason) == ("failed", "RuntimeError: CUDA out of memory")
    assert alive == [False] * len(sessions) and len(sessions) >= 2
