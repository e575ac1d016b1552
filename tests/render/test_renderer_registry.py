"""The renderers' registry (render/registry.py) and the output options the command line makes of it (cli/outputs.py):
every format renders a recorded report of each kind it accepts as the renderer it wraps does; each command offers
the formats of its kind of report, and a format added to a registry is an option of the commands of its kind."""

from __future__ import annotations

import gzip
import json
import subprocess
import sys
from pathlib import Path
from typing import Any, Callable, Optional

import pytest
import typer
from typer.testing import CliRunner

from ortcopy_doctor.cli.outputs import ASKED, Asked, output_options
from ortcopy_doctor.model.errors import UsageError
from ortcopy_doctor.render.registry import (
    AUDIT,
    CHECK,
    DIFF,
    HTML,
    JSON,
    REGISTRY,
    RUN,
    SARIF,
    SWEEP,
    Format,
    RenderContext,
    Renderer,
    formats_for,
    register,
)
from render_helpers import TESTS, child_env, load_fixture


def _pipeline() -> Any:
    """The run report of the recorded detect_crop_classify pipeline, re-analysed from its observations."""
    from ortcopy_doctor.report.pipeline import analyse_pipeline, load_pipeline_observations

    with gzip.open(TESTS / "fixtures" / "pipelines" / "detect_crop_classify.json.gz", "rt", encoding="utf-8") as f:
        data = json.load(f)
    return analyse_pipeline(load_pipeline_observations(data["report"]["observations"]))


def _sweep() -> Any:
    """The recorded silero-vad sweep (H200), each shape's report re-analysed, as the command renders it."""
    from ortcopy_doctor.model import codec
    from ortcopy_doctor.model.sweep import ShapeSweep, SweepRendering
    from ortcopy_doctor.report.sweep import reanalysed

    with gzip.open(TESTS / "fixtures" / "sweeps" / "silero_vad_batches.json.gz", "rt", encoding="utf-8") as f:
        data = json.load(f)
    sweep, reports = reanalysed(codec.convert(data["sweep"], ShapeSweep))
    return SweepRendering(sweep, reports, "silero_vad.onnx")


def _audit() -> Any:
    """Two audit rows and the regression of the second against a baseline where it had no Memcpy node."""
    from ortcopy_doctor.model.audit import AuditResult, AuditRow, RowStatus
    from ortcopy_doctor.report.audit import compare

    rows = [AuditRow(id="a", model="zoo/a.onnx", status=RowStatus.OK, copies_per_run=2, memcpy_nodes=0),
            AuditRow(id="b", model="zoo/b.onnx", status=RowStatus.OK, copies_per_run=4, memcpy_nodes=2)]
    baseline = [rows[0], AuditRow(id="b", model="zoo/b.onnx", status=RowStatus.OK, copies_per_run=2, memcpy_nodes=0)]
    return AuditResult(rows, compare(baseline, rows), "an audit")


def _report(kind: str, tmp_path: Path) -> Any:
    """A recorded report of ``kind``: cpu_op_between's check; its diff with demo's; a recorded pipeline's run; a
    recorded sweep."""
    if kind == SWEEP:
        return _sweep()
    if kind == AUDIT:
        return _audit()
    if kind == CHECK:
        return load_fixture("cpu_op_between", tmp_path)
    if kind == DIFF:
        from ortcopy_doctor.report.diff import diff_reports

        return diff_reports(load_fixture("cpu_op_between", tmp_path), load_fixture("demo", tmp_path))
    return _pipeline()


