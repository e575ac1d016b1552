"""Record the real-model corpus (tools/export_corpus.py) on a CUDA GPU, for the issue-11 fixtures.

    python tools/record_corpus.py CORPUS_DIR OUT_DIR [--timeout S] [--only a,b] [--runs N] [--pack]

For every model of CORPUS_DIR/corpus.json that exported, in its own subprocess (``--timeout`` seconds each):

1. ``check`` with the CUDA EP (the CUPTI census of the profiled runs on, as ``check`` does where it can) and the
   A/B measurement of every offered variant (``measure_binding=True``): the report JSON (evidence + census records);
2. one plain ``session.run()`` traced with CUPTI (ground truth, outside check);
3. the generated binding code (onnxruntime flavor, as ``check`` prints it) and the CUDA-graph code where the
   report offers it (no blocker), executed as printed, outputs compared with plain run()'s, then one more ``infer()`` traced;
4. for models whose sidecar has ``decode_steps`` (past key/values): that many plain decode steps, past growing by
   one each step, each traced (per-step transfer totals).

Writes OUT_DIR/models/NAME.json.gz (format ``ortcopy-doctor-corpus`` v1: sidecar, versions, report, census_plain_run,
code_runs, decode, timings, error) and, with ``--pack``, packs them into OUT_DIR/corpus-N.tar.gz (<= 15 MiB each,
at most 6) and removes the folder. Nothing here is fatal for the next model.
On a machine without CUDA the same runs happen on CPU (the census parts are null): the logic can be tested there.
"""

from __future__ import annotations

import argparse
import datetime
import gzip
import json
import os
import subprocess
import sys
import tarfile
import time
import traceback
from pathlib import Path
from typing import Any

import numpy as np

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "tools"))

FORMAT = "ortcopy-doctor-corpus"
FORMAT_VERSION = 1
PACK_LIMIT = 15 * 2**20
MAX_TARS = 6


def _options(side: dict, corpus: Path, runs: int, measure: bool):
    from ortcopy_doctor.collect.session import CheckOptions

    inputs = corpus / side["inputs"] if side.get("inputs") else None
    return CheckOptions(dims=dict(side.get("dims") or {}), shapes={k: list(v) for k, v in (side.get("shapes") or {}).items()},
                        inputs_file=inputs, measure_binding=measure, measure_runs=runs, warmup_runs=2,
                        profiled_runs=3, timed_runs=10)


def _cuda() -> bool:
    import onnxruntime as ort

    return "CUDAExecutionProvider" in ort.get_available_providers()


def decode_loop(path: Path, side: dict, steps: int) -> list[dict]:
    """Plain decode steps with growing past key/values (each step's present is the next past), each traced."""
    import onnxruntime as ort
    from record_binding_ab import census_of

    providers = ["CUDAExecutionProvider", "CPUExecutionProvider"] if _cuda() else ["CPUExecutionProvider"]
    session = ort.InferenceSession(str(path), providers=providers)
    ins = session.get_inputs()
    outs = [o.name for o in session.get_outputs()]
    past_names = [i.name for i in ins if i.name.startswith("past_")]
    shape = next(i.shape for i in ins if i.name.startswith("past_"))
    heads, head_dim = int(shape[1]), int(shape[3])
    feeds: dict[str, Any] = {n: np.zeros((1, heads, 0, head_dim), np.float32) for n in past_names}
    token = np.array([[3]], np.int64)
    result = []
    for step in range(steps):
        feeds["input_ids"] = token
        box: dict[str, Any] = {}
        census = census_of(lambda: box.setdefault("out", session.run(None, feeds)))  # noqa: B023
        values = box.get("out") or session.run(None, feeds)
        logits = values[0]
        token = np.array([[int(np.argmax(logits[0, -1]))]], np.int64)
        for name, value in zip(outs, values):
            if name.startswith("present_"):
                feeds["past_" + name[len("present_"):]] = value
        past_len = int(feeds[past_names[0]].shape[2]) if past_names else 0
        totals = None
        if census is not None:
            totals = {}
            for r in census["records"]:
                c, b = totals.get(r["direction"], (0, 0))
                totals[r["direction"]] = (c + 1, b + int(r["bytes"]))
        result.append({"step": step, "past_len_after": past_len, "census": census, "totals": totals})
    return result


