"""The output options of a command, made from the renderers' registry (render/registry.py).

``@output_options(kind)`` puts, in place of a command's ``asked: Asked`` parameter, one option per format that
renders the command's kind of report and has a flag: ``--json``, ``--html``/``-o``, ``--sarif``, ``--trace`` for a
check's report; ``--html`` for a diff; ``--json`` and ``--html`` for a run. Each option's help is the format's,
with the command's default file named and ``; - for stdout`` where stdout may take it. A format the command writes
by default (``check``'s HTML page) gets its ``--no-FORMAT`` option too. The command receives what was asked as one
``Asked``, whose ``targets`` are the (format, path) pairs it checks and writes (cli/app.py: ``_outputs``,
``_write_outputs``). typer reads the options from the command's signature, which the decorator rewrites.
"""

from __future__ import annotations

import functools
import inspect
from collections.abc import Callable, Iterable, Mapping
from pathlib import Path
from typing import TYPE_CHECKING, Any, Optional, TypeVar

import typer

from ortcopy_doctor.model.errors import UsageError
from ortcopy_doctor.render.registry import RenderContext, Renderer, formats_for

if TYPE_CHECKING:
    from ortcopy_doctor.render.output import OutputSet

STDOUT_HELP = "; - for stdout"
PARAMETER = "asked"  # the parameter of a command that the options take the place of
# The default of that parameter in the command's own signature (which typer never sees): ``asked: Asked = ASKED``.
ASKED: Any = None

F = TypeVar("F", bound=Callable[..., Any])


def _option_name(renderer: Renderer) -> str:
    """The Python name of a format's option in the command's signature (what typer passes it as)."""
    return f"{renderer.name}_output"


def _no_name(renderer: Renderer) -> str:
    """The Python name of a format's ``--no-FORMAT`` option."""
    return f"no_{renderer.name}_output"


class Asked:
    """What one command was asked to write: each format's path (None where its option was not given), and the
    formats that ``--no-FORMAT`` turned off."""

    def __init__(self, kind: str, formats: Iterable[Renderer], paths: Mapping[str, Optional[Path]],
                 off: Iterable[str] = (), by_default: Iterable[str] = (), stdout: bool = True) -> None:
        self.kind = kind
        self.formats = list(formats)
        self.paths = dict(paths)
        self.off = set(off)
        self.by_default = set(by_default)
        self.stdout = stdout

    def path(self, name: str) -> Optional[Path]:
        """The path the option of format ``name`` gave, None where it was not given (or the command has none)."""
        return self.paths.get(name)

    @property
    def judges(self) -> bool:
        """Whether a format asked for judges the report (SARIF), as a gate does: the report must then be this
        code's analysis of the file's evidence (``load_report``'s ``cache``)."""
        return any(r.judges and self.paths.get(r.name) is not None for r in self.formats)

    def targets(self, stem: str = "") -> list[tuple[Renderer, Optional[Path]]]:
        """(format, path) of every format the command offers, in the registry's order: the path given, else
        ``<stem><suffix>`` for a format written by default (``model.ortcopy`` + ``.html``) unless ``--no-FORMAT``
        turned it off, else None. A path given with ``--no-FORMAT``, and ``-`` where stdout is not this command's
        (run: the program's), are usage errors."""
        result: list[tuple[Renderer, Optional[Path]]] = []
        for renderer in self.formats:
            path = self.paths.get(renderer.name)
            if renderer.name in self.off:
                if path is not None:
                    raise UsageError(f"{renderer.flag} {path} and --no-{renderer.name} contradict each other: give one")
            elif path is None and renderer.name in self.by_default:
                path = Path(f"{stem}{renderer.suffix}")
            result.append((renderer, path))
        for renderer, path in result:
            if not self.stdout and renderer.stdout_ok and path is not None and str(path) == "-":
                raise UsageError(f"{renderer.flag} cannot write to stdout ('-'): give a file path")
        return result


