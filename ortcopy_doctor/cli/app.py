"""Command line: parses arguments, calls the API, prints, and exits with a documented code.

Exit codes: 0 clean; 1 findings at or above --fail-on; 2 usage or model error; 3 environment error
(onnxruntime cannot create the session or run here); 4 internal error (a bug: please report it);
130 interrupted (Ctrl-C); 143 / 129 terminated by SIGTERM / SIGHUP.
"""

from __future__ import annotations

# First of all, as the ``ortcopy-doctor`` script (which imports this module, then calls main): Ctrl-C while the
# modules load prints one line and exits 130, and the command collects garbage less often (cli/gcpolicy.py).
# ``python -m ortcopy_doctor`` does the same in __main__.py; the library (importing this module) does neither.
from ortcopy_doctor.cli import interrupts as _interrupts

if _interrupts.is_console_script():
    _interrupts.install_startup()
    from ortcopy_doctor.cli import gcpolicy as _gcpolicy

    _gcpolicy.for_the_command()

import atexit
import contextlib
import copy
import io
import math
import os
import re
import shlex
import shutil
import signal
import sys
import threading
from collections.abc import Iterator
from pathlib import Path
from typing import IO, TYPE_CHECKING, Any, Callable, Optional, cast

import typer

from ortcopy_doctor.model.version import __version__
from ortcopy_doctor.model.errors import DoctorError, EnvironmentProblem, ExitCode, UsageError
from ortcopy_doctor.model.lazy import lazy_import
from ortcopy_doctor.model.vocabulary import FailOn
from ortcopy_doctor.collect.procmaps import MAPS, mapped_files
from ortcopy_doctor.cli.outputs import ASKED, Asked, output_options, write_outputs
from ortcopy_doctor.render.registry import (AUDIT, CHECK, DIFF, EVIDENCE, PREDICTION, RUN, SWEEP, TEXT, RenderContext,
                                            Renderer, by_flag, formats_for)
from ortcopy_doctor.render.terminal import safe

if TYPE_CHECKING:
    import tempfile as _tempfile

    from rich.console import Console

    from ortcopy_doctor import api as _api
    from ortcopy_doctor.cli import ci as _ci, supervisor as _supervisor
    from ortcopy_doctor.collect import (budget as _budget, demo_model as _demo_model, environment as _environment,
                                        feeds as _feeds, session as _session, shape_sets as _shape_sets)
    from ortcopy_doctor.model import codec as _codec
    from ortcopy_doctor.model import sweep as _model_sweep
    from ortcopy_doctor.model.sweep import ShapeSet
    from ortcopy_doctor.cli import audit as _audit_cli
    from ortcopy_doctor.collect import gpus as _gpu_info, manifest as _manifest
    from ortcopy_doctor.model import audit as _model_audit
    from ortcopy_doctor.render import audit as _render_audit
    from ortcopy_doctor.knowledge import model_file as _model_file, providers as _providers
    from ortcopy_doctor.model import pipeline as _model_pipeline
    from ortcopy_doctor.render import output as _output, text as _text
    from ortcopy_doctor.render.output import OutputSet
else:
    # What a command may not need runs on its first use (model/lazy.py): `--help` loads none of numpy, onnx,
    # onnxruntime, jinja2 or rich, and `check -q` no rich (tests/project/test_startup.py).
    _tempfile = lazy_import("tempfile")
    _api = lazy_import("ortcopy_doctor.api")
    _ci = lazy_import("ortcopy_doctor.cli.ci")
    _supervisor = lazy_import("ortcopy_doctor.cli.supervisor")
    _budget = lazy_import("ortcopy_doctor.collect.budget")
    _demo_model = lazy_import("ortcopy_doctor.collect.demo_model")
    _environment = lazy_import("ortcopy_doctor.collect.environment")
    _feeds = lazy_import("ortcopy_doctor.collect.feeds")
    _session = lazy_import("ortcopy_doctor.collect.session")
    _shape_sets = lazy_import("ortcopy_doctor.collect.shape_sets")
    _codec = lazy_import("ortcopy_doctor.model.codec")
    _model_sweep = lazy_import("ortcopy_doctor.model.sweep")
    _audit_cli = lazy_import("ortcopy_doctor.cli.audit")
    _gpu_info = lazy_import("ortcopy_doctor.collect.gpus")
    _manifest = lazy_import("ortcopy_doctor.collect.manifest")
    _model_audit = lazy_import("ortcopy_doctor.model.audit")
    _render_audit = lazy_import("ortcopy_doctor.render.audit")
    _model_file = lazy_import("ortcopy_doctor.knowledge.model_file")
    _providers = lazy_import("ortcopy_doctor.knowledge.providers")
    _output = lazy_import("ortcopy_doctor.render.output")
    _text = lazy_import("ortcopy_doctor.render.text")
    _model_pipeline = lazy_import("ortcopy_doctor.model.pipeline")

app = typer.Typer(
    name="ortcopy-doctor",
    help="Find every host<->device copy an ONNX Runtime session makes, why, what it costs, and how to remove it.",
    add_completion=False,
    no_args_is_help=True,
    pretty_exceptions_enable=False,
    # Plain help (click's): it wraps descriptions and never cuts an option name ("--provider-opti…") at 80
    # columns, and loads no rich layout code for --help. -h as well as --help, on every command.
    rich_markup_mode=None,
    context_settings={"help_option_names": ["-h", "--help"]},
)


MAX_BYTES_HELP = "Exit 1 when the host<->device bytes per run exceed N (e.g. 500000, 500KB, 1.5MB)."
GAIN_HELP = ("Exit 1 when the binding A/B measured a speed-up of at least this factor (e.g. 1.2x; by the lower bound "
             "of its 95% CI) that the current code leaves on the table.")
ALLOW_HELP = ("A finding kind your team accepts, by rule id or slug (OCD004, feed-copy; repeatable): never fails "
              "--fail-on, and is a suppressed note in SARIF.")


RUN_FAIL_ON_HELP = ("Exit 1 (when the program itself exited 0) when a finding not allowed is at or above this "
                    "severity: error, warning, info, never; the older round-trip (a host round trip) and "
                    "host-transfer (a transfer made by the program's code) still work.")
RUN_ALLOW_HELP = ("A finding kind your team accepts, by run rule id or slug (OCD105, host-upload; repeatable): never "
                  "fails --fail-on, and is a suppressed note in SARIF.")


_STREAM_ERRORS: dict[str, OSError] = {}  # "stdout"/"stderr": the first write it refused (see _Guarded)


class _Guarded:
    """stdout or stderr as this command's printing sees it. A write or flush the stream refuses (its reader went
    away: ``| head``; a full disk: ``> /dev/full``) is remembered in ``_STREAM_ERRORS`` and the rest of the text is
    dropped, so the command still ends with its outputs written and its exit code; ``main`` then says what failed.
    Everything else (isatty, fileno, encoding: what rich asks) is the stream's own."""

    def __init__(self, name: str) -> None:
        self._name = name
        self._stream = getattr(sys, name)

    def write(self, text: str) -> int:
        if self._name not in _STREAM_ERRORS and self._stream is not None:
            try:
                self._stream.write(text)
            except OSError as exc:
                _stream_failed(self._name, exc)
        return len(text)

    def flush(self) -> None:
        if self._name not in _STREAM_ERRORS and self._stream is not None:
            try:
                self._stream.flush()
            except OSError as exc:
                _stream_failed(self._name, exc)

    def __getattr__(self, name: str) -> Any:
        return getattr(self._stream, name)

    @classmethod
    def file(cls, name: str) -> IO[str]:
        """The guarded stream where a text file is expected (rich's ``Console(file=...)``)."""
        return cast(IO[str], cls(name))


def _stream_failed(name: str, exc: OSError) -> None:
    """Remember that stdout or stderr refused a write, and point its descriptor at the null device: what is still
    buffered for it then goes nowhere, instead of failing again when Python flushes it at exit."""
    _STREAM_ERRORS.setdefault(name, exc)
    try:
        fd = getattr(sys, name).fileno()
        null = os.open(os.devnull, os.O_WRONLY)
        os.dup2(null, fd)
        os.close(null)
    except (AttributeError, OSError, ValueError):  # no descriptor (a test's capture): nothing to redirect
        pass


def _stream_error_code(code: int) -> int:
    """The exit code once stdout and stderr are flushed: a stream that refused the output (other than a reader
    that went away, which is ``| head`` working) makes a run that had nothing else wrong exit 3, with one line."""
    for name in ("stdout", "stderr"):
        _Guarded(name).flush()
    for name, exc in list(_STREAM_ERRORS.items()):
        if isinstance(exc, BrokenPipeError):
            continue
        _print_error(f"{name} could not be written ({exc.strerror or type(exc).__name__}): free space, or send "
                     f"{name} elsewhere")
        if code in (ExitCode.CLEAN, ExitCode.FINDINGS):
            code = int(ExitCode.ENVIRONMENT)
    return code


