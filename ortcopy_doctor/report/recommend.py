"""The recommendation: the fastest correct variant of the binding A/B, with its speed-up and 95% interval.

Pure (reads the report; no onnxruntime), so recorded evidence gives the same advice anywhere. Rules:

* the candidates are the variants with code of their own, each run as printed next to plain run() first
  (collect/code_check.py): the binding plan (``infer()``), everything bound on the device, and the CUDA graph. A
  variant whose code raised or gave other outputs did not run: it is never recommended (a finding says so,
  rules/generated_code.py), and never silently replaced by plain run() while another variant ran faster;
* a variant is faster or slower than another only where the 95% interval of the ratio of their medians excludes
  1 (stats.py); otherwise within noise;
* the plan is recommended where it is measurably faster than plain run(); everything bound on the device where
  measurably faster than plain run() and than the plan (it binds tensors that CPU nodes read, which the plan keeps
  on the host); the CUDA graph where it is ready (it ran: no blocker) and measurably faster than what would be
  recommended otherwise; where nothing is measurably faster, plain run() (no change), with the reason. Never a
  variant slower than plain run();
* what a variant needs from the caller (fixed shapes, reused device buffers, ``update_inplace``) is listed with
  the gain.

The JSON of the report carries ``advice`` (``Advice`` below; docs/json-format.md), so CI can gate on the gain
left on the table (``--fail-on-gain``).
"""

from __future__ import annotations

from msgspec.structs import replace
from typing import TYPE_CHECKING

from ortcopy_doctor.report.variants import (
    SHORT_LABELS,
    VARIANT_LABELS,
    Comparison,
    _variant,
    compare,
    cuda_graph_blockers,
    is_all_cpu,
    median_interval,
    speedup_ci,
)
from ortcopy_doctor.analysis.binding import (DEVICE, UNBOUND, all_device_plan, code_verdict, cpu_provider_code,
                                            render_cuda_graph_code)
from ortcopy_doctor.model.evidence import BindingMeasurement, VariantTiming
from ortcopy_doctor.model.format import fmt_bytes
from ortcopy_doctor.analysis.stats import RatioCI
# The recommendation's types live in model/report.py; named here too, where the public API and older code import them.
from ortcopy_doctor.model.report import Advice as Advice, VariantAdvice as VariantAdvice
from ortcopy_doctor.model.vocabulary import AdviceStatus, CiMethod, Variant, VariantVerdict

if TYPE_CHECKING:
    from ortcopy_doctor.model.report import Report

CANDIDATES = ("plan", "all_device", "cuda_graph")
LEGACY_CANDIDATES = ("plan", "cuda_graph")
HEAD_LABELS = {"plain": "plain run()", "plan": "the binding plan", "all_device": "everything bound on the device",
               "cuda_graph": "the CUDA graph"}


def _transfers(v: VariantTiming | None) -> tuple[int | None, int | None]:
    if v is None or v.h2d_count is None or v.d2h_count is None:
        return None, None
    return (v.h2d_count or 0) + (v.d2h_count or 0), (v.h2d_bytes or 0) + (v.d2h_bytes or 0)


def needs_of(report: Report, variant: str) -> list[str]:
    """What the caller must keep or do for ``variant``'s gain."""
    plan = report.binding
    if variant == "cuda_graph":
        return ["fixed shapes: every input and output keeps the shape measured here (a new shape needs a new "
                "session, or another graph via gpu_graph_id)",
                "fixed buffer addresses: write each new input into the same device OrtValue with update_inplace(), "
                "never rebind; read the outputs from their pre-allocated device buffers",
                "keep the session alive: the first run captures the graph"]
    if variant not in ("plan", "all_device"):
        return []
    needs = []
    device_inputs = [e.name for e in plan.inputs if e.place == DEVICE and not e.state_pair]
    if device_inputs:
        needs.append(f"reuse the bound device input buffer{'s' if len(device_inputs) > 1 else ''} "
                     f"({', '.join(device_inputs)}): write new inputs with update_inplace() at the same shapes, "
                     "rebind on a new shape")
    if any(e.preallocate for e in plan.outputs if e.place != UNBOUND):
        needs.append("outputs are pre-allocated at these shapes: allocate them anew when a shape changes")
    if plan.state_pairs:
        needs.append("state stays on the device between runs (the code swaps the buffers)")
    if any(e.place == DEVICE and not e.state_pair for e in plan.outputs):
        needs.append("outputs stay on the device: copy to host only what you read")
    return needs


def _short_needs(variant: str, needs: list[str]) -> str:
    if variant == "cuda_graph":
        return "needs fixed shapes and fixed input buffers (update_inplace)"
    if any(n.startswith("reuse the bound device input") for n in needs):
        return "needs the device input buffers reused (update_inplace)"
    return ""


