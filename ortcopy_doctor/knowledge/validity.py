"""What onnxruntime would refuse when it loads a model, found without a session (``check --static`` creates none).

ORT's ``Graph::Resolve`` refuses a model whose graph (or a subgraph) has a cycle, a node input that nothing defines
(not a graph input, an initializer, a node's output or an outer-scope value), or a node of an ONNX domain ("",
ai.onnx.ml) whose op does not exist at the model's opset of that domain ("No Op registered for FooBar with
domain_version of 17"). A measured check reports ORT's own refusal; a static one used to predict copies for such a
model as if it ran. Other domains (com.microsoft's contrib ops, custom ops) are left to ORT: their kernels come from
the build or from a custom op library.
"""

from __future__ import annotations

from collections.abc import Iterable

import onnx  # loaded already: every model this judges was read with it

from ortcopy_doctor.knowledge.model_file import subgraphs, walk_nodes
from ortcopy_doctor.knowledge.providers import CUDA

_ONNX_DOMAINS = {"": "", "ai.onnx": "", "ai.onnx.ml": "ai.onnx.ml"}


def rejection(model: onnx.ModelProto) -> str | None:
    """Why onnxruntime would refuse ``model`` as invalid (its graph, or an op of an ONNX domain), else None."""
    opsets = {_ONNX_DOMAINS.get(o.domain, o.domain): o.version for o in model.opset_import}
    functions = {(f.domain, f.name) for f in model.functions}
    return _graph(model.graph, set(), opsets, functions, "")


def _graph(graph: onnx.GraphProto, outer: set[str], opsets: dict[str, int], functions: set[tuple[str, str]],
           where: str) -> str | None:
    defined = set(outer) | {v.name for v in graph.input} | {t.name for t in graph.initializer} \
        | {t.name for t in graph.sparse_initializer}
    producer: dict[str, int] = {}
    for i, node in enumerate(graph.node):
        for name in node.output:
            if name:
                producer[name] = i
    for i, node in enumerate(graph.node):
        label = _label(node, i) + where
        problem = _op(node, opsets, functions)
        if problem:
            return f"{label}: {problem}"
        for name in node.input:
            if name and name not in defined and name not in producer:
                return f"{label} reads '{name}', which is not a graph input, an initializer or a node's output"
    cycle = _cycle(graph.node, producer)
    if cycle is not None:
        return f"the graph{where} is not acyclic: {cycle} is on a cycle"
    names = defined | set(producer)
    for node in graph.node:
        for attr, body in subgraphs(node):
            problem = _graph(body, names, opsets, functions, f" in {node.op_type} '{node.name}'.{attr}")
            if problem:
                return problem
    return None


_SCHEMAS: dict[tuple[str, str, int], bool] = {}


def _op(node: onnx.NodeProto, opsets: dict[str, int], functions: set[tuple[str, str]]) -> str | None:
    domain = _ONNX_DOMAINS.get(node.domain)
    if domain is None or (node.domain, node.op_type) in functions:
        return None  # another domain's op (contrib, custom) or a local function: for ORT to judge
    version = opsets.get(domain)
    if version is None:
        return f"the model imports no opset of domain '{node.domain or 'ai.onnx'}'"
    key = (node.op_type, domain, version)
    known = _SCHEMAS.get(key)
    if known is None:
        try:
            onnx.defs.get_schema(node.op_type, version, domain)
            known = True
        except onnx.defs.SchemaError:
            # an opset newer than this onnx package knows: ORT's own registry may have the op; not judged here
            newest = onnx.defs.get_all_schemas_with_history()
            known = version > max((s.since_version for s in newest if s.domain == domain), default=0)
        _SCHEMAS[key] = known
    if not known:
        return f"no op {node.op_type} is registered in domain '{node.domain or 'ai.onnx'}' at opset {version}"
    return None


def _cycle(nodes: Iterable[onnx.NodeProto], producer: dict[str, int]) -> str | None:
    """A node a topological sort (Kahn's) cannot place, where the nodes' edges make a cycle (it is on the cycle
    or after it)."""
    nodes = list(nodes)
    waiting = [0] * len(nodes)
    readers: dict[int, list[int]] = {}
    for i, node in enumerate(nodes):
        for name in set(node.input):
            j = producer.get(name)
            if j is not None:
                waiting[i] += 1
                readers.setdefault(j, []).append(i)
    ready = [i for i, n in enumerate(waiting) if n == 0]
    done = 0
    while ready:
        i = ready.pop()
        done += 1
        for k in readers.get(i, ()):
            waiting[k] -= 1
            if waiting[k] == 0:
                ready.append(k)
    if done == len(nodes):
        return None
    stuck = next(i for i, n in enumerate(waiting) if n > 0)
    return _label(nodes[stuck], stuck)


def _label(node: onnx.NodeProto, index: int) -> str:
    return f"{node.op_type} '{node.name}'" if node.name else f"{node.op_type} (node {index})"


_RNNS = {"RNN", "GRU", "LSTM"}


def device_refusal(model: onnx.ModelProto, provider: str) -> str | None:
    """Why ``provider`` (CUDA) would fail to create its session for ``model``, where the model is valid: an ONNX
    RNN, GRU or LSTM with ``layout=1`` (batch first). ORT's cuDNN kernels refuse it at session creation ("Batchwise
    recurrent operations (layout == 1) are not supported"; seen on the H200, onnxruntime-gpu 1.31.1)."""
    if provider != CUDA:
        return None
    for _, node in walk_nodes(model.graph):
        if node.op_type in _RNNS and node.domain in ("", "ai.onnx") and \
                any(a.name == "layout" and a.i == 1 for a in node.attribute):
            return (f"{node.op_type} '{node.name}' has layout=1 (batch first), which the CUDA provider's cuDNN "
                    "kernels do not support: ORT fails to create the session (\"Batchwise recurrent operations "
                    "(layout == 1) are not supported\"); export it with layout 0 (sequence first)")
    return None


__all__ = ["device_refusal", "rejection"]