def _stdout(stderr: bool = False) -> Console:
    # soft_wrap: a line (the verdict, a finding) stays one line when piped; tables still fit the width.
    # stderr: an output (--json -) goes to stdout, so the terminal report goes to stderr.
    # rich, here, not at import: `check -q` prints one line and loads no rich; lazy_import("rich.console") would
    # import the package rich at start-up (a parent package is imported at once: model/lazy.py)
    from rich.console import Console

    # Piped (a CI log, `| grep`, a file) with no COLUMNS: rich would assume 80 columns and fold names inside table
    # cells ("MemcpyFromHo" / "st"), so a grep for a node name misses it; a table is as wide as its content then.
    # COLUMNS=0 (set by some shells and CI runners) would make rich print nothing at all: it counts as unset.
    # On a terminal rich reads the width itself (of the stream it writes to: stderr for `--json -`).
    stream = _Guarded.file("stderr" if stderr else "stdout")
    columns = os.environ.get("COLUMNS", "").strip()
    width = None
    if not _isatty(stream):
        width = PIPED_WIDTH if columns in ("", "0") else None
    elif columns == "0":
        width = shutil.get_terminal_size().columns
    return Console(file=stream, highlight=False, soft_wrap=True, width=width)


# The width of the report when piped: wide enough that no table of names wraps a cell (a table takes the width of
# its content, not this); COLUMNS=N still sets a width.
PIPED_WIDTH = 1000


def _isatty(stream: IO[str]) -> bool:
    try:
        return bool(stream.isatty())
    except (OSError, ValueError, AttributeError):  # closed, or a stream without a terminal test
        return False


def _write(text: str, stderr: bool = False) -> None:
    """``text`` as it is, on stdout (or stderr), through ``_Guarded``."""
    _Guarded("stderr" if stderr else "stdout").write(text)


def _print_line(text: str, stderr: bool = False) -> None:
    """One line of untrusted text as itself (control characters escaped), without rich: ``check -q``'s verdict."""
    _write(safe(text) + "\n", stderr)


_ERROR_PRINTED = False


def _print_error(message: str) -> None:
    """The one ``error:`` line on stderr (control characters escaped, so it stays one line)."""
    global _ERROR_PRINTED
    _ERROR_PRINTED = True
    # soft_wrap: one line whatever the terminal width, as DoctorError promises.
    from rich.console import Console  # rich where used, as in _stdout

    Console(file=_Guarded.file("stderr"), highlight=False).print(f"[bold red]error:[/] {_esc(message)}", soft_wrap=True)


def _fail(message: str, code: int) -> None:
    _print_error(message)
    raise typer.Exit(code)


def _esc(text: str) -> str:
    """Rich markup and terminal control characters escaped: untrusted text prints as itself, on one line."""
    from rich.markup import escape  # rich where used, as in _stdout

    return escape(safe(text))


@contextlib.contextmanager
def _progress(enabled: bool, lazy: bool = False) -> Iterator[Callable[[str], None]]:
    """A status line on the terminal's stderr. It writes to a duplicate of fd 2, since fd 2 itself is
    redirected into ORT's log capture while sessions are built and run. ``lazy``: shown from the first step on
    (``run``: not while the program, which shares the terminal, runs)."""
    if not enabled:
        yield lambda _step: None
        return
    from rich.console import Console  # rich where used, as in _stdout

    with contextlib.ExitStack() as stack:
        stream = stack.enter_context(os.fdopen(os.dup(2), "w", buffering=1))
        console = Console(file=stream, highlight=False)
        status: list[Any] = []

        def say(step: str) -> None:
            if not status:
                status.append(stack.enter_context(console.status("ortcopy-doctor: starting")))
            status[0].update(f"ortcopy-doctor: {step}")

        if not lazy:
            say("starting")
        yield say


def _guard(func: Callable[[], int]) -> None:
    """Run a command body: DoctorErrors become one line and their exit code; anything else exit 4."""
    debug = os.environ.get("ORTCOPY_DOCTOR_DEBUG") == "1"
    try:
        code = func()
    except typer.Exit:
        raise
    except DoctorError as exc:
        _fail(exc.message, int(exc.exit_code))
    except KeyboardInterrupt as exc:
        _interrupted(exc)
    except MemoryError as exc:  # the machine's memory, not a bug: every with/finally has run (temporary folder gone)
        _fail(_out_of_memory(exc), int(ExitCode.ENVIRONMENT))
    except Exception as exc:  # noqa: BLE001 - the last line of defence against tracebacks
        signum = _interrupts.received()
        if signum is not None:  # it took the place of a signal's exception (interrupts.received): end as the signal
            instead = _interrupts.as_exception(signum)
            if isinstance(instead, KeyboardInterrupt):
                _interrupted(exc)
            raise instead from exc
        if debug:
            raise
        first = str(exc).splitlines()[0] if str(exc) else ""
        _fail(f"internal error: {type(exc).__name__}: {first[:300]} (set ORTCOPY_DOCTOR_DEBUG=1 for the traceback "
              "and report it)", int(ExitCode.INTERNAL))
    raise typer.Exit(code)


def _out_of_memory(exc: MemoryError) -> str:
    """The one line for a ``MemoryError``: what ran out, and what to lower."""
    what = " ".join(str(exc).split())[:200]
    return (f"out of memory{f' ({what})' if what else ''}: free memory, or lower what the command holds (check: "
            "--runs, the --dim/--shape values, --inputs; ORTCOPY_DOCTOR_MEMORY_BUDGET bounds what check plans for, "
            "docs/guarantees.md)")


def _interrupted(exc: BaseException) -> None:
    """Ctrl-C in a command body: its one line and exit 130."""
    _interrupts.quiet_teardown(exc)  # an ORT session freed now logs nothing after the error line
    _fail("interrupted", int(ExitCode.INTERRUPTED))


def _parse_kv(values: list[str], flag: str) -> dict[str, str]:
    result: dict[str, str] = {}
    for value in values:
        if "=" not in value:
            raise UsageError(f"{flag} {value!r} is not KEY=VALUE")
        key, _, val = value.partition("=")
        result[key.strip()] = val.strip()
    return result


def _outputs(inputs: list[tuple[str, Optional[Path]]], outputs: list[tuple[Any, Optional[Path]]],
             stdin: Optional[str] = None) -> OutputSet:
    """Every output path checked before any work (render/output.py): not an input, not another output. ``outputs``:
    (format, path) pairs (``Asked.targets``; a format by its flag too, ``"--json"``), a format on stdout (``-``)
    where it allows it. ``stdin``: what the command reads from stdin (``report -``), whose file or pipe no output
    may be either."""
    result = _output.OutputSet()
    if stdin is not None:
        result.add_stdin(stdin)
    for what, path in inputs:
        result.add_input(what, path)
    for fmt, path in outputs:
        renderer: Optional[Renderer] = by_flag(fmt) if isinstance(fmt, str) else fmt
        flag = fmt if isinstance(fmt, str) else fmt.flag
        if path is not None and str(path) == "-" and "stdout" in _CLOSED_STREAMS:
            raise UsageError(f"{flag} -: stdout is closed (`>&-`): give a file path, or leave stdout open")
        result.add(flag, path, stdout_ok=renderer is not None and renderer.stdout_ok)
    return result


def _load(path: Path, command: str, cache: bool) -> Any:
    """The report ``path`` holds, re-analysed; ``cache`` (nothing is judged: no gate, no SARIF) reads a file sealed
    by this code as it is (report/seal.py: a cache, the file's word); ``-`` reads it from stdin (``check --json - |
    ortcopy-doctor report -``), which must be a pipe or a file, not a terminal nor closed."""
    # here: lazy_import("ortcopy_doctor.report.core") would run report/__init__ at start-up, which imports report.core
    from ortcopy_doctor.report.core import load_report, load_report_bytes

    if str(path) != "-":
        return load_report(path, cache=cache)
    return load_report_bytes(_read_stdin(command), "stdin", cache=cache)


def _read_stdin(command: str) -> bytes:
    """What ``report -`` / ``diff -`` read: stdin, which must be a pipe or a file, not a terminal nor closed."""
    if "stdin" in _CLOSED_STREAMS or sys.stdin is None:
        raise UsageError(f"{command} -: stdin is closed: pipe a JSON into it, or give a file path")
    if sys.stdin.isatty():
        raise UsageError(f"{command} -: stdin is a terminal: pipe a JSON into it (`ortcopy-doctor check MODEL --json - "
                         f"| ortcopy-doctor {command} -`), or give a file path")
    return sys.stdin.buffer.read()


