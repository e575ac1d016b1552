"""Text for the terminal: names from a model or a JSON file are untrusted and may hold escape sequences.

``safe`` is applied to every line the CLI prints (reports, errors, ``wrote`` lines, diffs): control characters
(C0, DEL, C1: ESC starts ANSI/OSC sequences, a newline would forge an extra line) and the invisible bidi and line
separators are shown as Python-style escapes (``\\x1b``, ``\\n``, ``\\u202e``), so a line stays one line and the
terminal never interprets anything from the input.

``json_safe`` does the same for a JSON file the CLI writes (SARIF, trace), losslessly: the characters a JSON
encoder leaves as they are (DEL, C1, the bidi and line separators) become JSON escapes (``\\u009b``), so the file
parses to the same strings and printing it (``cat``, a CI log) sends no control sequence to the terminal.
"""

from __future__ import annotations

import re

from ortcopy_doctor.model.text import safe  # the model's (its report types escape their own messages)


# C0 controls never stand raw in JSON text: inside a string the encoder escapes them, and outside one only the
# layout's newlines and spaces appear.
_UNSAFE_IN_JSON = re.compile("[\x7f-\x9f\u061c\u200e\u200f\u2028\u2029\u202a-\u202e\u2066-\u2069]")


def json_safe(text: str) -> str:
    """JSON text (as ``json.dumps`` writes it) with the characters ``safe`` escapes written as JSON escapes: the same
    document once parsed, and nothing in it a terminal would interpret."""
    if text.isascii() and "\x7f" not in text:  # nothing to escape (two fast scans of the text)
        return text
    return _UNSAFE_IN_JSON.sub(lambda m: f"\\u{ord(m.group(0)):04x}", text)


__all__ = ["json_safe", "safe"]
