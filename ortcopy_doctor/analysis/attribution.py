"""Attribution of a transfer census: every traced memcpy placed on ORT's timeline and given its cause.

Inputs are plain data: the census records (times in the tracer's clock, with the start of the runtime/driver
API call that issued each copy), clock pairs ``(tracer ns, time.time_ns())``, and the ORT profile's run and node
events (``ts``/``dur`` in microseconds since ``session.get_profiling_start_time_ns()``, which is epoch ns, the
clock of ``time.time_ns()``; see docs/ort-notes.md).

A copy is placed by the start of its API call: the host issues it while the owning node runs, so that instant
falls inside the node's ``kernel_time`` event. Inside a ``model_run`` event, before the run's first node it is a
feed copy, after its last node a fetch copy, inside a MemcpyToHost/MemcpyFromHost event a Memcpy node, inside any
other node event an in-kernel transfer. Device-to-device copies are kept apart: they do not cross the bus.
Anything else (outside every run, or in a gap between nodes) is unexplained and listed, never dropped.

Run boundaries: ORT issues the feed copies right before the first node (often < 2 µs before its event starts) and the
fetches right after the last, so an error of the clock mapping can put one just inside that node (or just outside
the run). The clock tolerance (``boundary_tolerance``: the profile's 1 µs truncation, the clock error measured while
tracing, and an allowance for ORT's profile clock) bounds that: a host-to-device copy from pageable memory issued
within it of the run's first node start, with the size of an input the analysis expects to be copied to the device
and not yet seen copied in that run, is that feed (symmetric for fetches near the end of the last node). Such
transfers keep how far past the boundary they mapped (``boundary_us``); the tolerance is in the report.

Each host<->device transfer then confirms the finding that predicted it (OCD004 feed, OCD005 fetch, OCD003 Memcpy
node, OCD009 in-kernel) or is "unexplained"; consistency checks compare bytes with the profile and the feeds.
"""

from __future__ import annotations

import msgspec
import bisect
import math
from collections import defaultdict
from msgspec.structs import replace
from typing import Any, Optional

from ortcopy_doctor.knowledge import kernel_memory
from ortcopy_doctor.model.format import fmt_bytes
from ortcopy_doctor.model.vocabulary import (
    BETWEEN_NODES,
    CENSUS_CLASSES,
    CensusCheck,
    CensusClass,
    HOST_DEVICE,
    MEMCPY_OPS,
    OTHER_COPY,
    OUTSIDE,
    PlacedBy,
    UNEXPLAINED,
    same_name,
)
from ortcopy_doctor.model.copies import Copy
# The attribution's types live in model/attribution.py; named here too, where older code imports them.
from ortcopy_doctor.model.attribution import (
    AttributedTransfer as AttributedTransfer,
    Bandwidth as Bandwidth,
    CensusReport as CensusReport,
    ClassTotal as ClassTotal,
    ConsistencyCheck as ConsistencyCheck,
    RunTotals as RunTotals,
    TransferGroup as TransferGroup,
)
from ortcopy_doctor.model.vocabulary import FEED, FETCH, IN_KERNEL, MEMCPY_NODE
from ortcopy_doctor.model.census import TransferRecord, kineto_base_ns
from ortcopy_doctor.model.evidence import Evidence, Feed, NodeEvent, RunEvent
from ortcopy_doctor.analysis.stats import list_median


CLASSES = list(CENSUS_CLASSES)
COPY_CLASSES = (CensusClass.FEED, CensusClass.FETCH, CensusClass.MEMCPY_NODE, CensusClass.IN_KERNEL)  # the 4 kinds
CONFIRMS: dict[str, str] = {FEED: "OCD004", FETCH: "OCD005", MEMCPY_NODE: "OCD003", IN_KERNEL: "OCD009"}

# Profile ts/dur are whole microseconds (truncated), and the clock pairs are sampled one call apart: an event
# is taken to end this much later than it says, and a copy in a gap this close to a node belongs to it.
END_SLACK_US = 1.0
GAP_TOLERANCE_US = 2.0
# Run boundaries (see the module doc): profile ts truncated to whole µs, plus ORT's profile clock (steady_clock
# since the session's profiling start, epoch ns read once) drifting from time.time_ns(): not measured, allowed for.
PROFILE_QUANTUM_US = 1.0
PROFILE_CLOCK_ALLOWANCE_US = 5.0