# How `run --json` starts its report (PipelineReport.to_dict: the format first): told from the first bytes, so a
# check report is read exactly as before; a run report written with its keys in another order is told by its format
# once the check report loader refused it.
_RUN_REPORT_START = re.compile(rb'[ \t\r\n]*\{[ \t\r\n]*"format"[ \t\r\n]*:[ \t\r\n]*"ortcopy-doctor-pipeline-report"')


def _load_any(path: Path, command: str, cache: bool, raw: Optional[bytes] = None) -> tuple[str, Any]:
    """The report ``path`` holds (``-``: stdin, or ``raw`` where already read) and its kind: (CHECK, a check's
    ``Report``, as ``_load`` reads it) or (RUN, a run's ``PipelineReport``: re-analysed from its observations where it
    holds them, else as written)."""
    if raw is None and str(path) == "-":
        raw = _read_stdin(command)
    elif raw is None:
        try:
            with open(path, "rb") as f:
                head = f.read(4096)
            if _RUN_REPORT_START.match(head):
                raw = path.read_bytes()
        except OSError:  # the check report loader says what is wrong with it
            pass
    if raw is not None and _RUN_REPORT_START.match(raw[:4096]):
        return RUN, _load_run(raw, "stdin" if str(path) == "-" else str(path))
    try:
        if raw is not None:
            from ortcopy_doctor.report.core import load_report_bytes  # here, as in _load

            return CHECK, load_report_bytes(raw, "stdin", cache=cache)
        return CHECK, _load(path, command, cache)
    except UsageError as refused:
        if raw is None:
            try:
                raw = path.read_bytes()
            except OSError:
                raise refused from None
        if not _model_pipeline.is_pipeline_report(raw):
            raise
        return RUN, _load_run(raw, "stdin" if str(path) == "-" else str(path))


# How `check --json` at several shapes starts its sweep (ShapeSweep: the format first), as _RUN_REPORT_START.
_SWEEP_START = re.compile(rb'[ \t\r\n]*\{[ \t\r\n]*"format"[ \t\r\n]*:[ \t\r\n]*"ortcopy-doctor-sweep"')
_KIND_WRITTEN_BY = {CHECK: "a check report (`check --json`)", RUN: "a run report (`run --json`)",
                    SWEEP: "a sweep (`check --dim batch=1,8 --json`, at several shapes)"}


def _load_diffable(path: Path, cache: bool, command: str = "diff") -> tuple[str, Any]:
    """What ``diff`` compares and ``report`` renders: a sweep (SWEEP, its ``ShapeSweep`` as written; each shape's
    report is re-analysed by the diff, or by ``report``), or a check or run report as ``_load_any`` reads it."""
    raw: Optional[bytes] = None
    if str(path) == "-":
        raw = _read_stdin(command)
    else:
        try:
            with open(path, "rb") as f:
                if _SWEEP_START.match(f.read(4096)):
                    raw = path.read_bytes()
        except OSError:  # the check report loader says what is wrong with it
            pass
    if raw is None or not _SWEEP_START.match(raw[:4096]):
        return _load_any(path, command, cache, raw)
    name = "stdin" if str(path) == "-" else str(path)
    try:
        version = _codec.decode(raw, _codec.Header).format_version
        problem = _codec.version_problem(0 if version is None else version, _model_sweep.SWEEP_FORMAT_VERSION,
                                         "`check --dim ... --json`")
        if problem:
            raise UsageError(f"{name} has sweep {problem}")
        sweep = _codec.decode(raw, _model_sweep.ShapeSweep)
    except (_codec.DecodeError, _codec.ValidationError) as exc:
        raise UsageError(f"{name} does not match the sweep format ({_codec.message(exc)}): pass a file written by "
                         "`check --dim ... --json`") from None
    return SWEEP, sweep


def _load_run(raw: bytes, name: str) -> Any:
    """The run report in ``raw``, made again from its observations where it holds them (``report.pipeline``)."""
    # here: `report` of a check report never loads the pipeline analysis
    from ortcopy_doctor.report.pipeline import reanalysed

    try:
        report = _model_pipeline.load_pipeline_report(raw, name)
    except ValueError as exc:
        raise UsageError(str(exc)) from None
    return reanalysed(report)


def _keep_partial_evidence(exc: DoctorError, outputs: OutputSet) -> None:
    """Where nothing ran to the end (ORT could not create the session, a run failed at every size tried, the
    device ran out of memory), keep what was gathered: its verdict "Incomplete: ..." with the error, and the static
    prediction ``collect`` added where it could make one, as the JSON and HTML reports asked for (the HTML by
    default). Without a prediction (a model ORT rejects) only an environment failure (exit 3) keeps its JSON, as
    before. No other output is written, and the exit code stays the error's. A report that cannot be rendered is
    left out: the error is what the user must see."""
    predicted = getattr(exc.partial_evidence, "predicted", None) is not None
    if exc.partial_evidence is None or not (predicted or exc.exit_code == ExitCode.ENVIRONMENT):
        return  # a model ORT rejects, with nothing predicted of it: bad input (exit 2) leaves no file behind
    # the formats that keep partial evidence (JSON), and those that keep it only with the prediction (HTML)
    kept = {r.flag: r for r in formats_for(CHECK, with_flag=True)
            if r.flag is not None and (r.partial == EVIDENCE or (predicted and r.partial == PREDICTION))}
    if not any(flag is not None and outputs.asked(flag) for flag in kept):
        return
    from ortcopy_doctor.report.core import analyse  # here, as in _load (report/__init__ imports report.core)

    try:
        partial = analyse(exc.partial_evidence)  # type: ignore[arg-type]
        texts = [(flag, r.render(partial, RenderContext(CHECK))) for flag, r in kept.items()
                 if flag is not None and outputs.asked(flag)]
    except Exception:  # noqa: BLE001 - a report of a partial record that fails to render is not a second error
        return
    try:
        for flag, text in texts:
            outputs.stage(flag, text)
        for out in outputs.outputs:
            if out.flag not in kept:
                out.text = None
                outputs._drop_tmp(out)
        written = outputs.commit()
    finally:
        outputs.discard()
    what = "evidence gathered so far, with the static prediction" if predicted else "evidence gathered so far"
    exc.message = f"{exc.message} ({what}: {', '.join(str(p) for p in written) if written else 'stdout'})"


