"""Predict, without a GPU, where ORT places each node and which Memcpy nodes it inserts.

This mirrors three pieces of ORT (read from its source, checked against sessions on an H200 with
ORT 1.31.1; see tests/test_predict.py):

1. Kernel lookup: a node goes to the CUDA EP when the CUDA EP registers a kernel for its op,
   opset and types (``kernels.py``, from OperatorKernels.md, plus ``OBSERVED_CORRECTIONS``);
   otherwise it falls back to CPU ("no_kernel").
2. ``GetCpuPreferredNodes`` (core/framework/fallback_cpu_capability.cc): starting from the
   consumers of outputs a CUDA kernel writes to host memory (Shape, Size), nodes whose inputs are
   all host tensors, small initializers or graph inputs are moved to CPU ("cpu_preferred"), and
   the walk continues downstream. Shape itself stays on CUDA.
3. The Memcpy transformer (core/optimizer/transformer_memcpy.cc), per graph and subgraph: a
   tensor a device node writes to device memory and a host reader consumes (a CPU node, or a CUDA
   kernel's host-memory input) gets "MemcpyToHost before T"; a tensor written on the host (a CPU
   node, or a CUDA kernel's host-memory output) and read in device memory gets "MemcpyFromHost
   after T". Graph inputs get one only when both kinds of consumer read them (otherwise ORT copies
   the feed itself); initializers never do (ORT duplicates them per device); implicit inputs of
   control-flow nodes never do (the node copies them into its subgraph).

What it does not model: ORT's graph optimisations (fusions, constant folding, layout changes)
run before partitioning and rename or replace nodes; the prediction is for the graph as written.
"""

from __future__ import annotations

import heapq
from collections.abc import Iterator
from dataclasses import dataclass, field
from typing import Optional

import onnx
from onnx import TensorProto

from . import kernel_memory
from .evidence import MemcpyInsertion, RuntimeNode
from .kernels import KernelMatch, KernelTable, norm_domain
from .model_info import _type_string, elem_dtype  # _type_string: ORT's spelling of non-tensor types, as kernels.json keeps it

CPU = "CPUExecutionProvider"
CUDA = "CUDAExecutionProvider"

# ORT's threshold (kSmallInitializerThreshold): initializers of at most this many elements do not
# stop a node from being CPU-preferred.
SMALL_INITIALIZER_ELEMENTS = 100

# GetCpuPreferredNodes never moves a node with an input of these types to CPU (slow or no CPU kernels).
_NO_CPU_PREFERENCE_TYPES = frozenset(
    {"float16", "bfloat16", "float8e4m3fn", "float8e4m3fnuz", "float8e5m2", "float8e5m2fnuz"}
)


@dataclass(frozen=True)
class Correction:
    """Where observed placement contradicts OperatorKernels.md, for one ORT version."""

    ort_version: str
    has_kernel: bool
    evidence: str


# (provider, domain, op_type) -> correction. Keep each with the ORT version it was observed on.
OBSERVED_CORRECTIONS: dict[tuple[str, str, str], Correction] = {
    (CUDA, "ai.onnx", "NonMaxSuppression"): Correction(
        ort_version="1.31.1",
        has_kernel=True,
        evidence="placed on CUDAExecutionProvider on an H200 (docs/ort-notes.md) although OperatorKernels.md lists no CUDA kernel",
    ),
}


@dataclass
class Prediction:
    """Predicted placement and Memcpy insertions for one model and provider."""

    provider: str
    nodes: list[RuntimeNode] = field(default_factory=list)
    memcpy_insertions: list[MemcpyInsertion] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)

    def node(self, name: str) -> RuntimeNode:
        """The predicted node called ``name`` (KeyError if none)."""
        for n in self.nodes:
            if n.name == name:
                return n
        raise KeyError(name)


# --- model facts -------------------------------------------------------------------------------


class _Scope:
    """Value types of one graph, falling back to the enclosing graph's (subgraphs see outer names)."""

    def __init__(self, graph: onnx.GraphProto, parent: Optional["_Scope"]) -> None:
        self.parent = parent
        self.types: dict[str, Optional[str]] = {}
        self.initializers: dict[str, TensorProto] = {t.name: t for t in graph.initializer}
        for t in graph.initializer:
            self.types[t.name] = elem_dtype(t.data_type)
        for vi in list(graph.input) + list(graph.value_info) + list(graph.output):
            if vi.HasField("type"):
                self.types[vi.name] = _arg_type(vi.type)

    def type_of(self, name: str) -> Optional[str]:
        if not name:
            return None
        if name in self.types:
            return self.types[name]
        return self.parent.type_of(name) if self.parent else None

    def initializer(self, name: str) -> Optional[TensorProto]:
        # like ORT's GetInitializer(name, check_outer_scope=true)
        if name in self.initializers:
            return self.initializers[name]
        return self.parent.initializer(name) if self.parent else None


