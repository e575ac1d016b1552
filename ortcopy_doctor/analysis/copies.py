"""From evidence to the copies of one run: where each tensor lives, and what crosses host<->device.

Four kinds of host<->device transfer (docs/ort-notes.md): feed copies (a host input
consumed on the device), fetch copies (an output produced on the device returned to host), Memcpy
nodes ORT inserted at a CPU/device boundary, and transfers inside a kernel (NonZero reads its count
back). Without a CUDA trace, feed and fetch copies are derived from placement and the kernels'
host-memory arguments; Memcpy nodes come from the profile and the log.
"""

from __future__ import annotations

import msgspec
from collections import defaultdict
from collections.abc import Container, Iterable, Sequence
from typing import Optional

from ortcopy_doctor.knowledge import kernel_memory
from ortcopy_doctor.model.copies import Copy
from ortcopy_doctor.model.vocabulary import (
    DEVICE_TO_HOST,
    FEED,
    FETCH,
    HOST_TO_DEVICE,
    IN_KERNEL,
    MEMCPY_NODE,
    MEMCPY_OPS,
    CopySource,
)
from ortcopy_doctor.analysis.dimexpr import SymbolSizes
from ortcopy_doctor.model.evidence import Dim, Evidence, Feed, MemcpyInsertion, NodeEvent, RuntimeNode, ValueInfo
from ortcopy_doctor.knowledge.model_file import dtype_itemsize
from ortcopy_doctor.analysis.profile import _PROFILE_TYPES, tensor_bytes
from ortcopy_doctor.knowledge.providers import CPU, is_device, short


class TensorUse(msgspec.Struct, frozen=True):
    """One use of a tensor: the node, and the index of the tensor among its inputs (or outputs, for a producer)."""

    node: RuntimeNode
    index: int


class GraphView(msgspec.Struct, frozen=True):
    """Producers and consumers of each tensor in the graph ORT ran."""

    producers: dict[str, TensorUse]
    consumers: dict[str, list[TensorUse]]
    opsets: dict[str, int]

    @classmethod
    def of(cls, evidence: Evidence) -> GraphView:
        """The view of the nodes in ``evidence`` (the graph ORT ran), with the model's opsets."""
        return cls.of_nodes(evidence.nodes, evidence.model.opsets)

    @classmethod
    def of_nodes(cls, nodes: Iterable[RuntimeNode], opsets: dict[str, int]) -> GraphView:
        """The view of nodes that carry their providers (the graph ORT ran, or a prediction), under ``opsets``."""
        producers: dict[str, TensorUse] = {}
        consumers: dict[str, list[TensorUse]] = defaultdict(list)
        for node in nodes:
            for i, name in enumerate(node.outputs):
                if name:
                    producers[name] = TensorUse(node, i)
            for i, name in enumerate(node.inputs):
                if name:
                    consumers[name].append(TensorUse(node, i))
        return cls(producers, dict(consumers), opsets)

    def opset(self, domain: str) -> int | None:
        """The model's opset for ``domain`` ("" is ai.onnx); None where the model imports none."""
        return self.opsets.get(domain or "ai.onnx")

    def reads_on_device(self, use: TensorUse) -> bool:
        """Whether this use reads the tensor from device memory."""
        if not is_device(use.node.provider):
            return False
        return use.index not in kernel_memory.host_inputs(use.node.domain, use.node.op_type, self.opset(use.node.domain))

    def writes_on_device(self, use: TensorUse) -> bool:
        """Whether this producer writes the tensor to device memory (a device kernel, not one of its host outputs)."""
        if not is_device(use.node.provider):
            return False
        return use.index not in kernel_memory.host_outputs(use.node.domain, use.node.op_type)

    def device_readers(self, tensor: str) -> list[TensorUse]:
        """The uses of ``tensor`` that read it from device memory: a host value given there is copied in."""
        return [u for u in self.consumers.get(tensor, []) if self.reads_on_device(u)]

    def device_writer(self, tensor: str, host_side: Container[str] = ()) -> TensorUse | None:
        """The use that writes ``tensor`` in device memory, or None: no producer, written in host memory, or on the
        host side of a Memcpy node ORT inserts (``host_side``)."""
        producer = self.producers.get(tensor)
        if producer is None or tensor in host_side or not self.writes_on_device(producer):
            return None
        return producer


