"""Collect evidence: inspect the model, build the session, read placement, profile runs, time runs.

Two sessions are made. The evidence session logs at verbose level (captured from fd 2), records
the provider assignment and profiles; the timing session does neither, because profiling roughly
doubled the per-run time of a 1 ms model on the H200 (docs/ort-notes.md).
"""

from __future__ import annotations

import datetime
import os
import re
import shutil
import sys
import time
from collections.abc import Callable, Sequence
from msgspec.structs import replace
from pathlib import Path
from typing import TYPE_CHECKING, Any

import numpy as np

from ortcopy_doctor.model.version import __version__

from ortcopy_doctor.collect import ortlog

from ortcopy_doctor.knowledge import providers as provider_names
from ortcopy_doctor.collect.environment import GpuListing, collect_environment
from ortcopy_doctor.model.errors import DoctorError, EnvironmentProblem, ModelError, UsageError
from ortcopy_doctor.collect.budget import Budget, memory_budget, profile_events, profiled_runs_that_fit, release_freed
from ortcopy_doctor.collect.scratch import session_folder
from ortcopy_doctor.collect.census_run import CensusCollector
from ortcopy_doctor.collect.assignment import assigned_provider, ep_assignment
from ortcopy_doctor.model.evidence import (AssumedDim, Environment, Evidence, NodeEvent, RunEvent, RuntimeNode,
                                         SessionEvidence, Timings)
from ortcopy_doctor.model.vocabulary import EvidenceMode
from ortcopy_doctor.model.format import fmt_bytes
from ortcopy_doctor.collect.feeds import build_feeds, check_names, check_state, index_bounds, value_names
from ortcopy_doctor.collect.sizes import MAX_PROBE_RUNS, ModelGraph, RunFailure, Sizing, choose, find_sizes, suggestion
from ortcopy_doctor.collect.session import (
    OPTIMIZED_MODEL_MAX_WEIGHT_BYTES,
    CheckOptions,
    provider_list,
    release_traceback,
    session_options,
    validated,
)
from ortcopy_doctor.knowledge.model_file import (display_path, inferred_values, inspect_model, load_model, read_model,
                                                 walk_nodes)
from ortcopy_doctor.analysis.binding import cpu_provider_code
from ortcopy_doctor.analysis.profile import parse_profile, profile_names_raw
from ortcopy_doctor.model.lazy import lazy_import

if TYPE_CHECKING:
    import onnx

    from ortcopy_doctor.collect import binding_ab as _binding_ab, code_check as _code_check
    from ortcopy_doctor.collect import provider_choice as _provider_choice
    from ortcopy_doctor.knowledge import prediction as _prediction, validity as _validity
else:  # run on first use (model/lazy.py): only a static check predicts, only a measured one checks the code
    _binding_ab = lazy_import("ortcopy_doctor.collect.binding_ab")
    _code_check = lazy_import("ortcopy_doctor.collect.code_check")
    _provider_choice = lazy_import("ortcopy_doctor.collect.provider_choice")
    _prediction = lazy_import("ortcopy_doctor.knowledge.prediction")
    _validity = lazy_import("ortcopy_doctor.knowledge.validity")

Progress = Callable[[str], None]


# ORT's reasons are shown whole (a cut one, "...LSTM node. Na", hides what to fix); only a runaway message (a
# model's own names can be any length) is bounded, saying so.
ORT_REASON_MAX_CHARS = 4000


def _whole(reason: str) -> str:
    if len(reason) <= ORT_REASON_MAX_CHARS:
        return reason
    return f"{reason[:ORT_REASON_MAX_CHARS]}... ({len(reason) - ORT_REASON_MAX_CHARS} more characters)"


class RunRejected(ModelError):
    """ORT refused to run the model on the inputs fed (exit 2, as any ``ModelError``): ``reason``, ORT's whole
    reason without its C++ locations; ``ort_text``, its error as raised, which names the failing node (for the
    sizes chosen after it, collect/sizes.py)."""

    def __init__(self, reason: str, ort_text: str, sizes: str = "") -> None:
        self.reason = reason
        self.ort_text = ort_text
        super().__init__(self._text(sizes))

    def _text(self, sizes: str) -> str:
        tried = f"; {sizes}" if sizes else ""
        return (f"the model failed to run on the given inputs: {self.reason}{tried}; give real values: --value NAME=V "
                "for a scalar input, --inputs FILE.npz for tensors, --dim/--shape for sizes")

    def with_sizes(self, sizes: str) -> str:
        """The message with what was run (the dims no flag sized, and a flag that would get past it) before the
        advice."""
        return self._text(sizes)

    def reason_line(self) -> str:
        """ORT's failing node and its message, short."""
        failure = RunFailure.parse(self.ort_text)
        return f"{failure.where()}: {failure.short()}"


