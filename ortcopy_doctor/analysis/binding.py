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

import msgspec
import hashlib
import keyword
import math
import re
from collections.abc import Callable, Iterable, Sequence
from msgspec.structs import replace

from ortcopy_doctor.analysis.codelayout import WIDTH, fit
from ortcopy_doctor.analysis.copies import (GraphView, _output_event, _shape_and_bytes, copied_by_memcpy_node,
                                            input_dims, measured_events)
from ortcopy_doctor.model.evidence import Dim, Evidence, RuntimeNode, ValueInfo
from ortcopy_doctor.model.format import fmt_shape
# The plan's types live in model/binding.py; named here too, where the public API and older code import them.
from ortcopy_doctor.model.binding import BindingEntry as BindingEntry, BindingPlan as BindingPlan
from ortcopy_doctor.model.binding import StateCandidate as StateCandidate
from ortcopy_doctor.model.vocabulary import BindingPlace as BindingPlace, Role, StateBasis
from ortcopy_doctor.knowledge.ort_versions import has_from_dlpack
from ortcopy_doctor.knowledge.providers import is_device


DEVICE = BindingPlace.DEVICE
HOST = BindingPlace.HOST
UNBOUND = BindingPlace.UNBOUND

FLAVORS = ("onnxruntime", "torch", "cupy")


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
    producer = view.producers.get(name)
    if producer is None:
        return None
    event = _output_event(measured_events(evidence), producer.node.name)
    if event is None or producer.index >= len(event.output_shapes):
        return None
    shape, _, _ = _shape_and_bytes(event.output_shapes[producer.index])
    return shape


# --- state carried between runs ---------------------------------------------------------------------------------
#
# An output is taken as the next run's input only on evidence (StateBasis): the user said so (--state IN=OUT), an
# RNN/GRU/LSTM node takes the input as its initial state and gives the output as its final state, or the names
# follow an exporter's convention for recurrent state (past/present for a KV cache, state/stateN, cache_in/cache_out)
# with shapes that agree. Names and shapes alike without a state word (image_in/image_out of a Sigmoid) are a
# guess: said in the plan, never carried (carrying it made call 2 return sigmoid(sigmoid(x))).

# Affixes that mark the two ends of a state: stripped from the name before comparing the rest.
_OUTPUT_AFFIXES = ("out", "output", "outputs", "new", "next", "updated", "final", "last")
_INPUT_AFFIXES = ("in", "input", "inputs", "prev", "previous", "old", "init", "initial", "last")
# The RNN convention's ends, after a word that names state: h_0/h_n, c0/cn, state/stateN.
_RECURRENT_WORDS = frozenset({"h", "c", "hidden", "cell", "state", "states"})
# Words that name recurrent state by exporters' conventions. "hidden", "h", "c" and "cell" also name activations
# (a transformer block's hidden_states in and out): they pair only through a recurrent node.
_STATE_WORDS = frozenset({"state", "states", "cache", "past", "memory", "mem", "carry", "kv"})
# Ops whose initial-state inputs and final-state outputs are recurrent state: input slot -> output slot.
_RECURRENT_SLOTS = {"LSTM": {5: 1, 6: 2}, "GRU": {5: 1}, "RNN": {5: 1}}
# How far an input or output may lie from the recurrent node's state slot (Cast, Squeeze, Transpose, Identity ...).
_RECURRENT_HOPS = 4


def _tokens(name: str) -> list[str]:
    # "stateN", "h0" split into word + index (state1_out -> state 1 out, h0 -> h 0, stateN -> state n)
    text = re.sub(r"([a-z])([0-9]+)(?=$|[^a-z0-9])", r"\1_\2", name)
    text = re.sub(r"([a-z])([A-Z])(?=$|[^a-z])", r"\1_\2", text).lower()  # stateN -> state_n, hN -> h_n
    parts = [p for p in re.split(r"[^a-z0-9]+", text) if p]
    if len(parts) == 1 and parts[0] in ("hn", "cn", "h0", "c0"):
        parts = [parts[0][0], parts[0][1]]
    return parts


def _canonical(name: str, role: str) -> tuple[tuple[str, ...], bool]:
    """The name with its state affixes removed, and whether it holds a word that names state (_STATE_WORDS)."""
    parts = ["past" if p == "present" else p for p in _tokens(name)]
    affixes = _OUTPUT_AFFIXES if role == "output" else _INPUT_AFFIXES
    end = "n" if role == "output" else "0"
    if len(parts) >= 2 and parts[-1] == end and parts[-2] in _RECURRENT_WORDS:
        parts = parts[:-1]
    # "hidden_states" is a transformer block's activation, not recurrent state
    words = [p for i, p in enumerate(parts) if not (p == "states" and i and parts[i - 1] == "hidden")]
    marked = any(p in _STATE_WORDS for p in words)
    # Strip affixes at either end, one at a time, keeping at least one token.
    changed = True
    while changed and len(parts) > 1:
        changed = False
        if parts[-1] in affixes:
            parts, changed = parts[:-1], True
        elif parts[0] in affixes:
            parts, changed = parts[1:], True
    # "past_key_values.0.key" and "present.0.key": drop the "key values" words that only one side spells out.
    if len(parts) >= 3 and parts[0] == "past" and parts[1:3] == ["key", "values"]:
        parts = ["past"] + parts[3:]
    return tuple(parts), marked


