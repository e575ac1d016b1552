"""Binding advice that proves itself: what the A/B measurement says, what blocks a CUDA graph, which copies remain.

Pure: reads the evidence (with ``binding_measurement`` from measure.py), the plan and the copies; needs no
onnxruntime, so recorded evidence gives the same advice anywhere. The renderers show ``binding_view``.

Rules of the advice:

* variants are compared with plain ``run()`` by the 95% interval of the ratio of their medians (stats.py: a
  paired bootstrap over the interleaved rounds; approximate, from the quartiles, for older records without raw
  samples): faster or slower only where the interval excludes 1, else within noise. A plan measured slower
  beyond the noise is reported as slower, never hidden;
* the recommendation (recommend.py) is the fastest correct variant: the CUDA graph where it is ready and
  measurably faster, else the plan where measurably faster than plain run(), else plain run();
* a model whose compute nodes all run on CPU (ai.onnx.ml ops have no CUDA kernels) is advised not to bind on
  the device, with the measured plain vs everything-bound numbers as the reason;
* CUDA-graph readiness lists every blocker at once; the graph is measured only where none remains.
"""

from __future__ import annotations

from msgspec.structs import replace
from typing import TYPE_CHECKING

from ortcopy_doctor.model.binding import BindingPlan
from ortcopy_doctor.model.copies import Copy
from ortcopy_doctor.model.vocabulary import FEED, FETCH, IN_KERNEL, MEMCPY_NODE, Variant
# The view's type lives in model/report.py; named here too, where the public API and older code import it.
from ortcopy_doctor.model.report import BindingView as BindingView
from ortcopy_doctor.analysis.binding import HOST, UNBOUND, code_verdict, render_code, render_cuda_graph_code
from ortcopy_doctor.model.evidence import BindingMeasurement, Evidence, PinnedTiming, VariantTiming
from ortcopy_doctor.model.format import fmt_bytes
from ortcopy_doctor.analysis.stats import RatioCI
from ortcopy_doctor.report.recommend import advise
from ortcopy_doctor.report.variants import (
    D2H,
    MEMCPY_OPS,
    RECOMMENDED_LABELS,
    SHORT_LABELS,
    VARIANT_LABELS,
    _variant,
    bind_transfers,
    compare,
    cuda_graph_blockers,
    fmt_delta,
    is_all_cpu,
    median_interval,
)

if TYPE_CHECKING:
    from ortcopy_doctor.model.report import Report


def _ms(value: float | None) -> str:
    return "n/a" if value is None else f"{value:.3f} ms"


def _transfers(count: int | None, nbytes: int | None) -> str:
    if count is None:
        return "n/a"
    return f"{count} ({fmt_bytes(nbytes or 0)})" if count else "0"


# The columns of an A/B row (``BindingView.ab_rows``), as ``_ab_row`` makes them; the HTML template reads them all
# but ``variant`` and ``iqr`` (a report read from a file's cache is checked against them: core.cache_problem).
AB_ROW_KEYS = frozenset(("variant", "label", "status", "median", "p10_p90", "iqr", "h2d", "d2h", "source", "speedup",
                         "median_ci", "gpu_median", "recommended"))


def _ab_row(v: VariantTiming) -> dict[str, str]:
    return {
        "variant": v.variant,
        "label": VARIANT_LABELS.get(v.variant) or v.label or v.variant,
        "status": "ran" if v.ran else f"skipped: {v.skipped_reason}",
        "median": _ms(v.median_ms) if v.ran else "—",
        "p10_p90": f"{v.p10_ms:.3f} – {v.p90_ms:.3f} ms" if v.ran and v.p10_ms is not None and v.p90_ms is not None else "—",
        "iqr": f"{v.p25_ms:.3f} – {v.p75_ms:.3f} ms" if v.ran and v.p25_ms is not None and v.p75_ms is not None else "—",
        "h2d": _transfers(v.h2d_count, v.h2d_bytes),
        "d2h": _transfers(v.d2h_count, v.d2h_bytes),
        "source": v.transfer_source or "—",
        "speedup": "—",
        "median_ci": "—",
        "gpu_median": "—",
        "recommended": "",
    }