# --- clocks -------------------------------------------------------------------------------------------------------


def clock_offset(clock_pairs: list[list[int]] | list[tuple[int, int]]) -> int:
    """Tracer clock minus ``time.time_ns()``, the mean over the pairs (0 without pairs: same clock assumed)."""
    if not clock_pairs:
        return 0
    offsets = [int(c) - int(t) for c, t in clock_pairs]  # integers: the clocks may be 1e18 ns apart
    return (2 * sum(offsets) + len(offsets)) // (2 * len(offsets))


def to_profile_us(tracer_ns: int, offset_ns: int, profiling_start_ns: int) -> float:
    """A tracer timestamp on the ORT profile's clock: µs since profiling start."""
    return (tracer_ns - offset_ns - profiling_start_ns) / 1000.0


def clock_spread_ns(clock_pairs: list[list[int]] | list[tuple[int, int]]) -> int:
    """Max minus min of the pairs' offsets: how much the clocks moved apart while tracing (0 with < 2 pairs)."""
    offsets = [int(c) - int(t) for c, t in clock_pairs]
    return (max(offsets) - min(offsets)) if offsets else 0


def boundary_tolerance(clock_pairs: list[list[int]] | list[tuple[int, int]], clock_error_ns: Optional[int]) -> float:
    """µs a feed/fetch copy may map past its run boundary: the profile's truncation, the clock error (measured, or
    half the spread of the pairs where the evidence predates that measurement) and ORT's profile clock allowance."""
    measured = clock_error_ns if clock_error_ns is not None else (clock_spread_ns(clock_pairs) + 1) // 2
    return round(PROFILE_QUANTUM_US + max(0, measured) / 1000.0 + PROFILE_CLOCK_ALLOWANCE_US, 3)


# --- placement ----------------------------------------------------------------------------------------------------


class _Place(msgspec.Struct, frozen=True):
    """Where a traced transfer happened: its run, and the node or gap it fell in."""

    run: int
    kind: CensusClass  # in a node: IN_KERNEL until attribute() tells a Memcpy node
    node: Optional[NodeEvent] = None


class _RunNodes:
    """The node events of one run, indexed so that placing a transfer costs a few bisections, not a scan of every
    event (maskrcnn's runs hold thousands of events and thousands of transfers; a 10,000-node chain with 5,000 CPU
    fallbacks holds 15,000 events and 10,000 transfers a run). Answers exactly what a scan in event order would:
    ties go to the earlier event."""

    def __init__(self, nodes: list[NodeEvent]) -> None:
        self.nodes = nodes
        order = sorted(range(len(nodes)), key=lambda i: nodes[i].ts_us)
        self.by_start = order
        self.starts = [nodes[i].ts_us for i in order]
        ends = sorted(range(len(nodes)), key=lambda i: nodes[i].ts_us + nodes[i].dur_us)
        self.by_end = ends
        self.ends = [nodes[i].ts_us + nodes[i].dur_us for i in ends]
        # The events in classes of duration (up to 1 µs, then each class up to twice the one before), each class in
        # start order with its longest duration: an event holding a moment starts at most its class's longest
        # duration before it, so each class is searched from a bisection back over that window only. In a trace
        # whose events run one after the other (nested ones: a control-flow node around its subgraph's events) a
        # window holds a few events of its class; one long class scanned in full (the events above the 99th
        # percentile, as before) cost minutes for 10,000 transfers.
        classes: dict[int, list[int]] = defaultdict(list)
        for i in order:
            classes[_duration_class(nodes[i].dur_us)].append(i)
        self.classes = [(max(nodes[i].dur_us for i in members), [nodes[i].ts_us for i in members], members)
                        for _, members in sorted(classes.items())]
        self.first = self.starts[0] if nodes else 0.0
        self.last = max(self.ends) if nodes else 0.0

    def inside(self, at_us: float) -> list[int]:
        """The events (indices, in event order) whose span, with ``END_SLACK_US`` after its end, holds ``at_us``."""
        found: list[int] = []
        nodes = self.nodes
        for longest, starts, members in self.classes:
            k = bisect.bisect_right(starts, at_us) - 1
            earliest = at_us - longest - END_SLACK_US
            while k >= 0 and starts[k] >= earliest:
                n = nodes[members[k]]
                if at_us <= n.ts_us + n.dur_us + END_SLACK_US:
                    found.append(members[k])
                k -= 1
        return sorted(found)

    def nearest(self, at_us: float) -> int:
        """The event whose start or end is closest to ``at_us`` (the earliest in event order on a tie, as a scan)."""
        candidates: set[int] = set()
        for keys, order in ((self.starts, self.by_start), (self.ends, self.by_end)):
            k = bisect.bisect_left(keys, at_us)
            for j in (k - 1, k):
                if 0 <= j < len(keys):
                    # every event with that same start (or end): equal keys give equal distances
                    lo, hi = bisect.bisect_left(keys, keys[j]), bisect.bisect_right(keys, keys[j])
                    candidates.update(order[lo:hi])
        best = min(self._gap(i, at_us) for i in candidates)
        return min(i for i in candidates if self._gap(i, at_us) == best)

    def _gap(self, i: int, at_us: float) -> float:
        n = self.nodes[i]
        return min(abs(at_us - n.ts_us), abs(at_us - (n.ts_us + n.dur_us)))