def _shapes_agree(a: Sequence[Dim] | None, b: Sequence[Dim] | None, exact: bool) -> bool:
    """Same rank and every dim the same; where not ``exact``, a symbol agrees with any dim (an exporter names the
    output's dims anew: Silero VAD's stateN is [AddstateN_dim_0, batch, AddstateN_dim_2] for a [2, batch, 128]
    state), a fixed size only with the same size."""
    if a is None or b is None or len(a) != len(b):
        return False
    if exact:
        return all(x == y for x, y in zip(a, b))
    return all(x == y or not isinstance(x, int) or not isinstance(y, int) for x, y in zip(a, b))


def recurrent_links(nodes: Sequence[RuntimeNode]) -> set[tuple[str, str]]:
    """(tensor, tensor) pairs where the first reaches an RNN/GRU/LSTM node's initial state and the second comes from
    its final state of the same slot (initial_h -> Y_h, initial_c -> Y_c), each within a few nodes
    (``_RECURRENT_HOPS``: a Cast, Squeeze or Transpose between)."""
    recurrent = [n for n in nodes if n.op_type in _RECURRENT_SLOTS]
    if not recurrent:
        return set()
    producers: dict[str, RuntimeNode] = {}
    consumers: dict[str, list[RuntimeNode]] = {}
    for node in nodes:
        for name in node.outputs:
            if name:
                producers[name] = node
        for name in node.inputs:
            if name:
                consumers.setdefault(name, []).append(node)

    def reach(tensor: str, step: Callable[[str], Iterable[str]]) -> set[str]:
        seen, frontier = {tensor}, [tensor]
        for _ in range(_RECURRENT_HOPS):
            frontier = [t for f in frontier for t in step(f) if t and t not in seen]
            seen.update(frontier)
        return seen

    def upstream(tensor: str) -> Iterable[str]:
        node = producers.get(tensor)
        return node.inputs if node is not None else ()

    def downstream(tensor: str) -> Iterable[str]:
        return (o for node in consumers.get(tensor, ()) for o in node.outputs)

    links: set[tuple[str, str]] = set()
    for node in recurrent:
        for in_slot, out_slot in _RECURRENT_SLOTS[node.op_type].items():
            if in_slot >= len(node.inputs) or out_slot >= len(node.outputs):
                continue
            if not node.inputs[in_slot] or not node.outputs[out_slot]:
                continue
            for source in reach(node.inputs[in_slot], upstream):
                for sink in reach(node.outputs[out_slot], downstream):
                    links.add((source, sink))
    return links


def find_state_pairs(inputs: Sequence[tuple[str, str | None, Sequence[Dim] | None]],
                     outputs: Sequence[tuple[str, str | None, Sequence[Dim] | None]],
                     given: dict[str, str] | None = None,
                     recurrent: set[tuple[str, str]] | None = None) -> list[StateCandidate]:
    """Inputs and outputs where the output of one run may be the input of the next, each with its basis.

    Each side is (name, dtype, shape), the shapes as sized in this check where known. ``given``: --state IN=OUT
    (input -> output), taken as the user says. ``recurrent``: (input, output) pairs linked through a recurrent node
    (``recurrent_links``). Otherwise names must match once state affixes are removed (state/stateN, state_in/
    state_out, past.0.key/present.0.key, cache_in/cache_out): with a word that names state (_STATE_WORDS) that is
    the convention, and shapes must agree (a symbol with any size); without one it is a guess, and shapes must be
    equal. dtype must be equal for all but a given pair. Each input and each output is in at most one candidate.
    """
    given = given or {}
    recurrent = recurrent or set()
    found: list[StateCandidate] = []
    taken: set[str] = set()
    input_names = {name for name, _, _ in inputs}
    for in_name, in_dtype, in_shape in inputs:
        if in_name in given:
            out_name = given[in_name]
            found.append(StateCandidate(in_name, out_name, StateBasis.GIVEN, f"--state {in_name}={out_name}"))
            taken.add(out_name)
            continue
        for out_name, out_dtype, out_shape in outputs:
            if out_name in taken or out_name == in_name or out_name in input_names or out_name in given.values():
                continue
            if in_dtype != out_dtype:
                continue
            if (in_name, out_name) in recurrent and _shapes_agree(in_shape, out_shape, exact=False):
                found.append(StateCandidate(in_name, out_name, StateBasis.RECURRENT_NODE,
                                            "the initial state of a recurrent node in, its final state out"))
                taken.add(out_name)
                break
        else:
            for out_name, out_dtype, out_shape in outputs:
                if out_name in taken or out_name == in_name or out_name in input_names or in_dtype != out_dtype:
                    continue
                in_key, in_marked = _canonical(in_name, "input")
                out_key, out_marked = _canonical(out_name, "output")
                if in_key != out_key:
                    continue
                if in_marked or out_marked:
                    if not _shapes_agree(in_shape, out_shape, exact=False):
                        continue
                    found.append(StateCandidate(in_name, out_name, StateBasis.CONVENTION,
                                                "named as exporters name recurrent state"))
                elif _shapes_agree(in_shape, out_shape, exact=True):
                    found.append(StateCandidate(in_name, out_name, StateBasis.GUESS,
                                                "names alike and the same shape and dtype, nothing more"))
                else:
                    continue
                taken.add(out_name)
                break
    return found


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
            if host_uses:
                reason += (f" and in host memory by {host_uses[0].node.op_type} '{host_uses[0].node.name}': bound "
                           "again before each run, since ORT copies it to host when it is bound")
        elif uses:
            reader = (host_uses or uses)[0].node
            place, reason = HOST, f"read only in host memory (by {reader.op_type} '{reader.name}'): binding it on the device would add a copy"
        else:
            place, reason = HOST, "not read by any node"
        plan.entries.append(BindingEntry(value.name, Role.INPUT, place, dtype,
                                         list(feed.shape) if feed else value.shape, reason=reason,
                                         rebind=place == DEVICE and bool(host_uses)))
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
        elif shape is not None and 0 in shape:
            # an empty result (no detections): its size depends on the data, and torch and cupy give an empty
            # tensor no address, which bind_output refuses ("data_ptr != 0 was false", fasterrcnn on the H200)
            plan.entries.append(BindingEntry(value.name, Role.OUTPUT, DEVICE, value.elem_type, _dynamic(value.shape),
                                             reason=f"produced on the device, empty in the profiled run ({shape}): its "
                                                    "size depends on the data, so ORT allocates it on the device"))
        elif shape is not None:
            plan.entries.append(BindingEntry(value.name, Role.OUTPUT, DEVICE, value.elem_type, list(shape), preallocate=True,
                                             reason="produced on the device with a shape known before the run: pre-allocated once"))
        else:
            plan.entries.append(BindingEntry(value.name, Role.OUTPUT, DEVICE, value.elem_type, _dynamic(value.shape),
                                             reason="produced on the device with a data-dependent shape: ORT allocates it on the device"))
    _pair_state(evidence, plan, view)
    # No code without a device: code written for this all-host placement would bind every tensor in host memory
    # and say so in its comments, which is not where a CUDA session places them.
    if not device_active:
        return plan
    code = render_code(evidence, plan)
    verdict = code_verdict(evidence, "plan", code)
    return replace(plan, code=code if verdict.offered else "", code_check=verdict.text)


