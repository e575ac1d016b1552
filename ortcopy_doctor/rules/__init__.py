"""Rules: small units that read a report's facts and return findings.

One module per rule, each declaring its ``Rule`` (id, slug, severity, title, help, the kind of report it is of)
once with ``@register`` (``rules.registry``). Check rules (OCD0xx) read the evidence and what ``analyse`` computed
from it; run rules (OCD1xx) read the pipeline report ``analyse_pipeline`` made of a program's observations.
``RULES`` lists every rule by id, ``CHECK_RULES`` and ``RUN_RULES`` those of one kind, and ``run_rules`` runs the
rules of its context's kind (a ``RuleContext``: check's; a ``RunContext``: run's).
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
from ortcopy_doctor.rules import host_round_trip
from ortcopy_doctor.rules import state_round_trip
from ortcopy_doctor.rules import possible_state_round_trip
from ortcopy_doctor.rules import session_on_cpu
from ortcopy_doctor.rules import host_upload
from ortcopy_doctor.rules import host_download
from ortcopy_doctor.rules import slow_new_shape
from ortcopy_doctor.rules import cpu_faster
from ortcopy_doctor.rules import shape_switch_cost
from ortcopy_doctor.model.findings import Finding, Severity
from ortcopy_doctor.rules.registry import (
    CHECK,
    PROJECT_URL,
    RULES_DOC_URL,
    RUN,
    Rule,
    RuleContext,
    RunContext,
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
HOST_ROUND_TRIP = host_round_trip.RULE
STATE_ROUND_TRIP = state_round_trip.RULE
POSSIBLE_STATE_ROUND_TRIP = possible_state_round_trip.RULE
SESSION_ON_CPU = session_on_cpu.RULE
HOST_UPLOAD = host_upload.RULE
HOST_DOWNLOAD = host_download.RULE
SLOW_NEW_SHAPE = slow_new_shape.RULE
CPU_FASTER = cpu_faster.RULE
SHAPE_SWITCH_COST = shape_switch_cost.RULE

RULES: list[Rule] = registered()  # every rule, of both kinds of report
CHECK_RULES: list[Rule] = registered(CHECK)  # check's (OCD0xx): its SARIF lists these
RUN_RULES: list[Rule] = registered(RUN)  # run's (OCD1xx)


def rules_for(report: str) -> list[Rule]:
    """The rules of one kind of report (CHECK, RUN), by id."""
    return CHECK_RULES if report == CHECK else RUN_RULES if report == RUN else []

_ORDER = {"error": 0, "warning": 1, "info": 2}


def run_rules(context: RuleContext | RunContext) -> list[Finding]:
    """The findings of every rule of the context's kind (a ``RuleContext``: check's rules; a ``RunContext``: run's),
    errors first, then by rule id (each rule's own order within)."""
    findings: list[Finding] = []
    for _rule, check in checks(RUN if isinstance(context, RunContext) else CHECK):
        findings.extend(check(context))
    return sorted(findings, key=lambda f: (_ORDER[f.severity], f.rule))


__all__ = [
    "CHECK", "CHECK_RULES", "PROJECT_URL", "RULES", "RULES_DOC_URL", "RUN", "RUN_RULES", "Finding", "Rule",
    "RuleContext", "RunContext", "Severity", "finding", "is_allowed", "rule_help_uri", "rules_for", "run_rules",
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
    "HOST_ROUND_TRIP",
    "STATE_ROUND_TRIP",
    "POSSIBLE_STATE_ROUND_TRIP",
    "SESSION_ON_CPU",
    "HOST_UPLOAD",
    "HOST_DOWNLOAD",
    "SLOW_NEW_SHAPE",
    "CPU_FASTER",
    "SHAPE_SWITCH_COST",
]
