"""The binding plan: where each input and output should live, and runnable IO-binding code for it.

An input is bound on the device only where a device kernel reads it from device memory; inputs
read only in host memory stay on CPU (binding them on CUDA would add copies, docs/ort-notes.md).
Outputs produced on the device are bound there: pre-allocated where the shape is known before the
run, ``bind_output(name, "cuda")`` where it depends on the data. Sequence and map outputs cannot be
bound at all. State carried between runs (an output that is the next run's input: RNN state, KV cache)
stays on the device: the generated code swaps the two bound buffers between runs instead of copying.

Code comes in flavors, each runnable as printed: ``onnxruntime`` (numpy data, OrtValues), ``torch``
(tensors bound through DLPack or their ``data_ptr()``), ``cupy`` (``.data.ptr``), and ``cuda_graph``
(``enable_cuda_graph``; only where nothing blocks graph capture, see advice.cuda_graph_blockers).
"""

from __future__ import annotations

import keyword
import re
from collections.abc import Sequence
from dataclasses import field, replace
from typing import Optional

from ortcopy_doctor.analysis.codelayout import WIDTH, fit
from ortcopy_doctor.analysis.copies import GraphView, copied_by_memcpy_node, input_dims
from ortcopy_doctor.model.evidence import Dim, Evidence, ValueInfo
from ortcopy_doctor.model.vocabulary import Role, Word
from ortcopy_doctor.knowledge.ort_versions import has_from_dlpack
from ortcopy_doctor.knowledge.providers import is_device
from ortcopy_doctor.model.records import frozen


class BindingPlace(Word):
    """Where an input or output should live for IO binding."""

    DEVICE = "device"
    HOST = "host"
    UNBOUND = "unbound"  # a sequence or map: it cannot be bound


DEVICE = BindingPlace.DEVICE
HOST = BindingPlace.HOST
UNBOUND = BindingPlace.UNBOUND

FLAVORS = ("onnxruntime", "torch", "cupy")


@frozen
class BindingEntry:
    """Where one input or output should live for IO binding, and why."""

    name: str
    role: Role  # input, output
    place: BindingPlace  # device, host, unbound
    dtype: str | None
    shape: list[Dim] | None
    preallocate: bool = False
    reason: str = ""
    # State carried between runs: on an input, the output of the previous run it takes; on an output, the input
    # of the next run it becomes. Left out of the JSON when None.
    state_pair: Optional[str] = field(default=None, metadata={"omit_if_default": True})


@frozen
class BindingPlan:
    """The binding of every input and output of the model, and the code that binds them (``applicable`` is False,
    with the ``reason``, where no device provider is active)."""

    entries: list[BindingEntry] = field(default_factory=list)
    device_type: str = "cuda"
    device_id: int = 0
    applicable: bool = True
    reason: str = ""
    code: str = ""

    @property
    def inputs(self) -> list[BindingEntry]:
        """The entries of the model's inputs, in the model's order."""
        return [e for e in self.entries if e.role == "input"]

    @property
    def outputs(self) -> list[BindingEntry]:
        """The entries of the model's outputs, in the model's order."""
        return [e for e in self.entries if e.role == "output"]

    def entry(self, name: str, role: str) -> BindingEntry | None:
        """The entry of input or output (``role``) ``name``; None where there is none."""
        return next((e for e in self.entries if e.name == name and e.role == role), None)

    @property
    def state_pairs(self) -> list[tuple[str, str]]:
        """(input, output) pairs of state carried from one run to the next."""
        return [(e.name, e.state_pair) for e in self.inputs if e.state_pair]


def _resolved_output_shape(value: ValueInfo, dims: dict[str, int],
                           observed: list[Dim] | None = None) -> list[int] | None:
    """The output's shape if every dim is fixed or a symbol that an input fixes; else None (data-dependent).

    A declared dim that is not a positive integer (exporters such as paddle2onnx write ``dim_value: -1`` for a
    dynamic dim; 0 or a missing dim are no better) is dynamic: the shape observed in the profiled run is taken
    where the profile has it (same rank, every dim a non-negative int), else None and ORT allocates the output.
    """
    if value.shape is None:
        return None
    shape: list[int] = []
    for d in value.shape:
        if isinstance(d, int) and d > 0:
            shape.append(d)
        elif isinstance(d, str) and d in dims:
            shape.append(dims[d])
        elif isinstance(d, str):
            return None  # a symbol no input fixes: data-dependent
        else:
            return _observed_shape(observed, len(value.shape))
    return shape


def _observed_shape(observed: list[Dim] | None, rank: int) -> list[int] | None:
    if observed is None or len(observed) != rank:
        return None
    dims = [d for d in observed if isinstance(d, int) and d >= 0]
    return [int(d) for d in dims] if len(dims) == rank else None


def _observed_output_shape(evidence: Evidence, view: GraphView, name: str) -> list[Dim] | None:
    """The shape of output ``name`` in the last profiled run (its producer's profile event), or None."""
    from ortcopy_doctor.analysis.copies import _output_event, _shape_and_bytes, measured_events

    producer = view.producers.get(name)
    if producer is None:
        return None
    event = _output_event(measured_events(evidence), producer.node.name)
    if event is None or producer.index >= len(event.output_shapes):
        return None
    shape, _, _ = _shape_and_bytes(event.output_shapes[producer.index])
    return shape


