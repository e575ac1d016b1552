"""The sweep across shapes (report/sweep.py): its rows, the break-even of the provider choice and the verdict, on a
tiny CPU check and on constructed per-shape numbers; the sweep document through the codec."""

from __future__ import annotations

from pathlib import Path

import msgspec
import onnx
import pytest

import models
from ortcopy_doctor import api
from ortcopy_doctor.model import codec
from ortcopy_doctor.model.sweep import SWEEP_FORMAT, ShapeResult, ShapeSet, ShapeSweep
from ortcopy_doctor.report.sweep import break_even, verdict

FAST = {"providers": ["CPUExecutionProvider"], "warmup_runs": 1, "profiled_runs": 1, "timed_runs": 3}


@pytest.fixture(scope="module")
def checked(tmp_path_factory) -> tuple[ShapeSweep, list]:
    path = tmp_path_factory.mktemp("sweep") / "conv.onnx"
    onnx.save(models.conv_net(), str(path))
    sets = [ShapeSet(label=f"batch={n}", dims={"batch": n}, batch=n) for n in (1, 2)]
    return api.check_shapes(path, sets, api.CheckOptions(**FAST))


def test_each_shape_is_checked_at_its_sizes(checked):
    sweep, reports = checked
    assert [r.evidence.feeds[0].shape for r in reports] == [[1, 3, 32, 32], [2, 3, 32, 32]]
    assert [(row.label, row.batch, row.copies_per_run) for row in sweep.shapes] == [("batch=1", 1, 0), ("batch=2", 2, 0)]


def test_the_first_run_and_the_median_with_its_interval_are_apart(checked):
    sweep, reports = checked
    row, report = sweep.shapes[0], reports[0]
    assert row.first_ms == report.evidence.timings.first_run_ms
    assert row.ci_low_ms <= row.median_ms <= row.ci_high_ms


def test_the_sweep_document_round_trips_through_the_codec(checked):
    sweep, _ = checked
    text = codec.to_json(sweep)
    again = codec.decode(text, ShapeSweep)
    assert (again.format, again.format_version) == (SWEEP_FORMAT, 1)
    assert again == sweep
    assert codec.to_json(again) == text


def _row(base: ShapeResult, batch: int, cuda_ms: float, cpu_ms: float, faster: str) -> ShapeResult:
    return msgspec.structs.replace(base, label=f"batch={batch}", batch=batch, cuda_ms=cuda_ms, cpu_ms=cpu_ms,
                                   faster=faster)


def test_cuda_wins_from_the_first_batch_after_the_cpu_wins(checked):
    base = checked[0].shapes[0]
    rows = [_row(base, 1, 2.0, 1.0, "CPU"), _row(base, 2, 2.1, 1.8, "CPU"), _row(base, 4, 2.2, 3.9, "CUDA"),
            _row(base, 8, 2.4, 7.5, "CUDA")]
    assert break_even(rows) == "CUDA wins from batch 4"


def test_the_cpu_provider_is_kept_where_cuda_never_wins(checked):
    base = checked[0].shapes[0]
    rows = [_row(base, 1, 2.0, 1.0, "CPU"), _row(base, 2, 2.1, 1.8, "CPU"), _row(base, 4, 2.2, 2.2, "")]
    assert break_even(rows) == "keep the CPU provider at batch ≤ 2"


def test_no_break_even_where_cuda_wins_everywhere_or_one_batch_was_measured(checked):
    base = checked[0].shapes[0]
    assert break_even([_row(base, 1, 1.0, 2.0, "CUDA"), _row(base, 2, 1.0, 4.0, "CUDA")]) == ""
    assert break_even([_row(base, 1, 2.0, 1.0, "CPU")]) == ""


def test_the_verdict_names_the_cpu_wins_and_the_break_even(checked):
    base = checked[0].shapes[0]
    rows = [_row(base, 1, 2.0, 1.0, "CPU"), _row(base, 4, 2.2, 3.9, "CUDA")]
    assert verdict(rows, break_even(rows)) == ("2 shapes: no host<->device copy at any shape; the CPU provider wins "
                                               "at batch=1 (launches and synchronisation outweigh the work there); "
                                               "CUDA wins from batch 4")


def test_the_verdict_names_the_shape_where_copies_weigh_most(checked):
    base = checked[0].shapes[0]
    small = msgspec.structs.replace(base, label="batch=1", copies_per_run=2, bytes_per_run=1000)
    large = msgspec.structs.replace(base, label="batch=8", copies_per_run=2, bytes_per_run=8000)
    assert verdict([small, large], "") == "2 shapes: copies weigh most at batch=8 (2 copies per run, 8.0 KB)"


def test_the_verdict_names_the_shapes_with_error_findings(checked):
    base = checked[0].shapes[0]
    rows = [msgspec.structs.replace(base, label="batch=1", worst_severity="error"),
            msgspec.structs.replace(base, label="batch=2", worst_severity="warning")]
    assert verdict(rows, "") == ("2 shapes: no host<->device copy at any shape; error findings at batch=1 (see each "
                                 "shape's report)")
