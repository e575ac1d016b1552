"""Lay generated Python out within a line width, the way a formatter would, without changing what it does.

The code a report prints is pasted into the user's project, where a linter or formatter usually allows 88
characters (black's and ruff's default). Generation writes each statement on one line with its reason as a
trailing comment; ``fit`` then takes each line that is too long and

* moves a trailing comment above the statement, wrapped at word boundaries (a comment-only line is wrapped the
  same way: generation writes each paragraph of a comment as one line);
* splits the statement inside the bracket that ends it: what the bracket holds on one line of its own where it
  fits, else at the bracket's top-level commas, one item per line with a trailing comma, and the same again for
  an item that is still too long.

Names from the model are never broken: a line that has no place to break stays as it is. The result is checked
before it is used: it must compile to the same program (bytecode, names and constants) as the input, and each
moved comment must keep its words, or the input is returned unchanged. So laying out can make code easier to
paste, never wrong.
"""

from __future__ import annotations

import io
import textwrap
import tokenize
import types

WIDTH = 88

_OPENERS = {"(": ")", "[": "]", "{": "}"}
# A top-level one of these makes the commas inside a bracket not separate items (a comprehension's or a lambda's).
_NOT_A_LIST = {"for", "lambda", "async", "await", "yield"}


def fit(source: str, width: int = WIDTH) -> str:
    """``source`` with each line longer than ``width`` laid out within it where it can be (module docstring).

    Returns ``source`` itself where it does not compile, or where laying out would change what it does."""
    lines = source.split("\n")
    if all(len(line) <= width for line in lines):
        return source
    try:
        before = _program(source)
    except (SyntaxError, ValueError):
        return source
    out: list[str] = []
    for line in lines:
        out.extend(_fit_line(line, width) if len(line) > width else [line])
    fitted = "\n".join(out)
    try:
        same = _program(fitted) == before
    except (SyntaxError, ValueError):
        same = False
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
    except (tokenize.TokenError, SyntaxError):
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
        note = comment.string[1:].strip()
        code = line[:comment.start[1]].rstrip()
        block = _comment_block(note, indent, width)
        if " ".join(chunk.strip()[1:].strip() for chunk in block).split() != note.split():
            return [line]  # the comment's words must stay as they are (textwrap never breaks or drops one)
        if not code.strip():
            return block
        return block + _split(code, width)
    return _split(line, width)


def _comment_block(note: str, indent: str, width: int) -> list[str]:
    chunks = textwrap.wrap(note, max(20, width - len(indent) - 2), break_long_words=False, break_on_hyphens=False)
    return [f"{indent}# {chunk}" for chunk in chunks] or [f"{indent}#"]


def _split(line: str, width: int) -> list[str]:
    """``line`` (code, no comment) split at its outermost bracket's top-level commas while it is too long."""
    if len(line) <= width:
        return [line]
    tokens = _tokens(line)
    if tokens is None:
        return [line]
    code = [t for t in tokens if t.type not in (tokenize.NEWLINE, tokenize.NL, tokenize.INDENT, tokenize.DEDENT,
                                                 tokenize.ENDMARKER, tokenize.COMMENT)]
    for k, opener in enumerate(code):
        if opener.string not in _OPENERS or opener.type != tokenize.OP:
            continue
        close, commas = _match(code, k)
        if close is None:
            return [line]  # unbalanced on this line: leave it
        rest = [t.string for t in code[close + 1:]]
        if rest not in ([], [":"], [","]):
            continue  # not the line's outermost bracket: something follows it
        indent = line[:len(line) - len(line.lstrip())]
        inner = indent + "    "
        head, tail = line[:opener.end[1]], indent + line[code[close].start[1]:].strip()
        content = line[opener.end[1]:code[close].start[1]].strip()
        if not content:
            return [line]
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
    return [line]


def _match(code: list[tokenize.TokenInfo], k: int) -> tuple[int | None, list[int]]:
    """The index of the bracket closing ``code[k]`` and of the commas directly inside it."""
    depth = 0
    commas: list[int] = []
    for j in range(k, len(code)):
        s = code[j].string if code[j].type == tokenize.OP else ""
        if s in _OPENERS:
            depth += 1
        elif s in (")", "]", "}"):
            depth -= 1
            if depth == 0:
                return j, commas
        elif s == "," and depth == 1:
            commas.append(j)
    return None, commas


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
