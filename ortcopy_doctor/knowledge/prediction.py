"""Predict, without a GPU, where ORT places each node and which Memcpy nodes it inserts.

This mirrors three pieces of ORT (read from its source, checked against sessions on an H200 with
ORT 1.31.1; see tests/knowledge/test_predict.py):

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

Before placing, it mirrors ORT's session preparation: ``Constant`` nodes become initializers; level-1
ConstantFolding removes deterministic nodes whose inputs are all constant (and ``Shape`` of a known
shape); ONNX function ops no EP has a kernel for (CastLike, NegativeLogLikelihoodLoss, ...) are
expanded into their bodies, after folding as ORT does while partitioning. Removed nodes are listed
in ``Prediction.removed``, not placed. Observed corrections (``data/observed_corrections.json``) are
kept with the ORT version they were seen on; ``corrections=False`` predicts from the kernel table
alone. Accuracy against H200 sessions: docs/static-accuracy.md.

What it does not model: ORT's eliminations and fusions after folding (Identity, Cast, Expand,
Transpose, MatMul fusions) and the folding of an ``If`` with a constant condition; the
prediction keeps those nodes under their original names.
"""

from __future__ import annotations

import msgspec
import heapq
import json
from importlib import resources
from msgspec import field
from collections.abc import Callable
from typing import Any, Optional, Protocol, cast

import onnx
from onnx import TensorProto

from ortcopy_doctor.knowledge import kernel_memory
from ortcopy_doctor.model.evidence import MemcpyInsertion, RuntimeNode
from ortcopy_doctor.model.vocabulary import MemcpyOp
from ortcopy_doctor.knowledge.kernels import KernelMatch, KernelTable, norm_domain
from ortcopy_doctor.knowledge.providers import CPU, CUDA
from ortcopy_doctor.knowledge.model_file import _type_string, elem_dtype, subgraphs as _subgraphs  # _type_string: ORT's spelling of non-tensor types, as kernels.json keeps it


# ORT's threshold (kSmallInitializerThreshold): initializers of at most this many elements do not
# stop a node from being CPU-preferred.
SMALL_INITIALIZER_ELEMENTS = 100

# GetCpuPreferredNodes never moves a node with an input of these types to CPU (slow or no CPU kernels).
_NO_CPU_PREFERENCE_TYPES = frozenset(
    {"float16", "bfloat16", "float8e4m3fn", "float8e4m3fnuz", "float8e5m2", "float8e5m2fnuz"}
)


class Correction(msgspec.Struct, frozen=True):
    """Where observed placement contradicts OperatorKernels.md, for one ORT version.

    Loaded from ``data/observed_corrections.json``; general by construction (op, domain, opset
    range, optionally an attribute value or a present input), never tied to a model.
    """

    ort_version: str
    provider: str
    domain: str
    op_type: str
    since: int
    until: Optional[int]
    has_kernel: bool
    evidence: str
    when: Optional[dict[str, Any]] = None  # {"attribute", "default", "in"} or {"input_present": index}

    def applies(self, provider: str, domain: str, node: onnx.NodeProto, opset: int) -> bool:
        """Whether this correction is about ``node`` on ``provider`` at ``opset``, its ``when`` condition included."""
        if (provider, domain, node.op_type) != (self.provider, self.domain, self.op_type):
            return False
        if opset < self.since or (self.until is not None and opset > self.until):
            return False
        if not self.when:
            return True
        if "input_present" in self.when:
            k = int(self.when["input_present"])
            return len(node.input) > k and bool(node.input[k])
        value = self.when.get("default")
        for a in node.attribute:
            if a.name == self.when["attribute"]:
                value = onnx.helper.get_attribute_value(a)
                value = value.decode() if isinstance(value, bytes) else value
        return value in self.when["in"]

    @property
    def label(self) -> str:
        """The op, opset range and condition, e.g. ``ArgMax 1+ with select_last_index in [1]``, for notes."""
        cond = ""
        if self.when and "attribute" in self.when:
            cond = f" with {self.when['attribute']} in {self.when['in']}"
        elif self.when:
            cond = f" with input {self.when['input_present']} given"
        rng = f"{self.since}+" if self.until is None else f"{self.since}-{self.until}"
        return f"{self.op_type} {rng}{cond}"


