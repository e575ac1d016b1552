"""Inputs for the runs: synthesized from the model's types and shapes, or read from an .npz file.

Symbolic dims are resolved from ``--dim SYMBOL=N`` and ``--shape NAME=AxBxC``. A dynamic dim neither sizes
(a symbol, a dim with no name, a literal like -1) is taken as 1, the convention of Polygraphy and trtexec, and
recorded (``AssumedDim``) so that the report lists it with the flag that changes it; with ``--strict-shapes``
(``assumed=None`` here) it is an error that names the input and the flag to use instead. ``--value NAME=V``
gives a scalar (or one-element) control input, such as a sample rate, its value in the model's dtype.
"""

from __future__ import annotations

import msgspec
import math
import os
import re
import stat
from collections.abc import Callable, Mapping, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any

import numpy as np

from ortcopy_doctor.analysis.dimexpr import SymbolSizes
from ortcopy_doctor.collect.budget import Budget, memory_budget
from ortcopy_doctor.model.errors import UsageError
from ortcopy_doctor.model.evidence import AssumedDim, Feed, ValueInfo
from ortcopy_doctor.model.format import fmt_bytes
from ortcopy_doctor.model.vocabulary import FeedSource
from ortcopy_doctor.model.lazy import lazy_import

if TYPE_CHECKING:
    import difflib
    import zipfile
else:  # run on first use (model/lazy.py): --inputs only (~4 ms of imports a check without it does not pay), and a
    # --dim that sizes nothing only
    difflib = lazy_import("difflib")
    zipfile = lazy_import("zipfile")

_DIM_RE = re.compile(r"^(.+)=(\d+)$")
_SHAPE_RE = re.compile(r"^(.+)=(\d+(?:x\d+)*|)$")

# Upper bound on the elements of one synthesized input: more is certainly a typo in --dim.
MAX_SYNTHESIZED_ELEMENTS = 1 << 31
# Upper bound on the bytes of one input array, synthesized or read from --inputs (checked before allocating).
MAX_INPUT_BYTES = 4 << 30
# Largest value of one --dim or --shape dim (ORT's dims are int64; anything near this is a typo).
MAX_DIM = 1 << 40


class ChosenDim(msgspec.Struct, frozen=True):
    """A size check chose for a dynamic dim no flag sizes (collect/sizes.py): the value, why, and the sizes that
    failed before it."""

    value: int
    reason: str
    tried: tuple[int, ...] = ()


class ChosenValue(msgspec.Struct, frozen=True):
    """A value check chose for a scalar input no flag gives, as the text a ``--value`` would hold, and why."""

    text: str
    reason: str


def parse_dims(values: Sequence[str]) -> dict[str, int]:
    """``["batch=8", "seq=128"]`` -> ``{"batch": 8, "seq": 128}``. The size follows the last ``=``, so a symbol may
    hold one (``bat=ch=8``); a symbol given twice with two sizes is refused."""
    dims: dict[str, int] = {}
    for value in values:
        match = _DIM_RE.match(value.strip())
        if not match:
            raise UsageError(f"--dim {value!r} is not SYMBOL=N with N a non-negative integer, e.g. --dim batch=8")
        size = _dim_value(match.group(2), f"--dim {value}")
        _once("--dim", match.group(1), dims, size)
        dims[match.group(1)] = size
    return dims


def _once(flag: str, name: str, given: Mapping[str, object], value: object) -> None:
    """Refuse a second ``flag name=...`` with another value (which one would win is a guess)."""
    if name in given and given[name] != value:
        raise UsageError(f"{flag} {name} is given twice, with two values: give it once")


def _dim_value(text: str, flag: str) -> int:
    if len(text) > 15 or int(text) > MAX_DIM:
        raise UsageError(f"{flag}: {text[:30]} is too large for a dim (at most {MAX_DIM}): give the real size")
    return int(text)


