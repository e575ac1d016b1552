"""Load recorded GPU evidence (tests/fixtures/gpu) as reports, re-analysed by the current code."""

from __future__ import annotations

import gzip
import json
from pathlib import Path
from typing import Any

from ortcopy_doctor.report.core import Report, load_report

GPU_FIXTURES = Path(__file__).resolve().parent / "fixtures" / "gpu"
RAW_FIXTURES = Path(__file__).resolve().parent / "fixtures" / "raw"


def recorded(name: str) -> dict[str, Any]:
    with gzip.open(GPU_FIXTURES / f"{name}.json.gz", "rt", encoding="utf-8") as f:
        return json.load(f)


def recorded_report(name: str, tmp_path: Path) -> Report:
    path = tmp_path / f"{name}.json"
    path.write_text(json.dumps(recorded(name)["report"]), encoding="utf-8")
    return load_report(path)


def raw_text(name: str) -> str:
    with gzip.open(RAW_FIXTURES / name, "rt", encoding="utf-8") as f:
        return f.read()
