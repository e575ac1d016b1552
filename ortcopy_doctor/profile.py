"""Parser of ORT's JSON profile (chrome trace format).

Events are sorted by ``ts``: ORT 1.31 writes them in end-time order. Node events are the
``*_kernel_time`` ones (``*_fence_before``/``*_fence_after`` exist only up to ORT 1.20 and are
skipped). Each ``model_run`` session event opens a run; node events are assigned to the run whose
time span holds them. Old profiles lack ``provider`` or ``op_name`` on some events: those fields
fall back to "" and the node name.
"""

from __future__ import annotations

import bisect
import json
from collections.abc import Iterable
from pathlib import Path
from typing import Any

from .errors import ModelError
from .evidence import NodeEvent, RunEvent
from .model_info import dtype_itemsize

_KERNEL_SUFFIX = "_kernel_time"

_PROFILE_TYPES = {
    "float": "float32", "double": "float64", "float16": "float16", "bfloat16": "bfloat16",
    "int8": "int8", "uint8": "uint8", "int16": "int16", "uint16": "uint16", "int32": "int32",
    "uint32": "uint32", "int64": "int64", "uint64": "uint64", "bool": "bool",
}


def load_events(path: Path) -> list[dict[str, Any]]:
    try:
        with Path(path).open("rb") as f:
            data = json.load(f)
    except (OSError, ValueError) as exc:
        raise ModelError(f"profile {path} is not readable JSON ({exc})") from None
    if isinstance(data, dict):  # {"traceEvents": [...]} form
        data = data.get("traceEvents", [])
    if not isinstance(data, list):
        raise ModelError(f"profile {path} is not an ORT profile (expected a list of events)")
    return data


def tensor_bytes(shape_entry: Any) -> int:
    """Bytes of one ``{"float": [2, 4]}`` entry of ``input_type_shape``; 0 where unknown."""
    if not isinstance(shape_entry, dict) or len(shape_entry) != 1:
        return 0
    ((type_name, dims),) = shape_entry.items()
    size = dtype_itemsize(_PROFILE_TYPES.get(type_name, ""))
    if not size or not isinstance(dims, list):
        return 0
    count = 1
    for d in dims:
        count *= int(d)
    return count * size


def parse_events(events: Iterable[dict[str, Any]], warmup_runs: int = 0) -> tuple[list[RunEvent], list[NodeEvent]]:
    """Runs and node events; the first ``warmup_runs`` runs are marked warm-up."""
    runs: list[RunEvent] = []
    nodes_raw: list[dict[str, Any]] = []
    for event in sorted((e for e in events if isinstance(e, dict) and "ts" in e), key=lambda e: int(e["ts"])):
        cat = event.get("cat")
        name = str(event.get("name", ""))
        if cat == "Session" and name == "model_run":
            index = len(runs)
            runs.append(RunEvent(run=index, ts_us=int(event["ts"]), dur_us=int(event.get("dur", 0)),
                                 warmup=index < warmup_runs))
        elif cat == "Node" and name.endswith(_KERNEL_SUFFIX):
            nodes_raw.append(event)
    starts = [run.ts_us for run in runs]
    node_events: list[NodeEvent] = []
    for event in nodes_raw:
        ts = int(event["ts"])
        run = _run_of(starts, ts)
        args = event.get("args") or {}
        name = str(event["name"])[: -len(_KERNEL_SUFFIX)]
        outputs = args.get("output_type_shape") or []
        output_size = args.get("output_size")
        output_bytes = int(output_size) if output_size not in (None, "") else sum(tensor_bytes(o) for o in outputs)
        node_events.append(
            NodeEvent(
                run=run,
                name=name,
                op_type=str(args.get("op_name", name)),
                provider=str(args.get("provider", "")),
                ts_us=ts,
                dur_us=int(event.get("dur", 0)),
                input_shapes=list(args.get("input_type_shape") or []),
                output_shapes=list(outputs),
                output_bytes=output_bytes,
            )
        )
    return runs, node_events


def _run_of(starts: list[int], ts: int) -> int:
    """Index of the last run that started at or before ``ts`` (-1 before the first run)."""
    return bisect.bisect_right(starts, ts) - 1


def parse_profile(path: Path, warmup_runs: int = 0) -> tuple[list[RunEvent], list[NodeEvent]]:
    return parse_events(load_events(path), warmup_runs)