def _speedup_cell(va: object) -> str:
    if va is None:
        return "—"
    verdict = getattr(va, "verdict", "")
    if verdict == "baseline":
        return "baseline"
    low, high, ratio = getattr(va, "speedup_ci_low", None), getattr(va, "speedup_ci_high", None), getattr(va, "speedup", None)
    if ratio is None or low is None or high is None:
        return "—"
    word = {"faster": "faster", "slower": "slower", "within_noise": "within noise"}.get(verdict, verdict)
    return f"{ratio:.2f}x ({low:.2f}–{high:.2f}), {word}"


def _extra_transfers(base: VariantTiming | None, other: VariantTiming | None) -> int | None:
    if base is None or other is None or base.h2d_count is None or other.h2d_count is None:
        return None
    return (other.h2d_count or 0) + (other.d2h_count or 0) - (base.h2d_count or 0) - (base.d2h_count or 0)


def _copy_guidance(evidence: Evidence, plan: BindingPlan, copies: list[Copy]) -> list[str]:
    removable = [c for c in copies if c.removable_by_binding]
    memcpy = [c for c in copies if c.kind == MEMCPY_NODE]
    in_kernel = [c for c in copies if c.kind == IN_KERNEL]
    lines = []
    if removable:
        feeds = [c for c in removable if c.kind == FEED]
        fetches = [c for c in removable if c.kind == FETCH]
        lines.append(f"Binding removes the per-run round trips: {len(feeds)} feed and {len(fetches)} fetch cop"
                     f"{'y' if len(feeds) + len(fetches) == 1 else 'ies'} "
                     f"({fmt_bytes(sum(c.bytes_per_run or 0 for c in removable))} per run).")
    if memcpy:
        lines.append(f"It cannot remove the {len(memcpy)} Memcpy node(s) ({', '.join(c.tensor for c in memcpy)}): they sit "
                     "at a CPU/device boundary inside the graph; only a model or placement change removes them.")
    if in_kernel:
        lines.append(f"Nor the {len(in_kernel)} in-kernel transfer(s) ({', '.join(c.node for c in in_kernel)}): "
                     "the op reads data back by its nature.")
    for e in plan.outputs:
        if e.place == UNBOUND:
            lines.append(f"'{e.name}': {e.reason}.")
        elif e.place == HOST:
            lines.append(f"'{e.name}': produced in host memory, already there; no copy.")
        elif e.state_pair:
            lines.append(f"'{e.name}': state for the next run's '{e.state_pair}'; it stays on the device, copy it "
                         "only when you need to read it.")
        else:
            nbytes = next((c.bytes_per_run for c in copies if c.tensor == e.name and c.kind == FETCH), None)
            size = f" ({fmt_bytes(nbytes)})" if nbytes else ""
            lines.append(f"'{e.name}'{size}: on the device after the run. If the caller needs it on host, one "
                         "device→host copy is unavoidable: binding.copy_outputs_to_cpu() (every bound output) or "
                         "outputs[i].numpy() (this one); skip it where the next consumer is on the GPU (torch/cupy "
                         "through DLPack).")
    return lines


def binding_view(report: Report) -> BindingView | None:
    """What the renderers show under "Binding: measured"; None where the evidence has no measurement record."""
    evidence = report.evidence
    m = evidence.binding_measurement
    if m is None:
        return None
    plan, copies = report.binding, report.copies
    view = BindingView(status=m.status, one_line="", reason=m.reason, transfer_source=m.transfer_source,
                       notes=list(m.notes))
    view = replace(view, all_cpu=is_all_cpu(evidence))
    if plan.applicable:  # without a device there is nothing to copy back, capture or bind
        view = _with_code_and_graph(view, evidence, plan, copies)
    if m.status != "measured":
        view = replace(view, one_line=f"Binding not measured: {m.reason}")
        if view.all_cpu:
            view = replace(view, all_cpu_advice=("Do not bind on the device: every compute node runs on CPU, so binding inputs or "
                                                 "outputs on CUDA adds copies instead of removing them (not measured here)."))
        return view

    plain, planned = _variant(m, "plain"), _variant(m, "plan")
    all_device, graph = _variant(m, "all_device"), _variant(m, "cuda_graph")
    view = replace(view, ab_rows=[_ab_row(v) for v in m.variants])
    summary = []
    for v in (plain, planned, all_device, graph):
        if v is not None and v.ran:
            summary.append(f"{SHORT_LABELS[v.variant]} {v.median_ms:.3f} ms")

    # The recommendation, and the plan against plain run(), by the 95% interval of the ratio of medians.
    view, verdict = _with_recommendation(view, report, m)
    verdict = _plan_against_plain(view, m, plain, planned, verdict)

    # Everything on the device against plain run(): the reason an all-CPU model must not bind.
    view, verdict = _with_all_device(view, evidence, plan, plain, all_device, verdict)

    # CUDA graph.
    if view.graph_ready:
        view = _with_graph_measured(view, plain, planned, graph)

    # Phases, and the costs shown apart.
    view = _with_phases(view, m, evidence)

    # Pinned staging.
    if m.pinned is not None:
        view = replace(view, pinned=_pinned_text(m.pinned))
    view = replace(view, one_line=("Binding measured (" + f"{m.runs} runs, median): " + ", ".join(summary)
                                   + (f"; {verdict}" if verdict else "") + "."))
    return view


