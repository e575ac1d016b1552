"""Rules: small units that read the evidence (and what ``analyse`` computed from it) and return findings.

One module per rule, each declaring its ``Rule`` (id, slug, severity, title, help) once with ``@register``
(``rules.registry``); ``RULES`` lists them by id and ``run_rules`` runs them all.
"""

from __future__ import annotations

# Importing a rule's module declares it; the order of RULES is by id, not by these lines.
from ortcopy_doctor.rules import ep_not_active
from ortcopy_doctor.rules import cpu_fallback
from ortcopy_doctor.rules import memcpy_node
from ortcopy_doctor.rules import feed_copy
from ortcopy_doctor.rules import fetch_copy
from ortcopy_doctor.rules import unbindable_output
from ortcopy_doctor.rules import cpu_only_input
from ortcopy_doctor.rules import cpu_preferred_node
from ortcopy_doctor.rules import in_kernel_transfer
from ortcopy_doctor.rules import unexplained_transfer
from ortcopy_doctor.rules import census_mismatch
from ortcopy_doctor.rules import state_carried
from ortcopy_doctor.rules import generated_code
from ortcopy_doctor.rules import cpu_provider_faster
from ortcopy_doctor.rules import conv_algo_search
from ortcopy_doctor.model.findings import Finding, Severity
from ortcopy_doctor.rules.registry import (
    PROJECT_URL,
    RULES_DOC_URL,
    Rule,
    RuleContext,
    checks,
    finding,
    is_allowed,
    registered,
    rule_help_uri,
)

EP_NOT_ACTIVE = ep_not_active.RULE
CPU_FALLBACK = cpu_fallback.RULE
MEMCPY_NODE_RULE = memcpy_node.RULE
FEED_COPY = feed_copy.RULE
FETCH_COPY = fetch_copy.RULE
UNBINDABLE_OUTPUT = unbindable_output.RULE
CPU_ONLY_INPUT = cpu_only_input.RULE
CPU_PREFERRED = cpu_preferred_node.RULE
IN_KERNEL_TRANSFER = in_kernel_transfer.RULE
UNEXPLAINED_TRANSFER = unexplained_transfer.RULE
CENSUS_MISMATCH = census_mismatch.RULE
STATE_CARRIED = state_carried.RULE
GENERATED_CODE_FAILED = generated_code.RULE
CPU_PROVIDER_FASTER = cpu_provider_faster.RULE
CONV_ALGO_SEARCH = conv_algo_search.RULE

RULES: list[Rule] = registered()

_ORDER = {"error": 0, "warning": 1, "info": 2}


def run_rules(context: RuleContext) -> list[Finding]:
    """Every rule's findings, errors first, then by rule id (each rule's own order within)."""
    findings: list[Finding] = []
    for _rule, check in checks():
        findings.extend(check(context))
    return sorted(findings, key=lambda f: (_ORDER[f.severity], f.rule))


__all__ = [
    "PROJECT_URL", "RULES", "RULES_DOC_URL", "Finding", "Rule", "RuleContext", "Severity", "finding", "is_allowed",
    "rule_help_uri", "run_rules",
    "EP_NOT_ACTIVE",
    "CPU_FALLBACK",
    "MEMCPY_NODE_RULE",
    "FEED_COPY",
    "FETCH_COPY",
    "UNBINDABLE_OUTPUT",
    "CPU_ONLY_INPUT",
    "CPU_PREFERRED",
    "IN_KERNEL_TRANSFER",
    "UNEXPLAINED_TRANSFER",
    "CENSUS_MISMATCH",
    "STATE_CARRIED",
    "GENERATED_CODE_FAILED",
    "CPU_PROVIDER_FASTER",
    "CONV_ALGO_SEARCH",
]
