"""An audit's rows and its baseline gate (issue 37), pure: a row from a check's report (``row_from_report``), rows read
from a JSONL file, a folder holding one, or a folder of check reports (``read_rows``), shards merged (``merge``), and
each difference from a baseline that the gate names (``compare``). Nothing runs here: cli/audit.py runs the checks."""

from __future__ import annotations

from collections.abc import Callable, Iterable, Sequence
from pathlib import Path
from typing import Any

import msgspec

from ortcopy_doctor.analysis.stats import median_ci
from ortcopy_doctor.knowledge.providers import CPU, is_device
from ortcopy_doctor.model import codec
from ortcopy_doctor.model.audit import (AUDIT_FORMAT, AUDIT_FORMAT_VERSION, JSONL, AuditEntry, AuditRow, Regression,
                                        RegressionKind, RowStatus)
from ortcopy_doctor.model.errors import DoctorError
from ortcopy_doctor.model.report import Report
from ortcopy_doctor.model.schema import generated
from ortcopy_doctor.report.core import load_report

KIND_ORDER = list(RegressionKind)


def row_from_report(entry: AuditEntry, checked: Report, **run: object) -> AuditRow:
    """The row of ``entry`` whose check wrote ``checked`` (read back and re-analysed by this code); ``run``: the
    child's facts (``exit_code``, ``gpu``, ``gpu_busy``, ``started``, ``seconds``, ``report``: the page's path)."""
    ev, s = checked.evidence, checked.summary
    primary = ev.session.active_providers[0] if ev.session.active_providers else ""
    fallback = sorted({n.op_type for n in ev.nodes if n.provider == CPU and is_device(primary)
                       and n.fallback_reason != "cpu_preferred"})
    median = low = high = None
    if ev.timings is not None and ev.timings.run_ms:
        median, low, high = (round(v, 4) for v in median_ci(ev.timings.run_ms))
    advice = checked.advice
    measured = advice is not None and advice.recommended not in ("", "plain")
    return msgspec.convert({
        "id": entry.id, "model": entry.model, "config": entry.config, "status": RowStatus.OK,
        "ort_version": ev.environment.ort_version, "providers": list(ev.session.active_providers),
        "verdict": checked.verdict, "copies_per_run": s.copies_per_run, "bytes_per_run": s.bytes_per_run,
        "memcpy_nodes": s.memcpy_nodes, "fallback_nodes": s.fallback_nodes, "fallback_ops": fallback,
        "findings_by_severity": dict(s.findings_by_severity), "median_ms": median, "ci_low_ms": low,
        "ci_high_ms": high,
        "recommended": str(advice.recommended) if advice is not None else "",
        "recommended_label": advice.recommended_label if advice is not None else "",
        "gain": advice.speedup if measured and advice is not None else None,
        "gain_ci_low": advice.speedup_ci_low if measured and advice is not None else None,
        "gain_ci_high": advice.speedup_ci_high if measured and advice is not None else None,
        **run}, AuditRow)


def _row(line: bytes, name: str, number: int) -> AuditRow:
    """One JSONL line as a row. Its ``format`` and ``format_version`` are read before the fields: a line of another
    document, or of a newer version whose fields this code would misread, says so rather than naming a field."""
    try:
        data = codec.decode(line)
    except codec.DecodeError as exc:
        raise ValueError(f"{name}: line {number} is not an audit row ({codec.message(exc)}): pass the audit.jsonl an "
                         "audit wrote") from None
    kind = data.get("format") if isinstance(data, dict) else None
    if isinstance(data, dict) and isinstance(kind, str) and kind != AUDIT_FORMAT:
        raise ValueError(f"{name}: line {number} is a {kind!r} document, not an audit row")
    problem = codec.version_problem(data.get("format_version", AUDIT_FORMAT_VERSION), AUDIT_FORMAT_VERSION,
                                    "an audit") if isinstance(data, dict) else None
    if problem:
        raise ValueError(f"{name}: line {number} has audit row {problem}")
    try:
        return codec.convert(data, AuditRow)
    except codec.ValidationError as exc:
        raise ValueError(f"{name}: line {number} is not an audit row ({codec.message(exc)}): pass the audit.jsonl an "
                         "audit wrote") from None


def read_rows(path: Path, warn: Callable[[str], None] | None = None) -> list[AuditRow]:
    """The rows of ``path``: an audit's JSONL, or a folder holding one (``audit.jsonl``). A last line without its
    newline that does not parse (an audit killed while writing it) is left out, through ``warn``; any other bad
    line raises ``ValueError`` naming the file and the line."""
    if path.is_dir() and not (path / JSONL).exists():
        return _rows_of_reports(path)
    if path.is_dir():
        path = path / JSONL
    try:
        data = path.read_bytes()
    except OSError as exc:
        raise ValueError(f"{path} cannot be read ({exc.strerror or exc}): pass an audit's {JSONL} or its "
                         "folder") from None
    lines = data.split(b"\n")
    rows = []
    for number, line in enumerate(lines, start=1):
        if not line.strip():
            continue
        try:
            rows.append(_row(line, str(path), number))
        except ValueError:
            if number == len(lines) and not data.endswith(b"\n"):  # cut off mid-write: that row runs again
                if warn is not None:
                    warn(f"{path}: its last line was cut off (an audit stopped while writing it): left out")
                continue
            raise
    return rows


