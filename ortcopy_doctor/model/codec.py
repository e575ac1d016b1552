"""The one codec: every JSON document ortcopy-doctor writes or reads goes through msgspec, with the report's own types.

Writing: ``to_json`` (indented text) and ``to_builtins`` (plain dicts and lists, for a document assembled around
records). The types are ``msgspec.Struct``s and ``Word`` enums, written field by field in their declared order, a
closed set's member as its value. JSON has no NaN or Infinity (jq, ``JSON.parse``, Go and SARIF viewers refuse
both): a float that is not finite is written ``null``, so a field that may hold one is typed ``float | None``.

Reading: ``decode`` (JSON bytes into a type) and ``convert`` (an already parsed document, such as a recorded
fixture, into a type). A value of the wrong type raises ``msgspec.ValidationError`` naming its place
(``Expected `int`, got `str` - at `$.nodes[3].size```); keys a type does not know are skipped (a newer minor
version's fields), and a field that is missing takes its default. ``DecodeError`` covers both bad JSON and
``ValidationError``.
"""

from __future__ import annotations

from typing import Any, TypeVar, overload

import msgspec

T = TypeVar("T")

DecodeError = msgspec.DecodeError
ValidationError = msgspec.ValidationError



def _plain(obj: Any) -> Any:
    """A value msgspec does not write itself: a numpy scalar (``numpy.float64`` from a statistic) as its Python value."""
    item = getattr(obj, "item", None)
    if item is not None and getattr(obj, "shape", None) == ():
        return item()
    raise NotImplementedError(f"cannot write a {type(obj).__name__} as JSON")


_ENCODER = msgspec.json.Encoder(enc_hook=_plain)


def to_builtins(obj: Any) -> Any:
    """``obj`` as plain JSON values: structs as dicts (fields in order), enums as their values, tuples as lists."""
    return msgspec.to_builtins(obj, enc_hook=_plain)


def to_json_bytes(obj: Any, indent: int = 1) -> bytes:
    """``obj`` as UTF-8 JSON, ``indent`` spaces a level (0: one line); non-ASCII written as it is."""
    raw = _ENCODER.encode(obj)
    return msgspec.json.format(raw, indent=indent) if indent > 0 else raw


def to_json(obj: Any, indent: int = 1) -> str:
    """``to_json_bytes`` as text."""
    return to_json_bytes(obj, indent).decode("utf-8")


@overload
def decode(data: bytes | str) -> Any: ...
@overload
def decode(data: bytes | str, into: type[T]) -> T: ...
@overload
def decode(data: bytes | str, into: Any) -> Any: ...


def decode(data: bytes | str, into: Any = Any) -> Any:
    """JSON ``data`` as ``into`` (a struct, a typing annotation; ``Any``: plain values). Raises ``DecodeError``."""
    return msgspec.json.decode(data, type=into)


@overload
def convert(data: Any, into: type[T]) -> T: ...
@overload
def convert(data: Any, into: Any) -> Any: ...


def convert(data: Any, into: Any) -> Any:
    """A parsed JSON document (dicts, lists, strings, numbers) as ``into``; ``ValidationError`` names a bad value's
    place. A JSON integer in a ``float`` field becomes a float."""
    return msgspec.convert(data, into)


class Header(msgspec.Struct, frozen=True):
    """What a document says it is, read before its fields (``decode(data, Header)``): a newer version's fields would
    be misread, so its version is judged first."""

    format: Any = None
    format_version: Any = None


def version_problem(version: object, newest: int, written_by: str) -> str | None:
    """What keeps a document whose ``format_version`` is ``version`` from being read by this code, which reads versions
    up to ``newest``: the words after "NAME has WHAT " (``r.json has run report format 9, newer than this
    ortcopy-doctor reads (1): upgrade ortcopy-doctor``); None where nothing does. ``written_by`` names what writes
    such a document (```run --json```). The one version check of every versioned document the tool reads."""
    if not isinstance(version, int) or isinstance(version, bool) or version < 0:
        return f"format_version {str(version)[:40]!r}, not a version number: pass a file written by {written_by}"
    if version > newest:
        return f"format {version}, newer than this ortcopy-doctor reads ({newest}): upgrade ortcopy-doctor"
    return None


def convert_versioned(data: dict[str, Any], into: type[T], format_name: str, newest: int, what: str,
                      written_by: str = "ortcopy-doctor") -> T:
    """``convert`` of a recorded document that names its ``format`` and ``format_version``: ``ValueError`` where it
    is another format (``not ortcopy-doctor <what>``) or a version this code does not read (``version_problem``)."""
    if data.get("format") != format_name:
        raise ValueError(f"not ortcopy-doctor {what}")
    problem = version_problem(data.get("format_version", 0), newest, written_by)
    if problem:
        raise ValueError(f"the document has {what} {problem}")
    return convert(data, into)


def message(exc: Exception) -> str:
    """A decoding error on one line, at most 200 characters."""
    return " ".join(str(exc).split())[:200] or type(exc).__name__


__all__ = ["DecodeError", "Header", "ValidationError", "convert", "convert_versioned", "decode", "message",
           "to_builtins", "to_json", "to_json_bytes", "version_problem"]
