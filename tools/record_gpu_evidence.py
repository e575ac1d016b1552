"""Record GPU evidence for the test fixtures (run on the GPU machine).

For every test model: `check` with the CUDA EP (the report JSON), a CUPTI census of one plain
`session.run()` (what ORT really copied), and the generated binding code executed as printed with a
census of one `run_with_iobinding` afterwards (what the binding left). Writes one gzipped JSON per
model into the folder given (default $OUT/gpu).
"""

from __future__ import annotations

import gzip
import json
import os
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

from ortcopy_doctor import check  # noqa: E402
from ortcopy_doctor.collect.census import CuptiTracer  # noqa: E402
from ortcopy_doctor.collect.session import CheckOptions  # noqa: E402
from ortcopy_doctor.collect.demo_model import DEMO_DIMS, build_demo_model  # noqa: E402
from ortcopy_doctor.model import codec  # noqa: E402

DIMS = {"batch": 2, "rows": 4, "cols": 8}


def inputs_for(name: str, folder: Path) -> Path | None:
    if name != "cpu_only_inputs":
        return None
    path = folder / "inputs.npz"
    np.savez(path, target_shape=np.array([4, 8], np.int64))
    return path


def census_of(fn) -> dict:
    with CuptiTracer() as tracer:
        fn()
    return codec.to_builtins(tracer.census)


def record(name: str, model: onnx.ModelProto, dims: dict, out: Path) -> dict:
    import onnxruntime as ort

    folder = Path(tempfile.mkdtemp(prefix=name))
    path = folder / f"{name}.onnx"
    onnx.save(model, str(path))
    result: dict = {"model": name, "ort_version": ort.__version__}
    options = CheckOptions(dims=dims, inputs_file=inputs_for(name, folder))
    report = check(path, options)
    result["report"] = report.to_dict()
    # Ground truth: one plain run() with the same feeds, after warm-up.
    from ortcopy_doctor.collect.feeds import build_feeds

    arrays, _ = build_feeds(report.evidence.model.inputs, dims, {}, options.inputs_file)
    session = ort.InferenceSession(str(path), providers=["CUDAExecutionProvider", "CPUExecutionProvider"])
    for _ in range(2):
        session.run(None, arrays)
    result["census_plain_run"] = census_of(lambda: session.run(None, arrays))
    # The generated binding code, executed as printed, then one more bound run traced.
    code = report.binding.code
    if options.inputs_file is not None:
        code = code.replace("INPUTS_FILE = 'inputs.npz'", f"INPUTS_FILE = {str(options.inputs_file)!r}")
    namespace: dict = {}
    try:
        exec(compile(code, f"<binding code for {name}>", "exec"), namespace)  # noqa: S102 - our own generated code
        infer = namespace["infer"]
        infer()
        result["census_bound_run"] = census_of(infer)
        result["binding_code_ran"] = True
    except Exception:  # noqa: BLE001 - recorded as evidence
        result["binding_code_ran"] = False
        result["binding_error"] = traceback.format_exc()
    return result


def main() -> None:
    out = Path(sys.argv[1] if len(sys.argv) > 1 else os.path.join(os.environ.get("OUT", "/tmp/out"), "gpu"))
    out.mkdir(parents=True, exist_ok=True)
    todo = {name: (build(), DIMS) for name, build in models.ALL.items()}
    todo["demo"] = (build_demo_model(), DEMO_DIMS)
    for name, (model, dims) in todo.items():
        try:
            result = record(name, model, dims, out)
            status = f"copies={len(result['report']['copies'])} bound_ran={result['binding_code_ran']}"
        except Exception:  # noqa: BLE001
            result = {"model": name, "error": traceback.format_exc()}
            status = "ERROR " + result["error"][-300:]
        with gzip.open(out / f"{name}.json.gz", "wt", encoding="utf-8") as f:
            json.dump(result, f)
        print(name, status, flush=True)


if __name__ == "__main__":
    main()
