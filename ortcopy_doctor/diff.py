"""Compare two reports (``ortcopy-doctor diff a.json b.json``): what changed across an ORT upgrade, an opset
change, a new export of the model.

Transfers are matched by (kind, direction, tensor) and findings by (rule, location) (the n-th of equal keys with
the n-th; Memcpy-node findings by the tensor copied, since ORT names those nodes itself); each is added, removed, changed (bytes, count, severity, message...) or unchanged. Also compared:
host<->device bytes and copies per run, the median run time, and the environment (ORT version and package,
opsets, active providers, model file). Where the two reports are of different model files (their sha256 differ)
the diff says so first (``ReportDiff.model_change``): it still compares them (a new export of a model is a use),
and ``--fail-on-model-change`` makes that exit 1. Both files are re-analysed (``load_report``), so the diff reflects the
evidence under the current rules. A regression is a transfer or finding that appears in b and not in a.

Text and a self-contained HTML page (reports/templates/diff.html.j2: autoescape, undefined names are errors).
"""

from __future__ import annotations

import io
from collections.abc import Callable, Hashable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any, Generic, TypeVar

from .analysis import Copy
from .terminal import safe
from .rules import Finding, fmt_bytes

if TYPE_CHECKING:
    from .report import Report

ADDED = "added"
REMOVED = "removed"
CHANGED = "changed"
UNCHANGED = "unchanged"
STATUS_ORDER = {ADDED: 0, REMOVED: 1, CHANGED: 2, UNCHANGED: 3}
SIGN = {ADDED: "+", REMOVED: "-", CHANGED: "~", UNCHANGED: " "}

DIFF_TEMPLATE = "diff.html.j2"

T = TypeVar("T")

_ARROW = {"host_to_device": "host→device", "device_to_host": "device→host"}
_KIND = {"feed": "feed copy", "fetch": "fetch copy", "memcpy_node": "Memcpy node", "in_kernel": "in-kernel"}


@dataclass
class Change(Generic[T]):
    status: str  # added, removed, changed, unchanged
    key: tuple[str, ...]
    before: T | None
    after: T | None
    what: list[str] = field(default_factory=list)  # for changed: "bytes per run 1.0 KB → 2.0 KB", ...


@dataclass
class Delta:
    """A number in a and in b (None where it was not measured)."""

    label: str
    before: float | None
    after: float | None
    unit: str = ""  # "bytes", "ms", ""

    @property
    def change(self) -> float | None:
        if self.before is None or self.after is None:
            return None
        return self.after - self.before

    @property
    def percent(self) -> float | None:
        if self.change is None or not self.before:
            return None
        return 100.0 * self.change / self.before

    def fmt(self, value: float | None) -> str:
        if value is None:
            return "n/a"
        if self.unit == "bytes":
            return fmt_bytes(int(value))
        if self.unit == "ms":
            return f"{value:.3f} ms"
        return f"{value:g}"

    def text(self) -> str:
        result = f"{self.fmt(self.before)} → {self.fmt(self.after)}"
        change = self.change
        if change is None:
            return result
        if change == 0:
            return result + " (no change)"
        sign = "+" if change > 0 else "-"
        magnitude = self.fmt(abs(change)) if self.unit else f"{abs(change):g}"
        pct = f", {sign}{abs(self.percent):.1f}%" if self.percent is not None else ""
        return f"{result} ({sign}{magnitude}{pct})"


