"""Static placement prediction vs real sessions (issue 6): per-node placement and Memcpy-node agreement.

For every model of a corpus (the ONNX backend node models, from the tarball ``tools/backend_suite.py pack``
writes or from its cache folder; or a folder of .onnx files) it

1. gives every node a unique name where it has none (both sides then speak of the same nodes),
2. predicts placement and Memcpy insertions with ``ortcopy_doctor.knowledge.prediction.predict`` (no session),
3. creates a real session (CUDA then CPU; ``--dry-run``: CPU only, predicting for CPU, to check the
   harness itself on a machine without a GPU) with the verbose log captured from fd 2 and
   ``session.record_ep_graph_assignment_info=1``, and reads the actual placement (assignment info,
   completed from the log's "Node placements") and Memcpy insertions (``ortlog.extract_facts``),
4. compares per node (by name; nodes ORT fused away or created are counted apart) and the Memcpy-node
   count (exact match per model; the set of (MemcpyToHost/FromHost, tensor) is compared too).

Writes to ``--out``: ``accuracy.json`` (per-model results, usable as fixtures: actual placement per node
and actual Memcpy insertions, with ORT version and GPU), ``accuracy.md`` (the agreement table and every
disagreement with op, opset and input types).

Models run in worker subprocesses (``--jobs``), so a crash in ORT costs one model, not the run.

    python tools/accuracy_harness.py --tar .gpu_extra/onnx-node-models.tar.gz --out "$OUT" --jobs 4
    python tools/accuracy_harness.py --dry-run --limit 50 --out /tmp/acc          # here, on CPU
"""

from __future__ import annotations

import argparse
import collections
import json
import os
import platform
import subprocess
import sys
import tarfile
import tempfile
import time
import traceback
from pathlib import Path
from typing import Any

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))

CPU = "CPUExecutionProvider"
CUDA = "CUDAExecutionProvider"
MEMCPY_OPS = ("MemcpyToHost", "MemcpyFromHost")


# --- corpus -------------------------------------------------------------------------------------------------


def corpus(args: argparse.Namespace, scratch: Path) -> list[tuple[str, Path]]:
    """(name, model path) pairs, sorted by name."""
    found: list[tuple[str, Path]] = []
    if args.tar:
        root = scratch / "corpus"
        with tarfile.open(args.tar) as tar:
            members = [m for m in tar.getmembers() if m.isfile() and m.name.endswith(".onnx")
                       and not m.name.startswith("/") and ".." not in Path(m.name).parts]
            tar.extractall(root, members=members)
        found = [(p.parent.name if p.name == "model.onnx" else p.stem, p) for p in root.rglob("*.onnx")]
    elif args.models_dir:
        found = [(p.parent.name if p.name == "model.onnx" else p.stem, p) for p in Path(args.models_dir).rglob("*.onnx")]
    else:
        sys.path.insert(0, str(REPO / "tools"))
        from backend_suite import DEFAULT_CACHE, iter_node_models

        found = [(m.name, m.model_path) for m in iter_node_models(Path(args.cache) if args.cache else DEFAULT_CACHE)]
    found.sort()
    if args.match:
        import re

        rx = re.compile(args.match)
        found = [f for f in found if rx.search(f[0])]
    found = found[:: max(1, args.every)]
    return found[: args.limit] if args.limit else found


# --- one model ----------------------------------------------------------------------------------------------


def _subgraphs(node: Any):
    import onnx

    for attr in node.attribute:
        if attr.type == onnx.AttributeProto.GRAPH:
            yield attr.g
        elif attr.type == onnx.AttributeProto.GRAPHS:
            yield from attr.graphs


def _all_nodes(graph: Any):
    for node in graph.node:
        yield graph, node
        for sub in _subgraphs(node):
            yield from _all_nodes(sub)


def name_nodes(model: Any) -> int:
    """Give unnamed (or duplicate-named) nodes unique names; returns how many were renamed."""
    seen: set[str] = set()
    renamed = 0
    for i, (_, node) in enumerate(_all_nodes(model.graph)):
        if not node.name or node.name in seen:
            node.name = f"_n{i}_{node.op_type}"
            renamed += 1
        seen.add(node.name)
    return renamed