# --- state carried between runs ---------------------------------------------------------------------------------

# Affixes that mark the two ends of a state: stripped from the name before comparing the rest.
_OUTPUT_AFFIXES = ("out", "output", "outputs", "new", "next", "updated", "final", "last")
_INPUT_AFFIXES = ("in", "input", "inputs", "prev", "previous", "old", "init", "initial", "last")
# RNN convention: h_0/c_0 in, h_n/c_n out.
_RNN_WORDS = ("h", "c", "hidden", "cell")
# Words that name state on their own, without an affix: "state" in, "state" ... the name must still differ.
_STATE_WORDS = ("state", "states", "hidden", "h", "c", "cell", "cache", "past", "memory", "mem", "carry", "kv")


def _tokens(name: str) -> list[str]:
    # "stateN", "h0" split into word + index (state1_out -> state 1 out, h0 -> h 0); "hn" and "cn" below.
    text = re.sub(r"([a-z])([0-9]+)(?=$|[^a-z0-9])", r"\1_\2", name.lower())
    parts = [p for p in re.split(r"[^a-z0-9]+", text) if p]
    if len(parts) == 1 and parts[0] in ("hn", "cn", "h0", "c0"):
        parts = [parts[0][0], parts[0][1]]
    return parts


def _canonical(name: str, role: str) -> tuple[tuple[str, ...], bool]:
    """The name with its state affixes removed, and whether an affix or a state word was seen."""
    parts = _tokens(name)
    parts = ["past" if p == "present" else p for p in parts]
    affixes = _OUTPUT_AFFIXES if role == "output" else _INPUT_AFFIXES
    rnn_end = "n" if role == "output" else "0"
    if len(parts) >= 2 and parts[-1] == rnn_end and parts[-2] in _RNN_WORDS:
        parts = parts[:-1] + ["<rnn>"]
    marked = any(p in _STATE_WORDS for p in parts) or any(w in name.lower() for w in ("present", "past", "state", "cache"))
    # Strip affixes at either end, one at a time, keeping at least one token.
    changed = True
    while changed and len(parts) > 1:
        changed = False
        if parts[-1] in affixes:
            parts, changed, marked = parts[:-1], True, True
        elif parts[0] in affixes:
            parts, changed, marked = parts[1:], True, True
    # "past_key_values.0.key" and "present.0.key": drop the "key values" words that only one side spells out.
    if len(parts) >= 3 and parts[0] == "past" and parts[1:3] == ["key", "values"]:
        parts = ["past"] + parts[3:]
    return tuple(parts), marked


def find_state_pairs(inputs: Sequence[tuple[str, str | None, Sequence[Dim] | None]],
                     outputs: Sequence[tuple[str, str | None, Sequence[Dim] | None]]) -> list[tuple[str, str]]:
    """(input, output) pairs where the output of one run is the input of the next.

    Each side is (name, dtype, shape). Names must match once state affixes are removed (state/state_out,
    h_0/h_n, past.0.key/present.0.key, cache_in/cache_out, state1/state1_out) and carry a state word or
    affix; dtype and rank must be equal, and every dim must be equal (a symbol matches the same symbol).
    """
    pairs: list[tuple[str, str]] = []
    taken: set[str] = set()
    input_names = {name for name, _, _ in inputs}
    for in_name, in_dtype, in_shape in inputs:
        in_key, in_marked = _canonical(in_name, "input")
        for out_name, out_dtype, out_shape in outputs:
            if out_name in taken or out_name == in_name or out_name in input_names:
                continue
            out_key, out_marked = _canonical(out_name, "output")
            if in_key != out_key or not (in_marked or out_marked):
                continue
            if in_dtype != out_dtype or in_shape is None or out_shape is None or len(in_shape) != len(out_shape):
                continue
            if any(a != b for a, b in zip(in_shape, out_shape)):
                continue
            pairs.append((in_name, out_name))
            taken.add(out_name)
            break
    return pairs