def _with_code_and_graph(view: BindingView, evidence: Evidence, plan: BindingPlan, copies: list[Copy]) -> BindingView:
    """``view`` with the binding code in each flavor (where its check offers it), the copy guidance, and the CUDA
    graph's readiness: its blockers, or its code where nothing blocks it."""
    blockers = cuda_graph_blockers(evidence, plan, copies)
    variants = []
    for flavor, block in (("onnxruntime", "plan"), ("torch", "plan_torch"), ("cupy", "plan_cupy")):
        code = render_code(evidence, plan, flavor)
        checked = code_verdict(evidence, block, code)
        variants.append((flavor, code if checked.offered else "", checked.text))
    view = replace(view, graph_blockers=[b.text() for b in blockers], graph_ready=not blockers,
                   copy_guidance=_copy_guidance(evidence, plan, copies), code_variants=variants)
    if blockers:
        return replace(view, graph_text=f"{len(blockers)} blocker(s) keep this model from a CUDA graph (all listed):")
    graph_code = render_cuda_graph_code(evidence, plan)
    checked = code_verdict(evidence, "cuda_graph", graph_code)
    return replace(view, graph_code=graph_code if checked.offered else "", graph_code_check=checked.text,
                   graph_text="No blocker: the model can run as a captured CUDA graph (code below); not measured.")


def _with_recommendation(view: BindingView, report: Report, m: BindingMeasurement) -> tuple[BindingView, str]:
    """``view`` with the recommendation (``recommend.advise``): the winner, why, its code, and each A/B row's
    speed-up, interval of the median and GPU median; and the verdict's words for the one-line summary."""
    advice = advise(report)
    verdict = ""
    if advice is not None and advice.status == "measured":
        view = replace(view, recommended=advice.recommended, needs=list(advice.needs), host_jitter=advice.host_jitter)
        if advice.recommended == "plain":
            view = replace(view, recommendation=f"Recommended: keep plain run() (no change): {advice.reason}.")
            verdict = "keep plain run(): no variant measurably faster"
        else:
            ci = RatioCI(advice.speedup, advice.speedup_ci_low, advice.speedup_ci_high,  # type: ignore[arg-type]
                         advice.ci_method, m.runs, m.runs, advice.ci_level)
            view = replace(view, recommendation=(f"Recommended: {RECOMMENDED_LABELS[advice.recommended]}, {ci.text()} than plain "
                                                 f"run(): {advice.reason}."))
            verdict = f"recommended: {SHORT_LABELS[advice.recommended]}, {advice.speedup:.2f}x faster"
            view = replace(view, recommended_code=advice.code)
        view = replace(view, notes=list(advice.notes) + view.notes)
        by_name = {va.variant: va for va in advice.variants}
        for row in view.ab_rows:
            va = by_name.get(row["variant"])
            row["speedup"] = _speedup_cell(va)
            row["median_ci"] = (f"{va.median_ci_low_ms:.3f} – {va.median_ci_high_ms:.3f} ms"
                                if va is not None and va.median_ci_low_ms is not None and va.median_ci_high_ms is not None
                                else "—")
            row["gpu_median"] = _ms(va.gpu_median_ms) if va is not None and va.gpu_median_ms is not None else "—"
            row["recommended"] = "yes" if row["variant"] == advice.recommended else ""
    return view, verdict