def _node_facts(model: Any) -> dict[str, dict[str, Any]]:
    """name -> op, domain, opset (schema since_version) and input types, for the disagreement list."""
    import onnx

    from ortcopy_doctor.knowledge.model_file import elem_dtype, _type_string

    try:
        inferred = onnx.shape_inference.infer_shapes(model, strict_mode=False)
    except Exception:  # noqa: BLE001
        inferred = model
    types: dict[str, str] = {}

    def collect(graph: Any) -> None:
        for t in graph.initializer:
            types[t.name] = elem_dtype(t.data_type)
        for vi in list(graph.input) + list(graph.value_info) + list(graph.output):
            if vi.type.WhichOneof("value") == "tensor_type":
                types[vi.name] = elem_dtype(vi.type.tensor_type.elem_type)
            elif vi.type.WhichOneof("value"):
                types[vi.name] = _type_string(vi.type)
        for node in graph.node:
            for sub in _subgraphs(node):
                collect(sub)

    collect(inferred.graph)
    opsets = {(o.domain or "ai.onnx"): o.version for o in model.opset_import}
    facts: dict[str, dict[str, Any]] = {}
    for _, node in _all_nodes(inferred.graph):
        domain = node.domain or "ai.onnx"
        opset = opsets.get(domain, 0)
        try:
            opset = onnx.defs.get_schema(node.op_type, opset, "" if domain == "ai.onnx" else domain).since_version
        except Exception:  # noqa: BLE001
            pass
        facts[node.name] = {"op": node.op_type, "domain": domain, "opset": opset,
                            "input_types": [types.get(n) if n else None for n in node.input]}
    return facts


def _actual(model_path: Path, providers: list[str], opt_level: str = "all") -> dict[str, Any]:
    import gc

    import onnxruntime as ort

    from ortcopy_doctor.collect import ortlog

    so = ort.SessionOptions()
    so.log_severity_level = 0
    so.log_verbosity_level = 0
    so.add_session_config_entry("session.record_ep_graph_assignment_info", "1")
    so.graph_optimization_level = {
        "disable": ort.GraphOptimizationLevel.ORT_DISABLE_ALL, "basic": ort.GraphOptimizationLevel.ORT_ENABLE_BASIC,
        "extended": ort.GraphOptimizationLevel.ORT_ENABLE_EXTENDED, "all": ort.GraphOptimizationLevel.ORT_ENABLE_ALL,
    }[opt_level]
    with tempfile.TemporaryDirectory(prefix="acc-") as tmp:
        so.optimized_model_filepath = str(Path(tmp) / "optimized.onnx")
        error = None
        with ortlog.capture_native_stderr() as captured:
            session = None
            try:
                session = ort.InferenceSession(str(model_path), so, providers=providers)
                active = list(session.get_providers())
                assignment: dict[str, str] = {}
                try:
                    for sub in session.get_provider_graph_assignment_info():
                        for node in sub.get_nodes():
                            assignment[node.name] = sub.ep_name
                except Exception:  # noqa: BLE001 - older ORT
                    assignment = {}
            except Exception as exc:  # noqa: BLE001
                error = f"{type(exc).__name__}: {str(exc).strip().splitlines()[0][:400] if str(exc).strip() else ''}"
            finally:
                session = None
                gc.collect()
    facts = ortlog.extract_facts(ortlog.parse_lines(captured.text))
    if error:
        return {"error": error}
    placement = dict(assignment)
    for ep, nodes in facts.placement.items():
        for _, name in nodes:
            placement.setdefault(name, ep)
    return {
        "active": active,
        "placement": placement,
        "placement_source": "assignment_info" if assignment else ("verbose_log" if facts.placement else "none"),
        "memcpy": [[m.op_type, m.tensor] for m in facts.memcpy],
        "cpu_preferred": sorted(facts.cpu_preferred),
        "kernel_not_found": sorted(facts.kernel_not_found),
        "ep_failures": facts.ep_failures,
    }


