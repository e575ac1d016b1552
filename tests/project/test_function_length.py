"""Functions a reader can hold (issue #35, item 5): no function of the package runs over 100 lines, counted from
its ``def`` line to its last line (``end_lineno - lineno + 1``, decorators left out, nested functions and methods
counted on their own and inside the function around them). A longer one is split into named steps, or put on
``ALLOWED`` with the reason it is clearer whole."""

from __future__ import annotations

import ast
from pathlib import Path

from render_helpers import REPO

PACKAGE = REPO / "ortcopy_doctor"
LIMIT = 100

# "path/relative/to/the/package.py:qualified.name" -> why it stays longer than LIMIT. Empty: every function fits.
ALLOWED: dict[str, str] = {}


def _function_lengths(source: str, path: str) -> dict[str, int]:
    """Every function and method of ``source`` (nested ones too) by ``path:qualified.name``, with its length in
    lines."""
    lengths: dict[str, int] = {}

    def walk(node: ast.AST, prefix: str) -> None:
        for child in ast.iter_child_nodes(node):
            if isinstance(child, (ast.FunctionDef, ast.AsyncFunctionDef)):
                name = prefix + child.name
                assert child.end_lineno is not None
                lengths[f"{path}:{name}"] = child.end_lineno - child.lineno + 1
                walk(child, name + ".")
            elif isinstance(child, ast.ClassDef):
                walk(child, prefix + child.name + ".")
            else:
                walk(child, prefix)

    walk(ast.parse(source), "")
    return lengths


def _long_functions() -> dict[str, int]:
    """The package's functions over LIMIT lines, with their lengths."""
    found: dict[str, int] = {}
    for file in sorted(PACKAGE.rglob("*.py")):
        path = file.relative_to(PACKAGE).as_posix()
        lengths = _function_lengths(file.read_text(encoding="utf-8"), path)
        found.update({name: n for name, n in lengths.items() if n > LIMIT})
    return found


def test_the_count_sees_functions_methods_and_nested_functions():
    body = "\n".join(f"    x{i} = {i}" for i in range(LIMIT))  # with its def line: LIMIT + 1 lines
    source = (f"def long():\n{body}\n\n"
              f"def short():\n    return 1\n\n"
              f"class C:\n    @staticmethod\n    def method():\n    {body.replace(chr(10), chr(10) + '    ')}\n\n"
              f"def outer():\n    def inner():\n    {body.replace(chr(10), chr(10) + '    ')}\n    return inner\n\n"
              f"if True:\n    async def guarded():\n    {body.replace(chr(10), chr(10) + '    ')}\n")
    lengths = _function_lengths(source, "m.py")
    assert {name: n for name, n in lengths.items() if n > LIMIT} == {
        "m.py:long": LIMIT + 1, "m.py:C.method": LIMIT + 1, "m.py:outer": LIMIT + 3, "m.py:outer.inner": LIMIT + 1,
        "m.py:guarded": LIMIT + 1}
    assert lengths["m.py:short"] == 2


def test_no_function_is_over_the_limit_unless_allowed():
    """The functions over LIMIT lines are exactly those ALLOWED: a new long one fails, and so does an allowed one
    that was split (take it off the list)."""
    long = _long_functions()
    assert sorted(long) == sorted(ALLOWED), (
        f"functions over {LIMIT} lines: {dict(sorted(long.items()))}; allowed: {sorted(ALLOWED)}. "
        "Split a long function into named steps (private helpers with docstrings), or allow it with the reason.")


def test_every_allowed_function_says_why():
    assert all(reason.strip() for reason in ALLOWED.values())
