"""Record `ortcopy-doctor audit` on a GPU machine (issue 37): `python3 tools/record_audit.py CORPUS OUT_DIR`.

CORPUS is the real-model corpus exported by tools/export_corpus.py (NAME.onnx + NAME.json sidecars). The manifest
gets every exported model with its sidecar's sizes and inputs, plus two rows on one of them with a custom-op library
that segfaults and one that never returns (built here with cc). Then, on GPU 0:

1. the measured audit (`--gpus 0`), with a process holding GPU 0 for its first seconds (the rows' `gpu_busy`);
2. the same rows as static predictions, unsharded, then as shards 1/2 and 2/2, merged (`audit merge`);
3. the merged static audit gated against the unsharded one (`--baseline`).

Writes OUT_DIR/audit_h200.json.gz: {format, ort_version, commands with their exit codes and wall times, the rows of
each audit, the gate's output}; tests/cli/test_audit_fixture.py replays it.
"""

from __future__ import annotations

import gzip
import json
import os
import shutil
import signal
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
FAST = ["--measure-budget", "1", "--no-measure-providers"]  # the audit's time on a lent GPU is short


def _manifest(corpus: Path, folder: Path) -> Path:
    lines = ['[defaults]\nproviders = ["cuda"]\ntimeout = 60\n']
    sides = json.loads((corpus / "corpus.json").read_text(encoding="utf-8"))["models"]
    for side in sides:
        if side.get("failed") or not (corpus / f"{side['name']}.onnx").exists():
            continue
        lines.append(f'[[model]]\npath = "{corpus / side["name"]}.onnx"\nname = "{side["name"]}"')
        if side.get("dims"):
            lines.append("dims = { " + ", ".join(f'"{k}" = {int(v)}' for k, v in side["dims"].items()) + " }")
        if side.get("shapes"):
            lines.append("shapes = { " + ", ".join(f'"{k}" = {list(v)}' for k, v in side["shapes"].items()) + " }")
        if side.get("inputs"):
            lines.append(f'inputs = "{corpus / side["inputs"]}"')
    cc = shutil.which("cc") or shutil.which("gcc")
    if cc:
        for name, body in (("crash", "volatile int* p = 0; *p = 1; return 0;"), ("hang", "for (;;) {} return 0;")):
            source = folder / f"{name}.c"
            source.write_text(f"void* RegisterCustomOps(void* o, const void* a) {{ {body} }}\n", encoding="utf-8")
            subprocess.run([cc, "-shared", "-fPIC", "-o", str(folder / f"lib{name}.so"), str(source)], check=True)
            lines.append(f'[[model]]\npath = "{corpus / "resnet18.onnx"}"\nname = "custom_op_{name}"\n'
                         f'custom_op_library = ["{folder / f"lib{name}.so"}"]\ntimeout = 20')
    path = folder / "zoo.toml"
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    return path


def _audit(args: list[str], log: list[dict[str, Any]], timeout: float = 360) -> int:
    """One audit; past ``timeout`` it gets Ctrl-C (SIGINT), as a person would send it: the rows done are kept."""
    env = dict(os.environ, PYTHONPATH=os.pathsep.join([str(ROOT), os.environ.get("PYTHONPATH", "")]))
    start = time.monotonic()
    proc = subprocess.Popen([sys.executable, "-m", "ortcopy_doctor", "audit", *args], env=env, cwd=ROOT,
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    try:
        stdout, stderr = proc.communicate(timeout=timeout)
    except subprocess.TimeoutExpired:
        proc.send_signal(signal.SIGINT)
        stdout, stderr = proc.communicate()
    log.append({"args": args, "returncode": proc.returncode, "seconds": round(time.monotonic() - start, 2),
                "stdout": stdout[-6000:], "stderr": stderr[-3000:]})
    print(f"audit {' '.join(args)}: exit {proc.returncode} in {log[-1]['seconds']} s\n{stdout[:1500]}{stderr[-500:]}",
          flush=True)
    return proc.returncode if proc.returncode is not None else -1


def _rows(folder: Path) -> list[dict[str, Any]]:
    path = folder / "audit.jsonl"
    return [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines()] if path.exists() else []


def _hold_gpu(seconds: float) -> subprocess.Popen[bytes]:
    """Another process on GPU 0 (torch), for the busy check."""
    code = (f"import time, torch; x = torch.ones(1 << 28, device='cuda'); torch.cuda.synchronize(); "
            f"time.sleep({seconds})")
    return subprocess.Popen([sys.executable, "-c", code])


def main() -> int:
    corpus, out = Path(sys.argv[1]), Path(sys.argv[2])
    which = sys.argv[3] if len(sys.argv) > 3 else "all"
    work = Path("/tmp/audit-record")
    for folder in ("measured", "static", "shard1", "shard2", "merged") if which == "all" else (
            ("measured",) if which == "measured" else ("static", "shard1", "shard2", "merged")):
        shutil.rmtree(work / folder, ignore_errors=True)
    work.mkdir(parents=True, exist_ok=True)
    manifest = _manifest(corpus, work)
    log: list[dict[str, Any]] = []
    result: dict[str, Any] = {"format": "ortcopy-doctor-audit-fixture", "format_version": 1}
    import onnxruntime

    result["ort_version"] = onnxruntime.__version__
    if which in ("all", "measured"):
        holder = _hold_gpu(25)
        time.sleep(8)  # the holder has its memory on GPU 0 before the first row looks
        _audit([str(manifest), "--out", str(work / "measured"), "--gpus", "0", "--check-args", " ".join(FAST)], log)
        holder.kill()
        result["measured"] = _rows(work / "measured")
    if which in ("all", "static"):
        static = ["--check-args", "--static", "--gpus", "0"]
        _audit([str(manifest), "--out", str(work / "static"), *static], log)
        for index in (1, 2):
            _audit([str(manifest), "--out", str(work / f"shard{index}"), "--shard", f"{index}/2", *static], log)
        _audit(["merge", str(work / "shard1"), str(work / "shard2" / "audit.jsonl"), "--out", str(work / "merged"),
                "--baseline", str(work / "static")], log)
        result.update({k: _rows(work / k) for k in ("static", "shard1", "shard2", "merged")})
    result["commands"] = log
    out.mkdir(parents=True, exist_ok=True)
    with gzip.open(out / f"audit_h200_{which}.json.gz", "wt", encoding="utf-8") as f:
        json.dump(result, f, separators=(",", ":"))
    return 0


if __name__ == "__main__":
    sys.exit(main())
