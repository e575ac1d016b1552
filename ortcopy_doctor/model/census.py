"""The transfer census as data: memcpy records (from CUPTI or a Kineto trace) and the clock pairs that map them
onto the session's clock. Tracing itself is in ``ortcopy_doctor.collect.census``; reading a recorded Kineto trace
and its clock is here, so evidence recorded on a GPU machine is read anywhere."""

from __future__ import annotations

import msgspec
import re
from decimal import Decimal  # loaded with msgspec already (msgspec imports decimal)
from msgspec import field
from typing import Any, Optional

COPY_KINDS = {1: "host_to_device", 2: "device_to_host", 8: "device_to_device", 9: "host_to_host", 10: "peer_to_peer"}
MEMORY_KINDS = {0: "unknown", 1: "pageable", 2: "pinned", 3: "device", 4: "array", 5: "managed", 6: "device_static",
                7: "managed_static"}


class TransferRecord(msgspec.Struct, frozen=True):
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


class Census(msgspec.Struct, frozen=True):
    """The memcpy records of one traced session and the clock pairs that map them onto ``time.time_ns()``."""

    records: list[TransferRecord] = field(default_factory=list)
    clock_pairs: list[tuple[int, int]] = field(default_factory=list)  # (tracer ns, time.time_ns())
    backend: str = "cupti-python"
    clock_error_ns: Optional[int] = None  # bound on the mapping error, where measured
    clock_verified: bool = True  # False where the mapping rests on an assumption this run could not check
    notes: list[str] = field(default_factory=list)

    def host_device(self) -> list[TransferRecord]:
        """The records that cross between host and device."""
        return [r for r in self.records if r.direction in ("host_to_device", "device_to_host")]

    def totals(self) -> dict[str, tuple[int, int]]:
        """direction -> (count, bytes)."""
        result: dict[str, tuple[int, int]] = {}
        for r in self.records:
            count, nbytes = result.get(r.direction, (0, 0))
            result[r.direction] = (count + 1, nbytes + r.bytes)
        return result


_TORCH_KINDS = {"pageable": "pageable", "pinned": "pinned", "device": "device", "managed": "managed", "array": "array"}
_TORCH_DIRECTIONS = {"htod": "host_to_device", "dtoh": "device_to_host", "dtod": "device_to_device",
                     "htoh": "host_to_host", "ptop": "peer_to_peer"}
CLOCK_MARKER = "ortcopy_doctor_clock"
TORCH_PROFILER_BACKEND = "torch-profiler"
# libkineto's ChromeTraceBaseTime: trace ``ts`` are µs since the epoch floored to intervals of this many seconds.
KINETO_BASE_INTERVAL_S = 7_889_238
# A record_function marker starts after time.time_ns() was read before it and (much) less than this later.
MARKER_MAX_LAG_NS = 1_000_000_000
MARKER_MAX_LEAD_NS = 1_000_000  # and not before it, up to the precision of Kineto's own clock conversion


def _ns(value: Any) -> int:
    """µs (float, Decimal, int or str, as Kineto writes them) -> integer ns, exactly for 3 decimals."""
    return int((Decimal(str(value)) * 1000).to_integral_value())


