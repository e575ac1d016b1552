"""Names for the nodes a model leaves unnamed: the name ORT's profiler gives them.

Many exporters (skl2onnx, hand-built graphs, ONNX's own test models) leave ``NodeProto.name`` empty. ORT keeps it
empty in the graph it runs and in the optimized model it saves, so the evidence had nodes named ``''`` and the
report findings "at " an empty location ("Scaler '' runs on CPU"). ORT's profiler names such a node
``<op_type>_<index>``, its index in its graph: the order of the model's nodes there (``Scaler_0``,
``LinearClassifier_1``, ``ZipMap_2`` in the profile of an skl2onnx pipeline the H200 ran, tests/fixtures/corpus).
``with_profiler_names`` gives each unnamed node of the evidence that name, found by its graph, op type and outputs
(else inputs) among the model's nodes (a node ORT made itself, a fused one, is named by ORT and never empty). ORT
renames a tensor it copies at a provider boundary, on the side away from the host: ``a`` becomes
``a_CUDAExecutionProvider`` (the H200, onnxruntime-gpu 1.31.1: an unnamed Relu before a CPU Cosh), so that suffix is
dropped before the tensors are compared. A name that another node of the same graph already has is not given (the
node stays unnamed rather than share a name). A main-graph node that is not among the model's nodes (the body of
an inlined local function) takes a name from the measured profile instead (``_from_the_profile``).
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from msgspec.structs import replace

from ortcopy_doctor.model.evidence import Evidence, NodeInfo, RuntimeNode


_PROVIDER_SUFFIX = re.compile(r"_[A-Za-z0-9]+ExecutionProvider$")

Key = tuple[str, str, str, tuple[str, ...]]  # graph, op type, "out" or "in", the tensors


def _tensors(names: list[str]) -> tuple[str, ...]:
    return tuple(_PROVIDER_SUFFIX.sub("", n) for n in names)


def profiler_names(model_nodes: Sequence[NodeInfo]) -> dict[Key, str]:
    """(graph, op type, "out", outputs) and (graph, op type, "in", inputs) of each unnamed node of the model ->
    ``<op_type>_<index in its graph>``; a key two unnamed nodes share is left out (it names neither)."""
    index: dict[str, int] = {}
    taken: dict[str, set[str]] = {}
    found: dict[Key, str] = {}
    shared: set[Key] = set()
    for node in model_nodes:
        i = index.get(node.graph, 0)
        index[node.graph] = i + 1
        if node.name:
            taken.setdefault(node.graph, set()).add(node.name)
            continue
        for key in ((node.graph, node.op_type, "out", _tensors(node.outputs)),
                    (node.graph, node.op_type, "in", _tensors(node.inputs))):
            if key in found:
                shared.add(key)
            found[key] = f"{node.op_type}_{i}"
    return {key: name for key, name in found.items() if key not in shared and name not in taken.get(key[0], set())}


def with_profiler_names(evidence: Evidence) -> Evidence:
    """``evidence`` with its unnamed nodes (``nodes``) named as ORT's profiler names them; the same object where
    every node has a name already (or none can be found)."""
    if all(n.name for n in evidence.nodes):
        return evidence
    nodes, changed = named_as_the_model(evidence.nodes, evidence.model.nodes)
    nodes, by_profile = _from_the_profile(evidence, nodes)
    return replace(evidence, nodes=nodes) if changed or by_profile else evidence


def named_as_the_model(runtime: Sequence[RuntimeNode], model_nodes: Sequence[NodeInfo]) -> tuple[list[RuntimeNode], bool]:
    """``runtime`` with each unnamed node that is one of the model's named ``<op_type>_<index in its graph>``
    (``profiler_names``), and whether any was; ``watch`` names its placement's nodes with it too."""
    if all(n.name for n in runtime):
        return list(runtime), False
    names = profiler_names(model_nodes)
    taken = {(n.graph, n.name) for n in runtime if n.name}
    nodes: list[RuntimeNode] = []
    changed = False
    for node in runtime:
        name = "" if node.name else (names.get((node.graph, node.op_type, "out", _tensors(node.outputs)))
                                     or names.get((node.graph, node.op_type, "in", _tensors(node.inputs))) or "")
        if name and (node.graph, name) not in taken:
            taken.add((node.graph, name))
            nodes.append(replace(node, name=name))
            changed = True
        else:
            nodes.append(node)
    return nodes, changed


def _from_the_profile(evidence: Evidence, nodes: list[RuntimeNode]) -> tuple[list[RuntimeNode], bool]:
    """Main-graph nodes still unnamed (the body of an inlined local function: not among the model's nodes, and ORT
    leaves a body node's empty name empty) take the profile's names that no node has: per op type, in graph order
    against the profile's index order, where the counts agree (ORT numbers the inlined nodes in the order it adds
    them; on the CPU EP here, a function called twice: ``Relu_2``, ``Neg_3``, ``Relu_4``, ``Neg_5``)."""
    unnamed: dict[str, list[int]] = {}
    for i, node in enumerate(nodes):
        if not node.name and not node.graph:
            unnamed.setdefault(node.op_type, []).append(i)
    if not unnamed or not evidence.node_events:
        return nodes, False
    have = {n.name for n in nodes}
    spare: dict[str, set[tuple[int, str]]] = {}
    for event in evidence.node_events:
        if event.name in have or event.op_type not in unnamed:
            continue
        head, _, tail = event.name.rpartition("_")
        if head == event.op_type and tail.isdigit():
            spare.setdefault(event.op_type, set()).add((int(tail), event.name))
    result = list(nodes)
    changed = False
    for op_type, positions in unnamed.items():
        found = sorted(spare.get(op_type, ()))
        if len(found) != len(positions):
            continue  # not one profile name per node: none is guessed
        for i, (_, name) in zip(positions, found):
            result[i] = replace(result[i], name=name)
            changed = True
    return result, changed
