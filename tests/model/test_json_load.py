"""Reading a report back: the JSON parser (orjson, the standard library where orjson refuses) and the places that
``from_jsonable`` names in its errors."""

from __future__ import annotations

import json

import pytest

from ortcopy_doctor.model import jsontext
from ortcopy_doctor.model.evidence import RuntimeNode, from_jsonable


def test_loads_reads_a_document_as_json_does():
    text = '{"a": [1, 2.5, "x\\u00e9", null, true], "b": {"c": -3e-7}}'
    assert jsontext.loads(text.encode()) == json.loads(text)


def test_loads_reads_nan_and_infinity_which_json_dumps_writes():
    data = jsontext.loads(json.dumps({"x": float("nan"), "y": float("inf")}).encode())
    assert data["x"] != data["x"] and data["y"] == float("inf")


def test_loads_reads_an_integer_beyond_64_bits_as_a_float_that_an_int_field_refuses():
    # orjson reads integers beyond 64 bits as floats (no report holds one); a field that must be an integer then
    # fails with the place named.
    data = jsontext.loads(b'{"n": 123456789012345678901234567890}')
    assert data == {"n": 1.2345678901234568e+29}
    with pytest.raises(TypeError) as exc:
        from_jsonable(int, data["n"], where="n")
    assert str(exc.value) == "n: expected int, got a number"


def test_loads_reads_a_lone_surrogate_escape_as_json_does():
    assert jsontext.loads(b'["\\ud800"]') == ["\ud800"]


def test_loads_text_only_refuses_a_lone_surrogate_escape():
    with pytest.raises(ValueError, match=r"lone surrogate escape such as \\ud800"):
        jsontext.loads(b'{"model": {"path": "\\ud800evil.onnx"}, "x": NaN}', text_only=True)


def test_loads_text_only_reads_an_escaped_surrogate_pair():
    assert jsontext.loads(b'["\\ud83d\\ude00", NaN]', text_only=True)[0] == "\U0001f600"


def test_loads_raises_the_standard_librarys_error_for_bad_json():
    with pytest.raises(json.JSONDecodeError, match="Expecting value: line 1 column 7"):
        jsontext.loads(b'{"a": }')


def test_loads_raises_unicode_decode_error_for_bad_utf8():
    with pytest.raises(UnicodeDecodeError):
        jsontext.loads(b'{"a": "\xff"}')


def test_loads_raises_recursion_error_for_absurd_nesting():
    with pytest.raises(RecursionError):
        jsontext.loads(b"[" * 200_000 + b"]" * 200_000)


def _node(**changes):
    node = {"name": "n", "op_type": "Relu", "domain": "", "provider": "CPUExecutionProvider",
            "inputs": ["x"], "outputs": ["y"]}
    node.update(changes)
    return node


def test_from_jsonable_names_the_place_of_a_bad_list_item():
    with pytest.raises(TypeError) as exc:
        from_jsonable(list[RuntimeNode], [_node(), _node(inputs=["x", 7])])
    assert str(exc.value) == "[1].inputs[1]: expected str, got a number"


def test_from_jsonable_names_the_place_under_the_callers_prefix():
    with pytest.raises(TypeError) as exc:
        from_jsonable(RuntimeNode, _node(op_type=None), where="nodes[4]")
    assert str(exc.value) == "nodes[4].op_type: expected str, got null"


def test_from_jsonable_names_a_bad_top_level_value():
    with pytest.raises(TypeError) as exc:
        from_jsonable(RuntimeNode, [])
    assert str(exc.value) == "value: expected an object, got a list"


def test_from_jsonable_copies_lists_it_takes_as_they_are():
    data = _node(inputs=["a", "b"])
    node = from_jsonable(RuntimeNode, data)
    node.inputs.append("c")
    assert data["inputs"] == ["a", "b"]


def test_from_jsonable_refuses_true_for_a_number_inside_a_list():
    with pytest.raises(TypeError) as exc:
        from_jsonable(list[int], [1, True])
    assert str(exc.value) == "[1]: expected int, got a boolean"


def test_from_jsonable_keeps_the_default_of_a_missing_field():
    node = from_jsonable(RuntimeNode, {k: v for k, v in _node().items() if k != "inputs"})
    assert node.inputs == [] and node.name == "n"


def test_from_jsonable_names_a_missing_required_field():
    with pytest.raises(TypeError, match="missing 1 required positional argument: 'name'"):
        from_jsonable(RuntimeNode, {k: v for k, v in _node().items() if k != "name"})
