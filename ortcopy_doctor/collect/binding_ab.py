"""A/B measurement of IO binding: plain run(), the recommended plan, everything on the device, a CUDA graph.

All variants run in sessions without profiling (profiling roughly doubled the per-run time of a 1 ms model,
docs/ort-notes.md), on the same inputs and shapes, after warm-up, interleaved round by round so
drift hits every variant alike. The number of rounds adapts (stats.Sampler): ``measure_runs`` rounds first,
then more until the 95% interval of every variant's speed-up over plain run() is within ±3% or
``measure_budget_s`` is spent. Every raw sample is kept in the record, with the same calls timed on the GPU
clock: CUDA events, through the CUDA runtime ORT's CUDA EP has loaded (else torch or cupy, where importable). The plan is the generated code itself: it is
executed as printed (in two chunks: the setup, then ``infer()``'s definition and first call), and ``plain`` and
``all_device`` reuse the session it created. The CUDA graph runs its own generated code, where nothing blocks capture.

Transfers per call come from a CUPTI census where ``census.CuptiTracer`` works here, else from what the
plan promises (advice.promised_transfers); ``transfer_source`` says which.
"""

from __future__ import annotations

import ctypes
import time
from msgspec.structs import replace
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING, Any

import numpy as np

from ortcopy_doctor.report.variants import VARIANT_LABELS, cuda_graph_blockers, promised_transfers
from ortcopy_doctor.analysis.copies import find_copies
from ortcopy_doctor.analysis.binding import DEVICE, UNBOUND, code_names, make_plan
from ortcopy_doctor.model.binding import BindingPlan
from ortcopy_doctor.collect.census import CuptiTracer, CuptiUnavailable
from ortcopy_doctor.collect.code_check import BLOCK_LABELS, Block, check_code, quiet
from ortcopy_doctor.model.evidence import BindingMeasurement, CodeCheck, Evidence, PhaseTiming, PinnedTiming, VariantTiming
from ortcopy_doctor.model.vocabulary import CodeCheckStatus, MeasurementStatus, Variant
from ortcopy_doctor.analysis.stats import Sampler, median
from ortcopy_doctor.collect.procmaps import MAPS, first_library
from ortcopy_doctor.collect.session import provider_list, release_traceback, session_options
from ortcopy_doctor.knowledge.providers import CUDA

if TYPE_CHECKING:
    from ortcopy_doctor.collect.session import CheckOptions
    from ortcopy_doctor.model.copies import Copy
    from ortcopy_doctor.report.variants import Blocker

DEFAULT_RUNS = 50
DEFAULT_BUDGET_S = 5.0


def decide(evidence: Evidence, requested: bool | None) -> str | None:
    """None where the measurement should run; else why not (shown in the report)."""
    if requested is False:
        return "turned off (--no-measure-binding)"
    active = evidence.session.active_providers
    if not active or active[0] != CUDA:
        asked = "--measure-binding was given, but " if requested else ""
        if CUDA not in evidence.session.requested_providers:
            # e.g. --provider cpu on purpose: nothing failed, there is just no device in this session
            return (f"{asked}CUDA was not requested (the session runs on {', '.join(active) or 'nothing'}): there is "
                    "no device to bind on")
        why = evidence.session.ep_failure or f"the session runs on {', '.join(active) or 'nothing'}"
        # the first line of ORT's reason, whole (cut at 200 characters it read "... Require cuDNN )")
        return (f"{asked}the CUDA EP is not active here ({why.splitlines()[0]}): there is no device to bind on; "
                "run check where the CUDA EP loads to measure binding")
    return None


def stats(samples: list[float]) -> dict[str, float]:
    """Median, 10th, 25th, 75th and 90th percentiles of ``samples`` (ms), keyed ``median_ms``, ``p10_ms``, ..."""
    arr = np.asarray(samples, dtype=np.float64)
    p10, p25, p50, p75, p90 = np.percentile(arr, [10, 25, 50, 75, 90])
    return {"median_ms": float(p50), "p10_ms": float(p10), "p25_ms": float(p25), "p75_ms": float(p75), "p90_ms": float(p90)}


