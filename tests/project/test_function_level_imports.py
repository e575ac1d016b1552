"""An import inside a function says why it is there (issue #35, item 3): a module a command may not need is a
module-level ``lazy_import`` handle (model/lazy.py), a cheap one or one loaded by then anyway a plain import at the
top; an import left inside a function carries a comment with its reason (an optional dependency that may be absent,
onnxruntime whose import is captured and asked of ``sys.modules``, onnx that a report must not load, ...), as
``# here, not a lazy_import: ...`` in cli/app.py. The comment is on the import's own lines, or on the line just
above it (a comment line, or ``try:  # ...``); imports written one after the other share the first one's. A file
whose every such import has one reason is on ``ALLOWED`` with it."""

from __future__ import annotations

import ast
import io
import re
import tokenize

from render_helpers import REPO

PACKAGE = REPO / "ortcopy_doctor"

# "path/relative/to/the/package.py" -> why its imports inside functions stay there without a comment each.
ALLOWED: dict[str, str] = {
    # watch/ is left as it is (issue 35): what run loads and when, in the supervisor and in the user's program, is
    # part of what run promises (the program imports numpy, onnx and onnxruntime first: watch/child.py).
    "watch/__init__.py": "its names resolve on first use (PEP 562): watch.child imports it at the program's start",
    "watch/child.py": "runs at the program's start-up: it imports the recorder once the program imports onnxruntime",
    "watch/forwarding.py": "run's supervisor: subprocess where a program is started, as run times it",
    "watch/handoff_check.py": "onnxruntime through collect.ortlog.import_onnxruntime, its import log captured",
    "watch/placement.py": "the analysis loads only where run computes placement, as run times it",
    "watch/plugin.py": "pytest is imported where the fixture is made: only pytest runs the plugin",
    "watch/program.py": "run's supervisor and the recorder: numpy and onnxruntime are the program's to import first",
    "watch/recorder.py": "the recorder in the program: onnx, onnxruntime and numpy load as the program uses them",
    "watch/replay.py": "run's process, after the program: numpy, onnx and a provider probe only where a replay runs",
}

_PRAGMA = re.compile(r"^(noqa(:\s*[A-Z0-9, ]+)?|type:\s*ignore(\[[^\]]*\])?|pragma:\s*no cover)\s*-?\s*")


def _reason(comment: str) -> str:
    """The words of ``comment`` (a ``#`` comment, maybe several on one line) that are not a tool's pragma."""
    words = []
    for part in comment.split("#"):
        text = part.strip()
        while True:
            stripped = _PRAGMA.sub("", text, count=1)
            if stripped == text:
                break
            text = stripped.strip()
        words.append(text)
    return " ".join(w for w in words if w)


def _comments(source: str) -> dict[int, str]:
    """Line number -> the comment on it (tokenize's: no ``#`` inside a string)."""
    found: dict[int, str] = {}
    for token in tokenize.generate_tokens(io.StringIO(source).readline):
        if token.type == tokenize.COMMENT:
            found[token.start[0]] = token.string
    return found


def _function_level_imports(tree: ast.AST) -> list[ast.Import | ast.ImportFrom]:
    """The import statements inside a function or method (at any depth), in the order of their lines."""
    found: list[ast.Import | ast.ImportFrom] = []

    def walk(node: ast.AST, inside: bool) -> None:
        for child in ast.iter_child_nodes(node):
            if inside and isinstance(child, (ast.Import, ast.ImportFrom)):
                found.append(child)
            walk(child, inside or isinstance(child, (ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda)))

    walk(tree, False)
    return sorted(found, key=lambda n: n.lineno)


def unexplained_imports(source: str) -> list[int]:
    """The lines of the imports inside functions of ``source`` that carry no reason (see the module docstring)."""
    lines = source.splitlines()
    comments = _comments(source)
    explained_ends: set[int] = set()  # the last line of each import with a reason
    missing = []
    for node in _function_level_imports(ast.parse(source)):
        end = node.end_lineno or node.lineno
        above = lines[node.lineno - 2].strip() if node.lineno >= 2 else ""
        own = any(_reason(comments.get(n, "")) for n in range(node.lineno, end + 1))
        over = (above.startswith("#") or above.startswith("try:")) and bool(_reason(comments.get(node.lineno - 1, "")))
        if own or over or node.lineno - 1 in explained_ends:
            explained_ends.add(end)
        else:
            missing.append(node.lineno)
    return missing


def _unexplained_by_file() -> dict[str, list[int]]:
    found = {}
    for file in sorted(PACKAGE.rglob("*.py")):
        missing = unexplained_imports(file.read_text(encoding="utf-8"))
        if missing:
            found[file.relative_to(PACKAGE).as_posix()] = missing
    return found


def test_the_check_sees_imports_inside_functions_and_their_reasons():
    source = ("import os\n"
              "def f():\n"
              "    import json\n"  # 3: no reason
              "    import re  # here: a reason\n"
              "    import sys\n"  # 5: follows one with a reason
              "\n"
              "    # here: the reason, above\n"
              "    from pathlib import Path\n"
              "    try:  # here: on the try\n"
              "        import zipfile\n"
              "    except ImportError:\n"
              "        pass\n"
              "    import csv  # noqa: F401\n"  # 13: a pragma is no reason
              "    import glob  # type: ignore[import]  # the other name\n"
              "    class Inner:\n"
              "        def method(self):\n"
              "            import math\n"  # 17: in a method of a class in a function
              "    g = lambda: __import__('x')\n"
              "    if x:  # a comment on the line above that is no try or comment line\n"
              "        import ast\n"  # 20
              "    s = '# not a comment'; import io\n"  # 21
              "class C:\n"
              "    import string\n"  # a class body: not a function
              "    def m(self):\n"
              "        from os import (\n"
              "            path,  # here: on a line of the statement\n"
              "        )\n")
    assert unexplained_imports(source) == [3, 13, 17, 20, 21]


def test_every_import_inside_a_function_says_why_it_is_there():
    unexplained = {path: lines for path, lines in _unexplained_by_file().items() if path not in ALLOWED}
    assert unexplained == {}, ("an import inside a function with no reason: make it a module-level lazy_import "
                               "handle (model/lazy.py) or a plain import at the top, or say on its line why it "
                               "stays (`# here: ...`)")


def test_every_allowed_file_still_has_an_import_it_explains():
    unexplained = _unexplained_by_file()
    assert [path for path in ALLOWED if path not in unexplained] == []
    assert all((PACKAGE / path).is_file() and reason for path, reason in ALLOWED.items())
