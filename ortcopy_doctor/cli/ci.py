"""The CI gate's flags of ``check``, ``report`` and ``run`` together (SARIF and trace are formats of the renderers'
registry)."""

from __future__ import annotations

import msgspec
from collections.abc import Iterable
from typing import TYPE_CHECKING, Any, cast

from ortcopy_doctor.render.terminal import safe
from ortcopy_doctor.model.errors import UsageError
from ortcopy_doctor.model.vocabulary import FailOn
from ortcopy_doctor.report.gate import (LEGACY_RUN_FAIL_ON, SEVERITIES, Gate, GateResult, evaluate, evaluate_run,
                                        evaluate_sweep, parse_bytes, parse_gain, resolve_allow)
from ortcopy_doctor.rules import CHECK, RUN

if TYPE_CHECKING:
    from ortcopy_doctor.model.pipeline import PipelineReport
    from ortcopy_doctor.model.report import Report
    from ortcopy_doctor.model.sweep import ShapeSweep


class CiOptions(msgspec.Struct, frozen=True):
    """The CI gate's flags of ``check`` and ``report`` together.

    ``parse`` checks them all before any work (a bad --allow fails up front with exit 2). SARIF and trace are
    rendered and written as every format is, through the renderers' registry (render/registry.py, cli/outputs.py).
    """

    gate: Gate
    legacy: str = ""  # run --fail-on's older spelling (round-trip, host-transfer), judged as before
    report: str = CHECK  # the kind of report it judges: CHECK (a Report) or RUN (a PipelineReport)

    @classmethod
    def parse(cls, fail_on: str, max_transfer_bytes: str | int | None = None, allow: Iterable[str] = (),
              fail_on_gain: str | None = None, report: str = CHECK) -> CiOptions:
        """The options from the command's flags, checked before any work: a bad --max-transfer-bytes, --allow or
        --fail-on-gain raises ``UsageError`` (exit 2). ``report``: the kind of report judged (CHECK, RUN), whose
        rules --allow names; RUN's --fail-on also takes its older spellings (``LEGACY_RUN_FAIL_ON``)."""
        legacy = ""
        if report == RUN and fail_on in LEGACY_RUN_FAIL_ON:
            legacy, fail_on = fail_on, "never"
        if fail_on not in SEVERITIES:
            choices = SEVERITIES + (LEGACY_RUN_FAIL_ON if report == RUN else ())
            raise UsageError(f"--fail-on {fail_on!r}: choose one of {', '.join(choices)}")
        limit = None if max_transfer_bytes is None else parse_bytes(max_transfer_bytes)
        gain = None if fail_on_gain is None else parse_gain(fail_on_gain)
        return cls(Gate(fail_on=FailOn(fail_on), max_transfer_bytes=limit, allow=resolve_allow(allow, report=report),
                        fail_on_gain=gain), legacy, report)

    @property
    def judges(self) -> bool:
        """Whether the gate judges the report (``--fail-on`` other than never, ``--max-transfer-bytes``,
        ``--fail-on-gain``): then the report must be this code's analysis of the file's evidence, never the file's
        derived sections as it holds them (``load_report``'s ``cache``). A format that judges (SARIF) says so in
        the registry."""
        return self.gate.judges or bool(self.legacy)

    def exit_code(self, report: Report | PipelineReport, console: Any = None, quiet: bool = False) -> int:
        """0 when the report (a check's or a run's) passes the gate, else 1; the reasons go to ``console`` (a rich
        Console) unless quiet."""
        if self.report == RUN:
            result = evaluate_run(cast("PipelineReport", report), self.gate, self.legacy)
        else:
            result = evaluate(cast("Report", report), self.gate)
        return self._said(result, console, quiet)

    def sweep_exit_code(self, sweep: ShapeSweep, console: Any = None, quiet: bool = False) -> int:
        """0 when what serving a sweep's shapes in turn recommends passes --fail-on-gain, else 1 (each shape's
        report is judged by ``exit_code``); the reason goes to ``console`` unless quiet."""
        return self._said(evaluate_sweep(sweep, self.gate), console, quiet)

    @staticmethod
    def _said(result: GateResult, console: Any, quiet: bool) -> int:
        if console is not None and not quiet:
            # rich where used (`check -q` loads none): lazy_import("rich.markup") would import the package rich now
            from rich.markup import escape

            # the lines quote the report (rule ids, labels, reasons naming tensors): untrusted text
            for note in result.notes:
                console.print(escape(safe(f"note: {note}")))
            for reason in result.reasons:
                console.print(escape(safe(f"gate failed: {reason}")))
        return result.exit_code


__all__ = ["CiOptions"]
