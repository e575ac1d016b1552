"""Untrusted names made safe to print: names from a model, a program or a JSON file may hold escape sequences.

``safe`` shows control characters (C0, DEL, C1: ESC starts ANSI/OSC sequences, a newline would forge an extra line)
and the invisible bidi and line separators as Python-style escapes (``\\x1b``, ``\\n``, ``\\u202e``), so a line stays
one line and a terminal never interprets anything from the input. It is the model's so that the report types'
own messages (``WatchReport.assert_no_host_transfers``) escape their lines; ``render.terminal`` re-exports it.
"""

from __future__ import annotations

import re

UNSAFE = re.compile("[\x00-\x1f\x7f-\x9f\u061c\u200e\u200f\u2028\u2029\u202a-\u202e\u2066-\u2069]")
_NAMED = {"\n": "\\n", "\r": "\\r", "\t": "\\t"}


def _escape_one(match: re.Match[str]) -> str:
    ch = match.group(0)
    if ch in _NAMED:
        return _NAMED[ch]
    code = ord(ch)
    return f"\\x{code:02x}" if code <= 0xFF else f"\\u{code:04x}"


def safe(text: object) -> str:
    """``text`` with every control character escaped: one printable line."""
    return UNSAFE.sub(_escape_one, str(text))


__all__ = ["UNSAFE", "safe"]
