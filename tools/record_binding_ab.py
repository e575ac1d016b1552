"""Record the binding A/B evidence on a CUDA GPU, as fixtures for tests/report/test_advice.py (tests/fixtures/binding/).

For the models of tests/models.py, the demo, an all-CPU ai.onnx.ml model and the stateful model:

1. ``check`` with ``measure_binding=True`` (plain run() vs the plan vs everything bound vs a CUDA graph);
2. one plain ``session.run()`` traced with CUPTI (the ground truth of the plain variant);
3. every generated code flavor (onnxruntime, torch, cupy, and the CUDA graph where nothing blocks it) executed
   as printed, its first outputs compared with plain run()'s, then one more ``infer()`` traced with CUPTI;
4. what the plan promised for each variant (report.variants.promised_transfers), so the replay can compare.

Writes one gzipped JSON per model into the folder given (default $OUT/binding_ab):

    python tools/record_binding_ab.py OUT_DIR [--runs N] [--budget SECONDS] [--only name,name]

``--runs`` is the minimum of interleaved rounds (the calibration), ``--budget`` the seconds of adaptive sampling
per model after it (stats.Sampler: until every speed-up interval is within ±3%); the whole recording of the 11
test models stays under 4 minutes (the budget shrinks to 1 s once 150 s are spent).

Fixture format (``FORMAT``/``FORMAT_VERSION``), one object per model:
    format, format_version, model, recorded_utc, ort_version, torch_version, cupy_version, gpus,
    report            the check --json report (evidence.binding_measurement holds the A/B record: every raw
                      interleaved per-run sample of every variant, host clock ``samples_ms`` and CUDA events
                      ``gpu_samples_ms``; report.advice holds the recommendation with its intervals),
    ab                (version 2) the A/B at a glance: {"winner", "cuda_graph_ready", "cuda_graph_ran",
                      "gpu_timer", "runs", "min_runs", "budget_s", "stop_reason", "seconds",
                      "ci": {variant: {"speedup", "low", "high", "verdict", "median_ms", "median_ci_low_ms",
                      "median_ci_high_ms", "gpu_speedup", "gpu_low", "gpu_high"}}},
    census_plain_run  CUPTI census of one plain run() (census.Census as JSON) or null,
    promised          {variant: {"host_to_device": [count, bytes], "device_to_host": [...]}} from the plan,
    bind_promised     the same for the copies ORT makes when the variant binds its inputs (advice.bind_transfers);
                      absent in fixtures recorded before it existed,
    census_bind_all_device  CUPTI census of binding every input on CUDA (the device OrtValues made before tracing),
                      or null; absent in fixtures recorded before it existed,
    code_runs         {flavor: {"code", "ran", "skipped", "error", "outputs_match_plain", "census_infer"}},
    error             a traceback where the model could not be recorded at all.
"""

from __future__ import annotations

from ortcopy_doctor.model import codec
import argparse
import contextlib
import datetime
import gzip
import io
import json
import os
import sys
import tempfile
import time
import traceback
from pathlib import Path
from typing import Any

import numpy as np
import onnx
from onnx import TensorProto, helper

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "tests"))

FORMAT = "ortcopy-doctor-binding-ab"
FORMAT_VERSION = 2  # 2: raw samples, CUDA-event timing, the "ab" summary (the recommendation and its intervals)
DIMS = {"batch": 2, "rows": 4, "cols": 8}
IR_VERSION = 10


