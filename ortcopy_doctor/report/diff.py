"""Compare two reports (``ortcopy-doctor diff a.json b.json``): what changed across an ORT upgrade, an opset
change, a new export of the model.

Transfers are matched by (kind, direction, tensor) and findings by (rule, location) (the n-th of equal keys with
the n-th; Memcpy-node findings by the tensor copied, since ORT names those nodes itself); each is added, removed, changed (bytes, count, severity, message...) or unchanged. Also compared:
host<->device bytes and copies per run, the median run time, and the environment (ORT version and package,
opsets, active providers, model file). Where the two reports are of different model files (their sha256 differ)
the diff says so first (``ReportDiff.model_change``): it still compares them (a new export of a model is a use),
and ``--fail-on-model-change`` makes that exit 1. Both files are re-analysed (``load_report``), so the diff reflects
the evidence under the current rules (a file this code wrote, unchanged, is read as it is: report/seal.py). A
regression is a transfer or finding that appears in b and not in a.

Rendered as text and as a self-contained HTML page by ``ortcopy_doctor.render.diff``.
"""

from __future__ import annotations

from collections.abc import Callable, Hashable, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, TypeVar

from ortcopy_doctor.model.copies import Copy
from ortcopy_doctor.model.vocabulary import IN_KERNEL
from ortcopy_doctor.model.findings import Finding
from ortcopy_doctor.model.diff import (
    ADDED, CHANGED, REMOVED, STATUS_ORDER, UNCHANGED, Change, Delta, PredictedDiff, ReportDiff,
)
from ortcopy_doctor.model.evidence import Evidence, Feed
from ortcopy_doctor.model.format import active_providers, fmt_bytes
from ortcopy_doctor.report.core import load_report

if TYPE_CHECKING:
    from ortcopy_doctor.model.report import Report

T = TypeVar("T")


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
    # a kernel's own transfer is the node's (its tensor may be none, or named differently by an older version)
    return (c.kind, c.direction, c.node if c.kind == IN_KERNEL else c.tensor)


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
        ("providers active", active_providers(ea), active_providers(eb)),
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


def _unknown(report: Report) -> int:
    """Copies per run of unknown size: not in ``summary.bytes_per_run``, counted apart rather than as 0 B."""
    return sum(1 for c in report.copies if c.count_per_run and c.bytes_per_run is None)


_SOURCE = {"synthesized": "synthesized", "file": "from --inputs", "value": "from --value"}


def _shape_text(feed: Feed) -> str:
    return "x".join(str(d) for d in feed.shape) or "scalar"


def _assumed(evidence: Evidence) -> list[str]:
    return [f"{d.declared or f'{d.input}[{d.axis}]'}={d.value}" for d in evidence.assumed_dims]


def _inputs(a: Evidence, b: Evidence) -> list[str]:
    """How the inputs of the checks of a and b differ, one part each: a feed's shape or dtype, a feed only one has,
    where its values came from, the dims taken as 1, the --inputs file. [] where they are the same."""
    fa, fb = {f.name: f for f in a.feeds}, {f.name: f for f in b.feeds}
    parts: list[str] = []
    for name in [*fa, *(n for n in fb if n not in fa)]:
        x, y = fa.get(name), fb.get(name)
        if x is None or y is None:
            feed = x or y
            assert feed is not None
            parts.append(f"{name} only in {'a' if y is None else 'b'} ({feed.dtype} {_shape_text(feed)})")
            continue
        if x.dtype != y.dtype:
            parts.append(f"{name} {x.dtype} {_shape_text(x)} → {y.dtype} {_shape_text(y)}")
        elif x.shape != y.shape:
            parts.append(f"{name} {_shape_text(x)} → {_shape_text(y)}")
        if x.source != y.source:
            parts.append(f"{name} {_SOURCE.get(x.source, x.source)} → {_SOURCE.get(y.source, y.source)}")
    assumed_a, assumed_b = _assumed(a), _assumed(b)
    if assumed_a != assumed_b:
        parts.append(f"dims taken as 1 (no --dim): {', '.join(assumed_a) or 'none'} → {', '.join(assumed_b) or 'none'}")
    if a.inputs_file != b.inputs_file:
        parts.append(f"--inputs {a.inputs_file or 'none'} → {b.inputs_file or 'none'}")
    return parts


def _predicted_view(report: Report) -> Report | None:
    """What ``report`` predicts: its prediction for a requested provider that did not load, or itself (--static)."""
    if report.prediction is not None:
        return report.prediction
    return report if report.evidence.mode == "static" else None


def _provider(report: Report) -> str:
    active = report.evidence.session.active_providers
    return active[0] if active else "?"


def _predicted(a: Report, b: Report) -> tuple[PredictedDiff | None, str]:
    """The predictions of a and b compared, where both have one and one of them is not the report itself (two
    --static reports are compared as they are); else None and, where only one has one, why they are not."""
    pa, pb = _predicted_view(a), _predicted_view(b)
    if a.prediction is None and b.prediction is None:
        return None, ""
    if pa is None or pb is None:
        which, other, one = ("a", "b", pa) if pa is not None else ("b", "a", pb)
        assert one is not None
        return None, (f"Predicted transfers: only {which} has a prediction (for {_provider(one)}, which did not load "
                      f"there); {other} measured its session: not compared")
    provider = _provider(pa) if _provider(pa) == _provider(pb) else f"{_provider(pa)} → {_provider(pb)}"
    sa, sb = pa.summary, pb.summary
    deltas = [
        Delta("host↔device bytes per run (predicted)", sa.bytes_per_run, sb.bytes_per_run, "bytes",
              _unknown(pa), _unknown(pb)),
        Delta("host↔device copies per run (predicted)", sa.copies_per_run, sb.copies_per_run),
    ]
    return PredictedDiff(provider=provider, copies=_match(pa.copies, pb.copies, _copy_key, _compare_copies),
                         findings=_match(pa.findings, pb.findings, _finding_key, _compare_findings),
                         deltas=deltas), ""


def diff_reports(a: Report, b: Report, a_name: str = "a", b_name: str = "b") -> ReportDiff:
    """Compare two reports: how their inputs differ, transfers and findings matched by key (of their predictions
    too), the main numbers and the environment."""
    sa, sb = a.summary, b.summary
    deltas = [
        Delta("host↔device bytes per run", sa.bytes_per_run, sb.bytes_per_run, "bytes", _unknown(a), _unknown(b)),
        Delta("host↔device copies per run", sa.copies_per_run, sb.copies_per_run),
        Delta("median run", sa.median_run_ms, sb.median_run_ms, "ms"),
        Delta("CPU fallback nodes", sa.fallback_nodes, sb.fallback_nodes),
    ]
    predicted, note = _predicted(a, b)
    return ReportDiff(
        a_name=a_name, b_name=b_name, a=a, b=b,
        copies=_match(a.copies, b.copies, _copy_key, _compare_copies),
        findings=_match(a.findings, b.findings, _finding_key, _compare_findings),
        deltas=deltas, environment=_environment(a, b), inputs=_inputs(a.evidence, b.evidence),
        predicted=predicted, predicted_note=note,
    )


def diff_files(a_path: Path | str, b_path: Path | str) -> ReportDiff:
    """Compare two report (or evidence) JSON files, re-analysed; they are named by their paths."""
    return diff_reports(load_report(a_path), load_report(b_path), str(a_path), str(b_path))


# --- text ---------------------------------------------------------------------------------------------------------


__all__ = ["diff_files", "diff_reports"]