def _fmt_ci(ci: RatioCI) -> str:
    return f"{ci.ratio:.2f}x faster ({ci.level:.0%} CI {ci.low:.2f}–{ci.high:.2f}" + (
        ", approximate: no raw samples recorded)" if ci.method == CiMethod.SUMMARY else ")")


def _copies(n: int, nbytes: int) -> str:
    return f"{n} host↔device cop{'y' if n == 1 else 'ies'} ({fmt_bytes(nbytes)}) per run removed"


def advise(report: Report) -> Advice | None:
    """The recommendation for ``report``; None where its evidence has no measurement record (``analyse`` stores it
    as ``Report.advice``)."""
    if report.advice is not None:
        return report.advice
    advice = _with_provider_choice(_advise(report), report)
    if advice is None or advice.recommended in ("", "plain"):
        return advice
    return replace(advice, gain_left=advice.speedup_ci_low)


def _with_provider_choice(advice: Advice | None, report: Report) -> Advice | None:
    """``advice`` where the CPU provider measured faster than CUDA's plain run() at these inputs
    (``evidence.provider_choice``; issue 34) and faster than the variant chosen: the recommendation is the CPU
    provider, with its measured speed-up (``--fail-on-gain`` judges its lower bound), not a binding plan."""
    choice = report.evidence.provider_choice
    if advice is None or choice is None or choice.cpu is None or not choice.cpu_faster:
        return advice
    c = choice.cpu
    if advice.speedup is not None and advice.recommended not in ("", "plain") and advice.speedup >= c.ratio:
        return advice
    reason = (f"at these inputs the CPU provider ran the model in {c.other.median_ms:.3g} ms per run against "
              f"{c.used.median_ms:.3g} ms with CUDA's plain run() (numpy in and out, copies included, timed in turn; "
              f"{choice.cpu_threads}): launches and synchronisation cost more than the work; create the session with "
              "providers=['CPUExecutionProvider'] (OCD014)")
    headline = (f"Latency {c.used.median_ms:.3f} ms now (plain run() on CUDA) → {c.other.median_ms:.3f} ms on the CPU "
                f"provider: {c.ratio:.2f}x faster (95% CI {c.ratio_low:.2f}–{c.ratio_high:.2f}); keep this model on "
                "the CPU provider")
    code = cpu_provider_code(report.evidence)
    checked = code_verdict(report.evidence, "cpu_provider", code)
    if not checked.offered:  # run as printed, the CPU provider gave other outputs than CUDA: not recommended
        return replace(advice, notes=[*advice.notes, f"The CPU provider was faster ({c.ratio:.2f}x) but its code is "
                                                     f"{checked.text}"])
    return replace(advice, status=AdviceStatus.MEASURED, recommended=Variant.CPU_PROVIDER,
                   recommended_label=VARIANT_LABELS["cpu_provider"], reason=reason, headline=headline,
                   current_ms=c.used.median_ms, best_ms=c.other.median_ms, speedup=c.ratio,
                   speedup_ci_low=c.ratio_low, speedup_ci_high=c.ratio_high, ci_method=CiMethod.BOOTSTRAP_PAIRED,
                   needs=[], code=code, code_check=checked.text, copies_removed=None, bytes_removed=None,
                   host_jitter="")


