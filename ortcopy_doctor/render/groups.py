"""Findings alike, grouped for reading: one entry with a count and the list of locations.

A model with many small shape computations placed on CPU gets one OCD008 per node, each three lines of the same
words but for the node's name and op (22 of them on a recorded BERT). The terminal and the HTML show such findings
once, with their count, their locations and the first of them as the example; the JSON and SARIF keep every
finding.

Findings are alike where the rule, severity, predicted flag, message and fix are the same once the finding's own
location, and the op type written before it (``Gather '/a/Gather'``), are taken out of the message and the fix.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from ortcopy_doctor.model.findings import Finding

PLACEHOLDER = "…"
# Locations the terminal names in a group's first line before it counts the rest.
TERMINAL_LOCATIONS = 5


class FindingGroup:
    """Findings alike: the first of them (the example shown) and every location, in order."""

    __slots__ = ("first", "locations")

    def __init__(self, first: Finding, locations: list[str]) -> None:
        self.first = first
        self.locations = locations

    @property
    def count(self) -> int:
        """How many findings the group holds."""
        return len(self.locations)

    def example(self, text: str) -> str:
        """"e.g. " before the first finding's ``text`` (its message or fix) where the group's findings say it each
        in their own words (it names the location, or an op type before it); "" where they all say it alike."""
        return "e.g. " if self.count > 1 and _shape(text, self.first.location) != text else ""


_NAME_CHARS = frozenset("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_./:-")


def _masked(text: str, location: str) -> str:
    """``text`` with ``location`` written ``…`` where it stands as a name (not inside a longer word or path)."""
    if not location or location not in text:
        return text
    parts = []
    start = 0
    at = text.find(location)
    while at >= 0:
        end = at + len(location)
        before = text[at - 1] if at > 0 else ""
        after = text[end] if end < len(text) else ""
        if before not in _NAME_CHARS and after not in _NAME_CHARS:
            parts.append(text[start:at])
            parts.append(PLACEHOLDER)
            start = end
        at = text.find(location, end if start == end else at + 1)
    parts.append(text[start:])
    return "".join(parts)


_QUOTED = f" '{PLACEHOLDER}'"
_OP_MASKED = f"{PLACEHOLDER}{_QUOTED}"
_ASCII_NAME_START = frozenset("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ_")
_ASCII_WORD_DOT = "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_."


def _word(ch: str) -> bool:
    """Whether ``ch`` is a word character as ``re``'s ``\\w`` has it for text (a letter, a digit, ``_``)."""
    return ch.isalnum() or ch == "_"


def _without_op_types(masked: str) -> str:
    """``masked`` with the op type before each quoted placeholder (``Gather '…'``) written ``…``: the token that
    ``\\b[A-Za-z_][\\w.]*`` matches right before `` '…'``, found by looking back from each placeholder rather
    than by trying that pattern at every word of the message."""
    parts = []
    start = 0
    at = masked.find(_QUOTED)
    while at >= 0:
        begin = _name_start(masked, _run_start(masked, start, at), at)
        if begin < 0:  # no op type before this one
            at = masked.find(_QUOTED, at + 1)
            continue
        parts.append(masked[start:begin])
        parts.append(_OP_MASKED)
        start = at + len(_QUOTED)
        at = masked.find(_QUOTED, start)
    if not parts:
        return masked
    parts.append(masked[start:])
    return "".join(parts)


def _run_start(masked: str, start: int, at: int) -> int:
    """Where the run of word characters and dots that ends at ``at`` begins (not before ``start``): ASCII ones
    stripped at C speed, then one at a time past any other letter or digit (``é``)."""
    run = start + len(masked[start:at].rstrip(_ASCII_WORD_DOT))
    while run > start and (masked[run - 1] == "." or _word(masked[run - 1])):
        run -= 1
    return run


def _name_start(masked: str, run: int, at: int) -> int:
    """Where in the run ``masked[run:at]`` the op type begins: its first character where that starts an ASCII name
    (the run's first, or one right after a dot, is at a word boundary); -1 where none does."""
    if run < at and masked[run] in _ASCII_NAME_START:
        return run
    dot = masked.find(".", run, at)
    while dot >= 0:
        if dot + 1 < at and masked[dot + 1] in _ASCII_NAME_START:
            return dot + 1
        dot = masked.find(".", dot + 1, at)
    return -1


def _shape(text: str, location: str) -> str:
    """``text`` with the location and the op type named before it (``Gather '…'``) taken out."""
    masked = _masked(text, location)
    if masked is text or _QUOTED not in masked:  # no quoted location: no op type before one (most messages)
        return masked
    return _without_op_types(masked)


def group_findings(findings: Iterable[Finding]) -> list[FindingGroup]:
    """The findings in groups of alike ones (module doc), each group where its first finding was."""
    groups: dict[tuple[object, ...], FindingGroup] = {}
    for f in findings:
        key = (f.rule, f.severity, f.predicted, _shape(f.message, f.location), _shape(f.fix, f.location))
        group = groups.get(key)
        if group is None:
            groups[key] = FindingGroup(f, [f.location])
        else:
            group.locations.append(f.location)
    return list(groups.values())


def compact_locations(locations: list[str], shown: int = TERMINAL_LOCATIONS) -> str:
    """"a, b, c, d, e and 13 more": the first ``shown`` locations, then the count of the rest."""
    head = ", ".join(locations[:shown])
    rest = len(locations) - shown
    return f"{head} and {rest} more" if rest > 0 else head


__all__ = ["FindingGroup", "PLACEHOLDER", "TERMINAL_LOCATIONS", "compact_locations", "group_findings"]
