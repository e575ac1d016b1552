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


# --- second backend: the PyTorch profiler -------------------------------------------------------------------------

_TORCH_KINDS = {"pageable": "pageable", "pinned": "pinned", "device": "device", "managed": "managed", "array": "array"}
_TORCH_DIRECTIONS = {"htod": "host_to_device", "dtoh": "device_to_host", "dtod": "device_to_device",
                     "htoh": "host_to_host", "ptop": "peer_to_peer"}
CLOCK_MARKER = "ortcopy_doctor_clock"


class TracerUnavailable(RuntimeError):
    """A tracing backend cannot run here; the message says why."""


class TorchProfilerTracer:
    """Same contract as ``CuptiTracer`` (``with ... as tracer``, then ``tracer.census``), through ``torch.profiler``.

    UNVERIFIED on a GPU (torch was not installed where this was written). Assumptions, from the Kineto
    chrome-trace format: memcpy events have ``cat`` "gpu_memcpy", a name like
    "Memcpy HtoD (Pageable -> Device)" and ``args`` {"bytes", "correlation"}; the runtime/driver calls that issued
    them have ``cat`` "cuda_runtime"/"cuda_driver" and the same ``args.correlation``; ``ts``/``dur`` are
    microseconds (floats) on one clock of Kineto's own. That clock's epoch is not assumed: a
    ``record_function(CLOCK_MARKER)`` range opened right after sampling ``time.time_ns()`` (and again at the end)
    gives the clock pairs, exactly as ``cupti.get_timestamp()`` does for the CUPTI backend.
    """

    backend = "torch-profiler"

    def __init__(self) -> None:
        try:
            import torch
            from torch.profiler import ProfilerActivity, profile, record_function
        except Exception as exc:  # noqa: BLE001 - ImportError, or a broken torch install
            raise TracerUnavailable(f"torch is not importable ({type(exc).__name__}: {exc})") from None
        if not torch.cuda.is_available():
            raise TracerUnavailable("torch is installed but sees no CUDA device (torch.cuda.is_available() is False)")
        self._torch = torch
        self._profile = profile
        self._record_function = record_function
        self._activities = [ProfilerActivity.CPU, ProfilerActivity.CUDA]
        self.census = Census(backend=self.backend)
        self._prof: Any = None
        self._marks: list[int] = []

    def _mark(self) -> None:
        self._marks.append(time.time_ns())
        with self._record_function(CLOCK_MARKER):
            pass

    def __enter__(self) -> TorchProfilerTracer:
        self._prof = self._profile(activities=self._activities)
        self._prof.__enter__()
        self._mark()
        return self

    def __exit__(self, *exc: object) -> None:
        import json
        import os
        import tempfile

        self._mark()
        self._prof.__exit__(None, None, None)
        fd, path = tempfile.mkstemp(prefix="ortcopy-doctor-torch-", suffix=".json")
        os.close(fd)
        try:
            self._prof.export_chrome_trace(path)
            with open(path, encoding="utf-8") as f:
                trace = json.load(f)
        finally:
            os.unlink(path)
        self.census = census_from_torch_trace(trace, self._marks)


