"""The program's own names at a session's call site, which the hand-off code uses (issue 33): what holds the session
(a variable, or an attribute of ``self``), the variables a dict literal feeds (``{"x": image}``), and the variables
the outputs are unpacked into (``boxes, scores = det.run(...)``, ``boxes = det.run(...)[0]``).

watch/program.py's recorder looks them up once per (session, call site), from the call site's frame and its source
line, and keeps them in ``SessionRecord.variables``, ``.input_variables`` and ``.output_variables``. A session's or an
input's name is only kept where the frame confirms it (the variable ``is`` the session, or the array fed); an
output's is read from the assignment the call stands in, once its output names are known. Nothing here raises: a
site whose source cannot be read or parsed (``python -c``, a file changed since) gives the names the frame alone
shows (the session's), or none.
"""

from __future__ import annotations

import ast
import itertools
import keyword
import linecache
from collections.abc import Sequence
from typing import Any, Optional

RUN_METHODS = ("run", "run_with_ort_values", "run_with_iobinding")
FEED_ARGUMENT = {"run": "input_feed", "run_with_ort_values": "input_dict_ort_values"}
SOURCE_LIMIT = 512 << 10  # a larger source file is not parsed (a generated module): the frame alone names the session

# A call of a session method in a source file: its position (line, end line, column, end column, as the interpreter
# gives an instruction's), the call, and the variables its result is assigned to with the index taken (-1: none).
_Site = tuple[ast.Call, list[str], int]
_files: dict[str, dict[tuple[int, int, int, int], _Site]] = {}


def site_names(frame: Any, session: Any, method: str, args: Sequence[Any],
               kwargs: dict[str, Any]) -> tuple[str, dict[str, str], dict[str, str]]:
    """The names ``frame`` (the program's frame that called ``session.<method>(*args, **kwargs)``) uses: the
    session's ("" where nothing holds it by a name), and the inputs' and the outputs' variables (ONNX name -> the
    program's variable); never raises."""
    session_name = ""
    inputs: dict[str, str] = {}
    outputs: dict[str, str] = {}
    try:
        call, targets, index = _call_at(frame, method)
        scope = frame.f_locals
        session_name = _session_name(scope, session, call)
        if call is not None and method in FEED_ARGUMENT:
            inputs = _feed_names(scope, call, method, args, kwargs)
            if targets:
                outputs = _output_names(targets, index, session, args, kwargs)
    except Exception:  # noqa: BLE001 - names are an extra: the program's call goes on without them
        pass
    return session_name, inputs, outputs


def _identifier(name: str) -> bool:
    return name.isidentifier() and not keyword.iskeyword(name)


def _calls_of(filename: str) -> dict[tuple[int, int, int, int], _Site]:
    """Every call of a session method (``X.run(...)``) in ``filename``, by position; parsed once per file."""
    table = _files.get(filename)
    if table is not None:
        return table
    table = {}
    _files[filename] = table
    lines = linecache.getlines(filename)
    if not lines or sum(len(line) for line in lines) > SOURCE_LIMIT:
        return table
    try:
        tree = ast.parse("".join(lines))
    except (SyntaxError, ValueError):
        return table
    assigned: dict[int, tuple[list[str], int]] = {}  # id(call) -> its targets and index
    for node in ast.walk(tree):
        if isinstance(node, ast.Assign):
            found = _assignment(node)
            if found is not None:
                assigned[id(found[0])] = (found[1], found[2])
        elif isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) and node.func.attr in RUN_METHODS:
            key = (node.lineno, node.end_lineno or node.lineno, node.col_offset, node.end_col_offset or 0)
            table[key] = (node, [], -1)
    for key, (node, _, _) in list(table.items()):
        targets, index = assigned.get(id(node), ([], -1))
        table[key] = (node, targets, index)
    return table


def _assignment(node: ast.Assign) -> Optional[_Site]:
    """The call an assignment unpacks into variables (``a, b = X.run(...)``), or takes one item of into one
    (``a = X.run(...)[0]``), with those variables and the index (-1: none)."""
    if len(node.targets) != 1:
        return None
    value, index, target = node.value, -1, node.targets[0]
    if isinstance(value, ast.Subscript):
        item = value.slice
        if not (isinstance(item, ast.Constant) and type(item.value) is int):
            return None
        value, index = value.value, item.value
    names = [target] if index >= 0 else list(target.elts) if isinstance(target, (ast.Tuple, ast.List)) else []
    if not isinstance(value, ast.Call) or not names or not all(isinstance(n, ast.Name) for n in names):
        return None
    return value, [n.id for n in names if isinstance(n, ast.Name)], index