class CodeVerdict(msgspec.Struct, frozen=True):
    """Whether a generated code block is offered, and what its check (``Evidence.code_checks``) says, in words."""

    offered: bool
    text: str
    status: str = ""  # the check's status; "" where none ran for this code


def code_sha256(code: str) -> str:
    """The digest a ``CodeCheck`` keeps of the code it ran: a report offers a block only for this very text."""
    return hashlib.sha256(code.encode("utf-8")).hexdigest()


def cpu_provider_code(evidence: Evidence) -> str:
    """The code of the CPU-provider recommendation (OCD014, ``Variant.CPU_PROVIDER``): a session on the CPU provider
    with ORT's default session options (as the provider choice measured it) and ``infer(feeds)``, plain ``run()``
    of the inputs the program has. Run as printed next to CUDA's plain run() by the provider choice (block
    ``cpu_provider``) before a report offers it."""
    names = [f.name for f in evidence.feeds]
    example = ", ".join(f"{n!r}: ..." for n in names)
    return "\n".join([
        f"# {evidence.model.path.rsplit('/', 1)[-1]} on the CPU provider, generated by ortcopy-doctor: faster than CUDA",
        "# for this model at the check's inputs (OCD014); ORT's default session options (one thread per core)",
        "import onnxruntime as ort",
        "",
        f"MODEL = {evidence.model.path!r}",
        "session = ort.InferenceSession(MODEL, providers=['CPUExecutionProvider'])",
        "",
        "",
        "def infer(feeds):",
        f'    """feeds: {{{example}}}, numpy arrays as for plain run(); the outputs as run() gives them."""',
        "    return session.run(None, feeds)",
        "",
    ])


def code_verdict(evidence: Evidence, block: str, code: str) -> CodeVerdict:
    """Whether ``code`` (block ``block``: plan, plan_torch, plan_cupy, all_device, cuda_graph) is offered: not where
    its check ran this very code and it raised or gave other outputs than plain run(). Unchecked code (a static
    prediction, evidence recorded before the checks, a library missing where the check ran) is shown, saying so."""
    digest = code_sha256(code)
    check = next((c for c in evidence.code_checks if c.block == block), None)
    if check is None:
        if evidence.mode == "static":
            return CodeVerdict(True, "not run: a static prediction runs nothing (check where the model runs checks it)")
        return CodeVerdict(True, "not run next to plain run(): the evidence holds no check of it (recorded before "
                                 "ortcopy-doctor ran its code, or the check could not run)")
    if check.status == "not_run":
        return CodeVerdict(True, f"not run: {check.detail}", check.status)
    if check.code_sha256 != digest:
        return CodeVerdict(True, "not run next to plain run(): the code checked was generated differently (another "
                                 "ortcopy-doctor version)")
    if check.status == "matched" and block == "cpu_provider":
        floats = f"; {check.detail} (TF32 matmuls and summation order)" if check.detail else ""
        return CodeVerdict(True, "checked: run as printed with the check's inputs, the outputs of CUDA's plain run() "
                                 f"(names, shapes, dtypes, integers exactly{floats})", check.status)
    if check.status == "matched":
        where = "on the CUDA EP" if check.device == "cuda" else "on CPU OrtValues ('cpu' for 'cuda'; no GPU here)"
        random = f"; {', '.join(check.nondeterministic)} vary by run: compared by shape" if check.nondeterministic else ""
        return CodeVerdict(True, f"checked {where}: run as printed for {check.calls} calls with different inputs, the "
                                 f"same outputs as plain run(){random}", check.status)
    what = "raised" if check.status == "failed" else "gave other outputs than plain run()"
    return CodeVerdict(False, f"not offered: run as printed, it {what}: {check.detail}", check.status)