def make_plan(evidence: Evidence, view: GraphView | None = None) -> BindingPlan:
    """The binding plan for the session the evidence describes (module doc), with its onnxruntime code.

    ``view`` is the graph view ``analyse`` already built; None builds one.
    """
    active = evidence.session.active_providers
    device_active = bool(active) and is_device(active[0])
    plan = BindingPlan(device_id=evidence.session.device_id, applicable=device_active,
                       reason="" if device_active else _not_applicable(evidence))
    view = view if view is not None else GraphView.of(evidence)
    feeds = {f.name: f for f in evidence.feeds}
    copied_by_node = copied_by_memcpy_node(evidence.nodes, evidence.memcpy_insertions)
    for value in evidence.model.inputs:
        feed = feeds.get(value.name)
        uses = view.consumers.get(value.name, [])
        on_device = [u for u in uses if view.reads_on_device(u)]
        host_uses = [u for u in uses if not view.reads_on_device(u)]
        if value.name in copied_by_node and host_uses:
            on_device = []  # ORT keeps it on the host and copies it for the device readers itself
        dtype = feed.dtype if feed else value.elem_type
        if dtype == "str":
            # bind_cpu_input and OrtValue.ortvalue_from_numpy refuse string tensors (onnxruntime 1.20-1.31.1, seen
            # here) and run_with_iobinding needs every input bound: run() takes it, the others as OrtValues
            place, reason = UNBOUND, "a string tensor, which onnxruntime does not bind: run() takes it as numpy"
        elif on_device:
            place, reason = DEVICE, f"read on the device by {on_device[0].node.op_type} '{on_device[0].node.name}'"
        elif uses:
            reader = (host_uses or uses)[0].node
            place, reason = HOST, f"read only in host memory (by {reader.op_type} '{reader.name}'): binding it on the device would add a copy"
        else:
            place, reason = HOST, "not read by any node"
        plan.entries.append(BindingEntry(value.name, Role.INPUT, place, dtype,
                                         list(feed.shape) if feed else value.shape, reason=reason))
    host_side = {m.tensor for m in evidence.memcpy_insertions}
    dims = input_dims(evidence)
    for value in evidence.model.outputs:
        if value.kind != "tensor":
            plan.entries.append(BindingEntry(value.name, Role.OUTPUT, UNBOUND, value.type_string, None,
                                             reason=f"a {value.type_string} cannot be bound: read it with session.run()"))
            continue
        producer = view.producers.get(value.name)
        if value.name in host_side or producer is None or not view.writes_on_device(producer):
            plan.entries.append(BindingEntry(value.name, Role.OUTPUT, HOST, value.elem_type, value.shape,
                                             reason="produced in host memory: bound on CPU, no copy"))
            continue
        observed = _observed_output_shape(evidence, view, value.name)
        shape = _resolved_output_shape(value, dims, observed)
        seen = _observed_shape(observed, len(value.shape)) if value.shape is not None else None
        if shape is not None and seen is not None and seen != shape:
            # the declaration lies (an exporter reused a dim name for a dim of another size): ORT allocates
            plan.entries.append(BindingEntry(
                value.name, Role.OUTPUT, DEVICE, value.elem_type, _dynamic(value.shape),
                reason=f"produced on the device; its declared shape {value.shape} gives {shape} for these inputs but "
                       f"the profiled run produced {seen}: ORT allocates it on the device"))
        elif shape is not None:
            plan.entries.append(BindingEntry(value.name, Role.OUTPUT, DEVICE, value.elem_type, list(shape), preallocate=True,
                                             reason="produced on the device with a shape known before the run: pre-allocated once"))
        else:
            plan.entries.append(BindingEntry(value.name, Role.OUTPUT, DEVICE, value.elem_type, _dynamic(value.shape),
                                             reason="produced on the device with a data-dependent shape: ORT allocates it on the device"))
    _pair_state(evidence, plan)
    # No code without a device: code written for this all-host placement would bind every tensor in host memory
    # and say so in its comments, which is not where a CUDA session places them.
    return replace(plan, code=render_code(evidence, plan)) if device_active else plan


def _not_applicable(evidence: Evidence) -> str:
    """Why a session without an active device provider gets no binding code: not asked for, or asked for and not
    loaded."""
    requested = [p for p in evidence.session.requested_providers if is_device(p)]
    if not requested:
        return ("no device provider was requested (the session runs on "
                f"{', '.join(evidence.session.active_providers) or 'CPUExecutionProvider'}): every tensor lives in "
                "host memory, so there is nothing to bind on a device; check with the CUDA provider (the default) "
                "for binding code")
    why = (f"{requested[0]} was requested but is not active: every tensor lives in host memory, so there is "
           "nothing to bind on a device until the provider loads")
    if evidence.predicted is not None:
        return (f"{why}; the binding code shown is for the placement predicted for {requested[0]} (`prediction.binding` "
                "in the JSON), not run or measured here")
    return f"{why}: fix the provider and check again for binding code"


def _dynamic(shape: list[Dim] | None) -> list[Dim] | None:
    """A declared shape with every non-positive int dim written as None (dynamic), never as a negative size."""
    if shape is None:
        return None
    return [d if not isinstance(d, int) or d > 0 else None for d in shape]


def _pair_state(evidence: Evidence, plan: BindingPlan) -> None:
    """Mark state outputs that feed the next run's inputs; both ends stay on the device."""
    declared = {v.name: v for v in evidence.model.inputs}
    # Compare declared shapes (symbols included) so a pairing does not depend on the sizes of this check;
    # fall back to the fed shape where the model declares none.
    inputs = [(e.name, e.dtype, declared[e.name].shape if declared.get(e.name) and declared[e.name].shape is not None
               else e.shape) for e in plan.inputs if e.place == DEVICE]
    outputs_declared = {v.name: v for v in evidence.model.outputs}
    outputs = [(e.name, e.dtype, outputs_declared[e.name].shape if e.name in outputs_declared else e.shape)
               for e in plan.outputs if e.place == DEVICE and e.preallocate]
    for in_name, out_name in find_state_pairs(inputs, outputs):
        entry_in = plan.entry(in_name, "input")
        entry_out = plan.entry(out_name, "output")
        if entry_in is None or entry_out is None:
            continue
        _replace_entry(plan, entry_in, replace(
            entry_in, state_pair=out_name,
            reason=(f"state: the previous run's output '{out_name}' (same shape and dtype); {entry_in.reason}; "
                    "kept on the device and swapped with it between runs, never copied")))
        _replace_entry(plan, entry_out, replace(
            entry_out, state_pair=in_name,
            reason=(f"state for the next run's input '{in_name}': pre-allocated on the device and swapped "
                    "with it between runs, never copied to host")))


