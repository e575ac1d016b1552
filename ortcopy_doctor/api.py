"""The Python API; the CLI is a thin layer over it.

>>> from ortcopy_doctor import check
>>> report = check("model.onnx", dims={"batch": 8})        # doctest: +SKIP
>>> report.verdict, [c.tensor for c in report.copies]     # doctest: +SKIP
"""

from __future__ import annotations

import msgspec
from pathlib import Path

from ortcopy_doctor.collect.check import Progress, collect
from ortcopy_doctor.collect.session import CheckOptions
from ortcopy_doctor.collect.shape_sets import check_against_model
from ortcopy_doctor.model.errors import DoctorError
from ortcopy_doctor.model.report import Report
from ortcopy_doctor.model.sweep import ShapeSet, ShapeSweep
from ortcopy_doctor.report.core import analyse, load_report
from ortcopy_doctor.report.sweep import sweep


def check(
    model_path: str | Path,
    options: CheckOptions | None = None,
    *,
    progress: Progress | None = None,
    **overrides: object,
) -> Report:
    """Inspect, run and profile ``model_path`` and return the report.

    ``overrides`` set fields of ``CheckOptions`` directly, e.g. ``check(path, dims={"batch": 8})``.
    Raises ``DoctorError`` subclasses for bad input, with a one-line message that says what to do.
    """
    options = options or CheckOptions()
    for key in overrides:
        if not hasattr(options, key):
            raise TypeError(f"check() got an unknown option {key!r}")
    options = msgspec.structs.replace(options, **overrides)
    return analyse(collect(model_path, options, progress))


def _labelled(progress: Progress | None, label: str) -> Progress | None:
    """``progress`` with each step prefixed by the shape it is for ("batch=8: profiling")."""
    if progress is None:
        return None
    outer = progress
    return lambda step: outer(f"{label}: {step}")


def check_shapes(
    model_path: str | Path,
    shapes: list[ShapeSet],
    options: CheckOptions | None = None,
    *,
    progress: Progress | None = None,
) -> tuple[ShapeSweep, list[Report]]:
    """``check`` once per shape set (its --dim sizes and --shape shapes over those of ``options``), in order: the
    sweep across them (report/sweep.py) and each shape's full report. A ``DoctorError`` names the shape it is for
    ("at batch=64: ...")."""
    options = options or CheckOptions()
    shapes = [msgspec.structs.replace(s, dims={**options.dims, **s.dims}, shapes={**options.shapes, **s.shapes})
              for s in shapes]
    check_against_model(Path(model_path), shapes)  # a shape the model cannot take is refused before any runs
    reports: list[Report] = []
    for shape in shapes:
        sized = msgspec.structs.replace(options, dims=shape.dims, shapes=shape.shapes)
        try:
            reports.append(analyse(collect(model_path, sized, _labelled(progress, shape.label))))
        except DoctorError as exc:  # which shape failed, before what failed
            exc.message = f"at {shape.label}: {exc.message}"
            raise
    return sweep(shapes, reports), reports


__all__ = ["CheckOptions", "Report", "ShapeSet", "ShapeSweep", "analyse", "check", "check_shapes", "load_report"]