def classify_ort_error(exc: BaseException, model_path: Path, stage: str) -> Exception:
    """Map an onnxruntime exception to a one-line ``DoctorError`` that says what to do."""
    # here, not a lazy_import: whether onnxruntime is loaded is asked of sys.modules (collect/ortlog.py)
    import onnxruntime as ort

    text = str(exc).strip()
    first = text.splitlines()[0] if text else type(exc).__name__
    lower = text.lower()
    if "unsupported model ir version" in lower:
        # ORT prefixes the reason with its source location and a C++ signature: keep only the reason.
        ir = re.search(r"unsupported model ir version[^\n]*", text, re.IGNORECASE)
        reason = ir.group(0).strip() if ir else first
        return ModelError(
            f"{model_path.name}: {reason}; onnxruntime {ort.__version__} cannot load it: "
            "upgrade onnxruntime or save the model with a lower ir_version"
        )
    if "is not a registered function/op" in lower or "no opset import for domain" in lower or (
        "could not find an implementation" in lower and "domain" in lower
    ):
        # "Fatal error: com.example.custom:Foo(-1) is not a registered function/op": keep the domain with the op.
        op = re.search(r"(?:([\w.]+):)?(\w+)\(-?\d+\) is not a registered function/op", text)
        what = (f"op '{op.group(2)}' of domain '{op.group(1) or 'ai.onnx'}'" if op
                else _whole(first.split("failed:")[-1].strip()))
        return ModelError(
            f"{model_path.name} uses an op onnxruntime does not know ({what}): "
            "register its library with --custom-op-library PATH"
        )
    if "graph capture feature" in lower:
        # ORT refuses enable_cuda_graph at session creation when nodes run on CPU or Memcpy nodes exist
        # ("This session cannot use the graph capture feature ...", seen with 1.31.1).
        return UsageError(
            "enable_cuda_graph needs every node on the CUDA EP and no Memcpy nodes, and ORT refused this model: "
            "drop --provider-option enable_cuda_graph=1, or first remove the CPU nodes a check without it lists"
        )
    if "out of memory" in lower or "failed to allocate memory" in lower or "cudaerrormemoryallocation" in lower:
        return EnvironmentProblem(
            f"the device ran out of memory during {stage}: lower --dim/--shape values or free GPU memory ({_whole(first)})"
        )
    if "cuda" in lower and ("failure" in lower or "error" in lower) and stage != "run":
        return EnvironmentProblem(f"onnxruntime could not set up CUDA during {stage}: {_whole(first)}")
    if "protobuf parsing failed" in lower:
        return ModelError(f"onnxruntime cannot load {model_path.name}: {_whole(first)}: the file is truncated or not ONNX")
    opset = re.search(r"Opset (\d+) is under development.*?domain (\S+) is till opset (\d+)", text, re.DOTALL)
    if opset:
        return ModelError(
            f"{model_path.name} uses opset {opset.group(1)} of {opset.group(2)}, newer than onnxruntime {ort.__version__} "
            f"supports (up to opset {opset.group(3)}): upgrade onnxruntime or export with opset {opset.group(3)} or lower"
        )
    if "load model" in lower and "failed" in lower:
        # "Load model from m.onnx failed:This is an invalid model. Error: the graph is not acyclic.": a readable
        # file whose graph ORT rejects (cycle, duplicate names, failed shape inference): keep ORT's reason.
        reason = first.split("failed:", 1)[-1].strip()
        reason = re.sub(r"^\S+:\d+ [^(]*\([^)]*\)\s*", "", reason).rstrip(".") or first  # ORT's C++ location
        return ModelError(f"onnxruntime rejects {model_path.name} as invalid: {_whole(reason)}; fix or re-export the model "
                          "(onnx.checker.check_model with full_check=True shows the problem)")
    numpy_type = re.search(r"No corresponding Numpy type for Tensor Type\.?\s*(\w*)", text)
    if stage == "run" and numpy_type:
        # the run itself worked: onnxruntime's Python run() cannot return an output of this type as numpy
        return ModelError(
            f"{model_path.name} has an output of element type {numpy_type.group(1) or 'unknown'}, which numpy cannot "
            "hold, so onnxruntime's run() cannot return it: check cannot measure this model; --static predicts it"
        )
    if stage == "run" and "GetPyObjFromTensor" in text and "non-CPU tensor" in text:
        # onnxruntime-gpu 1.27.0 on the H200: a sequence output produced by the CUDA EP ("Either data transfer manager
        # or a function to copy data to the host is needed to convert non-CPU tensor to numpy array"); 1.31.1 returns it
        return EnvironmentProblem(
            f"onnxruntime {ort.__version__}'s run() cannot return an output of {model_path.name} that is on the device "
            "(a sequence or map of tensors) as numpy: it has no copy to the host for it (onnxruntime-gpu 1.31.1 has); "
            "upgrade onnxruntime to check this model, or use --static"
        )
    kernel = re.search(r"(?:Could not find an implementation for|Failed to find kernel for) (\w+)\((\d+)\)", text)
    if kernel and stage != "run":
        return ModelError(
            f"onnxruntime {ort.__version__} has no kernel for {kernel.group(1)} (opset {kernel.group(2)}) with this "
            f"model's types on the requested providers, so it cannot run {model_path.name}; --static still predicts it"
        )
    # ORT puts its C++ source location and signature before the reason: "/src/x.h:56 ns::F(args) reason"
    first = re.sub(r"/\S+\.(?:h|cc|cpp|cu|cuh):\d+ (?:[^()]*\([^)]*\)\s*)?", "", first).strip()
    if stage == "run" and "At least one output should be requested" in text:
        # onnxruntime 1.31.1 (here): run() of a graph that declares no outputs
        return ModelError(f"{model_path.name} declares no graph outputs, so there is nothing to run: give the graph "
                          "the outputs the model should return, or use --static to see its placement")
    if stage == "run":
        # ORT's whole reason (e.g. which input an LSTM node rejected and why): it is what says which input to set.
        reason = " ".join(line.strip() for line in text.splitlines() if line.strip())
        reason = re.sub(r"/\S+\.(?:h|cc|cpp|cu|cuh):\d+ (?:[^()]*\([^)]*\)\s*)?", "", reason).strip()
        return RunRejected(_whole(reason.rstrip('.')), text)
    return ModelError(f"onnxruntime refused {model_path.name} during {stage}: {_whole(first)}")