def _replace_entry(plan: BindingPlan, old: BindingEntry, new: BindingEntry) -> None:
    """Put ``new`` in the place of the entry ``old`` (that object) in ``plan.entries``."""
    index = next(i for i, e in enumerate(plan.entries) if e is old)
    plan.entries[index] = new


# --- code generation --------------------------------------------------------------------------------------------


# A variable <v> of the generated code comes with <v>_host and <v>_on_device: all three are kept unique.
_VAR_SUFFIXES = ("", "_host", "_on_device")
# At most 24 characters of the ONNX name (then a number where two would be the same, ``_2``... ``_999``): the
# longest statements that hold no ONNX name, ``<v>_on_device = ort.OrtValue.ortvalue_from_shape_and_type(``
# (55 characters besides <v>) and the torch flavor's ``<v> = torch.from_numpy(<v>_host).to(`` (30 besides two),
# then fit within 88 characters.
_MAX_IDENTIFIER = 24


def code_identifier(name: str, used: set[str]) -> str:
    """An ASCII Python identifier for an ONNX name (any string), at most 24 characters (``_MAX_IDENTIFIER``)
    before a number that keeps it unique: never a keyword, a builtin, a module or variable of the generated code
    (``used``), nor one that another name got; adds it to ``used``.

    ASCII only, since Python folds non-ASCII identifiers by NFKC (a fullwidth ``ｎｐ`` would become ``np``) and
    rejects many letters (``x²``)."""
    # a long ONNX name (a layer's path) would not leave its statements room to fit a line
    ident = re.sub(r"[^A-Za-z0-9_]", "_", name).strip("_")[:_MAX_IDENTIFIER].rstrip("_") or "tensor"
    if ident[0].isdigit() or keyword.iskeyword(ident) or keyword.issoftkeyword(ident):
        ident = "t_" + ident
    base, n = ident, 2
    while any(ident + suffix in used for suffix in _VAR_SUFFIXES):
        ident, n = f"{base}_{n}", n + 1
    used.update(ident + suffix for suffix in _VAR_SUFFIXES)
    return ident


def code_comment(text: str) -> str:
    """Text safe inside a ``# ...`` comment: names from the model cannot end the comment and inject code, and a
    character that does not print (an escape sequence, a bidi override: "Trojan Source") is written as its escape."""
    line = " ".join(str(text).replace("\0", " ").splitlines())
    if line.isprintable():
        return line
    return "".join(c if c.isprintable() else (f"\\u{ord(c):04x}" if ord(c) < 0x10000 else f"\\U{ord(c):08x}")
                   for c in line)


def _np_dtype(dtype: str | None) -> str:
    if dtype in (None, "str"):
        return "object"
    return f"np.{dtype}" if dtype != "bool" else "np.bool_"


def _array_expr(entry: BindingEntry, evidence: Evidence) -> str:
    feeds = {f.name: f for f in evidence.feeds}
    feed = feeds.get(entry.name)
    shape = tuple(feed.shape) if feed else tuple(entry.shape or ())
    dtype = feed.dtype if feed else (entry.dtype or "float32")
    if feed is not None and feed.source == "file":
        return f"np.load(INPUTS_FILE)[{entry.name!r}]"
    if dtype.startswith("float"):
        return f"rng.standard_normal({shape!r}).astype({_np_dtype(dtype)})"
    if dtype == "bool":
        return f"rng.integers(0, 2, size={shape!r}).astype(np.bool_)"
    if dtype == "str":
        return f"np.full({shape!r}, 'a', dtype=object)"
    high = feed.high if feed is not None and feed.high else 4  # below the rows of a table the input indexes
    return f"rng.integers(0, {high}, size={shape!r}).astype({_np_dtype(dtype)})"


_RESERVED = {"np", "ort", "session", "binding", "rng", "outputs", "MODEL", "INPUTS_FILE", "infer", "torch", "cp",
             "result", "values", "name", "value", "numpy", "onnxruntime", "cupy", "o", "feeds",
             # builtins the generated code calls
             "print", "zip", "type", "tuple", "list", "dict", "len", "range", "int", "float", "str"}


@frozen
class CodeNames:
    """The variable each input and output gets in the generated code (the same in every flavor)."""

    inputs: dict[str, str]
    outputs: dict[str, str]


