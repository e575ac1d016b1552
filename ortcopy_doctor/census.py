"""Transfer census with CUPTI: every memcpy the CUDA driver performs while a block of code runs.

Backend: ``cupti-python`` (``pip install ortcopy-doctor[cupti]``). MEMCPY activity records give
direction, bytes, memory kinds and device timestamps; RUNTIME/DRIVER records with the same
correlation id give the host time the copy was issued, which is what places it on ORT's timeline
(docs/ort-notes.md). CUPTI and ``time.time_ns()`` clocks are sampled together so one
can be mapped onto the other: several times at the start and at the end of tracing, each CUPTI sample bracketed by
two ``time.time_ns()`` reads; the tightest bracket at each end is kept, and half its width plus half the spread of
the two offsets bounds the mapping error (``Census.clock_error_ns``).

Second backend: the PyTorch profiler (Kineto). Its chrome trace's ``ts`` are µs since ``baseTimeNanoseconds``
(epoch ns floored to libkineto's ~3-month interval), i.e. ``time.time_ns()``'s clock shifted by a whole number of
seconds; see ``census_from_torch_trace``.
"""

from __future__ import annotations

import time
from dataclasses import dataclass, field
from decimal import Decimal
from typing import Any, Optional

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
    clock_pairs: list[tuple[int, int]] = field(default_factory=list)  # (tracer ns, time.time_ns())
    backend: str = "cupti-python"
    clock_error_ns: Optional[int] = None  # bound on the mapping error, where measured
    clock_verified: bool = True  # False where the mapping rests on an assumption this run could not check
    notes: list[str] = field(default_factory=list)

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

    CLOCK_SAMPLES = 5

    def __init__(self) -> None:
        try:
            from cupti import cupti
        except Exception as exc:  # ImportError, or a missing libcupti / pyelftools
            raise CuptiUnavailable(f"cupti-python is not usable here ({type(exc).__name__}: {exc}); "
                                   "install it with `pip install ortcopy-doctor[cupti]`") from None
        self._cupti = cupti
        self.census = Census()
        self._raw: list[Any] = []
        self._half_brackets: list[int] = []

    def _sample_clock(self) -> None:
        """One clock pair: the CUPTI timestamp whose bracketing ``time.time_ns()`` reads are closest together."""
        best: tuple[int, int, int] | None = None
        for _ in range(self.CLOCK_SAMPLES):
            before = time.time_ns()
            cupti_ns = int(self._cupti.get_timestamp())
            after = time.time_ns()
            if best is None or after - before < best[2] - best[1]:
                best = (cupti_ns, before, after)
        assert best is not None
        cupti_ns, before, after = best
        self.census.clock_pairs.append((cupti_ns, before + (after - before) // 2))
        self._half_brackets.append((after - before + 1) // 2)

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
        self._sample_clock()
        for kind in self._kinds():
            cupti.activity_enable(kind)
        return self

    def __exit__(self, *exc: object) -> None:
        cupti = self._cupti
        for kind in self._kinds():
            cupti.activity_disable(kind)
        cupti.activity_flush_all(1)
        self._sample_clock()
        CuptiTracer._sink = None
        self.census.clock_error_ns = clock_error_ns(self.census.clock_pairs, self._half_brackets)
        api: dict[int, tuple[str, int]] = {}
        memcpys = []
        for entry in self._raw:
            if entry[0] == "api":
                _keep_issuing_call(api, entry[3], entry[1], entry[2])
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


def _keep_issuing_call(api: dict[int, tuple[str, int]], corr: int, kind: str, start: int) -> None:
    """Runtime and driver records of one call share its correlation id: keep the outermost, earliest one."""
    seen = api.get(corr)
    if seen is None or (kind == "runtime", -start) > (seen[0] == "runtime", -seen[1]):
        api[corr] = (kind, start)


def clock_error_ns(clock_pairs: list[tuple[int, int]] | list[list[int]], half_brackets: list[int]) -> int:
    """Bound on the error of mapping tracer times with the mean offset of ``clock_pairs``: the widest half-bracket
    of a pair plus half the spread of the pairs' offsets (a drift between the clocks while tracing)."""
    offsets = [int(c) - int(t) for c, t in clock_pairs]
    spread = (max(offsets) - min(offsets)) if offsets else 0
    return max(half_brackets, default=0) + (spread + 1) // 2


# --- second backend: the PyTorch profiler -------------------------------------------------------------------------

_TORCH_KINDS = {"pageable": "pageable", "pinned": "pinned", "device": "device", "managed": "managed", "array": "array"}
_TORCH_DIRECTIONS = {"htod": "host_to_device", "dtoh": "device_to_host", "dtod": "device_to_device",
                     "htoh": "host_to_host", "ptop": "peer_to_peer"}
CLOCK_MARKER = "ortcopy_doctor_clock"
# libkineto's ChromeTraceBaseTime: trace ``ts`` are µs since the epoch floored to intervals of this many seconds.
KINETO_BASE_INTERVAL_S = 7_889_238
# A record_function marker starts after time.time_ns() was read before it and (much) less than this later.
MARKER_MAX_LAG_NS = 1_000_000_000
MARKER_MAX_LEAD_NS = 1_000_000  # and not before it, up to the precision of Kineto's own clock conversion


class TracerUnavailable(RuntimeError):
    """A tracing backend cannot run here; the message says why."""


class TorchProfilerTracer:
    """Same contract as ``CuptiTracer`` (``with ... as tracer``, then ``tracer.census``), through ``torch.profiler``.

    The trace layout it reads (what it parsed on the H200 with torch 2.11.0, tests/fixtures/census_live/torch-profiler,
    agrees): memcpy events have ``cat`` "gpu_memcpy", a name like "Memcpy HtoD (Pageable -> Device)" and ``args``
    {"bytes", "correlation"}; the runtime/driver calls that issued them have ``cat`` "cuda_runtime"/"cuda_driver"
    and the same ``args.correlation``; ``ts``/``dur`` are µs (3 decimals) since the trace's top-level
    ``baseTimeNanoseconds`` (libkineto's output_json.cpp; epoch ns, CPU and GPU events alike). The recorded runs'
    placement is right with that base and wrong without it. ``time.time_ns()`` is read around a
    ``record_function(CLOCK_MARKER)`` range at the start and the end: those markers only check the base time
    (they start 48..192 µs after the read before them there, the cost of entering ``record_function``).
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
        self._marks: list[tuple[int, int]] = []

    def _mark(self) -> None:
        before = time.time_ns()
        with self._record_function(CLOCK_MARKER):
            pass
        self._marks.append((before, time.time_ns()))

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
                # Kept for tools/verify_census.py: Kineto saves a trace once per profile.
                self.raw_trace = f.read()
            trace = json.loads(self.raw_trace, parse_float=Decimal)  # ts like 5174668543970.777: keep every ns
        finally:
            os.unlink(path)
        self.census = census_from_torch_trace(trace, self._marks)


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
    import re

    events = trace.get("traceEvents", []) if isinstance(trace, dict) else list(trace)
    census = Census(backend=TorchProfilerTracer.backend)

    markers = sorted(_ns(e["ts"]) for e in events if isinstance(e, dict) and e.get("name") == CLOCK_MARKER
                     and "ts" in e and str(e.get("cat", "user_annotation")).lower() == "user_annotation")
    reads = [(int(m[0]), int(m[1])) if isinstance(m, (list, tuple)) else (int(m), None) for m in marks]
    marker_pairs = [(m, before) for m, (before, _) in zip(markers, reads)]
    raw_base = trace.get("baseTimeNanoseconds") if isinstance(trace, dict) else None
    base = int(raw_base) if raw_base is not None else kineto_base_ns(marker_pairs)
    if base is None:
        census.clock_pairs = marker_pairs
        census.clock_verified = False
        census.notes.append("clock: the trace has no baseTimeNanoseconds and the record_function markers fit no "
                            "Kineto base time: mapped by the markers, which start after the time.time_ns() read "
                            "(copies may be placed up to a few hundred µs early)")
    else:
        census.clock_pairs = [(0, base)]
        source = "baseTimeNanoseconds" if raw_base is not None else "Kineto's base time recovered from the markers"
        lags = [m + base - before for m, before in marker_pairs]
        late = [m + base - after for m, (_, after) in zip(markers, reads) if after is not None]
        consistent = all(-MARKER_MAX_LEAD_NS <= lag <= MARKER_MAX_LAG_NS for lag in lags)
        census.clock_verified = raw_base is not None and bool(lags) and consistent
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
        census.notes.append(text)

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