def _expected(name: str, kind: str) -> Callable[[Any], str]:
    """What the renderer a format wraps writes of a report of ``kind``."""
    from ortcopy_doctor.render.audit import render_index_html, render_sarif as render_audit_sarif, render_summary_text
    from ortcopy_doctor.render.diff import render_diff_html, render_diff_text
    from ortcopy_doctor.render.html import render_html
    from ortcopy_doctor.render.pipeline import render_pipeline_html, render_pipeline_text
    from ortcopy_doctor.render.sarif import render_run_sarif, render_sarif
    from ortcopy_doctor.render.text import render_text
    from ortcopy_doctor.render.sweep import render_html as render_sweep_html, render_text as render_sweep_text
    from ortcopy_doctor.render.trace import render_run_trace, render_trace
    from ortcopy_doctor.render.sarif import render_sweep_sarif
    from ortcopy_doctor.model import codec

    return {
        ("text", CHECK): lambda r: render_text(r, 120),
        ("text", DIFF): render_diff_text,
        ("text", RUN): render_pipeline_text,
        ("json", CHECK): lambda r: r.to_json(),
        ("json", RUN): lambda r: r.to_json(),
        ("html", CHECK): render_html,
        ("html", DIFF): render_diff_html,
        ("html", RUN): render_pipeline_html,
        ("sarif", CHECK): lambda r: render_sarif(r, (), Path.cwd()),
        ("sarif", RUN): lambda r: render_run_sarif(r, (), Path.cwd()),
        ("trace", CHECK): render_trace,
        ("trace", RUN): render_run_trace,
        ("text", SWEEP): lambda r: render_sweep_text(r.sweep),
        ("json", SWEEP): lambda r: codec.to_json(r.sweep),
        ("html", SWEEP): lambda r: render_sweep_html(r.sweep, "silero_vad.onnx"),
        ("sarif", SWEEP): lambda r: render_sweep_sarif(r.reports, [row.label for row in r.sweep.shapes], (), Path.cwd()),
        ("text", AUDIT): lambda r: render_summary_text(r.rows, r.regressions),
        ("html", AUDIT): lambda r: render_index_html(r.rows, r.regressions, r.title),
        ("sarif", AUDIT): lambda r: render_audit_sarif(r.regressions, r.rows, Path.cwd()),
    }[(name, kind)]


FORMAT_KINDS = [(name, kind) for name, renderer in REGISTRY.items() for kind in renderer.kinds]


def test_the_registry_holds_the_five_formats_in_the_order_outputs_are_written():
    assert list(REGISTRY) == ["text", "json", "html", "sarif", "trace"]


def test_each_format_renders_the_kinds_of_report_it_applies_to():
    assert {name: sorted(r.kinds) for name, r in REGISTRY.items()} == {
        "text": [AUDIT, CHECK, DIFF, RUN, SWEEP], "json": [CHECK, RUN, SWEEP], "html": [AUDIT, CHECK, DIFF, RUN, SWEEP],
        "sarif": [AUDIT, CHECK, RUN, SWEEP], "trace": [CHECK, RUN]}


@pytest.mark.parametrize(("name", "kind"), FORMAT_KINDS, ids=[f"{n}-{k}" for n, k in FORMAT_KINDS])
def test_every_format_renders_a_recorded_report_as_its_renderer_does(name, kind, tmp_path):
    report = _report(kind, tmp_path)
    assert REGISTRY[name].render(report, RenderContext(kind)) == _expected(name, kind)(report)


def test_sarif_reads_the_allowed_kinds_from_the_context(tmp_path):
    from ortcopy_doctor.render.sarif import render_sarif

    report = load_fixture("cpu_op_between", tmp_path)
    rendered = SARIF.render(report, RenderContext(CHECK, allow=("OCD004",), base=tmp_path))
    assert rendered == render_sarif(report, ("OCD004",), tmp_path)


def test_a_kind_the_format_does_not_render_is_refused():
    with pytest.raises(ValueError, match=r"^the SARIF format renders no diff report \(it renders: check, run, sweep, audit\)$"):
        SARIF.render(object(), RenderContext(DIFF))


def test_a_second_format_of_the_same_name_is_refused():
    registry: dict[str, Renderer] = {"json": JSON}
    with pytest.raises(ValueError, match="^a format named 'json' is registered already$"):
        register(_csv(name="json", flag="--csv"), registry)


def test_a_second_format_with_the_same_flag_is_refused():
    registry: dict[str, Renderer] = {"json": JSON}
    with pytest.raises(ValueError, match="^another format has the flag --json$"):
        register(_csv(flag="--json"), registry)