def parse_shapes(values: Sequence[str]) -> dict[str, list[int]]:
    """``["x=1x3x224x224"]`` -> ``{"x": [1, 3, 224, 224]}``; ``"x="`` is a scalar."""
    shapes: dict[str, list[int]] = {}
    for value in values:
        match = _SHAPE_RE.match(value.strip())
        if not match:
            raise UsageError(f"--shape {value!r} is not NAME=AxBxC, e.g. --shape image=1x3x224x224")
        text = match.group(2)
        shape = [_dim_value(v, f"--shape {value}") for v in text.split("x")] if text else []
        _once("--shape", match.group(1), shapes, shape)
        shapes[match.group(1)] = shape
    return shapes


def parse_values(values: Sequence[str]) -> dict[str, str]:
    """``["sr=16000"]`` -> ``{"sr": "16000"}`` (converted to the input's dtype by ``build_feeds``)."""
    result: dict[str, str] = {}
    for value in values:
        name, sep, text = value.partition("=")
        if not sep or not name.strip() or not text.strip():
            raise UsageError(f"--value {value!r} is not NAME=V, e.g. --value sample_rate=16000")
        _once("--value", name.strip(), result, text.strip())
        result[name.strip()] = text.strip()
    return result


def resolve_shape(value: ValueInfo, dims: dict[str, int], shapes: dict[str, list[int]],
                  assumed: list[AssumedDim] | None = None, unused: Sequence[str] = (),
                  chosen: Mapping[tuple[str, int], ChosenDim] | None = None) -> list[int]:
    """The concrete shape of one input. A dim nothing sizes is 1, or the size ``chosen`` holds for it (input name,
    axis; collect/sizes.py), and appended to ``assumed``; where ``assumed`` is None (--strict-shapes) it is a
    ``UsageError`` naming the flag that would resolve it. ``unused``: the --dim symbols that size no input of the
    model (``unused_dims``); one spelled like an unsized symbol is named as a likely typo."""
    if value.name in shapes:
        shape = shapes[value.name]
        if value.shape is not None:
            if len(shape) != len(value.shape):
                raise UsageError(
                    f"--shape {value.name}: the model declares rank {len(value.shape)} ({_show(value.shape)}), "
                    f"got rank {len(shape)}"
                )
            for i, (declared, given) in enumerate(zip(value.shape, shape)):
                if isinstance(declared, int) and declared >= 0 and declared != given:
                    raise UsageError(
                        f"--shape {value.name}: dim {i} is fixed to {declared} by the model, got {given}"
                    )
                if isinstance(declared, str) and declared in dims and dims[declared] != given:
                    raise UsageError(f"--shape {value.name}: dim {i} is the symbol '{declared}', which --dim "
                                     f"{declared}={dims[declared]} sizes, got {given}: give one size")
        return shape
    if value.shape is None:
        raise UsageError(f"input '{value.name}' has no declared shape: pass --shape {value.name}=AxBxC")
    resolved: list[int] = []
    for i, dim in enumerate(value.shape):
        if isinstance(dim, int) and dim >= 0:
            resolved.append(dim)
        elif isinstance(dim, str) and dim in dims:
            resolved.append(dims[dim])
        elif assumed is not None:
            pick = (chosen or {}).get((value.name, i))
            size, reason, tried = (pick.value, pick.reason, list(pick.tried)) if pick else (1, "", [])
            if isinstance(dim, str):
                assumed.append(AssumedDim(value.name, i, dim, size, f"--dim {dim}=N", near=_near(dim, unused),
                                          reason=reason, tried=tried))
            else:
                assumed.append(AssumedDim(value.name, i, "" if dim is None else str(dim), size,
                                          f"--shape {value.name}=AxBxC", reason=reason, tried=tried))
            resolved.append(size)
        elif isinstance(dim, int):
            raise UsageError(
                f"input '{value.name}' dim {i} is declared as {dim} in the model, which is not a size: "
                f"pass --shape {value.name}=AxBxC"
            )
        elif isinstance(dim, str):
            near = _near(dim, unused)
            typo = f"; the --dim {near}=... given sizes no dim of the model: a typo?" if near else ""
            raise UsageError(
                f"input '{value.name}' dim {i} is the symbol '{dim}': pass --dim {dim}=N "
                f"(or --shape {value.name}=AxBxC){typo}"
            )
        else:
            raise UsageError(f"input '{value.name}' dim {i} has no size or name: pass --shape {value.name}=AxBxC")
    return resolved


