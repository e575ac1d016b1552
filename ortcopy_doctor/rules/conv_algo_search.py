"""OCD015 conv-algo-search: A new input shape costs a cuDNN algorithm search."""

from __future__ import annotations

from ortcopy_doctor.model.findings import Finding, Severity
from ortcopy_doctor.rules.registry import Rule, RuleContext, finding, register

RULE = Rule(
    id="OCD015", slug="conv-algo-search", severity=Severity.INFO, location="session",
    title="A new input shape costs a cuDNN algorithm search",
    help=("With ORT's default cudnn_conv_algo_search=EXHAUSTIVE, the CUDA provider benchmarks convolution "
          "algorithms at the first run at each new input shape (on the H200, again at every change of shape). "
          "Where inputs vary in size, HEURISTIC (or padding to a few fixed shapes) avoids most of it; the report "
          "gives the measured trade-off."),
)

# Named where EXHAUSTIVE's first run is this much slower than HEURISTIC's (and at least twice as slow).
MIN_SAVING_MS = 20.0


@register(RULE)
def conv_algo_search(ctx: RuleContext) -> list[Finding]:
    """OCD015: the first run under each cudnn_conv_algo_search value (``evidence.provider_choice.search``)."""
    choice = ctx.evidence.provider_choice
    timings = {t.option: t for t in (choice.search if choice is not None else [])}
    exhaustive, heuristic = timings.get("EXHAUSTIVE"), timings.get("HEURISTIC")
    if exhaustive is None or heuristic is None:
        return []
    saving = exhaustive.first_ms - heuristic.first_ms
    if saving < MIN_SAVING_MS or exhaustive.first_ms < 2 * heuristic.first_ms:
        return []
    cost = (heuristic.median_ms - exhaustive.median_ms) / exhaustive.median_ms if exhaustive.median_ms else 0.0
    steady = (f"{abs(cost):.0%} {'slower' if cost > 0 else 'faster'} in the steady state "
              f"({heuristic.median_ms:.3g} ms against {exhaustive.median_ms:.3g} ms per run)")
    default = timings.get("DEFAULT")
    also = (f"; DEFAULT (no search): first run {default.first_ms:.4g} ms, then {default.median_ms:.3g} ms per run"
            if default is not None else "")
    return [finding(
        RULE,
        f"The first run at a new input shape takes {exhaustive.first_ms:.4g} ms with cudnn_conv_algo_search "
        f"EXHAUSTIVE (ORT's default) and {heuristic.first_ms:.4g} ms with HEURISTIC, which is {steady}{also}",
        "Where inputs vary in size (OCR pages, detection at the image's size): create the session with "
        "providers=[('CUDAExecutionProvider', {'cudnn_conv_algo_search': 'HEURISTIC'}), 'CPUExecutionProvider'] "
        f"(inputs vary in size: HEURISTIC cuts the first run at a new shape from {exhaustive.first_ms:.4g} ms to "
        f"{heuristic.first_ms:.4g} ms at a {cost:+.0%} steady-state cost), or pad inputs to a few fixed shapes and "
        "keep EXHAUSTIVE; with fixed shapes, keep the default",
        location="session", exhaustive_first_ms=exhaustive.first_ms, heuristic_first_ms=heuristic.first_ms,
        exhaustive_ms=exhaustive.median_ms, heuristic_ms=heuristic.median_ms, steady_cost=round(cost, 4))]
