"""A check at several input shapes (``check --dim batch=1,8,64``, ``--shape x=AxB,CxD``, ``--shapes FILE``): one
full report per shape, a row of numbers per shape, and the verdict across them (report/sweep.py computes it).

JSON format: ``SWEEP_FORMAT`` ``SWEEP_FORMAT_VERSION``; each shape's report document inside carries its own
``format_version`` (model/report.py)."""

from __future__ import annotations

import msgspec
from msgspec import field
from typing import TYPE_CHECKING, NamedTuple, Optional

from ortcopy_doctor.model import codec
from ortcopy_doctor.model.report import ReportDocument
from ortcopy_doctor.model.vocabulary import FasterSide

if TYPE_CHECKING:
    from ortcopy_doctor.model.report import Report

SWEEP_FORMAT = "ortcopy-doctor-sweep"
SWEEP_FORMAT_VERSION = 1


class ShapeSet(msgspec.Struct, frozen=True):
    """The sizes of one run of a sweep: its --dim sizes and --shape shapes, its label ("batch=8",
    "x=1x3x640x640 y=1x4"), and its batch size where it names one (a dim symbol with "batch" in its name, else the
    leading dim of its first shape), which the break-even of the provider choice is told in."""

    label: str
    batch: Optional[int] = None
    dims: dict[str, int] = field(default_factory=dict)
    shapes: dict[str, list[int]] = field(default_factory=dict)


class ShapeResult(msgspec.Struct, frozen=True, kw_only=True):
    """One shape of a sweep: the timing session's first run apart, the steady-state median with its 95% interval,
    the copies per run, and, where the provider choice was measured (CUDA), CUDA's and the CPU provider's medians
    and the faster one ("" within noise). ``batch``: the shape set's (``ShapeSet.batch``), for the break-even."""

    label: str
    batch: Optional[int] = None
    first_ms: Optional[float] = None
    median_ms: Optional[float] = None
    ci_low_ms: Optional[float] = None
    ci_high_ms: Optional[float] = None
    copies_per_run: int = 0
    bytes_per_run: int = 0
    cuda_ms: Optional[float] = None
    cpu_ms: Optional[float] = None
    faster: FasterSide = FasterSide.NONE  # "CUDA", "CPU", or "" (not measured, or within noise)
    findings: int = 0
    worst_severity: str = ""  # of its findings: "error", "warning", "info", or "" without one
    report: ReportDocument


class SwitchOption(msgspec.Struct, frozen=True, kw_only=True):
    """One way of serving inputs whose shape changes at every call, measured (collect/provider_choice.py,
    ``measure_shape_switch``): the sweep's shapes in turn, every call timed, interleaved with the other options.

    ``option``: ``EXHAUSTIVE`` (a CUDA session with ORT's default cudnn_conv_algo_search), ``HEURISTIC``,
    ``padded`` (a CUDA session with ORT's default, every call at the largest shape: the inputs padded to one shape)
    or ``CPU`` (the CPU provider). ``ratio``: median(EXHAUSTIVE) / median(this option), paired by call, with its 95%
    bootstrap interval: above 1 is faster than ORT's default."""

    option: str
    median_ms: float
    samples_ms: list[float] = field(default_factory=list)
    ratio: float = 1.0
    ratio_low: float = 1.0
    ratio_high: float = 1.0


class ShapeSwitch(msgspec.Struct, frozen=True, kw_only=True):
    """The sweep's shapes served in turn, the shape changing at every call, under each option (``SwitchOption``):
    measured where the check's sessions run convolutions on CUDA (where cuDNN searches algorithms at a new shape).
    ``skipped``: why it was not measured, where it was not."""

    shapes: list[str] = field(default_factory=list)  # the shape sets' labels, in the order they were run
    padded_to: str = ""  # the largest shape set's label: what ``padded`` ran every call at
    rounds: int = 0  # how many times each shape was run, after one call of each
    options: list[SwitchOption] = field(default_factory=list)
    skipped: str = ""

    def name(self, option: str) -> str:
        """How the report names ``option``: ``padded to x=1x3x736x1312`` for ``padded``, else the option."""
        return f"padded to {self.padded_to}" if option == "padded" else option


class ShapeSweep(msgspec.Struct, frozen=True, kw_only=True):
    """The sweep document (``check --json`` with several shapes): the verdict across shapes, the break-even of the
    provider choice where one was measured, and each shape's result with its full report document."""

    format: str = SWEEP_FORMAT
    format_version: int = SWEEP_FORMAT_VERSION
    verdict: str
    break_even: str = ""
    shapes: list[ShapeResult]
    # the shapes in turn under each search option, padded and on the CPU (where measured), and what it recommends
    # (report/sweep.py: ``switch_advice``): "" where nothing was measured or nothing beats ORT's default
    switch: Optional[ShapeSwitch] = None
    switch_advice: str = ""
    switch_recommended: str = ""  # the SwitchOption.option recommended ("" for none)


class SweepRendering(NamedTuple):
    """What the renderers of a sweep read (render/registry.py, kind ``SWEEP``): the sweep document, each shape's
    report (SARIF: a run per shape) and the model's file name (the HTML page's title)."""

    sweep: ShapeSweep
    reports: list[Report]
    model_name: str

    def to_json(self) -> str:
        """The sweep document as JSON (``--json``), as every report writes its own."""
        return codec.to_json(self.sweep)


__all__ = ["SWEEP_FORMAT", "SWEEP_FORMAT_VERSION", "ShapeResult", "ShapeSet", "ShapeSweep", "ShapeSwitch",
           "SweepRendering", "SwitchOption"]