def _prediction(model: Any, provider: str, corrections: bool = True, ort_version: str | None = None) -> dict[str, Any]:
    from ortcopy_doctor.knowledge.prediction import predict

    prediction = predict(model, provider, ort_version=ort_version or _ort_version(), corrections=corrections)
    return {
        "placement": {n.name: n.provider for n in prediction.nodes},
        "reasons": {n.name: [n.fallback_reason, n.fallback_detail] for n in prediction.nodes if n.fallback_reason},
        "removed": {r.name: r.why for r in prediction.removed},
        "memcpy": [[m.op_type, m.tensor] for m in prediction.memcpy_insertions],
    }


def compare(model: Any, pred: dict[str, Any], placement: dict[str, str], memcpy_actual: list[list[str]]) -> dict[str, Any]:
    """Prediction vs what the session did, for one model (nodes by name; see docs/static-accuracy.md)."""
    facts = _node_facts(model)
    predicted = pred["placement"]
    removed = pred["removed"]
    both = sorted(set(predicted) & set(placement))
    disagreements = [
        {"node": n, **facts.get(n, {}), "predicted": predicted[n], "actual": placement[n],
         "reason": pred["reasons"].get(n, [None, ""])}
        for n in both if predicted[n] != placement[n]
    ]
    return {
        "nodes_compared": len(both),
        "nodes_agree": len(both) - len(disagreements),
        # placed in the prediction, absent from the session: fused/eliminated by ORT, or a node of a function body
        # the prediction inlined (ORT names those differently)
        "predicted_only": sorted(set(predicted) - set(placement)),
        # predicted removed (Constant, constant-folded, inlined function) and absent from the session: agreement
        "removed_as_predicted": sorted(set(removed) - set(placement)),
        # predicted removed but the session placed it: a folding/inlining misprediction
        "removed_but_placed": sorted(set(removed) & set(placement)),
        "actual_only": sorted(set(placement) - set(predicted) - set(removed)),  # created or renamed by ORT
        "disagreements": disagreements,
        "memcpy_predicted": pred["memcpy"],
        "memcpy_actual": memcpy_actual,
        "memcpy_count_exact": len(pred["memcpy"]) == len(memcpy_actual),
        "memcpy_set_exact": sorted(map(tuple, pred["memcpy"])) == sorted(map(tuple, memcpy_actual)),
    }


def evaluate(name: str, model_path: Path, provider: str, session_providers: list[str],
             opt_level: str = "all") -> dict[str, Any]:
    import onnx

    result: dict[str, Any] = {"model": name}
    start = time.perf_counter()
    try:
        model = onnx.load(str(model_path), load_external_data=False)
    except Exception as exc:  # noqa: BLE001
        return {**result, "status": "unreadable", "error": f"{type(exc).__name__}: {exc}"[:400]}
    result["renamed_nodes"] = name_nodes(model)
    try:
        pred = _prediction(model, provider)
        table_only = _prediction(model, provider, corrections=False)
    except Exception as exc:  # noqa: BLE001 - a predictor bug: recorded, counted, listed
        tb = traceback.format_exc().strip().splitlines()
        return {**result, "status": "predict_error", "error": f"{type(exc).__name__}: {exc}"[:400],
                "traceback": tb[-6:]}
    with tempfile.TemporaryDirectory(prefix="acc-model-") as tmp:
        named = Path(tmp) / "model.onnx"
        onnx.save(model, str(named))
        actual = _actual(named, session_providers, opt_level)
    if "error" in actual:
        return {**result, "status": "session_error", "error": actual["error"], "predicted": pred["placement"]}
    if provider != CPU and provider not in actual["active"]:
        return {**result, "status": "provider_inactive", "error": str(actual.get("ep_failures"))[:400]}
    placement = {k: v for k, v in actual["placement"].items() if not k.startswith("Memcpy")}
    plain = compare(model, table_only, placement, actual["memcpy"])
    return {
        **result,
        "status": "compared",
        **compare(model, pred, placement, actual["memcpy"]),
        "table_only": {k: plain[k] for k in ("nodes_compared", "nodes_agree", "memcpy_count_exact", "disagreements")},
        "actual_placement": placement,
        "placement_source": actual["placement_source"],
        "cpu_preferred_logged": actual["cpu_preferred"],
        "seconds": round(time.perf_counter() - start, 3),
    }


