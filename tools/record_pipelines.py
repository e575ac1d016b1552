"""Record the example pipelines on a GPU machine: `python3 tools/record_pipelines.py OUT_DIR`.

For each example in examples/ and its fixed version, runs
`python -m ortcopy_doctor run --json ... -- python examples/<name>.py --providers cuda --iterations N`
(CUDA EP; every call of every session traced with CUPTI by the run command's watch), then counts, straight from
the raw CUPTI records of the observations, the memcpys behind each round trip the report names: per consuming call,
a device->host record of the output's size in the producing call and a host->device record of the input's size in
the consuming call. Writes OUT_DIR/<example>.json.gz: {format, ort_version, cupti/torch versions, returncode, the
report (with its observations), cupti_per_round_trip, no_census (the stage table of `run --no-census`), plain (the example timed again without
the recorder)}. tests/watch/test_pipeline_fixtures.py replays them.

A failing example is recorded (returncode, stderr tail) and the others go on; exit status 1 if any failed.
About 2 minutes on an H200 (the torch example exports two torchvision networks first; skipped without torch).
"""

from __future__ import annotations

import gzip
import json
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
FIXTURE_FORMAT = "ortcopy-doctor-pipeline-fixture"
EXAMPLES = ["detect_crop_classify", "text_pipeline", "streaming_state", "detect_classify_torch"]
ITERATIONS = {"streaming_state": 30}
DEFAULT_ITERATIONS = 20
TIMEOUT_S = 90
PLAIN_WARMUP = 20  # iterations left out of the plain timing (first calls: allocations, cuDNN algorithm search)
PLAIN_ITERATIONS = 300
NO_CENSUS_ITERATIONS = 100


def _version(module: str) -> str:
    try:
        mod = __import__(module)
        return str(getattr(mod, "__version__", ""))
    except Exception:  # noqa: BLE001
        return ""


def cupti_per_round_trip(report: dict[str, Any]) -> list[dict[str, Any]]:
    """For each round trip of the report: how many consuming calls CUPTI shows both copies for."""
    obs = report.get("observations") or {}
    sessions = {s["label"]: i for i, s in enumerate(obs.get("sessions", []))}
    calls = obs.get("calls", [])
    by_seq = {c["seq"]: c for c in calls}

    def records(session: int, index: int) -> list[dict[str, Any]]:
        watch_calls = obs["sessions"][session]["observations"]["calls"]
        if not 0 <= index < len(watch_calls):
            return []
        call = watch_calls[index]
        bound = [r for b in call.get("bind_records", []) for r in b["records"]]
        return list(call.get("records", [])) + bound

    result = []
    for rt in report.get("round_trips", []):
        ps, cs = sessions.get(rt["producer"]), sessions.get(rt["consumer"])
        d2h = h2d = pairs = 0
        for c in calls:
            if c["session"] != cs:
                continue
            for value in c["inputs"]:
                link = value.get("link")
                if value["name"] != rt["input"] or not link or link["output"] != rt["output"] or link["how"] != rt["how"]:
                    continue
                p = by_seq.get(link["seq"])
                if p is None or p["session"] != ps:
                    continue
                pairs += 1
                if any(r["direction"] == "device_to_host" and r["bytes"] == rt["d2h_bytes_per_call"]
                       for r in records(ps, p["call"])):
                    d2h += 1
                if any(r["direction"] == "host_to_device" and r["bytes"] == rt["h2d_bytes_per_call"]
                       for r in records(cs, c["call"])):
                    h2d += 1
        result.append({"producer": rt["producer"], "output": rt["output"], "consumer": rt["consumer"],
                       "input": rt["input"], "pairs": pairs, "cupti_d2h_calls": d2h, "cupti_h2d_calls": h2d})
    return result


def no_census_timing(name: str, iterations: int, env: dict[str, str]) -> dict[str, Any]:
    """The example under `run --no-census`: the stage table with the recorder but without CUPTI, which slows every
    call it traces (bind_* calls included), so the stages of a fixed version compare with the broken one's."""
    report_path = Path(tempfile.mkdtemp(prefix="ortcopy-pipeline-")) / "report.json"
    cmd = [sys.executable, "-m", "ortcopy_doctor", "run", "--no-census", "--json", str(report_path), "--no-html", "--",
           "python", str(ROOT / "examples" / f"{name}.py"), "--providers", "cuda",
           "--iterations", str(max(iterations, NO_CENSUS_ITERATIONS))]
    try:
        proc = subprocess.run(cmd, cwd=ROOT, env=env, capture_output=True, text=True, timeout=TIMEOUT_S)
    except subprocess.TimeoutExpired:
        return {"error": f"timed out after {TIMEOUT_S} s"}
    if proc.returncode != 0 or not report_path.is_file():
        return {"error": f"exit {proc.returncode}: {proc.stderr[-1000:]}"}
    pipeline = json.loads(report_path.read_text())["pipelines"][0]
    return {"iterations": pipeline["iterations"], "iteration_ms": pipeline["iteration_ms"], "stages": pipeline["stages"]}


