"""The EP assignment ORT records for a session (``get_provider_graph_assignment_info()``, ORT >= 1.26 with the
session config ``session.record_ep_graph_assignment_info=1``), read by ``check`` and ``watch`` alike.

Nodes without a name (onnx.helper, skl2onnx) all share the name ``""``: each is also keyed by its op type and its
rank among the unnamed nodes of that op type, so that two of them on two providers keep their own (ml_tree_matmul
on the H200: an unnamed TreeEnsembleRegressor on CPU, an unnamed MatMul on CUDA).
"""

from __future__ import annotations

from typing import Any

Assignment = dict[Any, str]  # node name, or ("", op_type, rank) for an unnamed node -> EP name


def ep_assignment(session: Any) -> Assignment | None:
    """Node -> provider, from ``get_provider_graph_assignment_info()`` where this ORT and session have it."""
    getter = getattr(session, "get_provider_graph_assignment_info", None)
    if getter is None:
        return None
    try:
        info = getter()
    except Exception:  # noqa: BLE001 - older builds raise when the config entry is unknown
        return None
    result: Assignment = {}
    seen: dict[tuple[str, str], int] = {}
    for subgraph in info or []:
        for node in subgraph.get_nodes():
            result[node.name] = subgraph.ep_name
            key = (node.name, getattr(node, "op_type", ""))
            result[key + (seen.get(key, 0),)] = subgraph.ep_name
            seen[key] = seen.get(key, 0) + 1
    return result or None


def assigned_provider(assignment: Assignment, name: str, op_type: str, rank: dict[tuple[str, str], int]) -> str | None:
    """The provider of the node ``name`` (``op_type``), visited in graph order (``rank`` counts the unnamed nodes
    per op type seen so far): an unnamed node by its op type and rank, a named one by its name, a node ORT fused
    (``Name/...``) by the fused node's name; None where the assignment has none of these."""
    if not name:
        key = (name, op_type)
        provider = assignment.get(key + (rank.get(key, 0),))
        rank[key] = rank.get(key, 0) + 1
        return provider or assignment.get(name)  # a build whose nodes carry no op type: all under ""
    provider = assignment.get(name)
    if provider is None and "/" in name:
        provider = assignment.get(name.split("/")[0])
    return provider