def _arg_type(tp: onnx.TypeProto) -> Optional[str]:
    """numpy-style name for tensors, ORT's spelling for other types; None where unknown."""
    which = tp.WhichOneof("value")
    if which == "tensor_type":
        if tp.tensor_type.elem_type == TensorProto.UNDEFINED:
            return None
        return elem_dtype(tp.tensor_type.elem_type)
    if which is None:
        return None
    text = _type_string(tp)
    return None if "undefined" in text or text == "unknown" else text


def _subgraphs(node: onnx.NodeProto) -> Iterator[tuple[str, onnx.GraphProto]]:
    for attr in node.attribute:
        if attr.type == onnx.AttributeProto.GRAPH:
            yield attr.name, attr.g
        elif attr.type == onnx.AttributeProto.GRAPHS:
            for i, g in enumerate(attr.graphs):
                yield f"{attr.name}[{i}]", g


def _implicit_inputs(node: onnx.NodeProto) -> set[str]:
    """Outer-scope names the node's subgraphs read (ORT's ImplicitInputDefs)."""
    names: set[str] = set()
    for _, sub in _subgraphs(node):
        defined = {i.name for i in sub.input} | {t.name for t in sub.initializer}
        for inner in sub.node:
            used = set(inner.input) | _implicit_inputs(inner)
            names.update(n for n in used if n and n not in defined)
            defined.update(inner.output)
    return names


def _infer(model: onnx.ModelProto, notes: list[str]) -> onnx.ModelProto:
    try:
        return onnx.shape_inference.infer_shapes(model, strict_mode=False)
    except Exception as exc:  # >2 GB protos, unknown custom ops in strict paths, broken models
        notes.append(f"shape inference failed ({type(exc).__name__}: {exc}); types come from the declared value_info only")
        return model


# --- placement ---------------------------------------------------------------------------------


@dataclass
class _NodeFacts:
    node: onnx.NodeProto
    domain: str
    opset: int  # the schema's since_version where onnx knows the op
    input_types: list[Optional[str]]
    output_types: list[Optional[str]]
    match: Optional[KernelMatch] = None  # on the requested provider
    provider: str = CPU
    reason: Optional[str] = None
    detail: str = ""