def describe_node(node: RuntimeNode) -> str:
    """``MatMul 'mm1' (CUDA)``: op type, name and provider, as every placement message names a node."""
    return f"{node.op_type} '{node.name}' ({short(node.provider) or '?'})"


def _describe(nodes: list[RuntimeNode]) -> list[str]:
    return [describe_node(n) for n in nodes]


def _output_event(events: list[NodeEvent], node_name: str) -> NodeEvent | None:
    for event in reversed(events):
        if event.name == node_name:
            return event
    return None


def _shape_and_bytes(entry: object) -> tuple[list[Dim] | None, str | None, int | None]:
    if isinstance(entry, dict) and len(entry) == 1:
        ((type_name, dims),) = entry.items()
        return list(dims), _PROFILE_TYPES.get(type_name, type_name), tensor_bytes(entry)
    return None, None, None


def input_dims(evidence: Evidence) -> dict[str, int]:
    """Symbol -> size as fixed by the inputs fed in this check; an expression of those symbols (``past + 1``, as
    torch's dynamo exporter writes derived dims) has its size too (``dimexpr.SymbolSizes``)."""
    dims: dict[str, int] = SymbolSizes()
    feeds = {f.name: f for f in evidence.feeds}
    for value in evidence.model.inputs:
        feed = feeds.get(value.name)
        if feed is None or value.shape is None or len(value.shape) != len(feed.shape):
            continue
        for declared, size in zip(value.shape, feed.shape):
            if isinstance(declared, str):
                dims.setdefault(declared, size)
    return dims


def _declarations(evidence: Evidence) -> tuple[dict[str, ValueInfo], dict[str, int]]:
    """The declared values by name and the input dims, built once per evidence (declared_size is called per copy:
    rebuilding them each time made analysis quadratic in the number of fallbacks)."""
    key = (len(evidence.value_infos), len(evidence.model.outputs), len(evidence.feeds))
    cached = evidence.__dict__.get("_declarations")
    if cached is None or cached[0] != key:
        # an output the model declares with no shape (an LSTM's Y) takes the shape inference gave it
        known = {v.name: v for v in evidence.model.outputs}
        for v in evidence.value_infos:
            declared = known.get(v.name)
            if declared is None or (declared.shape is None and v.shape is not None):
                known[v.name] = v
        cached = (key, known, input_dims(evidence))
        evidence.__dict__["_declarations"] = cached
    return cached[1], cached[2]


def declared_size(evidence: Evidence, tensor: str) -> tuple[list[Dim] | None, str | None, int | None]:
    """Shape, dtype and bytes of ``tensor`` from the model's declarations and inferred shapes."""
    known, dims = _declarations(evidence)
    return _declared(known, dims, tensor)


def _declared(known: dict[str, ValueInfo], dims: dict[str, int],
              tensor: str) -> tuple[list[Dim] | None, str | None, int | None]:
    value = known.get(tensor)
    if value is None or value.kind != "tensor":
        return None, None, None
    shape = None if value.shape is None else [dims.get(d, d) if isinstance(d, str) else d for d in value.shape]
    return shape, value.elem_type, element_bytes(value.elem_type, shape)


# What a run measured of a tensor: shape, dtype and bytes (``measured_sizes``).
MeasuredSize = tuple[list[Dim], Optional[str], Optional[int]]


def measured_sizes(measured: Evidence, predicted: Evidence) -> dict[str, MeasuredSize]:
    """Tensor -> (shape, dtype, bytes) as the run of ``measured`` (a check whose requested provider did not load:
    it ran on CPU) gave them, for the prediction ``predicted`` of the same check: the outputs of its main graph's
    nodes in the last profiled run. Only where both were made for the same inputs (the same feeds: names, dtypes,
    shapes): then a tensor of the same name is the same value at the same size, whichever provider computes it.
    Subgraph tensors are left out (a loop body's change from one iteration to the next). {} otherwise."""
    if measured.mode == "static" or _feed_key(measured) != _feed_key(predicted):
        return {}
    main = {n.name: n for n in measured.nodes if not n.graph}
    last: dict[str, NodeEvent] = {}
    for event in measured_events(measured):
        if event.name in main:
            last[event.name] = event
    sizes: dict[str, MeasuredSize] = {}
    for name, event in last.items():
        for i, tensor in enumerate(main[name].outputs):
            if tensor and i < len(event.output_shapes):
                shape, dtype, nbytes = _shape_and_bytes(event.output_shapes[i])
                if shape is not None and nbytes is not None:
                    sizes[tensor] = (shape, dtype, nbytes)
    return sizes