def value_array(value: ValueInfo, text: str, shapes: dict[str, list[int]]) -> np.ndarray:
    """``--value NAME=V``: a scalar of the input's dtype, shaped as the model declares it (every dim 1)."""
    flag = f"--value {value.name}={text}"
    if value.kind != "tensor" or value.elem_type is None:
        raise UsageError(f"{flag}: input '{value.name}' is of type {value.type_string}, not a tensor")
    if value.name in shapes:
        shape = resolve_shape(value, {}, shapes)  # the rank and fixed dims checked as for --shape alone
    elif value.shape is None:
        shape = []
    else:
        shape = [1 if not (isinstance(d, int) and d >= 0) else d for d in value.shape]
    if int(np.prod(shape, dtype=np.int64)) != 1:
        raise UsageError(f"{flag}: input '{value.name}' has shape {_show(value.shape or shape)}, more than one "
                         "element: pass it with --inputs FILE.npz")
    dtype = value.elem_type
    try:
        if dtype == "bool":
            lowered = text.lower()
            if lowered not in ("true", "false", "1", "0"):
                raise ValueError(text)
            scalar: object = lowered in ("true", "1")
        elif dtype == "str":
            scalar = text
        elif dtype.startswith(("int", "uint")):
            scalar = int(text)
            info = np.iinfo(dtype)
            if not info.min <= scalar <= info.max:
                raise ValueError(text)
        elif dtype in ("float16", "float32", "float64"):
            scalar = float(text)
            with np.errstate(over="ignore"):
                cast = float(np.array(scalar).astype(dtype))  # as the model gets it: rounded to the dtype
            written_inf = text.lower().lstrip("+-") in ("inf", "infinity")
            if math.isinf(cast) and not written_inf:  # 70000 for float16, 1e400: would be inf; "inf" is taken
                largest = float(np.finfo(dtype).max)
                raise UsageError(f"{flag}: {text} is out of the range of {dtype} (largest {largest:g}): give a "
                                 "smaller value, or inf")
        else:
            raise UsageError(f"{flag}: input '{value.name}' has element type {dtype}, which --value cannot make: "
                             + _how_to_give(dtype))
    except ValueError:
        raise UsageError(f"{flag}: input '{value.name}' is {dtype} in the model, and {text!r} is not a valid {dtype} "
                         "value") from None
    return np.full(shape, scalar, dtype=object if dtype == "str" else dtype)


def _show(shape: Sequence[object]) -> str:
    return "[" + ", ".join(str(d) for d in shape) + "]"


INT_HIGH = 4  # synthesized integers: 0..3


def synthesize(value: ValueInfo, shape: list[int], rng: np.random.Generator, high: int = INT_HIGH) -> np.ndarray:
    """A deterministic array for one input. Integers are small and non-negative, below ``high`` (valid as ids and
    indices: ``index_bounds`` lowers it for an input that indexes a smaller table)."""
    _check_synthesizable(value)
    return _make(value, shape, rng, high)


def index_bounds(model: Any) -> dict[str, int]:
    """Input name -> the rows of the smallest table it indexes, where that is fewer than ``INT_HIGH``: a graph input
    read (directly, or through Cast) as the indices of a Gather of an initializer. BERT's token_type_ids index a
    table of 2 rows: an id of 2 or 3 made ORT refuse the run ("indices element out of data bounds")."""
    graph = model.graph
    inputs = {v.name for v in graph.input}
    tables = {t.name: list(t.dims) for t in graph.initializer}
    source = {n.output[0]: n.input[0] for n in graph.node if n.op_type == "Cast" and n.input and n.output}
    bounds: dict[str, int] = {}
    for node in graph.node:
        if node.op_type != "Gather" or node.domain not in ("", "ai.onnx") or len(node.input) < 2:
            continue
        dims = tables.get(node.input[0])
        if not dims:
            continue
        axis = next((int(a.i) for a in node.attribute if a.name == "axis"), 0)
        axis = axis + len(dims) if axis < 0 else axis
        if not 0 <= axis < len(dims):
            continue
        name = node.input[1]
        name = source.get(name, name)
        rows = int(dims[axis])
        if name in inputs and 0 < rows < INT_HIGH:
            bounds[name] = min(rows, bounds.get(name, rows))
    return bounds


