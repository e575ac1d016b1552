"""Load recorded GPU evidence (tests/fixtures/gpu) as reports, re-analysed by the current code."""

from __future__ import annotations

import functools
import gzip
import json
from pathlib import Path
from typing import Any

from ortcopy_doctor.report.core import Report, load_report, load_report_bytes

GPU_FIXTURES = Path(__file__).resolve().parent / "fixtures" / "gpu"
CORPUS_FIXTURES = Path(__file__).resolve().parent / "fixtures" / "corpus"
RAW_FIXTURES = Path(__file__).resolve().parent / "fixtures" / "raw"


def recorded(name: str) -> dict[str, Any]:
    with gzip.open(GPU_FIXTURES / f"{name}.json.gz", "rt", encoding="utf-8") as f:
        return json.load(f)


def recorded_report(name: str, tmp_path: Path) -> Report:
    path = tmp_path / f"{name}.json"
    path.write_text(json.dumps(recorded(name)["report"]), encoding="utf-8")
    return load_report(path)


@functools.lru_cache(maxsize=None)
def corpus_check(name: str) -> tuple[dict[str, Any], Report]:
    """A check of the recorded corpus (tests/fixtures/corpus, H200; tools/record_corpus.py): its report JSON as
    recorded, and that report re-analysed by the current code. Cached: read it, do not change it."""
    with gzip.open(CORPUS_FIXTURES / f"{name}.json.gz", "rt", encoding="utf-8") as f:
        recorded_json = json.load(f)["report"]
    return recorded_json, load_report_bytes(json.dumps(recorded_json).encode("utf-8"), f"{name}.json")


def raw_text(name: str) -> str:
    with gzip.open(RAW_FIXTURES / name, "rt", encoding="utf-8") as f:
        return f.read()