def _measured(size: MeasuredSize) -> MeasuredSize:
    """A measured size for one copy: its shape a list of its own."""
    shape, dtype, nbytes = size
    return list(shape), dtype, nbytes


def _feed_key(evidence: Evidence) -> list[tuple[str, str, list[int]]]:
    return [(f.name, f.dtype, list(f.shape)) for f in evidence.feeds]


# Said of a copy a prediction sizes from the check's own run (``measured_sizes``).
MEASURED_SIZE_NOTE = "; its size as this check's run on CPU measured it, at the same inputs"


def measured_events(evidence: Evidence) -> list[NodeEvent]:
    """Node events of the profiled (not warm-up) runs."""
    warm = {r.run for r in evidence.run_events if r.warmup}
    return [e for e in evidence.node_events if e.run not in warm and e.run >= 0]


def memcpy_node_names(evidence: Evidence) -> list[tuple[str, str]]:
    """(name, op_type) of the Memcpy nodes seen in the profile, in ORT's insertion order."""
    seen: dict[str, str] = {}
    for event in measured_events(evidence) or evidence.node_events:
        if event.op_type in ("MemcpyToHost", "MemcpyFromHost"):
            seen.setdefault(event.name, event.op_type)

    def order(name: str) -> int:
        # ORT names them Memcpy, Memcpy_token_0, Memcpy_token_1, ... in the order it inserts them.
        if name == "Memcpy":
            return -1
        tail = name.rsplit("_", 1)[-1]
        return int(tail) if tail.isdigit() else 1 << 30

    return sorted(seen.items(), key=lambda item: (order(item[0]), item[0]))


def copied_by_memcpy_node(nodes: Sequence[RuntimeNode], insertions: Iterable[MemcpyInsertion]) -> set[str]:
    """The host tensors a MemcpyFromHost node copies, where ``nodes`` hold no Memcpy node (a prediction, or a log
    without the graph ORT saved; in that graph the device readers read the node's output instead). A graph input
    among them is read on the host too: ORT keeps it there and copies it for its device readers (seen on the H200
    with onnxruntime-gpu 1.31.1), so it makes no feed copy and is bound on the host."""
    if any(n.op_type in MEMCPY_OPS for n in nodes):
        return set()
    return {m.tensor for m in insertions if m.op_type == "MemcpyFromHost"}