def _check_synthesizable(value: ValueInfo) -> None:
    if value.kind in ("sequence", "map"):
        # an .npz holds named arrays only: there is no way to pass a sequence or map with --inputs
        raise UsageError(
            f"input '{value.name}' is of type {value.type_string}: check cannot feed sequence or map inputs "
            "(they cannot be synthesized and an .npz file holds only tensors); --static predicts the model without "
            "inputs"
        )
    if value.kind != "tensor" or value.elem_type is None:
        # an optional or sparse input, or one of no declared type: an .npz cannot give it either
        raise UsageError(
            f"input '{value.name}' is of type {value.type_string}: check can feed only tensors (an .npz file holds "
            "nothing else); --static predicts the model without inputs"
        )
    if value.elem_type not in _SYNTHESIZABLE:
        raise UsageError(f"input '{value.name}' has element type {value.elem_type}, which cannot be synthesized: "
                         + _how_to_give(value.elem_type))


def _how_to_give(dtype: str | None) -> str:
    """What to do about an input of ``dtype`` that cannot be synthesized: --inputs, where an .npz can hold it."""
    if dtype is None or dtype == "undefined" or dtype.startswith(_NOT_IN_NUMPY):
        return (f"numpy has no {dtype or 'undefined'} type, so an .npz cannot give it either; check this model "
                "with --static, which needs no inputs")
    return "pass it with --inputs FILE.npz"


# element types numpy (hence an .npz) cannot hold: bfloat16, the float8/float4 kinds, int4/uint4, ...
_NOT_IN_NUMPY = ("bfloat16", "float8", "float4", "int4", "uint4", "int2", "uint2", "complex32")


_INTEGERS = ("int8", "int16", "int32", "int64", "uint8", "uint16", "uint32", "uint64")
_SYNTHESIZABLE = ("float32", "float64", "float16", "bool", "int8", "int16", "int32", "int64", "uint8", "uint16",
                  "uint32", "uint64", "str")


def _make(value: ValueInfo, shape: list[int], rng: np.random.Generator, high: int = INT_HIGH) -> np.ndarray:
    dtype = value.elem_type
    check_input_size(value.name, shape, dtype)
    if dtype in ("float32", "float64", "float16"):
        return _filled(shape, dtype, rng.standard_normal)
    if dtype == "bool":
        return _filled(shape, "bool", lambda n: rng.integers(0, 2, size=n))
    if dtype in ("int8", "int16", "int32", "int64", "uint8", "uint16", "uint32", "uint64"):
        return _filled(shape, dtype, lambda n: rng.integers(0, high, size=n))
    if dtype == "str":
        return np.full(shape, "a", dtype=object)
    raise UsageError(f"input '{value.name}' has element type {dtype}, which cannot be synthesized: {_how_to_give(dtype)}")


_CHUNK = 1 << 18  # elements drawn at a time (even: integer draws then consume whole 64-bit words)


def _filled(shape: list[int], dtype: str, draw: Callable[[int], np.ndarray]) -> np.ndarray:
    """An array of ``dtype`` filled chunk by chunk from ``draw`` (float64 or int64 values): memory is the
    input's own bytes plus one small chunk, not the 3x of a float64 draw and its copy; the values are exactly
    those of one ``draw(count).astype(dtype)`` (numpy's generators give the same stream in pieces)."""
    out = np.empty(shape, dtype=dtype)
    flat = out.reshape(-1)
    for start in range(0, flat.size, _CHUNK):
        flat[start:start + _CHUNK] = draw(min(_CHUNK, flat.size - start))
    return out