@dataclass
class ReportDiff:
    a_name: str
    b_name: str
    a: Report
    b: Report
    copies: list[Change[Copy]]
    findings: list[Change[Finding]]
    deltas: list[Delta]  # bytes per run, copies per run, median run
    environment: list[tuple[str, str, str]]  # (what, in a, in b), only what differs

    @property
    def model_change(self) -> str | None:
        """A warning where a and b are not reports of the same model file (by sha256), or where a file does not
        say which model it is (written without the hash); None for the same model."""
        ha, hb = self.a.evidence.model.sha256, self.b.evidence.model.sha256
        if ha and hb and ha == hb:
            return None
        if not ha or not hb:
            which = " and ".join(n for n, h in (("a", ha), ("b", hb)) if not h)
            return (f"Model unknown: {which} records no model hash (written by an older ortcopy-doctor), so whether "
                    "both reports are of the same model cannot be told")
        return (f"Different models: a is {Path(self.a.evidence.model.path).name} (sha256 {ha[:12]}…), b is "
                f"{Path(self.b.evidence.model.path).name} (sha256 {hb[:12]}…): this compares two models, not two runs "
                "of one (--fail-on-model-change exits 1 on this)")

    @property
    def model_changed(self) -> bool:
        """True only where both hashes are known and differ (what --fail-on-model-change fails on)."""
        ha, hb = self.a.evidence.model.sha256, self.b.evidence.model.sha256
        return bool(ha and hb and ha != hb)

    @property
    def regressions(self) -> list[Change[Any]]:
        """Transfers and findings that appear in b and not in a."""
        return [c for c in self.copies if c.status == ADDED] + [f for f in self.findings if f.status == ADDED]

    def counts(self, changes: Sequence[Change[Any]]) -> dict[str, int]:
        result = {ADDED: 0, REMOVED: 0, CHANGED: 0, UNCHANGED: 0}
        for c in changes:
            result[c.status] += 1
        return result

    def to_text(self) -> str:
        return render_diff_text(self)

    def to_html(self) -> str:
        return render_diff_html(self)


def _match(before: Sequence[T], after: Sequence[T], key: Callable[[T], tuple[str, ...]],
           compare: Callable[[T, T], list[str]]) -> list[Change[T]]:
    """Pair items by key (the n-th occurrence with the n-th); order: b's order, removed ones at their a position."""
    remaining: dict[Hashable, list[T]] = {}
    for item in before:
        remaining.setdefault(key(item), []).append(item)
    changes: list[Change[T]] = []
    for item in after:
        k = key(item)
        queue = remaining.get(k)
        if queue:
            old = queue.pop(0)
            what = compare(old, item)
            changes.append(Change(CHANGED if what else UNCHANGED, k, old, item, what))
        else:
            changes.append(Change(ADDED, k, None, item))
    for item in before:
        k = key(item)
        queue = remaining.get(k)
        if queue and item in queue:
            queue.remove(item)
            changes.append(Change(REMOVED, k, item, None))
    return sorted(changes, key=lambda c: STATUS_ORDER[c.status])


def _copy_key(c: Copy) -> tuple[str, ...]:
    return (c.kind, c.direction, c.tensor)


def _compare_copies(a: Copy, b: Copy) -> list[str]:
    what = []
    if a.bytes_per_run != b.bytes_per_run:
        what.append(f"bytes per run {fmt_bytes(a.bytes_per_run)} → {fmt_bytes(b.bytes_per_run)}")
    if a.count_per_run != b.count_per_run:
        what.append(f"count per run {a.count_per_run} → {b.count_per_run}")
    if a.shape != b.shape or a.dtype != b.dtype:
        what.append(f"tensor {a.dtype}{a.shape} → {b.dtype}{b.shape}")
    if a.node != b.node:
        what.append(f"node {a.node or '-'} → {b.node or '-'}")
    if a.removable_by_binding != b.removable_by_binding:
        what.append("IO binding removes it: " + ("yes → no" if a.removable_by_binding else "no → yes"))
    return what


def _finding_key(f: Finding) -> tuple[str, ...]:
    # ORT names the Memcpy nodes it inserts itself (Memcpy, Memcpy_token_0, ...), differently across versions and
    # graphs: a Memcpy-node finding is matched by the tensor it copies instead.
    if f.slug == "memcpy-node" and isinstance(f.details.get("tensor"), str):
        return (f.rule, f"tensor {f.details['tensor']}")
    return (f.rule, f.location)