def record_one(corpus: Path, name: str, runs: int, result: dict) -> dict:
    """Fills ``result`` step by step, so that what was recorded before a failure is kept."""
    import onnxruntime as ort
    from record_binding_ab import census_of, run_code

    from ortcopy_doctor import check
    from ortcopy_doctor.report.variants import cuda_graph_blockers, promised_transfers
    from ortcopy_doctor.analysis.binding import UNBOUND, render_code, render_cuda_graph_code
    from ortcopy_doctor.collect.feeds import build_feeds

    side = json.loads((corpus / f"{name}.json").read_text(encoding="utf-8"))
    result.update({"sidecar": side, "timings": {}})
    path = corpus / side["onnx"]
    cuda = _cuda()
    options = _options(side, corpus, runs, measure=True if cuda else None)
    t = time.time()
    report = check(path, options)
    result["timings"]["check_s"] = round(time.time() - t, 2)
    ev, plan = report.evidence, report.binding
    # onnxruntime-gpu lists CUDA as available where its libraries do not load: what the session really ran on
    cuda = ev.session.active_providers[:1] == ["CUDAExecutionProvider"]
    result["report"] = report.to_dict()
    result["verdict"] = getattr(report, "verdict", None)
    t = time.time()
    arrays, _ = build_feeds(ev.model.inputs, options.dims, options.shapes, options.inputs_file)
    providers = ["CUDAExecutionProvider", "CPUExecutionProvider"] if cuda else ["CPUExecutionProvider"]
    session = ort.InferenceSession(str(path), providers=providers)
    names = [o.name for o in session.get_outputs()]
    want = session.run(None, arrays)
    session.run(None, arrays)
    result["census_plain_run"] = census_of(lambda: session.run(None, arrays)) if cuda else None
    del session
    variants = ["plain", "plan", "all_device", "cuda_graph"]
    result["promised"] = {v: {k: list(x) for k, x in promised_transfers(ev, plan, report.copies, v).items()}
                          for v in variants}
    shown = report.shown_binding()  # where CUDA did not load: the plan of the placement predicted for it
    bound_names = [e.name for e in shown.outputs if e.place != UNBOUND]
    code_runs: dict[str, Any] = {}
    for flavor in ("onnxruntime",):  # the code check prints; other flavors are left to record_binding_ab.py
        code = shown.code if flavor == "onnxruntime" else render_code(ev, shown, flavor)
        if not cuda:  # the CPU dry run of the logic: the same code on CPU OrtValues
            code = code.replace("'cuda'", "'cpu'")
        code_runs[flavor] = run_code(code, options.inputs_file, want, names, bound_names)
    blockers = cuda_graph_blockers(ev, plan, report.copies)
    if blockers:
        code_runs["cuda_graph"] = {"code": None, "ran": False, "offered": False,
                                   "skipped": "; ".join(b.text() for b in blockers), "error": "",
                                   "outputs_match_plain": None, "census_infer": None}
    elif cuda:
        code_runs["cuda_graph"] = run_code(render_cuda_graph_code(ev, plan), options.inputs_file, want, names,
                                           [e.name for e in plan.outputs])
        code_runs["cuda_graph"]["offered"] = True
    else:
        code_runs["cuda_graph"] = {"code": render_cuda_graph_code(ev, plan), "ran": False, "offered": True,
                                   "skipped": "no CUDA here", "error": "", "outputs_match_plain": None,
                                   "census_infer": None}
    result["code_runs"] = code_runs
    result["timings"]["code_s"] = round(time.time() - t, 2)
    if side.get("decode_steps"):
        t = time.time()
        try:
            result["decode"] = decode_loop(path, side, int(side["decode_steps"]))
        except Exception:  # noqa: BLE001 - recorded
            result["decode_error"] = traceback.format_exc()[-3000:]
        result["timings"]["decode_s"] = round(time.time() - t, 2)
    return result