def _plan_against_plain(view: BindingView, m: BindingMeasurement, plain: VariantTiming | None,
                        planned: VariantTiming | None, verdict: str) -> str:
    """The plan against plain run() added to ``view``'s conclusions (or warnings, where within noise), with the
    warnings on approximate intervals and noisy timings; ``verdict`` with the plan's slowness put first."""
    plan_vs_plain = compare(plain, planned)
    if plan_vs_plain.verdict == "faster":
        view.conclusions.append(f"The plan is faster than plain run(): {plan_vs_plain.text}.")
    elif plan_vs_plain.verdict == "slower":
        verdict = f"plan SLOWER by {fmt_delta(plan_vs_plain.delta_ms or 0.0, signed=False)} beyond noise; " + verdict
        view.conclusions.append(f"The plan measured slower than plain run() beyond the noise (the 95% interval of the "
                                f"speed-up excludes 1): {plan_vs_plain.text}. Keep plain run() for this model at these "
                                "shapes.")
    elif plan_vs_plain.verdict == "within_noise":
        view.conclusions.append(f"No difference between the plan and plain run() beyond the noise: {plan_vs_plain.text}.")
        view.warnings.append(f"Within noise after {m.runs} runs (the 95% interval of the speed-up includes 1"
                             + (f"; sampling stopped: {m.stop_reason}" if m.stop_reason else "")
                             + "): a longer --measure-budget on an otherwise idle GPU may tell them apart.")
    elif planned is not None and not planned.ran:
        view.conclusions.append(f"The recommended plan did not run: {planned.skipped_reason}")
    if any(v.ran and not v.samples_ms for v in m.variants):
        view.warnings.append("This record has summaries only (no raw samples): the intervals are approximate, from "
                             "the median, quartiles and run count.")
    for v in m.variants:
        if v.ran and v.median_ms and v.p10_ms is not None and v.p90_ms is not None and (v.p90_ms - v.p10_ms) > v.median_ms:
            view.warnings.append(f"{VARIANT_LABELS.get(v.variant, v.variant)}: p10–p90 spans more than the median "
                                 f"({v.p10_ms:.3f} – {v.p90_ms:.3f} ms): the timings are noisy.")
    return verdict


def _with_all_device(view: BindingView, evidence: Evidence, plan: BindingPlan, plain: VariantTiming | None,
                     all_device: VariantTiming | None, verdict: str) -> tuple[BindingView, str]:
    """Everything bound on the device against plain run(): for an all-CPU model, the advice not to bind on CUDA
    (which also replaces ``verdict``); otherwise a conclusion where it measured slower."""
    all_vs_plain = compare(plain, all_device)
    extra = _extra_transfers(plain, all_device)
    if view.all_cpu:
        measured = (f"everything bound on CUDA took {all_vs_plain.text}"
                    if all_vs_plain.verdict != "not_compared" else "the everything-bound run could not be compared")
        more = f", with {extra} more host↔device transfer(s) per run" if extra else ""
        bound = bind_transfers(evidence, plan, "all_device").get(D2H)
        if bound:
            more += (f", plus {bound[0]} device→host cop{'y' if bound[0] == 1 else 'ies'} ({fmt_bytes(bound[1])}) "
                     "each time the inputs are bound (ORT copies a CUDA input that a CPU node reads back to host "
                     "when it is bound)")
        view = replace(view, all_cpu_advice=(f"Do not bind on CUDA: every compute node runs on CPU ({_cpu_ops(evidence)}), so binding "
                                             f"inputs and outputs on the device adds copies instead of removing them. Measured: "
                                             f"{measured} against plain run(){more}. Use plain run() (or a CPU-only session)"
                                             + (", or the plan's code, which binds every tensor on the host and measured faster."
                                                if view.recommended == "plan" else ".")))
        verdict = "do not bind on CUDA (all nodes on CPU)" + (
            f"; recommended: {SHORT_LABELS[view.recommended]} (host-only binding)" if view.recommended == "plan" else "")
    elif all_vs_plain.verdict == "slower":
        view.conclusions.append(f"Binding everything on the device is slower than plain run(): {all_vs_plain.text}; "
                                "the plan keeps host-side tensors on the host for that reason.")
    return view, verdict


