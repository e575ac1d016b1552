"""The attribution of a transfer census as data: every traced transfer with its cause, totals per run and class,
groups, bandwidth and consistency checks (``analysis.attribution.census_report`` computes it; the report JSON holds
it as ``census``)."""

from __future__ import annotations

import msgspec
from msgspec import field
from typing import Optional

from ortcopy_doctor.model.vocabulary import HOST_DEVICE, UNEXPLAINED, CensusCheck, CensusClass, PlacedBy


class AttributedTransfer(msgspec.Struct, frozen=True):
    """One traced memcpy, placed on the ORT timeline and given its cause."""

    run: int  # profile run index, -1 outside every run
    kind: CensusClass  # feed, fetch, memcpy_node, in_kernel, device_to_device, other_copy, outside, between_nodes
    direction: str
    bytes: int
    src_kind: str  # pageable, pinned, device, ...
    dst_kind: str
    duration_ns: int  # on the device, from the memcpy record
    node: str = ""  # the node event it was issued in ("" for feeds, fetches and unplaced copies)
    op_type: str = ""
    tensor: str = ""  # feeds/fetches: matched by bytes to the input/output; Memcpy node/in-kernel: from the analysis
    confirms: str = ""  # the rule id of the finding it confirms, "unexplained", or "" (device-to-device, other)
    at_us: Optional[float] = None  # issue time on the profile's clock (µs since profiling start)
    placed_by: PlacedBy = PlacedBy.API  # api (start of the issuing API call), device (memcpy start: no API record)
    correlation_id: int = 0
    # Feeds/fetches taken at a run boundary: how far (µs) the issue time mapped past it (into the first/last node,
    # or outside the run), within the clock tolerance; None for every other transfer.
    boundary_us: Optional[float] = None

    @property
    def host_device(self) -> bool:
        """Whether it crosses between host and device (device-to-device and host-to-host copies do not)."""
        return self.direction in HOST_DEVICE

    @property
    def unexplained(self) -> bool:
        """Whether no rule explains it (it is listed and counted, never dropped)."""
        return self.confirms == UNEXPLAINED


class ClassTotal(msgspec.Struct, frozen=True):
    """The transfers of one class (feed, fetch, Memcpy node, ...) in one run, or their mean over the traced runs."""

    count: int = 0
    bytes: int = 0
    duration_ns: int = 0
    share_of_run: Optional[float] = None  # device copy time / model_run wall time


class RunTotals(msgspec.Struct, frozen=True):
    """The transfers of one traced run, per class, and its host<->device total."""

    run: int
    run_dur_us: int
    classes: dict[CensusClass, ClassTotal] = field(default_factory=dict)
    host_device_count: int = 0
    host_device_bytes: int = 0


class TransferGroup(msgspec.Struct, frozen=True):
    """Transfers of one cause (class, node or tensor, direction), per traced run on average."""

    kind: CensusClass
    direction: str
    node: str
    op_type: str
    tensor: str
    confirms: str
    src_kind: str
    dst_kind: str
    count_per_run: float
    bytes_per_run: float
    time_ns_per_run: float
    share_of_run: Optional[float]


class Bandwidth(msgspec.Struct, frozen=True):
    """Measured copy rate by direction and host memory kind (small copies are latency-bound: read with bytes)."""

    direction: str
    host_kind: str  # pageable, pinned, ...
    count: int
    bytes: int
    duration_ns: int
    gb_per_s: Optional[float]
    largest_bytes: int
    largest_gb_per_s: Optional[float]


class ConsistencyCheck(msgspec.Struct, frozen=True):
    """Bytes the census traced for one node or tensor in one run, against what the profile, feeds or analysis expect."""

    check: CensusCheck  # memcpy_node_bytes, feed_bytes, fetch_bytes, in_kernel_bytes
    subject: str  # node or tensor
    run: int
    expected: Optional[int]
    observed: int
    ok: bool
    detail: str = ""


class CensusReport(msgspec.Struct, frozen=True):
    """The attribution of a transfer census: every traced transfer with its cause, totals per run and class, groups,
    bandwidth and consistency checks."""

    backend: str
    backend_version: str
    traced_runs: list[int]
    clock_offset_ns: int  # tracer clock minus time.time_ns()
    clock_verified: bool
    transfers: list[AttributedTransfer]
    runs: list[RunTotals]
    per_run: dict[CensusClass, ClassTotal]  # class -> mean over traced runs
    groups: list[TransferGroup]
    bandwidth: list[Bandwidth]
    checks: list[ConsistencyCheck]
    attributed_share: float  # host<->device transfers placed in a run and class / all host<->device transfers
    overhead: Optional[float] = None  # median traced / median untraced run time - 1
    notes: list[str] = field(default_factory=list)
    clock_error_ns: Optional[int] = None  # measured bound on the clock mapping error (None: not measured)
    boundary_tolerance_us: float = 0.0  # how far past a run boundary a feed/fetch copy may map (see boundary_tolerance)

    @property
    def unexplained(self) -> list[AttributedTransfer]:
        """The traced transfers no rule explains."""
        return [t for t in self.transfers if t.unexplained]

    @property
    def mismatches(self) -> list[ConsistencyCheck]:
        """The consistency checks that failed."""
        return [c for c in self.checks if not c.ok]


__all__ = ["AttributedTransfer", "Bandwidth", "CensusReport", "ClassTotal", "ConsistencyCheck", "RunTotals",
           "TransferGroup"]
