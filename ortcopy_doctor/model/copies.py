"""A copy: one host<->device transfer that happens on every run, with its cause (what ``analyse`` reports).

A copy made by a node inside an If branch or a Loop/Scan body (``branch``) happens only when that graph runs:
``analyse`` lists one that did not run in the profiled runs, and in a prediction one of an If branch other than
the one counted, apart from the copies per run (``Report.conditional_copies``)."""

from __future__ import annotations

import msgspec
from msgspec import field

from ortcopy_doctor.model.evidence import Dim
from ortcopy_doctor.model.vocabulary import CopyKind, CopySource, Direction

class Copy(msgspec.Struct, frozen=True):
    """One host<->device transfer that happens on every run."""

    kind: CopyKind  # feed, fetch, memcpy_node, in_kernel; unexplained (a traced transfer no rule explains)
    direction: Direction  # host_to_device, device_to_host
    tensor: str
    bytes_per_run: int | None
    count_per_run: int = 1
    shape: list[Dim] | None = None
    dtype: str | None = None
    node: str = ""  # the Memcpy node, or the node whose kernel transfers
    producers: list[str] = field(default_factory=list)
    consumers: list[str] = field(default_factory=list)
    cause: str = ""
    removable_by_binding: bool = False
    source: CopySource = CopySource.PLACEMENT  # placement, predicted, profile, log, profile+log, census
    # Transfer census (CUPTI): True where every traced run shows this copy with this count and bytes, False where
    # it does not, None without a census.
    confirmed: bool | None = None
    # The subgraph of the node that makes the copy (``If_0.then_branch``, ``Loop_3.body``, nested ones joined by
    # "/"), as ``RuntimeNode.graph`` names it; "" for the main graph, and for feeds and fetches (ORT makes those on
    # every run whatever branch reads or writes the tensor).
    branch: str = ""


__all__ = ["Copy"]