def code_names(plan: BindingPlan) -> CodeNames:
    """Variables of the generated code: ``<var>`` holds an input's array, ``<var>_on_device`` its OrtValue."""
    used = set(_RESERVED)
    inputs = {e.name: code_identifier(e.name, used) for e in plan.inputs}
    outputs = {e.name: code_identifier(e.name, used) for e in plan.outputs if e.place == DEVICE and e.preallocate}
    return CodeNames(inputs, outputs)


def _header(evidence: Evidence, plan: BindingPlan, title: str, extra_imports: list[str],
            provider_options: str = "") -> list[str]:
    model_path = evidence.model.path
    dev = plan.device_id
    lines = [
        code_comment(f"# {title} for {model_path.split('/')[-1]}, generated by ortcopy-doctor {evidence.tool_version} "
                 f"for onnxruntime {evidence.environment.ort_version}"),
        "import numpy as np",
        "import onnxruntime as ort",
        *extra_imports,
        "",
        f"MODEL = {model_path!r}",
    ]
    if any(f.source == "file" for f in evidence.feeds):
        lines.append(f"INPUTS_FILE = {evidence.inputs_file or 'inputs.npz'!r}  # the file passed to --inputs")
    lines += [
        f"session = ort.InferenceSession(MODEL, providers=[('CUDAExecutionProvider', {{'device_id': {dev}{provider_options}}}), 'CPUExecutionProvider'])",
        "binding = session.io_binding()",
        "rng = np.random.default_rng(0)",
        "",
    ]
    return lines


def render_code(evidence: Evidence, plan: BindingPlan, flavor: str = "onnxruntime", dlpack: bool | None = None) -> str:
    """Python that binds this model's inputs and outputs as planned; runnable as printed, laid out within 88
    characters a line where it can be (``codelayout.fit``).

    ``flavor``: onnxruntime (numpy data and OrtValues), torch or cupy (the caller's device tensors, bound
    without copies). ``dlpack``: for torch, bind inputs with ``ort.OrtValue.from_dlpack`` (default: where the
    onnxruntime the evidence was recorded with has it) instead of ``bind_input(..., tensor.data_ptr())``.
    """
    if flavor == "onnxruntime":
        return fit(_render_ort(evidence, plan))
    if flavor in ("torch", "cupy"):
        return fit(_render_tensor_library(evidence, plan, flavor,
                                          _has_from_dlpack(evidence) if dlpack is None else dlpack))
    raise ValueError(f"unknown code flavor {flavor!r}: use one of {', '.join(FLAVORS)}")


def _run_instead(plan: BindingPlan, then: str) -> str:
    """The comment over the code that calls run() where IO binding cannot be used: ``then`` says what the code does
    instead (one line: fit wraps it)."""
    strings = [e.name for e in plan.inputs if e.place == UNBOUND]
    if strings:
        names = ", ".join(map(repr, strings))
        return code_comment(f"# IO binding cannot be used: onnxruntime binds no string tensor ({names}) and "
                            f"run_with_iobinding needs every input bound, so {then} The string inputs go as numpy.")
    return f"# No output can be bound (sequence/map outputs): IO binding needs at least one, so {then}"


def _global_lines(pairs: list[tuple[str, str]], indent: str = "    ") -> list[str]:
    """The ``global`` statements of a function that swaps each pair of variables: one statement where it fits
    within the line width (``codelayout.WIDTH``), else as many as the pairs need, each holding whole pairs while
    they fit (many state pairs, a KV cache of dozens of layers, made a line of thousands of characters)."""
    names = [v for pair in pairs for v in pair]
    one = f"{indent}global {', '.join(names)}"
    if len(one) <= WIDTH:
        return [one]
    lines: list[str] = []
    current: list[str] = []
    for pair in pairs:
        for group in ([list(pair)] if len(f"{indent}global {', '.join(pair)}") <= WIDTH else [[v] for v in pair]):
            if current and len(f"{indent}global {', '.join(current + group)}") > WIDTH:
                lines.append(f"{indent}global {', '.join(current)}")
                current = []
            current += group
    if current:
        lines.append(f"{indent}global {', '.join(current)}")
    return lines


def _swap_line(a: str, b: str, indent: str = "    ") -> str:
    """``a, b = b, a``; with the right side in parentheses where the line is too long, so that fit can break it
    (the same program: the parentheses are no part of the syntax tree)."""
    line = f"{indent}{a}, {b} = {b}, {a}"
    return line if len(line) <= WIDTH else f"{indent}{a}, {b} = ({b}, {a})"


