"""Transfer census with CUPTI: every memcpy the CUDA driver performs while a block of code runs.

Backend: ``cupti-python`` (``CUPTI_INSTALL`` says how: ortcopy-doctor is not on PyPI). MEMCPY activity records give
direction, bytes, memory kinds and device timestamps; RUNTIME/DRIVER records with the same correlation id give the
host time the copy was issued, which is what places it on ORT's timeline (docs/ort-notes.md). CUPTI and
``time.time_ns()`` clocks are sampled together so one can be mapped onto the other: several times at the start and
at the end of tracing, each CUPTI sample bracketed by two ``time.time_ns()`` reads; the tightest bracket at each end
is kept, and half its width plus half the spread of the two offsets bounds the mapping error
(``Census.clock_error_ns``).

Second backend: the PyTorch profiler (Kineto). Its chrome trace's ``ts`` are µs since ``baseTimeNanoseconds``
(epoch ns floored to libkineto's ~3-month interval), i.e. ``time.time_ns()``'s clock shifted by a whole number of
seconds; see ``census_from_torch_trace``.
"""

from __future__ import annotations

import importlib.util
import json
import os
import tempfile
import time
from decimal import Decimal  # loaded with msgspec already (msgspec's core imports decimal)
from msgspec.structs import replace
from typing import TYPE_CHECKING, Any

from ortcopy_doctor.model.census import (  # noqa: F401 - the census types, re-read by the tracers
    CLOCK_MARKER,
    COPY_KINDS,
    MEMORY_KINDS,
    TORCH_PROFILER_BACKEND,
    Census,
    TransferRecord,
    _keep_issuing_call,
    census_from_torch_trace,
)
from ortcopy_doctor.model.lazy import lazy_import

if TYPE_CHECKING:
    from importlib import metadata
else:  # run on first use (model/lazy.py): ~8 ms of imports, only where a census backend's version is recorded
    metadata = lazy_import("importlib.metadata")


class CuptiUnavailable(RuntimeError):
    """cupti-python is not installed or CUPTI cannot run here; the message says why."""

# How to get cupti-python where ortcopy-doctor runs. ortcopy-doctor itself is not published on PyPI, so the
# `cupti` extra is installed from the checkout, or its two packages by name.
CUPTI_INSTALL = ("in the ortcopy-doctor checkout `.venv/bin/pip install -e '.[cupti]'`, or `pip install "
                 "'cupti-python>=13' pyelftools` in the environment it runs in")


class CuptiTracer:
    """``with CuptiTracer() as tracer: ...`` then ``tracer.census``. One tracer at a time per process."""

    _registered = False
    _sink: list[Any] | None = None

    CLOCK_SAMPLES = 5

    def __init__(self) -> None:
        try:
            from cupti import cupti  # here: an optional dependency, absent on most machines (the except below)
        except Exception as exc:  # ImportError, or a missing libcupti / pyelftools
            raise CuptiUnavailable(f"cupti-python is not usable here ({type(exc).__name__}: {exc}); "
                                   f"install it: {CUPTI_INSTALL}") from None
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
        self.census = replace(self.census, clock_error_ns=clock_error_ns(self.census.clock_pairs, self._half_brackets))
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


def clock_error_ns(clock_pairs: list[tuple[int, int]] | list[list[int]], half_brackets: list[int]) -> int:
    """Bound on the error of mapping tracer times with the mean offset of ``clock_pairs``: the widest half-bracket
    of a pair plus half the spread of the pairs' offsets (a drift between the clocks while tracing)."""
    offsets = [int(c) - int(t) for c, t in clock_pairs]
    spread = (max(offsets) - min(offsets)) if offsets else 0
    return max(half_brackets, default=0) + (spread + 1) // 2


# --- second backend: the PyTorch profiler -------------------------------------------------------------------------

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

    backend = TORCH_PROFILER_BACKEND

    def __init__(self) -> None:
        try:
            import torch  # here: optional dependencies, torch may be absent or broken (the except below)
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


def backend_version(backend: str) -> str:
    """Installed version of a backend's package ("" where unknown)."""
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
    only = os.environ.get(BACKEND_ENV, "").strip()
    if only == "none":
        return None, [f"{BACKEND_ENV}=none"]
    reasons: list[str] = []
    if only == "torch-profiler":
        reasons.append(f"cupti-python not tried ({BACKEND_ENV}=torch-profiler)")
    elif importlib.util.find_spec("cupti") is None:
        reasons.append(f"cupti-python is not installed ({CUPTI_INSTALL})")
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