def _duration_class(dur_us: float) -> int:
    """0 for events up to 1 µs, then k for (2^(k-1), 2^k] µs."""
    return 0 if dur_us <= 1.0 else math.ceil(math.log2(dur_us))


def _place(at_us: float, runs: list[RunEvent], nodes_by_run: dict[int, _RunNodes]) -> _Place:
    run = next((r for r in runs if r.ts_us <= at_us <= r.ts_us + r.dur_us + END_SLACK_US), None)
    if run is None:
        return _Place(-1, OUTSIDE)
    index = nodes_by_run.get(run.run)
    if index is None or not index.nodes:
        return _Place(run.run, BETWEEN_NODES)
    nodes = index.nodes
    inside = index.inside(at_us)
    if inside:
        # The innermost event: a subgraph node of an If/Loop runs inside the control-flow node's event.
        innermost = min(inside, key=lambda i: (nodes[i].dur_us, -nodes[i].ts_us, i))
        return _Place(run.run, CensusClass.IN_KERNEL, nodes[innermost])
    if at_us < index.first:
        return _Place(run.run, CensusClass.FEED)
    if at_us > index.last:
        return _Place(run.run, CensusClass.FETCH)
    nearest = index.nearest(at_us)
    if index._gap(nearest, at_us) <= GAP_TOLERANCE_US:
        return _Place(run.run, CensusClass.IN_KERNEL, nodes[nearest])
    return _Place(run.run, BETWEEN_NODES)


def _host_kind(t: AttributedTransfer) -> str:
    return t.src_kind if t.direction == "host_to_device" else t.dst_kind


# --- attribution --------------------------------------------------------------------------------------------------


