"""The published JSON Schema (draft 2020-12) of the report JSON, shipped in the package.

``report.schema.json`` describes what ``check --json`` and ``report --json`` write (``sweep.schema.json``: a check
at several shapes; ``audit-row.schema.json``: one line of ``audit``'s JSONL) (docs/json-format.md has the
layout, CHANGELOG.md the format versions). It is generated from the report's types (``report.core.report_schema``,
written by tools/gen_schema.py; tests/model/test_schema.py keeps the file current). Validating needs the ``jsonschema`` package, which ortcopy-doctor itself does
not depend on: ``pip install jsonschema`` (it is in the ``test`` extra).

>>> from ortcopy_doctor.model.schema import load_schema, validation_errors
>>> load_schema()["$id"]
'urn:ortcopy-doctor:report:2'
"""

from __future__ import annotations

import json
from functools import lru_cache
from importlib import resources
from typing import Any

SCHEMA_FILE = "report.schema.json"
SCHEMA_ID = "urn:ortcopy-doctor:report:2"
SWEEP_SCHEMA_FILE = "sweep.schema.json"  # the sweep document of a check at several shapes
AUDIT_ROW_SCHEMA_FILE = "audit-row.schema.json"  # one line of the audit's JSONL (issue 37)


@lru_cache(maxsize=3)
def _schema_text(name: str = SCHEMA_FILE) -> str:
    return (resources.files(__name__) / name).read_text(encoding="utf-8")


def load_schema(name: str = SCHEMA_FILE) -> dict[str, Any]:
    """The report schema (or the one named: ``SWEEP_SCHEMA_FILE``) as a fresh dict."""
    schema: dict[str, Any] = json.loads(_schema_text(name))  # a JSON object: the file's top level
    return schema


def validation_errors(data: Any, name: str = SCHEMA_FILE) -> list[str]:
    """Every way ``data`` (a parsed report JSON, or the document of the schema ``name``) breaks the schema, as
    ``path: message`` lines; [] when valid."""
    try:
        import jsonschema  # here: an optional dependency (the test extra), absent where only reports are written
    except ImportError as exc:  # pragma: no cover - the test extra installs it
        raise ImportError("validating a report needs the jsonschema package: pip install 'jsonschema>=4'") from exc
    from referencing import Registry, Resource  # here: jsonschema's own dependency, as jsonschema above

    # the shipped schemas by their $id: the sweep's refers to the report's for each shape's report document
    shipped = Registry().with_resources(
        (schema["$id"], Resource.from_contents(schema))
        for schema in (load_schema(n) for n in (SCHEMA_FILE, SWEEP_SCHEMA_FILE, AUDIT_ROW_SCHEMA_FILE)))
    validator = jsonschema.Draft202012Validator(load_schema(name), format_checker=jsonschema.FormatChecker(),
                                                registry=shipped)
    errors = sorted(validator.iter_errors(data), key=lambda e: (list(map(str, e.absolute_path)), e.message))
    return [f"{'/'.join(map(str, e.absolute_path)) or '<root>'}: {e.message}" for e in errors]


__all__ = ["AUDIT_ROW_SCHEMA_FILE", "SCHEMA_FILE", "SCHEMA_ID", "SWEEP_SCHEMA_FILE", "load_schema", "validation_errors"]
