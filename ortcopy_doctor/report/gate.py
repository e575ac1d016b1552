"""CI thresholds over a report: ``--fail-on``, ``--max-transfer-bytes``, ``--fail-on-gain`` and ``--allow``.

* ``--fail-on SEVERITY``: fail when a finding not allowed is at or above SEVERITY (error, warning, info; never).
* ``--max-transfer-bytes N``: fail when the host<->device bytes of one run (``summary.bytes_per_run``, every copy
  whatever ``--allow`` says) exceed N. N is a byte count, optionally with a decimal unit: 500000, 500KB, 1.5MB, 2GB.
* ``--fail-on-gain 1.2x``: fail when the binding A/B measured a speed-up of at least 1.2x over plain run() for the
  recommended variant, judged by the lower bound of its 95% interval (``advice.gain_left`` in the JSON), that
  the code does not take: the gain is left on the table. A report without a measurement is not judged (a note).
  It also judges the convolution search's recommendation (OCD015, unless allowed): the first run at a new input
  shape under HEURISTIC against ORT's default EXHAUSTIVE (one first run each); and, for a check at several shapes,
  what serving the shapes in turn recommends (``evaluate_sweep``: the lower bound of its interval).
* ``--allow KIND``: a finding kind the team accepts, by rule id (OCD004) or slug (feed-copy), repeatable. Allowed
  findings still appear in every report; they never fail the gate, and in SARIF they keep their result with level
  "note" and an accepted external suppression, so code-scanning UIs show them as dismissed rather than hide them.

A run report (``PipelineReport`` of ``ortcopy-doctor run``) is judged by ``evaluate_run``: ``--fail-on`` over its
findings (the run rules, OCD1xx) as above, ``--allow`` with the run rules' ids and slugs, and
``--max-transfer-bytes`` over the bytes one iteration of each pipeline's loop moves across PCIe (both directions).
``run --fail-on`` also takes its older spellings: ``round-trip`` (fail on a host round trip between stages or of
state: OCD101, OCD102, whatever --allow says) and ``host-transfer`` (fail where a session's user code made a
host<->device transfer), judged as before (``LEGACY_RUN_FAIL_ON``).

The gate reads only the report, so ``report RUN.json`` applies it to recorded evidence exactly as ``check`` did:
``report`` re-analyses the file's evidence whenever a gate is asked for, and the gate refuses a report whose
findings and numbers were read from a file as it holds them (``Report.from_cache``: a file's derived sections are
the file's word, which anyone can edit and seal again; report/seal.py).
"""

from __future__ import annotations

import msgspec
import re
from collections.abc import Iterable
from msgspec import field
from typing import TYPE_CHECKING

from ortcopy_doctor.model.errors import UsageError
from ortcopy_doctor.model.findings import SEVERITY_RANK, Finding, Severity
from ortcopy_doctor.rules import CHECK, RULES, is_allowed, rules_for
from ortcopy_doctor.model.format import fmt_bytes
from ortcopy_doctor.model.vocabulary import FailOn

if TYPE_CHECKING:
    from ortcopy_doctor.model.pipeline import PipelineReport
    from ortcopy_doctor.model.sweep import ShapeSweep
    from ortcopy_doctor.model.report import Report

SEVERITIES = tuple(level.value for level in FailOn)  # what --fail-on takes, in its order: error ... never
# run --fail-on's older spellings, judged as before the run rules: a round trip, a user transfer.
LEGACY_RUN_FAIL_ON = ("round-trip", "host-transfer")

_UNITS = {"": 1, "B": 1, "KB": 10**3, "MB": 10**6, "GB": 10**9, "KIB": 2**10, "MIB": 2**20, "GIB": 2**30}


def parse_bytes(text: str | int, flag: str = "--max-transfer-bytes") -> int:
    """``"1.5MB"`` -> 1500000; decimal units as the reports print them (KB = 1000 B), KiB/MiB/GiB binary."""
    if isinstance(text, int):
        value = text
    else:
        m = re.fullmatch(r"\s*(\d+(?:\.\d+)?)\s*([A-Za-z]*)\s*", str(text))
        unit = m.group(2).upper() if m else ""
        if not m or unit not in _UNITS:
            raise UsageError(f"{flag} {text!r} is not a byte count: give e.g. 500000, 500KB, 1.5MB or 2GiB")
        number = float(m.group(1)) * _UNITS[unit]
        if not number < 2**63:  # also inf, from hundreds of digits
            raise UsageError(f"{flag} {str(text)[:40]!r}... is too large: give a byte count below 2^63")
        value = int(number)
    if value < 0:
        raise UsageError(f"{flag} {text!r} is negative: give a byte count of 0 or more")
    return value


