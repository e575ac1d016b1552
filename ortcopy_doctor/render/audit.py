"""An audit of a model zoo (issue 37) as a person and as CI read it: the terminal summary (a line first, then a table
and each regression), the HTML index (one row a model, sortable and filterable, the regressions first: the look of
check's report) and SARIF (one result per regression). The numbers are the rows' (model/audit.py); this module only
lays them out."""

from __future__ import annotations

import hashlib
from collections import Counter
from collections.abc import Sequence
from pathlib import Path
from typing import Any
from urllib.parse import quote

from ortcopy_doctor.model import codec
from ortcopy_doctor.model.audit import AuditRow, Regression, RegressionKind, RowStatus
from ortcopy_doctor.model.format import fmt_bytes
from ortcopy_doctor.model.version import __version__
from ortcopy_doctor.render.sarif import SARIF_SCHEMA, SARIF_VERSION, artifact_location
from ortcopy_doctor.render.terminal import json_safe
from ortcopy_doctor.rules.registry import PROJECT_URL

TEMPLATE = "audit_index.html.j2"
COLUMNS = ("model", "status", "verdict", "copies/run", "bytes/run", "Memcpy nodes", "fallbacks", "recommended (gain)",
           "median (95% CI)", "GPU", "report")
TEXT_COLUMNS = ("model", "status", "copies/run", "bytes/run", "Memcpy", "fallbacks", "median ms", "recommended")
KIND_HELP = {
    RegressionKind.NEW_MEMCPY: "More Memcpy nodes than in the baseline",
    RegressionKind.NEW_FALLBACK: "A node falls back to the CPU provider that did not in the baseline",
    RegressionKind.MORE_COPIES: "More host<->device copies per run than in the baseline",
    RegressionKind.MORE_BYTES: "More bytes copied per run than in the baseline",
    RegressionKind.SLOWER: "The median run is slower than the baseline's, outside both 95% intervals",
    RegressionKind.NEWLY_FAILING: "The check of the model failed where the baseline's succeeded",
    RegressionKind.MISSING: "A model of the baseline is not in this audit",
}


def headline(rows: Sequence[AuditRow], regressions: Sequence[Regression] | None) -> str:
    """The line a person reads first: ``42 models: 40 ok, 1 crashed, 1 timed out; 2 regressions against the
    baseline`` (``regressions`` None: no baseline was given)."""
    counts = Counter(str(r.status) for r in rows)
    parts = [f"{counts[s]} {'timed out' if s == 'timeout' else s}" for s in RowStatus if counts[str(s)]]
    line = f"{len(rows)} row{'s' if len(rows) != 1 else ''}: {', '.join(parts) or 'none'}"
    copies = sum(1 for r in rows if r.copies_per_run)
    if rows:
        line += f"; {copies} with host<->device copies"
    if regressions is not None:
        failing = sum(1 for r in regressions if not r.allowed)
        allowed = len(regressions) - failing
        line += (f"; {failing} regression{'s' if failing != 1 else ''} against the baseline"
                 + (f" ({allowed} allowed)" if allowed else ""))
    return line


def _ms(row: AuditRow) -> str:
    if row.median_ms is None:
        return "-"
    if row.ci_low_ms is None or row.ci_high_ms is None:
        return f"{row.median_ms:.3g} ms"
    return f"{row.median_ms:.3g} ms ({row.ci_low_ms:.3g}–{row.ci_high_ms:.3g})"


def _recommended(row: AuditRow) -> str:
    if not row.recommended_label:
        return "-"
    if row.gain is None:
        return row.recommended_label
    interval = (f", 95% CI {row.gain_ci_low:.2f}–{row.gain_ci_high:.2f}"
                if row.gain_ci_low is not None and row.gain_ci_high is not None else "")
    return f"{row.recommended_label} ({row.gain:.2f}x{interval})"


def _fallback(row: AuditRow) -> str:
    if row.fallback_nodes is None:
        return "-"
    return f"{row.fallback_nodes}" + (f": {', '.join(row.fallback_ops)}" if row.fallback_ops else "")


def _num(value: int | float | None) -> str:
    return "" if value is None else str(value)


def _href(path: str) -> str:
    """A row's report path as a relative URL: each segment percent-encoded, so a ``[``, ``#`` or ``?`` in a name stays
    part of it and a ``:`` cannot make a scheme (``javascript:`` from an edited or foreign audit.jsonl)."""
    return quote(path, safe="/=,+@", encoding="utf-8", errors="surrogateescape")


def _html_row(row: AuditRow) -> dict[str, Any]:
    return {"id": row.id, "config": row.config, "status": str(row.status), "error": row.error,
            "stderr_tail": row.stderr_tail, "verdict": row.verdict,
            "copies": _num(row.copies_per_run) or "-", "copies_sort": _num(row.copies_per_run),
            "bytes": fmt_bytes(row.bytes_per_run) if row.bytes_per_run is not None else "-",
            "bytes_sort": _num(row.bytes_per_run), "memcpy": _num(row.memcpy_nodes) or "-",
            "memcpy_sort": _num(row.memcpy_nodes), "fallback": _fallback(row), "fallback_sort": _num(row.fallback_nodes),
            "recommended": _recommended(row), "median": _ms(row), "median_sort": _num(row.median_ms),
            "gpu": row.gpu or "-", "gpu_busy": row.gpu_busy, "report": _href(row.report),
            "report_label": Path(row.report).name if row.report else ""}