def attribute(records: list[TransferRecord], clock_pairs: list[list[int]] | list[tuple[int, int]],
              profiling_start_ns: int, run_events: list[RunEvent], node_events: list[NodeEvent],
              copies: list[Copy] | None = None, feeds: list[Feed] | None = None,
              traced_runs: list[int] | None = None, backend: str = "", backend_version: str = "",
              clock_verified: bool = True, clock_error_ns: Optional[int] = None) -> CensusReport:
    """Place and classify every record; totals, bandwidth and consistency checks. ``copies`` and ``feeds`` name
    tensors and say which finding each transfer confirms; without them every host<->device transfer is unexplained.
    ``clock_error_ns`` (measured while tracing) sets the tolerance at run boundaries."""
    copies = copies or []
    feeds = feeds or []
    offset = clock_offset(clock_pairs)
    tolerance = boundary_tolerance(clock_pairs, clock_error_ns)
    runs = sorted(run_events, key=lambda r: r.ts_us)
    events_by_run: dict[int, list[NodeEvent]] = defaultdict(list)
    for event in node_events:
        events_by_run[event.run].append(event)
    nodes_by_run = {run: _RunNodes(events) for run, events in events_by_run.items()}
    if traced_runs is None or not traced_runs:
        traced_runs = [r.run for r in runs if not r.warmup]
    by_node = {c.node: c for c in copies if c.kind in (MEMCPY_NODE, IN_KERNEL) and c.node}

    transfers: list[AttributedTransfer] = []
    for record in sorted(records, key=lambda r: (r.api_start_ns if r.api_start_ns is not None else r.start_ns)):
        issued, placed_by = ((record.api_start_ns, PlacedBy.API) if record.api_start_ns is not None
                             else (record.start_ns, PlacedBy.DEVICE))
        at = to_profile_us(issued, offset, profiling_start_ns)
        place = _place(at, runs, nodes_by_run)
        kind, node, op_type = place.kind, "", ""
        if place.node is not None:
            node, op_type = place.node.name, place.node.op_type
            kind = CensusClass.MEMCPY_NODE if place.node.op_type in MEMCPY_OPS else CensusClass.IN_KERNEL
        if record.direction not in HOST_DEVICE:
            kind = CensusClass.DEVICE_TO_DEVICE if record.direction == "device_to_device" else OTHER_COPY
        transfers.append(AttributedTransfer(run=place.run, kind=kind, direction=record.direction, bytes=record.bytes,
                                            src_kind=record.src_kind, dst_kind=record.dst_kind,
                                            duration_ns=max(0, record.end_ns - record.start_ns), node=node,
                                            op_type=op_type, at_us=round(at, 3), placed_by=placed_by,
                                            correlation_id=record.correlation_id))
    notes = _take_boundary_copies(transfers, runs, nodes_by_run, copies, by_node, tolerance)

    # What each host<->device transfer confirms (transfers are frozen: each pass puts an updated one in its place).
    # The first copy of each (node, kind, direction): looked up per transfer (a scan of the copies per transfer
    # took minutes for 10,000 Memcpy nodes).
    first_copy: dict[tuple[str, str, str], Copy] = {}
    for c in copies:
        first_copy.setdefault((c.node, c.kind, c.direction), c)
    for run in {t.run for t in transfers}:
        in_run = [i for i, t in enumerate(transfers) if t.run == run and t.host_device]
        _match_phase(transfers, [i for i in in_run if transfers[i].kind == CensusClass.FEED], "host_to_device",
                     [c for c in copies if c.kind == FEED], [(f.name, f.bytes) for f in feeds])
        _match_phase(transfers, [i for i in in_run if transfers[i].kind == CensusClass.FETCH], "device_to_host",
                     [c for c in copies if c.kind == FETCH], [])
        for i in in_run:
            t = transfers[i]
            if t.kind in (CensusClass.MEMCPY_NODE, CensusClass.IN_KERNEL):
                # A node may transfer both ways (NonMaxSuppression): the row of its kind and direction.
                copy = first_copy.get((t.node, t.kind, t.direction), by_node.get(t.node))
                if copy is not None and same_name(copy.kind, t.kind) and copy.direction == t.direction:
                    transfers[i] = replace(t, tensor=copy.tensor, confirms=CONFIRMS[t.kind])
                else:
                    transfers[i] = replace(t, tensor=copy.tensor if copy is not None else "", confirms=UNEXPLAINED)
            elif t.kind in (OUTSIDE, BETWEEN_NODES):
                transfers[i] = replace(t, confirms=UNEXPLAINED)

    run_dur = {r.run: r.dur_us for r in runs}
    totals = _run_totals(transfers, traced_runs, run_dur)
    host_device = [t for t in transfers if t.host_device]
    placed = [t for t in host_device if t.kind in COPY_CLASSES]
    return CensusReport(
        backend=backend, backend_version=backend_version, traced_runs=list(traced_runs), clock_offset_ns=offset,
        clock_verified=clock_verified, transfers=transfers, runs=totals, per_run=_mean_classes(totals),
        groups=_groups(transfers, traced_runs, run_dur), bandwidth=_bandwidth(host_device),
        checks=_checks(transfers, traced_runs, node_events, copies, feeds),
        attributed_share=(len(placed) / len(host_device)) if host_device else 1.0, notes=notes,
        clock_error_ns=clock_error_ns, boundary_tolerance_us=tolerance)


