"""The shape sets of a sweep (``check --dim batch=1,8,64``, ``--shape x=1x3x640x640,1x3x960x544``, ``--shapes
FILE``): one ``ShapeSet`` per run, each checked in full. A list is allowed for one symbol or input only: several
lists would ask for their cross product, which multiplies runs unseen; a file names each combination wanted."""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path

from ortcopy_doctor.collect.feeds import check_names, parse_dims, parse_shapes, resolve_shape
from ortcopy_doctor.knowledge.model_file import inspect_model, load_model
from ortcopy_doctor.model.errors import UsageError
from ortcopy_doctor.model.sweep import ShapeSet


def _show(shape: list[int]) -> str:
    return "x".join(str(d) for d in shape)


def _batch(dims: dict[str, int], shapes: dict[str, list[int]]) -> int | None:
    """The batch size a shape set names: a dim symbol with "batch" in its name, else the leading dim of its first
    shape (None without either)."""
    for symbol, size in dims.items():
        if "batch" in symbol.lower():
            return size
    first = next(iter(shapes.values()), [])
    return first[0] if first else None


def _split(values: Sequence[str], flag: str) -> tuple[list[str], list[str]]:
    """``values`` of ``flag`` split into the single ones and the expanded list (``batch=1,8`` -> ``batch=1``,
    ``batch=8``); two lists are refused (their cross product is not run)."""
    single: list[str] = []
    listed: list[str] = []
    for value in values:
        name, sep, text = value.strip().rpartition("=")
        if not sep or "," not in text:
            single.append(value)
            continue
        if listed:
            what = "symbol" if flag == "--dim" else "input"
            raise UsageError(f"{flag} {value!r}: a list of values is allowed for one {what} only (their cross "
                             "product is not run): give the other combinations in a --shapes FILE")
        items = [item.strip() for item in text.split(",")]
        if any(not item for item in items) or len(set(items)) != len(items):
            raise UsageError(f"{flag} {value!r}: give distinct values separated by commas, e.g. {flag} batch=1,8,64")
        listed = [f"{name}={item}" for item in items]
    return single, listed


def from_options(dims: Sequence[str], shapes: Sequence[str], shapes_file: Path | None = None) -> list[ShapeSet]:
    """The shape sets of one ``check``: one (the plain check) where nothing lists several values; else one per
    listed value or per line of ``shapes_file``, each with the fixed --dim and --shape sizes. Raises ``UsageError``
    (one line) for two lists, a list with --shapes, or a bad value or line."""
    fixed_dims, dim_list = _split(dims, "--dim")
    fixed_shapes, shape_list = _split(shapes, "--shape")
    if dim_list and shape_list:
        raise UsageError("--dim and --shape both list several values: a list is allowed for one symbol or input "
                         "only (their cross product is not run): give the combinations in a --shapes FILE")
    base_dims, base_shapes = parse_dims(fixed_dims), parse_shapes(fixed_shapes)
    if shapes_file is not None:
        if dim_list or shape_list:
            raise UsageError("--shapes FILE lists the shapes: drop the comma list from --dim/--shape (or add its "
                             "values to the file)")
        return read_shapes_file(shapes_file, base_dims, base_shapes)
    sets: list[ShapeSet] = []
    for value in dim_list:
        one = parse_dims([value])
        dims_here = {**base_dims, **one}
        sets.append(ShapeSet(label=value.strip(), dims=dims_here, shapes=base_shapes,
                             batch=_batch(dims_here, base_shapes)))
    for value in shape_list:
        one_shape = parse_shapes([value])
        shapes_here = {**base_shapes, **one_shape}
        name, shape = next(iter(one_shape.items()))
        sets.append(ShapeSet(label=f"{name}={_show(shape)}", dims=base_dims, shapes=shapes_here,
                             batch=_batch(base_dims, one_shape)))
    return sets or [ShapeSet(label="", dims=base_dims, shapes=base_shapes, batch=_batch(base_dims, base_shapes))]


def parse_line(line: str, where: str, base_dims: dict[str, int], base_shapes: dict[str, list[int]]) -> ShapeSet:
    """One line of a --shapes file (``x=1x3x640x640 y=1x4``, ``batch=8``): a value with an ``x`` is an input's
    shape, a plain integer a dim symbol's size; ``where`` names the line in the error."""
    dims: dict[str, int] = {}
    shapes: dict[str, list[int]] = {}
    for token in line.split():
        name, sep, text = token.rpartition("=")
        try:
            if sep and text.isdigit():
                dims.update(parse_dims([token]))
            elif sep and "x" in text:
                shapes.update(parse_shapes([token]))
            else:
                raise UsageError("")
        except UsageError:
            raise UsageError(f"{where}: {token[:60]!r} is not SYMBOL=N or NAME=AxBxC (e.g. batch=8 or "
                             "x=1x3x640x640)") from None
    all_dims, all_shapes = {**base_dims, **dims}, {**base_shapes, **shapes}
    label = " ".join([*(f"{k}={v}" for k, v in dims.items()), *(f"{k}={_show(v)}" for k, v in shapes.items())])
    return ShapeSet(label=label, dims=all_dims, shapes=all_shapes, batch=_batch(all_dims, all_shapes))


def read_shapes_file(path: Path, base_dims: dict[str, int], base_shapes: dict[str, list[int]]) -> list[ShapeSet]:
    """The shape sets of a --shapes file: one a line, ``#`` starts a comment, blank lines skipped."""
    try:
        text = path.read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError) as exc:
        raise UsageError(f"--shapes {path}: cannot read it ({type(exc).__name__}: {exc})") from None
    sets: list[ShapeSet] = []
    for number, raw in enumerate(text.splitlines(), start=1):
        line = raw.split("#", 1)[0].strip()
        if line:
            sets.append(parse_line(line, f"--shapes {path}: line {number}", base_dims, base_shapes))
    if not sets:
        raise UsageError(f"--shapes {path}: no shape in it: give one shape set a line, e.g. batch=8")
    labels = [s.label for s in sets]
    for label in labels:
        if labels.count(label) > 1:
            raise UsageError(f"--shapes {path}: {label!r} is given twice: give each shape set once")
    return sets


def check_against_model(model_path: Path, sets: Sequence[ShapeSet]) -> None:
    """Refuse, before any shape runs, a shape set the model cannot take: a --shape naming no input, or one of
    another rank or against a fixed dim (``resolve_shape``'s checks). The graph is read without its weights."""
    model_path = Path(model_path)
    inputs = inspect_model(model_path, load_model(model_path)).inputs
    for shape in sets:
        try:
            check_names(inputs, shape.dims, shape.shapes, {})
            for value in inputs:
                if value.name in shape.shapes and value.kind == "tensor":
                    resolve_shape(value, shape.dims, shape.shapes, [])
        except UsageError as exc:
            exc.message = f"at {shape.label}: {exc.message}"
            raise


__all__ = ["check_against_model", "from_options", "parse_line", "read_shapes_file"]