@app.command(short_help="Run the model and report every host<->device copy.")
@output_options(CHECK, by_default={"html": "<model>.ortcopy.html"})
def check(
    model: Path = typer.Argument(..., help="The .onnx model file (never modified)."),
    provider: list[str] = typer.Option([], "--provider", "-p", help="Execution provider: cuda, cpu, tensorrt, ... (repeat or comma-separate; default: cuda then cpu)."),
    device_id: int = typer.Option(0, "--device-id", min=0, max=1023, help="GPU to use."),
    provider_option: list[str] = typer.Option([], "--provider-option", help="KEY=VALUE option for the first provider (repeatable)."),
    dim: list[str] = typer.Option([], "--dim", help="SYMBOL=N: size of a symbolic dim, e.g. --dim batch=8 (repeatable); SYMBOL=N,M,... checks each size in turn (a list for one symbol only)."),
    shape: list[str] = typer.Option([], "--shape", help="NAME=AxBxC: full shape of one input (repeatable); NAME=AxB,CxD checks each shape in turn (a list for one input only)."),
    shapes_file: Optional[Path] = typer.Option(None, "--shapes", help="A file of shape sets, one a line (batch=8, or x=1x3x640x640 y=1x4; # comments): checks each in turn."),
    inputs: Optional[Path] = typer.Option(None, "--inputs", help="An .npz file with real inputs, by input name."),
    value: list[str] = typer.Option([], "--value", help="NAME=V: value of a scalar (or one-element) input, e.g. --value sample_rate=16000, in the model's dtype (repeatable)."),
    strict_shapes: bool = typer.Option(False, "--strict-shapes", help="Refuse dynamic dims no --dim/--shape sizes (exit 2) instead of taking them as 1."),
    state: list[str] = typer.Option([], "--state", help="IN=OUT: output OUT of one run is input IN of the next (recurrent state); the generated code keeps it on the device (repeatable)."),
    warmup: int = typer.Option(2, "--warmup", min=0, max=10_000, help="Warm-up runs, excluded from the evidence."),
    runs: int = typer.Option(3, "--runs", min=1, max=1_000, help="Profiled runs that give the evidence."),
    timed_runs: int = typer.Option(20, "--timed-runs", min=1, max=1_000_000, help="Unprofiled runs that give the timings."),
    asked: Asked = ASKED,  # --json, --html/-o, --no-html, --sarif, --trace (cli/outputs.py)
    fail_on: FailOn = typer.Option(FailOn.ERROR, "--fail-on", help="Exit 1 when a finding is at or above this severity."),
    custom_op_library: list[Path] = typer.Option([], "--custom-op-library", help="Shared library of custom ops to register."),
    static: bool = typer.Option(False, "--static", help="Predict placement and copies from the model alone; create no session (works without a GPU)."),
    quiet: bool = typer.Option(False, "--quiet", "-q", help="Print only the verdict."),
    measure_binding: Optional[bool] = typer.Option(None, "--measure-binding/--no-measure-binding", help="Time plain run() against the binding plan, everything bound on the device and a CUDA graph (default: on where the CUDA EP is active)."),
    measure_runs: int = typer.Option(50, "--measure-runs", min=5, max=1_000_000, help="Minimum timed runs per binding variant (--measure-binding); more are added until the 95% CI of every speed-up is within ±3% or --measure-budget is spent."),
    measure_budget: float = typer.Option(5.0, "--measure-budget", min=0.0, max=3600.0, help="Seconds of adaptive sampling for the binding A/B at most (after the --measure-runs minimum)."),
    measure_providers: Optional[bool] = typer.Option(None, "--measure-providers/--no-measure-providers", help="Time CUDA against the CPU provider at these inputs, and each cudnn_conv_algo_search where CUDA runs convolutions (default: on where the CUDA EP is active)."),
    fail_on_gain: Optional[str] = typer.Option(None, "--fail-on-gain", help=GAIN_HELP),
    max_transfer_bytes: Optional[str] = typer.Option(None, "--max-transfer-bytes", help=MAX_BYTES_HELP),
    allow: list[str] = typer.Option([], "--allow", help=ALLOW_HELP),
) -> None:
    """Run the model with profiling and report every host<->device copy, its cause and its fix."""

    def body() -> int:
        _model_file.check_model_path(model)
        outputs = _outputs([("the model", model), ("the --inputs file", inputs), ("the --shapes file", shapes_file),
                            *(("the --custom-op-library", lib) for lib in custom_op_library)],
                           asked.targets(f"{model.stem}.ortcopy"))  # the page by default: <model>.ortcopy.html
        _try_outputs(outputs)  # a folder that takes no new file (/proc, a read-only mount, even as root): refused now
        ci = _ci.CiOptions.parse(fail_on.value, max_transfer_bytes, allow, fail_on_gain=fail_on_gain)
        providers = _providers.resolve(provider)
        if not math.isfinite(measure_budget):  # nan passes typer's range check
            raise UsageError(f"--measure-budget {measure_budget}: give a number of seconds, e.g. --measure-budget 5")
        if device_id and providers[0] == _providers.CPU:
            raise UsageError(f"--device-id {device_id} picks a GPU, and --provider {','.join(provider)} uses none: drop "
                             "it, or request a GPU provider (e.g. --provider cuda)")
        if provider_option and providers[0] == _providers.CPU:
            # onnxruntime 1.31.1 takes options for the CPU provider and ignores them (get_provider_options: {})
            raise UsageError("--provider-option sets an option of the first provider, and the CPU provider has none: "
                             "drop it, or name the provider it is for first (e.g. --provider cuda)")
        sets = _shape_sets.from_options(dim, shape, shapes_file)
        sweeping = shapes_file is not None or len(sets) > 1
        if sweeping:
            _sweep_outputs_allowed(asked, outputs, inputs)
        options = _session.CheckOptions(
            providers=providers, provider_options=_parse_kv(provider_option, "--provider-option"),
            device_id=device_id, dims={} if sweeping else sets[0].dims, shapes={} if sweeping else sets[0].shapes,
            inputs_file=inputs,
            values=_feeds.parse_values(value), strict_shapes=strict_shapes, state=_parse_kv(state, "--state"),
            warmup_runs=warmup, profiled_runs=runs, timed_runs=timed_runs, custom_op_libraries=list(custom_op_library),
            static=static,
            measure_binding=measure_binding, measure_runs=measure_runs, measure_budget_s=measure_budget,
            measure_providers=measure_providers,
        )
        if sweeping:
            return _check_sweep(model, sets, options, outputs, asked, ci, quiet)
        with _progress(sys.stderr.isatty() and not quiet) as progress:
            try:
                report = _api.check(model, options, progress=progress)
            except DoctorError as exc:
                _keep_partial_evidence(exc, outputs)
                raise
        if not quiet:
            lowered = _budget.runs_lowered(report.evidence.notes)
            if lowered:  # fewer profiled runs than --runs asked for: said before the report (stderr: --json - works)
                _print_line(f"note: {lowered}", stderr=True)
        for name in report.evidence.model.external_data_files:  # known once the model is read
            outputs.add_input("the model's external data", model.parent / name)
        written = write_outputs(outputs, report, asked, RenderContext(CHECK, allow=ci.gate.allow))
        if quiet:  # one line: no terminal renderer loaded (the gate prints nothing either)
            _print_line(report.verdict, stderr=outputs.uses_stdout)
            return ci.exit_code(report, None, quiet)
        out = _stdout(outputs.uses_stdout)
        _text.print_report(report, out)
        for path in written:
            out.print(f"wrote {_esc(str(path))}")
        return ci.exit_code(report, out, quiet)

    _guard(body)


def _sweep_outputs_allowed(asked: Asked, outputs: OutputSet, inputs: Optional[Path]) -> None:
    """A check at several shapes writes the sweep's JSON, HTML and SARIF (a run per shape); refused: the trace
    (one shape's timeline: check that shape alone) and --inputs (its arrays have one shape each)."""
    if inputs is not None:
        raise UsageError("--inputs gives arrays of one shape each, and --dim/--shape lists or --shapes ask for "
                         "several: drop one of them")
    if outputs.asked("--trace"):
        raise UsageError("--trace writes one shape's timeline, and --dim/--shape lists or --shapes check several: "
                         "drop it, or check that shape alone")


def _check_sweep(model: Path, sets: list[ShapeSet], options: _session.CheckOptions, outputs: OutputSet, asked: Asked,
                 ci: _ci.CiOptions, quiet: bool) -> int:
    """``check`` at several shapes: each checked in full, in turn; the sweep's JSON ("ortcopy-doctor-sweep"), HTML
    page and SARIF written, the per-shape table printed, then each shape's report; exit 1 where any shape fails the
    gate, or what serving the shapes in turn recommends fails --fail-on-gain."""
    with _progress(sys.stderr.isatty() and not quiet) as progress:
        sweep, reports = _api.check_shapes(model, sets, options, progress=progress)
    for row, report in zip(sweep.shapes, reports):
        for name in report.evidence.model.external_data_files:
            outputs.add_input("the model's external data", model.parent / name)
        lowered = _budget.runs_lowered(report.evidence.notes)
        if lowered and not quiet:  # as a single check says it: before the reports, on stderr
            _print_line(f"note: {row.label}: {lowered}", stderr=True)
    return _sweep_outputs(sweep, reports, model.name, outputs, asked, ci, quiet)


def _sweep_outputs(sweep: Any, reports: list[Any], model_name: str, outputs: OutputSet, asked: Asked,
                   ci: _ci.CiOptions, quiet: bool) -> int:
    """A sweep's files written by the registry's SWEEP renderers (JSON, HTML, SARIF: all or none), its table and each
    shape's report printed, and the gate's exit code over every shape and the shapes in turn (``check`` at several
    shapes, ``report SWEEP.json``)."""
    rendering = _model_sweep.SweepRendering(sweep, reports, model_name)
    context = RenderContext(SWEEP, allow=ci.gate.allow)
    written = write_outputs(outputs, rendering, asked, context)
    codes: list[int] = []
    if quiet:
        _print_line(sweep.verdict, stderr=outputs.uses_stdout)
        return max(ci.sweep_exit_code(sweep), *(ci.exit_code(report, None, quiet) for report in reports))
    out = _stdout(outputs.uses_stdout)
    for line in TEXT.render(rendering, context).splitlines():  # one print a line: safe() escapes a newline
        out.print(_esc(safe(line)), highlight=False, soft_wrap=True)
    for row, report in zip(sweep.shapes, reports):
        out.print(f"\n[bold]── {_esc(safe(row.label))} ──[/]")
        _text.print_report(report, out)
        codes.append(ci.exit_code(report, out, quiet))
    codes.append(ci.sweep_exit_code(sweep, out, quiet))
    for path in written:
        out.print(f"wrote {_esc(str(path))}")
    return max(codes)