def replay(fixture: Path, models_tar: Path, corrections: bool = True) -> dict[str, Any]:
    """Re-predict every model of a recorded GPU run and compare with what the GPU recorded.

    No GPU and no onnxruntime session: the session side comes from ``fixture`` (an accuracy.json[.gz] of this
    harness), the models from ``models_tar`` (``backend_suite.py pack``). Returns ``{"meta", "summary", "models"}``
    like the harness's own output.
    """
    import gzip

    import onnx

    opener = gzip.open if str(fixture).endswith(".gz") else open
    with opener(fixture, "rt", encoding="utf-8") as fh:
        recorded = json.load(fh)
    records: list[dict[str, Any]] = []
    with tarfile.open(models_tar) as tar:
        members = {Path(m.name).parent.name: m for m in tar.getmembers() if m.isfile() and m.name.endswith("model.onnx")}
        for rec in recorded["models"]:
            if rec["status"] != "compared":
                records.append({k: rec[k] for k in ("model", "status", "error") if k in rec})
                continue
            fh = tar.extractfile(members[rec["model"]])
            assert fh is not None
            model = onnx.load_model_from_string(fh.read())
            name_nodes(model)
            pred = _prediction(model, recorded["meta"]["provider"], corrections=corrections,
                               ort_version=recorded["meta"]["ort_version"])
            records.append({"model": rec["model"], "status": "compared",
                            **compare(model, pred, rec["actual_placement"], rec["memcpy_actual"])})
    return {"meta": {**recorded["meta"], "replayed_with_corrections": corrections}, "summary": summarise(records),
            "models": records}


def _ort_version() -> str:
    import onnxruntime as ort

    return ort.__version__


# --- worker / parent ----------------------------------------------------------------------------------------


def worker(list_file: Path, out_file: Path, provider: str, session_providers: list[str], opt_level: str) -> None:
    """Evaluate the models listed (one "name<TAB>path" per line), one JSON line each, flushed as it goes."""
    with out_file.open("a", encoding="utf-8") as out:
        for line in list_file.read_text(encoding="utf-8").splitlines():
            name, path = line.split("\t", 1)
            out.write(json.dumps({"started": name}) + "\n")
            out.flush()
            if os.environ.get("ORTCOPY_HARNESS_CRASH") == name:  # tests the crash path: die like a segfault
                os.abort()
            try:
                record = evaluate(name, Path(path), provider, session_providers, opt_level)
            except Exception as exc:  # noqa: BLE001
                record = {"model": name, "status": "harness_error", "error": f"{type(exc).__name__}: {exc}"[:400],
                          "traceback": traceback.format_exc().strip().splitlines()[-6:]}
            out.write(json.dumps(record) + "\n")
            out.flush()


