"""Generate ortcopy_doctor/knowledge/data/kernels.json from ORT's OperatorKernels.md.

OperatorKernels.md is ORT's generated list of the kernels each execution provider registers
(op, domain, opset range, type constraints). We keep the CPU and CUDA sections as compact JSON so
that the predictor can ask "does the CUDA EP have a kernel for this node?" without onnxruntime.

Usage (from the repository root)::

    python tools/gen_kernel_table.py [--source tools/data/ort/OperatorKernels.md] [--out ortcopy_doctor/knowledge/data/kernels.json]

Output layout::

    {"source": {"file": ..., "commit": ..., "sha256": ...},
     "providers": {"CPUExecutionProvider": {"<domain>": {"<Op>": [
         {"since": 13, "until": null, "types": {"T": ["float32", ...]},
          "inputs": [["X", "T"], ...], "outputs": [["Y", "T"]]}, ...]}}, ...}}

An input/output's second element is a type-constraint name that is a key of "types", or else a
concrete type (e.g. "int64") that the op's schema fixes and the kernel does not constrain.
"""

from __future__ import annotations

import argparse
import hashlib
import json
import re
import sys
from pathlib import Path
from typing import Any

REPO = Path(__file__).resolve().parent.parent
DEFAULT_SOURCE = "tools/data/ort/OperatorKernels.md"
DEFAULT_OUT = "ortcopy_doctor/knowledge/data/kernels.json"
PROVIDERS = ("CPUExecutionProvider", "CUDAExecutionProvider")

# ORT's scalar type names -> the numpy-style names the rest of the project uses (model_info.elem_dtype).
_SCALAR = {"float": "float32", "double": "float64", "string": "str"}

_SECTION = re.compile(r"^## Operators implemented by (\w+)")
_DOMAIN = re.compile(r"^\|\*\*Operator Domain:\*\* \*([^*]+)\*\|")
_PARAM = re.compile(r"\*(in|out)\*\s*([^:]*):\*\*(.+?)\*\*")
_CONSTRAINT = re.compile(r"^\s*\*\*(.+?)\*\*\s*=\s*(.*)$")


def convert_type(ort_type: str) -> str:
    """``tensor(float)`` -> ``float32``; non-tensor types (seq, map, optional) keep ORT's spelling."""
    m = re.fullmatch(r"tensor\(([a-z0-9_]+)\)", ort_type.strip())
    if m:
        return _SCALAR.get(m.group(1), m.group(1))
    return ort_type.strip()


def split_top_level(text: str) -> list[str]:
    """Split on commas outside parentheses: ``map(int64,tensor(float)), tensor(int64)`` has two items."""
    items, depth, cur = [], 0, []
    for ch in text:
        if ch == "(":
            depth += 1
        elif ch == ")":
            depth -= 1
        if ch == "," and depth == 0:
            items.append("".join(cur).strip())
            cur = []
        else:
            cur.append(ch)
    if "".join(cur).strip():
        items.append("".join(cur).strip())
    return items


def parse_opset(cell: str) -> tuple[int, int | None]:
    """``13+`` -> (13, None); ``[6, 12]`` -> (6, 12); ``13`` -> (13, 13)."""
    cell = cell.strip()
    if cell.endswith("+"):
        return int(cell[:-1]), None
    m = re.fullmatch(r"\[(\d+),\s*(\d+)\]", cell)
    if m:
        return int(m.group(1)), int(m.group(2))
    return int(cell), int(cell)


def parse_types(cell: str) -> dict[str, list[str]]:
    """``**T** = tensor(double), tensor(float)<br/> **T1** = tensor(bool)`` -> {"T": [...], "T1": [...]}."""
    types: dict[str, list[str]] = {}
    for part in cell.split("<br/>"):
        if not part.strip():
            continue
        m = _CONSTRAINT.match(part)
        if not m:
            raise ValueError(f"unparsed type constraint: {part!r}")
        types[m.group(1)] = [convert_type(t) for t in split_top_level(m.group(2))]
    return types


Param = tuple[str, str, bool]  # (name, constraint or concrete type, is_concrete)
Signature = tuple[list[Param], list[Param]]


def parse_signatures(cell: str) -> list[Signature]:
    """The parameters cell: one or more signatures (schema versions) separated by ``<br><br>or<br><br>``."""
    signatures = []
    for alt in cell.split("<br><br>or<br><br>"):
        inputs: list[Param] = []
        outputs: list[Param] = []
        for kind, name, typ in _PARAM.findall(alt):
            # "**T**" names a constraint; "**tensor(int64)**" is a type the schema fixes.
            concrete = "(" in typ
            param = (name.strip(), convert_type(typ) if concrete else typ, concrete)
            (inputs if kind == "in" else outputs).append(param)
        signatures.append((inputs, outputs))
    return signatures


