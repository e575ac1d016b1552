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