def _with_graph_measured(view: BindingView, plain: VariantTiming | None, planned: VariantTiming | None,
                         graph: VariantTiming | None) -> BindingView:
    """``view``'s CUDA-graph line for a model nothing blocks: the graph measured against the plan (else plain
    run()), or why it was not measured."""
    graph_vs_plan = compare(planned if planned is not None and planned.ran else plain, graph)
    if graph is not None and graph.ran:
        against = "the plan" if planned is not None and planned.ran else "plain run()"
        view = replace(view, graph_text=(f"No blocker: measured with enable_cuda_graph=1: {graph_vs_plan.text} against "
                                         f"{against} without the graph ({graph_vs_plan.verdict.replace('_', ' ')})"
                                         + ("; recommended (its code under Binding code)." if view.recommended == "cuda_graph"
                                            else ".")))
        if view.recommended == "cuda_graph":
            view = replace(view, graph_code="")  # shown once, as the first code block of the report
        return view
    return replace(view, graph_text=("No blocker, but the CUDA graph was not measured: "
                                     f"{graph.skipped_reason if graph is not None else 'no record'}"))


def _with_phases(view: BindingView, m: BindingMeasurement, evidence: Evidence) -> BindingView:
    """``view`` with the phases timed apart (and the recommended variant's whole call next to them), and the costs
    shown apart: session creation and first runs."""
    for p in m.phases:
        what = p.what + (f" ({fmt_bytes(p.bytes)})" if p.bytes else "")
        spread = f"{p.p10_ms:.3f} – {p.p90_ms:.3f} ms" if p.p10_ms is not None and p.p90_ms is not None else "—"
        view.phase_rows.append((p.phase, what, _ms(p.median_ms), spread))
    winner = _variant(m, view.recommended) if view.recommended else None
    if winner is not None and winner.ran:
        interval = median_interval(winner)
        spread = f"95% CI of the median {interval[0]:.3f} – {interval[1]:.3f} ms" if interval else "—"
        view.phase_rows.append((f"whole call, {SHORT_LABELS[winner.variant]} (recommended)",
                                f"{VARIANT_LABELS[winner.variant]}: one call, everything included (the A/B above)",
                                _ms(winner.median_ms), spread))
    view = replace(view, phase_note=(f"Phases timed apart on the {'everything-bound' if m.phase_binding == Variant.ALL_DEVICE else 'planned'} "
                                     "binding, same inputs and shapes, after warm-up."))
    timings = evidence.timings
    if timings is not None:
        view.apart_rows.append(("session creation (plain session)", f"{timings.session_create_ms:.1f} ms"))
        view.apart_rows.append(("first run, plain run()", _ms(timings.first_run_ms)))
    for v in m.variants:
        if v.session_create_ms is not None:
            view.apart_rows.append((f"session creation and binding setup, {VARIANT_LABELS.get(v.variant, v.variant)}",
                                    f"{v.session_create_ms:.1f} ms"))
        if v.first_run_ms is not None:
            view.apart_rows.append((f"first run, {VARIANT_LABELS.get(v.variant, v.variant)}", _ms(v.first_run_ms)))
    return view


def _pinned_text(pinned: PinnedTiming) -> str:
    """The line on pinned staging: the upload from pageable memory against a pinned buffer, or why it was not
    measured ("" where neither is recorded)."""
    if pinned.skipped_reason:
        return f"Pinned staging not measured: {pinned.skipped_reason}"
    if pinned.pageable_ms is not None and pinned.pinned_ms is not None:
        ratio = pinned.pageable_ms / pinned.pinned_ms if pinned.pinned_ms else 0.0
        staging = f"; copying the numpy data into the pinned buffer costs {pinned.staging_ms:.3f} ms" if pinned.staging_ms is not None else ""
        return (f"Feeds that must come from host memory ({fmt_bytes(pinned.bytes)} per run): upload from pageable "
                f"numpy {pinned.pageable_ms:.3f} ms vs from a pinned buffer {pinned.pinned_ms:.3f} ms "
                f"({ratio:.1f}×, pinned buffer from {pinned.method}){staging}. Allocate the pinned buffer once "
                "(torch.empty(..., pin_memory=True) or cupyx.empty_pinned) and have the producer write into "
                "it, then update the bound device OrtValue in place.")
    return ""


def _cpu_ops(evidence: Evidence) -> str:
    ops: dict[str, int] = {}
    for n in evidence.nodes:
        if n.op_type in MEMCPY_OPS:
            continue
        key = f"{n.domain}:{n.op_type}" if n.domain else n.op_type
        ops[key] = ops.get(key, 0) + 1
    return ", ".join(f"{k}" + (f" ×{v}" if v > 1 else "") for k, v in ops.items())
