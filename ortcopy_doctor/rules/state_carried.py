"""OCD012 state-carried: An output is the next run's input (recurrent state), or may be."""

from __future__ import annotations

from ortcopy_doctor.model.findings import Finding, Severity
from ortcopy_doctor.rules.registry import Rule, RuleContext, finding, register

RULE = Rule(
    id="OCD012", slug="state-carried", severity=Severity.INFO, location="input",
    title="State carried from one run to the next",
    help=('An output of one run is the input of the next (RNN state, a KV cache): the binding code keeps it on the '
          'device and swaps the two buffers, never copying it to host. A pair is taken only on evidence: --state '
          'IN=OUT, a recurrent node, or an exporter\'s naming convention; names alike alone are a guess, said but '
          'not carried.'),
)

_BASIS_WORDS = {
    "given": "as --state {i}={o} says",
    "recurrent_node": "the initial state of a recurrent node in, its final state out",
    "convention": "named as exporters name recurrent state",
}


@register(RULE)
def state_carried(ctx: RuleContext) -> list[Finding]:
    """OCD012: State carried from one run to the next."""
    plan = ctx.binding
    if plan is None or not plan.applicable:
        return []
    predicted = ctx.evidence.mode == "static"
    findings = []
    for entry in plan.inputs:
        if not entry.state_pair:
            continue
        why = _BASIS_WORDS.get(entry.state_basis, entry.state_basis).format(i=entry.name, o=entry.state_pair)
        findings.append(finding(
            RULE,
            f"Output '{entry.state_pair}' is taken as the next run's input '{entry.name}' ({why}): the binding code "
            "keeps both on the device and swaps their buffers between runs",
            f"Feed '{entry.state_pair}' back as '{entry.name}' on the device as the code does; if it is not state, "
            "bind each with its own buffer",
            location=entry.name, predicted=predicted, output=entry.state_pair, basis=entry.state_basis))
    for guess in plan.possible_state:
        if guess.basis != "guess":  # state on evidence, which the code cannot carry here (the detail says why)
            why = _BASIS_WORDS.get(guess.basis, guess.basis).format(i=guess.input, o=guess.output)
            findings.append(finding(
                RULE,
                f"Output '{guess.output}' is the next run's input '{guess.input}' ({why}), but the binding code does "
                f"not carry it: {guess.detail.split('; ', 1)[-1]}",
                f"Size the inputs (--dim, --shape) and check again for code that keeps '{guess.output}' on the device",
                location=guess.input, predicted=predicted, output=guess.output, basis=str(guess.basis)))
            continue
        findings.append(finding(
            RULE,
            f"Output '{guess.output}' may be the next run's input '{guess.input}' (names alike and the same shape and "
            "dtype, nothing more): a guess, so the binding code treats them as independent",
            f"If the program feeds '{guess.output}' back as '{guess.input}', check with --state "
            f"{guess.input}={guess.output} for code that keeps it on the device",
            location=guess.input, predicted=predicted, output=guess.output, basis=str(guess.basis)))
    return findings