def _temporary_folder_full(exc: DoctorError, tmp_dir: Path, weight_bytes: int,
                           profile: bool = False) -> EnvironmentProblem | None:
    """The error to give where ORT failed to write its optimized model (``profile``: its profile) into the
    temporary folder because it is full.

    The evidence session writes ORT's optimized model (with a copy of the weights) and its profile there. On a full
    file system ORT fails with "Failed to write external initializers to file ..." or "Protobuf serialization
    failed", or leaves an empty profile (onnxruntime 1.31.1, a 256 KB tmpfs): that reads like a broken model
    (exit 2) but is the machine's (exit 3) where the folder has less room than the model's weights and 64 MB, and,
    for the session, ORT's message is about writing."""
    if not profile and not any(word in exc.message.lower() for word in ("write", "serializ", "no space")):
        return None
    try:
        free = shutil.disk_usage(tmp_dir).free
    except OSError:
        return None
    if free >= weight_bytes + 64 * 2**20:
        return None
    what = "its profile" if profile else "its optimized copy of the model"
    return EnvironmentProblem(
        f"onnxruntime ran out of room in the temporary folder {tmp_dir.parent} ({fmt_bytes(free)} free when it failed) "
        f"writing {what} (the model's weights: {fmt_bytes(weight_bytes)}): free space there or set TMPDIR to a folder "
        f"with room (it said: {exc.message[:200]})")


def _create_session(ort: Any, model_path: Path, so: Any, options: CheckOptions) -> tuple[Any, float]:
    shown = display_path(model_path)
    if shown != str(model_path):  # a name with bytes the file system encoding does not decode (surrogate escapes)
        raise ModelError(f"the path '{shown}' is not valid UTF-8, and onnxruntime opens a model only by a UTF-8 path: "
                         "rename the file (or its folder); --static still predicts it")
    start = time.perf_counter()
    try:
        session = ort.InferenceSession(str(model_path), so, providers=provider_list(options))
    except Exception as exc:  # onnxruntime raises its own exception types (Fail, InvalidGraph, ...)
        error = classify_ort_error(exc, model_path, "session creation")
        # ORT's traceback holds the half-built native session: freed now, so that its teardown logs inside the
        # caller's fd-2 capture
        release_traceback(exc)
    else:
        return session, (time.perf_counter() - start) * 1000.0
    raise error from None


def _run(session: Any, feeds: dict[str, np.ndarray], model_path: Path) -> list[Any]:
    try:
        outputs: list[Any] = session.run(None, feeds)
        return outputs
    except Exception as exc:
        error = classify_ort_error(exc, model_path, "run")
    # The traceback keeps this frame alive: drop the session from it, so that the caller's cleanup
    # destroys the session (and ORT logs its teardown) inside the fd-2 capture, not on the terminal.
    del session
    raise error from None


def _runtime_nodes(graph_model: onnx.ModelProto, assignment: dict[Any, str] | None, facts: ortlog.LogFacts,
                   active: list[str]) -> list[RuntimeNode]:
    """Nodes of the graph ORT ran, each with its provider and, for CPU nodes, why they are there."""
    log_placement = {name: ep for ep, nodes in facts.placement.items() for _, name in nodes}
    # "All nodes placed on [EP]" lists no names: every node of that graph is on EP.
    only_ep = next(iter(facts.placement_counts)) if len(facts.placement_counts) == 1 else None
    primary = active[0] if active else provider_names.CPU
    nodes: list[RuntimeNode] = []
    rank: dict[tuple[str, str], int] = {}
    for graph_path, node in walk_nodes(graph_model.graph):
        provider = None
        if assignment is not None:
            provider = assigned_provider(assignment, node.name, node.op_type, rank)
        if provider is None:
            provider = log_placement.get(node.name) or only_ep or (primary if len(active) == 1 else "")
        reason: str | None = None
        detail = ""
        if provider == provider_names.CPU and primary != provider_names.CPU:
            if node.name in facts.cpu_preferred:
                reason, detail = "cpu_preferred", facts.cpu_preferred[node.name]
            elif node.name in facts.kernel_not_found:
                reason, detail = "no_kernel", f"no {provider_names.short(primary)} kernel registered for {node.op_type}"
            else:
                reason, detail = "other", "placed on CPU without a logged reason"
        nodes.append(RuntimeNode(name=node.name, op_type=node.op_type, domain=node.domain, provider=provider,
                                 inputs=list(node.input), outputs=list(node.output), graph=graph_path,
                                 fallback_reason=reason, fallback_detail=detail))
    return nodes