def _take_boundary_copies(transfers: list[AttributedTransfer], runs: list[RunEvent],
                          nodes_by_run: dict[int, _RunNodes], copies: list[Copy], by_node: dict[str, Copy],
                          tolerance_us: float) -> list[str]:
    """Feeds and fetches the clock error put just inside the first/last node or just outside the run (module doc).

    A candidate must be host<->device in the phase's direction with its host side pageable, lie within
    ``tolerance_us`` of the boundary, not be an in-kernel copy the analysis predicts for its node, and have the size
    of a feed (fetch) copy the analysis predicts that the run has not shown yet. Each one taken is replaced in
    ``transfers`` by the feed (fetch) copy it is; returns notes naming each one.
    """
    feed_sizes: defaultdict[int, int] = defaultdict(int)  # predicted size in bytes -> copies of that size
    fetch_sizes: defaultdict[int, int] = defaultdict(int)
    for c in copies:
        if c.bytes_per_run is not None and c.count_per_run:
            if c.kind == FEED and c.direction == "host_to_device":
                feed_sizes[c.bytes_per_run] += 1
            elif c.kind == FETCH and c.direction == "device_to_host":
                fetch_sizes[c.bytes_per_run] += 1
    notes: list[str] = []
    for run in runs:
        index = nodes_by_run.get(run.run)
        nodes = index.nodes if index is not None else []
        if not nodes:
            continue
        first = min(n.ts_us for n in nodes)
        last = max(n.ts_us + n.dur_us for n in nodes)
        run_end = run.ts_us + run.dur_us
        for phase, direction, sizes in ((CensusClass.FEED, "host_to_device", feed_sizes),
                                        (CensusClass.FETCH, "device_to_host", fetch_sizes)):
            if not sizes:
                continue
            seen: defaultdict[int, int] = defaultdict(int)
            for t in transfers:
                if t.run == run.run and t.kind == phase and t.direction == direction:
                    seen[t.bytes] += 1
            candidates: list[tuple[float, int]] = []  # (how far past the boundary, index in transfers)
            for i, t in enumerate(transfers):
                if t.direction != direction or t.at_us is None or sizes.get(t.bytes, 0) == 0:
                    continue
                if (t.src_kind if phase == CensusClass.FEED else t.dst_kind) != "pageable":
                    continue
                if t.kind == CensusClass.IN_KERNEL and t.run == run.run:
                    predicted = by_node.get(t.node)
                    if (predicted is not None and predicted.kind == IN_KERNEL and predicted.direction == t.direction
                            and predicted.bytes_per_run in (None, t.bytes)):
                        continue  # the in-kernel copy the analysis expects there
                    past = (t.at_us - first) if phase == CensusClass.FEED else (last - t.at_us)
                    past = max(past, 0.0)
                elif t.kind == OUTSIDE:
                    past = (run.ts_us - t.at_us) if phase == CensusClass.FEED else (t.at_us - run_end)
                    if past <= 0:
                        continue
                else:
                    continue
                if past <= tolerance_us:
                    candidates.append((past, i))
            for past, i in sorted(candidates, key=lambda c: c[0]):
                t = transfers[i]
                if seen[t.bytes] >= sizes[t.bytes] or t.kind not in (CensusClass.IN_KERNEL, OUTSIDE):
                    continue
                where = f"inside {t.op_type} '{t.node}'" if t.kind == CensusClass.IN_KERNEL else "outside the run"
                seen[t.bytes] += 1
                transfers[i] = replace(t, run=run.run, kind=phase, node="", op_type="", boundary_us=round(past, 3))
                arrow = 'host→device' if phase == CensusClass.FEED else 'device→host'
                notes.append(f"run {run.run}: a {t.bytes} B {arrow} copy "
                             f"(correlation id {t.correlation_id}) mapped {past:.1f} µs {where}, within the clock "
                             f"tolerance of {tolerance_us:.1f} µs of the run's "
                             f"{'first node start' if phase == CensusClass.FEED else 'last node end'}: "
                             f"taken as a {phase} copy")
    return notes