def _timed(fn: Callable[[], Any]) -> float:
    start = time.perf_counter_ns()
    fn()
    return (time.perf_counter_ns() - start) / 1e6


def _host_timer(fn: Callable[[], Any]) -> tuple[float, float | None]:
    return _timed(fn), None


class CudaRuntime:
    """The CUDA runtime library (libcudart) that ORT's CUDA EP loaded into this process, called through ctypes:
    CUDA events and page-locked host memory without importing torch (1-2.5 s on the H200 machine) or cupy for
    them. ``loaded()`` finds it in the process's memory map; None where no CUDA session has loaded one."""

    TIMER = "cudaEventRecord (libcudart)"
    ALLOCATOR = "cudaHostAlloc (libcudart)"

    def __init__(self, lib: Any) -> None:
        c_void_p, c_int, pointer = ctypes.c_void_p, ctypes.c_int, ctypes.POINTER
        for name, argtypes in (("cudaSetDevice", [c_int]), ("cudaEventCreate", [pointer(c_void_p)]),
                               ("cudaEventRecord", [c_void_p, c_void_p]), ("cudaEventSynchronize", [c_void_p]),
                               ("cudaEventElapsedTime", [pointer(ctypes.c_float), c_void_p, c_void_p]),
                               ("cudaHostAlloc", [pointer(c_void_p), ctypes.c_size_t, ctypes.c_uint]),
                               ("cudaFreeHost", [c_void_p])):
            fn = getattr(lib, name)
            fn.argtypes, fn.restype = argtypes, c_int
        self._lib = lib

    @classmethod
    def loaded(cls, maps: Path = MAPS) -> CudaRuntime | None:
        """The libcudart mapped into this process (``maps``: its memory map), or None."""
        path = first_library("libcudart.so", maps)
        if path is None:
            return None
        try:
            return cls(ctypes.CDLL(path))
        except (OSError, AttributeError):  # not loadable again, or not a CUDA runtime after all
            return None

    def _check(self, what: str, code: int) -> None:
        if code != 0:
            raise RuntimeError(f"{what} failed with CUDA error {code}")

    def set_device(self, device_id: int) -> None:
        """Make ``device_id`` this thread's current device (ORT's session runs on it)."""
        self._check("cudaSetDevice", self._lib.cudaSetDevice(device_id))

    def event(self) -> ctypes.c_void_p:
        """A new CUDA event (with timing)."""
        event = ctypes.c_void_p()
        self._check("cudaEventCreate", self._lib.cudaEventCreate(ctypes.byref(event)))
        return event

    def record(self, event: ctypes.c_void_p) -> None:
        """Record ``event`` on the default stream."""
        self._check("cudaEventRecord", self._lib.cudaEventRecord(event, None))  # the default stream, as torch's

    def elapsed_ms(self, start: ctypes.c_void_p, end: ctypes.c_void_p) -> float:
        """Milliseconds on the GPU clock from ``start`` to ``end``, once ``end`` has completed."""
        self._check("cudaEventSynchronize", self._lib.cudaEventSynchronize(end))
        ms = ctypes.c_float()
        self._check("cudaEventElapsedTime", self._lib.cudaEventElapsedTime(ctypes.byref(ms), start, end))
        return float(ms.value)

    def pinned_empty(self, shape: tuple[int, ...], dtype: np.dtype[Any]) -> np.ndarray:
        """An uninitialised numpy array in page-locked host memory, freed when the array (every view) is."""
        nbytes = max(1, int(np.prod(shape, dtype=np.int64)) * dtype.itemsize)
        ptr = ctypes.c_void_p()
        self._check("cudaHostAlloc", self._lib.cudaHostAlloc(ctypes.byref(ptr), nbytes, 0))
        buffer = (ctypes.c_char * nbytes).from_address(ptr.value or 0)
        buffer._owner = _PinnedBlock(self._lib, ptr)  # type: ignore[attr-defined]  # freed with the last view
        array: np.ndarray = np.frombuffer(memoryview(buffer), dtype=dtype, count=int(np.prod(shape, dtype=np.int64)))
        return array.reshape(shape)


