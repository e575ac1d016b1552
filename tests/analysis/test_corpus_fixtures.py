"""Replay of the real-model corpus recorded on the H200 (issue 11; tools/record_corpus.py, tests/fixtures/corpus).

For every recorded model, re-analysed by the current code: the copies table and the verdict equal the CUPTI census
per run (count and bytes by direction), no transfer is unexplained, the generated binding code and the CUDA-graph
code ran as printed wherever the report offers them, and the A/B measurement ran every offered variant.
Skips (saying so) while the fixtures are absent.
"""

from __future__ import annotations

import functools
import gzip
import json
from pathlib import Path

import pytest

from ortcopy_doctor.analysis.census_match import copies_by_direction, traced_by_direction
from render_helpers import REPO, TESTS

FIXTURES = TESTS / "fixtures" / "corpus"
RECORDED = sorted(FIXTURES.glob("*.json.gz")) if FIXTURES.exists() else []
pytestmark = pytest.mark.skipif(not RECORDED, reason="tests/fixtures/corpus is absent: record it on a GPU with "
                                "tools/export_corpus.py and tools/record_corpus.py (issue 11)")


# Recorded before a fix that changes what the recording holds: the lead re-records them (round 2). Strict: once the
# re-recorded fixture is in, the mark must go.
RERECORD: dict[tuple[str, str], str] = {}


@functools.lru_cache(maxsize=None)
def _text(path: Path) -> str:
    with gzip.open(path, "rt", encoding="utf-8") as f:
        return f.read()


def _load(path: Path) -> dict:
    return json.loads(_text(path))


@functools.lru_cache(maxsize=None)
def _report_at(fixture: Path):
    """The recorded report, loaded and re-analysed with the current rules once per fixture (the tests only read it;
    re-analysing maskrcnn's 1,525 transfers per run for each test was most of this file's time)."""
    import tempfile

    from ortcopy_doctor.report.core import load_report

    with tempfile.TemporaryDirectory() as folder:
        path = Path(folder) / "report.json"
        path.write_text(json.dumps(_load(fixture)["report"]), encoding="utf-8")
        return load_report(path)


def _recorded() -> list[Path]:
    return [p for p in RECORDED if '"report"' in _text(p) and "report" in _load(p)]


def _rerecord(request, path: Path) -> None:
    reason = RERECORD.get((request.function.__name__, path.name.split(".")[0]))
    if reason:
        request.applymarker(pytest.mark.xfail(reason=reason, strict=True))


@pytest.mark.parametrize("path", _recorded(), ids=lambda p: p.name.split(".")[0])
def test_copies_table_equals_the_census_per_run(path, tmp_path):
    report = _report_at(path)
    assert report.census is not None, report.evidence.census_status
    by_direction = copies_by_direction(report.copies)
    for run in report.census.traced_runs:
        assert by_direction == traced_by_direction(report.census, run), run
    assert report.summary.copies_per_run == sum(n for n, _ in by_direction.values())


@pytest.mark.parametrize("path", _recorded(), ids=lambda p: p.name.split(".")[0])
def test_no_transfer_is_unexplained(path, tmp_path, request):
    _rerecord(request, path)
    report = _report_at(path)
    assert [c.cause for c in report.copies if c.kind == "unexplained"] == []
    assert [f.message for f in report.findings if f.rule == "OCD010"] == []


@pytest.mark.parametrize("path", _recorded(), ids=lambda p: p.name.split(".")[0])
def test_offered_code_ran_as_printed(path, request):
    _rerecord(request, path)
    data = _load(path)
    for flavor, run in data["code_runs"].items():
        if run.get("offered", True) and not run.get("skipped"):
            assert run["ran"], (flavor, run.get("error", "")[-600:])


@pytest.mark.parametrize("path", _recorded(), ids=lambda p: p.name.split(".")[0])
def test_measurement_ran_every_offered_variant(path, request):
    _rerecord(request, path)
    m = _load(path)["report"]["evidence"].get("binding_measurement") or {}
    assert m.get("status") == "measured", m.get("reason")
    for v in m["variants"]:
        assert v["ran"] or v.get("skipped_reason"), v["variant"]
        assert "Traceback" not in (v.get("skipped_reason") or ""), v
        assert "generated code failed" not in (v.get("skipped_reason") or ""), v


@pytest.mark.parametrize("path", _recorded(), ids=lambda p: p.name.split(".")[0])
def test_recommended_median_is_within_the_interval_of_the_best(path, tmp_path):
    """Issue 12's check over the corpus: the best measured variant is not measurably faster than the recommended one
    (the 95% interval of their ratio, paired by round, reaches 1)."""
    from ortcopy_doctor.report.recommend import advise
    from ortcopy_doctor.analysis.stats import ratio_ci

    report = _report_at(path)
    ran = {v.variant: v for v in report.evidence.binding_measurement.variants if v.ran}
    best = min((ran[n] for n in ("plain", "plan", "cuda_graph") if n in ran), key=lambda v: v.median_ms)
    chosen = ran[advise(report).recommended]
    ci = ratio_ci(chosen.samples_ms, best.samples_ms)
    assert chosen is best or ci.low <= 1.0, (chosen.variant, best.variant, ci.text())


def test_the_corpus_has_30_recorded_models_with_the_ort_version():
    recorded = _recorded()
    assert len(recorded) >= 30
    for path in recorded:
        data = _load(path)
        assert data["ort_version"] == data["versions"]["onnxruntime"] and data["ort_version"], path.name


def test_docs_accuracy_table_is_generated_from_the_fixtures():
    import importlib.util

    root = REPO
    spec = importlib.util.spec_from_file_location("corpus_table", root / "tools" / "corpus_table.py")
    tool = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(tool)
    assert tool.section() in (root / "docs" / "accuracy.md").read_text(encoding="utf-8"), \
        "docs/accuracy.md is stale: run python tools/corpus_table.py --write"