def _compare_findings(a: Finding, b: Finding) -> list[str]:
    what = []
    if a.severity != b.severity:
        what.append(f"severity {a.severity} → {b.severity}")
    if a.bytes_per_run != b.bytes_per_run:
        what.append(f"bytes per run {fmt_bytes(a.bytes_per_run)} → {fmt_bytes(b.bytes_per_run)}")
    if a.predicted != b.predicted:
        what.append("predicted → measured" if a.predicted else "measured → predicted")
    if a.message != b.message and not what:
        what.append("message changed")
    return what


def _environment(a: Report, b: Report) -> list[tuple[str, str, str]]:
    ea, eb = a.evidence, b.evidence
    rows: list[tuple[str, str, str]] = [
        ("onnxruntime", ea.environment.ort_version, eb.environment.ort_version),
        ("onnxruntime package", ea.environment.ort_package, eb.environment.ort_package),
        ("onnxruntime build", ea.environment.ort_build, eb.environment.ort_build),
        ("providers requested", ", ".join(ea.session.requested_providers), ", ".join(eb.session.requested_providers)),
        ("providers active", ", ".join(ea.session.active_providers), ", ".join(eb.session.active_providers)),
        ("GPUs", ", ".join(ea.environment.gpus), ", ".join(eb.environment.gpus)),
        ("evidence", ea.mode, eb.mode),
        ("model file", Path(ea.model.path).name, Path(eb.model.path).name),
        ("model sha256", ea.model.sha256[:16], eb.model.sha256[:16]),
        ("IR version", str(ea.model.ir_version), str(eb.model.ir_version)),
    ]
    for domain in sorted(set(ea.model.opsets) | set(eb.model.opsets)):
        rows.append((f"opset {domain}", str(ea.model.opsets.get(domain, "-")), str(eb.model.opsets.get(domain, "-"))))
    rows.append(("nodes run by ORT", str(len(ea.nodes)), str(len(eb.nodes))))
    return [(what, x, y) for what, x, y in rows if x != y]


def diff_reports(a: Report, b: Report, a_name: str = "a", b_name: str = "b") -> ReportDiff:
    sa, sb = a.summary, b.summary
    deltas = [
        Delta("host↔device bytes per run", sa.bytes_per_run, sb.bytes_per_run, "bytes"),
        Delta("host↔device copies per run", sa.copies_per_run, sb.copies_per_run),
        Delta("median run", sa.median_run_ms, sb.median_run_ms, "ms"),
        Delta("CPU fallback nodes", sa.fallback_nodes, sb.fallback_nodes),
    ]
    return ReportDiff(
        a_name=a_name, b_name=b_name, a=a, b=b,
        copies=_match(a.copies, b.copies, _copy_key, _compare_copies),
        findings=_match(a.findings, b.findings, _finding_key, _compare_findings),
        deltas=deltas, environment=_environment(a, b),
    )


def diff_files(a_path: Path | str, b_path: Path | str) -> ReportDiff:
    from .report import load_report

    return diff_reports(load_report(a_path), load_report(b_path), str(a_path), str(b_path))


# --- text ---------------------------------------------------------------------------------------------------------


def _copy_line(c: Change[Copy]) -> str:
    copy = c.after if c.after is not None else c.before
    assert copy is not None
    text = f"{SIGN[c.status]} {_KIND[copy.kind]} {_ARROW[copy.direction]} {copy.tensor}"
    if c.status == CHANGED:
        return f"{text}: {'; '.join(c.what)}"
    text += f", {fmt_bytes(copy.bytes_per_run)} per run"
    if copy.node:
        text += f" (node {copy.node})"
    return text


def _finding_line(c: Change[Finding]) -> str:
    f = c.after if c.after is not None else c.before
    assert f is not None
    text = f"{SIGN[c.status]} {f.severity:<7} {f.rule} {f.slug} at {f.location}"
    if c.status == CHANGED:
        return f"{text}: {'; '.join(c.what)}"
    return text


def _counts_text(counts: dict[str, int]) -> str:
    return ", ".join(f"{n} {status}" for status, n in counts.items())


