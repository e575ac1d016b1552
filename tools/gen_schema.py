"""Write ortcopy_doctor/model/schema/report.schema.json from the report's types (report.core.report_schema).

Run after changing a type the report JSON holds: python tools/gen_schema.py (tests/model/test_schema.py fails while
the shipped file differs from what this writes)."""

from __future__ import annotations

import json
import sys
from pathlib import Path

from ortcopy_doctor.report.core import report_schema

TARGET = Path(__file__).resolve().parent.parent / "ortcopy_doctor" / "model" / "schema" / "report.schema.json"


def schema_text() -> str:
    """The schema file's text: indented by one space, keys in the types' order, a final newline."""
    return json.dumps(report_schema(), indent=1, ensure_ascii=False) + "\n"


def main() -> int:
    """Write the file; print where."""
    TARGET.write_text(schema_text(), encoding="utf-8")
    print(f"wrote {TARGET}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