def _load_corrections() -> list[Correction]:
    text = resources.files("ortcopy_doctor").joinpath("knowledge/data/observed_corrections.json").read_text(encoding="utf-8")
    data = json.loads(text)
    return [
        Correction(
            ort_version=data["ort_version"], provider=c["provider"], domain=norm_domain(c["domain"]), op_type=c["op"],
            since=int(c["since"]), until=None if c.get("until") is None else int(c["until"]),
            has_kernel=bool(c["has_kernel"]), evidence=c["evidence"], when=c.get("when"),
        )
        for c in data["corrections"]
    ]


# Observed corrections to the kernel table, each with the ORT version it was observed on.
OBSERVED_CORRECTIONS: list[Correction] = _load_corrections()
# The corrections that can apply to a (provider, domain, op type), in file order: looked up per node, not scanned.
_CORRECTIONS_BY_OP: dict[tuple[str, str, str], list[Correction]] = {}
for _c in OBSERVED_CORRECTIONS:
    _CORRECTIONS_BY_OP.setdefault((_c.provider, _c.domain, _c.op_type), []).append(_c)


# ORT's ConstantFolding leaves these alone (optimizer_utils::IsOperationDeterministic)
_NON_DETERMINISTIC = frozenset(
    ("ai.onnx", op) for op in ("RandomUniform", "RandomNormal", "RandomUniformLike", "RandomNormalLike", "Multinomial")
)


class RemovedNode(msgspec.Struct, frozen=True):
    """A node of the model that ORT removes before placing nodes, so it is never placed."""

    name: str
    op_type: str
    graph: str  # "" for the main graph, else the subgraph path
    why: str  # "constant": a Constant node, loaded as an initializer; "folded": constant-folded;
    # "inlined": an ONNX function op without a kernel, expanded into its body


class Prediction(msgspec.Struct, frozen=True):
    """Predicted placement and Memcpy insertions for one model and provider."""

    provider: str
    nodes: list[RuntimeNode] = field(default_factory=list)
    memcpy_insertions: list[MemcpyInsertion] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)
    # nodes ORT removes before partitioning (Constant nodes, constant folding); not in ``nodes``
    removed: list[RemovedNode] = field(default_factory=list)
    # the model as placed (functions inlined) with the shapes onnx inferred; None where shape inference failed
    shaped_model: Optional[onnx.ModelProto] = None

    def node(self, name: str) -> RuntimeNode:
        """The predicted node called ``name`` (KeyError if none)."""
        for n in self.nodes:
            if n.name == name:
                return n
        raise KeyError(name)


# --- model facts -------------------------------------------------------------------------------


