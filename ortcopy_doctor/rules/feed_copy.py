"""OCD004 feed-copy: Input is copied host-to-device on every run."""

from __future__ import annotations

from ortcopy_doctor.model.format import fmt_bytes, fmt_shape
from ortcopy_doctor.model.findings import Finding, Severity
from ortcopy_doctor.model.vocabulary import FEED
from ortcopy_doctor.rules.registry import Rule, RuleContext, finding, register

RULE = Rule(
    id="OCD004", slug="feed-copy", severity=Severity.WARNING, location="input",
    title="Input is copied host-to-device on every run",
    help=('A host input is copied to the device on every run. Bind it on the device with IO binding '
          '(`bind_ortvalue_input` with an OrtValue on the device) and run with `run_with_iobinding`.'),
)


@register(RULE)
def feed_copies(ctx: RuleContext) -> list[Finding]:
    """OCD004: Input is copied host-to-device on every run."""
    evidence = ctx.evidence
    copies = ctx.copies
    return [finding(
        RULE,
        f"Input '{c.tensor}' ({c.dtype}{fmt_shape(c.shape) if c.shape is not None else ', shape unknown'}) is copied host→device on every run ({fmt_bytes(c.bytes_per_run)}): {c.cause}",
        f"Bind it on the device: `binding.bind_ortvalue_input('{c.tensor}', ort.OrtValue.ortvalue_from_numpy(x, 'cuda', "
        f"{evidence.session.device_id}))` and run with `session.run_with_iobinding(binding)` (see the binding code)",
        location=c.tensor, bytes_per_run=c.bytes_per_run, predicted=evidence.mode == "static")
        for c in copies if c.kind == FEED]
