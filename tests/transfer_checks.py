"""Compare the copies a report predicts with what CUPTI counted (shared by GPU and fixture tests)."""

from __future__ import annotations

from typing import Any

Totals = dict[str, tuple[int, int]]


def report_totals(copies: list[dict[str, Any]], only_unremovable: bool = False) -> Totals:
    """direction -> (count, bytes) of host<->device copies per run, as the report states them."""
    totals: Totals = {}
    for c in copies:
        if only_unremovable and c["removable_by_binding"]:
            continue
        count, nbytes = totals.get(c["direction"], (0, 0))
        totals[c["direction"]] = (count + c["count_per_run"], nbytes + (c["bytes_per_run"] or 0))
    return totals


def census_totals(census: dict[str, Any]) -> Totals:
    """direction -> (count, bytes) of host<->device memcpys in one traced run."""
    totals: Totals = {}
    for r in census["records"]:
        if r["direction"] not in ("host_to_device", "device_to_host"):
            continue
        count, nbytes = totals.get(r["direction"], (0, 0))
        totals[r["direction"]] = (count + 1, nbytes + r["bytes"])
    return totals


def add_transfer(evidence: Any, node: str, direction: str, nbytes: int, host: str = "pinned") -> None:
    """One traced transfer per traced run, issued in the middle of ``node``'s event (mapped onto the tracer clock)."""
    from ortcopy_doctor.analysis.attribution import clock_offset
    from ortcopy_doctor.model.census import TransferRecord

    assert evidence.census is not None
    offset = clock_offset(evidence.census.clock_pairs)
    for event in evidence.node_events:
        if event.name != node or event.run not in evidence.census.traced_runs:
            continue
        at = evidence.session.profiling_start_ns + int((event.ts_us + event.dur_us / 2) * 1000) + offset
        src, dst = (host, "device") if direction == "host_to_device" else ("device", host)
        evidence.census.records.append(TransferRecord(direction, nbytes, src, dst, at + 500, at + 900,
                                                      900_000 + len(evidence.census.records), at, "runtime"))
