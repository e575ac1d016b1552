"""The Python API; the CLI is a thin layer over it.

>>> from ortcopy_doctor import check
>>> report = check("model.onnx", dims={"batch": 8})        # doctest: +SKIP
>>> report.verdict, [c.tensor for c in report.copies]     # doctest: +SKIP
"""

from __future__ import annotations

import msgspec
from pathlib import Path
from typing import TYPE_CHECKING

from ortcopy_doctor.collect.check import Progress, collect
from ortcopy_doctor.collect.ortlog import import_onnxruntime
from ortcopy_doctor.collect.session import CheckOptions
from ortcopy_doctor.collect.shape_sets import check_against_model
from ortcopy_doctor.model.errors import DoctorError
from ortcopy_doctor.model.lazy import lazy_import
from ortcopy_doctor.model.report import Report
from ortcopy_doctor.model.sweep import ShapeSet, ShapeSweep
from ortcopy_doctor.report.core import analyse, load_report
from ortcopy_doctor.report.sweep import sweep

if TYPE_CHECKING:
    from ortcopy_doctor.collect import provider_choice as _provider_choice
else:  # the shapes in turn are measured only by a sweep on CUDA: its imports (onnx, the feeds) wait until then
    _provider_choice = lazy_import("ortcopy_doctor.collect.provider_choice")


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
    switch = None
    searched = any(r.evidence.provider_choice is not None and r.evidence.provider_choice.search for r in reports)
    if len(shapes) > 1 and searched and options.measure_providers is not False:
        if progress is not None:
            progress("serving the shapes in turn under each convolution search option")
        switch = _provider_choice.measure_shape_switch(import_onnxruntime(), Path(model_path), options, shapes)
    return sweep(shapes, reports, switch), reports


__all__ = ["CheckOptions", "Report", "ShapeSet", "ShapeSweep", "analyse", "check", "check_shapes", "load_report"]
