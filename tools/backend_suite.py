"""The ONNX backend node test suite as a robustness corpus for ``ortcopy-doctor check``.

The onnx 1.22.0 wheel ships ``onnx/backend/test/data/node/<test>/model.onnx`` with ``test_data_set_0``
inputs for 1,765 single-op models; later wheels no longer do. This script fetches that wheel from the
package index into a cache (``pip download``; only data is used, so any platform's wheel will do),
extracts the node tests, and:

* ``tally``: runs ``python -m ortcopy_doctor check`` on every model (a subprocess each, with a time
  limit) and counts: reported (exit 0/1), refused with a reason (exit 2/3, grouped by the first words
  of the ``error:`` line), tracebacks (a "Traceback" in the output, or exit 4) and hangs (time limit).
* ``pack OUT.tar.gz``: packs only the ``model.onnx`` files (for the GPU accuracy harness).
* ``extract``: fetch and extract only (prints the folder).

    python tools/backend_suite.py tally [--provider cpu|cuda|default] [--jobs N] [--limit N] [--every K]
                                        [--stratified] [--timeout 60] [--out DIR]

Library use: ``iter_node_models()`` yields ``NodeModel(name, model_path, inputs_npz)``; ``inputs_npz``
is written on first use from ``test_data_set_0/input_*.pb`` (tensor inputs only: sequences, maps and
optionals are left out, so the tool synthesizes them or refuses with a reason).
"""

from __future__ import annotations

import argparse
import concurrent.futures
import glob
import json
import os
import re
import shutil
import subprocess
import sys
import tarfile
import tempfile
import threading
import time
import zipfile
from collections import Counter
from collections.abc import Iterator
from dataclasses import asdict, dataclass, field
from pathlib import Path

ONNX_VERSION = "1.22.0"
REPO = Path(__file__).resolve().parents[1]
DEFAULT_CACHE = Path(os.environ.get("ORTCOPY_BACKEND_CACHE",
                                    Path.home() / ".cache" / "ortcopy-doctor" / f"onnx-{ONNX_VERSION}"))
_NODE_PREFIX = "onnx/backend/test/data/node/"
_STAMP = ".extracted"


@dataclass
class NodeModel:
    name: str  # the test folder, e.g. "test_abs"
    dir: Path

    @property
    def model_path(self) -> Path:
        return self.dir / "model.onnx"

    def input_pbs(self) -> list[Path]:
        data = self.dir / "test_data_set_0"
        return sorted(data.glob("input_*.pb"), key=lambda p: int(re.sub(r"\D", "", p.stem) or 0))

    def inputs_npz(self, out_dir: Path | None = None) -> Path | None:
        """An .npz of the tensor inputs of test_data_set_0 (None when there are none)."""
        return inputs_npz(self, out_dir)


# --- fetching and extracting ------------------------------------------------------------------------------


def find_wheel(cache: Path) -> Path | None:
    wheels = sorted(glob.glob(str(cache / f"onnx-{ONNX_VERSION}-*.whl")))
    return Path(wheels[0]) if wheels else None


def fetch_wheel(cache: Path = DEFAULT_CACHE) -> Path:
    """The onnx 1.22.0 wheel in ``cache``, downloaded with pip if absent."""
    cache.mkdir(parents=True, exist_ok=True)
    wheel = find_wheel(cache)
    if wheel:
        return wheel
    base = [sys.executable, "-m", "pip", "download", f"onnx=={ONNX_VERSION}", "--no-deps", "--only-binary=:all:",
            "-d", str(cache), "-q"]
    attempts = [base,  # the local platform first; any platform's wheel holds the same data
                base + ["--platform", "manylinux_2_17_x86_64", "--python-version", "3.11"]]
    errors = []
    for cmd in attempts:
        proc = subprocess.run(cmd, capture_output=True, text=True, check=False)
        wheel = find_wheel(cache)
        if wheel:
            return wheel
        errors.append(proc.stderr.strip().splitlines()[-1:] or ["?"])
    raise SystemExit(f"could not download onnx=={ONNX_VERSION}: {errors}")


