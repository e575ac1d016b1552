"""A diff of two reports as data (``ortcopy_doctor.report.diff`` computes it, ``ortcopy_doctor.render.diff``
renders it): each transfer and finding added, removed, changed or unchanged, the deltas, the environment; of two
run reports (``RunDiff``): each pipeline's bytes per iteration, iteration time and round trips, and the findings; of
two sweeps (``SweepDiff``): the shapes matched by label, each common one's reports diffed as two check reports."""

from __future__ import annotations

import msgspec
from msgspec import field
from pathlib import Path
from typing import TYPE_CHECKING, Any, Generic, Sequence, TypeVar

from ortcopy_doctor.model.copies import Copy
from ortcopy_doctor.model.findings import Finding
from ortcopy_doctor.model.format import fmt_bytes
from ortcopy_doctor.model.vocabulary import Word

if TYPE_CHECKING:
    from ortcopy_doctor.model.pipeline import PipelineReport
    from ortcopy_doctor.model.report import Report
    from ortcopy_doctor.model.sweep import ShapeResult, ShapeSweep


class DiffStatus(Word):
    """How a transfer or finding changed from report a to report b."""

    ADDED = "added"
    REMOVED = "removed"
    CHANGED = "changed"
    UNCHANGED = "unchanged"


ADDED = DiffStatus.ADDED
REMOVED = DiffStatus.REMOVED
CHANGED = DiffStatus.CHANGED
UNCHANGED = DiffStatus.UNCHANGED
STATUS_ORDER = {ADDED: 0, REMOVED: 1, CHANGED: 2, UNCHANGED: 3}
SIGN = {ADDED: "+", REMOVED: "-", CHANGED: "~", UNCHANGED: " "}

T = TypeVar("T")

# Every Direction and CopyKind has its label (tests/report/test_diff.py checks that none is missing).
_ARROW = {"host_to_device": "host→device", "device_to_host": "device→host", "device_to_device": "device→device"}
_KIND = {"feed": "feed copy", "fetch": "fetch copy", "memcpy_node": "Memcpy node", "in_kernel": "in-kernel",
         "unexplained": "unexplained transfer"}


class Change(msgspec.Struct, Generic[T], frozen=True):
    """One transfer or finding (``T``) matched by ``key`` between report a and report b, and how it changed."""

    status: DiffStatus  # added, removed, changed, unchanged
    key: tuple[str, ...]
    before: T | None
    after: T | None
    what: list[str] = field(default_factory=list)  # for changed: "bytes per run 1.0 KB → 2.0 KB", ...


class Delta(msgspec.Struct, frozen=True):
    """A number in a and in b (None where it was not measured)."""

    label: str
    before: float | None
    after: float | None
    unit: str = ""  # "bytes", "ms", ""
    # Copies of unknown size in a and in b: not in ``before``/``after`` (never counted as 0 B), counted apart.
    before_unknown: int = 0
    after_unknown: int = 0

    @property
    def change(self) -> float | None:
        """b minus a; None where either was not measured."""
        if self.before is None or self.after is None:
            return None
        return self.after - self.before

    @property
    def percent(self) -> float | None:
        """The change in percent of a; None where it is unknown or a is 0."""
        if self.change is None or not self.before:
            return None
        return 100.0 * self.change / self.before

    def fmt(self, value: float | None, unknown: int = 0) -> str:
        """``value`` in this delta's unit; "n/a" where None; with ``unknown`` copies of unknown size, said apart
        ("12 B + 1 of unknown size"; "2 of unknown size" where no size is known)."""
        if value is None:
            return "n/a"
        if self.unit == "bytes":
            if unknown:
                return f"{fmt_bytes(int(value)) + ' + ' if value else ''}{unknown} of unknown size"
            return fmt_bytes(int(value))
        if self.unit == "ms":
            return f"{value:.3f} ms"
        return f"{value:g}"

    def text(self) -> str:
        """``a → b (+change, +percent%)``, or ``(no change)``; where copies of unknown size are on either side, the
        change of the known sizes, and the unknown ones counted apart."""
        result = f"{self.fmt(self.before, self.before_unknown)} → {self.fmt(self.after, self.after_unknown)}"
        change = self.change
        if change is None:
            return result
        unknown = self.before_unknown or self.after_unknown
        apart = f"; of unknown size: {self.before_unknown} → {self.after_unknown}" if unknown else ""
        known = "known sizes: " if unknown else ""
        if change == 0:
            return result + f" ({known}no change{apart})"
        sign = "+" if change > 0 else "-"
        magnitude = self.fmt(abs(change)) if self.unit else f"{abs(change):g}"
        pct = f", {sign}{abs(self.percent):.1f}%" if self.percent is not None else ""
        return f"{result} ({known}{sign}{magnitude}{pct}{apart})"


