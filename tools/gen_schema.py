"""Write ortcopy_doctor/model/schema/report.schema.json from the report's types (report.core.report_schema), and
sweep.schema.json from the sweep's (report.sweep.sweep_schema), audit-row.schema.json from the audit's row
(report.audit.audit_row_schema).

Run after changing a type the report JSON holds: python tools/gen_schema.py (tests/model/test_schema.py fails while
the shipped file differs from what this writes)."""

from __future__ import annotations

import json
import sys
from pathlib import Path

from ortcopy_doctor.report.audit import audit_row_schema
from ortcopy_doctor.report.core import report_schema
from ortcopy_doctor.report.sweep import sweep_schema

FOLDER = Path(__file__).resolve().parent.parent / "ortcopy_doctor" / "model" / "schema"
TARGET = FOLDER / "report.schema.json"
SCHEMAS = {"report.schema.json": report_schema, "sweep.schema.json": sweep_schema,
           "audit-row.schema.json": audit_row_schema}


def schema_text(name: str = "report.schema.json") -> str:
    """The schema file's text: indented by one space, keys in the types' order, a final newline."""
    return json.dumps(SCHEMAS[name](), indent=1, ensure_ascii=False) + "\n"


def main() -> int:
    """Write the files; print where."""
    for name in SCHEMAS:
        (FOLDER / name).write_text(schema_text(name), encoding="utf-8")
        print(f"wrote {FOLDER / name}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
