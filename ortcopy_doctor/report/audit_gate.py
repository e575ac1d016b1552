"""The audit's baseline gate (issue 37): read audit rows (``read_rows``), combine shards (``merge``), compare rows with
a baseline's (``compare``) and the exit status the gate gives (``gate_exit``). Plain data in and out: no ORT, no files
written; the runner (cli/audit.py) calls these for ``audit --baseline`` and ``audit merge``.

A row file is JSONL, one ``AuditRow`` a line (``model.audit``). An audit killed mid-write leaves a last line cut short:
it is skipped with a warning (the row runs again with ``--resume``). Any other line that is not a row is an error
naming the file and the line. A directory is read as its ``audit.jsonl``, else as a directory of ``check --json``
reports, one row per report with what the report says (no child, so no exit code, GPU or wall time).
"""

from __future__ import annotations

import json
from collections.abc import Callable, Iterable
from pathlib import Path
from typing import Any, Optional

import msgspec

from ortcopy_doctor.model import codec
from ortcopy_doctor.model.audit import (
    AUDIT_FORMAT,
    AUDIT_FORMAT_VERSION,
    AuditRow,
    Regression,
    RegressionKind,
    RowStatus,
)
from ortcopy_doctor.model.report import REPORT_FORMAT

AUDIT_JSONL = "audit.jsonl"  # the row file in an audit's --out folder
AUDIT_ROW_SCHEMA_ID = f"urn:ortcopy-doctor:audit-row:{AUDIT_FORMAT_VERSION}"

Warn = Callable[[str], None]


# --- reading ------------------------------------------------------------------------------------------------------


def read_rows(path: Path, warn: Optional[Warn] = None) -> list[AuditRow]:
    """The rows of ``path``: a JSONL file of audit rows, a directory holding ``audit.jsonl``, or a directory of
    ``check --json`` reports (``*.json``, one row each). ``ValueError`` with one line naming the file (and line) where
    it is not that; a cut-short last line is skipped and ``warn`` (where given) told so."""
    path = Path(path)
    if path.is_dir():
        if (path / AUDIT_JSONL).is_file():
            return read_rows(path / AUDIT_JSONL, warn)
        return _rows_of_reports(path)
    try:
        data = path.read_bytes()
    except OSError as exc:
        raise ValueError(f"{path}: cannot read: {exc.strerror or exc}") from None
    return rows_from_jsonl(data, str(path), warn)


def rows_from_jsonl(data: bytes, name: str, warn: Optional[Warn] = None) -> list[AuditRow]:
    """``read_rows`` of JSONL text already read; ``name`` names it in errors and warnings."""
    lines = data.split(b"\n")
    cut_short = bool(lines) and lines[-1].strip() != b""  # no newline after the last line: written to the end?
    rows = []
    for number, line in enumerate(lines, 1):
        if not line.strip():
            continue
        try:
            rows.append(_row(line))
        except ValueError as exc:
            if cut_short and number == len(lines):
                if warn is not None:
                    warn(f"{name}: line {number} is cut short (an audit stopped while writing it): skipped")
                continue
            raise ValueError(f"{name}: line {number} is not an audit row: {exc}") from None
    return rows


def _row(line: bytes) -> AuditRow:
    """One JSONL line as a row; ``ValueError`` (one line) where it is no JSON object, another format, a newer
    version or a wrong value."""
    try:
        data = codec.decode(line)
    except codec.DecodeError as exc:
        raise ValueError(codec.message(exc)) from None
    if not isinstance(data, dict):
        raise ValueError(f"a JSON {type(data).__name__}, not an object")
    if data.get("format") != AUDIT_FORMAT:
        raise ValueError(f"format {data.get('format')!r}, not {AUDIT_FORMAT!r}")
    version = data.get("format_version")
    if not isinstance(version, int) or isinstance(version, bool):
        raise ValueError(f"format_version {version!r} is no version number")
    if version > AUDIT_FORMAT_VERSION:
        raise ValueError(f"format_version {version} is newer than this ortcopy-doctor reads "
                         f"({AUDIT_FORMAT_VERSION}): upgrade ortcopy-doctor")
    try:
        return codec.convert(data, AuditRow)
    except codec.ValidationError as exc:
        raise ValueError(codec.message(exc)) from None


def _rows_of_reports(folder: Path) -> list[AuditRow]:
    """One row per ``check --json`` report in ``folder`` (its ``*.json`` files, sorted; other JSON documents there,
    such as a sweep, are refused by name)."""
    files = sorted(p for p in folder.glob("*.json") if p.is_file())
    if not files:
        raise ValueError(f"{folder}: neither {AUDIT_JSONL} nor check --json reports (*.json) in it")
    rows = [row_of_report(_report_dict(p), p.stem, p.name) for p in files]
    return sorted(rows, key=lambda r: r.id)


