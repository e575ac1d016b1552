"""The copies table from the census: with a census, the table and the verdict equal what CUPTI saw per run.

``find_copies`` predicts from placement and the profile. Where the evidence has a census, ``reconcile``:

- explains in-kernel transfers of ops known to make them only depending on the data
  (kernel_memory.CUDA_IN_KERNEL_RULES with size "data": NonMaxSuppression, If/Loop/Scan, zero-length RNN sequences):
  a row per (node, direction), count and bytes as traced;
- sets the count and bytes of every predicted row to what the traced runs show (data-dependent sizes come from the
  run); a predicted row no traced run shows stays with a count of 0 per run (a note says so), counted as nothing;
- adds a row of kind "unexplained" for every group of host<->device transfers inside the traced runs that no rule
  explains: nothing CUPTI saw is dropped from the table or the verdict.

Without a census only zero-byte feeds/fetches are left out (an empty tensor makes no transfer).
"""

from __future__ import annotations

from collections import defaultdict
from msgspec.structs import replace
from typing import TYPE_CHECKING

from ortcopy_doctor.knowledge import kernel_memory
from ortcopy_doctor.model.copies import Copy
from ortcopy_doctor.model.vocabulary import (
    FEED, FETCH, IN_KERNEL, MEMCPY_NODE, UNEXPLAINED, CensusClass, CopySource, Direction,
)
from ortcopy_doctor.model.evidence import Evidence
from ortcopy_doctor.knowledge.providers import is_device

if TYPE_CHECKING:
    from ortcopy_doctor.model.attribution import AttributedTransfer, CensusReport

UNEXPLAINED_KIND = UNEXPLAINED
_PER_RUN_KINDS = (FEED, FETCH, MEMCPY_NODE, IN_KERNEL)
_WHERE = {"feed": "before the run's first node", "fetch": "after the run's last node",
          "between_nodes": "inside a run but in no node's event", "outside": "outside every run"}


def drop_empty(copies: list[Copy]) -> list[Copy]:
    """Feeds and fetches of zero bytes are no copies: ORT makes no transfer for an empty tensor."""
    return [c for c in copies if not (c.kind in (FEED, FETCH) and c.bytes_per_run == 0)]


def explain_in_kernel(evidence: Evidence, copies: list[Copy], census: CensusReport) -> list[Copy]:
    """Rows for traced in-kernel transfers that a data-dependent rule explains (none predicted them)."""
    runs = list(getattr(census, "traced_runs", []) or [])
    if not runs:
        return []
    n = len(runs)
    predicted = {(c.node, c.direction) for c in copies if c.kind == IN_KERNEL}
    nodes = {node.name: node for node in evidence.nodes}
    groups: dict[tuple[str, str], list[AttributedTransfer]] = defaultdict(list)
    for t in census.transfers:
        if (t.run in runs and t.host_device and t.kind == CensusClass.IN_KERNEL
                and (t.node, t.direction) not in predicted):
            groups[(t.node, t.direction)].append(t)
    added = []
    for (name, direction), items in groups.items():
        node = nodes.get(name)
        if node is None or not is_device(node.provider):
            continue  # a rule of a CUDA kernel says nothing about a node placed elsewhere
        op_type, domain = node.op_type, node.domain
        rule = next((r for r in kernel_memory.in_kernel_rules(domain, op_type) if r.direction == direction), None)
        if rule is None:
            continue
        added.append(Copy(
            kind=IN_KERNEL, direction=Direction(direction),
            tensor=kernel_memory.transfer_tensor(rule, node.inputs, node.outputs),
            bytes_per_run=round(sum(t.bytes for t in items) / n), count_per_run=max(1, round(len(items) / n)), node=name,
            cause=f"{op_type} '{name}' {rule.reason}; {rule.when}: count and size as traced", removable_by_binding=False,
            source=CopySource.CENSUS, branch=node.graph))
    return added