def node_root(cache: Path = DEFAULT_CACHE) -> Path:
    """The extracted ``node`` folder (extracting it on first use). Several processes may ask at once (pytest-xdist
    workers): the first fetches and extracts under a lock file, the others wait for it."""
    root = cache / "node"
    if (cache / _STAMP).is_file() and root.is_dir():
        return root
    import fcntl

    cache.mkdir(parents=True, exist_ok=True)
    with open(cache / ".lock", "w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        if (cache / _STAMP).is_file() and root.is_dir():
            return root  # extracted by another process while this one waited
        return _extract(cache, root)


def _extract(cache: Path, root: Path) -> Path:
    wheel = fetch_wheel(cache)
    tmp = Path(tempfile.mkdtemp(prefix="node-", dir=cache))
    with zipfile.ZipFile(wheel) as z:
        for info in z.infolist():
            if not info.filename.startswith(_NODE_PREFIX) or info.is_dir():
                continue
            rel = info.filename[len(_NODE_PREFIX):]
            target = tmp / rel
            target.parent.mkdir(parents=True, exist_ok=True)
            with z.open(info) as src, target.open("wb") as dst:
                shutil.copyfileobj(src, dst)
    if root.exists():
        shutil.rmtree(root)
    tmp.rename(root)
    (cache / _STAMP).write_text(wheel.name + "\n")
    return root


def iter_node_models(cache: Path = DEFAULT_CACHE, root: Path | None = None) -> Iterator[NodeModel]:
    """Every node test that has a model.onnx, sorted by name."""
    root = root or node_root(cache)
    for d in sorted(p for p in root.iterdir() if p.is_dir()):
        if (d / "model.onnx").is_file():
            yield NodeModel(d.name, d)


def select(models: list[NodeModel], every: int = 1, limit: int | None = None, names: list[str] | None = None,
           pattern: str | None = None) -> list[NodeModel]:
    if names:
        wanted = set(names)
        models = [m for m in models if m.name in wanted]
    if pattern:
        rx = re.compile(pattern)
        models = [m for m in models if rx.search(m.name)]
    models = models[::max(1, every)]
    return models[:limit] if limit else models


def op_types(model: NodeModel) -> frozenset[tuple[str, str]]:
    """``(domain, op_type)`` of every node of the model, subgraphs (If/Loop/Scan bodies) included."""
    import onnx

    found: set[tuple[str, str]] = set()

    def walk(graph) -> None:
        for node in graph.node:
            found.add((node.domain or "ai.onnx", node.op_type))
            for attr in node.attribute:
                if attr.type == onnx.AttributeProto.GRAPH:
                    walk(attr.g)
                for sub in attr.graphs:
                    walk(sub)

    walk(onnx.load(str(model.model_path), load_external_data=False).graph)
    return frozenset(found)


def stratified_sample(models: list[NodeModel]) -> list[NodeModel]:
    """A deterministic sample with one stratum per op type: for each ``(domain, op_type)`` in sorted order
    not yet covered, the model holding it with the fewest distinct op types (then the first by name), so that
    the plain single-op model is preferred to a function's expansion. Together the sample holds every op
    type of ``models`` (about 200 of the 1,765 node models); sorted by name."""
    ops = {m.name: op_types(m) for m in models}
    by_name = {m.name: m for m in models}
    covered: set[tuple[str, str]] = set()
    chosen: set[str] = set()
    for op in sorted(set().union(*ops.values())) if ops else []:
        if op in covered:
            continue
        best = min((len(o), name) for name, o in ops.items() if op in o)[1]
        chosen.add(best)
        covered |= ops[best]
    return [by_name[name] for name in sorted(chosen)]


# --- inputs -------------------------------------------------------------------------------------------------


_NPZ_DTYPES = {"bool", "int8", "int16", "int32", "int64", "uint8", "uint16", "uint32", "uint64", "float16", "float32",
               "float64", "complex64", "complex128"}


def _read_input(path: Path, kind: str):  # -> np.ndarray | None
    """The array in one input_N.pb, for a graph input of ``kind`` ("tensor_type", "optional_type", ...);
    None for what an .npz cannot hold (sequences, maps, empty optionals, ml_dtypes element types)."""
    import onnx
    from onnx import numpy_helper

    data = path.read_bytes()
    try:
        if kind == "tensor_type":
            tensor = onnx.TensorProto()
            tensor.ParseFromString(data)
        elif kind == "optional_type":
            optional = onnx.OptionalProto()
            optional.ParseFromString(data)
            if optional.elem_type != onnx.OptionalProto.TENSOR or not optional.HasField("tensor_value"):
                return None
            tensor = optional.tensor_value
        else:
            return None
        if tensor.data_type == onnx.TensorProto.UNDEFINED:
            return None
        array = numpy_helper.to_array(tensor)
    except Exception:  # noqa: BLE001 - unreadable: left out, the tool synthesizes or refuses
        return None
    # bfloat16, float8, int4 ... come back as ml_dtypes types, which np.load cannot read without
    # pickle: leave them out (the tool then synthesizes the input or says why it cannot)
    return array if array.dtype.name in _NPZ_DTYPES or array.dtype.kind in ("U", "S", "O") else None


def graph_inputs(model_path: Path) -> list[tuple[str, str]]:
    """(name, type kind) of the graph inputs that are not initializers, in order."""
    import onnx

    model = onnx.load(str(model_path), load_external_data=False)
    inits = {t.name for t in model.graph.initializer}
    return [(i.name, i.type.WhichOneof("value") or "") for i in model.graph.input if i.name not in inits]


def inputs_npz(model: NodeModel, out_dir: Path | None = None) -> Path | None:
    import numpy as np

    out = (out_dir or model.dir) / "inputs.npz"
    if out.is_file():
        return out
    inputs = graph_inputs(model.model_path)
    arrays = {}
    for i, pb in enumerate(model.input_pbs()):
        if i >= len(inputs):
            break
        array = _read_input(pb, inputs[i][1])
        if array is None:
            continue
        if array.dtype.kind in ("U", "S"):
            array = array.astype(object)
        if array.dtype == object:
            # npz without pickle cannot hold object arrays: store strings as a unicode array
            array = np.asarray([str(x.decode() if isinstance(x, bytes) else x) for x in array.ravel()],
                               dtype=str).reshape(array.shape)
        arrays[inputs[i][0]] = array
    if not arrays:
        return None
    # a name of its own per process and thread: pytest-xdist workers may write the same model's inputs at once
    tmp = out.with_name(f"inputs.{os.getpid()}.{threading.get_ident()}.tmp.npz")
    np.savez(tmp, **arrays)
    os.replace(tmp, out)
    return out


# --- the tally ----------------------------------------------------------------------------------------------


@dataclass
class Outcome:
    name: str
    kind: str  # reported | refused | traceback | hang
    exit_code: int | None
    seconds: float
    reason: str = ""  # the error line for refused/traceback; verdict-ish for reported
    detail: str = ""  # output tail for tracebacks


@dataclass
class Tally:
    provider: str
    models: int = 0
    seconds: float = 0.0
    jobs: int = 1
    counts: dict[str, int] = field(default_factory=dict)
    exit_codes: dict[str, int] = field(default_factory=dict)
    refused_by_reason: dict[str, int] = field(default_factory=dict)
    ep_inactive_findings: int = 0
    outcomes: list[Outcome] = field(default_factory=list)


_PROVIDER_ARGS = {"cpu": ["--provider", "cpu"], "cuda": ["--provider", "cuda"], "default": []}

# numbers, names in quotes and paths vary per model: normalise them to group refusals by reason
_NORMALISE = [
    (re.compile(r"'[^']*'"), "'…'"),
    (re.compile(r"\"[^\"]*\""), "\"…\""),
    (re.compile(r"\S*model\.onnx\S*"), "MODEL"),
    (re.compile(r"\d+"), "N"),
]


def reason_key(line: str, words: int = 8) -> str:
    text = line.removeprefix("error:").strip()
    for rx, repl in _NORMALISE:
        text = rx.sub(repl, text)
    text = text.split(":")[0] if text.count(":") and len(text.split(":")[0].split()) >= 3 else text
    return " ".join(text.split()[:words])


def _schema_errors(data: object) -> list[str]:
    """Validation errors of a report against the shipped JSON Schema ([] where jsonschema is not installed)."""
    try:
        from ortcopy_doctor.model.schema import validation_errors
    except ImportError:
        return []
    return list(validation_errors(data))


def run_one(model: NodeModel, provider: str, timeout: float, work: Path, fail_on: str = "never",
            python: str = sys.executable) -> Outcome:
    npz = inputs_npz(model)
    out_json = work / f"{model.name}.json"
    cmd = [python, "-m", "ortcopy_doctor", "check", str(model.model_path), "--no-html", "--json", str(out_json),
           "--runs", "1", "--warmup", "0", "--timed-runs", "1", "--fail-on", fail_on, *_PROVIDER_ARGS[provider]]
    if npz is not None:
        cmd[4:4] = ["--inputs", str(npz)]
    env = dict(os.environ)
    env["PYTHONPATH"] = os.pathsep.join([str(REPO)] + ([env["PYTHONPATH"]] if env.get("PYTHONPATH") else []))
    env.pop("ORTCOPY_DOCTOR_DEBUG", None)
    env.setdefault("OMP_NUM_THREADS", "1")
    start = time.perf_counter()
    try:
        proc = subprocess.run(cmd, capture_output=True, text=True, timeout=timeout, env=env, check=False,
                              stdin=subprocess.DEVNULL)
    except subprocess.TimeoutExpired:
        return Outcome(model.name, "hang", None, time.perf_counter() - start, reason=f"over {timeout:g} s")
    seconds = time.perf_counter() - start
    text = proc.stdout + proc.stderr
    errors = [line for line in proc.stderr.splitlines() if line.startswith("error:")]
    try:
        if proc.returncode in (0, 1) and out_json.is_file():
            data = json.loads(out_json.read_text(encoding="utf-8"))
            verdict = data.get("verdict", "")
            slugs = sorted({f.get("slug", "") for f in data.get("findings", [])})
            schema_errors = _schema_errors(data)
            if schema_errors:  # every JSON the tool writes must validate against the shipped schema
                return Outcome(model.name, "traceback", proc.returncode, time.perf_counter() - start,
                               reason="JSON report does not validate: " + schema_errors[0], detail=text[-3000:])
        else:
            verdict, slugs = "", []
    except (OSError, ValueError):
        verdict, slugs = "", []
    finally:
        try:
            out_json.unlink()
        except OSError:
            pass
    if "Traceback" in text or proc.returncode == 4 or proc.returncode < 0:
        return Outcome(model.name, "traceback", proc.returncode, seconds, reason=(errors or ["?"])[0],
                       detail=text[-3000:])
    if proc.returncode in (0, 1):
        if not verdict:
            return Outcome(model.name, "traceback", proc.returncode, seconds,
                           reason="exit 0/1 without a JSON report", detail=text[-3000:])
        return Outcome(model.name, "reported", proc.returncode, seconds, reason=",".join(slugs))
    if proc.returncode in (2, 3):
        one_line = len(errors) == 1 and len(proc.stderr.strip().splitlines()) == 1
        reason = errors[0] if errors else proc.stderr.strip()[:300]
        if not one_line:
            return Outcome(model.name, "traceback", proc.returncode, seconds,
                           reason="refusal without exactly one 'error:' line", detail=text[-3000:])
        return Outcome(model.name, "refused", proc.returncode, seconds, reason=reason)
    return Outcome(model.name, "traceback", proc.returncode, seconds, reason=f"unexpected exit {proc.returncode}",
                   detail=text[-3000:])


def tally(models: list[NodeModel], provider: str = "cpu", jobs: int = 2, timeout: float = 60.0,
          fail_on: str = "never", progress: bool = False) -> Tally:
    result = Tally(provider=provider, models=len(models), jobs=jobs)
    start = time.perf_counter()
    with tempfile.TemporaryDirectory(prefix="backend-suite-") as tmp:
        work = Path(tmp)
        with concurrent.futures.ThreadPoolExecutor(max_workers=max(1, jobs)) as pool:
            futures = [pool.submit(run_one, m, provider, timeout, work, fail_on) for m in models]
            for i, fut in enumerate(concurrent.futures.as_completed(futures), 1):
                outcome = fut.result()
                result.outcomes.append(outcome)
                if progress and (i % 50 == 0 or outcome.kind in ("traceback", "hang")):
                    print(f"[{i}/{len(models)}] {outcome.name}: {outcome.kind} {outcome.reason[:160]}",
                          file=sys.stderr, flush=True)
    result.seconds = round(time.perf_counter() - start, 1)
    result.outcomes.sort(key=lambda o: o.name)
    result.counts = dict(Counter(o.kind for o in result.outcomes))
    result.exit_codes = {str(k): v for k, v in sorted(Counter(o.exit_code for o in result.outcomes).items(),
                                                        key=lambda kv: (kv[0] is None, kv[0] or 0))}
    result.refused_by_reason = dict(Counter(reason_key(o.reason) for o in result.outcomes
                                            if o.kind == "refused").most_common())
    result.ep_inactive_findings = sum(1 for o in result.outcomes if "ep-not-active" in o.reason.split(","))
    return result


def to_markdown(t: Tally, examples: int = 3) -> str:
    c = t.counts
    lines = [f"### provider: {t.provider}", "",
             f"{t.models} models, {t.seconds:.0f} s with {t.jobs} jobs ({t.seconds / max(1, t.models):.2f} s/model)",
             "",
             "| outcome | models |", "|---|---|"]
    for kind in ("reported", "refused", "traceback", "hang"):
        lines.append(f"| {kind} | {c.get(kind, 0)} |")
    lines += ["", f"exit codes: {', '.join(f'{k}: {v}' for k, v in t.exit_codes.items())}"]
    if t.provider != "cpu":
        lines.append(f"reports with the ep-not-active finding: {t.ep_inactive_findings}")
    if t.refused_by_reason:
        lines += ["", "| refused: reason (normalised first words) | models | e.g. |", "|---|---|---|"]
        for reason, n in t.refused_by_reason.items():
            names = [o.name for o in t.outcomes if o.kind == "refused" and reason_key(o.reason) == reason]
            lines.append(f"| {reason.replace('|', '/')} | {n} | {', '.join(names[:examples])} |")
    bad = [o for o in t.outcomes if o.kind in ("traceback", "hang")]
    if bad:
        lines += ["", "| traceback / hang | exit | reason |", "|---|---|---|"]
        for o in bad:
            lines.append(f"| {o.name} | {o.exit_code} | {o.reason[:200].replace('|', '/')} |")
    return "\n".join(lines) + "\n"


# --- pack for the GPU machine -------------------------------------------------------------------------------


def pack(out: Path, cache: Path = DEFAULT_CACHE) -> Path:
    """A .tar.gz of ``node/<test>/model.onnx`` for every node test (no test data)."""
    out.parent.mkdir(parents=True, exist_ok=True)
    tmp = out.with_name(out.name + ".tmp")
    with tarfile.open(tmp, "w:gz", compresslevel=9) as tar:
        for m in iter_node_models(cache):
            tar.add(m.model_path, arcname=f"node/{m.name}/model.onnx")
    os.replace(tmp, out)
    return out


# --- CLI ----------------------------------------------------------------------------------------------------


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--cache", type=Path, default=DEFAULT_CACHE, help="cache folder for the wheel and data")
    sub = parser.add_subparsers(dest="command", required=True)
    t = sub.add_parser("tally", help="run check over the suite and tally the outcomes")
    t.add_argument("--provider", choices=sorted(_PROVIDER_ARGS), default="cpu",
                   help="cpu: --provider cpu; cuda: --provider cuda; default: no --provider (cuda then cpu)")
    t.add_argument("--jobs", type=int, default=2)
    t.add_argument("--limit", type=int, default=None)
    t.add_argument("--every", type=int, default=1, help="take every K-th model (deterministic sample)")
    t.add_argument("--stratified", action="store_true",
                   help="one model per op type (the sample `make test` checks; see stratified_sample)")
    t.add_argument("--match", default=None, help="regex on test names")
    t.add_argument("--timeout", type=float, default=60.0, help="per-model time limit in seconds")
    t.add_argument("--fail-on", default=None, help="--fail-on for check (default: never for cpu, error otherwise)")
    t.add_argument("--out", type=Path, default=Path("backend-tally"), help="folder for tally-<provider>.json/.md")
    p = sub.add_parser("pack", help="pack every model.onnx of the suite into a .tar.gz")
    p.add_argument("out", type=Path)
    sub.add_parser("extract", help="fetch and extract the node tests; print the folder")
    args = parser.parse_args(argv)

    if args.command == "extract":
        print(node_root(args.cache))
        return 0
    if args.command == "pack":
        out = pack(args.out, args.cache)
        print(f"{out}: {out.stat().st_size / 2**20:.1f} MiB")
        return 0
    models = select(list(iter_node_models(args.cache)), every=args.every, limit=args.limit, pattern=args.match)
    if args.stratified:
        models = stratified_sample(models)
    fail_on = args.fail_on or ("never" if args.provider == "cpu" else "error")
    result = tally(models, args.provider, jobs=args.jobs, timeout=args.timeout, fail_on=fail_on, progress=True)
    args.out.mkdir(parents=True, exist_ok=True)
    stem = args.out / f"tally-{args.provider}"
    stem.with_suffix(".json").write_text(json.dumps(asdict(result), indent=1, ensure_ascii=False), encoding="utf-8")
    md = to_markdown(result)
    stem.with_suffix(".md").write_text(md, encoding="utf-8")
    print(md)
    bad = result.counts.get("traceback", 0) + result.counts.get("hang", 0)
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