def check_input_size(name: str, shape: Sequence[int], dtype: str | None, flag: str = "") -> int:
    """The bytes of an input of this shape and dtype; a ``UsageError`` above ``MAX_INPUT_BYTES``."""
    count = math.prod(int(d) for d in shape)
    if count > MAX_SYNTHESIZED_ELEMENTS:
        raise UsageError(
            f"input '{name}' would have shape {_show(shape)} ({count} elements): lower the --dim or --shape values"
        )
    itemsize = _ITEMSIZE.get(dtype or "", 8)
    nbytes = count * itemsize
    if nbytes > MAX_INPUT_BYTES:
        where = flag or "the --dim or --shape values"
        raise UsageError(f"input '{name}' would take {nbytes} bytes (shape {_show(shape)}, {dtype}), more than the "
                         f"{MAX_INPUT_BYTES >> 30} GiB limit: lower {where}")
    return nbytes


_ITEMSIZE = {"bool": 1, "uint8": 1, "int8": 1, "uint16": 2, "int16": 2, "float16": 2, "bfloat16": 2, "uint32": 4,
             "int32": 4, "float32": 4, "uint64": 8, "int64": 8, "float64": 8, "complex64": 8, "complex128": 16}


def load_inputs_file(path: Path, names: set[str] | None = None) -> dict[str, np.ndarray]:
    """The arrays of an .npz file. Before any array is read: the file must be a regular file, its member names
    (checked against ``names``, the model's inputs, where given) and each member's header (dtype, shape, hence
    bytes) must be acceptable, so a small compressed file cannot expand into gigabytes first."""
    inputs_file_sizes(path, names)
    return _read_arrays(path)


def inputs_file_sizes(path: Path, names: set[str] | None = None) -> dict[str, int]:
    """The bytes each array of an .npz file declares in its header, by name, read without reading any array; the
    checks of ``load_inputs_file`` (a ``UsageError`` saying what is wrong)."""
    try:
        st = os.stat(path)
    except FileNotFoundError:
        raise UsageError(f"--inputs file not found: {path}") from None
    except OSError as exc:
        raise UsageError(f"--inputs {path} cannot be read ({exc.strerror}): check the path") from None
    if not stat.S_ISREG(st.st_mode):
        what = "a directory" if stat.S_ISDIR(st.st_mode) else "not a regular file"
        raise UsageError(f"--inputs {path} is {what}: pass an .npz file written with numpy.savez")
    sizes: dict[str, int] = {}
    try:
        with open(path, "rb") as f:
            head = f.read(6)
        if head.startswith(b"\x93NUMPY"):  # a .npy file: one bare array, no names
            raise UsageError(f"--inputs {path} holds one array, not named arrays: write it with "
                             "numpy.savez(path, input_name=array)")
        with zipfile.ZipFile(path) as archive:
            members = {(m[:-4] if m.endswith(".npy") else m): m for m in archive.namelist()}
            if names is not None:
                for name in members:
                    if name not in names:
                        shown = ", ".join(sorted(names)) or "none"
                        raise UsageError(f"--inputs has '{name}', which is not an input of the model (inputs: {shown})")
            for name, member in members.items():
                with archive.open(member) as f:
                    version = np.lib.format.read_magic(f)
                    header = (np.lib.format.read_array_header_1_0(f) if version == (1, 0)
                              else np.lib.format.read_array_header_2_0(f))
                shape, _, dtype = header
                if dtype.hasobject:
                    raise UsageError(f"--inputs '{name}' is an object array, which cannot be read safely: "
                                     "save numeric or string arrays")
                count = math.prod(shape)
                if count * dtype.itemsize > MAX_INPUT_BYTES:
                    raise UsageError(f"--inputs '{name}' declares shape {_show(shape)} of {dtype} "
                                     f"({count * dtype.itemsize} bytes), more than the {MAX_INPUT_BYTES >> 30} GiB "
                                     "limit: pass a smaller array")
                sizes[name] = count * dtype.itemsize
    except UsageError:
        raise
    except Exception as exc:  # noqa: BLE001 - any malformed member (zip, header, data) is the file's fault
        raise _unreadable(path, exc) from None
    return sizes


