"""The audit's outputs (issue 37): the HTML index of every row (``render_index_html``: reports/templates/
audit_index.html.j2, the look of check's report), the SARIF log of the baseline gate's regressions (``render_sarif``)
and the terminal summary (``render_summary_text``).

``row_view`` prepares every cell of a row as text once, for the page and the summary alike; the template only loops
and prints (autoescape on: ids, model paths, errors and stderr tails are untrusted text)."""

from __future__ import annotations

import hashlib
from collections import Counter
from pathlib import Path
from typing import TYPE_CHECKING, Any, Optional
from urllib.parse import quote

import msgspec

from ortcopy_doctor.model import codec
from ortcopy_doctor.model.audit import AuditRow, Regression, RegressionKind, RowStatus
from ortcopy_doctor.model.format import fmt_bytes
from ortcopy_doctor.model.lazy import lazy_import
from ortcopy_doctor.model.version import __version__
from ortcopy_doctor.render.terminal import json_safe, safe
from ortcopy_doctor.rules.registry import PROJECT_URL

if TYPE_CHECKING:
    from ortcopy_doctor.render import html as _html, sarif as _sarif
else:
    # The page's and the SARIF's modules load where those are written: the terminal summary needs neither.
    _html = lazy_import("ortcopy_doctor.render.html")
    _sarif = lazy_import("ortcopy_doctor.render.sarif")

TEMPLATE = "audit_index.html.j2"
AUDIT_DOC_URL = f"{PROJECT_URL}/blob/main/docs/audit.md"

# What each regression kind means, for SARIF's rules and the docs (docs/audit.md lists the same).
KIND_TITLE = {
    RegressionKind.NEW_MEMCPY: "More Memcpy nodes than in the baseline",
    RegressionKind.NEW_FALLBACK: "A node on the CPU that the baseline ran on the device",
    RegressionKind.MORE_COPIES: "More host<->device copies per run than in the baseline",
    RegressionKind.MORE_BYTES: "More bytes copied per run than in the baseline",
    RegressionKind.SLOWER: "The median run's 95% interval lies above the baseline's",
    RegressionKind.NEWLY_FAILING: "The check ran in the baseline and does not now",
    RegressionKind.MISSING: "A row of the baseline is not in this audit",
}
STATUS_WORDS = {RowStatus.OK: "ok", RowStatus.FAILED: "failed", RowStatus.CRASHED: "crashed",
                RowStatus.TIMEOUT: "timed out", RowStatus.INTERRUPTED: "interrupted"}


class RowView(msgspec.Struct, frozen=True, kw_only=True):
    """One row's cells as text (``""``: nothing to show), with the numbers the page sorts by."""

    id: str
    model: str
    config: str
    status: str  # the RowStatus value (the page's status filter)
    status_words: str
    error: str
    stderr_tail: str
    verdict: str
    copies: str
    copies_sort: str
    bytes: str
    bytes_sort: str
    memcpy: str
    memcpy_sort: str
    fallbacks: str
    fallbacks_sort: str
    recommended: str
    gain: str
    gain_sort: str
    median: str
    median_sort: str
    gpu: str
    gpu_busy: str
    report: str
    report_href: str  # the report's path as a relative URL: each segment percent-encoded (a ":" can make no scheme)


def _num(value: Optional[float]) -> str:
    return "" if value is None else str(value)


def _ms(value: Optional[float]) -> str:
    if value is None:
        return ""
    return f"{value:.3g}" if value < 100 else f"{value:.0f}"


def _median(row: AuditRow) -> str:
    if row.median_ms is None:
        return ""
    if row.ci_low_ms is None or row.ci_high_ms is None:
        return f"{_ms(row.median_ms)} ms"
    return f"{_ms(row.median_ms)} ms ({_ms(row.ci_low_ms)}-{_ms(row.ci_high_ms)})"


def _gain(row: AuditRow) -> str:
    if row.gain is None:
        return ""
    if row.gain_ci_low is None or row.gain_ci_high is None:
        return f"{row.gain:.2f}x"
    return f"{row.gain:.2f}x ({row.gain_ci_low:.2f}-{row.gain_ci_high:.2f})"


def _fallbacks(row: AuditRow) -> str:
    if row.fallback_nodes is None:
        return ""
    return f"{row.fallback_nodes}" + (f" ({', '.join(row.fallback_ops)})" if row.fallback_ops else "")