def collect(model_path: Path | str, options: CheckOptions | None = None,
            progress: Progress | None = None) -> Evidence:
    """Measure one model in one configuration and return the evidence."""
    options = validated(options or CheckOptions())
    with GpuListing() as listing:  # nvidia-smi -L runs while the model is read and the session is created
        return _collect(Path(model_path), options, progress or (lambda _step: None), listing)


def _collect(model_path: Path, options: CheckOptions, say: Progress, listing: GpuListing) -> Evidence:
    ort = ortlog.import_onnxruntime()  # what ORT logs as it loads is captured (its telemetry's warnings)

    say("inspecting the model")
    model = load_model(model_path)
    info = inspect_model(model_path, model)
    options = replace(options, values=value_names(options.values, info.inputs))  # an input named "a=b"
    check_state(info.inputs, info.outputs, options.state)
    notes: list[str] = []
    if options.static:
        check_names(info.inputs, options.dims, options.shapes, options.values)  # a flag naming nothing: refused
        reason = _validity.rejection(model)  # what ORT's session would refuse: no copies are predicted for it
        if reason:
            raise ModelError(f"onnxruntime would reject {model_path.name} as invalid: {reason}; fix or re-export "
                             "the model (onnx.checker.check_model with full_check=True shows the problem)")
        device = next((p for p in options.providers if provider_names.is_device(p)), "")
        refusal = _validity.device_refusal(model, device)
        if refusal:  # a measured check fails as the session is created (exit 3): so does its prediction
            raise EnvironmentProblem(f"onnxruntime's {provider_names.short(device)} provider would fail to create a "
                                     f"session for {model_path.name}: {refusal}")
        try:
            # described, never allocated: a prediction runs nothing
            _, feeds = build_feeds(info.inputs, options.dims, options.shapes, options.inputs_file, options.seed,
                                   make_arrays=False, bounds=index_bounds(model))
        except UsageError:
            feeds = []  # sizes stay symbolic in a prediction; --dim makes them concrete
        return static_evidence(model, info, feeds, options, collect_environment(listing))
    bounds = index_bounds(model)
    sizing = Sizing() if options.strict_shapes else choose(model, info.inputs, info.outputs, options.dims,
                                                           options.shapes, options.values)
    try:
        return _measure(ort, model_path, model, info, options, say, listing, list(notes), sizing, bounds)
    except RunRejected as exc:
        error: DoctorError = exc
        if not options.strict_shapes:
            again = _sized_again(ort, model_path, model, info, options, say, listing, notes, sizing, bounds, exc)
            if isinstance(again, Evidence):
                return again
            error = again
    except DoctorError as exc:
        error = exc
    _with_prediction(error, model, info, options, listing)
    raise error


def _sized_again(ort: Any, model_path: Path, model: onnx.ModelProto, info: Any, options: CheckOptions, say: Progress,
                 listing: GpuListing, notes: list[str], sizing: Sizing,
                 bounds: dict[str, int], failure: RunRejected) -> Evidence | DoctorError:
    """After the evidence session's run failed at the sizes first taken (``failure``): probe runs on the CPU EP for
    sizes that run (collect/sizes.py), then the whole measurement again at those sizes: its evidence. Where no
    sizes run, the error to give: ``failure``, its message naming the sizes tried and, where the error says, the
    flag that would get past it. An error of the measurement again is returned as it is."""
    partial = failure.partial_evidence
    assumed = list(getattr(partial, "assumed_dims", []) or [])
    graph = ModelGraph(model)
    found: Sizing | None = None
    ran: list[AssumedDim] = assumed
    probes = 0
    if assumed:
        say("looking for input sizes that run")
        found, ran, probes = _probe(ort, model_path, info, options, graph, sizing, assumed, failure.ort_text, bounds)
    if found is not None:
        notes = [*notes, f"the first run failed at the sizes first taken ({failure.reason_line()}); probe runs on the "
                         f"CPU EP found sizes that run ({probes} of at most {MAX_PROBE_RUNS}): the dims chosen are "
                         "listed with why"]
        try:
            return _measure(ort, model_path, model, info, options, say, listing, notes, found, bounds)
        except DoctorError as exc:
            return exc
    tried = _sizes_tried(ran, probes)
    hint = suggestion(info.inputs, graph, RunFailure.parse(failure.ort_text), options.dims)
    failure.message = failure.with_sizes("; ".join(part for part in (tried, hint) if part))
    if isinstance(partial, Evidence):
        failure.partial_evidence = replace(partial, assumed_dims=ran, failure=failure.message)
    return failure


