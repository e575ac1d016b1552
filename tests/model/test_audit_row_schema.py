"""The published JSON Schema of an audit JSONL line (ortcopy_doctor/model/schema/audit-row.schema.json, issue 37):
generated from ``AuditRow``, and rows as the codec writes them valid against it."""

from __future__ import annotations

import json

import pytest

from ortcopy_doctor.model import codec
from ortcopy_doctor.model.audit import AUDIT_FORMAT_VERSION, AuditRow, RowStatus
from ortcopy_doctor.model.schema import AUDIT_ROW_SCHEMA_FILE, load_schema
from ortcopy_doctor.report.audit import audit_row_schema
from render_helpers import REPO

pytest.importorskip("jsonschema")
from ortcopy_doctor.model.schema import validation_errors  # noqa: E402  (needs jsonschema)


def test_shipped_audit_row_schema_is_the_one_generated_from_the_type():
    shipped = (REPO / "ortcopy_doctor" / "model" / "schema" / AUDIT_ROW_SCHEMA_FILE).read_text(encoding="utf-8")
    assert shipped == json.dumps(audit_row_schema(), indent=1, ensure_ascii=False) + "\n", \
        "AuditRow changed: run python tools/gen_schema.py"


def test_the_audit_row_schema_names_its_format_version():
    schema = load_schema(AUDIT_ROW_SCHEMA_FILE)
    assert (schema["$id"], schema["properties"]["format_version"]["default"]) == (
        f"urn:ortcopy-doctor:audit-row:{AUDIT_FORMAT_VERSION}", AUDIT_FORMAT_VERSION)


def test_a_written_row_is_valid():
    row = AuditRow(id="m[batch=8]", model="m.onnx", config="batch=8", status=RowStatus.OK, copies_per_run=2,
                   fallback_ops=["NonZero"], median_ms=1.5, ci_low_ms=1.4, ci_high_ms=1.6)
    assert validation_errors(json.loads(codec.to_json(row)), AUDIT_ROW_SCHEMA_FILE) == []


def test_an_unknown_status_is_caught():
    data = codec.to_builtins(AuditRow(id="m", model="m.onnx", status=RowStatus.OK))
    data["status"] = "exploded"
    (error,) = validation_errors(data, AUDIT_ROW_SCHEMA_FILE)
    assert error == "status: 'exploded' is not one of ['crashed', 'failed', 'interrupted', 'ok', 'timeout']"