def _advise(report: Report) -> Advice | None:
    m = report.evidence.binding_measurement
    if m is None:
        return None
    blockers = [b.text() for b in cuda_graph_blockers(report.evidence, report.binding, report.copies)] \
        if report.binding.applicable else []
    if m.status != "measured":
        return Advice(status=AdviceStatus.NOT_MEASURED, reason=m.reason,
                      headline=f"Best attainable latency not measured: {m.reason}",
                      cuda_graph_ready=report.binding.applicable and not blockers, cuda_graph_blockers=blockers)
    plain = _variant(m, "plain")
    advice = Advice(status=AdviceStatus.MEASURED, runs=m.runs, stop_reason=m.stop_reason, cuda_graph_blockers=blockers,
                    cuda_graph_ready=report.binding.applicable and not blockers)
    for v in m.variants:
        advice.variants.append(_variant_advice(report, plain, v))
    if plain is None or not plain.ran:
        reason = "plain run() did not run, so there is no baseline to compare with"
        return replace(advice, status=AdviceStatus.NOT_MEASURED, reason=reason,
                       headline=f"Best attainable latency not measured: {reason}")

    planned, graph = _variant(m, "plan"), _variant(m, "cuda_graph")
    plan_vs_plain = compare(plain, planned)
    graph_vs_plain = compare(plain, graph)
    graph_vs_plan = compare(planned, graph) if planned is not None and planned.ran else graph_vs_plain
    if graph is not None and graph.ran:
        advice = replace(advice, cuda_graph_vs_plan=graph_vs_plan.verdict)
    # Evidence recorded before the code blocks were run next to plain run() timed "everything bound" with a binding
    # of its own, not with code a report offers: there it stays a diagnostic variant.
    candidates = CANDIDATES if report.evidence.code_checks else LEGACY_CANDIDATES
    choice, choice_cmp, weighed = _choose(m, plain, candidates)
    advice = replace(advice, recommended=Variant(choice), recommended_label=VARIANT_LABELS[choice], current_ms=plain.median_ms,
                     needs=needs_of(report, choice))
    advice = replace(advice, reason=_reason(m, plain, choice, weighed, graph, blockers))

    best = _variant(m, choice)
    advice = replace(advice, best_ms=best.median_ms if best is not None else None)
    if choice_cmp is not None and choice_cmp.ci is not None:
        ci = choice_cmp.ci
        advice = replace(advice, speedup=ci.ratio, speedup_ci_low=ci.low, speedup_ci_high=ci.high,
                         ci_method=ci.method)
    cur_n, cur_b = _transfers(plain)
    best_n, best_b = _transfers(best)
    if cur_n is not None and best_n is not None and cur_b is not None and best_b is not None:
        advice = replace(advice, copies_removed=cur_n - best_n, bytes_removed=cur_b - best_b)
    advice = replace(advice, host_jitter=_host_jitter(plain, best, choice, choice_cmp))
    advice = _with_recommended_code(advice, report, choice)
    return replace(advice, headline=_headline(advice, choice_cmp, plan_vs_plain))


def _variant_advice(report: Report, plain: VariantTiming | None, v: VariantTiming) -> VariantAdvice:
    """One variant as the advice shows it: its median with its interval, its speed-up over ``plain`` (by the host
    clock and the GPU's) and the verdict on it, its transfers, and what it needs from the caller."""
    copies_per_run, bytes_per_run = _transfers(v)
    interval = median_interval(v)
    median_ci: tuple[float | None, float | None] = interval if interval is not None else (None, None)
    speedup: tuple[float | None, float | None, float | None] = (None, None, None)
    gpu_speedup: tuple[float | None, float | None, float | None] = (None, None, None)
    if not v.ran:
        verdict = VariantVerdict.NOT_RUN
    elif v.variant == "plain":
        verdict = VariantVerdict.BASELINE
    else:
        ci = speedup_ci(plain, v)
        if ci is None:
            verdict = VariantVerdict.NOT_COMPARED
        else:
            speedup, verdict = (ci.ratio, ci.low, ci.high), ci.verdict
        gci = speedup_ci(plain, v, gpu=True)
        if gci is not None:
            gpu_speedup = (gci.ratio, gci.low, gci.high)
    return VariantAdvice(
        variant=v.variant, label=v.label or VARIANT_LABELS.get(v.variant, v.variant), ran=v.ran, runs=v.runs,
        skipped_reason=v.skipped_reason, median_ms=v.median_ms, median_ci_low_ms=median_ci[0],
        median_ci_high_ms=median_ci[1], speedup=speedup[0], speedup_ci_low=speedup[1], speedup_ci_high=speedup[2],
        verdict=verdict, gpu_median_ms=v.gpu_median_ms, gpu_speedup=gpu_speedup[0],
        gpu_speedup_ci_low=gpu_speedup[1], gpu_speedup_ci_high=gpu_speedup[2], copies_per_run=copies_per_run,
        bytes_per_run=bytes_per_run, needs=needs_of(report, v.variant))


def _choose(m: BindingMeasurement, plain: VariantTiming,
            candidates: tuple[str, ...]) -> tuple[str, Comparison | None, list[str]]:
    """The choice, candidate by candidate: each measurably faster than plain run() and than the choice so far.
    Returns the choice ("plain" where none is), its comparison with plain run(), and how each candidate faster
    than plain run() fared against the choice before it."""
    choice, choice_cmp = "plain", None
    weighed: list[str] = []
    for name in candidates:
        candidate = _variant(m, name)
        if candidate is None or not candidate.ran:
            continue
        over_plain = compare(plain, candidate)
        if over_plain.verdict != "faster":
            continue
        if choice != "plain":
            over_choice = compare(_variant(m, choice), candidate)
            if over_choice.verdict != "faster":
                weighed.append(f"{HEAD_LABELS[name]} is not measurably faster than {HEAD_LABELS[choice]}: "
                               f"{over_choice.text}")
                continue
            weighed.append(f"{HEAD_LABELS[name]} is measurably faster than {HEAD_LABELS[choice]}: {over_choice.text}")
        choice, choice_cmp = name, over_plain
    return choice, choice_cmp, weighed