def all_cpu_ml_model() -> onnx.ModelProto:
    """Scaler -> Normalizer -> LinearClassifier (ai.onnx.ml, opset 3): no op has a CUDA kernel.

    Built with onnx.helper (skl2onnx may be missing); tensor outputs only, so every variant can run.
    """
    nodes = [
        helper.make_node("Scaler", ["features"], ["scaled"], name="scaler", domain="ai.onnx.ml",
                         offset=[0.1] * 16, scale=[2.0] * 16),
        helper.make_node("Normalizer", ["scaled"], ["normalized"], name="normalizer", domain="ai.onnx.ml", norm="L2"),
        helper.make_node("LinearClassifier", ["normalized"], ["label", "scores"], name="classifier", domain="ai.onnx.ml",
                         classlabels_ints=[0, 1, 2], coefficients=[float(v) for v in np.linspace(-1, 1, 48)],
                         intercepts=[0.1, 0.0, -0.1], multi_class=0, post_transform="SOFTMAX"),
    ]
    graph = helper.make_graph(
        nodes, "all_cpu_ml",
        [helper.make_tensor_value_info("features", TensorProto.FLOAT, ["batch", 16])],
        [helper.make_tensor_value_info("label", TensorProto.INT64, ["batch"]),
         helper.make_tensor_value_info("scores", TensorProto.FLOAT, ["batch", 3])],
    )
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17), helper.make_opsetid("ai.onnx.ml", 3)],
                              producer_name="ortcopy-doctor-tests")
    model.ir_version = IR_VERSION
    return model


def todo() -> dict[str, tuple[onnx.ModelProto, dict[str, int]]]:
    import models

    from ortcopy_doctor.collect.demo_model import DEMO_DIMS, build_demo_model

    result = {name: (build(), dict(DIMS)) for name, build in models.ALL.items()}
    result["demo"] = (build_demo_model(), dict(DEMO_DIMS))
    result["all_cpu_ml"] = (all_cpu_ml_model(), {"batch": 64})
    return result


def inputs_for(name: str, folder: Path) -> Path | None:
    if name != "cpu_only_inputs":
        return None
    path = folder / "inputs.npz"
    np.savez(path, target_shape=np.array([4, 8], np.int64))
    return path


def census_of(fn: Any) -> dict | None:
    from ortcopy_doctor.collect.census import CuptiTracer, CuptiUnavailable

    try:
        with CuptiTracer() as tracer:
            fn()
    except CuptiUnavailable:
        return None
    except Exception as exc:  # noqa: BLE001 - CUPTI cannot trace here (no driver): no census, said so
        print(f"  census failed: {type(exc).__name__}: {str(exc)[:200]}", file=sys.stderr)
        return None
    return codec.to_builtins(tracer.census)


def to_numpy(value: Any) -> Any:
    """An output of any flavor as numpy (or the Python object, for sequences and maps)."""
    if hasattr(value, "device_name") and hasattr(value, "numpy"):  # OrtValue
        return value.numpy()
    module = type(value).__module__
    if module.startswith("torch"):
        return value.detach().cpu().numpy()
    if module.startswith("cupy"):
        import cupy as cp

        return cp.asnumpy(value)
    return value


def outputs_match(got: Any, want: list[Any], names: list[str], bound_names: list[str]) -> bool | None:
    """First outputs of the generated code against plain run()'s; None where they cannot be compared."""
    if isinstance(got, dict):
        items = list(got.items())
    elif isinstance(got, list):
        items = list(zip(bound_names if len(got) == len(bound_names) else names, got))
    else:
        return None
    for name, value in items:
        g, w = to_numpy(value), want[names.index(name)]
        if isinstance(w, np.ndarray) and isinstance(g, np.ndarray):
            if g.shape != w.shape or not np.allclose(g, w, rtol=1e-3, atol=1e-4):
                return False
        elif g != w:
            return False
    return True


def run_code(code: str, inputs_file: Path | None, want: list[Any], names: list[str], bound_names: list[str]) -> dict:
    entry: dict[str, Any] = {"code": code, "ran": False, "skipped": "", "error": "", "outputs_match_plain": None,
                             "census_infer": None}
    if inputs_file is not None:
        code = code.replace("INPUTS_FILE = 'inputs.npz'", f"INPUTS_FILE = {str(inputs_file)!r}")
    namespace: dict[str, Any] = {"__name__": "generated"}
    try:
        with contextlib.redirect_stdout(io.StringIO()) as printed:
            exec(compile(code, "<generated binding code>", "exec"), namespace)  # noqa: S102 - our generated code
        entry["ran"] = True
        entry["printed"] = printed.getvalue()
        entry["outputs_match_plain"] = outputs_match(namespace.get("outputs"), want, names, bound_names)
        infer = namespace["infer"]
        for _ in range(3):  # warm-up (and, for the CUDA graph, the capture)
            infer()
        entry["census_infer"] = census_of(infer)
    except ModuleNotFoundError as exc:
        entry["skipped"] = f"{exc.name} is not installed here"
    except Exception:  # noqa: BLE001 - recorded as evidence
        entry["error"] = traceback.format_exc()
    finally:
        namespace.clear()
    return entry