def parse_gain(text: str | float, flag: str = "--fail-on-gain") -> float:
    """``"1.2x"``, ``"1.2"`` or ``"20%"`` -> 1.2: a speed-up factor of at least 1."""
    if isinstance(text, (int, float)):
        value = float(text)
    else:
        m = re.fullmatch(r"\s*(\d+(?:\.\d+)?)\s*(x|×|%)?\s*", str(text), flags=re.IGNORECASE)
        if not m:
            raise UsageError(f"{flag} {text!r} is not a speed-up: give e.g. 1.2x, 1.2 or 20%")
        value = float(m.group(1))
        if m.group(2) == "%":
            value = 1.0 + value / 100.0
    if value < 1.0:
        raise UsageError(f"{flag} {text!r} is below 1x: give a speed-up factor of 1 or more, e.g. 1.2x")
    return value


def resolve_allow(values: Iterable[str], flag: str = "--allow", report: str = CHECK) -> frozenset[str]:
    """Rule ids and slugs as given (comma-separated or repeated), checked against the rules of ``report``'s kind
    (CHECK, RUN): a rule of the other kind is refused, saying whose it is."""
    rules = rules_for(report)
    known = {r.id.upper(): r for r in rules} | {r.slug: r for r in rules}
    every = {r.id.upper(): r for r in RULES} | {r.slug: r for r in RULES}
    allowed: set[str] = set()
    for value in values:
        for part in str(value).split(","):
            part = part.strip()
            if not part:
                continue
            rule = known.get(part.upper()) or known.get(part.lower())
            if rule is None:
                other = every.get(part.upper()) or every.get(part.lower())
                choices = ", ".join(f"{r.id}/{r.slug}" for r in rules)
                if other is not None:
                    raise UsageError(f"{flag} {part!r} is a rule of {other.report} reports ({other.id} {other.slug}), "
                                     f"not of {report} ones: give one of {choices}")
                raise UsageError(f"{flag} {part!r} is not a finding kind: give a rule id or slug ({choices})")
            allowed.add(rule.id)
    return frozenset(allowed)


class Gate(msgspec.Struct, frozen=True):
    """The CI thresholds: --fail-on, --max-transfer-bytes, --allow and --fail-on-gain."""

    fail_on: FailOn = FailOn.ERROR
    max_transfer_bytes: int | None = None
    allow: frozenset[str] = field(default_factory=frozenset)  # rule ids (resolve_allow)
    fail_on_gain: float | None = None  # speed-up factor (parse_gain)

    @property
    def judges(self) -> bool:
        """Whether any threshold is set: ``--fail-on`` other than never, ``--max-transfer-bytes``, ``--fail-on-gain``."""
        return self.fail_on != FailOn.NEVER or self.max_transfer_bytes is not None or self.fail_on_gain is not None


class GateResult(msgspec.Struct, frozen=True):
    """The gate's outcome: whether it failed and why, the findings it allowed and what it could not judge."""

    failed: bool
    reasons: list[str]  # one line per threshold crossed
    allowed: list[Finding]  # findings the gate ignored because of --allow
    notes: list[str] = field(default_factory=list)  # what the gate could not judge

    @property
    def exit_code(self) -> int:
        """1 where the gate failed, else 0."""
        return 1 if self.failed else 0


def evaluate(report: Report, gate: Gate) -> GateResult:
    """Whether ``report`` passes ``gate``, and why not. ``ValueError`` where a threshold is set and ``report`` was
    read from a file's cache (``Report.from_cache``, ``load_report(cache=True)``): a gate judges what this code
    makes of the evidence, never what a file says it made."""
    if gate.judges:
        report.require_analysed("the CI gate")
    reasons: list[str] = []
    notes: list[str] = []
    allowed = [f for f in report.findings if is_allowed(f, gate.allow)]
    reasons += _failing(report.findings, gate)
    if gate.max_transfer_bytes is not None:
        total = report.summary.bytes_per_run
        if total > gate.max_transfer_bytes:
            reasons.append(f"host↔device bytes per run {fmt_bytes(total)} ({total} B) exceed --max-transfer-bytes "
                           f"{gate.max_transfer_bytes} B")
        unknown = sum(1 for c in report.copies if c.bytes_per_run is None)
        if unknown:
            notes.append(f"--max-transfer-bytes: {unknown} cop{'y' if unknown == 1 else 'ies'} of unknown size "
                         "not counted")
    if gate.fail_on_gain is not None:
        advice = report.advice
        if advice is None or advice.status != "measured":
            why = "no binding measurement in this report" if advice is None else advice.reason
            notes.append(f"--fail-on-gain: not judged: {why}")
        elif advice.gain_left is not None and advice.gain_left >= gate.fail_on_gain:
            measured = (f"a measured speed-up of {advice.speedup:.2f}x (95% CI {advice.speedup_ci_low:.2f}–"
                        f"{advice.speedup_ci_high:.2f})" if advice.speedup is not None
                        and advice.speedup_ci_high is not None else "a measured speed-up")
            reasons.append(f"{measured} with {advice.recommended_label} is left on the table: its lower bound "
                           f"{advice.gain_left:.2f}x is at or above --fail-on-gain {gate.fail_on_gain:g}x")
        reasons += _search_gain(report.findings, gate)
    return GateResult(bool(reasons), reasons, allowed, notes)