def reconcile(copies: list[Copy], census: CensusReport) -> tuple[list[Copy], list[str]]:
    """The table equal to the census per run (module doc); returns the rows and notes on what changed."""
    runs = list(getattr(census, "traced_runs", []) or [])
    if not runs:
        return copies, []
    n = len(runs)
    transfers = [t for t in census.transfers if t.run in runs and t.host_device]
    notes: list[str] = []
    rows: list[Copy] = []
    used: set[int] = set()
    confirms = {FEED: "OCD004", FETCH: "OCD005", MEMCPY_NODE: "OCD003", IN_KERNEL: "OCD009"}
    # The transfers a copy takes, by (kind, direction, finding confirmed, tensor of a feed or fetch or node of the
    # others), in trace order: each transfer has one key, and the first copy of a key takes all of them (a scan of
    # the transfers per copy took minutes for 10,000 Memcpy nodes). ``Word`` members hash as their values.
    by_key: dict[tuple[str, str, str, str], list[AttributedTransfer]] = defaultdict(list)
    for t in transfers:
        subject = t.tensor if t.kind in (CensusClass.FEED, CensusClass.FETCH) else t.node
        by_key[(t.kind, t.direction, t.confirms, subject)].append(t)
    for copy in copies:
        if copy.kind not in _PER_RUN_KINDS:
            rows.append(copy)
            continue
        seen = by_key.pop((copy.kind, copy.direction, confirms[copy.kind],
                           copy.tensor if copy.kind in (FEED, FETCH) else copy.node), [])
        if not seen:
            notes.append(f"the {copy.kind.replace('_', ' ')} {copy.direction.replace('_', ' ')} of "
                         f"'{copy.tensor or copy.node}' was predicted but no traced run shows it: 0 per run")
            # kept (its checks and finding say what was expected), counted as nothing
            rows.append(replace(copy, count_per_run=0))
            continue
        used.update(id(t) for t in seen)
        count, nbytes = round(len(seen) / n), round(sum(t.bytes for t in seen) / n)
        if (count, nbytes) != (copy.count_per_run, copy.bytes_per_run):
            if copy.bytes_per_run is not None:
                notes.append(f"'{copy.tensor or copy.node}' ({copy.kind.replace('_', ' ')}): predicted "
                             f"{copy.count_per_run} × {copy.bytes_per_run} B per run, traced {count} copies of "
                             f"{nbytes} B: the table shows what was traced")
            copy = replace(copy, count_per_run=count, bytes_per_run=nbytes)
        rows.append(copy)
    rest: dict[tuple[str, str, str, str, str], list[AttributedTransfer]] = defaultdict(list)
    for t in transfers:
        if id(t) not in used:
            rest[(t.kind, t.direction, t.node, t.op_type, t.tensor)].append(t)
    for (kind, direction, node, op_type, tensor), items in rest.items():
        where = f"inside {op_type} '{node}'" if node else _WHERE.get(kind, kind)
        label = f"in-kernel (unknown op {op_type})" if kind == IN_KERNEL else f"unexplained ({kind.replace('_', ' ')})"
        host = items[0].src_kind if direction == "host_to_device" else items[0].dst_kind
        rows.append(Copy(
            kind=UNEXPLAINED_KIND, direction=Direction(direction), tensor=tensor or node or kind,
            bytes_per_run=round(sum(t.bytes for t in items) / n), count_per_run=max(1, round(len(items) / n)), node=node,
            cause=f"{label}: traced by the census {where} ({host} host memory); no rule of ortcopy-doctor explains it",
            removable_by_binding=False, source=CopySource.CENSUS, confirmed=True))
    return rows, notes


def copies_by_direction(copies: list[Copy]) -> dict[str, tuple[int, int]]:
    """Per direction, (copies, bytes) per run of the copies table (rows that happen in every run)."""
    table: dict[str, tuple[int, int]] = {}
    for c in copies:
        if c.count_per_run:
            n, b = table.get(c.direction, (0, 0))
            table[c.direction] = (n + c.count_per_run, b + (c.bytes_per_run or 0))
    return table


def traced_by_direction(census: CensusReport, run: int) -> dict[str, tuple[int, int]]:
    """Per direction, (copies, bytes) of the host<->device transfers the census traced in ``run``."""
    traced: dict[str, tuple[int, int]] = {}
    for t in census.transfers:
        if t.run == run and t.host_device:
            n, b = traced.get(t.direction, (0, 0))
            traced[t.direction] = (n + 1, b + t.bytes)
    return traced
