"""Probe: what a new input shape costs a CUDA session of a convolutional model under each cudnn_conv_algo_search
option, with shapes that alternate as an OCR service's pages do. `python3 tools/probe_conv_search.py MODEL OUT.json`.

For EXHAUSTIVE (ORT's default), HEURISTIC and DEFAULT: a fresh session, then the shapes A B C A B C ... (each
shape REPEATS times in all), every call timed (numpy in, numpy out). Writes the per-call times with the ORT version.
"""

from __future__ import annotations

import json
import sys
import time

import numpy as np
import onnxruntime as ort

SHAPES = [(1, 3, 736, 1312), (1, 3, 736, 992), (1, 3, 736, 1888)]
REPEATS = 6


def probe(model: str, search: str) -> dict:
    options = ort.SessionOptions()
    options.log_severity_level = 3
    session = ort.InferenceSession(model, options, providers=[("CUDAExecutionProvider", {"cudnn_conv_algo_search": search}),
                                                              "CPUExecutionProvider"])
    name = session.get_inputs()[0].name
    rng = np.random.default_rng(0)
    arrays = {s: rng.random(s, dtype=np.float32) for s in SHAPES}
    calls = []
    for k in range(REPEATS):
        for s in SHAPES:
            start = time.perf_counter()
            session.run(None, {name: arrays[s]})
            calls.append({"round": k, "shape": "x".join(map(str, s)), "ms": round((time.perf_counter() - start) * 1e3, 3)})
    # then the same shape many times in a row: the steady state
    steady = []
    for _ in range(20):
        start = time.perf_counter()
        session.run(None, {name: arrays[SHAPES[0]]})
        steady.append((time.perf_counter() - start) * 1e3)
    return {"search": search, "providers": session.get_providers(), "calls": calls,
            "steady_median_ms": round(float(np.median(steady)), 3)}


def main() -> int:
    model, out = sys.argv[1], sys.argv[2]
    result = {"ort_version": ort.__version__, "model": model, "shapes": ["x".join(map(str, s)) for s in SHAPES],
              "probes": [probe(model, s) for s in ("EXHAUSTIVE", "HEURISTIC", "DEFAULT")]}
    with open(out, "w") as f:
        json.dump(result, f, indent=1)
    for p in result["probes"]:
        by_round = {}
        for c in p["calls"]:
            by_round.setdefault(c["round"], []).append(c["ms"])
        print(p["search"], "steady", p["steady_median_ms"], "per round:", {k: v for k, v in by_round.items()})
    return 0


if __name__ == "__main__":
    sys.exit(main())