class _PinnedBlock:
    """One cudaHostAlloc block, given back (cudaFreeHost) when nothing refers to it any more."""

    def __init__(self, lib: Any, ptr: ctypes.c_void_p) -> None:
        self._lib, self._ptr = lib, ptr

    def __del__(self) -> None:
        self._lib.cudaFreeHost(self._ptr)


def gpu_event_timer(device_id: int = 0, runtime: CudaRuntime | None = None
                    ) -> tuple[str, Callable[[Callable[[], Any]], tuple[float, float | None]]]:
    """(name, timer): the timer gives (host ms, GPU ms) of one call; GPU time from CUDA events, recorded through
    the CUDA runtime ORT loaded (``CudaRuntime``), else through torch, else cupy.

    The start event is recorded on the default stream just before the host clock starts and the end event just
    after it stops; ORT returns from run() only when its stream is done, so the GPU clock spans the same call.
    The events stay outside the host interval (their cost is not in the host time). Without any of the three the
    GPU time is None and the name is "". ``runtime``: the one ``CudaRuntime.loaded()`` found, if any.
    """
    try:
        if runtime is not None:
            runtime.set_device(device_id)
            start, end = runtime.event(), runtime.event()  # one pair, reused: the calls are timed one at a time

            def cudart_timer(fn: Callable[[], Any]) -> tuple[float, float | None]:
                runtime.record(start)
                host = _timed(fn)
                runtime.record(end)
                return host, runtime.elapsed_ms(start, end)

            cudart_timer(lambda: None)
            return CudaRuntime.TIMER, cudart_timer
    except Exception:  # noqa: BLE001 - try torch
        pass
    try:
        import torch  # here: an optional dependency, maybe absent or broken (the except below)

        if torch.cuda.is_available():
            torch.cuda.set_device(device_id)

            def torch_timer(fn: Callable[[], Any]) -> tuple[float, float | None]:
                start, end = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
                start.record()
                host = _timed(fn)
                end.record()
                end.synchronize()
                return host, float(start.elapsed_time(end))

            torch_timer(lambda: None)
            return "torch.cuda.Event", torch_timer
    except Exception:  # noqa: BLE001 - try cupy
        pass
    try:
        import cupy  # here: an optional dependency, maybe absent or broken (the except below)

        with cupy.cuda.Device(device_id):
            cupy.cuda.Event()

        def cupy_timer(fn: Callable[[], Any]) -> tuple[float, float | None]:
            with cupy.cuda.Device(device_id):
                start, end = cupy.cuda.Event(), cupy.cuda.Event()
                start.record()
                host = _timed(fn)
                end.record()
                end.synchronize()
                return host, float(cupy.cuda.get_elapsed_time(start, end))

        cupy_timer(lambda: None)
        return "cupy.cuda.Event", cupy_timer
    except Exception:  # noqa: BLE001 - no GPU clock: host time only
        pass
    return "", _host_timer


def _quiet() -> Any:
    """ORT's native log (fd 2) and the generated code's prints (stdout) stay out of the user's terminal."""
    return quiet()


