"""Writing JSON: every document ortcopy-doctor writes is strict JSON (RFC 8259), which has no NaN or Infinity."""

from __future__ import annotations

import json
import math

import pytest

from ortcopy_doctor.model import jsontext


def strict_loads(text: str):
    """``json.loads`` as jq, JavaScript's JSON.parse and Go read JSON: NaN, Infinity and -Infinity refused."""
    def refuse(name: str):
        raise ValueError(f"not JSON: {name}")
    return json.loads(text, parse_constant=refuse)


def test_dumps_writes_an_infinite_float_as_null():
    assert strict_loads(jsontext.dumps({"ci": {"low": 0.0, "high": math.inf}})) == {"ci": {"low": 0.0, "high": None}}


def test_dumps_writes_nan_and_minus_infinity_as_null_inside_a_record():
    text = jsontext.dumps({"records": [{"a": [1.5, math.nan, -math.inf]}, {"a": [2.0]}]})
    assert strict_loads(text) == {"records": [{"a": [1.5, None, None]}, {"a": [2.0]}]}


def test_dumps_keeps_the_layout_of_records_with_an_infinite_float():
    assert jsontext.dumps({"r": [{"x": math.inf}, {"x": 1.0}]}) == '{\n "r": [\n  {"x": null},\n  {"x": 1.0}\n ]\n}'


def test_dumps_indented_writes_an_infinite_float_as_null():
    assert jsontext.dumps_indented({"a": (1, math.inf)}) == '{\n "a": [\n  1,\n  null\n ]\n}'


def test_dumps_indented_writes_finite_values_as_json_dumps_does():
    value = {"é": [1, 2.5, 1e300, -0.0, None, True, "\u2028"]}
    assert jsontext.dumps_indented(value) == json.dumps(value, indent=1, ensure_ascii=False)


@pytest.mark.parametrize("value", [0.0, -0.0, 5e-324, 1.7976931348623157e308, 3, True, "inf", None])
def test_finite_keeps_what_json_can_hold(value):
    assert jsontext.finite(value) is value