def _render_ort(evidence: Evidence, plan: BindingPlan) -> str:
    device = plan.device_type
    dev = plan.device_id
    names = code_names(plan)
    lines = _header(evidence, plan, "IO binding", [])
    lines.append("# Inputs: replace these arrays with your data.")
    input_vars: dict[str, str] = {}
    for entry in plan.inputs:
        var = names.inputs[entry.name]
        input_vars[entry.name] = f"{var}_on_device" if entry.place == DEVICE else var
        lines.append(f"{var} = {_array_expr(entry, evidence)}")
        if entry.place == DEVICE:
            copy_note = ("the initial state: one copy; later runs take the previous run's output" if entry.state_pair
                         else "one copy, reusable across runs")
            lines.append(f"{var}_on_device = ort.OrtValue.ortvalue_from_numpy({var}, {device!r}, {dev})  # {copy_note}")
            lines.append(f"binding.bind_ortvalue_input({entry.name!r}, {var}_on_device)  "
                         f"# {code_comment(entry.reason)}")
        elif entry.place == UNBOUND:
            lines.append(code_comment(f"# {entry.name!r} is not bound: {entry.reason}"))
        else:
            lines.append(f"binding.bind_cpu_input({entry.name!r}, {var})  # {code_comment(entry.reason)}")
    bound_outputs = [e.name for e in plan.outputs if e.place != UNBOUND]
    if not bound_outputs or any(e.place == UNBOUND for e in plan.inputs):
        # run_with_iobinding needs at least one bound output ("At least one output should be requested",
        # seen with ORT 1.31.1) and every input bound: without, feed the device OrtValues to a plain run() instead.
        feeds = ", ".join(f"{e.name!r}: {input_vars[e.name]}" for e in plan.inputs)
        lines += [
            "",
            _run_instead(plan, "pass the device OrtValues to run() directly; its outputs come back as Python objects."),
            "def infer():",
            f"    return session.run(None, {{{feeds}}})",
            "",
            "outputs = infer()",
            "print([type(o).__name__ for o in outputs])",
        ]
        return "\n".join(lines) + "\n"
    lines += ["", "# Outputs."]
    for entry in plan.outputs:
        if entry.place == UNBOUND:
            lines.append(code_comment(f"# {entry.name!r} is left out: {entry.reason}"))
        elif entry.place == HOST:
            lines.append(f"binding.bind_output({entry.name!r})  # {code_comment(entry.reason)}")
        elif entry.preallocate:
            var = names.outputs[entry.name]
            lines.append(f"{var}_on_device = ort.OrtValue.ortvalue_from_shape_and_type({list(entry.shape or [])!r}, "
                         f"{_np_dtype(entry.dtype)}, {device!r}, {dev})")
            lines.append(f"binding.bind_ortvalue_output({entry.name!r}, {var}_on_device)  "
                         f"# {code_comment(entry.reason)}")
        else:
            lines.append(f"binding.bind_output({entry.name!r}, {device!r}, {dev})  # {code_comment(entry.reason)}")
    pairs = plan.state_pairs
    lines += ["", "def infer():"]
    if pairs:
        lines += _global_lines([(f"{names.inputs[i]}_on_device", f"{names.outputs[o]}_on_device") for i, o in pairs])
    lines.append("    session.run_with_iobinding(binding)  # no copies for what is bound on the device")
    if not pairs:
        lines.append("    return binding.get_outputs()  # OrtValues; .device_name() says where each one lives")
    else:
        lines.append("    outputs = binding.get_outputs()  # OrtValues; .device_name() says where each one lives")
        # a comment is one line a paragraph: fit() wraps it
        lines.append("    # State: this run's output buffer becomes the next run's input, and the old input buffer takes "
                     "the next output. Swapping the bound OrtValues costs no copy; keep a returned state value only "
                     "until the run after next, which writes into its buffer again. The state returned is that buffer: "
                     "what get_outputs() gave follows the rebinding in onnxruntime up to 1.27 (1.30 keeps it).")
        for i, o in pairs:
            a, b = f"{names.inputs[i]}_on_device", f"{names.outputs[o]}_on_device"
            lines.append(_swap_line(a, b))
            lines.append(f"    binding.bind_ortvalue_input({i!r}, {a})")
            lines.append(f"    binding.bind_ortvalue_output({o!r}, {b})")
            lines.append(f"    outputs[{bound_outputs.index(o)}] = {a}")
        lines.append("    return outputs")
    lines += [
        "",
        "outputs = infer()",
        f"for name, value in zip({bound_outputs!r}, outputs):",
        "    print(name, value.device_name(), value.shape())",
        "# Copy to host only what the caller needs there (one copy per output):",
        "# host_outputs = binding.copy_outputs_to_cpu()",
    ]
    return "\n".join(lines) + "\n"


def _has_from_dlpack(evidence: Evidence) -> bool:
    """Whether ``ort.OrtValue.from_dlpack`` exists in the onnxruntime the evidence was recorded with: as recorded
    (``Environment.ort_has_from_dlpack``), else from its version. Never the installed onnxruntime: the same evidence
    gives the same code anywhere. Without it the code uses ``bind_input(..., data_ptr())``, which every version has.
    """
    recorded = evidence.environment.ort_has_from_dlpack
    return recorded if recorded is not None else has_from_dlpack(evidence.environment.ort_version)