class _Scope:
    """Value types of one graph, falling back to the enclosing graph's (subgraphs see outer names).

    ``constants`` are the values ORT holds as constant initializers once it has loaded and optimised
    the graph: initializers a feed cannot override, ``Constant`` node outputs and the outputs of
    nodes it constant-folds; each maps to its element count (None where unknown).
    """

    def __init__(self, graph: onnx.GraphProto, parent: Optional["_Scope"], ir_version: int = 10) -> None:
        self.parent = parent
        self.types: dict[str, Optional[str]] = {}
        self.shapes: dict[str, Optional[tuple[Optional[int], ...]]] = {}
        self.initializers: dict[str, TensorProto] = {t.name: t for t in graph.initializer}
        # ORT: from IR version 4 on, an initializer listed as a graph input is a default a feed may override
        overridable = {i.name for i in graph.input} if (parent is None and ir_version >= 4) else set()
        self.constants: dict[str, Optional[int]] = {
            t.name: _elements(tuple(t.dims)) for t in graph.initializer if t.name not in overridable
        }
        self.protos: dict[str, onnx.TypeProto] = {}
        for t in graph.initializer:
            self.types[t.name] = elem_dtype(t.data_type)
            self.shapes[t.name] = tuple(int(d) for d in t.dims)
            self.protos[t.name] = onnx.helper.make_tensor_type_proto(t.data_type, list(t.dims))
        for vi in list(graph.input) + list(graph.value_info) + list(graph.output):
            if vi.HasField("type"):
                self.protos.setdefault(vi.name, vi.type)
                self.types[vi.name] = _arg_type(vi.type)
                self.shapes.setdefault(vi.name, _arg_shape(vi.type))

    def type_proto(self, name: str) -> Optional[onnx.TypeProto]:
        if name in self.protos:
            return self.protos[name]
        return self.parent.type_proto(name) if self.parent else None

    def type_of(self, name: str) -> Optional[str]:
        if not name:
            return None
        if name in self.types:
            return self.types[name]
        return self.parent.type_of(name) if self.parent else None

    def shape_of(self, name: str) -> Optional[tuple[Optional[int], ...]]:
        if not name:
            return None
        if name in self.shapes:
            return self.shapes[name]
        return self.parent.shape_of(name) if self.parent else None

    def initializer(self, name: str) -> Optional[TensorProto]:
        # like ORT's GetInitializer(name, check_outer_scope=true)
        if name in self.initializers:
            return self.initializers[name]
        return self.parent.initializer(name) if self.parent else None

    def is_constant(self, name: str) -> bool:
        # like ORT's GetConstantInitializer(name, check_outer_scope=true)
        if not name:
            return False
        if name in self.constants:
            return True
        if name in self.types and name not in self.initializers:
            return False  # a value of this graph (input or node output) shadows outer names
        return self.parent.is_constant(name) if self.parent else False

    def constant_elements(self, name: str) -> Optional[int]:
        if name in self.constants:
            return self.constants[name]
        return self.parent.constant_elements(name) if self.parent else None


def _elements(dims: Optional[tuple[Optional[int], ...]]) -> Optional[int]:
    if dims is None or any(d is None for d in dims):
        return None
    n = 1
    for d in dims:
        n *= int(d)  # type: ignore[arg-type]
    return n


def _arg_shape(tp: onnx.TypeProto) -> Optional[tuple[Optional[int], ...]]:
    """Dims of a tensor type (None per unknown dim); None where the rank is unknown or not a tensor."""
    if tp.WhichOneof("value") != "tensor_type" or not tp.tensor_type.HasField("shape"):
        return None
    return tuple(d.dim_value if d.HasField("dim_value") else None for d in tp.tensor_type.shape.dim)


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
    """``model`` with the shapes onnx infers; ``model`` itself (with a note) where shape inference fails."""
    try:
        return onnx.shape_inference.infer_shapes(model, strict_mode=False, data_prop=True)
    except Exception as exc:  # >2 GB protos, unknown custom ops in strict paths, broken models
        notes.append(f"shape inference failed ({type(exc).__name__}: {exc}); types come from the declared value_info only")
        return model


# --- function inlining -------------------------------------------------------------------------


class _FunctionSchema(Protocol):
    """The function-body part of ``onnx.defs.OpSchema``, which onnx's own stubs leave out (onnx 1.23 ships them
    without these members and its ``get_function_ops`` ignores the same attr-defined error)."""

    @property
    def since_version(self) -> int: ...
    @property
    def has_function(self) -> bool: ...
    @property
    def function_opset_versions(self) -> list[int]: ...
    # bytes in onnx 1.23; the caller also accepts None or a FunctionProto, as other onnx versions may return
    def get_function_with_opset_version(self, opset_version: int, /) -> bytes | onnx.FunctionProto | None: ...
    @property
    def has_context_dependent_function(self) -> bool: ...
    @property
    def context_dependent_function_opset_versions(self) -> list[int]: ...
    def get_context_dependent_function_with_opset_version(
        self, opset_version: int, node: bytes, input_types: list[bytes], /
    ) -> bytes: ...