def test_a_format_needs_a_help_for_each_kind_it_renders():
    with pytest.raises(ValueError, match="^format 'csv': a help for each kind it renders, and no other$"):
        Format("csv", title="CSV", suffix=".csv", renders={CHECK: lambda r, c: ""}, helps={})


# --- the command line's options ------------------------------------------------------------------------------------


def _options(command: Any) -> list[str]:
    """The long options of a click command, in order."""
    return [opt for param in command.params for opt in param.opts if opt.startswith("--")]


def _output_options(name: str) -> list[str]:
    """The output options of the command ``name`` of the app: those of the registry's formats, and --no-FORMAT."""
    from ortcopy_doctor.cli.app import app

    flags = {r.flag for r in REGISTRY.values()} | {f"--no-{n}" for n in REGISTRY}
    return [opt for opt in _options(typer.main.get_command(app).commands[name]) if opt in flags]  # type: ignore[attr-defined]


@pytest.mark.parametrize(("command", "options"), [
    ("check", ["--json", "--html", "--no-html", "--sarif", "--trace"]),
    ("report", ["--json", "--html", "--sarif", "--trace"]),
    ("diff", ["--html"]),
    ("demo", ["--html"]),
    ("run", ["--json", "--html", "--no-html", "--sarif", "--trace"]),
    ("audit", ["--html", "--no-html", "--sarif"]),
])
def test_each_command_offers_the_output_options_of_its_formats(command, options):
    assert _output_options(command) == options


@pytest.mark.parametrize(("command", "kind"), [("check", CHECK), ("report", CHECK), ("diff", DIFF), ("run", RUN),
                                               ("audit", AUDIT)])
def test_the_output_options_are_the_registry_s_formats_of_the_command_s_kind(command, kind):
    flags = [r.flag for r in formats_for(kind, with_flag=True)]
    assert [opt for opt in _output_options(command) if not opt.startswith("--no-")] == flags


def _csv(name: str = "csv", flag: Optional[str] = "--csv", kinds: tuple[str, ...] = (CHECK,)) -> Format:
    """A format of a test registry: the report's verdict as one CSV line."""
    return Format(name, flag=flag, title="CSV", suffix=".csv", stdout_ok=True,
                  renders={kind: (lambda report, context: f"verdict\n{report}\n") for kind in kinds},
                  helps={kind: "Write the verdict as CSV here" for kind in kinds})


def _app(registry: dict[str, Renderer], kind: str = CHECK, **options: Any) -> tuple[typer.Typer, list[Asked]]:
    """A one-command app with the output options of ``registry``, and the list its command appends its Asked to."""
    seen: list[Asked] = []
    app = typer.Typer()

    @app.command()
    @output_options(kind, registry=registry, **options)
    def make(name: str = typer.Argument("m"), asked: Asked = ASKED, quiet: bool = typer.Option(False, "--quiet")) -> None:
        """A command of the test."""
        seen.append(asked)

    @app.callback()
    def _group() -> None:
        """Keeps ``make`` a subcommand."""

    return app, seen


def test_a_format_added_to_a_registry_adds_its_option_to_the_commands_of_its_kind():
    registry = {**REGISTRY, "csv": _csv()}
    app, _ = _app(registry)
    command = typer.main.get_command(app).commands["make"]  # type: ignore[attr-defined]
    assert _options(command) == ["--json", "--html", "--sarif", "--trace", "--csv", "--quiet"]


def test_an_added_format_s_option_has_its_help():
    app, _ = _app({"csv": _csv()})
    command = typer.main.get_command(app).commands["make"]  # type: ignore[attr-defined]
    assert [param.help for param in command.params if "--csv" in param.opts] == [
        "Write the verdict as CSV here; - for stdout."]


def test_an_added_format_s_path_reaches_the_command():
    app, seen = _app({"csv": _csv()})
    result = CliRunner().invoke(app, ["make", "x", "--csv", "out.csv"])
    assert result.exit_code == 0, result.output
    assert [(r.name, path) for r, path in seen[0].targets()] == [("csv", Path("out.csv"))]


