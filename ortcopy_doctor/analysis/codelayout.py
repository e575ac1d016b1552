"""Lay generated Python out within a line width, the way a formatter would, without changing what it does.

The code a report prints is pasted into the user's project, where a linter or formatter usually allows 88
characters (black's and ruff's default). Generation writes each statement on one line with its reason as a
trailing comment; ``fit`` then takes each line that is too long and

* moves a trailing comment above the statement, wrapped at the spaces between its words (a comment-only line is
  wrapped the same way: generation writes each paragraph of a comment as one line); a tab or other whitespace in
  a comment stays as it is, inside its word;
* splits the statement inside the bracket that ends it (or that ends it but for trailers, ``(...)[0]``,
  ``(...).numpy()``, where the text before the last bracket would still be too long): what the bracket holds on
  one line of its own where it fits, else at the bracket's top-level commas, one item per line with a trailing
  comma, and the same again for an item that is still too long.

Names from the model are never broken: a line that has no place to break stays as it is, and so does a line whose
comment is a directive (a shebang ``#!``, ``#:``, or a pragma such as ``# type: ignore``, ``# noqa``,
``# pylint:``, ``# fmt:``, ``# pragma``), which applies to its own line and would no longer apply moved. The result
is checked before it is used: it must compile to the same program (bytecode, names and constants) as the input,
and each moved comment must keep its words, or the input is returned unchanged. So laying out can make code easier
to paste, never wrong.
"""

from __future__ import annotations

import functools
import io
import re
import textwrap
import tokenize
import types

WIDTH = 88

_OPENERS = {"(": ")", "[": "]", "{": "}"}
_CLOSERS = {")", "]", "}"}
# A top-level one of these makes the commas inside a bracket not separate items (a comprehension's or a lambda's).
_NOT_A_LIST = {"for", "lambda", "async", "await", "yield"}
# A comment that applies to its own line, or whose first characters mean something: the line is left as it is.
_DIRECTIVE = re.compile(r"^#[!:]|#\s*(type:|noqa\b|pylint:|fmt:|pragma\b|mypy:|pyright:|ruff:|isort:|flake8:|nosec\b)",
                        re.IGNORECASE)
# What compiling or tokenizing can raise on input it cannot take: a syntax error, a NUL, and nesting deeper than
# the compiler's recursion allows ("x = " + "-" * 3000 + "1").
_CANNOT = (SyntaxError, ValueError, RecursionError, MemoryError)


@functools.lru_cache(maxsize=32)
def fit(source: str, width: int = WIDTH) -> str:
    """``source`` with each line longer than ``width`` laid out within it where it can be (module docstring).

    Returns ``source`` itself where it does not compile, or where laying out would change what it does. Remembered:
    a check lays out the same code as it runs it (collect/code_check.py) and again as it analyses (report/core.py)."""
    lines = source.split("\n")
    if all(len(line) <= width for line in lines):
        return source
    try:
        before = _program(source)
        out: list[str] = []
        for line in lines:
            out.extend(_fit_line(line, width) if len(line) > width else [line])
        fitted = "\n".join(out)
        same = _program(fitted) == before
    except _CANNOT:
        return source
    return fitted if same else source


def _program(source: str) -> tuple[object, ...]:
    """What ``source`` does: its compiled bytecode, names and constants, nested code included, without the line
    numbers (which laying out changes). Two sources with the same syntax tree compile to the same program; ~10x
    cheaper than comparing ``ast.dump`` of the two trees."""
    return _code_key(compile(source, "<generated>", "exec", dont_inherit=True))


def _code_key(code: types.CodeType) -> tuple[object, ...]:
    consts = tuple(_code_key(c) if isinstance(c, types.CodeType) else (type(c).__name__, c) for c in code.co_consts)
    return (code.co_code, code.co_names, code.co_varnames, code.co_freevars, code.co_cellvars, code.co_argcount,
            code.co_kwonlyargcount, code.co_flags, code.co_name, consts)


def _tokens(text: str) -> list[tokenize.TokenInfo] | None:
    """The tokens of one line on its own; None where it is not complete on its own (an open bracket)."""
    try:
        tokens = list(tokenize.generate_tokens(io.StringIO(text + "\n").readline))
    except (tokenize.TokenError, *_CANNOT):
        return None
    if any(t.type == getattr(tokenize, "FSTRING_START", -1) for t in tokens):
        return None  # an f-string's fields come as tokens of their own (3.12): their brackets are not the line's
    return [t for t in tokens if t.start[0] == 1]


def _fit_line(line: str, width: int) -> list[str]:
    tokens = _tokens(line)
    if tokens is None:
        return [line]
    indent = line[:len(line) - len(line.lstrip())]
    comment = next((t for t in tokens if t.type == tokenize.COMMENT), None)
    if comment is not None:
        if _DIRECTIVE.search(comment.string):
            return [line]  # a shebang or a pragma: moved, it would no longer be one, or no longer apply
        note = comment.string[1:].strip(" ")
        code = line[:comment.start[1]].rstrip()
        block = _comment_block(note, indent, width)
        if _words([chunk[len(indent) + 1:] for chunk in block]) != _words([note]):
            return [line]  # the comment's words must stay as they are (the wrapper never breaks or drops one)
        if not code.strip():
            return block
        return block + _split(code, width)
    return _split(line, width)


