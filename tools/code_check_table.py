"""What running every generated code block next to plain run() gave, per model, from report JSONs.

    python tools/code_check_table.py FILE_OR_FOLDER... [--json OUT.json]

Reads `check --json` reports (``*.json``, ``*.json.gz``), corpus records of tools/record_corpus.py (their ``report``)
and tar archives of either (``*.tar.gz``); prints a Markdown table: model, where the code ran (the session's
provider), each block's check (``evidence.code_checks``, or ``evidence.predicted.code_checks`` for a CPU machine's
prediction): matched, differs, failed or not run, with the detail of any that did not match; the state pairs the
plan carries and on what basis; the recommended variant. ``--json`` writes the same rows as JSON.
"""

from __future__ import annotations

import argparse
import gzip
import json
import sys
import tarfile
from collections.abc import Iterator
from pathlib import Path

BLOCKS = ("plan", "plan_torch", "plan_cupy", "all_device", "cuda_graph")


def _reports(path: Path) -> Iterator[tuple[str, dict]]:
    if path.is_dir():
        for child in sorted(path.rglob("*")):
            if child.is_file() and child.name.endswith((".json", ".json.gz", ".tar.gz")):
                yield from _reports(child)
        return
    if path.name.endswith(".tar.gz"):
        with tarfile.open(path) as tar:
            for member in tar.getmembers():
                if member.isfile() and member.name.endswith((".json", ".json.gz")):
                    raw = tar.extractfile(member).read()  # type: ignore[union-attr]
                    yield from _parsed(member.name, raw)
        return
    yield from _parsed(path.name, path.read_bytes())


def _parsed(name: str, raw: bytes) -> Iterator[tuple[str, dict]]:
    if name.endswith(".gz"):
        raw = gzip.decompress(raw)
    try:
        data = json.loads(raw)
    except ValueError:
        return
    if isinstance(data, dict) and isinstance(data.get("report"), dict):  # a corpus or binding record
        data = data["report"]
    if isinstance(data, dict) and data.get("format") == "ortcopy-doctor-report":
        yield name.split("/")[-1].removesuffix(".gz").removesuffix(".json"), data


def row(name: str, report: dict) -> dict:
    """The table's row of one report."""
    evidence = report["evidence"]
    checks = evidence.get("code_checks") or (evidence.get("predicted") or {}).get("code_checks") or []
    binding = report["binding"] if report["binding"].get("applicable") else (
        (report.get("prediction") or {}).get("binding") or report["binding"])
    pairs = [f"{e['name']}<-{e['state_pair']} ({e.get('state_basis', '')})" for e in binding.get("entries", [])
             if e.get("role") == "input" and e.get("state_pair")]
    advice = report.get("advice") or {}
    return {
        "model": name,
        "provider": (evidence["session"].get("active_providers") or ["?"])[0],
        "checks": {c["block"]: {"status": c["status"], "device": c.get("device", ""), "calls": c.get("calls", 0),
                                "detail": c.get("detail", "")} for c in checks},
        "state": pairs,
        "possible_state": [f"{c['input']}<-{c['output']} ({c['basis']})" for c in binding.get("possible_state", [])],
        "recommended": advice.get("recommended", ""),
        "onnxruntime": evidence.get("environment", {}).get("ort_version", ""),
    }


def _cell(check: dict | None) -> str:
    if check is None:
        return "—"
    if check["status"] == "matched":
        return f"matched ({check['device']}, {check['calls']} calls)"
    return f"{check['status']}: {check['detail'][:120]}".replace("|", "\\|")


def main(argv: list[str] | None = None) -> int:
    """Print the table (and write --json)."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("paths", nargs="+", type=Path)
    parser.add_argument("--json", type=Path, default=None)
    args = parser.parse_args(argv)
    rows = [row(name, report) for path in args.paths for name, report in _reports(path)]
    print("| model | ran on | " + " | ".join(BLOCKS) + " | state carried | recommended |")
    print("|---|---|" + "---|" * len(BLOCKS) + "---|---|")
    for r in rows:
        state = "; ".join(r["state"] + [f"guess: {g}" for g in r["possible_state"]]) or "—"
        print(f"| {r['model']} | {r['provider'].replace('ExecutionProvider', '')} | "
              + " | ".join(_cell(r["checks"].get(b)) for b in BLOCKS) + f" | {state} | {r['recommended'] or '—'} |")
    bad = [r["model"] for r in rows for c in r["checks"].values() if c["status"] in ("differs", "failed")]
    print(f"\n{len(rows)} reports; {sum(len(r['checks']) for r in rows)} code blocks checked; "
          f"{sum(1 for r in rows for c in r['checks'].values() if c['status'] == 'matched')} matched; "
          f"did not match: {', '.join(sorted(set(bad))) or 'none'}", file=sys.stderr)
    if args.json is not None:
        args.json.write_text(json.dumps(rows, indent=1), encoding="utf-8")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