def _rows_of_reports(folder: Path) -> list[AuditRow]:
    """A folder of check reports (``check --json`` files, each ``NAME.json``) as rows with ids ``NAME``, each report
    re-analysed by this code."""
    files = sorted(folder.glob("*.json"))
    if not files:
        raise ValueError(f"{folder} holds neither {JSONL} nor check reports (*.json): pass an audit's folder, its "
                         f"{JSONL}, or a folder of `check --json` reports")
    rows = []
    for file in files:
        try:
            report = load_report(file)
        except DoctorError as exc:
            raise ValueError(f"{file}: {exc.message}") from None
        rows.append(row_from_report(AuditEntry(id=file.stem, model=report.evidence.model.path), report,
                                    report=file.name))
    return rows


def merge(row_lists: Iterable[Sequence[AuditRow]]) -> list[AuditRow]:
    """The rows of several shards (or runs) as one, sorted by id; a row in two of them once where they are the same,
    ``ValueError`` naming the id where they differ."""
    by_id: dict[str, AuditRow] = {}
    for rows in row_lists:
        for row in rows:
            known = by_id.setdefault(row.id, row)
            if known != row:
                raise ValueError(f"row {row.id!r} is in two shards with other results: merge the shards of one audit")
    return [by_id[key] for key in sorted(by_id)]


def _ok(row: AuditRow) -> bool:
    return row.status == RowStatus.OK


def _more(kind: RegressionKind, what: str, old: int | None, new: int | None, row: AuditRow) -> list[Regression]:
    if old is None or new is None or new <= old:
        return []
    return [Regression(kind=kind, id=row.id, model=row.model, words=f"{what} {old} -> {new}")]


def _differences(old: AuditRow, new: AuditRow) -> list[Regression]:
    if _ok(old) and not _ok(new):
        return [Regression(kind=RegressionKind.NEWLY_FAILING, id=new.id, model=new.model,
                           words=f"ok in the baseline, {new.status} now: {new.error or 'no report'}")]
    if not (_ok(old) and _ok(new)):
        return []
    found = _more(RegressionKind.NEW_MEMCPY, "Memcpy nodes per run", old.memcpy_nodes, new.memcpy_nodes, new)
    added = sorted(set(new.fallback_ops) - set(old.fallback_ops))
    if added or (new.fallback_nodes or 0) > (old.fallback_nodes or 0):
        found.append(Regression(kind=RegressionKind.NEW_FALLBACK, id=new.id, model=new.model,
                                words=f"CPU fallback nodes {old.fallback_nodes} -> {new.fallback_nodes}"
                                      + (f" (new op types: {', '.join(added)})" if added else "")))
    found += _more(RegressionKind.MORE_COPIES, "host<->device copies per run", old.copies_per_run,
                   new.copies_per_run, new)
    found += _more(RegressionKind.MORE_BYTES, "bytes copied per run", old.bytes_per_run, new.bytes_per_run, new)
    if (old.median_ms and old.ci_low_ms is not None and old.ci_high_ms is not None and new.median_ms is not None
            and new.ci_low_ms is not None and new.ci_high_ms is not None and new.ci_low_ms > old.ci_high_ms):
        found.append(Regression(kind=RegressionKind.SLOWER, id=new.id, model=new.model,
                                words=f"median run {old.median_ms:.4g} ms -> {new.median_ms:.4g} ms "
                                      f"({new.median_ms / old.median_ms:.2f}x; 95% CIs {old.ci_low_ms:.4g}–"
                                      f"{old.ci_high_ms:.4g} and {new.ci_low_ms:.4g}–{new.ci_high_ms:.4g} apart)"))
    return found


def compare(baseline: Sequence[AuditRow], rows: Sequence[AuditRow],
            allow: Iterable[RegressionKind] = ()) -> list[Regression]:
    """Each difference of ``rows`` from ``baseline`` (matched by id) that the gate names, by id then kind; those of
    a kind in ``allow`` are marked allowed (named, not failing). A baseline row missing now is MISSING; a row new
    since the baseline is no regression."""
    allowed = set(allow)
    now = {r.id: r for r in rows}
    found: list[Regression] = []
    for old in sorted(baseline, key=lambda r: r.id):
        new = now.get(old.id)
        if new is None:
            found.append(Regression(kind=RegressionKind.MISSING, id=old.id, model=old.model,
                                    words="in the baseline, not in this audit"))
            continue
        found += _differences(old, new)
    found.sort(key=lambda r: (r.id, KIND_ORDER.index(r.kind)))
    return [msgspec.structs.replace(r, allowed=r.kind in allowed) for r in found]


def gate_exit(regressions: Sequence[Regression]) -> int:
    """1 where any regression is not allowed, else 0."""
    return 1 if any(not r.allowed for r in regressions) else 0


AUDIT_ROW_SCHEMA_ID = f"urn:ortcopy-doctor:audit-row:{AUDIT_FORMAT_VERSION}"


def audit_row_schema() -> dict[str, Any]:
    """The JSON Schema (draft 2020-12) of one line of an audit's JSONL, generated from ``AuditRow``
    (``model/schema/audit-row.schema.json`` is this, written by tools/gen_schema.py; a test keeps it current)."""
    return generated(AuditRow, AUDIT_ROW_SCHEMA_ID, "ortcopy-doctor audit row",
                     f"One line of the JSONL written by `ortcopy-doctor audit` and `audit merge` (format {AUDIT_FORMAT}, "
                     f"version {AUDIT_FORMAT_VERSION}): one model and configuration checked. Readers should ignore "
                     "keys they do not know.")


__all__ = ["AUDIT_ROW_SCHEMA_ID", "JSONL", "audit_row_schema", "compare", "gate_exit", "merge", "read_rows", "row_from_report"]