def _reason(m: BindingMeasurement, plain: VariantTiming, choice: str, weighed: list[str], graph: VariantTiming | None,
            blockers: list[str]) -> str:
    """Why ``choice``: no variant measurably faster (each one's interval said), or the choice against plain run()
    and the candidates weighed; then each candidate not offered because its code failed."""
    reasons = []
    if choice == "plain":
        said = []
        for name in CANDIDATES:
            tried = _variant(m, name)
            cmp = compare(plain, tried)
            if tried is not None and tried.ran and cmp.ci is not None:
                said.append(f"{SHORT_LABELS[name]} {cmp.ci.text()}")
            elif tried is not None and not tried.ran and (name == "plan" or tried.failed):
                said.append(f"{SHORT_LABELS[name]} did not run ({tried.skipped_reason})")
        reasons.append("no variant is measurably faster than plain run()" + (f": {'; '.join(said)}" if said else ""))
    else:
        chosen = _variant(m, choice)
        reasons.append(f"{HEAD_LABELS[choice]} is measurably faster than plain run() ({chosen.median_ms:.3f} ms vs "  # type: ignore[union-attr]
                       f"{plain.median_ms:.3f} ms)")
        reasons.extend(weighed)
        if choice == "all_device":
            reasons.append("it binds on the device tensors that CPU nodes read or write (ORT copies them for those "
                           "nodes), which the plan keeps on the host, and still measured faster")
        if choice != "cuda_graph" and (graph is None or not graph.ran) and blockers:
            reasons.append(f"the CUDA graph is blocked ({len(blockers)} blocker(s), listed under CUDA-graph readiness)")
    for name in CANDIDATES:
        tried = _variant(m, name)
        if tried is not None and tried.failed:
            reasons.append(f"{HEAD_LABELS[name]} is not offered: {tried.skipped_reason}")
    return "; ".join(reasons)


def _with_recommended_code(advice: Advice, report: Report, choice: str) -> Advice:
    """``advice`` with the code of the recommended variant and what running it next to plain run() showed; none
    where plain run() is recommended."""
    if choice == "cuda_graph":
        graph_code = render_cuda_graph_code(report.evidence, report.binding)
        advice = replace(advice, code=graph_code,
                         code_check=code_verdict(report.evidence, "cuda_graph", graph_code).text)
    elif choice == "all_device":
        everything_plan = all_device_plan(report.evidence, report.binding)
        code = "" if isinstance(everything_plan, str) else everything_plan.code
        advice = replace(advice, code=code, code_check=code_verdict(report.evidence, "all_device", code).text)
    elif choice == "plan":
        advice = replace(advice, code=report.binding.code, code_check=report.binding.code_check)
    return advice


def _host_jitter(plain: VariantTiming, best: VariantTiming | None, choice: str, cmp: Comparison | None) -> str:
    if best is None or choice == "plain" or cmp is None or cmp.ci is None:
        return ""
    gci = speedup_ci(plain, best, gpu=True)
    if gci is None:
        return "not checked: no CUDA-event timing in this record (it needs torch or cupy where it is measured)"
    if gci.verdict == cmp.ci.verdict:
        return f"no: the GPU clock (CUDA events) confirms it, {gci.text()}"
    return (f"possibly: the GPU clock (CUDA events) says {gci.text()} where the host clock says {cmp.ci.text()}; "
            "the difference may be host-side (jitter or Python overhead)")


def _headline(advice: Advice, cmp: Comparison | None, plan_vs_plain: Comparison) -> str:
    cur = advice.current_ms
    if advice.recommended == "plain" or cmp is None or cmp.ci is None:
        why = ""
        if plan_vs_plain.ci is not None:
            why = f" (plan {plan_vs_plain.ci.text()})"
        return (f"Latency {cur:.3f} ms with plain run(), the best measured: no variant is measurably faster{why}; "
                "keep plain run().")
    parts = [f"Latency {cur:.3f} ms now (plain run()) → {advice.best_ms:.3f} ms with {HEAD_LABELS[advice.recommended]}: "
             f"{_fmt_ci(cmp.ci)}"]
    if advice.copies_removed is not None and advice.bytes_removed is not None and advice.copies_removed > 0:
        parts.append(_copies(advice.copies_removed, advice.bytes_removed))
    short = _short_needs(advice.recommended, advice.needs)
    if short:
        parts.append(short)
    return ", ".join(parts) + "."


__all__ = ["Advice", "VariantAdvice", "advise", "needs_of", "is_all_cpu"]
