"""Writing JSON: every document ortcopy-doctor writes goes through the one codec (model/codec.py) and is strict JSON
(RFC 8259), which has no NaN or Infinity."""

from __future__ import annotations

import json
import math

import msgspec

from ortcopy_doctor.model import codec
from ortcopy_doctor.model.copies import Copy
from ortcopy_doctor.model.vocabulary import CensusClass, CopyKind, Direction


def strict_loads(text: str):
    """``json.loads`` as jq, JavaScript's JSON.parse and Go read JSON: NaN, Infinity and -Infinity refused."""
    def refuse(name: str):
        raise ValueError(f"not JSON: {name}")
    return json.loads(text, parse_constant=refuse)


def test_an_infinite_float_is_written_as_null():
    assert strict_loads(codec.to_json({"ci": {"low": 0.0, "high": math.inf}})) == {"ci": {"low": 0.0, "high": None}}


def test_nan_and_minus_infinity_are_written_as_null_inside_a_list():
    assert strict_loads(codec.to_json({"a": [1.5, math.nan, -math.inf]})) == {"a": [1.5, None, None]}


def test_the_text_is_indented_by_one_space_a_level():
    assert codec.to_json({"a": (1, 2.5)}) == '{\n "a": [\n  1,\n  2.5\n ]\n}'


def test_finite_values_are_written_as_json_dumps_reads_them():
    value = {"é": [1, 2.5, 1e300, -0.0, None, True, "\u2028"]}
    assert json.loads(codec.to_json(value)) == value


def test_non_ascii_is_written_as_it_is():
    assert codec.to_json({"é": "→"}) == '{\n "é": "→"\n}'


def test_a_struct_is_written_field_by_field_in_declared_order():
    copy = Copy(kind=CopyKind.FEED, direction=Direction.HOST_TO_DEVICE, tensor="x", bytes_per_run=4)
    assert list(json.loads(codec.to_json(copy))) == [f.name for f in msgspec.structs.fields(Copy)]


def test_closed_sets_are_written_as_their_values():
    copy = Copy(kind=CopyKind.FEED, direction=Direction.HOST_TO_DEVICE, tensor="x", bytes_per_run=4)
    data = codec.to_builtins(copy)
    assert (data["kind"], data["direction"]) == ("feed", "host_to_device")
    assert [type(v) for v in (data["kind"], data["direction"])] == [str, str]
    assert list(codec.to_builtins({CensusClass.FEED: 1})) == ["feed"]


def test_indent_zero_writes_one_line():
    assert codec.to_json({"a": [1, {"b": None}]}, indent=0) == '{"a":[1,{"b":null}]}'