def all_device_plan(evidence: Evidence, plan: BindingPlan) -> BindingPlan | str:
    """The "everything bound on the device" variant of ``plan``, with its code: every input a device OrtValue and
    every output bound on the device, the tensors the plan keeps on the host too (ORT then copies them for the CPU
    nodes that read or write them); state carried as the plan carries it. Or why it cannot be bound so: a sequence
    or map output, a string input."""
    if not plan.applicable:
        return plan.reason
    entries: list[BindingEntry] = []
    for entry in plan.entries:
        if entry.place == UNBOUND:
            value = next((v for v in (*evidence.model.inputs, *evidence.model.outputs) if v.name == entry.name), None)
            kind = value.type_string if value is not None else entry.dtype
            return f"{entry.role} '{entry.name}' ({kind}) cannot be bound on the device: {entry.reason}"
        if entry.place == HOST:
            where = "read" if entry.role == "input" else "produced"
            entry = replace(entry, place=DEVICE, preallocate=False, rebind=entry.role == "input",
                            reason=f"bound on the device although {where} in host memory (everything-bound variant: "
                                   "ORT copies it for the CPU node" + (", when it is bound: bound again before each run)"
                                                                      if entry.role == "input" else ")"))
        entries.append(entry)
    everything = replace(plan, entries=entries, possible_state=[])
    return replace(everything, code=render_code(evidence, everything))


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


def _state_shape(entry: BindingEntry, declared: dict[str, ValueInfo]) -> list[Dim] | None:
    """The shape of a planned input or output as this check sized it (fed, observed or resolved), else as declared."""
    if entry.shape is not None and all(isinstance(d, int) and d >= 0 for d in entry.shape):
        return entry.shape
    value = declared.get(entry.name)
    return value.shape if value is not None and value.shape is not None else entry.shape


def _pair_state(evidence: Evidence, plan: BindingPlan, view: GraphView) -> None:
    """Mark state outputs that feed the next run's inputs, on evidence only (``find_state_pairs``); both ends stay
    on the device. A guess goes to ``plan.possible_state`` and the code does not carry it."""
    declared = {v.name: v for v in (*evidence.model.inputs, *evidence.model.outputs)}
    inputs = [(e.name, e.dtype, _state_shape(e, declared)) for e in plan.inputs if e.place == DEVICE]
    outputs = [(e.name, e.dtype, _state_shape(e, declared)) for e in plan.outputs if e.place == DEVICE]
    given = {i: o for i, o in evidence.given_state.items()}
    recurrent = recurrent_links(evidence.nodes)
    for candidate in find_state_pairs(inputs, outputs, given, recurrent):
        entry_in = plan.entry(candidate.input, "input")
        entry_out = plan.entry(candidate.output, "output")
        if entry_in is None or entry_out is None:
            continue
        if candidate.basis == StateBasis.GUESS:
            plan.possible_state.append(candidate)
            continue
        if not entry_out.preallocate:
            # The state out has the state in's shape (it is the next run's input): pre-allocated at that shape
            # where this check sized the input and no run produced another (an exporter names the output's dims
            # anew, so its declaration alone does not size it).
            shape = entry_in.shape
            if shape is None or not all(isinstance(d, int) and d >= 0 for d in shape):
                plan.possible_state.append(replace(candidate, detail=(
                    f"{candidate.detail}; its size is not known here ({fmt_shape(entry_in.shape)}), so the code "
                    "cannot pre-allocate it: size the dims (--dim) for code that carries it")))
                continue
            observed = _observed_output_shape(evidence, view, entry_out.name)
            if observed is not None and list(observed) != list(shape):
                plan.possible_state.append(replace(candidate, detail=(
                    f"{candidate.detail}; the run produced {fmt_shape(observed)} for an input of "
                    f"{fmt_shape(shape)}, so it is not the same tensor")))
                continue
            entry_out = replace(entry_out, shape=list(shape), preallocate=True)
            _replace_entry(plan, plan.entry(candidate.output, "output"), entry_out)  # type: ignore[arg-type]
        why = {StateBasis.GIVEN: f"as --state {candidate.input}={candidate.output} says",
               StateBasis.RECURRENT_NODE: "a recurrent node's initial state in, its final state out",
               StateBasis.CONVENTION: "named as exporters name recurrent state"}[candidate.basis]
        _replace_entry(plan, entry_in, replace(
            entry_in, state_pair=candidate.output, state_basis=candidate.basis,
            reason=(f"state: the previous run's output '{candidate.output}' ({why}); {entry_in.reason}; "
                    "kept on the device and swapped with it between runs, never copied")))
        _replace_entry(plan, entry_out, replace(
            entry_out, state_pair=candidate.input, state_basis=candidate.basis,
            reason=(f"state for the next run's input '{candidate.input}' ({why}): pre-allocated on the device and "
                    "swapped with it between runs, never copied to host")))


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