def render_index_html(rows: Sequence[AuditRow], regressions: Sequence[Regression] | None, title: str) -> str:
    """The audit's HTML index: its headline and cards, the regressions against the baseline (where one was given),
    then one row a model, with a filter box, a status filter and sortable columns."""
    from ortcopy_doctor.render.html import environment  # jinja2 loads with the first page rendered

    failing = [r for r in (regressions or []) if not r.allowed]
    bad = any(r.status != RowStatus.OK for r in rows)
    counts = Counter(str(r.status) for r in rows)
    cards = [(str(len(rows)), "rows"), (str(counts.get("ok", 0)), "ok"),
             (str(sum(1 for r in rows if r.copies_per_run)), "with copies"),
             (str(sum(1 for r in rows if r.fallback_nodes)), "with CPU fallbacks")]
    if regressions is not None:
        cards.append((str(len(failing)), "regressions"))
    return environment().get_template(TEMPLATE).render(
        title=title, headline=headline(rows, regressions), cards=cards,
        verdict_class="bad" if failing else ("warn" if bad else "good"),
        regressions=list(regressions or []), baseline=regressions is not None, columns=COLUMNS,
        statuses=[str(s) for s in RowStatus if counts.get(str(s))], rows=[_html_row(r) for r in rows])


def render_summary_text(rows: Sequence[AuditRow], regressions: Sequence[Regression] | None) -> str:
    """The terminal's summary: the headline, a table of the rows (plain columns), then each regression."""
    table = [list(TEXT_COLUMNS)]
    for r in rows:
        table.append([r.id, str(r.status) if r.status == RowStatus.OK else f"{r.status}: {r.error}"[:60],
                      _num(r.copies_per_run) or "-", fmt_bytes(r.bytes_per_run) if r.bytes_per_run is not None else "-",
                      _num(r.memcpy_nodes) or "-", _fallback(r),
                      f"{r.median_ms:.3g}" if r.median_ms is not None else "-", _recommended(r)])
    widths = [max(len(line[i]) for line in table) for i in range(len(TEXT_COLUMNS))]
    lines = [headline(rows, regressions), ""]
    lines += ["  ".join(cell.ljust(w) for cell, w in zip(line, widths)).rstrip() for line in table]
    if regressions:
        lines += ["", "Regressions against the baseline:"]
        lines += [f"  {r.id}: {r.kind}: {r.words}" + (" (allowed)" if r.allowed else "") for r in regressions]
    return "\n".join(lines)


def _rule(kind: RegressionKind) -> dict[str, Any]:
    """A regression kind as a SARIF rule, described as check's rules are (render/sarif.py): its help names the flag
    that allows it, and links the gate's section of docs/audit.md."""
    help_text = f"{KIND_HELP[kind]}. Allowed (named, not failing) with --allow-regression {kind}."
    return {"id": str(kind), "name": str(kind), "shortDescription": {"text": KIND_HELP[kind]},
            "fullDescription": {"text": f"{KIND_HELP[kind]} ({kind})."},
            "help": {"text": help_text, "markdown": f"**{KIND_HELP[kind]}** (`{kind}`)\n\n{help_text}"},
            "helpUri": f"{PROJECT_URL}/blob/main/docs/audit.md#the-baseline-gate",
            "defaultConfiguration": {"level": "error"},
            "properties": {"tags": ["performance", "onnxruntime", "host-device-copy", "regression"],
                           "problem.severity": "error"}}


def _fingerprint(regression: Regression) -> str:
    """The same regression of the same row on every run (its kind and id, not its words, which hold the numbers):
    code-scanning UIs keep one alert for it across runs."""
    key = "\0".join([str(regression.kind), regression.id])
    return hashlib.sha256(key.encode("utf-8")).hexdigest()[:32]


def render_sarif(regressions: Sequence[Regression], rows: Sequence[AuditRow], base: Path | None = None) -> str:
    """SARIF 2.1.0: one result per regression at the model's file (an allowed one as a suppressed note), one rule
    per regression kind."""
    kinds = list(RegressionKind)
    models = {r.id: r.model for r in rows}
    results = []
    for reg in regressions:
        result: dict[str, Any] = {
            "ruleId": str(reg.kind), "ruleIndex": kinds.index(reg.kind),
            "level": "note" if reg.allowed else "error",
            "message": {"text": f"{reg.id}: {reg.words}"},
            "locations": [{"physicalLocation": {"artifactLocation": artifact_location(models.get(reg.id, reg.model),
                                                                                      base)}}],
            "partialFingerprints": {"ortcopyDoctorRegression/v1": _fingerprint(reg)},
            "properties": {"id": reg.id, "kind": str(reg.kind)},
        }
        if reg.allowed:
            result["suppressions"] = [{"kind": "external", "status": "accepted",
                                       "justification": f"regression kind {reg.kind} allowed with --allow-regression"}]
        results.append(result)
    run = {"tool": {"driver": {"name": "ortcopy-doctor", "version": __version__, "semanticVersion": __version__,
                               "rules": [_rule(k) for k in kinds]}},
           "automationDetails": {"id": "ortcopy-doctor/audit"},
           "results": results, "columnKind": "utf16CodeUnits",
           "properties": {"rows": len(rows), "headline": headline(rows, list(regressions))}}
    return json_safe(codec.to_json({"$schema": SARIF_SCHEMA, "version": SARIF_VERSION, "runs": [run]})) + "\n"


__all__ = ["COLUMNS", "headline", "render_index_html", "render_sarif", "render_summary_text"]