class _Predictor:
    def __init__(self, model: onnx.ModelProto, provider: str, table: KernelTable, ort_version: Optional[str]) -> None:
        self.provider = provider
        self.table = table
        self.ort_version = ort_version
        self.notes: list[str] = []
        self.model = _infer(model, self.notes)
        self.opsets = {norm_domain(o.domain): int(o.version) for o in self.model.opset_import}
        self.corrections_used: set[tuple[str, str, str]] = set()

    def run(self) -> Prediction:
        nodes, insertions = self._graph(self.model.graph, "", None, None)
        seen: set[tuple[str, str]] = set()
        unique = []
        for ins in insertions:  # one insertion per tensor and direction
            if (ins.op_type, ins.tensor) not in seen:
                seen.add((ins.op_type, ins.tensor))
                unique.append(ins)
        for key in sorted(self.corrections_used):
            c = OBSERVED_CORRECTIONS[key]
            self.notes.append(f"{key[2]}: kernel table corrected from observation with ORT {c.ort_version}: {c.evidence}")
        src = self.table.source
        self.notes.append(
            f"static prediction from {src.get('file', 'kernels.json')} (ORT commit {src.get('commit')}); "
            "ORT's graph optimisations (fusions, constant folding) are not modelled"
        )
        return Prediction(provider=self.provider, nodes=nodes, memcpy_insertions=unique, notes=self.notes)

    # one graph --------------------------------------------------------------------------------

    def _facts(self, node: onnx.NodeProto, scope: _Scope) -> _NodeFacts:
        domain = norm_domain(node.domain)
        opset = self.opsets.get(domain, 1)
        try:
            # ORT matches a registration against the node's SinceVersion, not the model's opset
            opset = onnx.defs.get_schema(node.op_type, opset, "" if domain == "ai.onnx" else domain).since_version
        except Exception:  # custom domains (com.microsoft) are unknown to onnx: keep the imported version
            pass
        return _NodeFacts(
            node=node,
            domain=domain,
            opset=opset,
            input_types=[scope.type_of(n) for n in node.input],
            output_types=[scope.type_of(n) for n in node.output],
        )

    def _lookup(self, provider: str, f: _NodeFacts) -> KernelMatch:
        match = self.table.lookup(provider, f.domain, f.node.op_type, f.opset, f.input_types, f.output_types)
        key = (provider, f.domain, f.node.op_type)
        correction = OBSERVED_CORRECTIONS.get(key)
        if (
            correction is not None
            and correction.has_kernel != match.found
            and (self.ort_version is None or self.ort_version == correction.ort_version)
        ):
            self.corrections_used.add(key)
            reason = "ok" if correction.has_kernel else "no_op"
            match = KernelMatch(
                found=correction.has_kernel, reason=reason, provider=provider, domain=f.domain,
                op_type=f.node.op_type, opset=f.opset,
            )
        return match

    def _graph(
        self, graph: onnx.GraphProto, path: str, parent: Optional[_Scope], parent_implicit: Optional[set[str]]
    ) -> tuple[list[RuntimeNode], list[MemcpyInsertion]]:
        scope = _Scope(graph, parent)
        facts = [self._facts(n, scope) for n in graph.node]
        input_order = [i.name for i in graph.input if i.name not in scope.initializers]
        graph_inputs = set(input_order)
        on_device = self.provider != CPU

        tentative: set[int] = set()
        for i, f in enumerate(facts):
            if not on_device:
                f.provider = CPU
                continue
            f.match = self._lookup(self.provider, f)
            if f.match.found:
                tentative.add(i)
                f.provider = self.provider
            else:
                f.provider, f.reason, f.detail = CPU, "no_kernel", f.match.message
                cpu = self._lookup(CPU, f)
                if not cpu.found:
                    self.notes.append(
                        f"{f.node.name or f.node.op_type}: {cpu.message} either; ORT would refuse the model "
                        "unless a custom-op library provides the op"
                    )

        if on_device:
            for i in sorted(self._cpu_preferred(facts, tentative, graph_inputs, scope)):
                f = facts[i]
                if not self._lookup(CPU, f).found:
                    continue  # nowhere to go: ORT leaves it where a kernel exists
                f.provider, f.reason = CPU, "cpu_preferred"
                f.detail = (
                    f"ORT prefers CPU for {f.node.op_type}: it computes on small host-side tensors "
                    f"(shape arithmetic), which is cheaper there than a copy to the device"
                )
            for f in facts:
                if f.provider != CPU:
                    transfer = kernel_memory.in_kernel_transfer(f.domain, f.node.op_type)
                    if transfer:
                        self.notes.append(f"{f.node.name or f.node.op_type} ({f.node.op_type}) {transfer}")

        insertions = self._memcpy(facts, input_order, parent_implicit) if on_device else []

        nodes: list[RuntimeNode] = []
        sub_insertions: list[MemcpyInsertion] = []
        for f in facts:
            nodes.append(
                RuntimeNode(
                    name=f.node.name,
                    op_type=f.node.op_type,
                    domain=f.node.domain,
                    provider=f.provider,
                    inputs=list(f.node.input),
                    outputs=list(f.node.output),
                    graph=path,
                    fallback_reason=f.reason,
                    fallback_detail=f.detail,
                )
            )
            for attr_name, sub in _subgraphs(f.node):
                sub_path = f"{path}/{f.node.name or f.node.op_type}.{attr_name}".lstrip("/")
                sub_nodes, sub_ins = self._graph(sub, sub_path, scope, _implicit_inputs(f.node))
                nodes.extend(sub_nodes)
                sub_insertions.extend(sub_ins)
        # ORT's MemcpyTransformer handles a graph before recursing into its subgraphs
        return nodes, insertions + sub_insertions

    def _host_inputs(self, f: _NodeFacts) -> frozenset[int]:
        return kernel_memory.host_inputs(f.domain, f.node.op_type, f.opset) if f.provider != CPU else frozenset()

    def _host_outputs(self, f: _NodeFacts) -> frozenset[int]:
        return kernel_memory.host_outputs(f.domain, f.node.op_type) if f.provider != CPU else frozenset()

    def _cpu_preferred(
        self, facts: list[_NodeFacts], tentative: set[int], graph_inputs: set[str], scope: _Scope
    ) -> set[int]:
        """ORT's GetCpuPreferredNodes for one graph: indices of tentative nodes it moves to CPU."""
        consumers: dict[str, list[int]] = {}
        for i, f in enumerate(facts):
            for name in list(f.node.input) + sorted(_implicit_inputs(f.node)):
                consumers.setdefault(name, []).append(i)

        # ONNX graphs are topologically sorted, so node index is ORT's topological order
        heap: list[int] = []
        cpu_args: set[str] = set()
        for i in sorted(tentative):
            f = facts[i]
            for k, out in enumerate(f.node.output):
                if k in kernel_memory.host_outputs(f.domain, f.node.op_type):
                    cpu_args.add(out)
                    for c in consumers.get(out, []):
                        heapq.heappush(heap, c)

        def push_consumers(f: _NodeFacts) -> None:
            for out in f.node.output:
                for c in consumers.get(out, []):
                    heapq.heappush(heap, c)

        visited: set[int] = set()
        cpu_nodes: set[int] = set()
        while heap:
            cur = heapq.heappop(heap)
            if cur in visited:
                continue
            visited.add(cur)
            f = facts[cur]
            if cur not in tentative:
                # no kernel on the device: ORT assumes it runs on CPU, so its outputs are host tensors
                cpu_args.update(f.node.output)
                push_consumers(f)
                continue
            host_in = kernel_memory.host_inputs(f.domain, f.node.op_type, f.opset)
            place_in_cpu = True
            for k, name in enumerate(f.node.input):
                if scope.type_of(name) in _NO_CPU_PREFERENCE_TYPES:
                    place_in_cpu = False
                    break
                if self._small_initializer(scope, name) or name in graph_inputs:
                    continue
                # an omitted optional input ("") is a non-existent arg in ORT and is never a CPU tensor
                if name not in cpu_args or k in host_in:
                    place_in_cpu = False
                    break
            if place_in_cpu:
                cpu_nodes.add(cur)
                cpu_args.update(f.node.output)
                push_consumers(f)
        return cpu_nodes

    @staticmethod
    def _small_initializer(scope: _Scope, name: str) -> bool:
        t = scope.initializer(name) if name else None
        if t is None:
            return False
        size = 1
        for d in t.dims:
            size *= d
        return size <= SMALL_INITIALIZER_ELEMENTS

    def _memcpy(
        self, facts: list[_NodeFacts], graph_inputs: list[str], parent_implicit: Optional[set[str]]
    ) -> list[MemcpyInsertion]:
        """ORT's TransformerMemcpyImpl::ModifyGraph for one graph, in its order."""
        device_in: set[str] = set()  # read in device memory by a device node
        host_in: set[str] = set()  # read in host memory (CPU node, or a device kernel's host input)
        device_out: set[str] = set()
        host_out: set[str] = set()
        for f in facts:
            on_device = f.provider != CPU
            hin, hout = self._host_inputs(f), self._host_outputs(f)
            # implicit inputs are left out on purpose: control-flow nodes copy them into their subgraphs
            for k, name in enumerate(f.node.input):
                if name:
                    (host_in if (not on_device or k in hin) else device_in).add(name)
            for k, name in enumerate(f.node.output):
                if name:
                    (host_out if (not on_device or k in hout) else device_out).add(name)

        out: list[MemcpyInsertion] = []
        for name in graph_inputs:  # ORT walks the graph's input list
            if name in device_in and name in host_in:
                out.append(MemcpyInsertion("MemcpyFromHost", name, self.provider))
        for name in sorted(host_out):  # ORT's sets are ordered by name
            if name in device_in:
                out.append(MemcpyInsertion("MemcpyFromHost", name, self.provider))
        for name in sorted(device_out):
            if name in host_in:
                out.append(MemcpyInsertion("MemcpyToHost", name, self.provider))
        for name in sorted(parent_implicit or ()):
            if name in device_in and name in host_in:
                out.append(MemcpyInsertion("MemcpyFromHost", name, self.provider))
        return out


def predict(
    model: onnx.ModelProto,
    provider: str = CUDA,
    *,
    ort_version: Optional[str] = None,
    table: Optional[KernelTable] = None,
) -> Prediction:
    """Predict each node's provider (subgraphs included) and ORT's Memcpy insertions for ``provider``.

    ``ort_version``: apply only the ``OBSERVED_CORRECTIONS`` recorded for that version (None: all).
    ``table``: a kernel table to use instead of the packaged one (tests, other ORT versions).
    """
    table = table or KernelTable.load()
    if provider not in table.providers:
        raise ValueError(
            f"no kernel table for {provider}: predictions cover {', '.join(table.providers)}"
        )
    return _Predictor(model, provider, table, ort_version).run()


__all__ = ["CPU", "CUDA", "OBSERVED_CORRECTIONS", "Correction", "Prediction", "predict"]