class _Census:
    """One traced call per variant, where CUPTI works here."""

    def __init__(self, enabled: bool = True) -> None:
        self.reason = ""
        self.tracer: type[CuptiTracer] | None = None
        if not enabled:
            self.tracer, self.reason = None, "not traced in a dry run"
            return
        try:
            CuptiTracer()
            self.tracer = CuptiTracer
        except CuptiUnavailable as exc:
            self.tracer, self.reason = None, str(exc)
        except Exception as exc:  # noqa: BLE001 - any other problem starting CUPTI means: no census
            self.tracer, self.reason = None, f"{type(exc).__name__}: {exc}"

    def totals(self, fn: Callable[[], Any]) -> dict[str, tuple[int, int]] | None:
        if self.tracer is None:
            return None
        try:
            with self.tracer() as tracer:
                fn()
        except Exception as exc:  # noqa: BLE001 - CUPTI failed here: fall back to the plan's promise
            self.tracer, self.reason = None, f"tracing failed: {type(exc).__name__}: {exc}"
            return None
        totals: dict[str, tuple[int, int]] = {}
        for r in tracer.census.records:
            if r.direction in ("host_to_device", "device_to_host"):
                count, nbytes = totals.get(r.direction, (0, 0))
                totals[r.direction] = (count + 1, nbytes + r.bytes)
        return totals


def _with_transfers(v: VariantTiming, totals: dict[str, tuple[int, int]], source: str) -> VariantTiming:
    h2d_count, h2d_bytes = totals.get("host_to_device", (0, 0))
    d2h_count, d2h_bytes = totals.get("device_to_host", (0, 0))
    return replace(v, h2d_count=h2d_count, h2d_bytes=h2d_bytes, d2h_count=d2h_count, d2h_bytes=d2h_bytes,
                   transfer_source=source)


def measure_binding(evidence: Evidence, model_path: Path | str, arrays: dict[str, np.ndarray],
                    options: CheckOptions, progress: Callable[[str], None] | None = None,
                    blocks: dict[str, Block] | None = None) -> BindingMeasurement:
    """The A/B record for the evidence; never raises (a failure is a record with status "failed").

    ``blocks``: the generated code blocks that ran and matched plain run() (code_check.check_code), timed as they
    are; None runs that check here first. A block that did not match is not timed: its variant says why."""
    why_not = decide(evidence, options.measure_binding)
    if why_not is not None:
        status = MeasurementStatus.OFF if options.measure_binding is False else MeasurementStatus.SKIPPED
        return BindingMeasurement(status=status, reason=why_not)
    say = progress or (lambda _step: None)
    say("measuring binding variants")
    try:
        with _quiet():
            return _measure(evidence, Path(model_path), arrays, options, blocks=blocks)
    except Exception as exc:  # noqa: BLE001 - the measurement is an extra: the check itself stands
        first = str(exc).strip().splitlines()[0][:300] if str(exc).strip() else type(exc).__name__
        failed = BindingMeasurement(status=MeasurementStatus.FAILED, reason=f"{type(exc).__name__}: {first}")
        # What the failure left holding the variants' sessions (device memory) is released now, inside the capture:
        # the generated code's namespaces (``_measure``'s ``finally``) and the frames of the traceback. Not by a
        # collection of the caller's heap: the library leaves it alone.
        release_traceback(exc)
    return failed