def ab_summary(report: Any, seconds: float) -> dict:
    """The A/B at a glance: the winner, whether the CUDA graph was ready and ran, every variant's interval."""
    from ortcopy_doctor.report.recommend import advise

    m = report.evidence.binding_measurement
    advice = advise(report)
    graph = next((v for v in m.variants if v.variant == "cuda_graph"), None) if m is not None else None
    ci = {}
    for v in (advice.variants if advice is not None else []):
        ci[v.variant] = {"speedup": v.speedup, "low": v.speedup_ci_low, "high": v.speedup_ci_high,
                         "verdict": v.verdict, "median_ms": v.median_ms, "median_ci_low_ms": v.median_ci_low_ms,
                         "median_ci_high_ms": v.median_ci_high_ms, "gpu_speedup": v.gpu_speedup,
                         "gpu_low": v.gpu_speedup_ci_low, "gpu_high": v.gpu_speedup_ci_high}
    return {"winner": advice.recommended if advice is not None else "",
            "cuda_graph_ready": bool(advice is not None and advice.cuda_graph_ready),
            "cuda_graph_ran": bool(graph is not None and graph.ran),
            "gpu_timer": m.gpu_timer if m is not None else "", "runs": m.runs if m is not None else 0,
            "min_runs": m.min_runs if m is not None else None, "budget_s": m.budget_s if m is not None else None,
            "stop_reason": m.stop_reason if m is not None else "", "seconds": round(seconds, 2), "ci": ci}


def record(name: str, model: onnx.ModelProto, dims: dict[str, int], runs: int, budget: float = 3.0) -> dict:
    import onnxruntime as ort

    from ortcopy_doctor import check
    from ortcopy_doctor.report.variants import bind_transfers, cuda_graph_blockers, promised_transfers
    from ortcopy_doctor.analysis.binding import UNBOUND, render_code, render_cuda_graph_code
    from ortcopy_doctor.collect.session import CheckOptions
    from ortcopy_doctor.collect.feeds import build_feeds

    folder = Path(tempfile.mkdtemp(prefix=f"{name}-"))
    path = folder / f"{name}.onnx"
    onnx.save(model, str(path))
    options = CheckOptions(dims=dims, inputs_file=inputs_for(name, folder), measure_binding=True, measure_runs=runs,
                           measure_budget_s=budget)
    started = time.perf_counter()
    report = check(path, options)
    ev, plan = report.evidence, report.binding
    result: dict[str, Any] = {"report": report.to_dict(), "ab": ab_summary(report, time.perf_counter() - started)}
    arrays, _ = build_feeds(ev.model.inputs, dims, {}, options.inputs_file)
    session = ort.InferenceSession(str(path), providers=["CUDAExecutionProvider", "CPUExecutionProvider"])
    names = [o.name for o in session.get_outputs()]
    want = session.run(None, arrays)
    for _ in range(2):
        session.run(None, arrays)
    result["census_plain_run"] = census_of(lambda: session.run(None, arrays))
    # The copies ORT makes at bind time: every input bound on CUDA (uploaded before tracing), only the binds traced.
    if all(v.kind == "tensor" and v.elem_type != "str" for v in ev.model.inputs):
        on_device = {n: ort.OrtValue.ortvalue_from_numpy(np.ascontiguousarray(a), "cuda", plan.device_id)
                     for n, a in arrays.items()}
        binding = session.io_binding()
        result["census_bind_all_device"] = census_of(
            lambda: [binding.bind_ortvalue_input(n, v) for n, v in on_device.items()])
        del binding, on_device
    else:
        result["census_bind_all_device"] = None
    del session
    variants = ["plain", "plan", "torch", "cupy", "all_device", "cuda_graph"]
    result["promised"] = {v: {k: list(t) for k, t in promised_transfers(ev, plan, report.copies, v).items()}
                          for v in variants}
    result["bind_promised"] = {v: {k: list(t) for k, t in bind_transfers(ev, plan, v).items()} for v in variants}
    bound_names = [e.name for e in plan.outputs if e.place != UNBOUND]
    code_runs: dict[str, Any] = {}
    for flavor in ("onnxruntime", "torch", "cupy"):
        code_runs[flavor] = run_code(render_code(ev, plan, flavor), options.inputs_file, want, names, bound_names)
    blockers = cuda_graph_blockers(ev, plan, report.copies)
    if blockers:
        code_runs["cuda_graph"] = {"code": None, "ran": False, "skipped": "; ".join(b.text() for b in blockers),
                                   "error": "", "outputs_match_plain": None, "census_infer": None}
    else:
        code_runs["cuda_graph"] = run_code(render_cuda_graph_code(ev, plan), options.inputs_file, want, names,
                                           [e.name for e in plan.outputs])
    result["code_runs"] = code_runs
    return result


