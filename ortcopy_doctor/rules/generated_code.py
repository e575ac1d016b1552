"""OCD013 generated-code-failed: A generated code block raised or gave other outputs than plain run()."""

from __future__ import annotations

from ortcopy_doctor.model.vocabulary import CODE_BLOCK_LABELS as BLOCK_LABELS
from ortcopy_doctor.model.findings import Finding, Severity
from ortcopy_doctor.rules.registry import Rule, RuleContext, finding, register

RULE = Rule(
    id="OCD013", slug="generated-code-failed", severity=Severity.WARNING, location="session",
    title="Generated code failed next to plain run()",
    help=('Every code block the report offers is run as printed for several calls next to plain run() and its '
          'outputs compared. A block that raised or gave other outputs is not offered and not recommended; the '
          'finding quotes what happened. Use plain run() or another block, and report the model to ortcopy-doctor.'),
)


@register(RULE)
def generated_code_failed(ctx: RuleContext) -> list[Finding]:
    """OCD013: Generated code failed next to plain run()."""
    evidence = ctx.evidence
    findings = []
    checked = set()
    for check in evidence.code_checks:
        if check.status not in ("failed", "differs"):
            continue
        checked.add(check.block)
        label = BLOCK_LABELS.get(check.block, check.block)
        what = "raised" if check.status == "failed" else "gave other outputs than plain run()"
        where = "the CUDA EP" if check.device == "cuda" else "CPU OrtValues"
        findings.append(finding(
            RULE, f"{label[0].upper()}{label[1:]}, run as printed on {where}, {what}: {check.detail}; it is not offered",
            "Keep plain run() or use another block of the report; the code was generated for this model: report it",
            location="session", block=check.block, status=str(check.status), detail=check.detail))
    m = evidence.binding_measurement
    for variant in (m.variants if m is not None else []):
        if variant.failed and variant.variant not in checked:
            label = BLOCK_LABELS.get(variant.variant, variant.variant)
            findings.append(finding(
                RULE, f"{label[0].upper()}{label[1:]} failed while it was timed: {variant.skipped_reason}",
                "Keep plain run() or use another block of the report; the code was generated for this model: report it",
                location="session", block=variant.variant, status="failed", detail=variant.skipped_reason))
    return findings
