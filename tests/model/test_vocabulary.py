"""The closed sets (ortcopy_doctor.model.vocabulary and the enums on its ``Word`` base): each member is its JSON
string wherever a string was used before (str(), format(), ==, dict keys, json), and JSON loads into members."""

from __future__ import annotations

import json

import msgspec
import pytest

from ortcopy_doctor.analysis.binding import BindingPlace
from ortcopy_doctor.model.copies import Copy
from ortcopy_doctor.model.diff import DiffStatus
from ortcopy_doctor.model.errors import UsageError
from ortcopy_doctor.model import codec
from ortcopy_doctor.model.evidence import Feed
from ortcopy_doctor.model.findings import Severity
from ortcopy_doctor.model.vocabulary import (
    Ending,
    FailOn,
    FasterSide,
    GraphBlocker,
    HandOffKind,
    HandedAs,
    HandoffBlock,
    LinkHow,
    StageKind,
    CENSUS_CLASSES,
    COPY_KINDS,
    FEED,
    HOST_DEVICE,
    HOST_TO_DEVICE,
    OUTSIDE,
    UNEXPLAINED,
    AdviceStatus,
    CensusCheck,
    CensusClass,
    CiMethod,
    CodeCheckStatus,
    CopyKind,
    CopySource,
    Direction,
    EvidenceMode,
    FeedSource,
    MeasurementStatus,
    MemcpyOp,
    PlacedBy,
    Role,
    StateBasis,
    ValueKind,
    Variant,
    VariantVerdict,
    Word,
    same_name,
)
from ortcopy_doctor.report.core import load_report
from ortcopy_doctor.watch.observations import Basis, PlacementSource
from ortcopy_doctor.model.vocabulary import RegressionKind, RowStatus
from render_helpers import fixture_report_dict, write_report_json

CLOSED_SETS = [CopyKind, Direction, CensusClass, EvidenceMode, FeedSource, MeasurementStatus, ValueKind, MemcpyOp,
               Role, Severity, DiffStatus, BindingPlace, PlacementSource, Basis, StateBasis, CodeCheckStatus,
               CopySource, AdviceStatus, Variant, VariantVerdict, CiMethod, PlacedBy, CensusCheck, LinkHow, HandedAs,
               HandOffKind, StageKind, HandoffBlock, Ending, RowStatus, RegressionKind, GraphBlocker,
               FailOn, FasterSide]
MEMBERS = [member for closed in CLOSED_SETS for member in closed]


def test_every_closed_set_is_on_the_word_base():
    """A new closed set that skips the base would print as ``Class.MEMBER`` on Python >= 3.11."""
    assert [c for c in CLOSED_SETS if not issubclass(c, Word)] == []
    assert set(Word.__subclasses__()) <= set(CLOSED_SETS)


@pytest.mark.parametrize("member", MEMBERS, ids=repr)
def test_str_is_the_plain_value(member):
    assert (str(member), "%s" % member) == (member.value, member.value)


@pytest.mark.parametrize("member", MEMBERS, ids=repr)
def test_format_is_the_plain_value(member):
    """Since Python 3.11 format() of a (str, Enum) member gives ``Class.MEMBER`` (3.10: the value); Word keeps the
    value on every version."""
    assert (format(member), f"{member}", f"[{member:>16}]") == (member.value, member.value, f"[{member.value:>16}]")


@pytest.mark.parametrize("member", MEMBERS, ids=repr)
def test_member_equals_and_hashes_like_its_value(member):
    assert member == member.value and hash(member) == hash(member.value)
    assert {member.value: "found"}[member] == "found" and {member: "found"}[member.value] == "found"


def test_the_module_names_are_the_members():
    assert FEED is CopyKind.FEED and HOST_TO_DEVICE is Direction.HOST_TO_DEVICE and OUTSIDE is CensusClass.OUTSIDE
    assert UNEXPLAINED is CopyKind.UNEXPLAINED
    assert COPY_KINDS == ("feed", "fetch", "memcpy_node", "in_kernel")
    assert HOST_DEVICE == ("host_to_device", "device_to_host")
    assert CENSUS_CLASSES == ("feed", "fetch", "memcpy_node", "in_kernel", "device_to_device", "other_copy",
                              "outside", "between_nodes")


def test_a_name_in_two_sets_is_the_same_string():
    assert CopyKind.FEED == CensusClass.FEED and same_name(CopyKind.FEED, CensusClass.FEED)
    assert not same_name(CopyKind.FEED, CensusClass.FETCH)


def test_json_writes_members_as_their_strings():
    assert json.dumps({FEED: [HOST_TO_DEVICE, Severity.WARNING]}) == '{"feed": ["host_to_device", "warning"]}'


def test_the_codec_writes_plain_strings():
    copy = Copy(kind=FEED, direction=HOST_TO_DEVICE, tensor="x", bytes_per_run=4)
    data = codec.to_builtins(copy)
    assert (data["kind"], data["direction"]) == ("feed", "host_to_device")
    assert type(data["kind"]) is str and type(data["direction"]) is str
    assert [type(k) for k in codec.to_builtins({CensusClass.FEED: 1})] == [str]


def test_the_codec_reads_members():
    copy = codec.convert({"kind": "memcpy_node", "direction": "device_to_host", "tensor": "h", "bytes_per_run": 8},
                         Copy)
    assert copy.kind is CopyKind.MEMCPY_NODE and copy.direction is Direction.DEVICE_TO_HOST


def test_the_codec_reads_enum_dict_keys_as_members():
    loaded = codec.convert({"feed": 1, "outside": 2}, dict[CensusClass, int])
    assert [type(k) for k in loaded] == [CensusClass, CensusClass] and loaded == {"feed": 1, "outside": 2}


def test_the_codec_refuses_a_dict_key_outside_the_set():
    with pytest.raises(msgspec.ValidationError, match=r"^Invalid enum value 'nowhere' - at `key` in `\$`$"):
        codec.convert({"feed": 1, "nowhere": 2}, dict[CensusClass, int])


def test_the_codec_refuses_a_value_outside_the_set():
    with pytest.raises(msgspec.ValidationError, match=r"^Invalid enum value 'memcpy' - at `\$\.kind`$"):
        codec.convert({"kind": "memcpy", "direction": "host_to_device", "tensor": "x", "bytes_per_run": 1}, Copy)


def test_the_codec_refuses_a_non_string_for_a_closed_set():
    with pytest.raises(msgspec.ValidationError, match=r"^Expected `str`, got `int` - at `\$\.source`$"):
        codec.convert({"name": "x", "dtype": "float32", "shape": [1], "bytes": 4, "source": 1}, Feed)


def test_load_report_refuses_an_unknown_value_as_a_usage_error(tmp_path):
    """The same path as every other format error of a loaded JSON: one UsageError line naming the place."""
    report = fixture_report_dict("demo")
    report["evidence"]["feeds"][0]["source"] = "guessed"
    path = write_report_json(report, tmp_path / "bad.json")
    with pytest.raises(UsageError, match=r"does not match the evidence format \(Invalid enum value 'guessed' - at "
                                         r"`\$\.feeds\[0\]\.source`\): pass a file written by"):
        load_report(path)