def census_from_torch_trace(trace: Any, marks: list[int]) -> Census:
    """A ``Census`` from a Kineto chrome trace (dict with "traceEvents", or the list itself).

    ``marks`` are the ``time.time_ns()`` values sampled just before each ``CLOCK_MARKER`` range, in order.
    """
    import re

    events = trace.get("traceEvents", []) if isinstance(trace, dict) else list(trace)
    census = Census(backend=TorchProfilerTracer.backend)

    def ns(value: Any) -> int:
        return int(round(float(value) * 1000.0))

    markers = sorted(ns(e["ts"]) for e in events if isinstance(e, dict) and e.get("name") == CLOCK_MARKER and "ts" in e)
    census.clock_pairs = [(m, t) for m, t in zip(markers, marks)]
    api: dict[int, tuple[str, int]] = {}
    copies: list[dict[str, Any]] = []
    for e in events:
        if not isinstance(e, dict) or "ts" not in e:
            continue
        cat = str(e.get("cat", "")).lower()
        args = e.get("args") or {}
        corr = args.get("correlation")
        if cat in ("cuda_runtime", "cuda_driver") and corr is not None:
            api[int(corr)] = ("runtime" if cat == "cuda_runtime" else "driver", ns(e["ts"]))
        elif cat == "gpu_memcpy":
            copies.append(e)
    pattern = re.compile(r"Memcpy\s+(\w+)\s*\((\w+)\s*->\s*(\w+)\)", re.IGNORECASE)
    for e in copies:
        args = e.get("args") or {}
        match = pattern.search(str(e.get("name", "")))
        direction, src, dst = (match.group(1), match.group(2), match.group(3)) if match else ("", "unknown", "unknown")
        corr = int(args.get("correlation", -1))
        issued = api.get(corr)
        start = ns(e["ts"])
        census.records.append(TransferRecord(
            direction=_TORCH_DIRECTIONS.get(direction.lower(), direction.lower() or "unknown"),
            bytes=int(args.get("bytes", 0)), src_kind=_TORCH_KINDS.get(src.lower(), src.lower()),
            dst_kind=_TORCH_KINDS.get(dst.lower(), dst.lower()), start_ns=start, end_ns=start + ns(e.get("dur", 0)),
            correlation_id=corr, api_start_ns=issued[1] if issued else None, api_kind=issued[0] if issued else ""))
    census.records.sort(key=lambda r: r.start_ns)
    return census


def backend_version(backend: str) -> str:
    """Installed version of a backend's package ("" where unknown)."""
    from importlib import metadata

    package = {"cupti-python": "cupti-python", "torch-profiler": "torch"}.get(backend, backend)
    try:
        return metadata.version(package)
    except metadata.PackageNotFoundError:
        return ""


BACKEND_ENV = "ORTCOPY_CENSUS_BACKEND"  # cupti-python, torch-profiler or none: only that one (to verify a backend)


def start_tracer() -> tuple[Any | None, list[str]]:
    """Start the first backend that works here: cupti-python, else the PyTorch profiler.

    Returns (the entered tracer, or None; why each backend tried was not used). A failure to start
    never raises: the census is optional evidence. ``$ORTCOPY_CENSUS_BACKEND`` restricts the choice.
    """
    import importlib.util
    import os

    only = os.environ.get(BACKEND_ENV, "").strip()
    if only == "none":
        return None, [f"{BACKEND_ENV}=none"]
    reasons: list[str] = []
    if only == "torch-profiler":
        reasons.append(f"cupti-python not tried ({BACKEND_ENV}=torch-profiler)")
    elif importlib.util.find_spec("cupti") is None:
        reasons.append("cupti-python is not installed (pip install ortcopy-doctor[cupti])")
    else:
        tracer: Any = None
        try:
            tracer = CuptiTracer()
            tracer.__enter__()
            return tracer, reasons
        except CuptiUnavailable as exc:
            reasons.append(str(exc))
        except Exception as exc:  # noqa: BLE001 - e.g. NotSupportedError where no CUDA driver is loaded
            reasons.append(f"cupti-python cannot trace here ({type(exc).__name__}: {exc})")
            _abandon(tracer)
    if only == "cupti-python":
        reasons.append(f"the PyTorch profiler not tried ({BACKEND_ENV}=cupti-python)")
    elif importlib.util.find_spec("torch") is None:
        reasons.append("torch is not installed (its profiler is the other backend)")
    else:
        try:
            tracer = TorchProfilerTracer()
            tracer.__enter__()
            return tracer, reasons
        except TracerUnavailable as exc:
            reasons.append(str(exc))
        except Exception as exc:  # noqa: BLE001
            reasons.append(f"the PyTorch profiler cannot trace here ({type(exc).__name__}: {exc})")
    return None, reasons


def _abandon(tracer: Any) -> None:
    """Undo what a CuptiTracer whose ``__enter__`` failed half-way may have left enabled."""
    CuptiTracer._sink = None
    if tracer is None:
        return
    for kind in getattr(tracer, "_kinds", lambda: [])():
        try:
            tracer._cupti.activity_disable(kind)
        except Exception:  # noqa: BLE001 - it was never enabled
            pass