def _read_arrays(path: Path) -> dict[str, np.ndarray]:
    """The arrays of an .npz file whose headers ``inputs_file_sizes`` accepted."""
    try:
        with np.load(path, allow_pickle=False) as data:
            return {name: data[name] for name in data.files}
    except MemoryError:
        raise
    except Exception as exc:  # noqa: BLE001 - any malformed member (zip, header, data) is the file's fault
        raise _unreadable(path, exc) from None


def _unreadable(path: Path, exc: Exception) -> UsageError:
    text = " ".join(str(exc).split())[:200] or type(exc).__name__
    return UsageError(f"--inputs {path} is not a readable .npz file ({text}): write it with numpy.savez")


def value_names(values: dict[str, str], inputs: Sequence[ValueInfo]) -> dict[str, str]:
    """``--value`` items split where the model's input names say: ``--value a=b=3`` gives input ``a=b`` the value
    3 where the model has an input ``a=b`` and no input ``a`` (``parse_values`` splits at the first ``=``, before
    the names are known). The longest input name that fits wins."""
    names = {v.name for v in inputs}
    result: dict[str, str] = {}
    for name, text in values.items():
        if name not in names:
            whole = f"{name}={text}"
            fits = [n for n in names if whole.startswith(n + "=") and len(whole) > len(n) + 1]
            if fits:
                name = max(fits, key=len)
                text = whole[len(name) + 1:].strip()
        result[name] = text
    return result


def unused_dims(inputs: Sequence[ValueInfo], dims: Mapping[str, int]) -> list[str]:
    """The --dim symbols that size no dim of ``inputs``: neither a symbol of one nor a name in an expression of
    them (``past + 1``). They are accepted (one set of --dim flags serves every model a CI job checks) and only
    named where one is spelled like a symbol left unsized (``_near``)."""
    declared = [d for v in inputs for d in (v.shape or []) if isinstance(d, str)]
    words = {w for d in declared for w in re.findall(r"[A-Za-z_][A-Za-z0-9_.]*", d)} | set(declared)
    return [name for name in dims if name not in words]


def _near(symbol: str, unused: Sequence[str]) -> str:
    """The one of ``unused`` (--dim symbols that size nothing) spelled most like ``symbol``, or "" (difflib's
    ratio at least 0.75, or the two equal but for case: ``bacth`` and ``Batch`` for ``batch``)."""
    if not unused:
        return ""
    same_letters = [u for u in unused if u.casefold() == symbol.casefold()]
    if same_letters:
        return same_letters[0]
    close = difflib.get_close_matches(symbol, list(unused), n=1, cutoff=0.75)
    return close[0] if close else ""


def check_names(inputs: Sequence[ValueInfo], dims: dict[str, int], shapes: dict[str, list[int]],
                values: dict[str, str]) -> None:
    """Refuse a --shape or --value that names no input of the model. A --dim that sizes no symbol of an input is
    taken and has no effect: one set of --dim flags serves every model a CI job checks, some of them with the dim
    fixed (``dims`` is here for that reason)."""
    by_name = {v.name for v in inputs}
    for flag, names in (("--shape", shapes), ("--value", values)):
        for name in names:
            if name not in by_name:
                raise UsageError(f"{flag} names '{name}', which is not an input of the model (inputs: {_names(inputs)})")