def find_copies(evidence: Evidence, view: GraphView | None = None,
                sizes: dict[str, MeasuredSize] | None = None) -> list[Copy]:
    """Every host<->device copy of one run that the evidence shows or implies; ``sizes`` (of a prediction: what the
    check's own run measured, ``measured_sizes``) size those that the declarations and shape inference leave
    unknown."""
    sizes = sizes or {}
    view = view if view is not None else GraphView.of(evidence)
    events = measured_events(evidence)
    profiled_runs = len({e.run for e in events}) or 1
    by_name: dict[str, list[NodeEvent]] = {}  # a node's events: looked up per copy, not scanned (thousands of each)
    for e in events:
        by_name.setdefault(e.name, []).append(e)
    known, dims = _declarations(evidence)
    copies: list[Copy] = []
    host_side = {m.tensor for m in evidence.memcpy_insertions}
    feeds = {f.name: f for f in evidence.feeds}

    # Feed copies: a host array consumed by a device kernel that reads it from device memory. A graph input read
    # on the host as well stays there (``copied_by_memcpy_node``), and the Memcpy nodes below count its copy.
    copied_by_node = copied_by_memcpy_node(evidence.nodes, evidence.memcpy_insertions)
    for value in evidence.model.inputs:
        if value.name in copied_by_node:
            continue
        device_uses = view.device_readers(value.name)
        if not device_uses:
            continue
        feed = feeds.get(value.name)
        copies.append(Copy(
            kind=FEED, direction=HOST_TO_DEVICE, tensor=value.name,
            bytes_per_run=feed.bytes if feed else None, shape=list(feed.shape) if feed else value.shape,
            dtype=feed.dtype if feed else value.elem_type, consumers=_describe([u.node for u in device_uses]),
            cause=f"'{value.name}' is given as a numpy array (host memory) and consumed on the device by "
                  + ", ".join(_describe([u.node for u in device_uses])),
            removable_by_binding=True, source=CopySource.PLACEMENT))

    # Fetch copies: an output produced on the device and returned as numpy.
    input_names = {v.name for v in evidence.model.inputs}
    for value in evidence.model.outputs:
        if value.name in input_names:
            continue
        producer = view.device_writer(value.name, host_side)
        if producer is None:
            continue
        own = by_name.get(producer.node.name)
        event = own[-1] if own else None
        shape, dtype, nbytes = _declared(known, dims, value.name)
        if event is not None and producer.index < len(event.output_shapes):
            shape, dtype, nbytes = _shape_and_bytes(event.output_shapes[producer.index])
        note = ""
        if nbytes is None and value.name in sizes:
            (shape, dtype, nbytes), note = _measured(sizes[value.name]), MEASURED_SIZE_NOTE
        copies.append(Copy(
            kind=FETCH, direction=DEVICE_TO_HOST, tensor=value.name, bytes_per_run=nbytes,
            shape=shape if shape is not None else value.shape, dtype=dtype or value.elem_type,
            producers=_describe([producer.node]),
            cause=f"'{value.name}' is produced on the device by {_describe([producer.node])[0]} and returned to the "
                  f"caller as numpy{note}",
            removable_by_binding=value.kind == "tensor", source=CopySource.PLACEMENT))

    # Memcpy nodes. ORT 1.31.1 keeps them in the optimized model it saves (seen on the H200), which
    # names their tensors exactly; otherwise the k-th insertion the log names pairs with the k-th
    # Memcpy node of that type in the profile (ORT names them Memcpy, Memcpy_token_0, ... in order).
    in_graph = [n for n in evidence.nodes if n.op_type in ("MemcpyToHost", "MemcpyFromHost")]
    if in_graph:
        for node in in_graph:
            host_name = node.outputs[0] if node.op_type == "MemcpyToHost" else node.inputs[0]
            copies.append(_memcpy_copy(node.op_type, node.name, host_name, view, by_name, profiled_runs, evidence,
                                       (known, dims), graph_node=node, sizes=sizes))
        copies.sort(key=lambda c: (c.kind != FEED, c.kind != FETCH, c.kind == MEMCPY_NODE and c.direction != DEVICE_TO_HOST))
        return copies + _in_kernel(evidence, events, profiled_runs, sizes)
    by_type: dict[str, list[str]] = defaultdict(list)
    for name, op_type in memcpy_node_names(evidence):
        by_type[op_type].append(name)
    inserted: dict[str, list[MemcpyInsertion]] = defaultdict(list)
    for insertion in evidence.memcpy_insertions:
        inserted[insertion.op_type].append(insertion)
    for op_type in ("MemcpyToHost", "MemcpyFromHost"):
        names = by_type.get(op_type, [])
        insertions = inserted.get(op_type, [])
        for k in range(max(len(names), len(insertions))):
            name = names[k] if k < len(names) else ""
            tensor = insertions[k].tensor if k < len(insertions) else ""
            copies.append(_memcpy_copy(op_type, name, tensor, view, by_name, profiled_runs, evidence, (known, dims),
                                       feed=feeds.get(tensor),
                                       branch=insertions[k].graph if k < len(insertions) else "", sizes=sizes))
    return copies + _in_kernel(evidence, events, profiled_runs, sizes)