def _report_dict(path: Path) -> dict[str, Any]:
    try:
        data = json.loads(path.read_bytes())
    except (OSError, ValueError) as exc:
        raise ValueError(f"{path}: not a check --json report: {' '.join(str(exc).split())[:200]}") from None
    if not isinstance(data, dict) or data.get("format") != REPORT_FORMAT:
        raise ValueError(f"{path}: not a check --json report (no format {REPORT_FORMAT!r})")
    return data


def _dict(value: Any) -> dict[str, Any]:
    return value if isinstance(value, dict) else {}


def row_of_report(report: dict[str, Any], row_id: str, report_path: str = "") -> AuditRow:
    """A row from a ``check --json`` report's document as written (no re-analysis): the verdict, the summary's numbers,
    the fallback nodes' op types, the advice's variant and gain, the session's providers and onnxruntime version.
    ``row_id`` is the row's id (a report file's name without .json)."""
    summary, evidence, advice = _dict(report.get("summary")), _dict(report.get("evidence")), _dict(report.get("advice"))
    nodes = [n for n in evidence.get("nodes", []) if isinstance(n, dict)]
    fallback_ops = sorted({str(n.get("op_type", "")) for n in nodes if n.get("fallback_reason")})
    measured = advice.get("status") == "measured"
    try:
        return msgspec.convert({
            "id": row_id, "model": str(_dict(evidence.get("model")).get("path", "")), "status": RowStatus.OK,
            "ort_version": str(_dict(evidence.get("environment")).get("ort_version", "")),
            "providers": list(_dict(evidence.get("session")).get("active_providers", [])),
            "verdict": str(report.get("verdict", "")),
            "copies_per_run": summary.get("copies_per_run"), "bytes_per_run": summary.get("bytes_per_run"),
            "memcpy_nodes": summary.get("memcpy_nodes"), "fallback_nodes": summary.get("fallback_nodes"),
            "fallback_ops": fallback_ops, "findings_by_severity": summary.get("findings_by_severity", {}),
            "median_ms": summary.get("median_run_ms"),
            "recommended": str(advice.get("recommended", "")) if measured else "",
            "recommended_label": str(advice.get("recommended_label", "")) if measured else "",
            "gain": advice.get("speedup") if measured else None,
            "gain_ci_low": advice.get("speedup_ci_low") if measured else None,
            "gain_ci_high": advice.get("speedup_ci_high") if measured else None,
            "report": report_path,
        }, AuditRow)
    except msgspec.ValidationError as exc:
        raise ValueError(f"{report_path or row_id}: a report value is not what a row holds: {codec.message(exc)}") \
            from None


# --- merging ------------------------------------------------------------------------------------------------------


def merge(row_lists: list[list[AuditRow]]) -> list[AuditRow]:
    """The rows of several shards as one audit: each id once, sorted by id. A row two shards both hold is kept once
    where it is the same; ``ValueError`` naming the id where the two differ (one audit's rows, not two)."""
    by_id: dict[str, AuditRow] = {}
    for rows in row_lists:
        for row in rows:
            seen = by_id.get(row.id)
            if seen is None:
                by_id[row.id] = row
            elif seen != row:
                raise ValueError(f"row {row.id!r} is in two shards with different results: merge the shards of one "
                                 "audit, or drop one of the two")
    return [by_id[key] for key in sorted(by_id)]


# --- comparing ----------------------------------------------------------------------------------------------------

_KIND_ORDER = {kind: n for n, kind in enumerate(RegressionKind)}


def _more(kind: RegressionKind, what: str, old: Optional[int], new: Optional[int]) -> list[tuple[RegressionKind, str]]:
    if old is None or new is None or new <= old:
        return []
    return [(kind, f"{what} {old} -> {new}")]


def _ms(value: float) -> str:
    return f"{value:.3g}" if value < 100 else f"{value:.0f}"


def _slower(old: AuditRow, new: AuditRow) -> list[tuple[RegressionKind, str]]:
    """SLOWER where the new median's 95% interval lies entirely above the baseline's (both measured with one)."""
    if None in (old.median_ms, old.ci_high_ms, new.median_ms, new.ci_low_ms, new.ci_high_ms, old.ci_low_ms):
        return []
    assert old.median_ms is not None and old.ci_high_ms is not None and old.ci_low_ms is not None
    assert new.median_ms is not None and new.ci_low_ms is not None and new.ci_high_ms is not None
    if new.ci_low_ms <= old.ci_high_ms:
        return []
    ratio = f"{new.median_ms / old.median_ms:.2f}x" if old.median_ms > 0 else "from 0"
    return [(RegressionKind.SLOWER,
             f"median run {_ms(old.median_ms)} ms -> {_ms(new.median_ms)} ms ({ratio}; 95% CI "
             f"{_ms(old.ci_low_ms)}-{_ms(old.ci_high_ms)} ms -> {_ms(new.ci_low_ms)}-{_ms(new.ci_high_ms)} ms)")]


