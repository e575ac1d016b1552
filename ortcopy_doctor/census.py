"""Transfer census with CUPTI: every memcpy the CUDA driver performs while a block of code runs.

Backend: ``cupti-python`` (``pip install ortcopy-doctor[cupti]``). MEMCPY activity records give
direction, bytes, memory kinds and device timestamps; RUNTIME/DRIVER records with the same
correlation id give the host time the copy was issued, which is what places it on ORT's timeline
(../shared/docs/ort-notes.md). CUPTI and ``time.time_ns()`` clocks are sampled together so one
can be mapped onto the other.
"""

from __future__ import annotations

import time
from dataclasses import dataclass, field
from typing import Any

COPY_KINDS = {1: "host_to_device", 2: "device_to_host", 8: "device_to_device", 9: "host_to_host", 10: "peer_to_peer"}
MEMORY_KINDS = {0: "unknown", 1: "pageable", 2: "pinned", 3: "device", 4: "array", 5: "managed", 6: "device_static",
                7: "managed_static"}


@dataclass
class TransferRecord:
    """One memcpy seen by CUPTI; times in CUPTI nanoseconds."""

    direction: str
    bytes: int
    src_kind: str
    dst_kind: str
    start_ns: int
    end_ns: int
    correlation_id: int
    api_start_ns: int | None = None
    api_kind: str = ""


@dataclass
class Census:
    records: list[TransferRecord] = field(default_factory=list)
    clock_pairs: list[tuple[int, int]] = field(default_factory=list)  # (cupti ns, time.time_ns())
    backend: str = "cupti-python"

    def host_device(self) -> list[TransferRecord]:
        return [r for r in self.records if r.direction in ("host_to_device", "device_to_host")]

    def totals(self) -> dict[str, tuple[int, int]]:
        """direction -> (count, bytes)."""
        result: dict[str, tuple[int, int]] = {}
        for r in self.records:
            count, nbytes = result.get(r.direction, (0, 0))
            result[r.direction] = (count + 1, nbytes + r.bytes)
        return result


class CuptiUnavailable(RuntimeError):
    """cupti-python is not installed or CUPTI cannot run here; the message says why."""


class CuptiTracer:
    """``with CuptiTracer() as tracer: ...`` then ``tracer.census``. One tracer at a time per process."""

    _registered = False
    _sink: list[Any] | None = None

    def __init__(self) -> None:
        try:
            from cupti import cupti
        except Exception as exc:  # ImportError, or a missing libcupti / pyelftools
            raise CuptiUnavailable(f"cupti-python is not usable here ({type(exc).__name__}: {exc}); "
                                   "install it with `pip install ortcopy-doctor[cupti]`") from None
        self._cupti = cupti
        self.census = Census()
        self._raw: list[Any] = []

    @classmethod
    def _ensure_registered(cls, cupti: Any) -> None:
        if cls._registered:
            return

        def requested() -> tuple[int, int]:
            return 8 * 1024 * 1024, 0

        def completed(activities: list[Any]) -> None:
            sink = CuptiTracer._sink
            if sink is None:
                return
            for a in activities:
                kind = a.kind
                if kind == cupti.ActivityKind.MEMCPY:
                    sink.append(("memcpy", int(a.copy_kind), int(a.bytes), int(a.src_kind), int(a.dst_kind),
                                 int(a.start), int(a.end), int(a.correlation_id)))
                elif kind in (cupti.ActivityKind.RUNTIME, cupti.ActivityKind.DRIVER):
                    sink.append(("api", "runtime" if kind == cupti.ActivityKind.RUNTIME else "driver",
                                 int(a.start), int(a.correlation_id)))

        cupti.activity_register_callbacks(requested, completed)
        cls._registered = True

    def _kinds(self) -> list[Any]:
        k = self._cupti.ActivityKind
        return [k.MEMCPY, k.RUNTIME, k.DRIVER]

    def __enter__(self) -> CuptiTracer:
        cupti = self._cupti
        self._ensure_registered(cupti)
        CuptiTracer._sink = self._raw
        self.census.clock_pairs.append((int(cupti.get_timestamp()), time.time_ns()))
        for kind in self._kinds():
            cupti.activity_enable(kind)
        return self

    def __exit__(self, *exc: object) -> None:
        cupti = self._cupti
        for kind in self._kinds():
            cupti.activity_disable(kind)
        cupti.activity_flush_all(1)
        self.census.clock_pairs.append((int(cupti.get_timestamp()), time.time_ns()))
        CuptiTracer._sink = None
        api: dict[int, tuple[str, int]] = {}
        memcpys = []
        for entry in self._raw:
            if entry[0] == "api":
                api[entry[3]] = (entry[1], entry[2])
            else:
                memcpys.append(entry)
        for _, copy_kind, nbytes, src, dst, start, end, corr in memcpys:
            issued = api.get(corr)
            self.census.records.append(TransferRecord(
                direction=COPY_KINDS.get(copy_kind, f"kind_{copy_kind}"), bytes=nbytes,
                src_kind=MEMORY_KINDS.get(src, str(src)), dst_kind=MEMORY_KINDS.get(dst, str(dst)),
                start_ns=start, end_ns=end, correlation_id=corr,
                api_start_ns=issued[1] if issued else None, api_kind=issued[0] if issued else ""))
        self.census.records.sort(key=lambda r: r.start_ns)