def value_literal(dtype: str, text: str) -> str:
    """A Python literal of ``--value``'s text as the check parsed it for ``dtype`` (collect/feeds.value_array)."""
    if dtype == "bool":
        return "True" if text.strip().lower() in ("true", "1") else "False"
    if dtype == "str":
        return repr(text)
    if dtype.startswith(("int", "uint")):
        return str(int(text))
    number = float(text)
    return repr(number) if math.isfinite(number) else f"float({text.strip()!r})"


class DimConstant(msgspec.Struct, frozen=True):
    """A dynamic dim of the inputs, named in the generated code: its size as this check fed it, and why."""

    name: str  # the Python constant (BATCH)
    size: int
    symbol: str  # the model's symbol, or "" for a dim the model leaves unnamed (-1, 0, none)
    comment: str


class CodeSizes(msgspec.Struct, frozen=True):
    """The sizes the generated code feeds: one constant per dynamic dim, each input's shape written with them."""

    constants: list[DimConstant]
    shapes: dict[str, str]  # input -> "(BATCH, 3, HEIGHT, WIDTH)"
    by_symbol: dict[str, str]  # symbol -> constant

    def shape_text(self, shape: Sequence[Dim] | None, declared: Sequence[Dim] | None) -> str:
        """``shape`` (a concrete shape) as a list, a dim the model declares as a symbol of a constant written as it."""
        dims = list(shape or [])
        if declared is None or len(declared) != len(dims):
            return repr(dims)
        return "[" + ", ".join(self.by_symbol.get(d, repr(s)) if isinstance(d, str) else repr(s)
                               for s, d in zip(dims, declared)) + "]"


def code_sizes(evidence: Evidence, plan: BindingPlan) -> CodeSizes:
    """The constants for the dynamic dims of the synthesized inputs (one per symbol, in the inputs' order) and each
    synthesized input's shape written with them, so a user sets a size in one place; the comment says where each
    size came from (taken as 1 since nothing sized it, or as the check was told)."""
    feeds = {f.name: f for f in evidence.feeds}
    declared = {v.name: v for v in evidence.model.inputs}
    assumed = {(a.input, a.axis): a for a in evidence.assumed_dims}
    used = set(_RESERVED) | {"MODEL", "INPUTS_FILE"}
    # A symbol is one size only where every dim it names was fed that size: paddle2onnx writes '?' for every
    # unknown dim (PP-OCR's classifier: [-1, 3, '?', '?'] fed 48 x 192), which is no name of one dim.
    sizes_of: dict[str, set[int]] = {}
    for entry in plan.inputs:
        feed, value = feeds.get(entry.name), declared.get(entry.name)
        if feed is not None and value is not None and value.shape is not None and len(value.shape) == len(feed.shape):
            for d, size in zip(value.shape, feed.shape):
                if isinstance(d, str):
                    sizes_of.setdefault(d, set()).add(int(size))
    shared = {d for d, found in sizes_of.items() if len(found) == 1 and d.strip("?")}
    constants: list[DimConstant] = []
    by_symbol: dict[str, str] = {}
    shapes: dict[str, str] = {}
    for entry in plan.inputs:
        feed = feeds.get(entry.name)
        value = declared.get(entry.name)
        if feed is None or feed.source != "synthesized":
            continue
        dims = value.shape if value is not None and value.shape is not None and len(value.shape) == len(feed.shape) \
            else None
        parts: list[str] = []
        for axis, size in enumerate(feed.shape):
            d = dims[axis] if dims is not None else size
            if isinstance(d, int) and d > 0:
                parts.append(repr(size))
                continue
            symbol = d if isinstance(d, str) and d in shared else ""
            if symbol and symbol in by_symbol:
                parts.append(by_symbol[symbol])
                continue
            base = re.sub(r"[^A-Za-z0-9]+", "_", symbol).strip("_").upper()[:_MAX_IDENTIFIER] if symbol else \
                f"{code_identifier(entry.name, set()).upper()}_DIM{axis}"
            if not base or base[0].isdigit():
                base = f"DIM_{base}"
            name, n = base, 2
            while name in used:
                name, n = f"{base}_{n}", n + 1
            used.add(name)
            guess = assumed.get((entry.name, axis))
            what = f"'{symbol}'" if symbol else f"dim {axis} of '{entry.name}' (declared {d!r})"
            if guess is not None and guess.reason:
                why = f"{what} chosen as {size}: {guess.reason} ({guess.flag})"
            elif guess is not None:
                why = f"{what} taken as {size}: nothing sized it ({guess.flag})"
            else:
                why = f"{what} as this check fed it"
            constants.append(DimConstant(name, int(size), symbol, why))
            if symbol:
                by_symbol[symbol] = name
            parts.append(name)
        shapes[entry.name] = "(" + ", ".join(parts) + ("," if len(parts) == 1 else "") + ")"
    return CodeSizes(constants, shapes, by_symbol)