def row_view(row: AuditRow) -> RowView:
    """The cells of ``row`` as text."""
    return RowView(
        id=row.id, model=row.model, config=row.config, status=row.status.value, status_words=STATUS_WORDS[row.status],
        error=row.error, stderr_tail=row.stderr_tail, verdict=row.verdict,
        copies="" if row.copies_per_run is None else str(row.copies_per_run), copies_sort=_num(row.copies_per_run),
        bytes="" if row.bytes_per_run is None else fmt_bytes(row.bytes_per_run), bytes_sort=_num(row.bytes_per_run),
        memcpy="" if row.memcpy_nodes is None else str(row.memcpy_nodes), memcpy_sort=_num(row.memcpy_nodes),
        fallbacks=_fallbacks(row), fallbacks_sort=_num(row.fallback_nodes),
        recommended=row.recommended_label or row.recommended, gain=_gain(row), gain_sort=_num(row.gain),
        median=_median(row), median_sort=_num(row.median_ms), gpu=row.gpu, gpu_busy=row.gpu_busy, report=row.report,
        report_href=quote(row.report, safe="/", encoding="utf-8", errors="surrogateescape"))


def headline(rows: list[AuditRow], regressions: list[Regression]) -> str:
    """The line a person reads first: ``42 models: 40 ok, 1 crashed, 1 timed out; 2 regressions against the
    baseline (1 allowed)``."""
    counts = Counter(row.status for row in rows)
    parts = [f"{counts[s]} {STATUS_WORDS[s]}" for s in RowStatus if counts[s]]
    models = len({row.model for row in rows})
    what = f"{len(rows)} rows of {models} models" if models != len(rows) else \
        f"{len(rows)} model{'s' if len(rows) != 1 else ''}"
    line = f"{what}: {', '.join(parts) or 'none'}"
    if regressions:
        allowed = sum(r.allowed for r in regressions)
        line += (f"; {len(regressions)} regression{'s' if len(regressions) != 1 else ''} against the baseline"
                 + (f" ({allowed} allowed)" if allowed else ""))
    return line


def regression_line(regression: Regression) -> str:
    """``resnet18: new_memcpy: Memcpy nodes 0 -> 2`` (``(allowed)`` after an allowed one)."""
    return (f"{regression.id}: {regression.kind.value}: {regression.words}"
            + (" (allowed)" if regression.allowed else ""))


# --- HTML ---------------------------------------------------------------------------------------------------------


def render_index_html(rows: list[AuditRow], regressions: list[Regression], title: str) -> str:
    """The audit's index as one self-contained page (no network references): the headline, the regressions against
    the baseline (allowed ones marked), and one table row per audit row, sortable by a header's click and filtered
    by text and status with a small inline script (without it the table reads as it is)."""
    views = [row_view(row) for row in rows]
    statuses = [s.value for s in RowStatus if any(v.status == s.value for v in views)]
    return _html.environment().get_template(TEMPLATE).render(
        title=title, headline=headline(rows, regressions), rows=views, statuses=statuses,
        status_words={s.value: STATUS_WORDS[s] for s in RowStatus},
        regressions=[{"id": r.id, "kind": r.kind.value, "words": r.words, "allowed": r.allowed} for r in regressions],
        failing=sum(not r.allowed for r in regressions), version=__version__)


# --- SARIF --------------------------------------------------------------------------------------------------------


def _rule(kind: RegressionKind) -> dict[str, Any]:
    title = KIND_TITLE[kind]
    return {
        "id": kind.value,
        "name": kind.value,
        "shortDescription": {"text": title},
        "fullDescription": {"text": f"{title} ({kind.value}); allow it with --allow-regression {kind.value}."},
        "help": {"text": title, "markdown": f"**{title}** (`{kind.value}`)"},
        "helpUri": f"{AUDIT_DOC_URL}#regression-kinds",
        "defaultConfiguration": {"level": "error"},
        "properties": {"tags": ["performance", "onnxruntime", "host-device-copy", "regression"],
                       "problem.severity": "error"},
    }