def _probe(ort: Any, model_path: Path, info: Any, options: CheckOptions, graph: ModelGraph, sizing: Sizing,
           assumed: list[AssumedDim], failure_text: str,
           bounds: dict[str, int]) -> tuple[Sizing | None, list[AssumedDim], int]:
    """``find_sizes`` with runs of one CPU-EP session (no profiling, ORT's log off): the sizing that ran, the dims
    as last run, and how many probe runs there were."""
    so = session_options(ort, replace(options, providers=[provider_names.CPU]), verbose=False, profile_prefix=None,
                         optimized_path=None)
    so.log_severity_level = 4  # a failed run logs its error at level 3: the probe's failures are expected
    probes = 0
    with ortlog.capture_native_stderr():
        try:
            session = ort.InferenceSession(str(model_path), so, providers=[provider_names.CPU])
        except Exception:  # noqa: BLE001 - no CPU session: nothing to probe with, the first error stands
            return None, assumed, 0

        def run(step: Sizing) -> tuple[str | None, list[AssumedDim]]:
            nonlocal probes
            dims: list[AssumedDim] = []
            try:
                arrays, _ = build_feeds(info.inputs, options.dims, options.shapes, options.inputs_file, options.seed,
                                        values=options.values, assumed=dims, bounds=bounds, chosen=step.dims,
                                        chosen_values=step.values)
            except UsageError as exc:  # e.g. an input grown past the size limit
                return exc.message, dims
            probes += 1
            try:
                session.run(None, arrays)
            except Exception as exc:  # noqa: BLE001 - ORT's error is what the next sizes are chosen from
                return str(exc), dims
            return None, dims

        try:
            found, ran, _ = find_sizes(info.inputs, graph, sizing, assumed, failure_text, run)
        finally:
            session = None
            release_traceback(sys.exc_info()[1])  # a failed run's traceback may hold the session
    return found, ran, probes


def _sizes_tried(ran: list[AssumedDim], probes: int) -> str:
    """"sizes run for dims no flag sizes: 'samples' (input 'x' axis 1) 1, 32, 64, 128, 256 (4 probe runs on the CPU
    EP after the first, at most 4)", for the error of a run that failed at every size tried."""
    if not ran:
        return ""
    parts = []
    for a in ran:
        what = f"'{a.declared}' (input '{a.input}' axis {a.axis})" if a.declared not in ("", "?") and \
            not a.declared.lstrip("-").isdigit() else f"input '{a.input}' axis {a.axis}"
        parts.append(f"{what} {', '.join(str(v) for v in [*a.tried, a.value])}")
    runs = (f" ({probes} probe run{'s' if probes != 1 else ''} on the CPU EP after the first, at most "
            f"{MAX_PROBE_RUNS})" if probes else "")
    return "sizes run for dims no flag sizes: " + "; ".join(parts) + runs


def _with_prediction(error: DoctorError, model: onnx.ModelProto, info: Any, options: CheckOptions,
                     listing: GpuListing) -> None:
    """Where nothing ran (every run failed, or the session could not be made or run here: exit 3), the static
    prediction joins what was gathered (``partial_evidence.predicted``), so the JSON and HTML reports written
    beside the error still say what the requested provider is predicted to do. Not for a model ORT refuses
    (invalid, an unknown op, a bad option: exit 2 at session creation), whose prediction would be of nothing ORT
    runs. A prediction that fails adds nothing."""
    partial = error.partial_evidence
    if not isinstance(error, (RunRejected, EnvironmentProblem)) or not isinstance(partial, Evidence) \
            or partial.predicted is not None:
        return
    try:
        if _validity.rejection(model):  # ORT rejects the model: a prediction of it would be of nothing ORT runs
            return
        predicted = static_evidence(model, info, list(partial.feeds), options, partial.environment)
    except Exception:  # noqa: BLE001 - the prediction is an extra beside the error, never a second error
        return
    error.partial_evidence = replace(partial, predicted=predicted)