def _array_expr(entry: BindingEntry, evidence: Evidence, sizes: CodeSizes) -> str:
    """The array the generated code feeds ``entry``: what the check fed, as it fed it (the --inputs file loaded,
    the --value literally, a synthesized one from the same seed at the sizes of ``sizes``' constants)."""
    feeds = {f.name: f for f in evidence.feeds}
    feed = feeds.get(entry.name)
    shape = tuple(feed.shape) if feed else tuple(entry.shape or ())
    shape_text = sizes.shapes.get(entry.name, repr(shape))
    dtype = feed.dtype if feed else (entry.dtype or "float32")
    if feed is not None and feed.source == "file":
        return f"np.load(INPUTS_FILE)[{entry.name!r}]"
    if feed is not None and feed.source == "value" and feed.value is not None:
        # the value given with --value, as the check fed it (a random one failed: Silero VAD's sr)
        return f"np.full({shape!r}, {value_literal(dtype, feed.value)}, dtype={_np_dtype(dtype)})"
    if dtype.startswith("float"):
        return f"rng.standard_normal({shape_text}).astype({_np_dtype(dtype)})"
    if dtype == "bool":
        return f"rng.integers(0, 2, size={shape_text}).astype(np.bool_)"
    if dtype == "str":
        return f"np.full({shape_text}, 'a', dtype=object)"
    high = feed.high if feed is not None and feed.high else 4  # below the rows of a table the input indexes
    return f"rng.integers(0, {high}, size={shape_text}).astype({_np_dtype(dtype)})"


def _declared_output_shapes(evidence: Evidence, plan: BindingPlan) -> dict[str, list[Dim] | None]:
    """Each output's declared shape, a state output's as its input declares it (it is the next run's input; an
    exporter names the output's dims anew)."""
    shapes = {v.name: v.shape for v in evidence.model.outputs}
    inputs = {v.name: v.shape for v in evidence.model.inputs}
    for entry in plan.outputs:
        if entry.state_pair and entry.state_pair in inputs:
            shapes[entry.name] = inputs[entry.state_pair]
    return shapes


def _size_lines(sizes: CodeSizes) -> list[str]:
    """The constants' lines (none where every dim is fixed)."""
    if not sizes.constants:
        return []
    lines = ["# Sizes of the dynamic dims, as this check fed them: set yours here."]
    lines += [f"{c.name} = {c.size}  # {code_comment(c.comment)}" for c in sizes.constants]
    return lines + [""]


_RESERVED = {"np", "ort", "session", "binding", "rng", "outputs", "MODEL", "INPUTS_FILE", "infer", "torch", "cp",
             "result", "values", "name", "value", "numpy", "onnxruntime", "cupy", "o", "feeds",
             # builtins the generated code calls
             "print", "zip", "type", "tuple", "list", "dict", "len", "range", "int", "float", "str"}


class CodeNames(msgspec.Struct, frozen=True):
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


def _input_rebind_lines(plan: BindingPlan, bind: Callable[[BindingEntry], str]) -> list[str]:
    """infer()'s lines that bind again each device input a CPU node reads (``BindingEntry.rebind``): ORT copies such
    an input to host when it is bound, so data written into its device buffer after the bind would not reach the
    CPU node (on the H200, everything bound on the device gave other outputs than plain run() from the second call
    of an all-CPU ai.onnx.ml model: its inputs were written with update_inplace and not bound again)."""
    lines = []
    for entry in plan.inputs:
        if entry.rebind and entry.place == DEVICE and not entry.state_pair:
            lines.append(f"    {bind(entry)}  # a CPU node reads it: ORT copies it to host as it is bound")
    return lines