def check_state(inputs: Sequence[ValueInfo], outputs: Sequence[ValueInfo], state: dict[str, str]) -> None:
    """Refuse a --state IN=OUT whose IN is no input or OUT no output of the model, an output named twice, or two
    ends whose declared element types differ (they cannot hold the same state)."""
    ins = {v.name: v for v in inputs}
    outs = {v.name: v for v in outputs}
    seen: dict[str, str] = {}
    for name, output in state.items():
        if name not in ins:
            raise UsageError(f"--state {name}={output}: '{name}' is not an input of the model (inputs: {_names(inputs)})")
        if output not in outs:
            raise UsageError(f"--state {name}={output}: '{output}' is not an output of the model "
                             f"(outputs: {_names(outputs)})")
        if output in seen:
            raise UsageError(f"--state {name}={output}: '{output}' already carries '{seen[output]}': give each output "
                             "to one input")
        seen[output] = name
        a, b = ins[name].elem_type, outs[output].elem_type
        if a and b and a != b:
            raise UsageError(f"--state {name}={output}: '{name}' is {a} and '{output}' is {b}: an output can be the next "
                             "run's input only with the same element type")


def build_feeds(
    inputs: Sequence[ValueInfo],
    dims: dict[str, int] | None = None,
    shapes: dict[str, list[int]] | None = None,
    inputs_file: Path | None = None,
    seed: int = 0,
    make_arrays: bool = True,
    *,
    values: dict[str, str] | None = None,
    assumed: list[AssumedDim] | None = None,
    bounds: dict[str, int] | None = None,
    chosen: Mapping[tuple[str, int], ChosenDim] | None = None,
    chosen_values: Mapping[str, ChosenValue] | None = None,
    budget: Budget | None = None,
) -> tuple[dict[str, np.ndarray], list[Feed]]:
    """Arrays to feed and their descriptions. Inputs missing from ``inputs_file`` and ``values`` (--value) are
    synthesized; a dynamic dim nothing sizes is 1 (or its size in ``chosen``) and appended to ``assumed``, or an
    error where ``assumed`` is None (the default here; ``check`` passes a list unless --strict-shapes). With
    ``make_arrays=False`` (``--static``, which runs nothing) synthesized inputs are only described, never
    allocated. An input dim that is an expression of symbols (``past + 1``) is sized from them
    (``dimexpr.SymbolSizes``). ``bounds`` (``index_bounds``): synthesized integers of those inputs stay below their
    table's rows. ``chosen_values``: values check chose (collect/sizes.py) for inputs neither ``values`` nor
    ``inputs_file`` gives; they are fed as a --value would be (source "value"), with ``Feed.chosen`` saying why.
    All the inputs together are bounded by ``budget`` (default: ``budget.memory_budget()``) before any array is
    read or allocated (``check_total_size``)."""
    dims = SymbolSizes(dims or {})
    bounds = bounds or {}
    shapes = shapes or {}
    values = dict(values or {})
    by_name = {v.name: v for v in inputs}
    check_names(inputs, dims, shapes, values)
    unused = unused_dims(inputs, dims)
    given_bytes = inputs_file_sizes(inputs_file, set(by_name)) if inputs_file else {}
    for name in given_bytes:
        if name not in by_name:
            raise UsageError(f"--inputs has '{name}', which is not an input of the model (inputs: {_names(inputs)})")
        if name in values:
            raise UsageError(f"'{name}' is given twice, by --inputs and by --value: drop one")
    why: dict[str, str] = {}  # the inputs whose value check chose: why (Feed.chosen)
    for name, pick in (chosen_values or {}).items():
        if name in by_name and name not in given_bytes and name not in values and name not in shapes:
            values[name] = pick.text  # the --value path: the same conversion, the same Feed source
            why[name] = f"{pick.text}, {pick.reason}"
    # every synthesized input's shape and bytes first: all of them are bounded before any is allocated
    synthesized: dict[str, tuple[list[int], int]] = {}
    for value in inputs:
        if value.name in given_bytes or value.name in values:
            continue
        # a non-tensor input has no shape to resolve: _check_synthesizable says why it cannot be made
        shape = resolve_shape(value, dims, shapes, assumed, unused, chosen) if value.kind == "tensor" else []
        _check_synthesizable(value)
        synthesized[value.name] = (shape, check_input_size(value.name, shape, value.elem_type))
    if make_arrays:
        check_total_size({**given_bytes, **{name: nbytes for name, (_, nbytes) in synthesized.items()}},
                         memory_budget() if budget is None else budget, bool(inputs_file))
    given = _read_arrays(inputs_file) if inputs_file else {}
    rng = np.random.default_rng(seed)
    arrays: dict[str, np.ndarray] = {}
    feeds: list[Feed] = []
    for value in inputs:
        if value.name in given:
            array = given[value.name]
            _check_given(value, array)
            source = FeedSource.FILE
        elif value.name in values:
            array = value_array(value, values[value.name], shapes)
            source = FeedSource.VALUE
        else:
            shape, nbytes = synthesized[value.name]
            high = bounds.get(value.name) if value.elem_type in _INTEGERS else None
            if not make_arrays:
                feeds.append(Feed(name=value.name, dtype=value.elem_type or "str", shape=list(shape),
                                  bytes=nbytes if value.elem_type != "str" else 0, source=FeedSource.SYNTHESIZED,
                                  high=high))
                continue
            array = synthesize(value, shape, rng, high or INT_HIGH)
            source = FeedSource.SYNTHESIZED
        arrays[value.name] = array
        feeds.append(
            Feed(name=value.name, dtype=str(array.dtype) if array.dtype != object else "str",
                 shape=[int(d) for d in array.shape], bytes=int(array.nbytes) if array.dtype != object else 0,
                 source=source, high=high if source == FeedSource.SYNTHESIZED else None,
                 value=values[value.name] if source == FeedSource.VALUE else None,
                 chosen=why.get(value.name, ""))
        )
    return arrays, feeds