def _measure(evidence: Evidence, model_path: Path, arrays: dict[str, np.ndarray], options: CheckOptions,
             device_type: str = "cuda", blocks: dict[str, Block] | None = None) -> BindingMeasurement:
    """The measurement. ``device_type="cpu"`` is a dry run of the same machinery on CPU OrtValues (for tests on
    machines without a GPU): no CUDA graph, no pinned staging, and the timings mean nothing."""
    import onnxruntime as ort  # here, not a lazy_import: whether onnxruntime is loaded is asked of sys.modules

    runs = max(5, int(getattr(options, "measure_runs", DEFAULT_RUNS) or DEFAULT_RUNS))
    warmup = max(3, options.warmup_runs)
    dry_run = device_type != "cuda"
    checks: dict[str, CodeCheck] = {}
    if blocks is None:
        found, blocks = check_code(evidence, model_path, arrays, options, dry_run=dry_run)
        checks = {c.block: c for c in found}
    else:
        checks = {c.block: c for c in evidence.code_checks}
    calls: dict[str, Callable[[], Any]] = {}
    try:
        plan = blocks["plan"].plan if "plan" in blocks else make_plan(evidence)
        copies = find_copies(evidence)
        blockers = cuda_graph_blockers(evidence, make_plan(evidence), copies)
        device_id = plan.device_id
        result = BindingMeasurement(status=MeasurementStatus.MEASURED, runs=runs, warmup_runs=warmup,
                                    cuda_graph_blockers=[b.text() for b in blockers])
        variants = {name: VariantTiming(variant=name, label=VARIANT_LABELS[name], ran=False)
                    for name in ("plain", "plan", "all_device", "cuda_graph")}
        # (b) the plan, (c) everything on the device, (d) the CUDA graph: each its generated code, as printed, run and
        # compared with plain run() first (code_check).
        _generated_variants(variants, calls, blocks, checks, blockers, dry_run, device_type)
        session = blocks["plan"].namespace["session"] if "plan" in blocks else None
        if session is None:
            so = session_options(ort, options, verbose=False, profile_prefix=None, optimized_path=None)
            session = ort.InferenceSession(str(model_path), so, providers=provider_list(options))
            result.notes.append("plain run() ran in a session of its own, since the plan's code did not run")
        if CUDA not in session.get_providers() and not dry_run:
            return BindingMeasurement(status=MeasurementStatus.SKIPPED,
                                      reason="the measurement session did not get the CUDA EP")

        # (a) plain run() with numpy, on the plan's session.
        calls = {"plain": lambda: session.run(None, arrays), **calls}
        all_session, all_binding, all_inputs = _all_device_binding(blocks)
        namespace = blocks["plan"].namespace if "plan" in blocks else {}

        # Warm-up, then interleaved timed rounds: the calibration (runs rounds), then more until every speed-up
        # interval is within ±3% or the budget is spent (stats.Sampler).
        _warm_up(calls, variants, warmup)
        runtime = None if dry_run else CudaRuntime.loaded()  # found once: the GPU clock and the pinned buffers use it
        result = _sampled(result, variants, calls, options, runs, dry_run, device_id, runtime)

        # Transfers of one call each.
        result = _counted_transfers(result, variants, calls, evidence, plan, copies, dry_run)

        # Phases: upload, inference, download, on the everything-bound binding (else the plan's).
        phases, phase_binding = _phases(ort, all_session or session, plan, namespace, arrays, all_binding, all_inputs,
                                        runs, warmup, device_id)
        result = replace(result, phases=phases, phase_binding=phase_binding,
                         pinned=None if dry_run else _pinned(ort, plan, arrays, runs, warmup, device_id, runtime))
        if dry_run:
            result.notes.append(f"dry run on {device_type} OrtValues: the machinery ran, the timings say nothing about a GPU")
        result = replace(result, variants=[variants[n] for n in ("plain", "plan", "all_device", "cuda_graph")])
        return result
    finally:
        # Release the sessions inside the stderr capture, after a failure too: the generated code's namespaces hold
        # them, and their functions refer back to the namespaces (a cycle no reference count frees).
        calls.clear()
        for block in blocks.values():
            block.namespace.clear()


def _generated_variants(variants: dict[str, VariantTiming], calls: dict[str, Callable[[], Any]],
                        blocks: dict[str, Block], checks: dict[str, CodeCheck], blockers: list[Blocker], dry_run: bool,
                        device_type: str) -> None:
    """The variants timed with their generated code (the plan, everything on the device, the CUDA graph): the
    ``infer`` of each block that ran, added to ``calls``, with its setup and first-run times in ``variants``;
    else the reason it is skipped there."""
    for name in ("plan", "all_device", "cuda_graph"):
        if name == "cuda_graph" and dry_run:
            variants[name] = replace(variants[name], skipped_reason=f"dry run on {device_type}: no CUDA graph")
        elif name == "cuda_graph" and blockers:
            variants[name] = replace(variants[name], skipped_reason=f"{len(blockers)} blocker(s): " + "; ".join(
                b.text() for b in blockers[:3]) + (" …" if len(blockers) > 3 else ""))
        elif name in blocks:
            block = blocks[name]
            calls[name] = block.namespace["infer"]
            variants[name] = replace(variants[name], session_create_ms=block.setup_ms, first_run_ms=block.first_ms)
        else:
            failed = checks.get(name) is not None and checks[name].status in (CodeCheckStatus.FAILED,
                                                                              CodeCheckStatus.DIFFERS)
            variants[name] = replace(variants[name], skipped_reason=_unchecked(checks, name), failed=failed)


