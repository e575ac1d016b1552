"""Run `ortcopy-doctor check` with no flags over a folder of real models and print what each one got.

    python tools/real_corpus.py FOLDER [--out DIR] [--timeout SECONDS]

Every ``*.onnx`` under FOLDER (sorted by path) is checked as a first-time user would: ``check MODEL --json
DIR/<name>.json`` run in DIR, so the HTML report lands at its default path there; nothing else is given (no
``--dim``, ``--shape``, ``--value``, ``--provider``). The table (Markdown) says for each model the exit code,
whether a report was written (JSON and HTML, also where the check failed: then it holds the static prediction),
the sizes and values ``check`` chose and why (``evidence.assumed_dims[].reason``, ``evidence.feeds[].chosen``),
and the error line where there was one. docs/real-models.md holds its result on the real-model corpus of issue 36.
The models are never part of the repository.
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]


def _cell(text: str) -> str:
    return text.replace("|", "\\|").replace("\n", " ")


def _chosen(evidence: dict) -> list[str]:
    """"height=640, width=640: <why>" lines, one per distinct reason, then one per chosen value."""
    by_reason: dict[str, list[str]] = {}
    for dim in evidence.get("assumed_dims", []):
        if dim.get("reason"):
            name = dim["declared"] if dim["declared"] not in ("", "?") and not dim["declared"].lstrip("-").isdigit() \
                else f"{dim['input']}[{dim['axis']}]"
            tried = f" (after {', '.join(str(t) for t in dim['tried'])})" if dim.get("tried") else ""
            by_reason.setdefault(dim["reason"], []).append(f"{name}={dim['value']}{tried}")
    lines = [f"{', '.join(names)}: {reason}" for reason, names in by_reason.items()]
    lines += [f"{feed['name']}={feed['chosen']}" for feed in evidence.get("feeds", []) if feed.get("chosen")]
    return lines


def check_one(model: Path, out: Path, timeout: float) -> dict:
    """Run the check on ``model`` with no flags; what it gave."""
    name = f"{model.parent.name}_{model.stem}"
    json_path = out / f"{name}.json"
    html_path = out / f"{model.stem}.ortcopy.html"
    for path in (json_path, html_path):
        path.unlink(missing_ok=True)
    env = dict(os.environ)
    env["PYTHONPATH"] = os.pathsep.join([str(REPO)] + ([env["PYTHONPATH"]] if env.get("PYTHONPATH") else []))
    start = time.perf_counter()
    try:
        result = subprocess.run([sys.executable, "-m", "ortcopy_doctor", "check", str(model), "--json", str(json_path)],
                                cwd=out, env=env, capture_output=True, text=True, timeout=timeout, check=False)
        code, stdout, stderr = result.returncode, result.stdout, result.stderr
    except subprocess.TimeoutExpired:
        code, stdout, stderr = -1, "", f"timed out after {timeout:.0f} s"
    seconds = time.perf_counter() - start
    # the HTML of a model named like another's (two model.onnx) is overwritten: keep each under its own name
    if html_path.is_file():
        html_path.replace(out / f"{name}.html")
    (out / f"{name}.txt").write_text(stdout + stderr, encoding="utf-8")
    evidence: dict = {}
    gate: list[str] = []
    if json_path.is_file():
        data = json.loads(json_path.read_text(encoding="utf-8"))
        evidence = data.get("evidence", {})
        gate = sorted({f"{f['rule']} {f['slug']}" for f in data.get("findings", []) if f.get("severity") == "error"})
    error = next((line for line in stderr.splitlines() if line.startswith("error:")), "")
    return {"model": str(model), "name": name, "exit": code, "json": json_path.is_file(),
            "html": (out / f"{name}.html").is_file(), "chosen": _chosen(evidence), "gate": gate, "error": error,
            "seconds": seconds}


def table(rows: list[dict], root: Path) -> str:
    """The Markdown table of ``rows``."""
    lines = ["| model | exit | report | sizes and values chosen, and why | error findings, or the error line |",
             "|---|---:|---|---|---|"]
    for row in rows:
        report = " + ".join(kind for kind in ("JSON", "HTML") if row[kind.lower()]) or "none"
        chosen = "<br>".join(_cell(c) for c in row["chosen"]) or "none: every dynamic dim 1 (or none)"
        last = row["error"] or ", ".join(row["gate"]) or "none"
        shown = Path(row["model"]).relative_to(root) if Path(row["model"]).is_relative_to(root) else row["model"]
        lines.append(f"| {_cell(str(shown))} | {row['exit']} | {report} | {chosen} | {_cell(last[:200])}"
                     f"{'…' if len(last) > 200 else ''} |")
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> int:
    """Check every model under the folder and print the table; exit 0 (the table is the result)."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("folder", type=Path, help="folder of .onnx models (searched recursively)")
    parser.add_argument("--out", type=Path, default=None, help="where the reports go (default: a temporary folder)")
    parser.add_argument("--timeout", type=float, default=600.0, help="seconds per model at most")
    args = parser.parse_args(argv)
    models = sorted(p for p in args.folder.rglob("*.onnx") if p.is_file())
    if not models:
        print(f"no .onnx model under {args.folder}", file=sys.stderr)
        return 2
    out = args.out or Path(tempfile.mkdtemp(prefix="real-corpus-"))
    out.mkdir(parents=True, exist_ok=True)
    rows = []
    for model in models:
        row = check_one(model.resolve(), out.resolve(), args.timeout)
        print(f"{row['name']}: exit {row['exit']} in {row['seconds']:.1f} s", file=sys.stderr)
        rows.append(row)
    reported = sum(1 for r in rows if r["json"] and r["html"])
    print(table(rows, args.folder.resolve()))
    print(f"\n{reported} of {len(rows)} models got a report (JSON and HTML) with no flags; reports in {out}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
