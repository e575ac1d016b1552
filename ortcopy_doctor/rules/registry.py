"""The rule registry: each rule is declared once (``Rule``: id, slug, severity, title, where it points, general
help, the kind of report it is of) with the function that checks it (``@register(RULE)``). Declaring an id or slug
twice fails at import.

A rule is of one kind of report (``Rule.report``): ``check`` (OCD0xx) reads a ``RuleContext``: the evidence plus
what ``analyse`` already computed from it (the copies, the graph view, the census attribution), so no rule
recomputes them; ``run`` (OCD1xx) reads a ``RunContext``: the pipeline report ``analyse_pipeline`` made of a
program's observations (its hand-offs, uploads, downloads, first calls at a shape, providers), before its findings.
"""

from __future__ import annotations

import msgspec
from collections.abc import Callable, Iterable
from typing import TYPE_CHECKING, Any, Optional

from ortcopy_doctor.model.findings import Finding, Severity

if TYPE_CHECKING:
    from ortcopy_doctor.model.attribution import CensusReport
    from ortcopy_doctor.model.binding import BindingPlan
    from ortcopy_doctor.analysis.copies import GraphView
    from ortcopy_doctor.model.copies import Copy
    from ortcopy_doctor.model.evidence import Evidence
    from ortcopy_doctor.model.pipeline import PipelineObservations, PipelineReport

# The project's home (also pyproject's [project.urls]) and the rules page, one section per rule (docs/rules.md).
PROJECT_URL = "https://github.com/ortcopy-doctor/ortcopy-doctor"
RULES_DOC_URL = f"{PROJECT_URL}/blob/main/docs/rules.md"

# What a finding's ``location`` names; "code": the program's code (file:function:line) of a run finding.
LOCATIONS = ("session", "node", "input", "output", "census", "code")
CHECK = "check"  # a rule of check's report (Report): OCD0xx
RUN = "run"  # a rule of run's report (PipelineReport): OCD1xx
REPORT_KINDS = (CHECK, RUN)


class Rule(msgspec.Struct, frozen=True):
    """A kind of finding: its id (OCD001), slug (ep-not-active), severity, one-line title, what its findings'
    ``location`` names, and what to do about it in general (SARIF's rule help; each finding carries its own fix)."""

    id: str
    slug: str
    severity: Severity
    title: str
    location: str = "session"
    help: str = ""
    report: str = CHECK  # the kind of report it is of (REPORT_KINDS): run_rules runs a kind's rules only


class RuleContext(msgspec.Struct, frozen=True):
    """What every rule reads: the evidence and what ``analyse`` computed from it."""

    evidence: Evidence
    copies: list[Copy]
    graph: GraphView
    census: Optional[CensusReport] = None
    binding: Optional[BindingPlan] = None  # the binding plan (analysis/binding.make_plan)


class RunContext(msgspec.Struct, frozen=True):
    """What every run rule reads: the pipeline report ``analyse_pipeline`` made (no findings yet) and the
    observations it was made of (the call and creation sites)."""

    report: PipelineReport
    observations: PipelineObservations


Check = Callable[[Any], list[Finding]]  # a check rule takes a RuleContext, a run rule a RunContext


class _Entry(msgspec.Struct, frozen=True):
    """A registered rule and the function that checks it."""

    rule: Rule
    check: Check


_REGISTRY: dict[str, _Entry] = {}
_SLUGS: dict[str, str] = {}


def register(rule: Rule) -> Callable[[Check], Check]:
    """Declare ``rule`` with the function below it; an id or slug declared twice raises ``ValueError``."""
    if rule.location not in LOCATIONS:
        raise ValueError(f"rule {rule.id}: location {rule.location!r} is not one of {', '.join(LOCATIONS)}")
    if rule.report not in REPORT_KINDS:
        raise ValueError(f"rule {rule.id}: report {rule.report!r} is not one of {', '.join(REPORT_KINDS)}")

    def decorator(check: Check) -> Check:
        if rule.id in _REGISTRY:
            raise ValueError(f"rule id {rule.id} is declared twice ({_REGISTRY[rule.id].check.__module__} and "
                             f"{check.__module__})")
        if rule.slug in _SLUGS:
            raise ValueError(f"rule slug {rule.slug} is declared twice ({_SLUGS[rule.slug]} and {rule.id})")
        _REGISTRY[rule.id] = _Entry(rule, check)
        _SLUGS[rule.slug] = rule.id
        return check

    return decorator


def registered(report: Optional[str] = None) -> list[Rule]:
    """Every declared rule, by id; ``report``: only the rules of that kind of report (CHECK, RUN)."""
    return [_REGISTRY[k].rule for k in sorted(_REGISTRY) if report is None or _REGISTRY[k].rule.report == report]


def checks(report: Optional[str] = None) -> list[tuple[Rule, Check]]:
    """Every declared rule with its check, by id; ``report``: only the rules of that kind of report."""
    return [(_REGISTRY[k].rule, _REGISTRY[k].check) for k in sorted(_REGISTRY)
            if report is None or _REGISTRY[k].rule.report == report]


def rule_help_uri(rule: Rule) -> str:
    """The rule's section of docs/rules.md (GitHub's anchor of the heading ``## OCD001 ep-not-active``)."""
    return f"{RULES_DOC_URL}#{rule.id.lower()}-{rule.slug}"


def finding(rule: Rule, message: str, fix: str, location: str, bytes_per_run: int | None = None,
            predicted: bool = False, **details: object) -> Finding:
    """A finding of ``rule``; ``details`` are the rule's own facts (in the JSON)."""
    return Finding(rule=rule.id, slug=rule.slug, severity=rule.severity, title=rule.title, message=message,
                   fix=fix, location=location, bytes_per_run=bytes_per_run, predicted=predicted, details=dict(details))


def is_allowed(finding: Finding, allow: Iterable[str]) -> bool:
    """Whether the team accepts this kind of finding (``--allow``, resolved to rule ids; slugs match too)."""
    names = allow if isinstance(allow, (set, frozenset)) else set(allow)
    return finding.rule in names or finding.slug in names


__all__ = ["CHECK", "LOCATIONS", "PROJECT_URL", "REPORT_KINDS", "RULES_DOC_URL", "RUN", "Rule", "RuleContext",
           "RunContext", "checks", "finding", "is_allowed", "register", "registered", "rule_help_uri"]