class PredictedDiff(msgspec.Struct, frozen=True):
    """The predictions of a and b compared (each for a requested provider that did not load, or ``--static``):
    their transfers and findings matched as the measured ones are, and their per-run numbers."""

    provider: str
    copies: list[Change[Copy]]
    findings: list[Change[Finding]]
    deltas: list[Delta]  # bytes per run, copies per run (predicted)


class ReportDiff(msgspec.Struct, frozen=True):
    """The difference between report a and report b: their transfers and findings matched, the deltas and the
    environment that differs."""

    a_name: str
    b_name: str
    a: Report
    b: Report
    copies: list[Change[Copy]]
    findings: list[Change[Finding]]
    deltas: list[Delta]  # bytes per run, copies per run, median run
    environment: list[tuple[str, str, str]]  # (what, in a, in b), only what differs
    # How the inputs of the two checks differ ("x 1x3x320x320 → 1x3x640x640"): what the copies' sizes follow.
    inputs: list[str] = field(default_factory=list)
    # The predictions compared, where a and b each have one and they are not the reports themselves (--static);
    # ``predicted_note`` says why not, where only one of them has one.
    predicted: PredictedDiff | None = None
    predicted_note: str = ""

    @property
    def model_change(self) -> str | None:
        """A warning where a and b are not reports of the same model file (by sha256), or where a file does not
        say which model it is (written without the hash); None for the same model."""
        ha, hb = self.a.evidence.model.sha256, self.b.evidence.model.sha256
        if ha and hb and ha == hb:
            return None
        if not ha or not hb:
            which = " and ".join(n for n, h in (("a", ha), ("b", hb)) if not h)
            return (f"Model unknown: {which} records no model hash (written by an older ortcopy-doctor), so whether "
                    "both reports are of the same model cannot be told")
        return (f"Different models: a is {Path(self.a.evidence.model.path).name} (sha256 {ha[:12]}…), b is "
                f"{Path(self.b.evidence.model.path).name} (sha256 {hb[:12]}…): this compares two models, not two runs "
                "of one (--fail-on-model-change exits 1 on this)")

    @property
    def model_changed(self) -> bool:
        """True only where both hashes are known and differ (what --fail-on-model-change fails on)."""
        ha, hb = self.a.evidence.model.sha256, self.b.evidence.model.sha256
        return bool(ha and hb and ha != hb)

    @property
    def regressions(self) -> list[Change[Any]]:
        """Transfers and findings that appear in b and not in a, predicted ones included."""
        changes: list[Change[Any]] = [*self.copies, *self.findings]
        if self.predicted is not None:
            changes += [*self.predicted.copies, *self.predicted.findings]
        return [c for c in changes if c.status == ADDED]

    @property
    def headline(self) -> str:
        """``Regression: ... added.`` (measured, then predicted), or that nothing was added."""
        def added(changes: Sequence[Change[Any]]) -> int:
            return sum(1 for c in changes if c.status == ADDED)

        predicted = self.predicted
        if not self.regressions:
            return ("No new transfers or findings." if predicted is None
                    else "No new transfers or findings, measured or predicted.")
        text = f"Regression: {added(self.copies)} transfer(s) and {added(self.findings)} finding(s) added"
        if predicted is not None:
            text += (f"; predicted for {predicted.provider}: {added(predicted.copies)} transfer(s) and "
                     f"{added(predicted.findings)} finding(s) added")
        return text + "."

    def counts(self, changes: Sequence[Change[Any]]) -> dict[str, int]:
        """How many of ``changes`` are added, removed, changed and unchanged."""
        result: dict[str, int] = {ADDED: 0, REMOVED: 0, CHANGED: 0, UNCHANGED: 0}
        for c in changes:
            result[c.status] += 1
        return result