def versions(modules: tuple[str, ...] = ("onnxruntime", "onnx", "numpy")) -> dict[str, Any]:
    """Versions of what recorded (children: no torch import, which would load its CUDA libraries first)."""
    found: dict[str, Any] = {}
    for module in modules:
        try:
            found[module] = __import__(module).__version__
        except Exception:  # noqa: BLE001
            found[module] = None
    try:
        from cupti import cupti  # noqa: F401

        import importlib.metadata as md

        found["cupti-python"] = md.version("cupti-python")
    except Exception:  # noqa: BLE001
        found["cupti-python"] = None
    try:
        from ortcopy_doctor.collect.environment import collect_environment

        found["gpus"] = collect_environment().gpus
    except Exception:  # noqa: BLE001
        found["gpus"] = None
    return found


def child(corpus: Path, name: str, out: Path, runs: int) -> None:
    """Record one model into OUT/models/NAME.json.gz (runs in its own process)."""
    t0 = time.time()
    result: dict[str, Any] = {"format": FORMAT, "format_version": FORMAT_VERSION, "model": name,
                              "recorded_utc": datetime.datetime.now(datetime.timezone.utc).strftime("%Y-%m-%dT%H:%M:%SZ"),
                              "versions": versions()}
    result["ort_version"] = result["versions"].get("onnxruntime")
    try:
        record_one(corpus, name, runs, result)
    except Exception:  # noqa: BLE001 - recorded as evidence
        result["error"] = traceback.format_exc()[-6000:]
    result["wall_s"] = round(time.time() - t0, 2)
    _write(out, name, result)


def _write(out: Path, name: str, result: dict) -> None:
    folder = out / "models"
    folder.mkdir(parents=True, exist_ok=True)
    tmp = folder / f"{name}.json.gz.tmp"
    with gzip.open(tmp, "wt", encoding="utf-8") as f:
        json.dump(result, f, default=str)
    tmp.rename(folder / f"{name}.json.gz")


def summary_line(path: Path) -> str:
    with gzip.open(path, "rt", encoding="utf-8") as f:
        r = json.load(f)
    if r.get("error") and "report" not in r:
        return "ERROR " + r["error"].strip().splitlines()[-1][:200]
    ev = r["report"]["evidence"]
    copies = r["report"].get("copies", [])
    census = ev.get("census_status", "")
    m = ev.get("binding_measurement") or {}
    ran = {k: ("ran" if v.get("ran") else ("-" if v.get("skipped") else "ERR"))
           for k, v in (r.get("code_runs") or {}).items()}
    error = f"; ERROR {r['error'].strip().splitlines()[-1][:160]}" if r.get("error") else ""
    return (f"{len(copies)} copies; {r['report'].get('verdict', '')[:90]}; census {census[:50]}; "
            f"measure {m.get('status')}; code {ran}; {r.get('wall_s')} s{error}")


def pack(out: Path) -> list[Path]:
    files = sorted((out / "models").glob("*.gz"), key=lambda p: p.name)
    tars: list[Path] = []
    current: tarfile.TarFile | None = None
    size = 0
    for f in files:
        n = f.stat().st_size
        if current is None or (size + n > PACK_LIMIT and len(tars) < MAX_TARS):
            if current is not None:
                current.close()
            tars.append(out / f"corpus-{len(tars) + 1}.tar.gz")
            current = tarfile.open(tars[-1], "w:gz")
            size = 0
        current.add(f, arcname=f"models/{f.name}")
        size += n
    if current is not None:
        current.close()
    return tars