def pick_signature(signatures: list[Signature], types: dict[str, list[str]]) -> tuple[list[list[str]], list[list[str]]]:
    """The signature a registration uses.

    The file does not say which "or" branch goes with which opset range (BatchNormalization has
    T/U, T, and T/T1/T2 variants), so take the branch whose constraint names all appear in the
    registration's types and that uses the most of them; on a tie the one with the most parameters
    (the full schema: Pad 18+ lists ``axes:Tind`` with only ``T`` registered, and a shorter branch
    would make ``axes`` look like a trailing ``T``), then the first (newest schema).
    A constraint the kernel does not register (``Tind`` above) is not checked, as in ORT.
    """
    best: Any = signatures[0]
    best_score: tuple[int, int] = (-1, -1)
    for inputs, outputs in signatures:
        names = {t for _, t, concrete in inputs + outputs if not concrete}
        score = (len(names & set(types)), len(inputs) + len(outputs))
        if score > best_score:
            best, best_score = (inputs, outputs), score
    return [[n, t] for n, t, _ in best[0]], [[n, t] for n, t, _ in best[1]]


def parse(text: str) -> dict[str, dict[str, dict[str, list[dict[str, Any]]]]]:
    """All providers' registrations: provider -> domain -> op -> list of registrations (file order)."""
    providers: dict[str, dict[str, dict[str, list[dict[str, Any]]]]] = {}
    provider: str | None = None
    domain: str | None = None
    op: str | None = None
    signatures: list[Signature] = []
    for lineno, line in enumerate(text.splitlines(), 1):
        m = _SECTION.match(line)
        if m:
            provider, domain, op = m.group(1), None, None
            providers.setdefault(provider, {})
            continue
        if provider is None or not line.startswith("|"):
            continue
        m = _DOMAIN.match(line)
        if m:
            domain, op = m.group(1), None
            providers[provider].setdefault(domain, {})
            continue
        cells = line.split("|")
        if len(cells) != 6 or cells[1].strip().startswith(("Op Name", "---")) or not cells[3].strip():
            continue  # header, separator, or the blank rows between domains
        if domain is None:
            raise ValueError(f"line {lineno}: kernel row before any domain header")
        if cells[1].strip():
            op = cells[1].strip()
            signatures = parse_signatures(cells[2])
        if op is None:
            raise ValueError(f"line {lineno}: continuation row without an op")
        since, until = parse_opset(cells[3])
        types = parse_types(cells[4])
        inputs, outputs = pick_signature(signatures, types)
        providers[provider][domain].setdefault(op, []).append(
            {"since": since, "until": until, "types": types, "inputs": inputs, "outputs": outputs}
        )
    return providers


def read_commit(source_md: Path) -> str | None:
    """The commit named in SOURCE.md beside the kernels file ("Commit: <sha>")."""
    if not source_md.is_file():
        return None
    m = re.search(r"^Commit:\s*([0-9a-f]{7,40})", source_md.read_text(encoding="utf-8"), re.M)
    return m.group(1) if m else None


def build(source: Path, source_label: str) -> dict[str, Any]:
    """The JSON document for ``source`` (an OperatorKernels.md)."""
    raw = source.read_bytes()
    parsed = parse(raw.decode("utf-8"))
    missing = [p for p in PROVIDERS if p not in parsed]
    if missing:
        raise ValueError(f"{source}: no section for {', '.join(missing)}")
    return {
        "source": {
            "file": source_label,
            "commit": read_commit(source.parent / "SOURCE.md"),
            "sha256": hashlib.sha256(raw).hexdigest(),
        },
        "providers": {p: parsed[p] for p in PROVIDERS},
    }


def dumps(doc: dict[str, Any]) -> str:
    """Compact and deterministic: dict order follows the file, which is sorted by op name."""
    return json.dumps(doc, separators=(",", ":"), ensure_ascii=True) + "\n"


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--source", default=DEFAULT_SOURCE, help="OperatorKernels.md, relative to the repo root")
    ap.add_argument("--out", default=DEFAULT_OUT, help="output JSON, relative to the repo root")
    args = ap.parse_args(argv)
    source = (REPO / args.source).resolve()
    doc = build(source, args.source)
    out = REPO / args.out
    out.parent.mkdir(parents=True, exist_ok=True)
    out.write_text(dumps(doc), encoding="utf-8")
    counts = {p: sum(len(ops) for ops in doms.values()) for p, doms in doc["providers"].items()}
    print(f"wrote {out.relative_to(REPO)}: {counts} ops, commit {doc['source']['commit']}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