class PipelineChange(msgspec.Struct, frozen=True):
    """One pipeline (loop of sessions, by their order) of run report a matched with b's, and its numbers in each."""

    status: DiffStatus  # added, removed, changed (bytes or round trips), unchanged
    sessions: str  # "det.onnx → cls.onnx"
    deltas: list[Delta]  # bytes up and down per iteration, iteration time, round trips


class RunDiff(msgspec.Struct, frozen=True):
    """The difference between two run reports (``ortcopy-doctor run --json``): their pipelines matched by their
    sessions, their findings by rule and subject (what a finding is about, not the line it is at)."""

    a_name: str
    b_name: str
    a: PipelineReport
    b: PipelineReport
    pipelines: list[PipelineChange]
    findings: list[Change[Finding]]

    @property
    def regressions(self) -> list[Change[Any]]:
        """Findings that appear in b and not in a."""
        return [c for c in self.findings if c.status == ADDED]

    @property
    def headline(self) -> str:
        """``Regression: N finding(s) added.``, or that none was."""
        if not self.regressions:
            return "No new findings."
        return f"Regression: {len(self.regressions)} finding(s) added."

    @property
    def model_changed(self) -> bool:
        """Never: two run reports are of programs, which --fail-on-model-change does not judge."""
        return False

    def counts(self, changes: Sequence[Change[Any]]) -> dict[str, int]:
        """How many of ``changes`` are added, removed, changed and unchanged."""
        result: dict[str, int] = {ADDED: 0, REMOVED: 0, CHANGED: 0, UNCHANGED: 0}
        for c in changes:
            result[c.status] += 1
        return result


class ShapeDiff(msgspec.Struct, frozen=True):
    """One shape (by its label) in both sweeps: its row in each, and the diff of its two reports."""

    label: str
    a: ShapeResult
    b: ShapeResult
    diff: ReportDiff


class SweepDiff(msgspec.Struct, frozen=True):
    """The difference between two sweeps (``check --dim batch=1,8,64 --json``): the shapes matched by label, those
    only in a or only in b, each common shape's two reports diffed (``ReportDiff``), and the break-even in each."""

    a_name: str
    b_name: str
    a: ShapeSweep
    b: ShapeSweep
    shapes: list[ShapeDiff]  # in b's order
    only_a: list[str]  # labels of shapes a has and b not
    only_b: list[str]

    @property
    def regressions(self) -> list[Change[Any]]:
        """What any common shape's diff counts as a regression (a transfer or finding in b and not in a)."""
        return [c for s in self.shapes for c in s.diff.regressions]

    @property
    def regressed(self) -> list[str]:
        """The labels of the common shapes that regress."""
        return [s.label for s in self.shapes if s.diff.regressions]

    @property
    def headline(self) -> str:
        """``Regression at N of M shapes: ...``, or that no common shape has anything new."""
        if not self.shapes:
            return "No shape in both sweeps: nothing compared."
        regressed = self.regressed
        if not regressed:
            return f"No new transfers or findings at any of the {len(self.shapes)} shape(s) in both sweeps."
        return f"Regression at {len(regressed)} of {len(self.shapes)} shape(s): {', '.join(regressed)}."

    @property
    def model_changed(self) -> bool:
        """True where any common shape's two reports are of different model files (by sha256)."""
        return any(s.diff.model_changed for s in self.shapes)


__all__ = ["ADDED", "CHANGED", "Change", "Delta", "DiffStatus", "PipelineChange", "PredictedDiff", "REMOVED",
           "ReportDiff", "RunDiff", "SIGN", "STATUS_ORDER", "ShapeDiff", "SweepDiff", "UNCHANGED"]
