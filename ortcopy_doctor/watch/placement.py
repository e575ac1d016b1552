"""Placement: which inputs a device kernel reads in device memory, which outputs it writes there, and the model's
own transfer sites, from the session's EP assignment or from static prediction on the model."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any, Optional

from ortcopy_doctor.collect.assignment import Assignment, assigned_provider, ep_assignment
from ortcopy_doctor.knowledge.providers import is_device, short
from ortcopy_doctor.model.evidence import MemcpyInsertion, RuntimeNode
from ortcopy_doctor.model.vocabulary import DEVICE_TO_HOST, HOST_TO_DEVICE, IN_KERNEL, MEMCPY_NODE, MEMCPY_OPS
from ortcopy_doctor.model.watch import (
    PLACEMENT_PREDICTED,
    PLACEMENT_SESSION,
    ModelTransferSite,
    Placement,
    PlacementSource,
)


def placement_from_nodes(nodes: list[RuntimeNode], inputs: list[str], outputs: list[str], opsets: dict[str, int],
                         *, source: PlacementSource, provider: str, detail: str = "",
                         insertions: Sequence[MemcpyInsertion] = ()) -> Placement:
    """Placement facts of a graph whose nodes carry their providers (the runtime graph, or a prediction)."""
    from ortcopy_doctor.knowledge import kernel_memory
    from ortcopy_doctor.analysis.copies import GraphView, copied_by_memcpy_node, describe_node

    view = GraphView.of_nodes(nodes, opsets)
    result = Placement(source=source, provider=provider, detail=detail)
    host_side = {m.tensor for m in insertions}
    copied_by_node = copied_by_memcpy_node(nodes, insertions)  # inputs read on the host too stay there
    for name in inputs:
        uses = view.consumers.get(name, [])
        device_uses = view.device_readers(name)
        if device_uses and name in copied_by_node and len(device_uses) < len(uses):
            result.inputs_on_host[name] = ", ".join(describe_node(u.node) for u in uses if u not in device_uses) + \
                " in host memory; ORT copies it for " + ", ".join(describe_node(u.node) for u in device_uses) + \
                " with a MemcpyFromHost node"
        elif device_uses:
            result.inputs_on_device[name] = ", ".join(describe_node(u.node) for u in device_uses)
        elif uses:
            result.inputs_on_host[name] = ", ".join(
                (f"{describe_node(u.node)} input {u.index} in host memory" if is_device(u.node.provider) else describe_node(u.node))
                for u in uses)
        else:
            result.inputs_on_host[name] = "not read by any node"
    input_set = set(inputs)
    for name in outputs:
        producer = view.producers.get(name)
        if name in input_set:
            continue
        writer = view.device_writer(name, host_side)
        if writer is not None:
            result.outputs_on_device[name] = describe_node(writer.node)
        else:
            result.outputs_on_host[name] = describe_node(producer.node) if producer else "not produced by a node"
    memcpy_nodes = [n for n in nodes if n.op_type in MEMCPY_OPS]
    if memcpy_nodes:
        for n in memcpy_nodes:
            to_host = n.op_type == "MemcpyToHost"
            tensor = (n.outputs[0] if to_host else n.inputs[0]) if (n.outputs and n.inputs) else ""
            result.model_sites.append(ModelTransferSite(
                kind=MEMCPY_NODE, direction=DEVICE_TO_HOST if to_host else HOST_TO_DEVICE, node=n.name,
                op_type=n.op_type, tensor=tensor,
                cause=f"ORT's {n.op_type} node '{n.name}' copies '{tensor}' at a CPU/{short(provider)} boundary"))
    else:
        for m in insertions:
            to_host = m.op_type == "MemcpyToHost"
            result.model_sites.append(ModelTransferSite(
                kind=MEMCPY_NODE, direction=DEVICE_TO_HOST if to_host else HOST_TO_DEVICE, node="",
                op_type=m.op_type, tensor=m.tensor,
                cause=f"ORT inserts a {m.op_type} node for '{m.tensor}' at a CPU/{short(provider)} boundary"))
    for n in nodes:
        if not is_device(n.provider):
            continue
        for rule in kernel_memory.in_kernel_rules(n.domain, n.op_type):
            if rule.size == "data":
                continue  # only a census shows it (check's census_match explains those)
            # each rule's own direction: an RNN's sequence lengths go up, NonZero's count comes back
            result.model_sites.append(ModelTransferSite(
                kind=IN_KERNEL, direction=rule.direction, node=n.name, op_type=n.op_type,
                tensor=kernel_memory.transfer_tensor(rule, n.inputs, n.outputs), cause=f"{n.op_type} '{n.name}' {rule.reason}"))
    return result


def _graph_io(model: Any) -> tuple[list[str], list[str], dict[str, int]]:
    inits = {t.name for t in model.graph.initializer}
    inputs = [i.name for i in model.graph.input if i.name not in inits]
    outputs = [o.name for o in model.graph.output]
    opsets = {(o.domain or "ai.onnx"): int(o.version) for o in model.opset_import}
    return inputs, outputs, opsets


def predicted_placement(model: Any, provider: str, ort_version: Optional[str] = None) -> Placement:
    """Placement predicted from the model alone for ``provider`` (no session, no GPU)."""
    from ortcopy_doctor.knowledge.prediction import predict

    prediction = predict(model, provider, ort_version=ort_version)
    inputs, outputs, opsets = _graph_io(model)
    return placement_from_nodes(_named(prediction.nodes, model), inputs, outputs, opsets, source=PLACEMENT_PREDICTED,
                                provider=provider, detail="static prediction from the model",
                                insertions=prediction.memcpy_insertions)


def _named(nodes: list[RuntimeNode], model: Any) -> list[RuntimeNode]:
    """``nodes`` with those the model leaves unnamed named as ORT's profiler names them (analysis/node_names.py)."""
    from ortcopy_doctor.analysis.node_names import named_as_the_model
    from ortcopy_doctor.knowledge.model_file import node_infos

    if all(n.name for n in nodes):
        return nodes
    return named_as_the_model(nodes, node_infos(model.graph))[0]