def _match_phase(transfers: list[AttributedTransfer], phase: list[int], direction: str, predicted: list[Copy],
                 others: list[tuple[str, int]]) -> None:
    """Feeds/fetches (``transfers[i]`` for i in ``phase``): the k-th transfer of N bytes is the first unmatched
    predicted copy of N bytes, in order. Each one is replaced in ``transfers`` with its tensor and what it confirms."""
    used: set[int] = set()
    used_other: set[int] = set()
    for index in sorted(phase, key=lambda x: transfers[x].at_us or 0.0):
        t = transfers[index]
        if t.direction != direction:
            transfers[index] = replace(t, confirms=UNEXPLAINED)
            continue
        k = next((i for i, c in enumerate(predicted) if i not in used and c.bytes_per_run == t.bytes), None)
        if k is None:  # a copy of unknown size predicted for this phase
            k = next((i for i, c in enumerate(predicted) if i not in used and c.bytes_per_run is None), None)
        if k is not None:
            used.add(k)
            transfers[index] = replace(t, tensor=predicted[k].tensor, confirms=CONFIRMS[t.kind])
            continue
        tensor = t.tensor
        j = next((i for i, (_, n) in enumerate(others) if i not in used_other and n == t.bytes), None)
        if j is not None:
            used_other.add(j)
            tensor = others[j][0]  # an input of that size no rule predicted a copy for
        transfers[index] = replace(t, tensor=tensor, confirms=UNEXPLAINED)


def _run_totals(transfers: list[AttributedTransfer], traced_runs: list[int], run_dur: dict[int, int]) -> list[RunTotals]:
    result = []
    for run in traced_runs:
        dur = run_dur.get(run, 0)
        sums: dict[str, list[int]] = {}  # class -> [count, bytes, duration_ns]
        host_device_count = host_device_bytes = 0
        for t in transfers:
            if t.run != run:
                continue
            c = sums.setdefault(t.kind, [0, 0, 0])
            c[0] += 1
            c[1] += t.bytes
            c[2] += t.duration_ns
            if t.host_device:
                host_device_count += 1
                host_device_bytes += t.bytes
        classes = {k: ClassTotal(count=sums[k][0], bytes=sums[k][1], duration_ns=sums[k][2],
                                 share_of_run=(sums[k][2] / (dur * 1000.0)) if dur else None)
                   for k in CLASSES if k in sums}
        result.append(RunTotals(run=run, run_dur_us=dur, classes=classes, host_device_count=host_device_count,
                                host_device_bytes=host_device_bytes))
    return result


def _mean_classes(totals: list[RunTotals]) -> dict[CensusClass, ClassTotal]:
    if not totals:
        return {}
    n = len(totals)
    result: dict[CensusClass, ClassTotal] = {}
    for kind in CLASSES:
        rows = [r.classes[kind] for r in totals if kind in r.classes]
        if not rows:
            continue
        shares = [r.share_of_run for r in rows if r.share_of_run is not None]
        result[kind] = ClassTotal(count=round(sum(r.count for r in rows) / n), bytes=round(sum(r.bytes for r in rows) / n),
                                  duration_ns=round(sum(r.duration_ns for r in rows) / n),
                                  share_of_run=(math.fsum(shares) / n) if shares else None)
    return result


def _groups(transfers: list[AttributedTransfer], traced_runs: list[int], run_dur: dict[int, int]) -> list[TransferGroup]:
    traced = set(traced_runs)
    n = max(1, len(traced))
    buckets: dict[tuple[str, ...], list[AttributedTransfer]] = defaultdict(list)
    for t in transfers:
        if t.run in traced or t.kind == OUTSIDE:
            key: tuple[str, ...] = (t.kind, t.direction, t.node, t.op_type, t.tensor, t.confirms, t.src_kind, t.dst_kind)
            buckets[key].append(t)
    groups = []
    for key, items in buckets.items():
        time_ns = sum(t.duration_ns for t in items) / n
        # Like ClassTotal.share_of_run: the mean over traced runs of (copy time in the run / the run's wall time).
        shares = [sum(t.duration_ns for t in items if t.run == r) / (run_dur[r] * 1000.0) for r in traced if run_dur.get(r)]
        groups.append(TransferGroup(
            kind=items[0].kind, direction=key[1], node=key[2], op_type=key[3], tensor=key[4], confirms=key[5],
            src_kind=key[6], dst_kind=key[7], count_per_run=len(items) / n,
            bytes_per_run=sum(t.bytes for t in items) / n, time_ns_per_run=time_ns,
            share_of_run=(math.fsum(shares) / n) if shares and key[0] != OUTSIDE else None))
    order = {k: i for i, k in enumerate(CLASSES)}
    return sorted(groups, key=lambda g: (order.get(g.kind, 99), g.direction, -g.bytes_per_run, g.node, g.tensor))


