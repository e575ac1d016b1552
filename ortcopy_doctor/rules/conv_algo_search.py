"""OCD015 conv-algo-search: A new input shape costs a cuDNN algorithm search."""

from __future__ import annotations

import msgspec

from ortcopy_doctor.model.findings import Finding, Severity
from ortcopy_doctor.model.replay import SearchTiming
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
# The workspace line: named where EXHAUSTIVE with the other cudnn_conv_use_max_workspace cuts the first run by at
# least MIN_SAVING_MS and a quarter, at a steady-state cost of at most WORKSPACE_MAX_COST.
WORKSPACE_MAX_COST = 0.05


@register(RULE)
def conv_algo_search(ctx: RuleContext) -> list[Finding]:
    """OCD015: the first run under each cudnn_conv_algo_search value (``evidence.provider_choice.search``), and
    under EXHAUSTIVE with the other cudnn_conv_use_max_workspace where that was measured."""
    choice = ctx.evidence.provider_choice
    timings = {t.label: t for t in (choice.search if choice is not None else [])}
    exhaustive, heuristic = timings.get("EXHAUSTIVE"), timings.get("HEURISTIC")
    if exhaustive is None or heuristic is None:
        return []
    saving = exhaustive.first_ms - heuristic.first_ms
    if saving < MIN_SAVING_MS or exhaustive.first_ms < 2 * heuristic.first_ms:
        return []
    cost = _cost(heuristic, exhaustive)
    steady = (f"{abs(cost):.0%} {'slower' if cost > 0 else 'faster'} in the steady state "
              f"({heuristic.median_ms:.3g} ms against {exhaustive.median_ms:.3g} ms per run)")
    default = timings.get("DEFAULT")
    also = (f"; DEFAULT (no search): first run {default.first_ms:.4g} ms, then {default.median_ms:.3g} ms per run"
            if default is not None else "")
    workspace = next((t for t in timings.values() if t.max_workspace), None)
    also += _workspace_words(workspace, exhaustive)
    extra: dict[str, str | float] = ({"workspace": workspace.max_workspace, "workspace_first_ms": workspace.first_ms,
                                      "workspace_ms": workspace.median_ms} if workspace is not None else {})
    found = finding(
        RULE,
        f"The first run at a new input shape takes {exhaustive.first_ms:.4g} ms with cudnn_conv_algo_search "
        f"EXHAUSTIVE (ORT's default) and {heuristic.first_ms:.4g} ms with HEURISTIC, which is {steady}{also}",
        "Where inputs vary in size (OCR pages, detection at the image's size): create the session with "
        "providers=[('CUDAExecutionProvider', {'cudnn_conv_algo_search': 'HEURISTIC'}), 'CPUExecutionProvider'] "
        f"(inputs vary in size: HEURISTIC cuts the first run at a new shape from {exhaustive.first_ms:.4g} ms to "
        f"{heuristic.first_ms:.4g} ms at a {cost:+.0%} steady-state cost), or pad inputs to a few fixed shapes and "
        "keep EXHAUSTIVE (`check --dim`/`--shape` with the sizes measures both with the shape changing at every "
        f"call){_workspace_fix(workspace, exhaustive)}; with fixed shapes, keep the default",
        location="session", exhaustive_first_ms=exhaustive.first_ms, heuristic_first_ms=heuristic.first_ms,
        exhaustive_ms=exhaustive.median_ms, heuristic_ms=heuristic.median_ms, steady_cost=round(cost, 4))
    return [msgspec.structs.replace(found, details={**found.details, **extra})]


def _cost(option: SearchTiming, base: SearchTiming) -> float:
    """``option``'s steady state against ``base``'s, as a fraction (above 0: slower)."""
    return (option.median_ms - base.median_ms) / base.median_ms if base.median_ms else 0.0


def _workspace_serves(workspace: SearchTiming | None, exhaustive: SearchTiming) -> bool:
    return (workspace is not None and exhaustive.first_ms - workspace.first_ms >= MIN_SAVING_MS
            and workspace.first_ms <= 0.75 * exhaustive.first_ms and _cost(workspace, exhaustive) <= WORKSPACE_MAX_COST)


def _workspace_words(workspace: SearchTiming | None, exhaustive: SearchTiming) -> str:
    if workspace is None:
        return ""
    return (f"; EXHAUSTIVE with cudnn_conv_use_max_workspace={workspace.max_workspace}: first run "
            f"{workspace.first_ms:.4g} ms, then {workspace.median_ms:.3g} ms per run "
            f"({_cost(workspace, exhaustive):+.0%} in the steady state)")


def _workspace_fix(workspace: SearchTiming | None, exhaustive: SearchTiming) -> str:
    if workspace is None or not _workspace_serves(workspace, exhaustive):
        return ""
    return (f"; to keep EXHAUSTIVE's kernels, {{'cudnn_conv_use_max_workspace': '{workspace.max_workspace}'}} cuts "
            f"its first run from {exhaustive.first_ms:.4g} ms to {workspace.first_ms:.4g} ms at a "
            f"{_cost(workspace, exhaustive):+.0%} steady-state cost")