def _unchecked(checks: dict[str, CodeCheck], name: str) -> str:
    """Why the variant's code is not timed: its check did not match plain run(), or it did not run."""
    check = checks.get(name)
    if check is None:
        return "its code was not run"
    if check.status == CodeCheckStatus.NOT_RUN:
        return check.detail
    return f"{BLOCK_LABELS[name]} {_check_words(check)}"


def _all_device_binding(blocks: dict[str, Block]) -> tuple[Any, Any, dict[str, Any]]:
    """The session, the binding and the device inputs of the everything-on-the-device code, where it ran (the
    phases are timed on them); None, None and no inputs where it did not."""
    all_binding = all_session = None
    all_inputs: dict[str, Any] = {}
    if "all_device" in blocks:
        everything = blocks["all_device"]
        all_session = everything.namespace.get("session")
        names = code_names(everything.plan)
        all_binding = everything.namespace.get("binding")
        all_inputs = {e.name: everything.namespace[f"{names.inputs[e.name]}_on_device"] for e in everything.plan.inputs
                      if f"{names.inputs[e.name]}_on_device" in everything.namespace}
    return all_session, all_binding, all_inputs


def _warm_up(calls: dict[str, Callable[[], Any]], variants: dict[str, VariantTiming], warmup: int) -> None:
    """``warmup`` calls of each variant; a variant that fails is taken out of ``calls``, with the reason in
    ``variants``."""
    for name, call in list(calls.items()):
        try:
            for _ in range(warmup):
                call()
        except Exception as exc:  # noqa: BLE001
            variants[name] = replace(variants[name], skipped_reason=f"failed during warm-up: {str(exc).splitlines()[0][:300] if str(exc) else type(exc).__name__}")
            del calls[name]


def _sampled(result: BindingMeasurement, variants: dict[str, VariantTiming], calls: dict[str, Callable[[], Any]],
             options: CheckOptions, runs: int, dry_run: bool, device_id: int,
             runtime: CudaRuntime | None) -> BindingMeasurement:
    """The interleaved timed rounds (``stats.Sampler``): each variant's samples and statistics put in ``variants``
    (on the GPU clock too, where it ran), and the sampling's runs, budget and stop reason on ``result``."""
    gpu_timer, timer = (("", _host_timer) if dry_run else gpu_event_timer(device_id, runtime))
    budget = float(getattr(options, "measure_budget_s", DEFAULT_BUDGET_S))
    sampler = Sampler(calls=dict(calls), timer=timer, base="plain", min_rounds=runs, budget_s=budget)
    samples = sampler.run() if calls else {}
    result = replace(result, min_runs=runs, budget_s=budget, stop_reason=sampler.stop_reason, gpu_timer=gpu_timer,
                     runs=len(next(iter(samples.values()))) if samples else 0)
    for name, values in samples.items():
        timed: dict[str, Any] = {"ran": True, "runs": len(values), **stats(values),
                                 "samples_ms": [round(x, 4) for x in values]}
        gpu = sampler.gpu.get(name)
        if gpu and len(gpu) == len(values):
            timed["gpu_samples_ms"] = [round(x, 4) for x in gpu]
            timed["gpu_median_ms"] = float(median(np.asarray(gpu, dtype=np.float64)))
        variants[name] = replace(variants[name], **timed)
    return result