@app.command(short_help="Re-analyse and re-render recorded JSON.")
@output_options(CHECK)
def report(
    evidence_json: Path = typer.Argument(..., help="A JSON file written by `check --json` (or `run --json`); - for stdin."),
    asked: Asked = ASKED,  # --json, --html/-o, --sarif, --trace (cli/outputs.py)
    fail_on: FailOn = typer.Option(FailOn.NEVER, "--fail-on", help="Exit 1 when a finding is at or above this severity."),
    max_transfer_bytes: Optional[str] = typer.Option(None, "--max-transfer-bytes", help=MAX_BYTES_HELP),
    allow: list[str] = typer.Option([], "--allow", help=ALLOW_HELP),
    fail_on_gain: Optional[str] = typer.Option(None, "--fail-on-gain", help=GAIN_HELP),
) -> None:
    """Re-analyse and re-render recorded evidence; needs no ORT session and no GPU."""

    def body() -> int:
        from_stdin = str(evidence_json) == "-"
        outputs = _outputs([] if from_stdin else [("the evidence JSON", evidence_json)], asked.targets(),
                           stdin="the evidence JSON, read from stdin" if from_stdin else None)
        ci = _ci.CiOptions.parse(fail_on.value, max_transfer_bytes, [], fail_on_gain=fail_on_gain)
        # a gate, or a format that judges (SARIF), judges this code's analysis
        kind, loaded = _load_diffable(evidence_json, cache=not (ci.judges or asked.judges), command="report")
        if kind == SWEEP:
            return _report_sweep(loaded, evidence_json, outputs, asked, fail_on.value, max_transfer_bytes, allow,
                                 fail_on_gain)
        if kind == RUN:
            return _report_run(loaded, outputs, asked, fail_on.value, max_transfer_bytes, allow, fail_on_gain)
        ci = _ci.CiOptions.parse(fail_on.value, max_transfer_bytes, allow, fail_on_gain=fail_on_gain)
        written = write_outputs(outputs, loaded, asked, RenderContext(CHECK, allow=ci.gate.allow))
        out = _stdout(outputs.uses_stdout)
        _text.print_report(loaded, out)
        for path in written:
            out.print(f"wrote {_esc(str(path))}")
        return ci.exit_code(loaded, out)

    _guard(body)


def _report_sweep(document: Any, path: Path, outputs: OutputSet, asked: Asked, fail_on: str,
                  max_transfer_bytes: Optional[str], allow: list[str], fail_on_gain: Optional[str]) -> int:
    """``report SWEEP.json``: a sweep re-analysed by this code (each shape's report from its evidence, the table,
    the verdict and the shapes-in-turn advice again), rendered and judged as ``check`` at several shapes does."""
    if outputs.asked("--trace"):
        raise UsageError("--trace writes one shape's timeline, and the file is a sweep (several shapes): drop it")
    ci = _ci.CiOptions.parse(fail_on, max_transfer_bytes, allow, fail_on_gain=fail_on_gain)
    from ortcopy_doctor.report.sweep import reanalysed  # here, as report.pipeline for a run report

    sweep, reports = reanalysed(document)
    name = Path(document.shapes[0].report.evidence.model.path).name if document.shapes else path.name
    return _sweep_outputs(sweep, reports, name, outputs, asked, ci, quiet=False)


def _report_run(report: Any, outputs: OutputSet, asked: Asked, fail_on: str, max_transfer_bytes: Optional[str],
                allow: list[str], fail_on_gain: Optional[str]) -> int:
    """``report RUN.json``: a run report rendered as asked (text on stdout, JSON, HTML, SARIF) and judged by the
    gate flags that apply to it (``--fail-on``, ``--allow`` with run rules, ``--max-transfer-bytes`` per
    iteration); ``--fail-on-gain`` and a format that renders no run report (``--trace``) are usage errors."""
    if fail_on_gain is not None:
        raise UsageError("--fail-on-gain judges the binding measurement of a check report, and a run report has none: "
                         "drop it")
    for renderer, target in asked.targets():
        if target is not None and RUN not in renderer.kinds:
            raise UsageError(f"{renderer.flag} renders no run report (the file is one written by `run --json`): "
                             "drop it")
    ci = _ci.CiOptions.parse(fail_on, max_transfer_bytes, allow, report=RUN)
    written = write_outputs(outputs, report, asked, RenderContext(RUN, allow=ci.gate.allow))
    _write(TEXT.render(report, RenderContext(RUN)) + "\n", stderr=outputs.uses_stdout)
    for shown in written:
        _write(f"wrote {safe(shown)}\n", stderr=outputs.uses_stdout)
    return ci.exit_code(report, _stdout(outputs.uses_stdout))


@app.command(short_help="Compare two reports: transfers, findings, latency.")
@output_options(DIFF)
def diff(
    a_json: Path = typer.Argument(..., help="The earlier report: a JSON file written by `check --json` (or two by `run --json`, or two sweeps by `check --dim batch=1,8 --json`); - for stdin."),
    b_json: Path = typer.Argument(..., help="The later report to compare with it; - for stdin."),
    asked: Asked = ASKED,  # --html/-o (cli/outputs.py)
    fail_on_regression: bool = typer.Option(False, "--fail-on-regression", help="Exit 1 when b has transfers or findings that a has not."),
    show_unchanged: bool = typer.Option(False, "--all", help="List unchanged transfers and findings too."),
    fail_on_model_change: bool = typer.Option(False, "--fail-on-model-change", help="Exit 1 when a and b are reports of different model files (sha256)."),
) -> None:
    """Transfers and findings added, removed or changed between two reports, and the latency change."""

    def body() -> int:
        from ortcopy_doctor.report.diff import diff_reports  # here, as in _load (report/__init__ imports report.core)

        if str(a_json) == "-" and str(b_json) == "-":
            raise UsageError("diff - -: only one of the two reports can come from stdin: give the other one's path")
        reports = [("report a", a_json), ("report b", b_json)]
        outputs = _outputs([(what, path) for what, path in reports if str(path) != "-"], asked.targets(),
                           stdin=next((f"{what}, read from stdin" for what, path in reports if str(path) == "-"), None))
        cache = not (fail_on_regression or fail_on_model_change)  # a gate judges this code's analysis
        (a_kind, a), (b_kind, b) = _load_diffable(a_json, cache), _load_diffable(b_json, cache)
        names = ["stdin" if str(p) == "-" else str(p) for p in (a_json, b_json)]
        if a_kind != b_kind and SWEEP in (a_kind, b_kind):
            raise UsageError(f"diff compares two reports of one kind: {names[0]} is {_KIND_WRITTEN_BY[a_kind]} and "
                             f"{names[1]} {_KIND_WRITTEN_BY[b_kind]}")
        if a_kind != b_kind:
            raise UsageError(f"diff compares two reports of one kind: {names[0]} is a {a_kind} report and {names[1]} "
                             f"a {b_kind} report (`{a_kind} --json` and `{b_kind} --json` write them)")
        if a_kind == RUN:
            from ortcopy_doctor.report.diff import diff_run_reports  # here, as diff_reports

            result: Any = diff_run_reports(a, b, *names)
        elif a_kind == SWEEP:
            from ortcopy_doctor.report.diff import diff_sweeps  # here, as diff_reports

            result = diff_sweeps(a, b, *names)
        else:
            result = diff_reports(a, b, *names)
        written = write_outputs(outputs, result, asked, RenderContext(DIFF))
        _write(TEXT.render(result, RenderContext(DIFF, show_unchanged=show_unchanged)))
        for path in written:
            _write(f"wrote {safe(path)}\n")
        if fail_on_model_change and result.model_changed:
            return int(ExitCode.FINDINGS)
        return int(ExitCode.FINDINGS) if fail_on_regression and result.regressions else int(ExitCode.CLEAN)

    _guard(body)


@app.command(short_help="ORT build, providers, GPUs, CUDA/cuDNN libraries.")
def env() -> None:
    """ORT version and build, providers available vs loadable, GPUs, CUDA/cuDNN libraries."""

    def body() -> int:
        from rich.table import Table  # rich where used, as in _stdout

        result = _environment.environment_report()
        e = result.environment
        out = _stdout()
        out.print(f"onnxruntime {_esc(e.ort_version)} from {_esc(e.ort_package)}")
        for warning in result.warnings:
            out.print(f"[yellow]warning:[/] {_esc(warning)}")
        if e.ort_build:
            out.print(_esc(e.ort_build))
        out.print(f"onnx {e.onnx_version}, numpy {e.numpy_version}, python {e.python}, {_esc(e.platform)}")
        out.print(f"GPUs: {_esc(', '.join(e.gpus)) or 'none seen (no nvidia-smi or no GPU)'}")
        table = Table(title="Providers in this build", title_justify="left")
        table.add_column("provider", overflow="fold")
        table.add_column("loads here", overflow="fold")
        table.add_column("why not", overflow="fold")
        for p in result.providers:
            table.add_row(p.name, "yes" if p.loadable else "no", p.reason)
        out.print(table)
        table = Table(title="CUDA / cuDNN libraries", title_justify="left")
        table.add_column("library", overflow="fold")
        table.add_column("found", overflow="fold")
        table.add_column("problem", overflow="fold")
        for lib in result.libraries:
            table.add_row(lib.name, lib.found or "no", lib.error or "")
        out.print(table)
        return int(ExitCode.CLEAN)

    _guard(body)


