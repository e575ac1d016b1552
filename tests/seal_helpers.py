"""Keying a report JSON as anyone can (report/seal.py): the ``analysed_by`` key has no secret, so a file edited by
hand and keyed again with this code is read from the cache as it is written (and never judged)."""

from __future__ import annotations

import json
from typing import Any

import msgspec

from ortcopy_doctor.model import codec
from ortcopy_doctor.report.core import ReportDocument
from ortcopy_doctor.report.seal import analysis_key


def key_of(data: dict[str, Any]) -> str | None:
    """This code's key for the report ``data`` (a parsed JSON); None where it is no report of this format."""
    try:
        document = codec.convert(data, ReportDocument)
    except msgspec.ValidationError:
        return None
    return analysis_key(msgspec.structs.replace(document, analysed_by=""))


def sealed(text: str) -> str:
    """``text`` (a report JSON) keyed again by this code, written by the codec; as it is written where it holds
    what no report of this format can (then nothing can key it, and it is re-analysed)."""
    data = json.loads(text)
    key = key_of(data)
    if key is None:
        return text
    data["analysed_by"] = key
    return codec.to_json(data)


def unsealed(text: str) -> str:
    """``text`` without its key."""
    data = json.loads(text)
    data.pop("analysed_by", None)
    return codec.to_json(data)


def verified(raw: bytes | str) -> bool:
    """Whether ``raw``'s key is this code's for what it holds (``load_report(cache=True)`` would read it as it is,
    unless ``cache_problem`` finds what the analysis never makes)."""
    data = json.loads(raw)
    return bool(data.get("analysed_by")) and data.get("analysed_by") == key_of(data)
