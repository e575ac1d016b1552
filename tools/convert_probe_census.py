"""Convert raw GPU probe output into compact census fixtures (tests/fixtures/census/<model>.json.gz).

Input: a probe folder (default /tmp/probe_out/probe) with one folder per model holding ``cupti.json`` ("clock":
[cupti ns, time.time_ns()], "window", "records": memcpy records with copy_kind/bytes/start/end/corr/src/dst and
runtime/driver records with cbid/start/corr), ``meta.json`` (``start_ns``: the session's profiling start, epoch ns)
and ``profile.json`` (the ORT profile: 1 warm-up run, then the runs CUPTI traced), and ``summary.json`` (ORT
version). Output keeps what the attribution needs: each memcpy with the start of the API call that issued it
(as ``ortcopy_doctor.collect.census.TransferRecord``), the clock pairs, and the profile's model_run and *_kernel_time events.

    python tools/convert_probe_census.py [PROBE_DIR] [--out tests/fixtures/census] [--cupti-version 13.4.0]
"""

from __future__ import annotations

import argparse
import gzip
import json
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from ortcopy_doctor.model.census import COPY_KINDS, MEMORY_KINDS, TransferRecord  # noqa: E402
from ortcopy_doctor.model import codec  # noqa: E402

# The probe's models.py had an older shape_subgraph than tests/models.py: its recording is not comparable.
SKIP = {"shape_subgraph"}
PROFILE_ARGS = ("op_name", "provider", "output_size", "output_type_shape", "input_type_shape")


def records(cupti: dict) -> list[TransferRecord]:
    api = {r["corr"]: r for r in cupti["records"] if r["kind"] in ("runtime", "driver")}
    result = []
    for r in cupti["records"]:
        if r["kind"] != "memcpy":
            continue
        issued = api.get(r["corr"])
        result.append(TransferRecord(
            direction=COPY_KINDS.get(r["copy_kind"], f"kind_{r['copy_kind']}"), bytes=r["bytes"],
            src_kind=MEMORY_KINDS.get(r["src"], str(r["src"])), dst_kind=MEMORY_KINDS.get(r["dst"], str(r["dst"])),
            start_ns=r["start"], end_ns=r["end"], correlation_id=r["corr"],
            api_start_ns=issued["start"] if issued else None, api_kind=issued["kind"] if issued else ""))
    return sorted(result, key=lambda t: t.start_ns)


def profile_events(profile: list) -> list[dict]:
    kept = []
    for e in profile:
        if not isinstance(e, dict) or "ts" not in e:
            continue
        if (e.get("cat") == "Session" and e.get("name") == "model_run") or (
                e.get("cat") == "Node" and str(e.get("name", "")).endswith("_kernel_time")):
            args = {k: v for k, v in (e.get("args") or {}).items() if k in PROFILE_ARGS}
            kept.append({"cat": e["cat"], "name": e["name"], "ts": e["ts"], "dur": e.get("dur", 0), "args": args})
    return sorted(kept, key=lambda e: e["ts"])


def convert(folder: Path, ort_version: str, cupti_version: str) -> dict:
    cupti = json.loads((folder / "cupti.json").read_text())
    meta = json.loads((folder / "meta.json").read_text())
    profile = json.loads((folder / "profile.json").read_text())
    return {
        "model": folder.name,
        "recorded_on": "NVIDIA H200 (tools/gpu_probe.py)",
        "ort_version": ort_version,
        "cupti_python_version": cupti_version,
        "providers": meta.get("providers", []),
        "profiling_start_ns": meta["start_ns"],
        "warmup_runs": 1,
        "clock_pairs": [list(cupti["clock"])],
        "window_ns": list(cupti.get("window", [])),
        "records": codec.to_builtins(records(cupti)),
        "api_calls_traced": sum(1 for r in cupti["records"] if r["kind"] != "memcpy"),
        "profile_events": profile_events(profile),
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("probe", nargs="?", default="/tmp/probe_out/probe")
    parser.add_argument("--out", default=str(ROOT / "tests" / "fixtures" / "census"))
    parser.add_argument("--cupti-version", default="13.4.0", help="cupti-python version of the recording")
    args = parser.parse_args()
    probe = Path(args.probe)
    summary = json.loads((probe / "summary.json").read_text())
    out = Path(args.out)
    out.mkdir(parents=True, exist_ok=True)
    for folder in sorted(p for p in probe.iterdir() if p.is_dir()):
        if folder.name in SKIP or summary.get(folder.name) != "ok" or not (folder / "cupti.json").is_file():
            print(f"skip {folder.name}")
            continue
        data = convert(folder, summary["ort"], args.cupti_version)
        target = out / f"{folder.name}.json.gz"
        with gzip.GzipFile(target, "wb", mtime=0) as f:
            f.write(json.dumps(data, separators=(",", ":")).encode())
        print(f"{folder.name}: {len(data['records'])} memcpy records, {len(data['profile_events'])} profile events -> {target}")


if __name__ == "__main__":
    main()
