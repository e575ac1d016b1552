"""The binding plan: where each input and output should live, and runnable IO-binding code for it.

An input is bound on the device only where a device kernel reads it from device memory; inputs
read only in host memory stay on CPU (binding them on CUDA would add copies, ../shared/docs/ort-notes.md).
Outputs produced on the device are bound there: pre-allocated where the shape is known before the
run, ``bind_output(name, "cuda")`` where it depends on the data. Sequence and map outputs cannot be
bound at all.
"""

from __future__ import annotations

import keyword
import re
from dataclasses import dataclass, field

from .analysis import GraphView, input_dims
from .evidence import Evidence, ValueInfo
from .providers import is_device

DEVICE = "device"
HOST = "host"
UNBOUND = "unbound"


@dataclass
class BindingEntry:
    name: str
    role: str  # input, output
    place: str  # device, host, unbound
    dtype: str | None
    shape: list[object] | None
    preallocate: bool = False
    reason: str = ""


@dataclass
class BindingPlan:
    entries: list[BindingEntry] = field(default_factory=list)
    device_type: str = "cuda"
    device_id: int = 0
    applicable: bool = True
    reason: str = ""
    code: str = ""

    @property
    def inputs(self) -> list[BindingEntry]:
        return [e for e in self.entries if e.role == "input"]

    @property
    def outputs(self) -> list[BindingEntry]:
        return [e for e in self.entries if e.role == "output"]


def _resolved_output_shape(value: ValueInfo, dims: dict[str, int]) -> list[int] | None:
    """The output's shape if every dim is fixed or a symbol that an input fixes; else None (data-dependent)."""
    if value.shape is None:
        return None
    shape: list[int] = []
    for d in value.shape:
        if isinstance(d, int):
            shape.append(d)
        elif isinstance(d, str) and d in dims:
            shape.append(dims[d])
        else:
            return None
    return shape


def make_plan(evidence: Evidence) -> BindingPlan:
    active = evidence.session.active_providers
    plan = BindingPlan(device_id=evidence.session.device_id)
    device_active = bool(active) and is_device(active[0])
    if not device_active:
        plan.applicable = False
        plan.reason = ("the session has no active device provider: every tensor lives in host memory, so there is "
                       "nothing to bind on a device until the provider loads")
    view = GraphView.of(evidence)
    feeds = {f.name: f for f in evidence.feeds}
    for value in evidence.model.inputs:
        feed = feeds.get(value.name)
        uses = view.consumers.get(value.name, [])
        on_device = [u for u in uses if view.reads_on_device(u)]
        if on_device:
            place, reason = DEVICE, f"read on the device by {on_device[0].node.op_type} '{on_device[0].node.name}'"
        elif uses:
            place, reason = HOST, f"read only in host memory (by {uses[0].node.op_type} '{uses[0].node.name}'): binding it on the device would add a copy"
        else:
            place, reason = HOST, "not read by any node"
        plan.entries.append(BindingEntry(value.name, "input", place, feed.dtype if feed else value.elem_type,
                                         list(feed.shape) if feed else value.shape, reason=reason))
    host_side = {m.tensor for m in evidence.memcpy_insertions}
    dims = input_dims(evidence)
    for value in evidence.model.outputs:
        if value.kind != "tensor":
            plan.entries.append(BindingEntry(value.name, "output", UNBOUND, value.type_string, None,
                                             reason=f"a {value.type_string} cannot be bound: read it with session.run()"))
            continue
        producer = view.producers.get(value.name)
        if value.name in host_side or producer is None or not view.writes_on_device(producer):
            plan.entries.append(BindingEntry(value.name, "output", HOST, value.elem_type, value.shape,
                                             reason="produced in host memory: bound on CPU, no copy"))
            continue
        shape = _resolved_output_shape(value, dims)
        if shape is not None:
            plan.entries.append(BindingEntry(value.name, "output", DEVICE, value.elem_type, shape, preallocate=True,
                                             reason="produced on the device with a shape known before the run: pre-allocated once"))
        else:
            plan.entries.append(BindingEntry(value.name, "output", DEVICE, value.elem_type, value.shape,
                                             reason="produced on the device with a data-dependent shape: ORT allocates it on the device"))
    plan.code = render_code(evidence, plan)
    return plan