def _bandwidth(host_device: list[AttributedTransfer]) -> list[Bandwidth]:
    buckets: dict[tuple[str, str], list[AttributedTransfer]] = defaultdict(list)
    for t in host_device:
        buckets[(t.direction, _host_kind(t))].append(t)
    result = []
    for (direction, kind), items in sorted(buckets.items()):
        nbytes = sum(t.bytes for t in items)
        dur = sum(t.duration_ns for t in items)
        largest = max(items, key=lambda t: (t.bytes, -t.duration_ns))
        result.append(Bandwidth(direction=direction, host_kind=kind, count=len(items), bytes=nbytes, duration_ns=dur,
                                gb_per_s=(nbytes / dur) if dur else None, largest_bytes=largest.bytes,
                                largest_gb_per_s=(largest.bytes / largest.duration_ns) if largest.duration_ns else None))
    return result


def _checks(transfers: list[AttributedTransfer], traced_runs: list[int], node_events: list[NodeEvent],
            copies: list[Copy], feeds: list[Feed]) -> list[ConsistencyCheck]:
    checks: list[ConsistencyCheck] = []
    sizes = {f.name: f.bytes for f in feeds}
    for run in traced_runs:
        in_run = [t for t in transfers if t.run == run and t.host_device]
        memcpy_bytes: dict[str, int] = defaultdict(int)
        for t in in_run:
            if t.kind == CensusClass.MEMCPY_NODE:
                memcpy_bytes[t.node] += t.bytes
        # Memcpy nodes: bytes copied inside each event == the profile's output_size of that node.
        for event in sorted((e for e in node_events if e.run == run and e.op_type in MEMCPY_OPS), key=lambda e: e.ts_us):
            observed = memcpy_bytes.get(event.name, 0)
            checks.append(ConsistencyCheck(
                CensusCheck.MEMCPY_NODE_BYTES, event.name, run, event.output_bytes, observed, observed == event.output_bytes,
                f"{event.op_type} '{event.name}': profile output_size {event.output_bytes} B, traced {observed} B"))
        # Feeds: the bytes copied for each input consumed on the device == the size of the array fed.
        for copy in (c for c in copies if c.kind == FEED):
            expected = sizes.get(copy.tensor, copy.bytes_per_run)
            observed = sum(t.bytes for t in in_run if t.kind == CensusClass.FEED and t.tensor == copy.tensor
                           and t.confirms == CONFIRMS[FEED])
            checks.append(ConsistencyCheck(
                CensusCheck.FEED_BYTES, copy.tensor, run, expected, observed, observed == expected,
                f"input '{copy.tensor}': fed {expected} B, traced {observed} B host→device before the first node"))
        for t in in_run:
            if t.kind == CensusClass.FEED and t.unexplained:
                what = (f"input '{t.tensor}', which the analysis expected to stay where it was fed" if t.tensor
                        else "no input tensor")
                checks.append(ConsistencyCheck(
                    CensusCheck.FEED_BYTES, t.tensor or "(feed phase)", run, None, t.bytes, False,
                    f"a {t.bytes} B {'host→device' if t.direction == 'host_to_device' else 'device→host'} copy "
                    f"before the first node has the size of {what}"))
        for kind, name in ((FETCH, CensusCheck.FETCH_BYTES), (IN_KERNEL, CensusCheck.IN_KERNEL_BYTES)):
            for copy in (c for c in copies if c.kind == kind and c.bytes_per_run is not None):
                mine = [t for t in in_run if same_name(t.kind, kind) and t.confirms != UNEXPLAINED
                        and (t.tensor == copy.tensor if kind == FETCH else t.node == copy.node)]
                observed = sum(t.bytes for t in mine)
                subject = copy.tensor if kind == FETCH else copy.node
                expected = copy.bytes_per_run
                assert expected is not None  # the rows chosen above
                # a kernel's fixed transfer and one that depends on the data, in the same direction (an LSTM's
                # lengths, then the indices of its zero-length sequences: 12 + 4 B on the H200): at least the first
                more = _more_by_data(mine, copy.direction) if kind == IN_KERNEL and observed > expected else None
                and_more = f" and more where {more}" if more is not None else ""
                checks.append(ConsistencyCheck(
                    name, subject, run, expected, observed, observed == expected or more is not None,
                    f"{'output' if kind == FETCH else 'node'} '{subject}': expected {expected} B{and_more}, "
                    f"traced {observed} B"))
    return checks