def _in_kernel(evidence: Evidence, events: list[NodeEvent], profiled_runs: int,
               sizes: dict[str, MeasuredSize] | None = None) -> list[Copy]:
    """Transfers inside kernels that happen on every call (kernel_memory.CUDA_IN_KERNEL_RULES, size fixed or per
    batch): NonZero reads its count back, cuDNN RNNs upload their sequence lengths. Sizes come from the profiled
    runs where they depend on the data: a NonZero over an empty input makes no transfer."""
    copies: list[Copy] = []
    by_node: dict[str, list[NodeEvent]] | None = None  # built on first need: one pass over the events, not one a node
    for node in evidence.nodes:
        if not is_device(node.provider):
            continue
        rules = kernel_memory.in_kernel_rules(node.domain, node.op_type)
        if not rules:
            continue
        if by_node is None:
            by_node = {}
            for e in events:
                by_node.setdefault(e.name, []).append(e)
        own = by_node.get(node.name, [])
        calls = max(1, len(own) // profiled_runs) if own else 1
        for rule in rules:
            if rule.size == "data":
                continue  # explained from a census only (census_table.explain_in_kernel)
            nbytes: int | None = None
            count = calls
            note = ""
            if rule.size == "fixed":
                if own and node.op_type == "NonZero":
                    count = sum(1 for e in own if _input_elements(e) != 0) // profiled_runs
                nbytes = None if rule.bytes is None else rule.bytes * count
            elif rule.size == "per_batch":
                batch, from_run = (_rnn_batch(node, own[-1]), False) if own else _declared_rnn_batch(
                    evidence, node, sizes or {})
                note = MEASURED_SIZE_NOTE if from_run and batch is not None else ""
                nbytes = None if batch is None or rule.bytes is None else rule.bytes * batch * count
            if count == 0:
                continue  # the data made it not happen (an empty NonZero input)
            copies.append(Copy(
                kind=IN_KERNEL, direction=rule.direction,
                tensor=kernel_memory.transfer_tensor(rule, node.inputs, node.outputs),
                bytes_per_run=nbytes, count_per_run=count, node=node.name,
                cause=f"{node.op_type} '{node.name}' {rule.reason}{note}",
                removable_by_binding=False, source=CopySource.PLACEMENT, branch=node.graph))
    return copies


def _input_elements(event: NodeEvent) -> int | None:
    """Elements of the first input of a profiled call, or None where the profile does not say."""
    if not event.input_shapes:
        return None
    shape, _, _ = _shape_and_bytes(event.input_shapes[0])
    dims = None if shape is None else _int_dims(shape)
    if dims is None:
        return None
    count = 1
    for d in dims:
        count *= int(d)
    return count


def _rnn_batch(node: RuntimeNode, event: NodeEvent) -> int | None:
    """The batch of an ONNX RNN/GRU/LSTM call, from its first input's profiled shape."""
    if not event.input_shapes:
        return None
    shape, _, _ = _shape_and_bytes(event.input_shapes[0])
    return _batch_of_x(shape)


def _declared_rnn_batch(evidence: Evidence, node: RuntimeNode,
                        sizes: dict[str, MeasuredSize]) -> tuple[int | None, bool]:
    """The batch of an RNN/GRU/LSTM from X's declared (or fed) shape, where no profiled call says: a prediction;
    from ``sizes`` (the check's own run) where the declarations leave it unknown. (batch, whether from ``sizes``)"""
    x = node.inputs[0] if node.inputs else ""
    feed = next((f for f in evidence.feeds if f.name == x), None)
    batch = _batch_of_x(feed.shape if feed is not None else declared_size(evidence, x)[0])
    if batch is None and x in sizes:
        return _batch_of_x(sizes[x][0]), True
    return batch, False


def _batch_of_x(shape: Sequence[Dim] | None) -> int | None:
    """X is [seq, batch, input]: layout 0, the only one ORT's CUDA RNN kernels take (a layout-1 node fails the
    session, seen on the H200; the evidence keeps no node attributes, and needs none)."""
    dims = _int_dims(shape) if shape else None
    return int(dims[1]) if dims is not None and len(dims) == 3 else None


def _memcpy_copy(op_type: str, name: str, tensor: str, view: GraphView, by_name: dict[str, list[NodeEvent]],
                 profiled_runs: int, evidence: Evidence,
                 declarations: tuple[dict[str, ValueInfo], dict[str, int]],
                 graph_node: RuntimeNode | None = None, feed: Feed | None = None, branch: str = "",
                 sizes: dict[str, MeasuredSize] | None = None) -> Copy:
    direction = DEVICE_TO_HOST if op_type == "MemcpyToHost" else HOST_TO_DEVICE
    own = by_name.get(name, []) if name else []
    shape = dtype = None
    nbytes: int | None = None
    if own:
        shape, dtype, nbytes = _shape_and_bytes(own[-1].output_shapes[0] if own[-1].output_shapes else None)
        if nbytes is None:
            nbytes = own[-1].output_bytes
    elif feed is not None:  # a graph input: the array fed
        shape, dtype, nbytes = list(feed.shape), feed.dtype, feed.bytes
    elif tensor:
        shape, dtype, nbytes = _declared(*declarations, tensor)
    note = ""
    if nbytes is None and tensor and sizes and tensor in sizes:
        (shape, dtype, nbytes), note = _measured(sizes[tensor]), MEASURED_SIZE_NOTE
    producer = view.producers.get(tensor) if tensor else None
    uses = view.consumers.get(tensor, []) if tensor else []
    if graph_node is not None:
        # The Memcpy node sits between the two sides: look through it.
        producer = view.producers.get(graph_node.inputs[0])
        uses = view.consumers.get(graph_node.outputs[0], [])
    producers = [producer.node] if producer else []
    if op_type == "MemcpyToHost":
        # The host side reads it: CPU nodes, or device kernels that take this argument in host memory.
        readers = [u for u in uses if not view.reads_on_device(u)]
        if readers:
            reasons = []
            for u in readers:
                if u.node.provider == CPU:
                    reasons.append(f"{u.node.op_type} '{u.node.name}' runs on CPU ({_fallback_text(u.node)})")
                else:
                    reasons.append(f"{u.node.op_type} '{u.node.name}' reads input {u.index} from host memory")
            cause = f"'{tensor}' is produced on the device and read on the host: " + "; ".join(reasons)
        else:
            cause = f"'{tensor}' is produced on the device and read on the host (graph output or CPU consumer)"
        consumers = [u.node for u in readers]
    else:
        readers = [u for u in uses if view.reads_on_device(u)]
        origin = (f"{producers[0].op_type} '{producers[0].name}' runs on CPU ({_fallback_text(producers[0])})"
                  if producers else f"'{tensor}' lives in host memory")
        cause = f"'{tensor}' is produced on the host ({origin}) and read on the device"
        consumers = [u.node for u in readers]
    count = max(1, len(own) // profiled_runs) if own else 1
    cause += note
    return Copy(kind=MEMCPY_NODE, direction=direction, tensor=tensor, bytes_per_run=(nbytes * count) if nbytes is not None else None,
                count_per_run=count, shape=shape, dtype=dtype, node=name or op_type, producers=_describe(producers),
                consumers=_describe(consumers), cause=cause, removable_by_binding=False,
                source=CopySource.PREDICTED if evidence.mode == "static" else
                (CopySource.PROFILE_AND_LOG if name and tensor else (CopySource.PROFILE if name else CopySource.LOG)),
                branch=graph_node.graph if graph_node is not None else branch)


def _fallback_text(node: RuntimeNode) -> str:
    if node.fallback_reason == "no_kernel":
        return node.fallback_detail or "no kernel on the requested provider"
    if node.fallback_reason == "cpu_preferred":
        return "ORT chose CPU for a small shape computation"
    return node.fallback_detail or "placed on CPU"


def _int_dims(shape: Sequence[Dim]) -> list[int] | None:
    """The dims of ``shape`` if every one is an int (a size), else None (a symbol or an unknown dim)."""
    dims = [d for d in shape if isinstance(d, int)]
    return dims if len(dims) == len(shape) else None


def element_bytes(dtype: str | None, shape: Sequence[Dim] | None) -> int | None:
    """Bytes of a ``dtype`` tensor of ``shape``; None where the dtype, a dim or the item size is unknown."""
    # A negative declared dim (a broken model) gives no size rather than a negative one.
    dims = None if dtype is None or shape is None else _int_dims(shape)
    if dtype is None or dims is None or not all(d >= 0 for d in dims):
        return None
    count = 1
    for d in dims:
        count *= int(d)
    size = dtype_itemsize(dtype)
    return count * size if size else None