def _identifier(name: str, used: set[str]) -> str:
    ident = re.sub(r"\W", "_", name).strip("_") or "tensor"
    if ident[0].isdigit() or keyword.iskeyword(ident):
        ident = "t_" + ident
    base, n = ident, 2
    while ident in used:
        ident, n = f"{base}_{n}", n + 1
    used.add(ident)
    return ident


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
    return f"rng.integers(0, 4, size={shape!r}).astype({_np_dtype(dtype)})"


def render_code(evidence: Evidence, plan: BindingPlan) -> str:
    """Python that binds this model's inputs and outputs as planned; runnable as printed."""
    device = plan.device_type
    dev = plan.device_id
    model_path = evidence.model.path
    lines = [
        f"# IO binding for {model_path.split('/')[-1]}, generated by ortcopy-doctor {evidence.tool_version} "
        f"for onnxruntime {evidence.environment.ort_version}",
        "import numpy as np",
        "import onnxruntime as ort",
        "",
        f"MODEL = {model_path!r}",
    ]
    if any(f.source == "file" for f in evidence.feeds):
        lines.append("INPUTS_FILE = 'inputs.npz'  # the file passed to --inputs")
    lines += [
        f"session = ort.InferenceSession(MODEL, providers=[('CUDAExecutionProvider', {{'device_id': {dev}}}), 'CPUExecutionProvider'])",
        "binding = session.io_binding()",
        "rng = np.random.default_rng(0)",
        "",
        "# Inputs: replace these arrays with your data.",
    ]
    used: set[str] = {"np", "ort", "session", "binding", "rng", "outputs", "MODEL", "INPUTS_FILE"}
    input_vars: dict[str, str] = {}
    for entry in plan.inputs:
        var = _identifier(entry.name, used)
        input_vars[entry.name] = f"{var}_on_device" if entry.place == DEVICE else var
        lines.append(f"{var} = {_array_expr(entry, evidence)}")
        if entry.place == DEVICE:
            lines.append(f"{var}_on_device = ort.OrtValue.ortvalue_from_numpy({var}, {device!r}, {dev})  # one copy, reusable across runs")
            lines.append(f"binding.bind_ortvalue_input({entry.name!r}, {var}_on_device)  # {entry.reason}")
        else:
            lines.append(f"binding.bind_cpu_input({entry.name!r}, {var})  # {entry.reason}")
    bound_outputs = [e.name for e in plan.outputs if e.place != UNBOUND]
    if not bound_outputs:
        # run_with_iobinding needs at least one bound output ("At least one output should be requested",
        # seen with ORT 1.31.1): with none, feed the device OrtValues to a plain run() instead.
        feeds = ", ".join(f"{e.name!r}: {input_vars[e.name]}" for e in plan.inputs)
        lines += [
            "",
            "# No output can be bound (sequence/map outputs): IO binding needs at least one, so pass the",
            "# device OrtValues to run() directly; its outputs come back as Python objects.",
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
            lines.append(f"# {entry.name!r} is left out: {entry.reason}")
        elif entry.place == HOST:
            lines.append(f"binding.bind_output({entry.name!r})  # {entry.reason}")
        elif entry.preallocate:
            var = _identifier(entry.name, used)
            lines.append(f"{var}_on_device = ort.OrtValue.ortvalue_from_shape_and_type({list(entry.shape or [])!r}, "
                         f"{_np_dtype(entry.dtype)}, {device!r}, {dev})")
            lines.append(f"binding.bind_ortvalue_output({entry.name!r}, {var}_on_device)  # {entry.reason}")
        else:
            lines.append(f"binding.bind_output({entry.name!r}, {device!r}, {dev})  # {entry.reason}")
    lines += [
        "",
        "def infer():",
        "    session.run_with_iobinding(binding)  # no copies for what is bound on the device",
        "    return binding.get_outputs()  # OrtValues; .device_name() says where each one lives",
        "",
        "outputs = infer()",
        f"for name, value in zip({bound_outputs!r}, outputs):",
        "    print(name, value.device_name(), value.shape())",
        "# Copy to host only what the caller needs there (one copy per output):",
        "# host_outputs = binding.copy_outputs_to_cpu()",
    ]
    return "\n".join(lines) + "\n"