def _render_tensor_library(evidence: Evidence, plan: BindingPlan, flavor: str, dlpack: bool) -> str:
    """torch or cupy: inputs and pre-allocated outputs are the library's own device tensors, bound by address."""
    dev = plan.device_id
    names = code_names(plan)
    torch = flavor == "torch"
    lib = "torch" if torch else "cupy"
    if torch:
        imports = ["import torch"]
        device_expr = f"'cuda:{dev}'"
    else:
        imports = ["import cupy as cp"]
        device_expr = ""
    lines = _header(evidence, plan, f"IO binding with {lib} tensors", imports)
    if not torch:
        lines.append(f"cp.cuda.Device({dev}).use()  # cupy allocates on the GPU the session runs on")
    lines.append(f"# Inputs: your {lib} tensors on the GPU (here made from numpy); the host-only ones stay numpy.")

    def to_device(var: str) -> str:
        return f"torch.from_numpy({var}_host).to({device_expr})" if torch else f"cp.asarray({var}_host)"

    def ptr(var: str) -> str:
        return f"{var}.data_ptr()" if torch else f"{var}.data.ptr"

    def shape_of(var: str) -> str:
        return f"tuple({var}.shape)"

    def bind_input_line(entry: BindingEntry, var: str) -> str:
        if torch and dlpack:
            return (f"binding.bind_ortvalue_input({entry.name!r}, ort.OrtValue.from_dlpack({var}))  "
                    f"# zero-copy view of the tensor (DLPack): {code_comment(entry.reason)}")
        return (f"binding.bind_input({entry.name!r}, 'cuda', {dev}, {_np_dtype(entry.dtype)}, {shape_of(var)}, {ptr(var)})  "
                f"# zero-copy: ORT reads the tensor's memory: {code_comment(entry.reason)}")

    def bind_output_line(entry: BindingEntry, var: str) -> str:
        return (f"binding.bind_output({entry.name!r}, 'cuda', {dev}, {_np_dtype(entry.dtype)}, {shape_of(var)}, {ptr(var)})  "
                f"# ORT writes into the tensor: {code_comment(entry.reason)}")

    feed_exprs: dict[str, str] = {}
    for entry in plan.inputs:
        var = names.inputs[entry.name]
        if entry.place == DEVICE and entry.dtype != "str":
            lines.append(f"{var}_host = {_array_expr(entry, evidence)}")
            lines.append(f"{var} = {to_device(var)}  # one copy here; in your code the tensor is already on the GPU")
            lines.append(bind_input_line(entry, var))
            feed_exprs[entry.name] = var
        else:
            lines.append(f"{var} = {_array_expr(entry, evidence)}")
            if entry.place == UNBOUND:
                lines.append(code_comment(f"# {entry.name!r} is not bound: {entry.reason}"))
            else:
                lines.append(f"binding.bind_cpu_input({entry.name!r}, {var})  # {code_comment(entry.reason)}")
            feed_exprs[entry.name] = var
    bound = [e for e in plan.outputs if e.place != UNBOUND]
    if not bound or any(e.place == UNBOUND for e in plan.inputs):
        lines += [
            "",
            _run_instead(plan, "run() takes the inputs as OrtValues viewing the tensors (no copy) and returns Python "
                               "objects."),
            "def infer():",
        ]
        if torch:
            lines.append("    torch.cuda.synchronize()  # ORT runs on its own CUDA stream: finish the writes to the inputs first")
        else:
            lines.append("    cp.cuda.get_current_stream().synchronize()  # ORT runs on its own CUDA stream: finish the writes first")
        feeds = []
        for entry in plan.inputs:
            var = feed_exprs[entry.name]
            if entry.place == DEVICE and entry.dtype != "str":
                feeds.append(f"{entry.name!r}: ort.OrtValue.from_dlpack({var})")
            else:
                feeds.append(f"{entry.name!r}: {var}")
        lines += [
            f"    return session.run(None, {{{', '.join(feeds)}}})",
            "",
            "outputs = infer()",
            "print([type(o).__name__ for o in outputs])",
        ]
        return "\n".join(lines) + "\n"
    lines += ["", "# Outputs."]
    result: list[tuple[str, str]] = []  # (expression, comment)
    for k, entry in enumerate(bound):
        if entry.place == HOST:
            lines.append(f"binding.bind_output({entry.name!r})  # {code_comment(entry.reason)}")
            conv = f"torch.from_numpy(values[{k}].numpy())" if torch else f"values[{k}].numpy()"
            result.append((f"{entry.name!r}: {conv}", "already in host memory"))
        elif entry.preallocate:
            var = names.outputs[entry.name]
            # make_plan preallocates only an output whose every dim is a known int; the field's type (Dim) cannot say so
            shape = tuple(int(d) for d in (entry.shape or []))  # type: ignore[arg-type]
            if torch:
                lines.append(f"{var} = torch.empty({shape!r}, dtype=torch.{_torch_dtype(entry.dtype)}, device={device_expr})")
            else:
                lines.append(f"{var} = cp.empty({shape!r}, dtype={_np_dtype(entry.dtype)})")
            lines.append(bind_output_line(entry, var))
            result.append((f"{entry.name!r}: {var}", "ORT wrote into this tensor"))
        else:
            lines.append(f"binding.bind_output({entry.name!r}, 'cuda', {dev})  # {code_comment(entry.reason)}")
            conv = f"torch.from_dlpack(values[{k}])" if torch else f"cp.from_dlpack(values[{k}])"
            result.append((f"{entry.name!r}: {conv}", "a view of ORT's buffer (DLPack), no copy"))
    for entry in plan.outputs:
        if entry.place == UNBOUND:
            lines.append(code_comment(f"# {entry.name!r} is left out: {entry.reason}"))
    pairs = plan.state_pairs
    lines += ["", "def infer():"]
    if pairs:
        lines += _global_lines([(names.inputs[i], names.outputs[o]) for i, o in pairs])
    if torch:
        lines.append("    torch.cuda.synchronize()  # ORT runs on its own CUDA stream: finish torch's writes to the inputs first")
    else:
        lines.append("    cp.cuda.get_current_stream().synchronize()  # ORT runs on its own CUDA stream: finish cupy's writes first")
    lines.append("    session.run_with_iobinding(binding)  # no copies for what is bound on the device")
    lines.append("    values = binding.get_outputs()")
    lines.append("    result = {")
    for expr, note in result:
        lines.append(f"        {expr},  # {note}")
    lines.append("    }")
    if pairs:
        lines.append("    # State: this run's output tensor becomes the next run's input and the old input takes the next "
                     "output (rebinding addresses, no copy); a returned state tensor is overwritten by the run after next.")
        for i, o in pairs:
            a, b = names.inputs[i], names.outputs[o]
            entry_in = plan.entry(i, "input")
            entry_out = plan.entry(o, "output")
            assert entry_in is not None and entry_out is not None
            lines.append(_swap_line(a, b))
            if torch and dlpack:
                lines.append(f"    binding.bind_ortvalue_input({i!r}, ort.OrtValue.from_dlpack({a}))")
            else:
                lines.append(f"    binding.bind_input({i!r}, 'cuda', {dev}, {_np_dtype(entry_in.dtype)}, {shape_of(a)}, {ptr(a)})")
            lines.append(f"    binding.bind_output({o!r}, 'cuda', {dev}, {_np_dtype(entry_out.dtype)}, {shape_of(b)}, {ptr(b)})")
    lines += [
        "    return result",
        "",
        "outputs = infer()",
        "for name, value in outputs.items():",
        "    print(name, type(value).__name__, tuple(value.shape))",
    ]
    return "\n".join(lines) + "\n"


