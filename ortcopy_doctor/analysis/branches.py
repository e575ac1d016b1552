"""Copies made inside If branches and Loop/Scan bodies: which of them count per run.

A node in a subgraph runs only when its graph does: an If runs one of its two branches, a Loop or Scan its body
as often as the data says (maybe never). ``split_conditional`` splits the copies ``find_copies`` lists into the
copies per run and the conditional ones, which the report lists apart ("may happen when another branch runs"):

- measured evidence: a Memcpy node or an in-kernel transfer of a subgraph node that has no event in the profiled
  runs did not happen (the profile names every node that ran, subgraph nodes included);
- a prediction (``--static``, or the prediction for a requested provider that was not active): an If's branches
  are alternatives, never both. Each If counts the branch with the most copies (of equal counts, the most bytes);
  the copies of its other branch are conditional. ``heaviest_branches`` picks by bytes instead, for the bytes per
  run (the most any run of the prediction makes). A Loop/Scan body counts once, as before.

Subgraphs are named as ``RuntimeNode.graph`` names them: ``<parent path>/<node>.<attribute>`` (``If_0.then_branch``,
``If_0.then_branch/inner.else_branch``), the main graph "". Node names may hold "/" themselves, so a graph's parent is
found among the paths the evidence names (the longest one it starts with, then "/"), never by splitting the text.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable

from ortcopy_doctor.analysis.copies import measured_events
from ortcopy_doctor.model.copies import Copy
from ortcopy_doctor.model.evidence import Evidence
from ortcopy_doctor.model.vocabulary import IN_KERNEL, MEMCPY_NODE, EvidenceMode

# The two graphs of an If: whichever runs, the other does not (ONNX If: then_branch, else_branch).
_IF_BRANCHES = (".then_branch", ".else_branch")
_SUBGRAPH_KINDS = (MEMCPY_NODE, IN_KERNEL)  # the copies a node makes; feeds and fetches happen on every run

_Key = Callable[[list[Copy]], tuple[int, int]]


def split_conditional(evidence: Evidence, copies: list[Copy]) -> tuple[list[Copy], list[Copy]]:
    """(copies per run, conditional copies), each in the order of ``copies`` (module doc)."""
    if not any(c.branch for c in copies):
        return copies, []
    if evidence.mode == EvidenceMode.STATIC:
        counted = _selected(evidence, copies, _most_copies)
    else:
        ran = {e.name for e in measured_events(evidence)}
        if not ran:
            return copies, []  # no profile: nothing says what ran
        counted = {id(c) for c in copies if not (c.branch and c.kind in _SUBGRAPH_KINDS and c.node not in ran)}
    return [c for c in copies if id(c) in counted], [c for c in copies if id(c) not in counted]


def heaviest_branches(evidence: Evidence, counted: list[Copy], conditional: list[Copy]) -> list[Copy]:
    """Of ``split_conditional``'s two lists, the copies of the run with the most bytes: of a prediction, each If by
    its branch with the most known bytes (of equal bytes, the most copies); of measured evidence, ``counted``
    (what ran)."""
    if evidence.mode != EvidenceMode.STATIC or not conditional:
        return counted
    copies = counted + conditional
    chosen = _selected(evidence, copies, _most_bytes)
    return [c for c in copies if id(c) in chosen]


def _most_copies(rows: list[Copy]) -> tuple[int, int]:
    return sum(c.count_per_run for c in rows), sum(c.bytes_per_run or 0 for c in rows)


def _most_bytes(rows: list[Copy]) -> tuple[int, int]:
    return sum(c.bytes_per_run or 0 for c in rows), sum(c.count_per_run for c in rows)


def _selected(evidence: Evidence, copies: list[Copy], key: _Key) -> set[int]:
    """ids of the copies of one run that takes, at every If, the branch ``key`` ranks highest."""
    paths = {n.graph for n in evidence.nodes} | {c.branch for c in copies}
    paths.discard("")
    children: dict[str, list[str]] = {}
    for path in sorted(paths):
        children.setdefault(_parent(path, paths), []).append(path)
    rows: dict[str, list[Copy]] = {}
    for c in copies:
        rows.setdefault(c.branch if c.branch in paths else "", []).append(c)
    return {id(c) for c in _run(children, rows, "", key)}


def _parent(path: str, paths: Iterable[str]) -> str:
    """The graph ``path`` is nested in: the longest other path it starts with, then "/"; "" for the main graph."""
    best = ""
    for other in paths:
        if len(other) > len(best) and path.startswith(other + "/"):
            best = other
    return best


def _if_of(path: str) -> str | None:
    """The If (its path without the branch) whose branch ``path`` is; None for another kind of subgraph."""
    for suffix in _IF_BRANCHES:
        if path.endswith(suffix):
            return path[: -len(suffix)]
    return None


def _run(children: dict[str, list[str]], rows: dict[str, list[Copy]], graph: str, key: _Key) -> list[Copy]:
    """The copies of ``graph`` in one run: its own, every nested Loop/Scan body's, and of each If the branch ``key``
    ranks highest (then_branch where they rank equal)."""
    taken = list(rows.get(graph, []))
    branches: dict[str, list[str]] = {}
    for child in children.get(graph, []):
        owner = _if_of(child)
        if owner is None:
            taken += _run(children, rows, child, key)
        else:
            branches.setdefault(owner, []).append(child)
    for owner in sorted(branches):
        then_first = sorted(branches[owner], key=lambda b: not b.endswith(_IF_BRANCHES[0]))
        options: list[list[Copy]] = [_run(children, rows, b, key) for b in then_first]
        best: list[Copy] = max(options, key=key)  # the first of equal ones: then_branch
        taken += best
    return taken


__all__ = ["heaviest_branches", "split_conditional"]
