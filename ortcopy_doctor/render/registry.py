"""One renderer interface: every output format by name, with what the command line needs to offer it.

A renderer (``Renderer``) says what it is called (``name``), the flag that asks for it (``--html``; None for the
terminal's text, which no flag asks for), its help, whether ``-`` (stdout) may take it, the suffix of its default
file, which kinds of report it renders (``CHECK``: the ``Report`` of check, report and demo; ``DIFF``: diff's
``ReportDiff``, ``RunDiff`` or ``SweepDiff``; ``RUN``: run's ``PipelineReport``; ``SWEEP``: a check at several shapes,
``model.sweep.SweepRendering``; ``AUDIT``: an audit's rows, ``model.audit.AuditResult``) and ``render(report, context) ->
str``.

``REGISTRY`` holds the formats by name, in the order the command line adds and writes their outputs: text, JSON,
HTML, SARIF, trace. The command line builds its output options from it (cli/outputs.py), so a format registered
here is offered by every command whose kind of report it renders, and by none other.

This module imports nothing heavy: each format loads its renderer (jinja2 for HTML, rich for text) only when it
renders. Nothing here reads a report's type either: the run's report (``model.pipeline.PipelineReport``) is
rendered by ``render.pipeline`` (text, HTML) and writes its own JSON (``to_json``), as the check's ``Report`` does.
"""

from __future__ import annotations

from collections.abc import Callable, Collection, Mapping
from pathlib import Path
from typing import TYPE_CHECKING, Any, NamedTuple, Optional, Protocol

from ortcopy_doctor.model.lazy import lazy_import
from ortcopy_doctor.render.terminal import json_safe

if TYPE_CHECKING:
    from ortcopy_doctor.render import (audit as _audit, diff as _diff, html as _html, pipeline as _pipeline,
                                       sarif as _sarif, sweep as _sweep, text as _text, trace as _trace)
else:
    # Each format's renderer runs when it first renders (model/lazy.py): `--help` and `check -q` load neither rich
    # nor jinja2.
    _audit = lazy_import("ortcopy_doctor.render.audit")
    _diff = lazy_import("ortcopy_doctor.render.diff")
    _html = lazy_import("ortcopy_doctor.render.html")
    _pipeline = lazy_import("ortcopy_doctor.render.pipeline")
    _sarif = lazy_import("ortcopy_doctor.render.sarif")
    _sweep = lazy_import("ortcopy_doctor.render.sweep")
    _text = lazy_import("ortcopy_doctor.render.text")
    _trace = lazy_import("ortcopy_doctor.render.trace")

CHECK = "check"  # a check's Report: check, report, demo
DIFF = "diff"  # a ReportDiff: diff
RUN = "run"  # a PipelineReport: run
SWEEP = "sweep"  # a SweepRendering: check at several shapes, report of a sweep's JSON
AUDIT = "audit"  # an AuditResult: audit, audit merge
KINDS = (CHECK, DIFF, RUN, SWEEP, AUDIT)

# What a renderer keeps of a check that ended early with partial evidence (cli/app.py, _keep_partial_evidence).
EVIDENCE = "evidence"  # the evidence gathered so far, whatever the error
PREDICTION = "prediction"  # only where the static prediction was made


class RenderContext(NamedTuple):
    """What a render reads besides the report: the kind of report, and the options some formats take."""

    kind: str
    allow: Collection[str] = ()  # SARIF: the finding kinds the team accepts (suppressed notes)
    base: Optional[Path] = None  # SARIF: the folder model URIs are relative to (None: the current one)
    show_unchanged: bool = False  # the diff's text: unchanged transfers and findings too
    width: int = 120  # the check's text: its columns


class Renderer(Protocol):
    """One output format: its name and flag, what the command line says of it, and its render."""

    name: str  # the format's name, the key in a registry: "html"
    flag: Optional[str]  # the option that asks for it ("--html"); None: no option (the terminal's text)
    short: Optional[str]  # its short option ("-o"), if any
    title: str  # the format as a sentence names it: "HTML" (``--no-html``: "Write no HTML report.")
    stdout_ok: bool  # whether "-" (stdout) may take it
    suffix: str  # the suffix of its default file name: ".html"
    judges: bool  # whether asking for it judges the report (SARIF: code scanning acts on it), as a gate does
    partial: Optional[str]  # what it keeps of a check that ended early: EVIDENCE, PREDICTION, or None
    kinds: Collection[str]  # the kinds of report it renders (CHECK, DIFF, RUN)

    def help(self, kind: str) -> str:
        """What its option does for a report of ``kind``, without the final full stop."""

    def render(self, report: Any, context: RenderContext) -> str:
        """``report`` (of ``context.kind``) in this format."""


