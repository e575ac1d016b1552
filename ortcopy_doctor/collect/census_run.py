"""Taking the transfer census during ``check``: trace the profiled runs of the evidence session.

Backends in order: cupti-python, then the PyTorch profiler (``census.start_tracer``). Where neither can run, or
the session is not on the CUDA EP, the evidence says "skipped: <why>" and every other finding stays.
A census never fails a check: an error while tracing becomes the reason it was skipped.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from msgspec.structs import replace
from typing import Any

from ortcopy_doctor.knowledge import providers as provider_names
from ortcopy_doctor.collect.census import backend_version, start_tracer
from ortcopy_doctor.model.evidence import CensusEvidence


class CensusCollector:
    """``start(active)`` before the first profiled run, ``stop()`` after the last (idempotent, also on errors)."""

    def __init__(self, warmup_runs: int, profiled_runs: int) -> None:
        self.warmup_runs = warmup_runs
        self.profiled_runs = profiled_runs
        self.census: CensusEvidence | None = None
        self.status = ""
        self._tracer: Any = None
        self._started = False

    def start(self, active_providers: list[str]) -> None:
        """Start the CUPTI tracer where the session's main provider is CUDA; otherwise record in ``status`` why not."""
        self._started = True
        primary = active_providers[0] if active_providers else provider_names.CPU
        if primary != provider_names.CUDA:
            self.status = (f"skipped: the transfer census traces CUDA sessions and this one runs on "
                           f"{', '.join(provider_names.short(p) for p in active_providers) or 'CPU'}")
            return
        tracer, reasons = start_tracer()
        if tracer is None:
            self.status = "skipped: " + "; ".join(reasons)
            return
        self._tracer = tracer

    def stop(self) -> None:
        """Stop the tracer and keep its memcpy records in ``census``, with the numbers of the profiled runs it
        traced, or say in ``status`` why there is no census."""
        if not self._started:
            if not self.status:
                self.status = "skipped: no profiled runs to trace"
            return
        tracer, self._tracer = self._tracer, None
        if tracer is None:
            return
        try:
            tracer.__exit__(None, None, None)
        except Exception as exc:  # noqa: BLE001 - the census is optional evidence
            self.status = f"skipped: tracing failed while the runs were collected ({type(exc).__name__}: {exc})"
            return
        census = tracer.census
        first = self.warmup_runs
        self.census = CensusEvidence(
            backend=census.backend, backend_version=backend_version(census.backend),
            records=list(census.records), clock_pairs=[[int(c), int(t)] for c, t in census.clock_pairs],
            traced_runs=list(range(first, first + self.profiled_runs)),
            clock_verified=bool(getattr(census, "clock_verified", True)), notes=list(getattr(census, "notes", [])),
            clock_error_ns=getattr(census, "clock_error_ns", None))
        self.status = (f"recorded: {census.backend} {self.census.backend_version}".rstrip()
                       + f", {self.profiled_runs} profiled run(s) traced, {len(census.records)} memcpy record(s)")

    def measure_overhead(self, run_once: Callable[[], Any], runs: int) -> None:
        """Time ``runs`` runs traced the same way (in the timing session): the census' own overhead."""
        if self.census is None or runs <= 0:
            return
        tracer, _ = start_tracer()
        if tracer is None:
            return
        timings: list[float] = []
        try:
            for _ in range(runs):
                start = time.perf_counter()
                run_once()
                timings.append((time.perf_counter() - start) * 1000.0)
        finally:
            try:
                tracer.__exit__(None, None, None)
            except Exception:  # noqa: BLE001 - the overhead is a nicety
                timings = []
        self.census = replace(self.census, traced_run_ms=timings)