def _measure(ort: Any, model_path: Path, model: onnx.ModelProto, info: Any, options: CheckOptions, say: Progress,
             listing: GpuListing, notes: list[str], sizing: Sizing,
             bounds: dict[str, int]) -> Evidence:
    """The evidence session, the timing session and the binding A/B at the sizes of ``sizing`` (and 1 for every
    other dim no flag sizes)."""
    assumed: list[AssumedDim] | None = None if options.strict_shapes else []
    budget = memory_budget()
    arrays, feeds = build_feeds(info.inputs, options.dims, options.shapes, options.inputs_file, options.seed,
                                values=options.values, assumed=assumed, bounds=bounds, chosen=sizing.dims,
                                chosen_values=sizing.values, budget=budget)
    assumed = assumed or []
    options = _runs_that_fit(options, info, feeds, budget, notes, model_path)

    with session_folder() as tmp_dir:
        optimized = _optimized_model_path(tmp_dir, info, notes)
        say("building the evidence session")
        so = session_options(ort, options, verbose=True, profile_prefix=str(tmp_dir / "profile"), optimized_path=optimized)
        with ortlog.capture_native_stderr() as captured:
            session = None
            census_run = CensusCollector(options.warmup_runs, options.profiled_runs)
            active: list[str] = []
            assignment: dict[Any, str] | None = None
            failure: DoctorError | None = None
            environment: Environment | None = None
            try:
                session, _ = _create_session(ort, model_path, so, options)
                environment = collect_environment(listing)  # read before any run: the listing overlaps none
                active = list(session.get_providers())
                assignment = ep_assignment(session)
                _profiled_runs(session, arrays, model_path, options, census_run, say, active)
                profile_path = session.end_profiling()
                profiling_start_ns = int(session.get_profiling_start_time_ns())
            except DoctorError as exc:
                # Out of device memory, a CUDA session that cannot be created, a run that fails: keep what
                # was gathered so far (log, providers, placement) on the error, for --json.
                failure = _temporary_folder_full(exc, tmp_dir, info.initializer_bytes) or exc
            finally:
                census_run.stop()  # idempotent: stops the tracer after a failed run too
                # The session logs at verbose level while it is destroyed, also after a failed run:
                # keep that inside the capture too.
                session = None
                release_traceback(failure)  # only a failure's traceback can hold the session still
                release_traceback(sys.exc_info()[1])
                if _large_profile(info, options):
                    release_freed()  # ORT's profile events, freed: back to the system before they are parsed
        if environment is None:  # the session could not be created
            environment = collect_environment(listing)
        lines = ortlog.parse_lines(ortlog.import_log() + captured.text)  # what ORT said as it loaded, then here
        facts = ortlog.extract_facts(lines)
        graph_model, graph_source = _placement_graph(model, optimized, notes)
        if failure is not None:
            failure.partial_evidence = _partial_evidence(failure, info, options, active, assignment, facts, graph_model,
                                                         graph_source, environment, feeds, notes, assumed)
            raise failure
        run_events, node_events = _read_profile(ort, Path(profile_path), graph_model, options, tmp_dir, info)

    ep_failure = _ep_failure(options, active, facts, environment)
    nodes = _runtime_nodes(graph_model, assignment, facts, active)
    timings = _timed_runs(ort, model_path, arrays, options, say, census_run)

    evidence = Evidence(
        inputs_file=None if options.inputs_file is None else str(options.inputs_file),
        model=info,
        session=SessionEvidence(
            requested_providers=list(options.providers),
            active_providers=active,
            provider_options=_provider_options(options),
            device_id=options.device_id,
            ep_failure=ep_failure,
            placement_source=_placement_source(assignment, facts),
            graph_source=graph_source,
            log=facts.relevant,
            profiling_start_ns=profiling_start_ns,
        ),
        environment=environment,
        feeds=feeds,
        nodes=nodes,
        memcpy_insertions=facts.memcpy,
        node_events=node_events,
        run_events=run_events,
        timings=timings,
        mode=EvidenceMode.MEASURED,
        notes=notes,
        census=census_run.census,
        census_status=census_run.status,
        tool_version=__version__,
        created_utc=_now(),
        assumed_dims=assumed,
        given_state=dict(options.state),
    )
    if ep_failure is not None and any(provider_names.is_device(p) for p in options.providers):
        evidence = _with_predicted_placement(evidence, model, info, feeds, options, environment, assumed, say)
    return _checked_and_measured(evidence, model_path, arrays, options, say, active)


def _optimized_model_path(tmp_dir: Path, info: Any, notes: list[str]) -> Path | None:
    """Where ORT saves the optimized graph in ``tmp_dir``; None, with a note in ``notes``, where the model's
    weights are too large to save a second copy of them."""
    if info.initializer_bytes > OPTIMIZED_MODEL_MAX_WEIGHT_BYTES:
        # ORT would write a second copy of every weight into the temporary folder (2.2 GB of weights:
        # +15 s and +2.2 GB of disk, docs/benchmarks.md): map placement onto the original graph instead.
        notes.append(f"the model's weights ({info.initializer_bytes / 1e9:.1f} GB) are too large to save ORT's "
                     "optimized graph as well: placement is mapped onto the original graph")
        return None
    return tmp_dir / "optimized.onnx"


def _profiled_runs(session: Any, arrays: dict[str, np.ndarray], model_path: Path, options: CheckOptions,
                   census_run: CensusCollector, say: Progress, active: list[str]) -> None:
    """The evidence session's warm-up runs, then its profiled runs, which the transfer census traces."""
    total = options.warmup_runs + options.profiled_runs
    for i in range(total):
        if i == options.warmup_runs:
            census_run.start(active)  # the transfer census traces the profiled runs, not the warm-up
        say(f"warm-up run {i + 1}/{options.warmup_runs}" if i < options.warmup_runs
            else f"profiled run {i + 1 - options.warmup_runs}/{options.profiled_runs}")
        _run(session, arrays, model_path)
    census_run.stop()


def _placement_graph(model: onnx.ModelProto, optimized: Path | None,
                     notes: list[str]) -> tuple[onnx.ModelProto, str]:
    """The graph placement is mapped onto, and its source: the optimized graph ORT saved where it could be read,
    else ``model`` (with a note in ``notes`` where the saved graph could not be read)."""
    if optimized is not None and optimized.is_file():
        try:
            return read_model(optimized), "optimized_model"
        except Exception:  # noqa: BLE001 - fall back to the original graph, and say so
            notes.append("the optimized model ORT saved could not be read; placement is mapped onto the original graph")
    return model, "original_model"


def _placement_source(assignment: dict[Any, str] | None, facts: ortlog.LogFacts) -> str:
    """Where the nodes' placement came from: ORT's assignment info, its verbose log, or nowhere."""
    return "assignment_info" if assignment else ("verbose_log" if facts.placement_counts else "none")


def _provider_options(options: CheckOptions) -> dict[str, dict[str, Any]]:
    """The options given to each provider that has some, by provider."""
    return {p: dict(o) for p, o in (x for x in provider_list(options) if isinstance(x, tuple))}


