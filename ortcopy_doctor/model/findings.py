"""Findings: what a rule reports, with its severity, location and fix (frozen: a report's findings never change)."""

from __future__ import annotations

import msgspec
from typing import Any

from msgspec import field

from ortcopy_doctor.model.vocabulary import Word


# A severity's rank by its value (a Severity, or its value as a str: the same key), for code that ranks many findings:
# ``Severity(value)`` costs a few microseconds a call, a lookup here a tenth of that.
SEVERITY_RANK = {"error": 3, "warning": 2, "info": 1}


class Severity(Word):
    """How bad a finding is; ``--fail-on`` gates on it."""

    ERROR = "error"
    WARNING = "warning"
    INFO = "info"

    @property
    def rank(self) -> int:
        """3 for error, 2 for warning, 1 for info."""
        return SEVERITY_RANK[self.value]


class Finding(msgspec.Struct, frozen=True):
    """One thing a rule found: which rule, where, what it costs per run and how to fix it."""

    rule: str  # id, e.g. OCD001
    slug: str
    severity: Severity
    title: str
    message: str
    fix: str
    location: str  # node or tensor name ("" for the session)
    bytes_per_run: int | None = None
    predicted: bool = False
    details: dict[str, Any] = field(default_factory=dict)


__all__ = ["SEVERITY_RANK", "Finding", "Severity"]