def _fallbacks(old: AuditRow, new: AuditRow) -> list[tuple[RegressionKind, str]]:
    """NEW_FALLBACK: an op type on the CPU the baseline did not have there, or more fallback nodes (one regression
    saying both where both)."""
    added = sorted(set(new.fallback_ops) - set(old.fallback_ops))
    more = old.fallback_nodes is not None and new.fallback_nodes is not None and new.fallback_nodes > old.fallback_nodes
    if not added and not more:
        return []
    parts = []
    if more or (old.fallback_nodes is not None and new.fallback_nodes is not None):
        parts.append(f"CPU fallback nodes {old.fallback_nodes} -> {new.fallback_nodes}")
    if added:
        parts.append("new on the CPU: " + ", ".join(added))
    return [(RegressionKind.NEW_FALLBACK, "; ".join(parts))]


def _row_differences(old: AuditRow, new: AuditRow) -> list[tuple[RegressionKind, str]]:
    """What got worse from ``old`` to ``new`` (same id), each kind at most once."""
    if old.status == RowStatus.OK and new.status != RowStatus.OK:
        error = f": {new.error}" if new.error else ""
        return [(RegressionKind.NEWLY_FAILING, f"status ok -> {new.status.value}{error}")]
    if new.status != RowStatus.OK or old.status != RowStatus.OK:
        return []  # nothing to compare with: a row that failed then has no numbers
    return [*_more(RegressionKind.NEW_MEMCPY, "Memcpy nodes", old.memcpy_nodes, new.memcpy_nodes),
            *_fallbacks(old, new),
            *_more(RegressionKind.MORE_COPIES, "copies per run", old.copies_per_run, new.copies_per_run),
            *_more(RegressionKind.MORE_BYTES, "bytes per run", old.bytes_per_run, new.bytes_per_run),
            *_slower(old, new)]


def compare(baseline: list[AuditRow], rows: list[AuditRow], allow: Iterable[RegressionKind] = ()) -> list[Regression]:
    """Every regression of ``rows`` against ``baseline``, matched by id: sorted by id, then in ``RegressionKind``'s
    order. A kind in ``allow`` is named with ``allowed=True`` (it does not fail the gate). Ids only in ``rows`` are
    new models: no regression."""
    allowed = frozenset(allow)
    now = {row.id: row for row in rows}
    found: list[Regression] = []
    for old in sorted(baseline, key=lambda r: r.id):
        new = now.get(old.id)
        if new is None:
            differences = [(RegressionKind.MISSING, "in the baseline, not in this audit")]
            model = old.model
        else:
            differences = _row_differences(old, new)
            model = new.model
        for kind, words in sorted(differences, key=lambda d: _KIND_ORDER[d[0]]):
            found.append(Regression(kind=kind, id=old.id, model=model, words=words, allowed=kind in allowed))
    return found


def gate_exit(regressions: Iterable[Regression]) -> int:
    """The gate's exit status: 1 where any regression is not allowed, else 0."""
    return 1 if any(not r.allowed for r in regressions) else 0


def audit_row_schema() -> dict[str, Any]:
    """The JSON Schema (draft 2020-12) of one audit JSONL line, generated from ``AuditRow``
    (``model/schema/audit-row.schema.json`` is this, written by tools/gen_schema.py; a test keeps it current)."""
    generated = msgspec.json.schema(AuditRow)
    definitions = generated["$defs"]
    root = definitions.pop(AuditRow.__name__)
    return {"$schema": "https://json-schema.org/draft/2020-12/schema", "$id": AUDIT_ROW_SCHEMA_ID,
            "title": "ortcopy-doctor audit row",
            "description": (f"One line of the JSONL written by `ortcopy-doctor audit` (format {AUDIT_FORMAT}, version "
                            f"{AUDIT_FORMAT_VERSION}): one model and configuration checked. Readers should ignore "
                            "keys they do not know."),
            **{k: v for k, v in root.items() if k not in ("title", "description")}, "$defs": definitions}


__all__ = ["AUDIT_JSONL", "AUDIT_ROW_SCHEMA_ID", "audit_row_schema", "compare", "gate_exit", "merge", "read_rows",
           "row_of_report", "rows_from_jsonl"]
