"""How sizes, shapes and rates read everywhere (terminal, HTML, JSON messages, watch and pipeline reports): one
convention, decimal units (1 KB = 1000 B), as CUDA and nsys report bandwidth."""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING

from ortcopy_doctor.model.providers import CPU

if TYPE_CHECKING:
    from ortcopy_doctor.model.evidence import Evidence


def fmt_bytes(n: int | None) -> str:
    """``512 B``, ``4.1 KB``, ``262.1 KB``, ``1.0 MB``; "unknown size" where no size is known."""
    if n is None:
        return "unknown size"
    size = float(n)
    for unit in ("B", "KB", "MB", "GB"):
        if size < 1000 or unit == "GB":
            return f"{int(size)} {unit}" if unit == "B" else f"{size:.1f} {unit}"
        size /= 1000
    return f"{n} B"


def fmt_total_bytes(sizes: list[int | None]) -> str:
    """The sum of copy sizes, saying where some (or all) are unknown instead of counting them as 0 B."""
    known = [n for n in sizes if n is not None]
    unknown = len(sizes) - len(known)
    if not unknown:
        return fmt_bytes(sum(known))
    if not known:
        return "size unknown"
    return f"{fmt_bytes(sum(known))} + {unknown} of unknown size"


def fmt_run_bytes(bytes_per_run: int, sizes: list[int | None]) -> str:
    """The bytes of one run's copies: ``fmt_total_bytes(sizes)`` of the copies counted, where ``bytes_per_run``
    (the summary's) is their known sum. Where it is more (a prediction: its If branches with the most bytes are not
    those with the most copies), ``bytes_per_run`` and the unknown sizes, saying which branches it counts."""
    if sum(n for n in sizes if n is not None) == bytes_per_run:
        return fmt_total_bytes(sizes)
    return (fmt_total_bytes([bytes_per_run] + [n for n in sizes if n is None])
            + ", each If by its branch of the most bytes")


def fmt_shape(shape: Sequence[int | str | None] | None) -> str:
    """``[32, 512]``; "unknown" where no shape is known (never "None")."""
    return "unknown" if shape is None else str(list(shape))


def fmt_rate(gb_per_s: float | None) -> str:
    """A bandwidth in GB/s; "n/a" where none was measured."""
    return "n/a" if gb_per_s is None else f"{gb_per_s:.2f} GB/s"




def active_providers(evidence: Evidence) -> str:
    """The providers the session ran on, joined; for a static prediction, which created no session, what it
    predicted for (``diff`` and the HTML once called those "active")."""
    if evidence.mode == "static":
        provider = evidence.session.active_providers[0] if evidence.session.active_providers else CPU
        return f"no session: predicted for {provider}"
    return ", ".join(evidence.session.active_providers)


__all__ = ["active_providers", "fmt_bytes", "fmt_rate", "fmt_shape", "fmt_total_bytes"]