def _rebind_lines(plan: BindingPlan, evidence: Evidence, device: str, dev: int) -> list[str]:
    """infer()'s first lines: every output ORT allocates whose shape is not fixed, bound again before each run. The
    binding keeps the buffer ORT allocated in the last run, and a run whose output has another shape then fails
    ("The output OrtValue provided for output 'idx' ... has shape {1,2} but the computed output shape for this run is
    {1,3}", onnxruntime 1.31.1, seen on CPU); bound again, ORT allocates it anew."""
    declared = {v.name: v.shape for v in evidence.model.outputs}
    dims = input_dims(evidence)
    lines = []
    for entry in plan.outputs:
        if entry.place == UNBOUND or entry.preallocate:
            continue
        shape = declared.get(entry.name)
        if shape is not None and all((isinstance(d, int) and d > 0) or (isinstance(d, str) and d in dims)
                                     for d in shape):
            continue  # fixed by the inputs' shapes: the buffer of the last run fits
        if entry.place == HOST:
            lines.append(f"    binding.bind_output({entry.name!r})  # its shape varies: ORT allocates it anew each run")
        else:
            lines.append(f"    binding.bind_output({entry.name!r}, {device!r}, {dev})  "
                         "# its shape varies: ORT allocates it anew each run")
    return lines


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
    sizes = code_sizes(evidence, plan)
    outputs_declared = _declared_output_shapes(evidence, plan)
    lines = _header(evidence, plan, "IO binding", []) + _size_lines(sizes)
    lines.append("# Inputs: replace these arrays with your data.")
    input_vars: dict[str, str] = {}
    for entry in plan.inputs:
        var = names.inputs[entry.name]
        input_vars[entry.name] = f"{var}_on_device" if entry.place == DEVICE else var
        lines.append(f"{var} = {_array_expr(entry, evidence, sizes)}")
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
            shape = sizes.shape_text(entry.shape, outputs_declared.get(entry.name))
            lines.append(f"{var}_on_device = ort.OrtValue.ortvalue_from_shape_and_type({shape}, "
                         f"{_np_dtype(entry.dtype)}, {device!r}, {dev})")
            lines.append(f"binding.bind_ortvalue_output({entry.name!r}, {var}_on_device)  "
                         f"# {code_comment(entry.reason)}")
        else:
            lines.append(f"binding.bind_output({entry.name!r}, {device!r}, {dev})  # {code_comment(entry.reason)}")
    pairs = plan.state_pairs
    lines += ["", "def infer():"]
    if pairs:
        lines += _global_lines([(f"{names.inputs[i]}_on_device", f"{names.outputs[o]}_on_device") for i, o in pairs])
    lines += _input_rebind_lines(plan, lambda e: f"binding.bind_ortvalue_input({e.name!r}, "
                                                 f"{names.inputs[e.name]}_on_device)")
    lines += _rebind_lines(plan, evidence, device, dev)
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
    sizes = code_sizes(evidence, plan)
    lines = _header(evidence, plan, f"IO binding with {lib} tensors", imports) + _size_lines(sizes)
    if not torch:
        lines.append(f"cp.cuda.Device({dev}).use()  # cupy allocates on the GPU the session runs on")
    lines.append(f"# Inputs: your {lib} tensors on the GPU (here made from numpy); the host-only ones stay numpy.")
    input_lines, feed_exprs = _library_inputs(evidence, plan, sizes, names, torch, dlpack, dev, device_expr)
    lines += input_lines
    bound = [e for e in plan.outputs if e.place != UNBOUND]
    if not bound or any(e.place == UNBOUND for e in plan.inputs):
        return "\n".join(lines + _library_run_without_binding(plan, feed_exprs, torch)) + "\n"
    lines += ["", "# Outputs."]
    output_lines, result = _library_outputs(evidence, plan, bound, sizes, names, torch, dev, device_expr)
    lines += output_lines
    lines += _library_infer(evidence, plan, names, result, torch, dlpack, dev)
    return "\n".join(lines) + "\n"


def _library_ptr(var: str, torch: bool) -> str:
    """The expression of the device address of the tensor ``var`` (torch or cupy)."""
    return f"{var}.data_ptr()" if torch else f"{var}.data.ptr"


def _library_bind_input(entry: BindingEntry, var: str, torch: bool, dlpack: bool, dev: int) -> str:
    """The line that binds the device tensor ``var`` as the input ``entry``: through DLPack (torch, where ``dlpack``)
    or by its address."""
    if torch and dlpack:
        return (f"binding.bind_ortvalue_input({entry.name!r}, ort.OrtValue.from_dlpack({var}))  "
                f"# zero-copy view of the tensor (DLPack): {code_comment(entry.reason)}")
    return (f"binding.bind_input({entry.name!r}, 'cuda', {dev}, {_np_dtype(entry.dtype)}, tuple({var}.shape), "
            f"{_library_ptr(var, torch)})  # zero-copy: ORT reads the tensor's memory: {code_comment(entry.reason)}")


def _library_inputs(evidence: Evidence, plan: BindingPlan, sizes: CodeSizes, names: CodeNames, torch: bool,
                    dlpack: bool, dev: int, device_expr: str) -> tuple[list[str], dict[str, str]]:
    """The inputs: each one placed on the device made a library tensor there (from numpy) and bound; the others
    numpy arrays, bound on the CPU or left unbound. Returns the lines and each input's variable."""
    lines: list[str] = []
    feed_exprs: dict[str, str] = {}
    for entry in plan.inputs:
        var = names.inputs[entry.name]
        if entry.place == DEVICE and entry.dtype != "str":
            to_device = f"torch.from_numpy({var}_host).to({device_expr})" if torch else f"cp.asarray({var}_host)"
            lines.append(f"{var}_host = {_array_expr(entry, evidence, sizes)}")
            lines.append(f"{var} = {to_device}  # one copy here; in your code the tensor is already on the GPU")
            lines.append(_library_bind_input(entry, var, torch, dlpack, dev))
            feed_exprs[entry.name] = var
        else:
            lines.append(f"{var} = {_array_expr(entry, evidence, sizes)}")
            if entry.place == UNBOUND:
                lines.append(code_comment(f"# {entry.name!r} is not bound: {entry.reason}"))
            else:
                lines.append(f"binding.bind_cpu_input({entry.name!r}, {var})  # {code_comment(entry.reason)}")
            feed_exprs[entry.name] = var
    return lines, feed_exprs