def _help(renderer: Renderer, kind: str, default: Optional[str], stdout: bool) -> str:
    """The option's help: the format's, the default file named, and where stdout may take it, ``- for stdout``."""
    text = renderer.help(kind)
    if default is not None:
        text += f" (default: {default})"
    if stdout and renderer.stdout_ok:
        text += STDOUT_HELP
    return text + "."


def output_options(kind: str, *, only: Optional[Iterable[str]] = None, by_default: Optional[Mapping[str, str]] = None,
                   defaults: Optional[Mapping[str, Path]] = None, stdout: bool = True,
                   registry: Optional[Mapping[str, Renderer]] = None) -> Callable[[F], F]:
    """A decorator giving a command the output options of the formats of ``registry`` (``REGISTRY``) that render
    ``kind`` (``only``: those of them named), in place of its ``asked: Asked`` parameter.

    ``by_default``: format name -> the default file as the help names it (``<model>.ortcopy.html``), for the formats
    the command writes unless ``--no-FORMAT`` is given; ``defaults``: format name -> a fixed default path (demo's
    ``reports/demo.html``), which the help shows; ``stdout``: False where stdout is not the command's (run), so no
    help says ``- for stdout`` and ``Asked.targets`` refuses ``-``."""
    wanted = None if only is None else set(only)
    written = dict(by_default or {})
    fixed = dict(defaults or {})

    def decorate(func: F) -> F:
        signature = inspect.signature(func, eval_str=True)
        if PARAMETER not in signature.parameters:
            raise TypeError(f"{func.__name__} has no {PARAMETER!r} parameter for its output options")
        chosen = [r for r in formats_for(kind, registry, with_flag=True) if wanted is None or r.name in wanted]
        kind_of = signature.parameters[PARAMETER].kind
        options: list[inspect.Parameter] = []
        for renderer in chosen:
            assert renderer.flag is not None
            names = (renderer.flag,) if renderer.short is None else (renderer.flag, renderer.short)
            default = fixed.get(renderer.name)
            options.append(inspect.Parameter(
                _option_name(renderer), kind_of,
                default=typer.Option(default, *names,
                                     help=_help(renderer, kind, written.get(renderer.name), stdout)),
                annotation=Path if default is not None else Optional[Path]))
            if renderer.name in written:
                options.append(inspect.Parameter(
                    _no_name(renderer), kind_of,
                    default=typer.Option(False, f"--no-{renderer.name}", help=f"Write no {renderer.title} report."),
                    annotation=bool))
        params = list(signature.parameters.values())
        at = list(signature.parameters).index(PARAMETER)
        clash = {p.name for p in options} & set(signature.parameters)
        if clash:
            raise TypeError(f"{func.__name__}: parameters {sorted(clash)} clash with its output options")
        params[at:at + 1] = options

        @functools.wraps(func)
        def command(*args: Any, **kwargs: Any) -> Any:
            paths = {r.name: kwargs.pop(_option_name(r)) for r in chosen}
            off = [r.name for r in chosen if r.name in written and kwargs.pop(_no_name(r))]
            asked = Asked(kind, chosen, paths, off, by_default=written, stdout=stdout)
            return func(*args, **kwargs, **{PARAMETER: asked})

        command.__signature__ = signature.replace(parameters=params)  # type: ignore[attr-defined]
        command.__annotations__ = {p.name: p.annotation for p in params}
        return command  # type: ignore[return-value]

    return decorate


def write_outputs(outputs: OutputSet, report: Any, asked: Asked, context: RenderContext,
                  staged: Optional[Mapping[str, str]] = None) -> list[str]:
    """Render every output asked for, each by its format in the registry's order, then write them all with
    ``staged`` (flag -> text the command made itself: an audit's merged rows), or, on any failure, none."""
    try:
        for flag, text in (staged or {}).items():
            outputs.stage(flag, text)
        for renderer in asked.formats:
            if renderer.flag is not None and outputs.asked(renderer.flag):
                outputs.stage(renderer.flag, renderer.render(report, context))
        return outputs.commit()
    finally:
        outputs.discard()


__all__ = ["ASKED", "Asked", "STDOUT_HELP", "output_options", "write_outputs"]