def check_total_size(sizes: Mapping[str, int], budget: Budget, from_file: bool = False) -> int:
    """The bytes of all inputs together (``sizes``: by name, as read from ``--inputs``' headers or to be
    synthesized); a ``UsageError`` naming the largest where they exceed ``budget`` (each input alone is bounded by
    ``MAX_INPUT_BYTES``, and eight of them by that alone took 32 GiB: exit 4, MemoryError)."""
    total = sum(sizes.values())
    if total <= budget.bytes:
        return total
    largest = sorted(sizes.items(), key=lambda item: (-item[1], item[0]))
    shown = ", ".join(f"'{name}' {fmt_bytes(nbytes)}" for name, nbytes in largest[:_NAMED_INPUTS])
    more = f" and {len(largest) - _NAMED_INPUTS} more" if len(largest) > _NAMED_INPUTS else ""
    fix = "lower the --dim or --shape values" + (" or pass smaller arrays in --inputs" if from_file else "")
    raise UsageError(f"the inputs would take {fmt_bytes(total)} together ({shown}{more}), more than "
                     f"{budget.describe()}: {fix}")


_NAMED_INPUTS = 8  # the inputs an error about their total names, the largest first


def _names(inputs: Sequence[ValueInfo]) -> str:
    return ", ".join(v.name for v in inputs) or "none"


def _check_given(value: ValueInfo, array: np.ndarray) -> None:
    expected = value.elem_type
    actual = "str" if array.dtype.kind in ("U", "S", "O") else str(array.dtype)
    if value.kind == "tensor" and expected and actual != expected:
        fix = (_how_to_give(expected) if expected == "undefined" or expected.startswith(_NOT_IN_NUMPY)
               else f"convert it with .astype('{expected}')")
        raise UsageError(f"--inputs '{value.name}' has dtype {actual}, the model expects {expected}: {fix}")
    if value.shape is not None:
        if array.ndim != len(value.shape):
            raise UsageError(
                f"--inputs '{value.name}' has shape {_show(array.shape)}, the model expects rank {len(value.shape)} "
                f"({_show(value.shape)})"
            )
        for i, (declared, got) in enumerate(zip(value.shape, array.shape)):
            if isinstance(declared, int) and declared != got:
                raise UsageError(
                    f"--inputs '{value.name}' has shape {_show(array.shape)}, the model fixes dim {i} to {declared}"
                )