@app.command(short_help="Check the bundled example, write reports/demo.html.")
@output_options(CHECK, only=("html",), defaults={"html": Path("reports/demo.html")})
def demo(
    asked: Asked = ASKED,  # --html/-o, reports/demo.html by default (cli/outputs.py)
    provider: list[str] = typer.Option([], "--provider", "-p", help="Providers (default: cuda then cpu)."),
    fail_on: FailOn = typer.Option(FailOn.ERROR, "--fail-on", help="Exit 1 when a finding is at or above this severity (as check)."),
) -> None:
    """Build the bundled example model, check it, and write reports/demo.html; exits as `check` would."""

    def body() -> int:
        output = asked.path("html")
        assert output is not None  # it has a default
        # Every option is checked before anything is created: a bad one leaves no folder and no model behind.
        options = _session.CheckOptions(providers=_providers.resolve(provider), dims=dict(_demo_model.DEMO_DIMS))
        ci = _ci.CiOptions.parse(fail_on.value)
        made_folders: list[Path] = []  # the folders this run created, deepest first
        made_model: Optional[Path] = None  # demo.onnx where this run wrote it (it was not there before)
        scratch: Optional[Path] = None  # the temporary folder of the model when the report goes to a device
        page: Optional[tuple[str, Optional[tuple[int, int]]]] = None  # the page's path and the file there before
        try:
            made_folders = _demo_missing_folders(output.parent)
            if made_folders:
                try:
                    output.parent.mkdir(parents=True, exist_ok=True)
                except OSError as exc:
                    raise UsageError(f"--html {output}: cannot create folder {output.parent} ({exc.strerror}): "
                                     "choose another path") from None
            outputs = _outputs([], asked.targets())
            if outputs.outputs[0].kind == "file":
                model_path = output.parent / "demo.onnx"
                page = (outputs.outputs[0].target, _demo_file_id(outputs.outputs[0].target))
            else:
                # A device, FIFO or stdout (`-o /dev/null`: no page) is written in place, and nothing is written
                # beside it: the model goes to a temporary folder, removed at the end.
                try:
                    scratch = Path(_tempfile.mkdtemp(prefix="ortcopy-doctor-demo-"))
                except OSError as exc:
                    raise EnvironmentProblem(f"the temporary folder for the demo model could not be created "
                                             f"({exc.strerror or type(exc).__name__}): set TMPDIR to a folder with "
                                             "room, or give --html DIR/demo.html") from None
                model_path = scratch / "demo.onnx"
            outputs.add_input("the demo model", model_path)
            _try_outputs(outputs)  # a folder that takes no new file (/proc, a read-only mount): refused now
            if not os.path.lexists(model_path):
                made_model = model_path
            _demo_model.write_demo_model_once(model_path)  # never replaces a different demo.onnx
            with _progress(sys.stderr.isatty()) as progress:
                result = _api.check(model_path, options, progress=progress)
            write_outputs(outputs, result, asked, RenderContext(CHECK))
        except BaseException:  # an error or a signal (KeyboardInterrupt, Terminated)
            # Before the page is written, what this run created goes; after (a signal held back while the page was
            # renamed into place), the page and the model it names stay, as every output written stays.
            if page is None or _demo_file_id(page[0]) in (None, page[1]):
                _demo_remove(made_model, made_folders)
            raise
        finally:
            if scratch is not None:
                shutil.rmtree(scratch, ignore_errors=True)
        out = _stdout(outputs.uses_stdout)  # `-o /dev/stdout` into a pipe: the page alone on stdout
        _text.print_report(result, out)
        if scratch is None:
            out.print(f"\nDemo report: [bold]{_esc(str(output.resolve()))}[/]  (model: {_esc(str(model_path))})")
        else:
            out.print(f"\nDemo report: [bold]{_esc(str(output))}[/]  (model: built in a temporary folder and removed; "
                      "--html DIR/demo.html keeps it as DIR/demo.onnx)")
        return ci.exit_code(result, out)

    _guard(body)


def _demo_missing_folders(folder: Path) -> list[Path]:
    """``demo``: ``folder`` and those of its parents that do not exist (deepest first), which ``mkdir`` creates;
    empty where ``folder`` exists (a symlink, even a dangling one, counts: it is refused, never followed)."""
    missing: list[Path] = []
    while not os.path.lexists(folder) and folder != folder.parent:
        missing.append(folder)
        folder = folder.parent
    return missing


def _demo_file_id(path: str) -> Optional[tuple[int, int]]:
    """``demo``: (device, inode) of the file at ``path``, None where there is none; the page renamed into place is a
    new file."""
    try:
        st = os.stat(path)
    except OSError:
        return None
    return st.st_dev, st.st_ino


def _demo_remove(model: Optional[Path], folders: list[Path]) -> None:
    """``demo`` on an error or a signal: remove the model it wrote and the folders it created (deepest first, each
    only while empty), and nothing that was there before."""
    if model is not None:
        try:
            os.unlink(model)
        except OSError:  # not written yet (or already gone)
            pass
    for folder in folders:
        try:
            os.rmdir(folder)
        except OSError:  # not created, or not empty: another's file is never removed
            pass


@app.command(short_help="Check a model zoo, a row a model; gate on a baseline.")
@output_options(AUDIT, by_default={"html": "OUT/index.html"})
def audit(
    targets: list[str] = typer.Argument(..., help="A manifest (.toml, .json, .yaml) of models and their check flags, or model files, folders and globs; `audit merge SHARD.jsonl...` joins shards."),
    out: Path = typer.Option(Path("audit-out"), "--out", help="The audit's folder: audit.jsonl (a row a line), reports/, index.html."),
    gpus: Optional[str] = typer.Option(None, "--gpus", help="GPUs to use, e.g. 0,1 (default: every visible one); a measuring row holds one alone."),
    jobs: Optional[int] = typer.Option(None, "--jobs", min=1, max=256, help="Rows at a time (default: one per GPU, at least 1); static rows share GPUs."),
    resume: bool = typer.Option(False, "--resume", help="Continue an audit in --out: skip the rows its audit.jsonl holds."),
    shard: Optional[str] = typer.Option(None, "--shard", help="I/N: run the I-th of N deterministic slices of the rows (merge them with `audit merge`)."),
    baseline: Optional[Path] = typer.Option(None, "--baseline", help="An earlier audit's audit.jsonl (or its folder, or a folder of check reports): exit 1 on any regression."),
    allow_regression: list[str] = typer.Option([], "--allow-regression", help="A regression kind that does not fail the gate: new_memcpy, new_fallback, more_copies, more_bytes, slower, newly_failing, missing (repeatable)."),
    asked: Asked = ASKED,  # --html (the index page; --no-html), --sarif (cli/outputs.py)
    check_args: str = typer.Option("", "--check-args", help="Flags for every row's check, as typed (e.g. \"--provider cuda --runs 5\"), after a manifest's own."),
    timeout: float = typer.Option(900.0, "--timeout", min=1.0, help="Seconds a row of model files may run (a manifest sets its own)."),
    strict: bool = typer.Option(False, "--strict", help="Exit 1 also where a row failed, crashed or timed out (without --baseline only a regression does)."),
    quiet: bool = typer.Option(False, "--quiet", "-q", help="Print only the summary's first line."),
) -> None:
    """Check every model of a zoo, each model and configuration in a child process of its own (a crash, a hang or an
    out-of-memory is that row's result), one measuring row per GPU at a time; write a row a line to OUT/audit.jsonl
    as it finishes, the reports and an index page; compare with a baseline audit (exit 1 on a regression)."""

    def body() -> int:
        warned: list[str] = []
        warn = warned.append
        if targets[0] == "merge":
            return _audit_merge(targets[1:], out, baseline, allow_regression, asked, strict, quiet)

        shared = shlex.split(check_args)
        reads = [Path(t) for t in targets if Path(t).is_file()] + ([baseline] if baseline is not None else [])
        outputs = _audit_cli.planned_outputs(out, asked, reads)
        slice_of = _audit_cli.parse_shard(shard)
        entries = [e for e in _manifest.read_targets(targets, shared, timeout) if _audit_cli.in_shard(e.id, slice_of)]
        chosen = _audit_cli.parse_gpus(gpus, _gpu_info.visible_gpus())
        workers = jobs or max(1, len(chosen))
        try:
            rows, _ = _audit_cli.audit_rows(entries, out, chosen, workers, resume, quiet, warn)
        except KeyboardInterrupt:
            jsonl = out / _model_audit.JSONL
            kept = _audit_cli.rows_done(jsonl)
            _fail(f"interrupted: {kept} of {len(entries)} rows done (in {jsonl}); run the same command with "
                  "--resume to continue", int(ExitCode.INTERRUPTED))
        return _audit_end(rows, outputs, asked, baseline, allow_regression, strict, quiet, warned,
                          f"ortcopy-doctor audit: {len(rows)} rows" + (f" (shard {shard})" if shard else ""))

    _guard(body)