def versions() -> dict[str, Any]:
    import onnxruntime as ort

    from ortcopy_doctor.collect.environment import collect_environment

    found: dict[str, Any] = {"ort_version": ort.__version__, "torch_version": None, "cupy_version": None}
    for module, key in (("torch", "torch_version"), ("cupy", "cupy_version")):
        try:
            found[key] = __import__(module).__version__
        except Exception:  # noqa: BLE001
            pass
    found["gpus"] = collect_environment().gpus
    return found


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("out", nargs="?", default=os.path.join(os.environ.get("OUT", "/tmp/out"), "binding_ab"))
    parser.add_argument("--runs", type=int, default=50, help="minimum interleaved rounds per variant")
    parser.add_argument("--budget", type=float, default=3.0, help="seconds of adaptive sampling per model")
    parser.add_argument("--only", default="", help="comma-separated model names")
    args = parser.parse_args()
    out = Path(args.out)
    out.mkdir(parents=True, exist_ok=True)
    common = {"format": FORMAT, "format_version": FORMAT_VERSION, **versions(),
              "recorded_utc": datetime.datetime.now(datetime.timezone.utc).strftime("%Y-%m-%dT%H:%M:%SZ")}
    only = {n for n in args.only.split(",") if n}
    started = time.perf_counter()
    for name, (model, dims) in todo().items():
        if only and name not in only:
            continue
        budget = args.budget if time.perf_counter() - started < 150 else min(args.budget, 1.0)
        try:
            result = {**common, "model": name, **record(name, model, dims, args.runs, budget)}
            m = result["report"]["evidence"].get("binding_measurement") or {}
            medians = {v["variant"]: round(v["median_ms"], 4) for v in m.get("variants", []) if v.get("ran")}
            ran = {k: ("ran" if v["ran"] else (v["skipped"] or "ERROR")[:40]) for k, v in result["code_runs"].items()}
            ab = result["ab"]
            status = (f"{m.get('status')} {medians} winner={ab['winner']} graph_ready={ab['cuda_graph_ready']} "
                      f"rounds={ab['runs']} ({ab['stop_reason']}) gpu_timer={ab['gpu_timer'] or 'none'} "
                      f"{ab['seconds']} s code={ran}")
        except Exception:  # noqa: BLE001
            result = {**common, "model": name, "error": traceback.format_exc()}
            status = "ERROR " + result["error"][-400:]
        with gzip.open(out / f"{name}.json.gz", "wt", encoding="utf-8") as f:
            json.dump(result, f)
        print(name, status, f"[{time.perf_counter() - started:.0f} s total]", flush=True)


if __name__ == "__main__":
    main()
