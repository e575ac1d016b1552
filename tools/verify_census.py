"""Verify the transfer census on the GPU machine: `check` on every test model with one census backend.

    python tools/verify_census.py OUT_DIR [--backend cupti-python|torch-profiler]

Run each backend in its own process (both drive CUPTI). For every model it writes OUT_DIR/<backend>/<model>.json.gz
(the report, with evidence.census: the raw records) and prints the census status, the per-run classes, the
attributed share, unexplained transfers, failed checks and the tracing overhead (traced vs untraced median run).
With the PyTorch profiler it also keeps the raw Kineto trace of one traced run per model (<model>.trace.json.gz)
and the time.time_ns() reads around its clock markers (<model>.marks.json), so the parser
(census.census_from_torch_trace) can be checked on them: tests/analysis/test_census_live_fixtures.py replays both.
Exit status 1 when any model is not 100% attributed or has unexplained transfers or failed checks, or (PyTorch
profiler) when the clock mapping could not be checked (no baseTimeNanoseconds, or markers that contradict it).
"""

from __future__ import annotations

import argparse
import gzip
import json
import os
import statistics
import sys
import tempfile
import traceback
from pathlib import Path

import numpy as np
import onnx

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "tests"))

import models  # noqa: E402

DIMS = {"batch": 2, "rows": 4, "cols": 8}
SKIP = {"shape_subgraph"}  # a shape computation kept on CPU: no class of its own


def verify(name: str, out: Path, backend: str) -> bool:
    from ortcopy_doctor import check
    from ortcopy_doctor.collect.feeds import build_feeds
    from ortcopy_doctor.render.text import census_line as one_line

    folder = Path(tempfile.mkdtemp(prefix=name))
    path = folder / f"{name}.onnx"
    onnx.save(models.ALL[name](), str(path))
    inputs = None
    if name == "cpu_only_inputs":
        inputs = folder / "inputs.npz"
        np.savez(inputs, target_shape=np.array([4, 8], np.int64))
    report = check(path, dims=DIMS, inputs_file=inputs, timed_runs=20)
    with gzip.open(out / f"{name}.json.gz", "wt", encoding="utf-8") as f:
        f.write(report.to_json())
    ev = report.evidence
    print(f"== {name}: {ev.census_status}")
    census = report.census
    if census is None:
        return False
    print("  " + one_line(census))
    for run in census.traced_runs:
        print(f"  run {run}:", [(t.kind, t.direction, t.bytes, t.node, t.tensor, t.confirms, t.src_kind, t.dst_kind)
                                for t in census.transfers if t.run == run])
    if ev.census is not None and ev.census.traced_run_ms and ev.timings is not None:
        traced, untraced = statistics.median(ev.census.traced_run_ms), statistics.median(ev.timings.run_ms)
        print(f"  overhead: traced median {traced:.3f} ms vs untraced {untraced:.3f} ms ({traced / untraced - 1:+.0%})")
    print(f"  run durations (µs): {[r.run_dur_us for r in census.runs]}; clock offset {census.clock_offset_ns} ns, "
          f"measured clock error {census.clock_error_ns} ns, boundary tolerance {census.boundary_tolerance_us} µs, "
          f"clock verified {census.clock_verified}")
    for note in census.notes:
        print("  NOTE", note)
    for t in census.unexplained:
        print("  UNEXPLAINED", t)
    for c in census.mismatches:
        print("  MISMATCH", c)
    if backend == "torch-profiler":
        from ortcopy_doctor.collect.census import TorchProfilerTracer
        import onnxruntime as ort

        arrays, _ = build_feeds(report.evidence.model.inputs, DIMS, {}, inputs)
        session = ort.InferenceSession(str(path), providers=["CUDAExecutionProvider", "CPUExecutionProvider"])
        session.run(None, arrays)
        tracer = TorchProfilerTracer()
        with tracer:
            session.run(None, arrays)
        raw = tracer.raw_trace  # Kineto refuses a second export ("Trace is already saved")
        with gzip.open(out / f"{name}.trace.json.gz", "wt", encoding="utf-8") as f:
            f.write(raw)
        (out / f"{name}.marks.json").write_text(json.dumps(tracer._marks), encoding="utf-8")
        print(f"  raw torch trace: baseTimeNanoseconds {json.loads(raw).get('baseTimeNanoseconds')}, "
              f"{len(tracer.census.records)} memcpy records parsed "
              f"{[(r.direction, r.bytes, r.api_kind) for r in tracer.census.records]}, "
              f"clock pairs {tracer.census.clock_pairs}, verified {tracer.census.clock_verified}, "
              f"notes {tracer.census.notes}")
        if not census.clock_verified:
            print("  CLOCK NOT VERIFIED")
            return False
    return census.attributed_share == 1.0 and not census.unexplained and not census.mismatches


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("out", nargs="?", default=os.path.join(os.environ.get("OUT", "/tmp/out"), "census"))
    parser.add_argument("--backend", default="cupti-python", choices=["cupti-python", "torch-profiler"])
    args = parser.parse_args()
    os.environ["ORTCOPY_CENSUS_BACKEND"] = args.backend
    out = Path(args.out) / args.backend
    out.mkdir(parents=True, exist_ok=True)
    ok = True
    import onnxruntime as ort
    from ort_limits import cannot_run

    for name in models.ALL:
        if name in SKIP:
            continue
        reason = cannot_run(name, ort.__version__)
        if reason:
            print(f"== {name}: skipped: {reason}")
            continue
        try:
            ok = verify(name, out, args.backend) and ok
        except Exception:  # noqa: BLE001 - keep going, report at the end
            ok = False
            print(f"== {name}: ERROR\n{traceback.format_exc()}")
    sys.exit(0 if ok else 1)


if __name__ == "__main__":
    main()
