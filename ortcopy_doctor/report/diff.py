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

Two run reports (``run --json``) are compared by ``diff_run_reports``: each pipeline (matched by its sessions in
order) with its bytes host→device and device→host per iteration, its iteration time and its host round trips; the
findings by rule and subject (what a finding is about, so that a call moved to another line is the same finding).
A regression is a finding that appears in b and not in a.

Two sweeps (``check --dim batch=1,8,64 --json``) are compared by ``diff_sweeps``: their shapes matched by label
(those only in a or only in b listed), and each common shape's two reports, re-analysed, compared by
``diff_reports``. A regression is one at any common shape.

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
    ADDED, CHANGED, REMOVED, STATUS_ORDER, UNCHANGED, Change, Delta, PipelineChange, PredictedDiff, ReportDiff, RunDiff,
    ShapeDiff, SweepDiff,
)
from ortcopy_doctor.model.evidence import Evidence, Feed
from ortcopy_doctor.model.format import active_providers, fmt_bytes
from ortcopy_doctor.model.pipeline import ROUND_TRIP
from ortcopy_doctor.report.core import analyse, load_report

if TYPE_CHECKING:
    from ortcopy_doctor.model.pipeline import Pipeline, PipelineReport
    from ortcopy_doctor.model.report import Report
    from ortcopy_doctor.model.sweep import ShapeResult, ShapeSweep

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


# --- run reports --------------------------------------------------------------------------------------------------


def _run_finding_key(f: Finding) -> tuple[str, ...]:
    return (f.rule, str(f.details.get("subject", "") or f.location))


def _compare_run_findings(a: Finding, b: Finding) -> list[str]:
    what = []
    if a.severity != b.severity:
        what.append(f"severity {a.severity} → {b.severity}")
    if a.bytes_per_run != b.bytes_per_run:
        what.append(f"bytes per iteration {fmt_bytes(a.bytes_per_run)} → {fmt_bytes(b.bytes_per_run)}")
    if a.location != b.location:
        what.append(f"at {a.location} → {b.location}")
    ms_a, ms_b = a.details.get("ms"), b.details.get("ms")  # a first call's time (slow-new-shape)
    if isinstance(ms_a, (int, float)) and isinstance(ms_b, (int, float)) and ms_a != ms_b:
        what.append(f"first call {ms_a:.3f} ms → {ms_b:.3f} ms")
    if a.message != b.message and not what:
        what.append("message changed")
    return what


def _trips(p: Pipeline | None) -> float | None:
    """The host round trips of a pipeline: between its stages and of state (possible ones not counted)."""
    if p is None:
        return None
    return float(len(p.round_trips) + sum(1 for s in p.state if s.kind == ROUND_TRIP))


def _pipeline_deltas(a: Pipeline | None, b: Pipeline | None) -> list[Delta]:
    def value(p: Pipeline | None, field: str) -> float | None:
        return None if p is None else getattr(p, field)

    return [
        Delta("bytes host→device per iteration", value(a, "h2d_bytes_per_iteration"),
              value(b, "h2d_bytes_per_iteration"), "bytes"),
        Delta("bytes device→host per iteration", value(a, "d2h_bytes_per_iteration"),
              value(b, "d2h_bytes_per_iteration"), "bytes"),
        Delta("iteration time (median)", value(a, "iteration_ms"), value(b, "iteration_ms"), "ms"),
        Delta("host round trips", _trips(a), _trips(b)),
    ]


def _match_pipelines(a: PipelineReport, b: PipelineReport) -> list[PipelineChange]:
    """The pipelines of a and b paired by their sessions in order (the n-th of equal ones with the n-th); b's order,
    those only in a after. Changed: their bytes per iteration or round trips differ (times always do)."""
    remaining: dict[str, list[Pipeline]] = {}
    for p in a.pipelines:
        remaining.setdefault(" → ".join(p.sessions), []).append(p)
    result: list[PipelineChange] = []
    for p in b.pipelines:
        key = " → ".join(p.sessions)
        queue = remaining.get(key)
        old = queue.pop(0) if queue else None
        deltas = _pipeline_deltas(old, p)
        if old is None:
            status = ADDED
        else:
            moved = [d for d in deltas if d.unit != "ms" and d.change]
            status = CHANGED if moved else UNCHANGED
        result.append(PipelineChange(status, key, deltas))
    for key, left in remaining.items():
        result += [PipelineChange(REMOVED, key, _pipeline_deltas(p, None)) for p in left]
    return result


def diff_run_reports(a: PipelineReport, b: PipelineReport, a_name: str = "a", b_name: str = "b") -> RunDiff:
    """Compare two run reports: each pipeline's bytes per iteration, iteration time and round trips, and the
    findings matched by rule and subject."""
    return RunDiff(a_name=a_name, b_name=b_name, a=a, b=b, pipelines=_match_pipelines(a, b),
                   findings=_match(a.findings, b.findings, _run_finding_key, _compare_run_findings))


# --- sweeps -------------------------------------------------------------------------------------------------------


def diff_sweeps(a: ShapeSweep, b: ShapeSweep, a_name: str = "a", b_name: str = "b") -> SweepDiff:
    """Compare two sweeps shape by shape (matched by label): each common shape's two reports, re-analysed from their
    evidence under the current rules, compared by ``diff_reports``, named ``A.json [batch=8]``. A label a sweep
    lists twice (a ``--shapes`` file may) pairs its n-th with the other's n-th."""
    remaining: dict[str, list[ShapeResult]] = {}
    for row in a.shapes:
        remaining.setdefault(row.label, []).append(row)
    shapes: list[ShapeDiff] = []
    only_b: list[str] = []
    for row in b.shapes:
        queue = remaining.get(row.label)
        if not queue:
            only_b.append(row.label)
            continue
        old = queue.pop(0)
        shapes.append(ShapeDiff(label=row.label, a=old, b=row,
                                diff=diff_reports(analyse(old.report.evidence), analyse(row.report.evidence),
                                                  f"{a_name} [{row.label}]", f"{b_name} [{row.label}]")))
    only_a = [label for label, left in remaining.items() for _ in left]
    return SweepDiff(a_name=a_name, b_name=b_name, a=a, b=b, shapes=shapes, only_a=only_a, only_b=only_b)


__all__ = ["diff_files", "diff_reports", "diff_run_reports", "diff_sweeps"]