def _partial_evidence(failure: DoctorError, info: Any, options: CheckOptions, active: list[str],
                      assignment: dict[Any, str] | None, facts: ortlog.LogFacts, graph_model: onnx.ModelProto,
                      graph_source: str, environment: Environment, feeds: list[Any], notes: list[str],
                      assumed: list[AssumedDim]) -> Evidence:
    """What the evidence session gathered before ``failure`` (log, providers, placement), kept on the error for
    --json."""
    return Evidence(
        model=info,
        session=SessionEvidence(
            requested_providers=list(options.providers), active_providers=active,
            provider_options=_provider_options(options),
            device_id=options.device_id, ep_failure=None,
            placement_source=_placement_source(assignment, facts),
            graph_source=graph_source, log=facts.relevant),
        environment=environment, feeds=feeds,
        nodes=_runtime_nodes(graph_model, assignment, facts, active) if active else [],
        memcpy_insertions=facts.memcpy, mode=EvidenceMode.MEASURED, notes=notes, failure=failure.message,
        tool_version=__version__, created_utc=_now(), assumed_dims=assumed, given_state=dict(options.state),
    )


def _read_profile(ort: Any, profile_path: Path, graph_model: onnx.ModelProto, options: CheckOptions, tmp_dir: Path,
                  info: Any) -> tuple[list[RunEvent], list[NodeEvent]]:
    """The run and node events of the profile ORT wrote (the warm-up runs set apart), then the profile removed."""
    try:
        raw = profile_names_raw(ort.__version__, (node.name for _, node in walk_nodes(graph_model.graph)))
        run_events, node_events = parse_profile(profile_path, options.warmup_runs, raw_names=raw)
    except DoctorError as exc:
        raise _temporary_folder_full(exc, tmp_dir, info.initializer_bytes, profile=True) or exc
    try:
        os.unlink(profile_path)
    except OSError:
        pass
    return run_events, node_events


def _ep_failure(options: CheckOptions, active: list[str], facts: ortlog.LogFacts,
                environment: Environment) -> str | None:
    """Why the first requested provider other than CPU is not active (ORT's logged reason where it gave one);
    None where every requested provider is."""
    for requested in options.providers:
        if requested not in active and requested != provider_names.CPU:
            return facts.ep_failures.get(requested) or (
                f"{requested} is available in this onnxruntime build but the session did not use it, and ORT logged no reason"
                if requested in environment.available_providers
                else f"{requested} is not available in this onnxruntime build ({environment.ort_package})"
            )
    return None


def _timed_runs(ort: Any, model_path: Path, arrays: dict[str, np.ndarray], options: CheckOptions, say: Progress,
                census_run: CensusCollector) -> Timings:
    """The timing session, unprofiled: its creation, its first run, the warm-up, the timed runs, and the census's
    overhead measured on runs traced the same way."""
    say("timed runs")
    so = session_options(ort, options, verbose=False, profile_prefix=None, optimized_path=None)
    with ortlog.capture_native_stderr():
        timing_session, create_ms = _create_session(ort, model_path, so, options)
        try:
            start = time.perf_counter()
            _run(timing_session, arrays, model_path)
            first_ms = (time.perf_counter() - start) * 1000.0
            for _ in range(max(0, options.warmup_runs - 1)):
                _run(timing_session, arrays, model_path)
            run_ms: list[float] = []
            for i in range(options.timed_runs):
                if i % 10 == 0:
                    say(f"timed runs {i}/{options.timed_runs}")
                start = time.perf_counter()
                _run(timing_session, arrays, model_path)
                run_ms.append((time.perf_counter() - start) * 1000.0)
            # Overhead of the census: runs traced the same way, in this unprofiled session.
            census_run.measure_overhead(lambda: _run(timing_session, arrays, model_path), min(10, options.timed_runs))
        finally:
            timing_session = None
            release_traceback(sys.exc_info()[1])  # a failed run's traceback may hold the session
    return Timings(warmup_runs=options.warmup_runs, profiled_runs=options.profiled_runs, run_ms=run_ms,
                   session_create_ms=create_ms, first_run_ms=first_ms)


def _with_predicted_placement(evidence: Evidence, model: onnx.ModelProto, info: Any, feeds: list[Any],
                              options: CheckOptions, environment: Environment, assumed: list[AssumedDim],
                              say: Progress) -> Evidence:
    """``evidence`` with the requested provider's placement predicted by static analysis, where that provider was
    not active; a note instead where there is no kernel table for it."""
    say("predicting the requested provider's placement")
    try:
        predicted = replace(static_evidence(model, info, feeds, options, environment), assumed_dims=assumed)
        evidence = replace(evidence, predicted=predicted)
        evidence.notes.append(
            f"{options.providers[0]} was not active: the predicted section shows what static analysis expects it to do")
    except UsageError as exc:  # no kernel table for this provider: the prediction is an extra, not the check
        evidence.notes.append(f"no prediction for {options.providers[0]}: {exc.message}")
    return evidence