Render = Callable[[Any, RenderContext], str]


class Format:
    """A renderer made of one render function and one help per kind of report it renders (``Renderer``)."""

    def __init__(self, name: str, *, title: str, suffix: str, renders: Mapping[str, Render],
                 helps: Mapping[str, str], flag: Optional[str] = None, short: Optional[str] = None,
                 stdout_ok: bool = False, judges: bool = False, partial: Optional[str] = None) -> None:
        if set(helps) != set(renders):
            raise ValueError(f"format {name!r}: a help for each kind it renders, and no other")
        self.name = name
        self.flag = flag
        self.short = short
        self.title = title
        self.stdout_ok = stdout_ok
        self.suffix = suffix
        self.judges = judges
        self.partial = partial
        self.kinds: Collection[str] = tuple(renders)
        self._renders = dict(renders)
        self._helps = dict(helps)

    def help(self, kind: str) -> str:
        """What its option does for a report of ``kind``, without the final full stop."""
        return self._helps[kind]

    def render(self, report: Any, context: RenderContext) -> str:
        """``report`` (of ``context.kind``) in this format; a kind it does not render is a ValueError."""
        render = self._renders.get(context.kind)
        if render is None:
            raise ValueError(f"the {self.title} format renders no {context.kind} report "
                             f"(it renders: {', '.join(self.kinds)})")
        return render(report, context)

    def __repr__(self) -> str:
        return f"Format({self.name!r}, flag={self.flag!r}, kinds={list(self.kinds)!r})"


def register(renderer: Renderer, registry: Optional[dict[str, Renderer]] = None) -> Renderer:
    """Add ``renderer`` to ``registry`` (``REGISTRY``) under its name, which no other format may have."""
    target = REGISTRY if registry is None else registry
    if renderer.name in target:
        raise ValueError(f"a format named {renderer.name!r} is registered already")
    if renderer.flag is not None and any(other.flag == renderer.flag for other in target.values()):
        raise ValueError(f"another format has the flag {renderer.flag}")
    target[renderer.name] = renderer
    return renderer


def formats_for(kind: str, registry: Optional[Mapping[str, Renderer]] = None,
                with_flag: bool = False) -> list[Renderer]:
    """The formats of ``registry`` (``REGISTRY``) that render a report of ``kind``, in their order; ``with_flag``:
    only those an option asks for."""
    source = REGISTRY if registry is None else registry
    return [r for r in source.values() if kind in r.kinds and (r.flag is not None or not with_flag)]


def by_flag(flag: str, registry: Optional[Mapping[str, Renderer]] = None) -> Optional[Renderer]:
    """The format ``flag`` asks for, None where none does."""
    source = REGISTRY if registry is None else registry
    return next((r for r in source.values() if r.flag == flag), None)


# --- the formats ----------------------------------------------------------------------------------------------------
# Each render function reads its renderer's module where it renders: the module runs then (the handles above).


def _check_text(report: Any, context: RenderContext) -> str:
    return _text.render_text(report, context.width)


def _diff_text(report: Any, context: RenderContext) -> str:
    return _diff.render_diff_text(report, show_unchanged=context.show_unchanged)


def _run_text(report: Any, context: RenderContext) -> str:
    return _pipeline.render_pipeline_text(report)


def _sweep_text(report: Any, context: RenderContext) -> str:
    return _sweep.render_text(report.sweep)


def _audit_text(report: Any, context: RenderContext) -> str:
    return _audit.render_summary_text(report.rows, report.regressions)


def _json(report: Any, context: RenderContext) -> str:
    # the check's Report and the run's PipelineReport write their own JSON (model.codec); names from a model in it
    # (C1 controls, bidi and line separators, which JSON allows raw) are written as escapes: a terminal shows
    # `--json -` as text
    return json_safe(str(report.to_json()))


def _check_html(report: Any, context: RenderContext) -> str:
    return _html.render_html(report)


def _diff_html(report: Any, context: RenderContext) -> str:
    return _diff.render_diff_html(report)