def _audit_merge(files: list[str], out: Path, baseline: Optional[Path], allow: list[str], asked: Asked, strict: bool,
                 quiet: bool) -> int:
    """``audit merge SHARD.jsonl...``: the shards' rows as one audit in --out (audit.jsonl, index, gate)."""
    if not files:
        raise UsageError("audit merge: give the shards' audit.jsonl files (or their folders)")
    shards = [Path(f) for f in files]
    outputs = _audit_cli.planned_outputs(out, asked, [*shards, *([baseline] if baseline else [])], merged=True)
    warned: list[str] = []
    try:
        rows = _audit_cli.merge_files(shards, warned.append)
    except ValueError as exc:
        raise UsageError(f"audit merge: {exc}") from None
    for shard in shards:  # each shard's reports beside the merged index: the rows' links (reports/ID.html) resolve
        reports = (shard if shard.is_dir() else shard.parent) / _audit_cli.REPORTS
        if reports.is_dir() and reports.resolve() != (out / _audit_cli.REPORTS).resolve():
            shutil.copytree(reports, out / _audit_cli.REPORTS, dirs_exist_ok=True)
    return _audit_end(rows, outputs, asked, baseline, allow, strict, quiet, warned,
                      f"ortcopy-doctor audit: {len(rows)} rows (merged from {len(files)} shards)")


def _audit_end(rows: list[Any], outputs: OutputSet, asked: Asked, baseline: Optional[Path], allow: list[str],
               strict: bool, quiet: bool, warned: list[str], title: str) -> int:
    """The gate, the files written (all or none), the summary printed (on stderr where SARIF takes stdout); the
    exit code."""
    regressions = _audit_cli.gate(rows, baseline, allow, warned.append)
    result = _model_audit.AuditResult(rows, regressions, title)
    written = _audit_cli.write_results(outputs, result, asked)
    for line in warned:
        _print_line(f"warning: {line}", stderr=True)
    if quiet:
        _print_line(_render_audit.headline(rows, regressions), stderr=outputs.uses_stdout)
    else:
        _write(TEXT.render(result, RenderContext(AUDIT)) + "\n", stderr=outputs.uses_stdout)
        for path in written:
            _write(f"wrote {safe(str(path))}\n", stderr=outputs.uses_stdout)
    failed = strict and any(r.status != _model_audit.RowStatus.OK for r in rows)
    return 1 if failed or _audit_cli.gate_failed(regressions) else 0


@app.command(short_help="Run a Python program, report its host round trips.",
             context_settings={"allow_extra_args": True, "ignore_unknown_options": True})
@output_options(RUN, by_default={"html": "<script>.ortcopy-run.html"}, stdout=False)  # stdout is the program's
def run(
    command: list[str] = typer.Argument(..., help="The program: `-- python script.py args` (or `-- script.py args`, `-- python -m pkg`)."),
    asked: Asked = ASKED,  # --json, --html/-o, --no-html (cli/outputs.py)
    quiet: bool = typer.Option(False, "--quiet", "-q", help="Print only the verdict."),
    fail_on: str = typer.Option("never", "--fail-on", help=RUN_FAIL_ON_HELP),
    allow: list[str] = typer.Option([], "--allow", help=RUN_ALLOW_HELP),
    no_census: bool = typer.Option(False, "--no-census", help="Take no CUPTI census of the calls."),
    no_replay: bool = typer.Option(False, "--no-replay", help="Do not replay each session's calls on the other provider (CUDA vs CPU) after the program."),
    subprocess: bool = typer.Option(False, "--subprocess", help="Kept for earlier command lines: the program always runs in an interpreter of its own, as `python` runs it."),
) -> None:
    """Run an unmodified Python program and report the host round trips between its sessions (pipeline stages)."""
    _guard(lambda: _run_body(command, asked=asked, quiet=quiet, fail_on=fail_on, census=not no_census,
                             replay=not no_replay, allow=allow))


def _run_body(command: list[str], *, asked: Asked, quiet: bool, fail_on: str, census: bool, replay: bool = True,
              allow: Optional[list[str]] = None) -> int:
    """``run``: its outputs checked as ``check`` checks them before the program starts (not an input: the script, a
    file the program's command line names, an existing model or Python file; not another output), the program run
    with every session watched, the outputs written as one set (never over a model the program loaded), and the
    program's exit code (or 1 where the gate, ``--fail-on`` and ``--allow``, fails and the program exited 0)."""
    # here, not a lazy_import: watch/'s import timing is part of run's guarantees (onnxruntime loads in the program)
    from ortcopy_doctor.watch.program import ProgramKilled, command_files, parse_command, watch_program

    ci = _ci.CiOptions.parse(fail_on, allow=allow or [], report=RUN)  # a bad --fail-on or --allow: before the program
    target = parse_command(command)
    stem = Path(target.script).stem if target.script else (target.module or "program").replace(".", "_")
    targets = asked.targets(f"{stem}.ortcopy-run")  # refuses "-": stdout is the program's
    script = Path(target.script) if target.script else None
    inputs: list[tuple[str, Optional[Path]]] = [("the program's script", script)]
    inputs += [("the program's argument", Path(name)) for name in command_files(command)]
    kinds = {".onnx": "an ONNX model", ".py": "a Python file"}
    for _, path in targets:  # never a report over a model or a program, named or not
        if path is not None and path.suffix.lower() in kinds and path.is_file():
            inputs.append((kinds[path.suffix.lower()], path))
    # stdin is the program's: a file behind it is one the program may read
    outputs = _outputs(inputs, targets, stdin="the program's stdin")
    _try_outputs(outputs)
    try:
        with _progress(sys.stderr.isatty() and not quiet, lazy=True) as progress:  # the replay after the program
            report, code, models = watch_program(target, command, census=census, replay=replay, progress=progress)
    except ProgramKilled as exc:  # the program's signal: the line and exit code of this command's own
        if exc.signum in (signal.SIGINT, signal.SIGTERM, signal.SIGHUP):
            # delivered to this process too, so that it ends as it would by the signal itself: its handler raises
            # at once, and one that follows is ignored (cli/interrupts.py); raised here where it is ignored
            os.kill(os.getpid(), exc.signum)
            raise _interrupts.as_exception(exc.signum) from None
        _print_error(exc.message)
        raise typer.Exit(128 + exc.signum) from None
    for model in models:
        outputs.add_input("the program's model", model)
        for data in _model_file.external_data_files(Path(model)):  # its weights too: written over, the model computes garbage
            outputs.add_input("the external data of the program's model", data)
    written = write_outputs(outputs, report, asked, RenderContext(RUN, allow=ci.gate.allow))
    # The report goes to stderr: the program's stdout stays the program's.
    _write("\n" + (report.verdict if quiet else TEXT.render(report, RenderContext(RUN))) + "\n", stderr=True)
    if not quiet:
        for shown in written:
            _write(f"wrote {safe(shown)}\n", stderr=True)
    if report.ended_by == "signal" and code in (128 + signal.SIGTERM, 128 + signal.SIGHUP):
        # as the command ends by them itself (cli/interrupts.py)
        _print_error(_interrupts.Terminated(code - 128).message)
    if code != 0:
        return code
    return ci.exit_code(report, None if quiet else _stdout(stderr=True), quiet)  # its reasons on stderr too


def _try_outputs(outputs: OutputSet) -> None:
    """Stage every output empty and discard it at once: the temporary file that writing a regular file starts with
    is made beside it now, so a folder that takes no new file (``/proc``, a read-only mount) is refused before the
    program runs, not after. A device or FIFO is not written here (``commit`` writes it first)."""
    try:
        for out in outputs.outputs:
            outputs.stage(out.flag, "")
    finally:
        outputs.discard()