def _checked_and_measured(evidence: Evidence, model_path: Path, arrays: dict[str, np.ndarray], options: CheckOptions,
                          say: Progress, active: list[str]) -> Evidence:
    """``evidence`` with the generated binding code checked against plain run() (an extra: a failure to check is
    recorded, not raised) and the binding A/B measured; the code blocks' sessions released after."""
    try:
        checks, blocks = _code_check.check_code(evidence, model_path, arrays, options, say)
    except Exception as exc:  # noqa: BLE001 - the check of the code is an extra: the check itself stands
        first = str(exc).strip().splitlines()[0][:300] if str(exc).strip() else type(exc).__name__
        checks, blocks = [_code_check.not_run("plan", f"the generated code could not be checked here: {first}")], {}
    if evidence.predicted is not None and not provider_names.is_device(active[0] if active else ""):
        # the code shown is the prediction's (Report.shown_binding): its checks go with it
        evidence = replace(evidence, predicted=replace(evidence.predicted, code_checks=checks))
    else:
        evidence = replace(evidence, code_checks=checks)
    try:
        measured = _binding_ab.measure_binding(evidence, model_path, arrays, options, say, blocks)
        evidence = replace(evidence, binding_measurement=measured)
        if options.measure_providers is not False and active and active[0] == provider_names.CUDA:
            say("weighing CUDA against the CPU provider")
            convolutions = any(n.op_type in ("Conv", "ConvTranspose") and n.provider == provider_names.CUDA
                               for n in evidence.nodes)
            choice, cpu_check = _provider_choice.measure_provider_choice(
                ortlog.import_onnxruntime(), model_path, convolutions, arrays, options, active,
                cpu_provider_code(evidence))
            evidence = replace(evidence, provider_choice=choice,
                               code_checks=[*evidence.code_checks, *([cpu_check] if cpu_check is not None else [])])
        return evidence
    finally:
        with ortlog.capture_native_stderr():  # the blocks' sessions (a cycle through infer()'s globals) go now
            for block in blocks.values():
                block.namespace.clear()


def _runs_that_fit(options: CheckOptions, info: Any, feeds: Sequence[Any], budget: Budget, notes: list[str],
                   model_path: Path) -> CheckOptions:
    """``options`` with as many profiled runs as fit in ORT's profile and in ``budget`` after the inputs
    (``collect.budget``): fewer than asked with a note in ``notes``, or a ``UsageError`` where one run does not
    fit."""
    plan = profiled_runs_that_fit(len(info.nodes), options.warmup_runs, options.profiled_runs, budget,
                                  sum(feed.bytes for feed in feeds), model=model_path.name)
    if plan.runs == options.profiled_runs:
        return options
    notes.append(plan.note)
    return replace(options, profiled_runs=plan.runs)


def _large_profile(info: Any, options: CheckOptions) -> bool:
    """Whether the evidence session's profile was large enough (about 100 MB held by ORT) to give its memory
    back before parsing it."""
    return profile_events(len(info.nodes), options.warmup_runs + options.profiled_runs) >= 30_000


def _now() -> str:
    return datetime.datetime.now(datetime.timezone.utc).strftime("%Y-%m-%dT%H:%M:%SZ")


def static_evidence(model: onnx.ModelProto, info: Any, feeds: list[Any], options: CheckOptions,
                    environment: Any) -> Evidence:
    """Evidence predicted from the model alone (no session): placement, Memcpy nodes, shapes."""
    provider = next((p for p in options.providers if provider_names.is_device(p)), provider_names.CPU)
    notes = ["static prediction: no session was created; every item is predicted from the model"]
    shaped: Any = None  # the model with inferred shapes, where the prediction made one
    if provider == provider_names.CPU:
        nodes = [RuntimeNode(name=n.name, op_type=n.op_type, domain=n.domain, provider=provider_names.CPU,
                             inputs=list(n.inputs), outputs=list(n.outputs), graph=n.graph) for n in info.nodes]
        insertions: list[Any] = []
    else:
        try:
            prediction = _prediction.predict(model, provider, ort_version=environment.ort_version)
        except ValueError as exc:
            raise UsageError(f"cannot predict placement for {provider}: {exc}; use --provider cuda") from None
        nodes, insertions = prediction.nodes, prediction.memcpy_insertions
        notes.extend(prediction.notes)
        shaped = prediction.shaped_model
    inferred: list[Any] = []
    if shaped is not None:  # the shapes of the nodes as placed (functions inlined), inferred once
        inferred = inferred_values(shaped)
    elif info.file_bytes < 2_000_000_000:  # a CPU prediction (no inference), or the prediction's failed (data_prop)
        import onnx  # imported by the model's reading already; a broken onnx install fails there, as itself

        try:
            # the shapes of the nodes placed: the bodies of local functions inlined, as the prediction places them
            shaped = onnx.shape_inference.infer_shapes(_prediction.with_local_functions_inlined(model, []),
                                                 strict_mode=False)
            inferred = inferred_values(shaped)
        except Exception:  # noqa: BLE001 - shapes are a nicety here
            notes.append("onnx shape inference failed: sizes of inner tensors are unknown")
    return Evidence(
        inputs_file=None if options.inputs_file is None else str(options.inputs_file),
        model=info,
        session=SessionEvidence(
            requested_providers=list(options.providers),
            active_providers=[provider] + ([provider_names.CPU] if provider != provider_names.CPU else []),
            provider_options={}, device_id=options.device_id, ep_failure=None,
            placement_source="predicted", graph_source="original_model"),
        environment=environment, feeds=feeds, nodes=nodes, memcpy_insertions=insertions, mode=EvidenceMode.STATIC,
        notes=notes, value_infos=inferred, tool_version=__version__, created_utc=_now(),
        given_state=dict(options.state),
    )