def kineto_base_ns(clock_pairs: list[tuple[int, int]] | list[list[int]]) -> Optional[int]:
    """Kineto's ``baseTimeNanoseconds`` recovered from marker pairs (marker ns since the base, ``time.time_ns()``
    read just before it): the base among the candidates (this interval's start, the previous one's, 0 for traces
    in absolute epoch µs) that puts every marker at most ``MARKER_MAX_LAG_NS`` after its read. None: no candidate fits.
    """
    pairs = [(int(c), int(t)) for c, t in clock_pairs]
    if not pairs:
        return None
    interval = KINETO_BASE_INTERVAL_S * 1_000_000_000
    floor = (pairs[0][1] // interval) * interval
    for base in (floor, floor - interval, 0):
        if all(-MARKER_MAX_LEAD_NS <= c + base - t <= MARKER_MAX_LAG_NS for c, t in pairs):
            return base
    return None


def census_from_torch_trace(trace: Any, marks: list[int] | list[tuple[int, int]] | list[list[int]]) -> Census:
    """A ``Census`` from a Kineto chrome trace (dict with "traceEvents", or the list itself).

    Record times stay in the trace's clock (ns since ``baseTimeNanoseconds``); the clock pair ``(0, base)`` maps
    them onto ``time.time_ns()`` exactly. ``marks`` are the ``time.time_ns()`` reads around each ``CLOCK_MARKER``
    range, in order (``(before, after)``, or ``before`` alone): they check the base, or recover it
    (``kineto_base_ns``) from a trace without one. Only where neither works are the markers themselves the
    clock pairs, which places copies up to a few hundred µs early: the census then says so (``clock_verified``).
    """
    events = trace.get("traceEvents", []) if isinstance(trace, dict) else list(trace)

    markers = sorted(_ns(e["ts"]) for e in events if isinstance(e, dict) and e.get("name") == CLOCK_MARKER
                     and "ts" in e and str(e.get("cat", "user_annotation")).lower() == "user_annotation")
    reads = [(int(m[0]), int(m[1])) if isinstance(m, (list, tuple)) else (int(m), None) for m in marks]
    marker_pairs = [(m, before) for m, (before, _) in zip(markers, reads)]
    raw_base = trace.get("baseTimeNanoseconds") if isinstance(trace, dict) else None
    base = int(raw_base) if raw_base is not None else kineto_base_ns(marker_pairs)
    notes: list[str] = []
    if base is None:
        clock_pairs = marker_pairs
        clock_verified = False
        notes.append("clock: the trace has no baseTimeNanoseconds and the record_function markers fit no "
                     "Kineto base time: mapped by the markers, which start after the time.time_ns() read "
                     "(copies may be placed up to a few hundred µs early)")
    else:
        clock_pairs = [(0, base)]
        source = "baseTimeNanoseconds" if raw_base is not None else "Kineto's base time recovered from the markers"
        lags = [m + base - before for m, before in marker_pairs]
        late = [m + base - after for m, (_, after) in zip(markers, reads) if after is not None]
        consistent = all(-MARKER_MAX_LEAD_NS <= lag <= MARKER_MAX_LAG_NS for lag in lags)
        clock_verified = raw_base is not None and bool(lags) and consistent
        text = f"clock: trace ts + {source} ({base} ns) = time.time_ns()"
        if lags:
            text += (f"; the {len(lags)} record_function marker(s) start {min(lags) / 1000:.1f}..{max(lags) / 1000:.1f} µs "
                     f"after the time.time_ns() read before them")
            if late:
                text += f" ({max(late) / 1000:.1f} µs at most after the read that follows them)"
        else:
            text += "; no record_function marker found to check it"
        if lags and not consistent:
            text += ": inconsistent with the base time, check the placement"
        notes.append(text)
    census = Census(clock_pairs=clock_pairs, backend=TORCH_PROFILER_BACKEND, clock_verified=clock_verified, notes=notes)

    api: dict[int, tuple[str, int]] = {}
    copies: list[dict[str, Any]] = []
    for e in events:
        if not isinstance(e, dict) or "ts" not in e:
            continue
        cat = str(e.get("cat", "")).lower()
        args = e.get("args") or {}
        corr = args.get("correlation")
        if cat in ("cuda_runtime", "cuda_driver") and corr is not None:
            _keep_issuing_call(api, int(corr), "runtime" if cat == "cuda_runtime" else "driver", _ns(e["ts"]))
        elif cat == "gpu_memcpy":
            copies.append(e)
    pattern = re.compile(r"Memcpy\s+(\w+)\s*\((\w+)\s*->\s*(\w+)\)", re.IGNORECASE)
    for e in copies:
        args = e.get("args") or {}
        match = pattern.search(str(e.get("name", "")))
        direction, src, dst = (match.group(1), match.group(2), match.group(3)) if match else ("", "unknown", "unknown")
        corr = int(args.get("correlation", -1))
        issued = api.get(corr)
        start = _ns(e["ts"])
        census.records.append(TransferRecord(
            direction=_TORCH_DIRECTIONS.get(direction.lower(), direction.lower() or "unknown"),
            bytes=int(args.get("bytes", 0)), src_kind=_TORCH_KINDS.get(src.lower(), src.lower()),
            dst_kind=_TORCH_KINDS.get(dst.lower(), dst.lower()), start_ns=start, end_ns=start + _ns(e.get("dur", 0)),
            correlation_id=corr, api_start_ns=issued[1] if issued else None, api_kind=issued[0] if issued else ""))
    census.records.sort(key=lambda r: r.start_ns)
    return census



def _keep_issuing_call(api: dict[int, tuple[str, int]], corr: int, kind: str, start: int) -> None:
    """Runtime and driver records of one call share its correlation id: keep the outermost, earliest one."""
    seen = api.get(corr)
    if seen is None or (kind == "runtime", -start) > (seen[0] == "runtime", -seen[1]):
        api[corr] = (kind, start)


__all__ = ["CLOCK_MARKER", "COPY_KINDS", "Census", "MEMORY_KINDS", "TransferRecord", "census_from_torch_trace",
           "kineto_base_ns"]
