"""Validation helpers: report JSON against the shipped schema, SARIF against the vendored SARIF 2.1.0 schema.

Every test that writes a report JSON (``check --json``, ``report --json``, ``Report.to_json``) calls
``assert_valid_report`` on it, so the suite as a whole checks that everything it writes matches
ortcopy_doctor/model/schema/report.schema.json.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from functools import lru_cache
from pathlib import Path
from typing import Any

import jsonschema

from ortcopy_doctor.model.schema import load_schema, validation_errors

TESTS = Path(__file__).resolve().parent
REPO = TESTS.parent
SARIF_SCHEMA = TESTS / "schemas" / "sarif-2.1.0.json"
SARIF_SCHEMA_SHA256 = "2d99159ae54a3eea97f81781cff48780548657c35949f4b7f25e99a2ba4de4f8"


def _data(path_or_data: Any) -> Any:
    if isinstance(path_or_data, (str, Path)):
        return json.loads(Path(path_or_data).read_text(encoding="utf-8"))
    return path_or_data


def assert_valid_report(path_or_data: Any) -> dict[str, Any]:
    """Fail with every schema violation listed; returns the parsed report."""
    data = _data(path_or_data)
    errors = validation_errors(data)
    assert not errors, "report JSON does not match ortcopy_doctor/model/schema/report.schema.json:\n" + "\n".join(errors[:30])
    return data


@lru_cache(maxsize=1)
def sarif_validator() -> jsonschema.Draft4Validator:
    schema = json.loads(SARIF_SCHEMA.read_text(encoding="utf-8"))
    jsonschema.Draft4Validator.check_schema(schema)
    return jsonschema.Draft4Validator(schema)


def sarif_errors(path_or_data: Any) -> list[str]:
    data = _data(path_or_data)
    errors = sorted(sarif_validator().iter_errors(data), key=lambda e: list(map(str, e.absolute_path)))
    return [f"{'/'.join(map(str, e.absolute_path)) or '<root>'}: {e.message}" for e in errors]


def assert_valid_sarif(path_or_data: Any) -> dict[str, Any]:
    data = _data(path_or_data)
    errors = sarif_errors(data)
    assert not errors, "not valid SARIF 2.1.0:\n" + "\n".join(errors[:30])
    return data


def report_schema() -> dict[str, Any]:
    return load_schema()


def run_cli(args: list[str], cwd: Path, timeout: float = 120) -> subprocess.CompletedProcess[str]:
    """``python -m ortcopy_doctor ARGS`` as a CI job runs it (no terminal width, colour or debug overrides)."""
    env = dict(os.environ)
    env["PYTHONPATH"] = os.pathsep.join([str(REPO)] + ([env["PYTHONPATH"]] if env.get("PYTHONPATH") else []))
    for name in ("COLUMNS", "LINES", "FORCE_COLOR", "TTY_COMPATIBLE", "TTY_INTERACTIVE", "ORTCOPY_DOCTOR_DEBUG"):
        env.pop(name, None)
    return subprocess.run([sys.executable, "-m", "ortcopy_doctor", *args], cwd=cwd, env=env, capture_output=True,
                          text=True, timeout=timeout, check=False)