def render_diff_text(d: ReportDiff, show_unchanged: bool = False) -> str:
    out = io.StringIO()

    def w(text: str) -> None:
        # names from the reports are untrusted: control characters escaped between the line breaks put here
        body = text.strip("\n")
        lead = text[: len(text) - len(text.lstrip("\n"))]
        trail = text[len(text.rstrip("\n")):] if body else ""
        out.write(lead + safe(body) + trail)

    w(f"ortcopy-doctor diff: {d.a_name} → {d.b_name}\n")
    if d.model_change:
        w(f"warning: {d.model_change}\n")
    regressions = d.regressions
    if regressions:
        n_copies = sum(1 for c in d.copies if c.status == ADDED)
        n_findings = sum(1 for c in d.findings if c.status == ADDED)
        w(f"Regression: {n_copies} transfer(s) and {n_findings} finding(s) added.\n")
    else:
        w("No new transfers or findings.\n")
    w(f"a: {d.a.verdict}\n")
    w(f"b: {d.b.verdict}\n")
    w("\n")
    for delta in d.deltas:
        w(f"{delta.label}: {delta.text()}\n")
    w("\nEnvironment:" + ("\n" if d.environment else " no differences\n"))
    for what, x, y in d.environment:
        w(f"  {what}: {x or '-'} → {y or '-'}\n")
    for title, changes, line in (("Transfers per run", d.copies, _copy_line), ("Findings", d.findings, _finding_line)):
        w(f"\n{title} ({_counts_text(d.counts(changes))}):\n")
        shown = [c for c in changes if show_unchanged or c.status != UNCHANGED]
        if not shown:
            w("  (no change)\n")
        for c in shown:
            w(f"  {line(c)}\n")  # type: ignore[operator]
    return out.getvalue()


# --- HTML ---------------------------------------------------------------------------------------------------------


def _copy_row(c: Change[Copy]) -> dict[str, Any]:
    copy = c.after if c.after is not None else c.before
    assert copy is not None
    return {"status": c.status, "sign": SIGN[c.status], "kind": _KIND[copy.kind], "direction": _ARROW[copy.direction],
            "tensor": copy.tensor,
            "before": fmt_bytes(c.before.bytes_per_run) if c.before is not None else "",
            "after": fmt_bytes(c.after.bytes_per_run) if c.after is not None else "",
            "node": copy.node, "what": "; ".join(c.what)}


def _finding_row(c: Change[Finding]) -> dict[str, Any]:
    f = c.after if c.after is not None else c.before
    assert f is not None
    return {"status": c.status, "sign": SIGN[c.status], "severity": f.severity, "rule": f.rule, "slug": f.slug,
            "title": f.title, "location": f.location, "message": f.message, "what": "; ".join(c.what)}


def diff_view_model(d: ReportDiff) -> dict[str, Any]:
    regressions = d.regressions
    return {
        "title": f"ortcopy-doctor diff: {Path(d.a_name).name} → {Path(d.b_name).name}",
        "a_name": d.a_name,
        "b_name": d.b_name,
        "a_verdict": d.a.verdict,
        "b_verdict": d.b.verdict,
        "regression": bool(regressions),
        "model_change": d.model_change or "",
        "headline": (f"Regression: {sum(1 for c in d.copies if c.status == ADDED)} transfer(s) and "
                     f"{sum(1 for c in d.findings if c.status == ADDED)} finding(s) added."
                     if regressions else "No new transfers or findings."),
        "deltas": [{"label": x.label, "before": x.fmt(x.before), "after": x.fmt(x.after), "text": x.text(),
                    "direction": ("" if not x.change else ("up" if x.change > 0 else "down"))} for x in d.deltas],
        "environment": [{"what": w, "before": x or "-", "after": y or "-"} for w, x, y in d.environment],
        "copies": [_copy_row(c) for c in d.copies],
        "copy_counts": d.counts(d.copies),
        "findings": [_finding_row(c) for c in d.findings],
        "finding_counts": d.counts(d.findings),
    }


def render_diff_html(d: ReportDiff) -> str:
    from .render.html import environment

    return environment().get_template(DIFF_TEMPLATE).render(**diff_view_model(d))


__all__ = ["Change", "Delta", "ReportDiff", "diff_files", "diff_reports", "render_diff_html", "render_diff_text"]