def _sarif_result(regression: Regression, rule_index: dict[str, int], base: Optional[Path]) -> dict[str, Any]:
    key = "\0".join([regression.kind.value, regression.id])
    text = f"{regression.id}: {regression.words}"
    result: dict[str, Any] = {
        "ruleId": regression.kind.value,
        "ruleIndex": rule_index[regression.kind.value],
        "level": "note" if regression.allowed else "error",
        "message": {"text": text if text.endswith(".") else text + "."},
        "locations": [{
            "physicalLocation": {"artifactLocation": _sarif.artifact_location(regression.model, base)},
            "logicalLocations": [{"name": regression.id, "kind": "module"}],
        }],
        "partialFingerprints": {"ortcopyDoctorRegression/v1": hashlib.sha256(key.encode("utf-8")).hexdigest()[:32]},
        "properties": {"id": regression.id, "kind": regression.kind.value, "allowed": regression.allowed},
    }
    if regression.allowed:
        result["suppressions"] = [{"kind": "external", "status": "accepted", "justification":
                                   f"regression kind {regression.kind.value} accepted with --allow-regression"}]
    return result


def sarif_log(regressions: list[Regression], rows: list[AuditRow], base: Path | str | None = None) -> dict[str, Any]:
    """The SARIF log of the gate: the regression kinds as rules, one result per regression at its model file (an
    allowed one at level note with an accepted suppression); ``base`` the folder relative model URIs start from
    (as ``render.sarif.artifact_location``)."""
    base_path = Path(base) if base is not None else None
    rule_index = {kind.value: n for n, kind in enumerate(RegressionKind)}
    counts = Counter(row.status.value for row in rows)
    run: dict[str, Any] = {
        "tool": {"driver": {"name": "ortcopy-doctor", "version": __version__, "semanticVersion": __version__,
                            "rules": [_rule(kind) for kind in RegressionKind]}},
        "automationDetails": {"id": "ortcopy-doctor/audit"},
        "results": [_sarif_result(r, rule_index, base_path) for r in regressions],
        "columnKind": "utf16CodeUnits",
        "properties": {"rows": len(rows), "statuses": dict(sorted(counts.items())),
                       "regressions": len(regressions), "failing": sum(not r.allowed for r in regressions),
                       "allowed": sorted({r.kind.value for r in regressions if r.allowed})},
    }
    return {"$schema": _sarif.SARIF_SCHEMA, "version": _sarif.SARIF_VERSION, "runs": [run]}


def render_sarif(regressions: list[Regression], rows: list[AuditRow], base: Path | str | None = None) -> str:
    """The SARIF 2.1.0 log of the gate as JSON text (see ``sarif_log``)."""
    return json_safe(codec.to_json(sarif_log(regressions, rows, base))) + "\n"


# --- text ---------------------------------------------------------------------------------------------------------

_COLUMNS = [("id", "id"), ("status", "status_words"), ("copies/run", "copies"), ("bytes/run", "bytes"),
            ("Memcpy", "memcpy"), ("fallbacks", "fallbacks"), ("recommended", "recommended"), ("gain", "gain"),
            ("median", "median"), ("GPU", "gpu")]
_CELL_LIMIT = 40  # a longer cell (a path of an id, a list of op types) is cut with "…": the HTML has it whole


def _cell(view: RowView, field_name: str) -> str:
    text = safe(str(getattr(view, field_name))) or "-"
    return text if len(text) <= _CELL_LIMIT else text[:_CELL_LIMIT - 1] + "…"


def render_summary_text(rows: list[AuditRow], regressions: list[Regression]) -> str:
    """The terminal summary: the headline, a plain table (one line a row; no colour codes), each row's error where it
    did not end ok, and each regression."""
    views = [row_view(row) for row in rows]
    table = [[title for title, _ in _COLUMNS]] + [[_cell(v, name) for _, name in _COLUMNS] for v in views]
    widths = [max(len(line[i]) for line in table) for i in range(len(_COLUMNS))]
    lines = [safe(headline(rows, regressions)), ""]
    lines += ["  ".join(cell.ljust(w) for cell, w in zip(line, widths)).rstrip() for line in table]
    errors = [f"  {safe(v.id)}: {v.status_words}: {safe(v.error)}" for v in views if v.status != "ok" and v.error]
    if errors:
        lines += ["", "errors:", *errors]
    if regressions:
        lines += ["", "regressions against the baseline:", *(f"  {safe(regression_line(r))}" for r in regressions)]
    return "\n".join(lines) + "\n"


__all__ = ["KIND_TITLE", "RowView", "STATUS_WORDS", "headline", "regression_line", "render_index_html",
           "render_sarif", "render_summary_text", "row_view", "sarif_log"]