def _words(texts: list[str]) -> list[str]:
    """The words of a comment: what lies between its spaces (a tab, or any other whitespace, is part of a word)."""
    return [word for text in texts for word in text.split(" ") if word]


class _SpaceWrapper(textwrap.TextWrapper):
    """textwrap that breaks at spaces only and leaves every other character as it is (tabs are not expanded)."""

    wordsep_simple_re = re.compile(r"( +)")


def _comment_block(note: str, indent: str, width: int) -> list[str]:
    wrapper = _SpaceWrapper(max(20, width - len(indent) - 2), break_long_words=False, break_on_hyphens=False,
                            expand_tabs=False, replace_whitespace=False)
    return [f"{indent}# {chunk}" for chunk in wrapper.wrap(note)] or [f"{indent}#"]


def _split(line: str, width: int) -> list[str]:
    """``line`` (code, no comment) split at its outermost bracket's top-level commas while it is too long."""
    if len(line) <= width:
        return [line]
    tokens = _tokens(line)
    if tokens is None:
        return [line]
    code = [t for t in tokens if t.type not in (tokenize.NEWLINE, tokenize.NL, tokenize.INDENT, tokenize.DEDENT,
                                                 tokenize.ENDMARKER, tokenize.COMMENT)]
    brackets = _brackets(code)
    if brackets is None:
        return [line]  # unbalanced on this line: leave it
    candidates = _ending_brackets(code, brackets)
    if not candidates:
        return [line]
    # The last bracket, unless the text before it is too long and an earlier one (followed by trailers alone)
    # leaves a head that fits. Where none does (a long name before it), the earliest, if splitting there moves out
    # of the line as much as the head keeps over the width, or half a line: ``(...)[`` / ``0`` / ``]`` would only
    # add lines.
    fitting = [k for k in candidates if code[k].end[1] <= width]
    if fitting:
        k = fitting[-1]
    else:
        k = candidates[0]
        moved = len(line[code[k].end[1]:code[brackets[k][0]].start[1]].strip())
        if moved < min(code[k].end[1] - width, width // 2):
            return [line]
    close, commas = brackets[k]
    opener = code[k]
    indent = line[:len(line) - len(line.lstrip())]
    inner = indent + "    "
    head, tail = line[:opener.end[1]], indent + line[code[close].start[1]:].strip()
    content = line[opener.end[1]:code[close].start[1]].strip()
    if len(inner + content) <= width:  # all the items on one line of their own, as black does first
        return [head, inner + content, tail]
    if not commas or any(code[j].string in _NOT_A_LIST for j in _top_level(code, k, close)):
        return [line]  # one item, or commas that are not the bracket's: no trailing comma can be added
    bounds = [opener.end[1], *(code[c].end[1] for c in commas), code[close].start[1]]
    items = [line[a:b].strip().rstrip(",").strip() for a, b in zip(bounds, bounds[1:])]
    items = [item for item in items if item]
    out = [head]
    for item in items:
        out.extend(_split(f"{inner}{item},", width))
    out.append(tail)
    return out


def _is_op(token: tokenize.TokenInfo, strings: set[str] | dict[str, str]) -> bool:
    return token.type == tokenize.OP and token.string in strings


def _brackets(code: list[tokenize.TokenInfo]) -> dict[int, tuple[int, list[int]]] | None:
    """For the index of each opening bracket: the index of the bracket closing it and of the commas directly
    inside it (one pass). None where the brackets do not balance."""
    found: dict[int, tuple[int, list[int]]] = {}
    stack: list[tuple[int, list[int]]] = []
    for j, token in enumerate(code):
        if _is_op(token, _OPENERS):
            stack.append((j, []))
        elif _is_op(token, _CLOSERS):
            if not stack:
                return None
            k, commas = stack.pop()
            found[k] = (j, commas)
        elif stack and _is_op(token, {","}):
            stack[-1][1].append(j)
    return None if stack else found


def _ending_brackets(code: list[tokenize.TokenInfo], brackets: dict[int, tuple[int, list[int]]]) -> list[int]:
    """The opening brackets, in order, whose content is not empty and after whose closing bracket the line holds
    only trailers (``.name``, ``(...)``, ``[...]``), then an optional ``:`` or ``,``."""
    n = len(code)
    trailers = [False] * (n + 1)  # trailers[j]: code[j:] is trailers only
    trailers[n] = True
    if n and _is_op(code[-1], {":", ","}):
        trailers[n - 1] = True
    for j in range(n - 1, -1, -1):
        if trailers[j]:
            continue
        token = code[j]
        if _is_op(token, {"."}) and j + 1 < n and code[j + 1].type == tokenize.NAME:
            trailers[j] = trailers[j + 2]
        elif _is_op(token, {"(", "["}) and j in brackets:
            trailers[j] = trailers[brackets[j][0] + 1]
    return [k for k, (close, _) in sorted(brackets.items()) if trailers[close + 1] and close > k + 1]


def _top_level(code: list[tokenize.TokenInfo], k: int, close: int) -> list[int]:
    depth = 0
    found: list[int] = []
    for j in range(k + 1, close):
        s = code[j].string if code[j].type == tokenize.OP else ""
        if s in _OPENERS:
            depth += 1
        elif s in (")", "]", "}"):
            depth -= 1
        elif depth == 0:
            found.append(j)
    return found
