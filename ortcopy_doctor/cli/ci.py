"""The CI flags of ``check`` and ``report`` together: the gate, plus the SARIF and trace files to write."""

from __future__ import annotations

import msgspec
from collections.abc import Iterable
from pathlib import Path
from typing import TYPE_CHECKING, Any

from ortcopy_doctor.render.output import STDOUT, check_writable
from ortcopy_doctor.report.gate import Gate, evaluate, parse_bytes, parse_gain, resolve_allow

if TYPE_CHECKING:
    from ortcopy_doctor.report.core import Report


class CiOptions(msgspec.Struct, frozen=True):
    """The CI flags of ``check`` and ``report`` together: the gate, plus the SARIF and trace files to write.

    ``parse`` checks them all before any work (a bad --allow or an unwritable --sarif fails up front with exit 2).
    The command line renders and writes SARIF and trace as it does every format, through the renderers' registry
    (render/registry.py, cli/outputs.py); it gives ``parse`` the gate's flags alone.
    """

    gate: Gate
    sarif: Path | None = None
    trace: Path | None = None

    @classmethod
    def parse(cls, fail_on: str, max_transfer_bytes: str | int | None = None, allow: Iterable[str] = (),
              sarif: Path | None = None, trace: Path | None = None, fail_on_gain: str | None = None) -> CiOptions:
        """The options from the command's flags, checked before any work: a bad --max-transfer-bytes, --allow or
        --fail-on-gain, or an unwritable --sarif or --trace path, raises ``UsageError`` (exit 2)."""
        for path, flag in ((sarif, "--sarif"), (trace, "--trace")):
            if path is not None and str(path) != STDOUT:
                check_writable(path, flag)
        limit = None if max_transfer_bytes is None else parse_bytes(max_transfer_bytes)
        gain = None if fail_on_gain is None else parse_gain(fail_on_gain)
        return cls(Gate(fail_on=fail_on, max_transfer_bytes=limit, allow=resolve_allow(allow), fail_on_gain=gain),
                   sarif, trace)

    @property
    def judges(self) -> bool:
        """Whether these options judge the report: a gate (``--fail-on`` other than never, ``--max-transfer-bytes``,
        ``--fail-on-gain``) or SARIF (code scanning acts on its results). Then the report must be this code's
        analysis of the file's evidence, never the file's derived sections as it holds them (``load_report``'s
        ``cache``)."""
        return self.gate.judges or self.sarif is not None

    def exit_code(self, report: Report, console: Any = None, quiet: bool = False) -> int:
        """0 when the report passes the gate, else 1; the reasons go to ``console`` (a rich Console) unless quiet."""
        result = evaluate(report, self.gate)
        if console is not None and not quiet:
            from rich.markup import escape

            from ortcopy_doctor.render.terminal import safe

            # the lines quote the report (rule ids, labels, reasons naming tensors): untrusted text
            for note in result.notes:
                console.print(escape(safe(f"note: {note}")))
            for reason in result.reasons:
                console.print(escape(safe(f"gate failed: {reason}")))
        return result.exit_code


__all__ = ["CiOptions"]