def _run_chunk(chunk: list[tuple[str, Path]], idx: int, scratch: Path, args: argparse.Namespace,
               session_providers: list[str]) -> list[dict[str, Any]]:
    """Run a chunk in a worker; when the worker dies (crash, timeout), record the model it was on and go on."""
    results: dict[str, dict[str, Any]] = {}
    remaining = list(chunk)
    attempt = 0
    while remaining:
        attempt += 1
        list_file = scratch / f"chunk{idx}.{attempt}.txt"
        out_file = scratch / f"chunk{idx}.{attempt}.jsonl"
        list_file.write_text("".join(f"{n}\t{p}\n" for n, p in remaining), encoding="utf-8")
        cmd = [sys.executable, str(Path(__file__).resolve()), "_worker", str(list_file), str(out_file),
               args.provider_name, ",".join(session_providers), args.opt_level]
        timeout = args.timeout * len(remaining) + 60
        try:
            proc = subprocess.run(cmd, capture_output=True, text=True, timeout=timeout, check=False)
            died = proc.returncode != 0
            tail = (proc.stderr or "").strip()[-400:] or f"worker exited with {proc.returncode}"
        except subprocess.TimeoutExpired:
            died, tail = True, f"timed out after {timeout:.0f} s"
        started = None
        if out_file.is_file():
            for line in out_file.read_text(encoding="utf-8").splitlines():
                try:
                    rec = json.loads(line)
                except ValueError:
                    continue
                if "started" in rec:
                    started = rec["started"]
                else:
                    results[rec["model"]] = rec
                    started = None
        if started is not None:
            results[started] = {"model": started, "status": "crashed", "error": tail}
        remaining = [(n, p) for n, p in remaining if n not in results]
        if died and started is None and remaining:  # died before starting any: record them all
            for n, _ in remaining:
                results[n] = {"model": n, "status": "crashed", "error": tail}
            remaining = []
    return [results[n] for n, _ in chunk if n in results]


def summarise(records: list[dict[str, Any]]) -> dict[str, Any]:
    compared = [r for r in records if r["status"] == "compared"]
    nodes = sum(r["nodes_compared"] for r in compared)
    agree = sum(r["nodes_agree"] for r in compared)
    exact = sum(1 for r in compared if r["memcpy_count_exact"])
    set_exact = sum(1 for r in compared if r["memcpy_set_exact"])
    out = {
        "models": len(records),
        "by_status": dict(collections.Counter(r["status"] for r in records)),
        "models_compared": len(compared),
        "nodes_compared": nodes,
        "nodes_agree": agree,
        "node_agreement": round(agree / nodes, 5) if nodes else None,
        "predicted_only_nodes": sum(len(r["predicted_only"]) for r in compared),
        "removed_as_predicted_nodes": sum(len(r.get("removed_as_predicted", [])) for r in compared),
        "removed_but_placed_nodes": sum(len(r.get("removed_but_placed", [])) for r in compared),
        "actual_only_nodes": sum(len(r["actual_only"]) for r in compared),
        "memcpy_count_exact_models": exact,
        "memcpy_count_exact_rate": round(exact / len(compared), 5) if compared else None,
        "memcpy_set_exact_models": set_exact,
        "models_with_memcpy_actual": sum(1 for r in compared if r["memcpy_actual"]),
        "models_with_memcpy_predicted": sum(1 for r in compared if r["memcpy_predicted"]),
    }
    plain = [r["table_only"] for r in compared if "table_only" in r]
    if plain:
        n = sum(t["nodes_compared"] for t in plain)
        a = sum(t["nodes_agree"] for t in plain)
        e = sum(1 for t in plain if t["memcpy_count_exact"])
        out["table_only"] = {"nodes_compared": n, "nodes_agree": a, "node_agreement": round(a / n, 5) if n else None,
                             "memcpy_count_exact_models": e, "memcpy_count_exact_rate": round(e / len(plain), 5)}
    return out


