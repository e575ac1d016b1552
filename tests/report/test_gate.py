"""The gates of `check` and `report` (ortcopy_doctor.report.gate): --max-transfer-bytes, --allow, --fail-on.

Their SARIF and their command-line use: tests/render/test_sarif.py.
"""

from __future__ import annotations

import pytest

from ortcopy_doctor.model.errors import UsageError
from ortcopy_doctor.report.gate import Gate, evaluate, parse_bytes, resolve_allow
from render_helpers import load_fixture


def test_parse_bytes():
    assert parse_bytes("0") == 0
    assert parse_bytes("2816") == 2816
    assert parse_bytes("1.5MB") == 1_500_000
    assert parse_bytes("2 KB") == 2000
    assert parse_bytes("1KiB") == 1024
    for bad in ("", "-1", "1TB", "x", "1.2.3"):
        with pytest.raises(UsageError, match="--max-transfer-bytes"):
            parse_bytes(bad)


def test_resolve_allow():
    assert resolve_allow(["feed-copy", "ocd005", "OCD003,cpu-fallback"]) == {"OCD004", "OCD005", "OCD003", "OCD002"}
    with pytest.raises(UsageError, match="not a finding kind"):
        resolve_allow(["feed"])


def test_gate(tmp_path):
    report = load_fixture("cpu_op_between", tmp_path)  # 2816 B per run, 5 warnings
    assert not evaluate(report, Gate("error")).failed
    assert evaluate(report, Gate("warning")).failed
    assert evaluate(report, Gate("never", max_transfer_bytes=2815)).failed
    assert not evaluate(report, Gate("never", max_transfer_bytes=2816)).failed
    everything = resolve_allow(["OCD002", "OCD003", "OCD004", "OCD005"])
    result = evaluate(report, Gate("warning", allow=everything))
    assert not result.failed and len(result.allowed) == len(report.findings)
    result = evaluate(report, Gate("warning", max_transfer_bytes=100, allow=everything))
    assert result.failed and len(result.reasons) == 1 and "--max-transfer-bytes" in result.reasons[0]