def _listing(corpus: Path) -> list[dict]:
    """corpus.json's models, or the sidecars themselves where the export was cut short before writing it."""
    index = corpus / "corpus.json"
    if index.exists():
        return json.loads(index.read_text(encoding="utf-8"))["models"]
    return [json.loads(p.read_text(encoding="utf-8")) for p in sorted(corpus.glob("*.json"))]


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("corpus")
    p.add_argument("out")
    p.add_argument("--timeout", type=float, default=90.0, help="seconds per model")
    p.add_argument("--budget", type=float, default=0.0, help="stop starting models after this many seconds (0: none)")
    p.add_argument("--runs", type=int, default=30, help="timed runs per A/B variant")
    p.add_argument("--only", default="")
    p.add_argument("--pack", action="store_true", help="pack OUT/models into OUT/corpus-N.tar.gz and remove it")
    p.add_argument("--parallel", type=int, default=1, help="models recorded at once (each in its own process)")
    p.add_argument("--child", default="", help=argparse.SUPPRESS)
    a = p.parse_args(argv)
    corpus, out = Path(a.corpus), Path(a.out)
    out.mkdir(parents=True, exist_ok=True)
    if a.child:
        child(corpus, a.child, out, a.runs)
        return 0
    listing = _listing(corpus)
    only = {n for n in a.only.split(",") if n}
    t0 = time.time()
    todo: list[dict] = []
    for side in listing:
        name = side["name"]
        if only and name not in only:
            continue
        if side.get("failed"):
            _write(out, name, {"format": FORMAT, "format_version": FORMAT_VERSION, "model": name, "sidecar": side,
                               "error": "export failed: " + side["failed"]})
            print(f"{name}: export failed, recorded", flush=True)
            continue
        todo.append(side)
    running: dict[str, tuple[subprocess.Popen, float, dict, Path]] = {}
    while todo or running:
        while todo and len(running) < a.parallel:
            side = todo.pop(0)
            name = side["name"]
            if a.budget and time.time() - t0 > a.budget:
                _write(out, name, {"format": FORMAT, "format_version": FORMAT_VERSION, "model": name, "sidecar": side,
                                   "error": f"not recorded: the round's budget of {a.budget:.0f} s was spent"})
                print(f"{name}: skipped (budget)", flush=True)
                continue
            log = out / "logs" / f"{name}.log"
            log.parent.mkdir(parents=True, exist_ok=True)
            cmd = [sys.executable, str(Path(__file__).resolve()), str(corpus), str(out), "--child", name,
                   "--runs", str(a.runs)]
            with open(log, "w", encoding="utf-8") as f:
                proc = subprocess.Popen(cmd, stdout=f, stderr=subprocess.STDOUT)
            running[name] = (proc, time.time(), side, log)
        time.sleep(0.1)
        for name, (proc, started, side, log) in list(running.items()):
            code = proc.poll()
            if code is None and time.time() - started < a.timeout:
                continue
            if code is None:
                proc.kill()
                proc.wait()
                reason = f"timed out after {a.timeout:.0f} s"
            else:
                reason = f"recorder exited with code {code}" if code else ""
            del running[name]
            tail = log.read_text(encoding="utf-8", errors="replace")[-4000:] if log.exists() else ""
            target = out / "models" / f"{name}.json.gz"
            if reason and not target.exists():
                _write(out, name, {"format": FORMAT, "format_version": FORMAT_VERSION, "model": name, "sidecar": side,
                                   "error": reason, "log_tail": tail})
                line = "ERROR " + reason
            else:
                try:
                    line = summary_line(target)
                except Exception as exc:  # noqa: BLE001
                    line = f"unreadable result ({exc})"
            print(f"[{time.time() - t0:6.1f}s] {name} ({time.time() - started:.1f}s): {line}", flush=True)
    (out / "models").mkdir(parents=True, exist_ok=True)
    with gzip.open(out / "models" / "corpus.json.gz", "wt", encoding="utf-8") as f:
        json.dump({"models": listing, "versions": versions(("onnxruntime", "onnx", "numpy", "torch", "torchvision",
                                                            "transformers"))}, f)
    if (out / "logs").exists():
        with tarfile.open(out / "models" / "logs.tar.gz", "w:gz") as t:
            t.add(out / "logs", arcname="logs")
        for f in (out / "logs").glob("*"):
            f.unlink()
        (out / "logs").rmdir()
    if a.pack:
        tars = pack(out)
        for f in (out / "models").glob("*"):
            f.unlink()
        (out / "models").rmdir()
        print("packed:", ", ".join(f"{t.name} ({t.stat().st_size / 2**20:.1f} MiB)" for t in tars), flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
