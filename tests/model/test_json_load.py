"""Reading JSON: the one codec (model/codec.py) checks what it reads against the types and names a bad value's
place; bad JSON is refused."""

from __future__ import annotations

import msgspec
import pytest

from ortcopy_doctor.model import codec
from ortcopy_doctor.model.evidence import RuntimeNode


def _node(**changes):
    node = {"name": "n", "op_type": "Relu", "domain": "", "provider": "CUDAExecutionProvider", "inputs": ["x"],
            "outputs": ["y"]}
    node.update(changes)
    return node


def test_a_bad_list_item_is_named_by_its_place():
    with pytest.raises(msgspec.ValidationError, match=r"Expected `str`, got `int` - at `\$\[1\]\.inputs\[1\]`"):
        codec.convert([_node(), _node(inputs=["x", 7])], list[RuntimeNode])


def test_a_bad_top_level_value_is_named():
    with pytest.raises(msgspec.ValidationError, match="Expected `object`, got `array`"):
        codec.decode(b"[]", RuntimeNode)


def test_true_is_no_number():
    with pytest.raises(msgspec.ValidationError, match=r"Expected `int`, got `bool` - at `\$\[1\]`"):
        codec.decode(b"[1, true]", list[int])


def test_an_integer_in_a_float_field_is_read_as_a_float():
    assert codec.decode(b"[1]", list[float]) == [1.0] and type(codec.decode(b"[1]", list[float])[0]) is float


def test_a_missing_field_keeps_its_default():
    node = codec.convert({k: v for k, v in _node().items() if k != "inputs"}, RuntimeNode)
    assert node.inputs == []


def test_a_missing_required_field_is_named():
    with pytest.raises(msgspec.ValidationError, match="missing required field `name`"):
        codec.convert({k: v for k, v in _node().items() if k != "name"}, RuntimeNode)


def test_unknown_keys_are_skipped():
    assert codec.convert(_node(added_in_a_later_version=1), RuntimeNode) == codec.convert(_node(), RuntimeNode)


@pytest.mark.parametrize("raw", [b'{"a": }', b'{"a": "\xff"}', b'{"x": NaN}', b'["\\ud800"]'])
def test_bad_json_is_a_decode_error(raw):
    with pytest.raises(codec.DecodeError):
        codec.decode(raw)


def test_a_lone_surrogate_escape_is_refused():
    """JSON allows ``"\\ud800"``, but it is no text: it could not be written out again as UTF-8."""
    with pytest.raises(codec.DecodeError):
        codec.decode(b'{"model": {"path": "\\ud800evil.onnx"}}')


def test_a_surrogate_pair_is_read():
    assert codec.decode(b'["\\ud83d\\ude00"]') == ["\U0001f600"]


def test_nesting_too_deep_raises_recursion_error():
    with pytest.raises(RecursionError):
        codec.decode(b"[" * 200_000 + b"]" * 200_000)


def test_message_is_one_line_of_at_most_200_characters():
    assert codec.message(ValueError("a\n  b" + "c" * 300)) == "a b" + "c" * 197


def test_a_recorded_document_of_another_format_is_refused():
    from ortcopy_doctor.model.watch import WATCH_FORMAT, WatchObservations

    with pytest.raises(ValueError, match="^not ortcopy-doctor watch observations$"):
        codec.convert_versioned({"format": "other"}, WatchObservations, WATCH_FORMAT, 1, "watch observations")


def test_a_recorded_document_of_a_newer_version_is_refused():
    from ortcopy_doctor.model.pipeline import PIPELINE_FORMAT, PIPELINE_FORMAT_VERSION, load_pipeline_observations

    newer = PIPELINE_FORMAT_VERSION + 1
    with pytest.raises(ValueError, match=f"^the document has pipeline observations format {newer}, newer than this "
                                         rf"ortcopy-doctor reads \({PIPELINE_FORMAT_VERSION}\): upgrade ortcopy-doctor$"):
        load_pipeline_observations({"format": PIPELINE_FORMAT, "format_version": newer})