def plain_timing(name: str, env: dict[str, str]) -> dict[str, Any]:
    """The example run again without the recorder, timing each iteration on the program's own clock
    (examples/_common.loop): the whole iteration of a fixed version against its broken one, with nothing added."""
    times_path = Path(tempfile.mkdtemp(prefix="ortcopy-plain-")) / "times.json"
    cmd = [sys.executable, str(ROOT / "examples" / f"{name}.py"), "--providers", "cuda",
           "--iterations", str(PLAIN_WARMUP + PLAIN_ITERATIONS)]
    try:
        proc = subprocess.run(cmd, cwd=ROOT, env=dict(env, ORTCOPY_EXAMPLE_TIMES=str(times_path)), capture_output=True,
                              text=True, timeout=TIMEOUT_S)
    except subprocess.TimeoutExpired:
        return {"error": f"timed out after {TIMEOUT_S} s"}
    if proc.returncode != 0 or not times_path.is_file():
        return {"error": f"exit {proc.returncode}: {proc.stderr[-1000:]}"}
    times = sorted(json.loads(times_path.read_text())[PLAIN_WARMUP:])
    n = len(times)
    return {"iterations": n, "warmup": PLAIN_WARMUP, "median_ms": times[n // 2] / 1e6,
            "p10_ms": times[n // 10] / 1e6, "p90_ms": times[(9 * n) // 10] / 1e6}


def record(name: str, out: Path, cache: Path) -> bool:
    iterations = ITERATIONS.get(name.removesuffix("_fixed"), DEFAULT_ITERATIONS)  # the same work for both versions
    report_path = Path(tempfile.mkdtemp(prefix="ortcopy-pipeline-")) / "report.json"
    cmd = [sys.executable, "-m", "ortcopy_doctor", "run", "--json", str(report_path), "--no-html", "--",
           "python", str(ROOT / "examples" / f"{name}.py"), "--providers", "cuda", "--iterations", str(iterations)]
    # Keep the caller's PYTHONPATH behind the repo: on the GPU machine it is what puts onnxruntime-gpu ahead of the
    # image's CPU-only onnxruntime (without it the examples silently ran on the CPU EP there).
    pythonpath = os.pathsep.join([str(ROOT)] + ([os.environ["PYTHONPATH"]] if os.environ.get("PYTHONPATH") else []))
    env = dict(os.environ, PYTHONPATH=pythonpath, ORTCOPY_EXAMPLE_CACHE=str(cache))
    start = time.time()
    entry: dict[str, Any] = {"format": FIXTURE_FORMAT, "format_version": 1, "example": name, "command": cmd[3:],
                             "ort_version": _version("onnxruntime"), "cupti_python": _version("cupti"),
                             "torch": _version("torch"), "iterations": iterations}
    try:
        proc = subprocess.run(cmd, cwd=ROOT, env=env, capture_output=True, text=True, timeout=TIMEOUT_S)
        entry.update(returncode=proc.returncode, stdout_tail=proc.stdout[-2000:], stderr_tail=proc.stderr[-6000:])
    except subprocess.TimeoutExpired as exc:
        entry.update(returncode=None, error=f"timed out after {TIMEOUT_S} s",
                     stderr_tail=(exc.stderr or b"")[-6000:].decode("utf-8", "replace") if isinstance(exc.stderr, bytes) else str(exc.stderr or "")[-6000:])
    entry["seconds"] = round(time.time() - start, 1)
    skipped = "skipped: this example needs" in entry.get("stderr_tail", "")
    if report_path.is_file() and not skipped:
        report = json.loads(report_path.read_text())
        entry["report"] = report
        entry["cupti_per_round_trip"] = cupti_per_round_trip(report)
    elif skipped:
        entry["skipped"] = next(line for line in entry["stderr_tail"].splitlines() if "skipped: this example needs" in line)
    if "report" in entry:
        entry["no_census"] = no_census_timing(name, iterations, env)
        entry["plain"] = plain_timing(name, env)
    ok = entry.get("returncode") == 0 and ("report" in entry or skipped)
    if "report" in entry:
        on_cpu = [s["label"] for s in entry["report"]["sessions"] if "CUDAExecutionProvider" not in s["providers"]]
        if on_cpu:  # a recording without the CUDA EP proves nothing about device copies
            ok = False
            entry["error"] = f"the CUDA EP was not active for {', '.join(on_cpu)}"
    with gzip.open(out / f"{name}.json.gz", "wt", encoding="utf-8") as f:  # written last: with the reason it failed
        json.dump(entry, f, separators=(",", ":"))
    summary = entry.get("skipped") or entry.get("error") or (f"{len(entry['report']['round_trips'])} round trip(s); "
                                      f"{entry['report']['verdict']}" if "report" in entry else entry.get("error", "no report"))
    print(f"{'ok  ' if ok else 'FAIL'} {name} ({entry['seconds']} s): {summary}", flush=True)
    if "plain" in entry:
        nc = entry["no_census"]
        print(f"       without the census: iteration {nc.get('iteration_ms')} ms, stages "
              f"{[(r['kind'], r['median_ms']) for r in nc.get('stages', [])] or nc}", flush=True)
        print(f"       without the recorder: {entry['plain']}", flush=True)
    for rt in entry.get("cupti_per_round_trip", []):
        print(f"       {rt}", flush=True)
    return ok


def main() -> int:
    if len(sys.argv) != 2 or sys.argv[1] in ("-h", "--help"):
        print(__doc__)
        return 0 if len(sys.argv) == 2 else 2
    out = Path(sys.argv[1])
    out.mkdir(parents=True, exist_ok=True)
    cache = Path(tempfile.mkdtemp(prefix="ortcopy-example-models-"))
    failed = 0
    for name in EXAMPLES:
        for variant in (name, f"{name}_fixed"):
            try:
                failed += not record(variant, out, cache)
            except Exception as exc:  # noqa: BLE001 - one example's failure is recorded, not fatal
                failed += 1
                print(f"FAIL {variant}: {type(exc).__name__}: {exc}", flush=True)
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