def markdown(summary: dict[str, Any], records: list[dict[str, Any]], meta: dict[str, Any]) -> str:
    s = summary
    pct = lambda x: "n/a" if x is None else f"{100 * x:.2f}%"  # noqa: E731
    lines = [
        f"# Static prediction vs {meta['provider']} sessions",
        "",
        f"onnxruntime {meta['ort_version']} ({meta['ort_package']}), onnx {meta['onnx_version']}, "
        f"GPU: {meta['gpu'] or 'none'}, corpus: {meta['corpus']}, graph optimisation: {meta['opt_level']}, "
        f"{meta['seconds']:.0f} s",
        "",
        "| measure | value |", "|---|---|",
        f"| models | {s['models']} ({', '.join(f'{k}: {v}' for k, v in sorted(s['by_status'].items()))}) |",
        f"| nodes compared (by name) | {s['nodes_compared']} |",
        f"| node placement agrees | {s['nodes_agree']} ({pct(s['node_agreement'])}) |",
        f"| nodes predicted removed (Constant, constant-folded, inlined function) and absent from the session | "
        f"{s.get('removed_as_predicted_nodes', 0)} |",
        f"| nodes predicted removed but placed by the session | {s.get('removed_but_placed_nodes', 0)} |",
        f"| nodes placed by the prediction, absent from the session (fused/eliminated by ORT) | {s['predicted_only_nodes']} |",
        f"| nodes only in the session (created / renamed by ORT) | {s['actual_only_nodes']} |",
        f"| Memcpy-node count exact | {s['memcpy_count_exact_models']} of {s['models_compared']} models "
        f"({pct(s['memcpy_count_exact_rate'])}) |",
        f"| Memcpy set (direction, tensor) exact | {s['memcpy_set_exact_models']} |",
        f"| models with Memcpy nodes: actual / predicted | {s['models_with_memcpy_actual']} / "
        f"{s['models_with_memcpy_predicted']} |",
    ]
    if s.get("table_only"):
        t = s["table_only"]
        lines += [
            f"| kernel table only (no observed corrections): node placement agrees | {t['nodes_agree']} of "
            f"{t['nodes_compared']} ({pct(t['node_agreement'])}) |",
            f"| kernel table only: Memcpy-node count exact | {t['memcpy_count_exact_models']} "
            f"({pct(t['memcpy_count_exact_rate'])}) |",
        ]
    lines.append("")
    dis = [(r["model"], d) for r in records if r["status"] == "compared" for d in r["disagreements"]]
    by_op = collections.Counter((d.get("op"), d.get("predicted"), d.get("actual")) for _, d in dis)
    if by_op:
        lines += ["## Placement disagreements by op", "", "| op | predicted | actual | nodes |", "|---|---|---|---|"]
        lines += [f"| {op} | {p} | {a} | {n} |" for (op, p, a), n in by_op.most_common()]
        lines += ["", "## Every placement disagreement", "",
                  "| model | node | op | opset | input types | predicted | actual | predicted reason |",
                  "|---|---|---|---|---|---|---|---|"]
        for model, d in dis:
            types = ", ".join(str(t) for t in d.get("input_types", []))
            reason = (d.get("reason") or [None, ""])[1] or (d.get("reason") or [""])[0] or ""
            lines.append(f"| {model} | {d['node']} | {d.get('op')} | {d.get('opset')} | {types} | {d['predicted']} | "
                         f"{d['actual']} | {str(reason)[:160].replace('|', '/')} |")
        lines.append("")
    memcpy = [r for r in records if r["status"] == "compared" and not r["memcpy_count_exact"]]
    if memcpy:
        lines += ["## Memcpy-count disagreements", "", "| model | predicted | actual |", "|---|---|---|"]
        for r in memcpy:
            fmt = lambda ms: "; ".join(f"{'ToHost' if op == 'MemcpyToHost' else 'FromHost'} {t}" for op, t in ms) or "none"  # noqa: E731
            lines.append(f"| {r['model']} | {fmt(r['memcpy_predicted'])} | {fmt(r['memcpy_actual'])} |")
        lines.append("")
    other = [r for r in records if r["status"] != "compared"]
    if other:
        lines += ["## Not compared", "", "| model | status | error |", "|---|---|---|"]
        lines += [f"| {r['model']} | {r['status']} | {str(r.get('error', ''))[:200].replace('|', '/')} |" for r in other]
        lines.append("")
    return "\n".join(lines)


def _gpu() -> str:
    try:
        out = subprocess.run(["nvidia-smi", "--query-gpu=name,driver_version", "--format=csv,noheader"],
                             capture_output=True, text=True, timeout=20, check=False).stdout.strip()
        return out.splitlines()[0] if out else ""
    except (OSError, subprocess.TimeoutExpired):
        return ""