def _counted_transfers(result: BindingMeasurement, variants: dict[str, VariantTiming],
                       calls: dict[str, Callable[[], Any]], evidence: Evidence, plan: BindingPlan, copies: list[Copy],
                       dry_run: bool) -> BindingMeasurement:
    """The transfers of one call of each variant that ran, put in ``variants``: traced by the census where CUPTI is
    usable, else what the plan promises; ``result`` says which source (and why not the census)."""
    census = _Census(enabled=not dry_run)
    for name, v in variants.items():
        if name not in calls:
            continue
        traced = census.totals(calls[name])
        if traced is not None:
            variants[name] = _with_transfers(v, traced, "census")
        else:
            variants[name] = _with_transfers(v, promised_transfers(evidence, plan, copies, name), "plan")
    sources = {v.transfer_source for v in variants.values() if v.transfer_source}
    result = replace(result, transfer_source="census" if sources == {"census"} else (
        "plan" if sources == {"plan"} else "census+plan"))
    if census.tracer is None:
        result.notes.append(f"transfers are what the plan promises, not counted: CUPTI is not usable here ({census.reason})")
    return result


def _check_words(check: CodeCheck) -> str:
    """What a check that did not match found, as a clause: "failed: call 2 raised ..." / "gave other outputs than
    plain run(): ..."."""
    if check.status == CodeCheckStatus.FAILED:
        return f"failed: {check.detail}"
    return f"gave other outputs than plain run(): {check.detail}"


def _phase(phase: str, what: str, values: list[float], nbytes: int | None) -> PhaseTiming:
    s = stats(values)
    return PhaseTiming(phase=phase, what=what, runs=len(values), median_ms=s["median_ms"], p10_ms=s["p10_ms"],
                       p90_ms=s["p90_ms"], bytes=nbytes)


def _phases(ort: Any, session: Any, plan: BindingPlan, namespace: dict[str, Any], arrays: dict[str, np.ndarray],
            all_binding: Any, all_inputs: dict[str, Any], runs: int, warmup: int, device_id: int
            ) -> tuple[list[PhaseTiming], Variant]:
    if all_binding is not None:
        uploads = [(all_inputs[name], np.ascontiguousarray(arrays[name])) for name in arrays]
        infer: Callable[[], Any] = lambda: session.run_with_iobinding(all_binding)  # noqa: E731
        binding, which = all_binding, Variant.ALL_DEVICE
        infer_what = "run_with_iobinding, every input and output bound on the device"
    elif "infer" in namespace:
        names = code_names(plan)
        uploads = [(namespace[f"{names.inputs[e.name]}_on_device"], np.ascontiguousarray(arrays[e.name]))
                   for e in plan.inputs if e.place == DEVICE and f"{names.inputs[e.name]}_on_device" in namespace]
        infer = namespace["infer"]
        binding = namespace.get("binding") if any(e.place != UNBOUND for e in plan.outputs) else None
        which = Variant.PLAN
        infer_what = "the plan's infer()"
    else:
        return [], Variant.NONE
    upload_bytes = sum(a.nbytes for _, a in uploads)

    def upload() -> None:
        for value, array in uploads:
            value.update_inplace(array)

    download_bytes: list[int] = []

    def download() -> None:
        out = binding.copy_outputs_to_cpu()
        if not download_bytes:
            download_bytes.append(sum(int(getattr(o, "nbytes", 0)) for o in out))

    for _ in range(warmup):
        upload()
        infer()
        if binding is not None:
            download()
    t_up, t_inf, t_down = [], [], []
    for _ in range(runs):
        t_up.append(_timed(upload))
        t_inf.append(_timed(infer))
        if binding is not None:
            t_down.append(_timed(download))
    phases = [
        _phase("upload", f"numpy → device OrtValue (update_inplace), {len(uploads)} input(s)", t_up, upload_bytes),
        _phase("inference", infer_what, t_inf, None),
    ]
    if t_down:
        phases.append(_phase("download", "copy_outputs_to_cpu(), every bound output", t_down,
                             download_bytes[0] if download_bytes else None))
    return phases, which