def _more_by_data(transfers: list[AttributedTransfer], direction: str) -> Optional[str]:
    """Where the kernel of these in-kernel transfers also has a rule whose transfers in ``direction`` depend on the
    data (knowledge/kernel_memory.py), the condition under which they happen; else None."""
    op_type = next((t.op_type for t in transfers if t.op_type), "")
    rule = next((r for r in kernel_memory.in_kernel_rules("", op_type) if r.size == "data" and r.direction == direction),
                None)
    return rule.when if rule is not None else None


def mark_confirmed(copies: list[Copy], report: CensusReport) -> list[Copy]:
    """The copies with ``Copy.confirmed`` set: the census shows it in every traced run with its count and bytes."""
    runs = report.traced_runs or sorted({t.run for t in report.transfers if t.run >= 0})
    # (count, bytes) of the transfers per (run, kind, direction, finding confirmed, tensor of a feed or fetch or node
    # of the others): one pass, then a lookup per copy and run (a scan per copy took minutes for 10,000 copies).
    # ``Word`` members hash and compare as their values, so census classes and copy kinds meet in one key.
    seen: dict[tuple[int, str, str, str | None, str], tuple[int, int]] = {}
    for t in report.transfers:
        subject = t.tensor if t.kind in (CensusClass.FEED, CensusClass.FETCH) else t.node
        key = (t.run, t.kind, t.direction, t.confirms, subject)
        count, nbytes = seen.get(key, (0, 0))
        seen[key] = (count + 1, nbytes + t.bytes)
    marked = []
    for copy in copies:
        ok = bool(runs)
        confirms = CONFIRMS.get(copy.kind)
        subject = copy.tensor if copy.kind in (FEED, FETCH) else copy.node
        for run in runs:
            # a kind no finding is confirmed for (confirms None) has no key: transfers confirm a str
            count, nbytes = seen.get((run, copy.kind, copy.direction, confirms, subject), (0, 0))
            if count != copy.count_per_run or (copy.bytes_per_run is not None and nbytes != copy.bytes_per_run):
                ok = False
        marked.append(replace(copy, confirmed=ok))
    return marked


def census_report(evidence: Evidence, copies: list[Copy]) -> CensusReport | None:
    """The attribution of ``evidence.census`` (None without a census)."""
    census = evidence.census
    if census is None:
        return None
    pairs, clock_note = _clock_pairs(census)
    report = attribute(census.records, pairs, evidence.session.profiling_start_ns, evidence.run_events,
                       evidence.node_events, copies, evidence.feeds, census.traced_runs, census.backend,
                       census.backend_version, census.clock_verified, getattr(census, "clock_error_ns", None))
    untraced = evidence.timings.run_ms if evidence.timings else []
    overhead = (list_median(census.traced_run_ms) / list_median(untraced) - 1.0
                if census.traced_run_ms and untraced else report.overhead)
    report = replace(report, overhead=overhead,
                     notes=list(census.notes) + ([clock_note] if clock_note else []) + report.notes)
    if not census.clock_verified:
        report.notes.append(f"the {census.backend} clock mapping has not been verified on a GPU: check the placement")
    return report


def _clock_pairs(census: Any) -> tuple[list[list[int]], str]:
    """The clock pairs to map with, and a note where they differ from the evidence's.

    PyTorch-profiler evidence recorded before ortcopy-doctor read Kineto's ``baseTimeNanoseconds`` paired each
    record_function marker with the ``time.time_ns()`` read before it; the marker starts tens to hundreds of µs after
    that read, so those pairs place copies early. Its base time is recovered from them (``census.kineto_base_ns``).
    """
    pairs = [list(p) for p in census.clock_pairs]
    if census.backend != "torch-profiler" or not pairs or any(int(c) == 0 for c, _ in pairs):
        return pairs, ""
    base = kineto_base_ns(pairs)
    if base is None:
        return pairs, ""
    lags = [(int(c) + base - int(t)) / 1000.0 for c, t in pairs]
    return [[0, base]], (f"clock: mapped with Kineto's base time {base} ns recovered from the record_function "
                         f"markers (they start {min(lags):.1f}..{max(lags):.1f} µs after the time.time_ns() read "
                         "before them; evidence recorded before the base time was read from the trace)")


def _bytes(n: int) -> str:
    return fmt_bytes(n)