def _function_body(node: onnx.NodeProto, domain: str, opset: int, scope: "_Scope") -> Optional[onnx.FunctionProto]:
    """The ONNX function body ``node`` expands to (its schema's, for the model's opset), or None."""
    try:
        schema = cast(
            _FunctionSchema, onnx.defs.get_schema(node.op_type, opset, "" if domain == "ai.onnx" else domain)
        )
    except Exception:
        return None
    try:
        if schema.has_function:
            versions = [v for v in schema.function_opset_versions if v <= opset] or [schema.since_version]
            body = schema.get_function_with_opset_version(max(versions))
            if body is None:
                return None
            if isinstance(body, onnx.FunctionProto):
                return body
            fp = onnx.FunctionProto()
            fp.ParseFromString(body if isinstance(body, bytes) else body.SerializeToString())
            return fp
        if schema.has_context_dependent_function:
            types = []
            for name in node.input:
                tp = scope.type_proto(name) if name else None
                if name and tp is None:
                    return None  # the body depends on input types we do not know
                types.append((tp or onnx.TypeProto()).SerializeToString())
            versions = [v for v in schema.context_dependent_function_opset_versions if v <= opset] or [schema.since_version]
            raw = schema.get_context_dependent_function_with_opset_version(max(versions), node.SerializeToString(), types)
            if not raw:
                return None
            fp = onnx.FunctionProto()
            fp.ParseFromString(raw)
            return fp
    except Exception:  # a function builder that rejects this node: ORT would not inline it either
        return None
    return None


def _rename_graph(graph: onnx.GraphProto, rename: dict[str, str]) -> None:
    for vi in list(graph.input) + list(graph.output):
        vi.name = rename.get(vi.name, vi.name)
    for n in graph.node:
        _rename_node(n, rename)


def _rename_node(n: onnx.NodeProto, rename: dict[str, str]) -> None:
    n.input[:] = [rename.get(x, x) if x else x for x in n.input]
    n.output[:] = [rename.get(x, x) if x else x for x in n.output]
    for a in n.attribute:
        if a.type == onnx.AttributeProto.GRAPH:
            _rename_graph(a.g, rename)
        elif a.type == onnx.AttributeProto.GRAPHS:
            for g in a.graphs:
                _rename_graph(g, rename)


def _expand(node: onnx.NodeProto, body: onnx.FunctionProto, prefix: Optional[str] = None,
            local: bool = False, number: Optional[Callable[[str], str]] = None) -> list[onnx.NodeProto]:
    """``node`` replaced by its function body, as ORT inlines it (internal values get a unique prefix). ``number``:
    where given, called once per body node in order (ORT gives every node it adds the next index); an unnamed body
    node takes what it returns, the name ORT's profiler gives it."""
    prefix = prefix if prefix is not None else f"_inlfunc_{node.op_type}_{node.name}_"
    rename: dict[str, str] = {}
    for k, formal in enumerate(body.input):
        rename[formal] = node.input[k] if k < len(node.input) else ""
    for k, formal in enumerate(body.output):
        rename[formal] = node.output[k] if k < len(node.output) else prefix + formal
    attrs = {a.name: a for a in node.attribute}
    defaults = {a.name: a for a in body.attribute_proto}
    out: list[onnx.NodeProto] = []
    for k, inner in enumerate(body.node):
        new = onnx.NodeProto()
        new.CopyFrom(inner)
        # a local function's node keeps its own name after the prefix, as ORT names it (H200, onnxruntime-gpu 1.31.1);
        # an unnamed one keeps its empty name in ORT's graph, and its profile calls it <op_type>_<index>
        numbered = number(inner.op_type) if number is not None else ""
        if local and inner.name:
            new.name = prefix + inner.name
        else:
            new.name = numbered or f"{prefix}{k}_{inner.op_type}"
        for name in list(new.input) + list(new.output):
            if name and name not in rename:
                rename[name] = prefix + name
        del new.attribute[:]
        for a in inner.attribute:
            if a.ref_attr_name:
                src = attrs.get(a.ref_attr_name) or defaults.get(a.ref_attr_name)
                if src is None:
                    continue
                b = onnx.AttributeProto()
                b.CopyFrom(src)
                b.name = a.name
                new.attribute.append(b)
            else:
                new.attribute.append(a)
        out.append(new)
    for new in out:
        _rename_node(new, rename)
    return out


# --- placement ---------------------------------------------------------------------------------


