"""The CI gate's flags of ``check`` and ``report`` together (SARIF and trace are formats of the renderers' registry)."""

from __future__ import annotations

import msgspec
from collections.abc import Iterable
from typing import TYPE_CHECKING, Any

from ortcopy_doctor.render.terminal import safe
from ortcopy_doctor.report.gate import Gate, evaluate, parse_bytes, parse_gain, resolve_allow

if TYPE_CHECKING:
    from ortcopy_doctor.model.report import Report


class CiOptions(msgspec.Struct, frozen=True):
    """The CI gate's flags of ``check`` and ``report`` together.

    ``parse`` checks them all before any work (a bad --allow fails up front with exit 2). SARIF and trace are
    rendered and written as every format is, through the renderers' registry (render/registry.py, cli/outputs.py).
    """

    gate: Gate

    @classmethod
    def parse(cls, fail_on: str, max_transfer_bytes: str | int | None = None, allow: Iterable[str] = (),
              fail_on_gain: str | None = None) -> CiOptions:
        """The options from the command's flags, checked before any work: a bad --max-transfer-bytes, --allow or
        --fail-on-gain raises ``UsageError`` (exit 2)."""
        limit = None if max_transfer_bytes is None else parse_bytes(max_transfer_bytes)
        gain = None if fail_on_gain is None else parse_gain(fail_on_gain)
        return cls(Gate(fail_on=fail_on, max_transfer_bytes=limit, allow=resolve_allow(allow), fail_on_gain=gain))

    @property
    def judges(self) -> bool:
        """Whether the gate judges the report (``--fail-on`` other than never, ``--max-transfer-bytes``,
        ``--fail-on-gain``): then the report must be this code's analysis of the file's evidence, never the file's
        derived sections as it holds them (``load_report``'s ``cache``). A format that judges (SARIF) says so in
        the registry."""
        return self.gate.judges

    def exit_code(self, report: Report, console: Any = None, quiet: bool = False) -> int:
        """0 when the report passes the gate, else 1; the reasons go to ``console`` (a rich Console) unless quiet."""
        result = evaluate(report, self.gate)
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