def _call_at(frame: Any, method: str) -> tuple[Optional[ast.Call], list[str], int]:
    """The call the frame is making (the position of its current instruction), with the variables its result is
    assigned to; on an interpreter without positions, the one call of ``method`` on the frame's line."""
    table = _calls_of(frame.f_code.co_filename)
    if not table:
        return None, [], -1
    positions = getattr(frame.f_code, "co_positions", None)
    if positions is not None and frame.f_lasti >= 0:
        where = next(itertools.islice(positions(), frame.f_lasti // 2, None), None)
        if where is not None and None not in where:
            hit = table.get((where[0], where[1], where[2], where[3]))
            if hit is not None and hit[0].func.attr == method:  # type: ignore[attr-defined]
                return hit
    line = frame.f_lineno
    on_line = [site for key, site in table.items() if key[0] <= line <= key[1]
               and site[0].func.attr == method]  # type: ignore[attr-defined]
    return on_line[0] if len(on_line) == 1 else (None, [], -1)


def _held_by(holder: Any, session: Any) -> list[str]:
    """The attributes of ``holder`` (its ``__dict__``: no property is read) whose value is ``session``."""
    try:
        attributes = vars(holder)
    except TypeError:
        return []
    return [k for k, v in list(attributes.items()) if v is session and isinstance(k, str) and _identifier(k)]


def _session_name(scope: dict[str, Any], session: Any, call: Optional[ast.Call]) -> str:
    """The call's own expression where it is a variable or ``self.<attribute>`` that holds the session; else a
    variable of the frame that does, else an attribute of its ``self``; "" where none."""
    owner = call.func.value if call is not None and isinstance(call.func, ast.Attribute) else None
    if isinstance(owner, ast.Name) and scope.get(owner.id) is session and _identifier(owner.id):
        return owner.id
    me = scope.get("self")
    if isinstance(owner, ast.Attribute) and isinstance(owner.value, ast.Name) and owner.value.id == "self" and \
            me is not None and owner.attr in _held_by(me, session):
        return f"self.{owner.attr}"
    local = [k for k, v in list(scope.items()) if v is session and isinstance(k, str) and _identifier(k)]
    if local:
        return local[0]
    held = _held_by(me, session) if me is not None else []
    return f"self.{held[0]}" if held else ""


def _feed_names(scope: dict[str, Any], call: ast.Call, method: str, args: Sequence[Any],
                kwargs: dict[str, Any]) -> dict[str, str]:
    """ONNX input -> the variable a dict literal of the call feeds it from, each confirmed in the frame."""
    feed_node = call.args[1] if len(call.args) > 1 else next(
        (k.value for k in call.keywords if k.arg == FEED_ARGUMENT[method]), None)
    feed = args[1] if len(args) > 1 else kwargs.get(FEED_ARGUMENT[method])
    if not isinstance(feed_node, ast.Dict) or not isinstance(feed, dict):
        return {}
    names: dict[str, str] = {}
    for key, value in zip(feed_node.keys, feed_node.values):
        if isinstance(key, ast.Constant) and isinstance(key.value, str) and isinstance(value, ast.Name) and \
                key.value in feed and scope.get(value.id) is feed[key.value] and _identifier(value.id):
            names[key.value] = value.id
    return names


def _output_names(targets: list[str], index: int, session: Any, args: Sequence[Any],
                  kwargs: dict[str, Any]) -> dict[str, str]:
    """ONNX output -> the variable the call's result is unpacked into (``a, b = s.run(...)``, ``a = s.run(...)[k]``)."""
    asked = args[0] if args else kwargs.get("output_names")
    outputs = [str(n) for n in asked] if asked else [o.name for o in session.get_outputs()]
    if index >= 0:
        return {outputs[index]: targets[0]} if index < len(outputs) and _identifier(targets[0]) else {}
    if len(targets) != len(outputs):
        return {}
    return {o: t for o, t in zip(outputs, targets) if _identifier(t) and t != "_"}


__all__ = ["RUN_METHODS", "site_names"]