class _NodeFacts(msgspec.Struct):
    node: onnx.NodeProto
    domain: str
    opset: int  # the schema's since_version where onnx knows the op
    input_types: list[Optional[str]]
    output_types: list[Optional[str]]
    match: Optional[KernelMatch] = None  # on the requested provider
    provider: str = CPU
    reason: Optional[str] = None
    detail: str = ""


def with_local_functions_inlined(model: onnx.ModelProto, notes: list[str]) -> onnx.ModelProto:
    """``model`` with its model-local functions (``model.functions``: TorchScript's export_modules_as_functions,
    onnxscript, graph tools) inlined, as ORT inlines every call no EP claims before it places nodes; the body's
    nodes are then placed one by one. The call node once was placed as an op of its own, with no kernel: a false CPU
    fallback and two Memcpy nodes.

    A body's inner values and nodes are named as ORT names them (seen on the H200 with onnxruntime-gpu 1.31.1):
    ``_inlfunc_<function>_<name>`` for the first call of a function, ``_inlfunc_<function>_token_0_<name>`` for
    the second, and so on."""
    if not model.functions:
        return model
    functions = {(f.domain, f.name): f for f in model.functions}
    out = onnx.ModelProto()
    out.CopyFrom(model)
    calls: dict[tuple[str, str], int] = {}
    # ORT numbers every node it adds to the main graph after the model's own (a function called twice after 3 nodes:
    # Relu_3, Neg_4, then Relu_5, Neg_6 in the profile, on the CPU EP); an unnamed body node is named so here
    added = [len(model.graph.node)]

    def number(op_type: str) -> str:
        added[0] += 1
        return f"{op_type}_{added[0] - 1}"

    def inline(graph: onnx.GraphProto, main: bool = True) -> bool:
        changed = False
        nodes: list[onnx.NodeProto] = []
        for node in graph.node:
            for _, sub in _subgraphs(node):
                changed |= inline(sub, main=False)
            body = functions.get((node.domain, node.op_type))
            if body is None:
                nodes.append(node)
                continue
            k = calls.get((node.domain, node.op_type), 0)
            calls[(node.domain, node.op_type)] = k + 1
            nodes.extend(_expand(node, body, prefix=f"_inlfunc_{body.name}_" + (f"token_{k - 1}_" if k else ""),
                                 local=True, number=number if main else None))
            changed = True
        if changed:
            del graph.node[:]
            graph.node.extend(nodes)
        return changed

    try:
        for _ in range(8):  # bodies may call functions themselves
            if not inline(out.graph):
                break
        del out.functions[:]
        present = {o.domain for o in out.opset_import}
        for f in functions.values():  # the bodies' own opsets (a body may use a domain the graph does not)
            for o in f.opset_import:
                if o.domain not in present:
                    out.opset_import.append(o)
                    present.add(o.domain)
    except Exception as exc:  # noqa: BLE001 - a body it cannot expand: each call is placed as one node
        notes.append(f"the model's local functions could not be inlined ({type(exc).__name__}: "
                     f"{str(exc).splitlines()[0][:120] if str(exc) else ''}): each call is placed as one node")
        return model
    return out


