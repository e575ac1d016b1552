"""JSON text for reports: one record per line.

``json.dumps(indent=...)`` runs in Python's pure-Python encoder (the C encoder only writes compact JSON), which took
2 of the 6 seconds of a 10,000-node ``check --static --json``. Here the outer levels are laid out by hand and every
record (a copy, a finding, a node, an event) is one line from the C encoder: as fast as compact JSON,
and a diff of two reports still shows which records changed.

Every document written here is strict JSON (RFC 8259), which has no NaN or Infinity: jq, JavaScript's
``JSON.parse``, Go and SARIF viewers refuse both. A float without a finite value (the upper end of an unbounded
interval) is written ``null``. ``loads`` still reads NaN and Infinity, which earlier versions wrote there.
"""

from __future__ import annotations

import json
import math
from typing import Any

_ENCODER = json.JSONEncoder(ensure_ascii=False, separators=(", ", ": "), allow_nan=False)


def _c_encode() -> Any:
    """CPython's C encoder made once, called directly: ``JSONEncoder.encode`` makes a new one for every record
    (40% of the time of a record). None where this Python has no C encoder or it writes anything else than
    ``encode`` does (the check below), and then ``encode`` is used."""
    make = getattr(json.encoder, "c_make_encoder", None)
    if make is None:
        return None
    try:
        # markers None: no circular-reference check (the records are trees to_jsonable has just built)
        iterencode = make(None, _ENCODER.default, json.encoder.encode_basestring, None, ": ", ", ", False, False,
                          False)
    except TypeError:
        return None

    def encode(value: Any) -> str:
        return "".join(iterencode(value, 0))

    sample = {"a": [1, 2.5, 1e300, -0.0, None, True], "é\n": {"x": "y\u2028\ud800"}, "n": 10**30}
    try:
        if encode(sample) != _ENCODER.encode(sample) or encode("s") != _ENCODER.encode("s"):
            return None
    except Exception:  # noqa: BLE001 - any failure: use the standard path
        return None
    try:
        encode([math.inf])
    except ValueError:  # refuses what is not JSON, as allow_nan=False does
        return encode
    return None


_ENCODE_STRICT = _c_encode() or _ENCODER.encode


def _encode(value: Any, replaced: list[bool] | None = None) -> str:
    """One value as compact JSON; a float that is not finite (in a record that has one, which is rare) as null,
    noted in ``replaced`` where given."""
    try:
        return _ENCODE_STRICT(value)
    except ValueError:
        if replaced is not None:
            replaced.append(True)
        return _ENCODE_STRICT(finite(value))


def finite(value: Any) -> Any:
    """``value`` (a tree of dicts, lists and tuples) with every float that is NaN or infinite replaced by None:
    what strict JSON can hold."""
    if isinstance(value, float):
        return value if math.isfinite(value) else None
    if isinstance(value, dict):
        return {k: finite(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [finite(v) for v in value]
    return value


def dumps_indented(value: Any, indent: int = 1) -> str:
    """``json.dumps(value, indent=indent, ensure_ascii=False)``, strict: NaN and infinities written as null."""
    try:
        return json.dumps(value, indent=indent, ensure_ascii=False, allow_nan=False)
    except ValueError:
        return json.dumps(finite(value), indent=indent, ensure_ascii=False, allow_nan=False)


def dumps(value: Any) -> str:
    """``value`` as JSON text: the top two levels of objects one member per line, lists of records (objects) in
    the top three levels one record per line, each record on its line (indented by one space per level)."""
    return dumps_exact(value)[0]


def dumps_exact(value: Any) -> tuple[str, bool]:
    """``dumps`` and whether the text holds ``value`` exactly: False where a float that is not finite was written
    as null (reading the text back gives None there)."""
    out: list[str] = []
    replaced: list[bool] = []
    _write(value, 0, out, replaced)
    return "".join(out), not replaced


def _write(value: Any, depth: int, out: list[str], replaced: list[bool] | None = None) -> None:
    if isinstance(value, dict) and value and depth < 2:
        pad = "\n" + " " * (depth + 1)
        out.append("{")
        for i, (key, item) in enumerate(value.items()):
            out.append(("," if i else "") + pad + _encode(str(key)) + ": ")
            _write(item, depth + 1, out, replaced)
        out.append("\n" + " " * depth + "}")
    elif isinstance(value, list) and value and depth < 3 and any(isinstance(v, dict) for v in value):
        pad = "\n" + " " * (depth + 1)
        out.append("[")
        for i, item in enumerate(value):
            out.append(("," if i else "") + pad)
            _write(item, depth + 1, out, replaced)
        out.append("\n" + " " * depth + "]")
    else:
        out.append(_encode(value, replaced))


def loads(data: bytes, text_only: bool = False) -> Any:
    """Parse JSON ``data`` (UTF-8 bytes, as read from a file) exactly as ``json.loads`` parses its UTF-8 text.

    orjson (a dependency) parses a 20 MB report 4-5 times faster than the standard library. Where it refuses a
    document (NaN or Infinity, which ``json.dumps`` and earlier versions of ortcopy-doctor wrote; a lone surrogate
    escape; bad UTF-8 or bad JSON; nesting deeper than 1024) or is not installed, the standard library parses it:
    the same values for a valid file, and its error (``UnicodeDecodeError``, ``JSONDecodeError``,
    ``RecursionError``) for a bad one. One difference is left: orjson reads an integer beyond 64 bits (which no
    report holds) as a float, so a field that must be an integer refuses it with its place named.

    ``text_only``: refuse (``ValueError``) a string holding a lone surrogate escape (``"\\ud800"``), which JSON
    allows but which is no text: it cannot be written out again as UTF-8 (a report, HTML page or SARIF file)."""
    try:
        import orjson
    except ImportError:  # pragma: no cover - a declared dependency; the GPU image runs without it
        return _text_checked(json.loads(data.decode("utf-8")), text_only)
    try:
        return orjson.loads(data)  # refuses lone surrogates itself
    except orjson.JSONDecodeError:
        return _text_checked(json.loads(data.decode("utf-8")), text_only)


def _text_checked(value: Any, text_only: bool) -> Any:
    if text_only:
        try:
            json.dumps(value, ensure_ascii=False).encode("utf-8")
        except UnicodeEncodeError:
            raise ValueError("a string holds a lone surrogate escape such as \\ud800, which is no text") from None
    return value


__all__ = ["dumps", "dumps_exact", "dumps_indented", "finite", "loads"]