def _run_html(report: Any, context: RenderContext) -> str:
    return _pipeline.render_pipeline_html(report)


def _sweep_html(report: Any, context: RenderContext) -> str:
    return _sweep.render_html(report.sweep, report.model_name)


def _audit_html(report: Any, context: RenderContext) -> str:
    return _audit.render_index_html(report.rows, report.regressions, report.title)


def _check_sarif(report: Any, context: RenderContext) -> str:
    return _sarif.render_sarif(report, context.allow, context.base if context.base is not None else Path.cwd())


def _run_sarif(report: Any, context: RenderContext) -> str:
    return _sarif.render_run_sarif(report, context.allow, context.base if context.base is not None else Path.cwd())


def _sweep_sarif(report: Any, context: RenderContext) -> str:
    return _sarif.render_sweep_sarif(report.reports, [row.label for row in report.sweep.shapes], context.allow,
                                     context.base if context.base is not None else Path.cwd())


def _audit_sarif(report: Any, context: RenderContext) -> str:
    return _audit.render_sarif(report.regressions or [], report.rows,
                               context.base if context.base is not None else Path.cwd())


def _check_trace(report: Any, context: RenderContext) -> str:
    return _trace.render_trace(report)


def _run_trace(report: Any, context: RenderContext) -> str:
    return _trace.render_run_trace(report)


REGISTRY: dict[str, Renderer] = {}

TEXT = register(Format(
    "text", title="text", suffix=".txt",
    renders={CHECK: _check_text, DIFF: _diff_text, RUN: _run_text, SWEEP: _sweep_text, AUDIT: _audit_text},
    helps={CHECK: "The report as plain text", DIFF: "The diff as plain text", RUN: "The pipeline report as plain text",
           SWEEP: "The table of the shapes and the verdict across them as plain text",
           AUDIT: "The audit's summary as plain text"},
))
JSON = register(Format(
    "json", flag="--json", title="JSON", suffix=".json", stdout_ok=True, partial=EVIDENCE,
    renders={CHECK: _json, RUN: _json, SWEEP: _json},
    helps={CHECK: "Write evidence and report as JSON here",
           RUN: "Write the pipeline report (with its observations) as JSON here",
           SWEEP: "Write the sweep (each shape's report with its evidence) as JSON here"},
))
HTML = register(Format(
    "html", flag="--html", short="-o", title="HTML", suffix=".html", partial=PREDICTION,
    renders={CHECK: _check_html, DIFF: _diff_html, RUN: _run_html, SWEEP: _sweep_html, AUDIT: _audit_html},
    helps={CHECK: "HTML report path", DIFF: "Write the diff as an HTML page here", RUN: "HTML report path",
           SWEEP: "HTML report path (the shapes' table, then a section a shape)",
           AUDIT: "The index page's path: the regressions, then a row a model, linking each row's report"},
))
SARIF = register(Format(
    "sarif", flag="--sarif", title="SARIF", suffix=".sarif", stdout_ok=True, judges=True,
    renders={CHECK: _check_sarif, RUN: _run_sarif, SWEEP: _sweep_sarif, AUDIT: _audit_sarif},
    helps={CHECK: "Write SARIF 2.1.0 here (one rule per finding kind) for code-scanning UIs",
           SWEEP: "Write SARIF 2.1.0 here (a run per shape) for code-scanning UIs",
           AUDIT: "Write SARIF 2.1.0 here: one result per regression",
           RUN: "Write SARIF 2.1.0 here (the run rules; results at the program's source lines) for code-scanning UIs"},
))
TRACE = register(Format(
    "trace", flag="--trace", title="trace", suffix=".trace.json", stdout_ok=True,
    renders={CHECK: _check_trace, RUN: _run_trace},
    helps={CHECK: "Write the profiled runs as Chrome/Perfetto trace JSON here, transfers marked with their bytes",
           RUN: "Write the program's run as Chrome/Perfetto trace JSON here: host code, each session's calls, "
                "uploads, downloads and the loop's iterations, on the stage table's clock"},
))

__all__ = ["AUDIT", "CHECK", "DIFF", "EVIDENCE", "HTML", "JSON", "KINDS", "PREDICTION", "REGISTRY", "RUN", "SARIF", "SWEEP",
           "TEXT", "TRACE", "Format", "RenderContext", "Renderer", "by_flag", "formats_for", "register"]