def main(argv: list[str] | None = None) -> int:
    argv = list(sys.argv[1:] if argv is None else argv)
    if argv and argv[0] == "_worker":
        worker(Path(argv[1]), Path(argv[2]), argv[3], argv[4].split(","), argv[5])
        return 0
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--tar", type=Path, help="tarball of model.onnx files (tools/backend_suite.py pack)")
    parser.add_argument("--models-dir", type=Path, help="a folder of .onnx models instead")
    parser.add_argument("--cache", type=Path, help="backend_suite cache folder (default: its default)")
    parser.add_argument("--out", type=Path, default=Path(os.environ.get("OUT", "accuracy-out")))
    parser.add_argument("--dry-run", action="store_true",
                        help="no GPU: predict for CPU and compare with a CPU session (checks the harness itself)")
    parser.add_argument("--jobs", type=int, default=max(1, min(4, (os.cpu_count() or 2) // 2)))
    parser.add_argument("--chunk", type=int, default=100, help="models per worker process")
    parser.add_argument("--timeout", type=float, default=60.0, help="seconds per model")
    parser.add_argument("--opt-level", choices=["all", "extended", "basic", "disable"], default="all",
                        help="ORT graph optimisation level of the real session (check uses all; disable compares the "
                             "graph as written, node for node)")
    parser.add_argument("--limit", type=int)
    parser.add_argument("--every", type=int, default=1)
    parser.add_argument("--match", help="regex on model names")
    parser.add_argument("--replay", type=Path, metavar="ACCURACY_JSON",
                        help="no session: re-predict the models of a recorded run (with --tar) and compare with it")
    parser.add_argument("--no-corrections", action="store_true", help="with --replay: the kernel table alone")
    args = parser.parse_args(argv)
    if args.replay:
        if not args.tar:
            parser.error("--replay needs --tar (the models of the recorded run)")
        result = replay(args.replay, args.tar, corrections=not args.no_corrections)
        args.out.mkdir(parents=True, exist_ok=True)
        (args.out / "replay.json").write_text(json.dumps(result, indent=1), encoding="utf-8")
        md = markdown(result["summary"], result["models"], {**result["meta"], "seconds": 0})
        (args.out / "replay.md").write_text(md, encoding="utf-8")
        print("\n".join(md.splitlines()[:20]))
        return 0

    import concurrent.futures

    import onnx
    import onnxruntime as ort

    from ortcopy_doctor.collect.environment import ort_package

    args.provider_name = CPU if args.dry_run else CUDA
    session_providers = [CPU] if args.dry_run else [CUDA, CPU]
    args.out.mkdir(parents=True, exist_ok=True)
    start = time.perf_counter()
    with tempfile.TemporaryDirectory(prefix="accuracy-") as tmp:
        scratch = Path(tmp)
        models = corpus(args, scratch)
        chunks = [models[i:i + args.chunk] for i in range(0, len(models), args.chunk)]
        records: list[dict[str, Any]] = []
        with concurrent.futures.ThreadPoolExecutor(max_workers=max(1, args.jobs)) as pool:
            futures = [pool.submit(_run_chunk, c, i, scratch, args, session_providers) for i, c in enumerate(chunks)]
            for fut in concurrent.futures.as_completed(futures):
                records.extend(fut.result())
                print(f"{len(records)}/{len(models)} models", file=sys.stderr, flush=True)
    records.sort(key=lambda r: r["model"])
    meta = {
        "provider": args.provider_name, "session_providers": session_providers, "dry_run": args.dry_run,
        "opt_level": args.opt_level,
        "ort_version": ort.__version__, "ort_package": ort_package(), "onnx_version": onnx.__version__,
        "gpu": "" if args.dry_run else _gpu(), "python": platform.python_version(),
        "corpus": str(args.tar or args.models_dir or "backend_suite cache"), "seconds": round(time.perf_counter() - start, 1),
    }
    summary = summarise(records)
    (args.out / "accuracy.json").write_text(json.dumps({"meta": meta, "summary": summary, "models": records},
                                                       indent=1, ensure_ascii=False), encoding="utf-8")
    md = markdown(summary, records, meta)
    (args.out / "accuracy.md").write_text(md, encoding="utf-8")
    print("\n".join(md.splitlines()[:18]))
    return 0


if __name__ == "__main__":
    sys.exit(main())