def test_a_format_of_another_kind_adds_no_option():
    app, _ = _app({"csv": _csv(kinds=(RUN,))})
    command = typer.main.get_command(app).commands["make"]  # type: ignore[attr-defined]
    assert _options(command) == ["--quiet"]


def test_a_format_without_a_flag_adds_no_option():
    app, _ = _app({"csv": _csv(flag=None)})
    command = typer.main.get_command(app).commands["make"]  # type: ignore[attr-defined]
    assert _options(command) == ["--quiet"]


def test_a_format_written_by_default_gets_its_no_option_and_its_default_in_the_help():
    app, _ = _app({"csv": _csv()}, by_default={"csv": "<name>.csv"})
    command = typer.main.get_command(app).commands["make"]  # type: ignore[attr-defined]
    assert [(param.opts, param.help) for param in command.params if param.name != "name"] == [
        (["--csv"], "Write the verdict as CSV here (default: <name>.csv); - for stdout."),
        (["--no-csv"], "Write no CSV report."),
        (["--quiet"], None)]


def test_a_format_written_by_default_goes_to_its_default_file():
    asked = Asked(CHECK, [HTML], {"html": None}, by_default={"html"})
    assert asked.targets("model.ortcopy") == [(HTML, Path("model.ortcopy.html"))]


def test_no_format_turns_the_default_file_off():
    asked = Asked(CHECK, [HTML], {"html": None}, off={"html"}, by_default={"html"})
    assert asked.targets("model.ortcopy") == [(HTML, None)]


def test_a_path_given_with_the_no_option_is_a_usage_error():
    asked = Asked(CHECK, [HTML], {"html": Path("r.html")}, off={"html"}, by_default={"html"})
    with pytest.raises(UsageError, match=r"^--html r\.html and --no-html contradict each other: give one$"):
        asked.targets("model.ortcopy")


def test_stdout_is_refused_where_it_is_not_the_command_s():
    asked = Asked(RUN, [JSON, HTML], {"json": Path("-"), "html": None}, stdout=False)
    with pytest.raises(UsageError, match=r"^--json cannot write to stdout \('-'\): give a file path$"):
        asked.targets("script.ortcopy-run")


def test_a_command_without_stdout_says_no_dash_in_its_help():
    app, _ = _app({"json": JSON}, kind=RUN, stdout=False)
    command = typer.main.get_command(app).commands["make"]  # type: ignore[attr-defined]
    assert [param.help for param in command.params if "--json" in param.opts] == [
        "Write the pipeline report (with its observations) as JSON here."]


def test_a_command_without_the_asked_parameter_is_refused():
    def make(name: str = "m") -> None:
        """A command of the test."""

    with pytest.raises(TypeError, match="^make has no 'asked' parameter for its output options$"):
        output_options(CHECK)(make)


def test_a_sarif_asked_for_judges_the_report():
    assert Asked(CHECK, [SARIF], {"sarif": Path("r.sarif")}).judges is True


def test_a_json_asked_for_does_not_judge_the_report():
    assert Asked(CHECK, [JSON], {"json": Path("r.json")}).judges is False


def test_the_registry_loads_no_renderer_until_a_format_renders():
    # its renderers are lazy_import handles (model/lazy.py): in sys.modules, and not run until a format renders
    code = ("import json, sys\n"
            "import ortcopy_doctor.render.registry\n"
            "from ortcopy_doctor.model.lazy import loaded\n"
            "print(json.dumps([m for m in ('jinja2', 'rich', 'ortcopy_doctor.render.html', 'ortcopy_doctor.render.text',"
            " 'ortcopy_doctor.render.sarif', 'ortcopy_doctor.render.trace', 'ortcopy_doctor.render.diff',"
            " 'ortcopy_doctor.render.pipeline') if loaded(m)]))\n")
    result = subprocess.run([sys.executable, "-c", code], env=child_env(), capture_output=True, text=True, timeout=120,
                            check=True)
    assert result.stdout == "[]\n"
