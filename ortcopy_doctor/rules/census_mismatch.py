"""OCD011 census-mismatch: The transfer census disagrees with the profile or the feeds."""

from __future__ import annotations

from typing import TYPE_CHECKING

from ortcopy_doctor.model.findings import Finding, Severity
from ortcopy_doctor.rules.registry import Rule, RuleContext, finding, register

if TYPE_CHECKING:
    from ortcopy_doctor.model.attribution import ConsistencyCheck

RULE = Rule(
    id="OCD011", slug="census-mismatch", severity=Severity.WARNING, location="census",
    title="The transfer census disagrees with the profile or the feeds",
    help=("A consistency check of the transfer census failed (bytes traced vs the profile's output sizes or the "
          'inputs fed). Re-run the check; if it persists the attribution needs a look.'),
)


@register(RULE)
def census_mismatches(ctx: RuleContext) -> list[Finding]:
    """OCD011: a failed consistency check of the census (bytes vs the profile's output sizes or the feeds)."""
    census = ctx.census
    if census is None:
        return []
    failed: dict[tuple[str, str], list[ConsistencyCheck]] = {}
    for check in census.mismatches:
        failed.setdefault((check.check, check.subject), []).append(check)
    findings = []
    for (name, subject), checks in failed.items():
        first = checks[0]
        findings.append(finding(
            RULE,
            f"{first.detail} (run {', '.join(str(c.run) for c in checks)})",
            "The numbers of this report for it are not ground truth: trust the census (the Transfer census section) "
            "and check the ORT version; report the mismatch to ortcopy-doctor if it repeats.",
            location=subject, check=name, expected=first.expected, observed=first.observed))
    return findings