def _library_run_without_binding(plan: BindingPlan, feed_exprs: dict[str, str], torch: bool) -> list[str]:
    """Where no output is bound or an input cannot be: an ``infer()`` that calls run() with OrtValues viewing the
    device tensors (no copy), and the call."""
    lines = [
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
    return lines + [
        f"    return session.run(None, {{{', '.join(feeds)}}})",
        "",
        "outputs = infer()",
        "print([type(o).__name__ for o in outputs])",
    ]


def _library_outputs(evidence: Evidence, plan: BindingPlan, bound: list[BindingEntry], sizes: CodeSizes,
                     names: CodeNames, torch: bool, dev: int,
                     device_expr: str) -> tuple[list[str], list[tuple[str, str]]]:
    """The outputs bound: in host memory, into a library tensor allocated before the run, or on the device where ORT
    allocates (read through DLPack); the others said to be left out. Returns the lines and, for each bound
    output, the expression ``infer()`` returns it as, with a comment."""
    lines: list[str] = []
    outputs_declared = _declared_output_shapes(evidence, plan)
    result: list[tuple[str, str]] = []  # (expression, comment)
    for k, entry in enumerate(bound):
        if entry.place == HOST:
            lines.append(f"binding.bind_output({entry.name!r})  # {code_comment(entry.reason)}")
            conv = f"torch.from_numpy(values[{k}].numpy())" if torch else f"values[{k}].numpy()"
            result.append((f"{entry.name!r}: {conv}", "already in host memory"))
        elif entry.preallocate:
            var = names.outputs[entry.name]
            # make_plan preallocates only an output whose every dim is a known int
            shape = sizes.shape_text(entry.shape, outputs_declared.get(entry.name))
            shape = f"({shape[1:-1]}{',' if len(entry.shape or []) == 1 else ''})"  # a tuple, as torch and cupy print it
            if torch:
                lines.append(f"{var} = torch.empty({shape}, dtype=torch.{_torch_dtype(entry.dtype)}, device={device_expr})")
            else:
                lines.append(f"{var} = cp.empty({shape}, dtype={_np_dtype(entry.dtype)})")
            lines.append(f"binding.bind_output({entry.name!r}, 'cuda', {dev}, {_np_dtype(entry.dtype)}, tuple({var}.shape), "
                         f"{_library_ptr(var, torch)})  # ORT writes into the tensor: {code_comment(entry.reason)}")
            result.append((f"{entry.name!r}: {var}", "ORT wrote into this tensor"))
        else:
            lines.append(f"binding.bind_output({entry.name!r}, 'cuda', {dev})  # {code_comment(entry.reason)}")
            conv = f"torch.from_dlpack(values[{k}])" if torch else f"cp.from_dlpack(values[{k}])"
            result.append((f"{entry.name!r}: {conv}", "a view of ORT's buffer (DLPack), no copy"))
    for entry in plan.outputs:
        if entry.place == UNBOUND:
            lines.append(code_comment(f"# {entry.name!r} is left out: {entry.reason}"))
    return lines, result


def _library_infer(evidence: Evidence, plan: BindingPlan, names: CodeNames, result: list[tuple[str, str]],
                   torch: bool, dlpack: bool, dev: int) -> list[str]:
    """``infer()`` with the binding: the library's writes finished, inputs rebound, the run, the outputs returned
    as ``result`` says, then the state tensors swapped for the next run (rebinding addresses); and the call."""
    pairs = plan.state_pairs
    lines = ["", "def infer():"]
    if pairs:
        lines += _global_lines([(names.inputs[i], names.outputs[o]) for i, o in pairs])
    if torch:
        lines.append("    torch.cuda.synchronize()  # ORT runs on its own CUDA stream: finish torch's writes to the inputs first")
    else:
        lines.append("    cp.cuda.get_current_stream().synchronize()  # ORT runs on its own CUDA stream: finish cupy's writes first")
    lines += _input_rebind_lines(
        plan, lambda e: _library_bind_input(e, names.inputs[e.name], torch, dlpack, dev).split("  #")[0])
    lines += _rebind_lines(plan, evidence, "cuda", dev)
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
                lines.append(f"    binding.bind_input({i!r}, 'cuda', {dev}, {_np_dtype(entry_in.dtype)}, tuple({a}.shape), "
                             f"{_library_ptr(a, torch)})")
            lines.append(f"    binding.bind_output({o!r}, 'cuda', {dev}, {_np_dtype(entry_out.dtype)}, tuple({b}.shape), "
                         f"{_library_ptr(b, torch)})")
    return lines + [
        "    return result",
        "",
        "outputs = infer()",
        "for name, value in outputs.items():",
        "    print(name, type(value).__name__, tuple(value.shape))",
    ]


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
    sizes = code_sizes(evidence, plan)
    outputs_declared = _declared_output_shapes(evidence, plan)
    lines = _header(evidence, plan, "CUDA graph", [], provider_options=", 'enable_cuda_graph': '1'") + _size_lines(sizes)
    lines.append("# Every input and output lives at a fixed device address: the captured graph replays with these "
                 "buffers. Give new data with <name>_on_device.update_inplace(array); never rebind.")
    for entry in plan.inputs:
        var = names.inputs[entry.name]
        lines.append(f"{var} = {_array_expr(entry, evidence, sizes)}")
        lines.append(f"{var}_on_device = ort.OrtValue.ortvalue_from_numpy({var}, {device!r}, {dev})  # fixed address")
        lines.append(f"binding.bind_ortvalue_input({entry.name!r}, {var}_on_device)  # {code_comment(entry.reason)}")
    for entry in plan.outputs:
        var = names.outputs.get(entry.name) or code_identifier(entry.name, used)
        lines.append(f"{var}_on_device = ort.OrtValue.ortvalue_from_shape_and_type("
                     f"{sizes.shape_text(entry.shape, outputs_declared.get(entry.name))}, "
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