_TORCH_DTYPES = {"float32": "float32", "float16": "float16", "float64": "float64", "int64": "int64", "int32": "int32",
                 "int16": "int16", "int8": "int8", "uint8": "uint8", "bool": "bool", "uint16": "uint16",
                 "uint32": "uint32", "uint64": "uint64", "bfloat16": "bfloat16"}


def _torch_dtype(dtype: str | None) -> str:
    return _TORCH_DTYPES.get(dtype or "float32", "float32")


def render_cuda_graph_code(evidence: Evidence, plan: BindingPlan) -> str:
    """Python that runs the model through a captured CUDA graph (``enable_cuda_graph``); runnable as printed.

    Only meaningful where nothing blocks capture (advice.cuda_graph_blockers): every input on the device,
    every output pre-allocated. Buffers keep fixed addresses, so state is copied on the device, not swapped.
    """
    device = plan.device_type
    dev = plan.device_id
    names = code_names(plan)
    used = set(_RESERVED) | {v + s for v in (*names.inputs.values(), *names.outputs.values()) for s in _VAR_SUFFIXES}
    lines = _header(evidence, plan, "CUDA graph", [], provider_options=", 'enable_cuda_graph': '1'")
    lines.append("# Every input and output lives at a fixed device address: the captured graph replays with these "
                 "buffers. Give new data with <name>_on_device.update_inplace(array); never rebind.")
    for entry in plan.inputs:
        var = names.inputs[entry.name]
        lines.append(f"{var} = {_array_expr(entry, evidence)}")
        lines.append(f"{var}_on_device = ort.OrtValue.ortvalue_from_numpy({var}, {device!r}, {dev})  # fixed address")
        lines.append(f"binding.bind_ortvalue_input({entry.name!r}, {var}_on_device)  # {code_comment(entry.reason)}")
    for entry in plan.outputs:
        var = names.outputs.get(entry.name) or code_identifier(entry.name, used)
        lines.append(f"{var}_on_device = ort.OrtValue.ortvalue_from_shape_and_type({list(entry.shape or [])!r}, "
                     f"{_np_dtype(entry.dtype)}, {device!r}, {dev})  # fixed address")
        lines.append(f"binding.bind_ortvalue_output({entry.name!r}, {var}_on_device)")
    lines += ["", "def infer():",
              "    session.run_with_iobinding(binding)  # the first runs capture the graph; later runs replay it"]
    for i, o in plan.state_pairs:
        lines.append(f"    {names.inputs[i]}_on_device.update_inplace({names.outputs[o]}_on_device)  "
                     "# state: copied on the device (fixed addresses, so no swap)")
    lines += [
        "    return binding.get_outputs()",
        "",
        "outputs = infer()",
        f"for name, value in zip({[e.name for e in plan.outputs]!r}, outputs):",
        "    print(name, value.device_name(), value.shape())",
    ]
    return fit("\n".join(lines) + "\n")