def _assignment(session: Any) -> Optional[Assignment]:
    """The session's EP assignment (collect/assignment.py: unnamed nodes keyed by op type and rank)."""
    return ep_assignment(session)


def _session_placement(session: Any, model: Any, runtime_graph: Any, assignment: Assignment, provider: str,
                       ort_version: str) -> Placement:
    """Placement from the session's EP assignment, on the graph ORT ran (or the original graph)."""
    from ortcopy_doctor.knowledge.model_file import walk_nodes

    graph = runtime_graph if runtime_graph is not None else model
    eps = set(assignment.values())
    only = next(iter(eps)) if len(eps) == 1 else ""
    predicted: dict[str, str] = {}
    if runtime_graph is None:
        try:
            predicted = {n.name: n.provider for n in predicted_placement_nodes(model, provider, ort_version)}
        except Exception:  # noqa: BLE001 - no kernel table for this provider
            predicted = {}
    nodes: list[RuntimeNode] = []
    guessed: list[str] = []
    rank: dict[tuple[str, str], int] = {}
    for path, node in walk_nodes(graph.graph):
        ep = assigned_provider(assignment, node.name, node.op_type, rank)
        if ep is None and node.name:  # a node of the file that ORT fused into "Name/..."
            fused = [v for k, v in assignment.items() if isinstance(k, str) and k.startswith(node.name + "/")]
            ep = fused[0] if fused else None
        if ep is None and node.op_type in MEMCPY_OPS:
            ep = provider
        if ep is None:
            ep = predicted.get(node.name) or only or provider
            guessed.append(node.name)
        nodes.append(RuntimeNode(name=node.name, op_type=node.op_type, domain=node.domain, provider=ep,
                                 inputs=list(node.input), outputs=list(node.output), graph=path))
    if model is not None:
        nodes = _named(nodes, model)
    inputs, outputs, opsets = _graph_io(graph)
    detail = ("get_provider_graph_assignment_info() on the graph ORT ran" if runtime_graph is not None
              else "get_provider_graph_assignment_info() mapped onto the model file's graph")
    if guessed:
        detail += f"; {len(guessed)} node(s) not in the assignment (fused away) placed by prediction"
    return placement_from_nodes(nodes, inputs, outputs, opsets, source=PLACEMENT_SESSION, provider=provider,
                                detail=detail)


def predicted_placement_nodes(model: Any, provider: str, ort_version: Optional[str]) -> list[RuntimeNode]:
    """The model's nodes with the providers static prediction assigns them for ``provider``."""
    from ortcopy_doctor.knowledge.prediction import predict

    return predict(model, provider, ort_version=ort_version).nodes