@app.callback(invoke_without_command=True)
def _main(version: bool = typer.Option(False, "--version", help="Print the version and exit.")) -> None:
    if version:
        _print_line(f"ortcopy-doctor {__version__}")
        raise typer.Exit(0)


def app_for(argv: list[str]) -> typer.Typer:
    """The app to run ``argv`` with: where its first word names a command, the app with that command alone.

    Typer builds a click command for every registered command on each start: 8-10 ms for the six on the 2-CPU
    machine of docs/benchmarks.md, 4 ms for ``check`` alone. The group stays a group (its ``--version`` callback
    keeps typer from making a lone command the whole program), so usage lines, help and errors read the same
    (tests/cli/test_cli.py). Anything else (options first, no words, an unknown command, a shell completion) gets
    the whole app, which lists and suggests every command."""
    first = argv[0] if argv else ""
    chosen = [info for info in app.registered_commands
              if (info.name or (info.callback.__name__ if info.callback else "").replace("_", "-")) == first]
    if len(chosen) != 1 or app.registered_callback is None:
        return app
    one = copy.copy(app)
    one.registered_commands = chosen
    return one


class _Never(Exception):
    """Matches nothing: stands in for an exception class this click version lacks."""


def _click_exceptions() -> Any:
    try:  # here: which module it is depends on typer's version (not a lazy_import: it must fail now to fall back)
        from typer import _click as click_module  # typer >= 0.25 vendors click
    except ImportError:  # pragma: no cover - older typer
        import click as click_module  # type: ignore[no-redef]  # the same module under its older name
    return click_module.exceptions


def _usage_line(exc: Any) -> str:
    """click's usage error as one line, with the fix: the --help of the command."""
    message = " ".join(str(exc.format_message()).split()).rstrip(".")
    ctx = getattr(exc, "ctx", None)
    command = ctx.command_path if ctx is not None and ctx.command_path else "ortcopy-doctor"
    return f"{message}: see `{command} --help`"


_CLOSED_STREAMS: frozenset[str] = frozenset()


def _fill_closed_streams() -> frozenset[str]:
    """Open the null device on each standard stream the caller closed (`>&-`, `2>&-`), and return their names.

    A closed descriptor would be the next one the command opens: a report file would become fd 1 or 2, where ORT
    and other C code write their messages (ORT's log capture also copies fd 2, which fails on a closed one). Python
    set ``sys.stdout``/``sys.stderr`` to None for them; they become writers to the null device, so what would be
    printed there is dropped, as ``print()`` drops it. An output asked for on a closed stdout (``--json -``) is
    refused (``_outputs``)."""
    closed = set()
    for fd, name in ((0, "stdin"), (1, "stdout"), (2, "stderr")):
        try:
            os.fstat(fd)
        except OSError:
            null = os.open(os.devnull, os.O_RDONLY if fd == 0 else os.O_WRONLY)
            if null != fd:  # the lowest free descriptor: fd itself, unless a lower one was closed too
                os.dup2(null, fd)
                os.close(null)
            closed.add(name)
        if fd and getattr(sys, name) is None:
            setattr(sys, name, io.TextIOWrapper(io.FileIO(fd, "w", closefd=False), encoding="utf-8",
                                                errors="backslashreplace", line_buffering=True))
        stream = getattr(sys, name) if fd else None
        if isinstance(stream, io.TextIOWrapper) and stream.errors == "strict":
            # A character the stream's encoding lacks (an ASCII or Latin-1 terminal: "↔"; a file name that is not
            # UTF-8) is printed as its escape (\u2194) instead of failing the command; stderr already does this.
            stream.reconfigure(errors="backslashreplace")
    return frozenset(closed)


def main(args: Optional[list[str]] = None) -> None:
    """The ``ortcopy-doctor`` command: every outcome is an exit code with at most one ``error:`` line."""
    global _ERROR_PRINTED, _CLOSED_STREAMS
    if args is None:  # check and demo from the command line: in a child this process watches (cli/supervisor.py)
        _supervisor.supervise(sys.argv[1:], _print_error)
    _ERROR_PRINTED = False
    _STREAM_ERRORS.clear()
    _CLOSED_STREAMS = _fill_closed_streams()
    click_exc = _click_exceptions()
    no_args_is_help: Any = getattr(click_exc, "NoArgsIsHelpError", _Never)  # an exception class, with .show()
    try:
        _interrupts.install()  # inside the try: from here on a signal's exception is one of those caught below
        try:
            code = app_for(sys.argv[1:] if args is None else args)(args=args, standalone_mode=False)
        except Exception as exc:  # what took the place of a signal's exception on its way up (interrupts.received)
            signum = _interrupts.received()
            if signum is None:
                raise
            raise _interrupts.as_exception(signum) from exc
    except _interrupts.Terminated as exc:  # SIGTERM/SIGHUP: every with/finally has run (temporary folders removed)
        _interrupts.quiet_teardown(exc)
        _print_error(exc.message)
        code = exc.exit_code
    except (KeyboardInterrupt, typer.Abort) as exc:
        _interrupts.quiet_teardown(exc)
        _print_error("interrupted")
        code = int(ExitCode.INTERRUPTED)
    except no_args_is_help as exc:
        try:
            exc.show()  # `ortcopy-doctor` alone prints the help
        except OSError as write_error:
            _stream_failed("stderr", write_error)
        code = int(ExitCode.USAGE)
    except click_exc.UsageError as exc:
        _print_error(_usage_line(exc))
        code = int(ExitCode.USAGE)
    except click_exc.ClickException as exc:
        _print_error(" ".join(str(exc.format_message()).split()))
        code = int(getattr(exc, "exit_code", ExitCode.USAGE) or ExitCode.USAGE)
    except OSError as exc:  # click's own printing (--help) refused by stdout; every command body is guarded
        _stream_failed("stdout", exc)
        code = 0
    if args is None:  # the command line: the outcome is decided; a signal now prints its line and exits at once
        _interrupts.ending()
    if code is None:
        code = 0
    code = _stream_error_code(int(code))
    if code == ExitCode.INTERRUPTED and not _ERROR_PRINTED:  # interrupted inside click's parsing, which exits silently
        _print_error("interrupted")
    if args is None:  # the command line (console script, python -m): end the process here
        _exit_process(int(code))
    sys.exit(int(code))


def _exit_process(code: int) -> None:
    """End the process with ``code`` without tearing the interpreter down, as mypy does.

    Python's own exit then frees every object one by one and unloads ~500 modules: 0.1 s after a small check and
    0.2 s after a 10,000-node one (docs/benchmarks.md), with nothing left to do by then (every output is written
    and closed, every session and temporary folder is gone). What exit does that matters is done first: the
    ``atexit`` handlers run (coverage, logging, temporary folders) and stdout and stderr are flushed.

    The normal exit is kept where another thread is still running (it waits for it); where a profiler, tracer or
    debugger is attached (``python -m cProfile -o``, pyinstrument, pdb: they write their results after the
    program returns); and where the CUDA driver is loaded (or this cannot be told): tools that wrap a GPU process
    (nsys, compute-sanitizer) may collect at its teardown (not tried with either here; on the H200 a CUDA check has
    libcuda mapped and takes this normal exit), and a GPU check takes seconds anyway."""
    if threading.active_count() > 1 or _python_tool_attached() or _cuda_driver_loaded():
        sys.exit(code)
    try:
        atexit._run_exitfuncs()  # what the interpreter's exit would run first
    finally:
        for stream in (sys.stdout, sys.stderr):
            try:
                if stream is not None:
                    stream.flush()
            except (OSError, ValueError):  # a closed pipe (`| head`) or a closed stream: nothing more to write
                pass
        os._exit(code)


def _python_tool_attached() -> bool:
    """Whether a profiler, tracer or debugger watches this interpreter: ``sys.setprofile``/``sys.settrace`` hooks
    (cProfile before Python 3.12, pyinstrument, pdb, coverage's tracer) or a ``sys.monitoring`` tool (cProfile
    from 3.12, coverage's sysmon core, debuggers)."""
    if sys.getprofile() is not None or sys.gettrace() is not None:
        return True
    monitoring = getattr(sys, "monitoring", None)  # Python >= 3.12
    return monitoring is not None and any(monitoring.get_tool(tool) is not None for tool in range(6))


def _cuda_driver_loaded(maps: Path = MAPS) -> bool:
    """Whether this process has the CUDA driver library (libcuda) mapped; True where the map cannot be read."""
    files = mapped_files(maps)
    return files is None or any(os.path.basename(path).startswith("libcuda.so") for path in files)