class _Predictor:
    def __init__(
        self, model: onnx.ModelProto, provider: str, table: KernelTable, ort_version: Optional[str], fold: bool = True,
        corrections: bool = True,
    ) -> None:
        self.provider = provider
        self.table = table
        self.ort_version = ort_version
        self.fold = fold
        self.use_corrections = corrections
        self.corrections_used: dict[str, Correction] = {}
        self.removed: list[RemovedNode] = []
        self.notes: list[str] = []
        # local functions first (ORT inlines every call before it places nodes), then ONNX function ops without a
        # kernel are expanded in that model: both kinds inlined when a model has both
        inlined = with_local_functions_inlined(model, self.notes)
        self.model = _infer(inlined, self.notes)
        self.shaped = self.model is not inlined
        self.opsets = {norm_domain(o.domain): int(o.version) for o in self.model.opset_import}
        self.inlined: list[RemovedNode] = []
        self.inlined_nodes: set[str] = set()
        # A 10k-node model asks the same few questions thousands of times (each node twice: inlining, placement):
        # the kernel table's answers and schema versions are kept per question.
        self._matches: dict[tuple[Any, ...], KernelMatch] = {}
        self._since: dict[tuple[str, int, str], int] = {}
        if self.provider != CPU:
            self._inline_functions(inlined)

    def _inline_functions(self, original: onnx.ModelProto) -> None:
        """ORT inlines a node that no EP has a kernel for when its op is an ONNX function (CastLike,
        NegativeLogLikelihoodLoss, ...); its body's nodes are then optimised and placed like any other."""
        model = onnx.ModelProto()
        model.CopyFrom(original)
        for _ in range(4):  # bodies may hold function ops themselves
            changed = self._inline_graph(model.graph, self._scopes(model), "")
            if not changed:
                return
            self.model = _infer(model, [])
            self.shaped = self.model is not model

    def _scopes(self, model: onnx.ModelProto) -> dict[int, "_Scope"]:
        """Scopes of the inferred model's graphs, by position in a walk (the uninferred copy walks alike)."""
        scopes: dict[int, _Scope] = {}

        def walk(g: onnx.GraphProto, parent: Optional[_Scope]) -> None:
            scope = _Scope(g, parent, self.model.ir_version)
            scopes[len(scopes)] = scope
            for n in g.node:
                for _, sub in _subgraphs(n):
                    walk(sub, scope)

        walk(self.model.graph, None)
        return scopes

    def _inline_graph(self, graph: onnx.GraphProto, scopes: dict[int, "_Scope"], path: str, counter: Optional[list[int]] = None) -> bool:
        counter = counter if counter is not None else [0]
        scope = scopes.get(counter[0])
        counter[0] += 1
        changed = False
        new_nodes: list[onnx.NodeProto] = []
        for node in graph.node:
            for attr_name, sub in _subgraphs(node):
                changed |= self._inline_graph(sub, scopes, f"{path}/{node.name or node.op_type}.{attr_name}".lstrip("/"), counter)
            body = None
            if scope is not None and not any(True for _ in _subgraphs(node)):
                f = self._facts(node, scope)
                if not self._lookup(self.provider, f).found and not self._lookup(CPU, f).found:
                    body = _function_body(node, f.domain, self.opsets.get(f.domain, 1), scope)
            if body is None or not body.node:
                new_nodes.append(node)
                continue
            self.inlined.append(RemovedNode(name=node.name, op_type=node.op_type, graph=path, why="inlined"))
            expanded = _expand(node, body)
            self.inlined_nodes.update(n.name for n in expanded)
            new_nodes.extend(expanded)
            changed = True
        if changed:
            del graph.node[:]
            graph.node.extend(new_nodes)
        return changed

    def run(self) -> Prediction:
        nodes, insertions = self._graph(self.model.graph, "", None, None)
        seen: set[tuple[str, str]] = set()
        unique = []
        for ins in insertions:  # one insertion per tensor and direction
            if (ins.op_type, ins.tensor) not in seen:
                seen.add((ins.op_type, ins.tensor))
                unique.append(ins)
        for _, c in sorted(self.corrections_used.items()):
            self.notes.append(f"{c.label}: kernel table corrected from observation with ORT {c.ort_version}: {c.evidence}")
        src = self.table.source
        self.notes.append(
            f"static prediction from {src.get('file', 'kernels.json')} (ORT commit {src.get('commit')}); "
            "Constant nodes, constant folding and function inlining are modelled; ORT's fusions and eliminations "
            "(Identity, Cast, Transpose, ...) are not"
        )
        self.removed = self.inlined + self.removed
        inlined = sorted({r.op_type for r in self.inlined})
        if inlined:
            self.notes.append(
                f"ORT has no kernel for {', '.join(inlined)} and expands {'it' if len(inlined) == 1 else 'them'} into "
                "the ONNX function body; the prediction places the body's nodes"
            )
        folded = [r for r in self.removed if r.why == "folded"]
        if folded:
            self.notes.append(
                f"{len(folded)} node(s) are constant-folded by ORT when it creates the session (predicted), so they are "
                "never placed: " + ", ".join(r.name or r.op_type for r in folded[:10]) + (" ..." if len(folded) > 10 else "")
            )
        return Prediction(
            provider=self.provider, nodes=nodes, memcpy_insertions=unique, notes=self.notes, removed=self.removed,
            shaped_model=self.model if self.shaped else None,
        )

    # one graph --------------------------------------------------------------------------------

    def _facts(self, node: onnx.NodeProto, scope: _Scope) -> _NodeFacts:
        domain = norm_domain(node.domain)
        imported = self.opsets.get(domain, 1)
        key = (node.op_type, imported, domain)
        opset = self._since.get(key)
        if opset is None:
            opset = imported
            try:
                # ORT matches a registration against the node's SinceVersion, not the model's opset
                opset = onnx.defs.get_schema(node.op_type, imported, "" if domain == "ai.onnx" else domain).since_version
            except Exception:  # custom domains (com.microsoft) are unknown to onnx: keep the imported version
                pass
            self._since[key] = opset
        return _NodeFacts(
            node=node,
            domain=domain,
            opset=opset,
            input_types=[scope.type_of(n) for n in node.input],
            output_types=[scope.type_of(n) for n in node.output],
        )

    def _lookup(self, provider: str, f: _NodeFacts) -> KernelMatch:
        key = (provider, f.domain, f.node.op_type, f.opset, tuple(f.input_types), tuple(f.output_types))
        match = self._matches.get(key)
        if match is None:
            match = self._matches[key] = self.table.lookup(provider, f.domain, f.node.op_type, f.opset,
                                                           f.input_types, f.output_types)
        if not self.use_corrections:
            return match
        for c in _CORRECTIONS_BY_OP.get((provider, f.domain, f.node.op_type), ()):
            if self.ort_version is not None and self.ort_version != c.ort_version:
                continue
            if c.has_kernel == match.found or not c.applies(provider, f.domain, f.node, f.opset):
                continue
            self.corrections_used[c.label] = c
            match = KernelMatch(
                found=c.has_kernel, reason="ok" if c.has_kernel else "observed", provider=provider, domain=f.domain,
                op_type=f.node.op_type, opset=f.opset, note=f"{c.label} in ORT {c.ort_version}",
            )
            break
        return match

    def _removed_before_partitioning(self, facts: list[_NodeFacts], scope: _Scope, graph: onnx.GraphProto) -> dict[int, str]:
        """Nodes ORT removes before it places any (index -> "constant" or "folded"), in node order.

        ORT turns ``Constant`` nodes into initializers when it loads a graph, and its ConstantFolding
        transformer (core/optimizer/constant_folding.cc, level 1: before partitioning) runs on the CPU
        EP every deterministic node without subgraphs whose inputs are all constant initializers, and
        every ``Shape`` whose input shape is fully known; their outputs become initializers, which
        ORT duplicates per device instead of copying.
        """
        removed: dict[int, str] = {}
        for i, f in enumerate(facts):
            node = f.node
            if f.domain == "ai.onnx" and node.op_type == "Constant":
                removed[i] = "constant"
                for out in node.output:
                    scope.constants[out] = _elements(scope.shape_of(out))
                continue
            if not self.fold or node.name in self.inlined_nodes or any(True for _ in _subgraphs(node)):
                continue  # ORT inlines function bodies while partitioning, after constant folding
            if f.domain == "ai.onnx" and node.op_type == "Shape":
                shape = scope.shape_of(node.input[0]) if node.input else None
                if shape is not None and all(d is not None for d in shape):
                    removed[i] = "folded"
                    scope.constants[node.output[0]] = _elements(scope.shape_of(node.output[0]))
                continue
            if (f.domain, node.op_type) in _NON_DETERMINISTIC:
                continue
            if not all(scope.is_constant(name) for name in node.input):
                continue
            if any(t is not None and "(" in t for t in f.output_types):
                continue  # only tensors become initializers
            if not self._lookup(CPU, f).found:
                continue  # folding runs the node with the CPU EP's kernel
            removed[i] = "folded"
            for out in node.output:
                if out:
                    scope.constants[out] = _elements(scope.shape_of(out))
        return removed

    def _graph(
        self, graph: onnx.GraphProto, path: str, parent: Optional[_Scope], parent_implicit: Optional[set[str]]
    ) -> tuple[list[RuntimeNode], list[MemcpyInsertion]]:
        scope = _Scope(graph, parent, self.model.ir_version)
        all_facts = [self._facts(n, scope) for n in graph.node]
        removed = self._removed_before_partitioning(all_facts, scope, graph)
        for i, why in removed.items():
            node = all_facts[i].node
            self.removed.append(RemovedNode(name=node.name, op_type=node.op_type, graph=path, why=why))
        facts = [f for i, f in enumerate(all_facts) if i not in removed]
        input_order = [i.name for i in graph.input if i.name not in scope.initializers]
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
            local = set(scope.types) | set(scope.initializers) | set(scope.constants)
            for f in all_facts:
                local.update(f.node.output)
            outer = frozenset(
                name for f in facts for name in f.node.input if name and name not in local
            )
            declared_inputs = {i.name for i in graph.input}
            for i in sorted(self._cpu_preferred(facts, tentative, declared_inputs, scope, outer)):
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

        insertions = self._memcpy(facts, input_order, parent_implicit, path) if on_device else []

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
        self, facts: list[_NodeFacts], tentative: set[int], graph_inputs: set[str], scope: _Scope,
        outer_scope: frozenset[str] = frozenset(),
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
                # ORT lets small initializers, graph inputs and outer-scope values through
                if self._small_initializer(scope, name) or name in graph_inputs or name in outer_scope:
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
        # initializers of this graph, folded values included (ORT's GetInitializedTensor, no outer scope)
        if not name or name not in scope.initializers and name not in scope.constants:
            return False
        t = scope.initializers.get(name)
        size = _elements(tuple(t.dims)) if t is not None else scope.constants.get(name)
        return size is not None and size <= SMALL_INITIALIZER_ELEMENTS

    def _memcpy(
        self, facts: list[_NodeFacts], graph_inputs: list[str], parent_implicit: Optional[set[str]], path: str = ""
    ) -> list[MemcpyInsertion]:
        """ORT's TransformerMemcpyImpl::ModifyGraph for one graph (``path``, as the nodes' ``graph`` names it), in
        its order."""
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
                out.append(MemcpyInsertion(MemcpyOp.FROM_HOST, name, self.provider, path))
        for name in sorted(host_out):  # ORT's sets are ordered by name
            if name in device_in:
                out.append(MemcpyInsertion(MemcpyOp.FROM_HOST, name, self.provider, path))
        for name in sorted(device_out):
            if name in host_in:
                out.append(MemcpyInsertion(MemcpyOp.TO_HOST, name, self.provider, path))
        for name in sorted(parent_implicit or ()):
            if name in device_in and name in host_in:
                out.append(MemcpyInsertion(MemcpyOp.FROM_HOST, name, self.provider, path))
        return out


def predict(
    model: onnx.ModelProto,
    provider: str = CUDA,
    *,
    ort_version: Optional[str] = None,
    table: Optional[KernelTable] = None,
    fold: bool = True,
    corrections: bool = True,
) -> Prediction:
    """Predict each node's provider (subgraphs included) and ORT's Memcpy insertions for ``provider``.

    ``ort_version``: apply only the observed corrections recorded for that version (None: all).
    ``table``: a kernel table to use instead of the packaged one (tests, other ORT versions).
    ``fold``: model ORT's constant folding (nodes it folds are in ``Prediction.removed``, not placed).
    ``corrections``: False uses the kernel table alone (how accurate the table is by itself).
    """
    table = table or KernelTable.load()
    if provider not in table.providers:
        raise ValueError(
            f"no kernel table for {provider}: predictions cover {', '.join(table.providers)}"
        )
    return _Predictor(model, provider, table, ort_version, fold=fold, corrections=corrections).run()


__all__ = ["CPU", "CUDA", "OBSERVED_CORRECTIONS", "Correction", "Prediction", "RemovedNode", "predict",
           "with_local_functions_inlined"]