def _search_gain(findings: list[Finding], gate: Gate) -> list[str]:
    """--fail-on-gain over the convolution search's recommendation (OCD015, unless allowed): the first run at a
    new input shape under HEURISTIC against ORT's default EXHAUSTIVE, one first run each (no interval: a fresh
    session's first run happens once)."""
    assert gate.fail_on_gain is not None
    for f in findings:
        if f.rule != "OCD015" or is_allowed(f, gate.allow):
            continue
        exhaustive, heuristic = f.details.get("exhaustive_first_ms"), f.details.get("heuristic_first_ms")
        if not isinstance(exhaustive, (int, float)) or not isinstance(heuristic, (int, float)) or heuristic <= 0:
            continue
        gain = exhaustive / heuristic
        if gain >= gate.fail_on_gain:
            return [f"the first run at a new input shape is {gain:.2f}x faster with cudnn_conv_algo_search HEURISTIC "
                    f"({heuristic:.4g} ms against {exhaustive:.4g} ms with ORT's default EXHAUSTIVE; one first run "
                    f"each), at or above --fail-on-gain {gate.fail_on_gain:g}x (OCD015; --allow OCD015 where inputs "
                    "keep one shape)"]
    return []


def evaluate_sweep(sweep: ShapeSweep, gate: Gate) -> GateResult:
    """--fail-on-gain over what serving the sweep's shapes in turn recommends (``ShapeSweep.switch_recommended``):
    fails where its interval's lower bound against ORT's default is at or above the threshold; each shape's report
    is judged by ``evaluate``."""
    if gate.fail_on_gain is None or sweep.switch is None or not sweep.switch_recommended:
        return GateResult(False, [], [])
    best = next(o for o in sweep.switch.options if o.option == sweep.switch_recommended)
    if best.ratio_low < gate.fail_on_gain:
        return GateResult(False, [], [])
    return GateResult(True, [f"with the shape changing at every call, {sweep.switch_recommended} measured "
                             f"{best.ratio:.2f}x faster than ORT's default (95% CI {best.ratio_low:.2f}–"
                             f"{best.ratio_high:.2f}): its lower bound is at or above --fail-on-gain "
                             f"{gate.fail_on_gain:g}x"], [])


def _failing(findings: list[Finding], gate: Gate) -> list[str]:
    """The reason ``--fail-on`` fails on ``findings`` (those not allowed at or above its severity), if it does."""
    if gate.fail_on == FailOn.NEVER:
        return []
    rank = Severity(gate.fail_on).rank
    failing = [f for f in findings if not is_allowed(f, gate.allow) and SEVERITY_RANK[f.severity] >= rank]
    if not failing:
        return []
    kinds = sorted({f"{f.rule} {f.slug}" for f in failing})
    return [f"{len(failing)} finding(s) at or above --fail-on {gate.fail_on}: {', '.join(kinds)}"]


def evaluate_run(report: PipelineReport, gate: Gate, legacy: str = "") -> GateResult:
    """Whether the run report ``report`` passes ``gate`` (``--fail-on`` over its findings, ``--max-transfer-bytes``
    over each pipeline's bytes per iteration), and why not; ``legacy``: run --fail-on's older spelling
    (``LEGACY_RUN_FAIL_ON``), judged as before. ``--fail-on-gain`` has nothing to judge in a run report (a note)."""
    reasons = _failing(report.findings, gate)
    notes: list[str] = []
    if legacy == "round-trip" and report.round_trips:
        reasons.append(f"{len(report.round_trips)} host round trip(s) between stages (--fail-on round-trip)")
    if legacy == "host-transfer" and any(s.user_transfers for s in report.sessions):
        which = ", ".join(s.label for s in report.sessions if s.user_transfers)
        reasons.append(f"host<->device transfers made by the program's code in {which} (--fail-on host-transfer)")
    if gate.max_transfer_bytes is not None:
        for p in report.pipelines:
            moved = int((p.h2d_bytes_per_iteration or 0) + (p.d2h_bytes_per_iteration or 0))
            if moved > gate.max_transfer_bytes:
                predicted = " (predicted for the device)" if p.bytes_predicted else ""
                reasons.append(f"host↔device bytes per iteration of {' → '.join(p.sessions)} {fmt_bytes(moved)} "
                               f"({moved} B){predicted} exceed --max-transfer-bytes {gate.max_transfer_bytes} B")
    if gate.fail_on_gain is not None:
        notes.append("--fail-on-gain: not judged: a run report has no binding measurement (`check` measures one)")
    allowed = [f for f in report.findings if is_allowed(f, gate.allow)]
    return GateResult(bool(reasons), reasons, allowed, notes)


__all__ = ["Gate", "GateResult", "LEGACY_RUN_FAIL_ON", "SEVERITIES", "evaluate", "evaluate_run", "is_allowed",
           "parse_bytes", "parse_gain", "resolve_allow"]
