"""OCD103 possible-state-round-trip: State that may go through the host, traced by equal bytes alone."""

from __future__ import annotations

from ortcopy_doctor.model.findings import Finding, Severity
from ortcopy_doctor.model.pipeline import POSSIBLE_ROUND_TRIP
from ortcopy_doctor.rules.registry import RUN, Rule, RunContext, register
from ortcopy_doctor.rules.state_round_trip import state_findings

RULE = Rule(
    id="OCD103", slug="possible-state-round-trip", severity=Severity.INFO, location="code", report=RUN,
    title="Possible state round trip (equal bytes alone)",
    help=('An input of a session\'s call has the same bytes as an output of its previous call, and nothing else '
          'links them: the program may feed the state back through the host, or feed a constant the model returns '
          'unchanged. Not counted as a round trip; if it is state, keep it on the device as for state-round-trip.'),
)


@register(RULE)
def possible_state_round_trip(ctx: RunContext) -> list[Finding]:
    """OCD103: Possible state round trip (equal bytes alone)."""
    return state_findings(ctx, RULE, POSSIBLE_ROUND_TRIP)