def _pinned(ort: Any, plan: BindingPlan, arrays: dict[str, np.ndarray], runs: int, warmup: int, device_id: int,
            runtime: CudaRuntime | None) -> PinnedTiming | None:
    """Upload of the device-bound inputs from pageable numpy vs from a pinned host buffer, same device buffers."""
    fed = [(e.name, np.ascontiguousarray(arrays[e.name])) for e in plan.inputs
           if e.place == DEVICE and e.name in arrays and arrays[e.name].dtype != object]
    if not fed:
        return None
    nbytes = sum(a.nbytes for _, a in fed)
    pinned_views, method = _pinned_buffers(fed, device_id, runtime)
    if pinned_views is None:
        return PinnedTiming(method="none", bytes=nbytes, skipped_reason=method)
    targets = [ort.OrtValue.ortvalue_from_numpy(a, "cuda", device_id) for _, a in fed]

    def pageable() -> None:
        for t, (_, a) in zip(targets, fed):
            t.update_inplace(a)

    def stage() -> None:
        for view, (_, a) in zip(pinned_views, fed):
            np.copyto(view, a)

    def pinned() -> None:
        for t, view in zip(targets, pinned_views):
            t.update_inplace(view)

    for _ in range(warmup):
        pageable()
        stage()
        pinned()
    t_page, t_stage, t_pin = [], [], []
    for _ in range(runs):
        t_page.append(_timed(pageable))
        t_stage.append(_timed(stage))
        t_pin.append(_timed(pinned))
    return PinnedTiming(method=method, bytes=nbytes, runs=runs, pageable_ms=stats(t_page)["median_ms"],
                        pinned_ms=stats(t_pin)["median_ms"], staging_ms=stats(t_stage)["median_ms"])


def _pinned_buffers(fed: list[tuple[str, np.ndarray]], device_id: int, runtime: CudaRuntime | None
                    ) -> tuple[list[np.ndarray] | None, str]:
    """numpy arrays in page-locked host memory (the CUDA runtime ORT loaded, else torch, else cupy), or (None, why
    none).

    ORT's Python API has no pinned device type for OrtValues (OrtValue.ortvalue_from_numpy accepts cuda, cann,
    cpu, dml, webgpu, gpu and npu in 1.31.1; read from onnxruntime_inference_collection.py), so the buffer comes
    from cudaHostAlloc, torch or cupy; ORT's cudaMemcpy from it then runs at pinned speed.
    """
    try:
        if runtime is not None:
            runtime.set_device(device_id)
            return [runtime.pinned_empty(a.shape, a.dtype) for _, a in fed], CudaRuntime.ALLOCATOR
    except Exception:  # noqa: BLE001 - try the next allocator
        pass
    try:
        import torch  # here: an optional dependency, maybe absent or broken (the except below)

        if torch.cuda.is_available():
            views = []
            for _, a in fed:
                t = torch.empty(a.shape, dtype=getattr(torch, str(a.dtype)) if str(a.dtype) != "bool" else torch.bool,
                                pin_memory=True)
                views.append(t.numpy())  # the view keeps the pinned tensor alive
            return views, "torch.empty(..., pin_memory=True)"
    except Exception:  # noqa: BLE001 - try the next allocator
        pass
    try:
        import cupyx  # here: an optional dependency, maybe absent or broken (the except below)

        views = [cupyx.empty_pinned(a.shape, dtype=a.dtype) for _, a in fed]
        return views, "cupyx.empty_pinned"
    except Exception:  # noqa: BLE001
        pass
    return None, ("no pinned host allocator here: no CUDA runtime is loaded and neither torch nor cupy is installed "
                  "(ORT's Python API cannot allocate pinned OrtValues: 'cuda_pinned' is not one of its device types)")
