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
from ortcopy_doctor.model.report import Report
from ortcopy_doctor.report.core import analyse, load_report


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


__all__ = ["CheckOptions", "Report", "analyse", "check", "load_report"]
