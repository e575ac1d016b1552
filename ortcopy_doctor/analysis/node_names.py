"""Names for the nodes a model leaves unnamed: the name ORT's profiler gives them.

Many exporters (skl2onnx, hand-built graphs, ONNX's own test models) leave ``NodeProto.name`` empty. ORT keeps it
empty in the graph it runs and in the optimized model it saves, so the evidence had nodes named ``''`` and the
report findings "at " an empty location ("Scaler '' runs on CPU"). ORT's profiler names such a node
``<op_type>_<index>``, its index in its graph: the order of the model's nodes there (``Scaler_0``,
``LinearClassifier_1``, ``ZipMap_2`` in the profile of an skl2onnx pipeline the H200 ran, tests/fixtures/corpus).
``with_profiler_names`` gives each unnamed node of the evidence that name, found by its graph, op type and outputs
among the model's nodes (a node ORT made itself, a fused one, is named by ORT and never empty). A name that another
node of the same graph already has is not given (the node stays unnamed rather than share a name).
"""

from __future__ import annotations

from dataclasses import replace

from ortcopy_doctor.model.evidence import Evidence, RuntimeNode


def profiler_names(evidence: Evidence) -> dict[tuple[str, str, tuple[str, ...]], str]:
    """(graph, op type, outputs) of each unnamed node of the model -> ``<op_type>_<index in its graph>``."""
    index: dict[str, int] = {}
    taken: dict[str, set[str]] = {}
    found: dict[tuple[str, str, tuple[str, ...]], str] = {}
    for node in evidence.model.nodes:
        i = index.get(node.graph, 0)
        index[node.graph] = i + 1
        if node.name:
            taken.setdefault(node.graph, set()).add(node.name)
        else:
            found.setdefault((node.graph, node.op_type, tuple(node.outputs)), f"{node.op_type}_{i}")
    return {key: name for key, name in found.items() if name not in taken.get(key[0], set())}


def with_profiler_names(evidence: Evidence) -> Evidence:
    """``evidence`` with its unnamed nodes (``nodes``) named as ORT's profiler names them; the same object where
    every node has a name already (or none can be found)."""
    if all(n.name for n in evidence.nodes):
        return evidence
    names = profiler_names(evidence)
    if not names:
        return evidence
    taken = {(n.graph, n.name) for n in evidence.nodes if n.name}
    nodes: list[RuntimeNode] = []
    changed = False
    for node in evidence.nodes:
        name = "" if node.name else names.get((node.graph, node.op_type, tuple(node.outputs)), "")
        if name and (node.graph, name) not in taken:
            taken.add((node.graph, name))
            nodes.append(replace(node, name=name))
            changed = True
        else:
            nodes.append(node)
    return replace(evidence, nodes=nodes) if changed else evidence
