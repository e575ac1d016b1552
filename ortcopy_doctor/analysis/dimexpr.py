"""Symbolic dims that are expressions of other symbols: torch's dynamo exporter writes derived dims as sympy
expressions in ``dim_param`` (``past + 1``, ``4*batch``, ``Max(1, s0)``). ``SymbolSizes`` is the symbol -> size map
the analysis reads; it evaluates such an expression over the sizes it knows, exactly (integers and fractions; a
result that is not a non-negative integer is no size), and answers as if the expression were a symbol of its own.
"""

from __future__ import annotations

import math
from typing import TYPE_CHECKING, Any, Optional

from ortcopy_doctor.model.lazy import lazy_import

if TYPE_CHECKING:
    import ast
    import fractions
    from fractions import Fraction
else:  # run on first use (model/lazy.py): when an expression is first evaluated (fractions: ~3 ms a check)
    ast = lazy_import("ast")
    fractions = lazy_import("fractions")

_FUNCTIONS = {"Max": max, "max": max, "Min": min, "min": min}
_ROUNDING = {"floor": math.floor, "FloorToInt": math.floor, "ceiling": math.ceil, "ceil": math.ceil,
             "CeilToInt": math.ceil}
_MAX_TEXT = 200


class SymbolSizes(dict):  # type: ignore[type-arg]
    """Symbol -> size; ``get``, ``in`` and ``[]`` also take an expression of the symbols (``past + 1``)."""

    def __missing__(self, key: Any) -> int:
        value = self._evaluate(key)
        if value is None:
            raise KeyError(key)
        return value

    def __contains__(self, key: object) -> bool:
        return dict.__contains__(self, key) or self._evaluate(key) is not None

    def get(self, key: Any, default: Any = None) -> Any:
        """The size of a symbol or of an expression of them, else ``default``."""
        if dict.__contains__(self, key):
            return dict.__getitem__(self, key)
        value = self._evaluate(key)
        return default if value is None else value

    def _evaluate(self, key: object) -> Optional[int]:
        if not isinstance(key, str) or len(key) > _MAX_TEXT or not any(c in key for c in "+-*/%()"):
            return None
        return evaluate(key, self)


def evaluate(text: str, sizes: dict[str, int]) -> Optional[int]:
    """The size ``text`` (an expression of symbols) has with ``sizes``, or None where it has none (an unknown
    symbol, a form not handled, a result that is not a non-negative integer)."""
    try:
        tree = ast.parse(text.strip(), mode="eval")
        value = _value(tree.body, sizes)
    except (SyntaxError, ValueError, TypeError, ZeroDivisionError, KeyError, RecursionError, OverflowError):
        return None
    if value.denominator != 1 or value < 0:
        return None
    return int(value)


def _value(node: ast.AST, sizes: dict[str, int]) -> Fraction:
    if isinstance(node, ast.Constant) and isinstance(node.value, int) and not isinstance(node.value, bool):
        return fractions.Fraction(node.value)
    if isinstance(node, ast.Name):
        size = dict.get(sizes, node.id)
        if size is None:
            raise KeyError(node.id)
        return fractions.Fraction(size)
    if isinstance(node, ast.UnaryOp) and isinstance(node.op, (ast.USub, ast.UAdd)):
        inner = _value(node.operand, sizes)
        return -inner if isinstance(node.op, ast.USub) else inner
    if isinstance(node, ast.BinOp):
        a, b = _value(node.left, sizes), _value(node.right, sizes)
        if isinstance(node.op, ast.Add):
            return a + b
        if isinstance(node.op, ast.Sub):
            return a - b
        if isinstance(node.op, ast.Mult):
            return a * b
        if isinstance(node.op, ast.Div):
            return a / b
        if isinstance(node.op, ast.FloorDiv):
            return fractions.Fraction(math.floor(a / b))
        if isinstance(node.op, ast.Mod):
            return a - b * math.floor(a / b)
        if isinstance(node.op, ast.Pow) and b.denominator == 1 and 0 <= b <= 64:
            return a ** int(b)
    if isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and not node.keywords:
        args = [_value(a, sizes) for a in node.args]
        if node.func.id in _FUNCTIONS and args:
            return fractions.Fraction(_FUNCTIONS[node.func.id](args))
        if node.func.id in _ROUNDING and len(args) == 1:
            return fractions.Fraction(_ROUNDING[node.func.id](args[0]))
    raise ValueError(f"not a size expression: {ast.dump(node)[:80]}")


__all__ = ["SymbolSizes", "evaluate"]
