"""What a check asks of ONNX Runtime: its options (``CheckOptions``) and the session options and provider list
built from them, shared by the check phases (``collect.check``) and the binding A/B (``collect.binding_ab``), and
how both free a failed session at once (``release_traceback``)."""

from __future__ import annotations

import math
import msgspec
import os
import traceback
from msgspec import field
from msgspec.structs import replace
from pathlib import Path
from typing import TYPE_CHECKING, Any

from ortcopy_doctor.knowledge import providers as provider_names
from ortcopy_doctor.model.errors import UsageError
from ortcopy_doctor.model.lazy import lazy_import

if TYPE_CHECKING:
    from ortcopy_doctor.collect import feeds as _feeds
else:  # run on first use (model/lazy.py): collect.feeds imports numpy (~60 ms), which CheckOptions alone needs not
    _feeds = lazy_import("ortcopy_doctor.collect.feeds")


class CheckOptions(msgspec.Struct, frozen=True):
    """What ``check`` runs: providers, inputs, and how many runs of each kind."""

    providers: list[str] = field(default_factory=lambda: list(provider_names.DEFAULT))
    provider_options: dict[str, str] = field(default_factory=dict)
    device_id: int = 0
    dims: dict[str, int] = field(default_factory=dict)
    shapes: dict[str, list[int]] = field(default_factory=dict)
    inputs_file: Path | None = None
    values: dict[str, str] = field(default_factory=dict)  # --value NAME=V: scalar inputs, in the model's dtype
    # --state IN=OUT: output OUT of one run is input IN of the next (the generated code carries it on the device)
    state: dict[str, str] = field(default_factory=dict)
    strict_shapes: bool = False  # refuse dynamic dims no --dim/--shape sizes, instead of taking them as 1
    static: bool = False  # predict from the model alone; create no session
    warmup_runs: int = 2
    profiled_runs: int = 3
    timed_runs: int = 20
    seed: int = 0
    custom_op_libraries: list[Path] = field(default_factory=list)
    # A/B measurement of IO binding (measure.py): None = on where the CUDA EP is active; runs per variant.
    measure_binding: bool | None = None
    measure_runs: int = 50  # the minimum (calibration) rounds; more are sampled until precise or out of budget
    measure_budget_s: float = 5.0  # seconds of adaptive sampling (stats.Sampler) at most
    # CUDA against the CPU provider and the cudnn_conv_algo_search values (collect/provider_choice.py): None = on
    # where the CUDA EP is active
    measure_providers: bool | None = None


# The ranges the command line takes (cli/app.py `check`), for the API's CheckOptions too.
RUN_RANGES = {"warmup_runs": (0, 10_000), "profiled_runs": (1, 1_000), "timed_runs": (1, 1_000_000),
              "measure_runs": (1, 1_000_000), "device_id": (0, 1023)}  # measure_runs under 5: 5 (binding_ab)
MAX_MEASURE_BUDGET_S = 3600.0


def validated(options: CheckOptions) -> CheckOptions:
    """``options`` checked as the command line checks its flags, provider names resolved ("cuda" ->
    "CUDAExecutionProvider"): a ``UsageError`` naming the field for a value the command line would refuse, not a
    numpy or onnxruntime error deep inside the check (or a check that quietly runs something else)."""
    def bad(name: str, value: object, want: str) -> UsageError:
        return UsageError(f"CheckOptions.{name}={str(value)[:60]!r}: {want}")

    def integer(value: object) -> bool:
        return isinstance(value, int) and not isinstance(value, bool)

    for name, (low, high) in RUN_RANGES.items():
        value = getattr(options, name)
        if not integer(value) or not low <= value <= high:
            raise bad(name, value, f"give an integer from {low} to {high:,}")
    budget = options.measure_budget_s
    if not isinstance(budget, (int, float)) or isinstance(budget, bool) or not math.isfinite(budget) \
            or not 0 <= budget <= MAX_MEASURE_BUDGET_S:
        raise bad("measure_budget_s", budget, f"give a number of seconds from 0 to {MAX_MEASURE_BUDGET_S:.0f}")
    if not integer(options.seed) or options.seed < 0:
        raise bad("seed", options.seed, "give a non-negative integer")
    providers = options.providers
    if isinstance(providers, (str, bytes)) or not isinstance(providers, (list, tuple)) or not providers \
            or not all(isinstance(p, str) for p in providers):
        raise bad("providers", providers, "give a list of provider names, e.g. ['cuda', 'cpu'] or "
                                          "['CUDAExecutionProvider', 'CPUExecutionProvider']")
    resolved: list[str] = []
    for name in providers:
        full = provider_names.ALIASES.get(name.strip().lower(), name.strip())
        if full not in provider_names.KNOWN:
            raise bad("providers", name, f"unknown provider: use one of {', '.join(sorted(provider_names.ALIASES))} "
                                         "(or a full name such as CUDAExecutionProvider)")
        if full not in resolved:
            resolved.append(full)
    for name, mapping, kind in (("dims", options.dims, "a size"), ("shapes", options.shapes, "a shape"),
                                ("values", options.values, "a value"), ("provider_options", options.provider_options,
                                                                        "a value"),
                                ("state", options.state, "the output that carries it")):
        if not isinstance(mapping, dict) or not all(isinstance(k, str) for k in mapping):
            raise bad(name, mapping, f"give a dict from each name to {kind}")
    for name, size in options.dims.items():
        if not integer(size) or not 0 <= size <= _feeds.MAX_DIM:
            raise bad("dims", {name: size}, f"give each symbol a size from 0 to {_feeds.MAX_DIM:,}")
    for name, shape in options.shapes.items():
        if not isinstance(shape, (list, tuple)) or not all(integer(d) and 0 <= d <= _feeds.MAX_DIM for d in shape):
            raise bad("shapes", {name: shape}, f"give each input a list of sizes from 0 to {_feeds.MAX_DIM:,}")
    if not all(isinstance(v, str) for v in [*options.values.values(), *options.provider_options.values()]):
        raise bad("values", options.values, "give each value as text, e.g. {'sample_rate': '16000'}")
    if not all(isinstance(v, str) for v in options.state.values()):
        raise bad("state", options.state, "give each state input the name of the output that carries it, e.g. "
                                          "{'state': 'stateN'}")
    if options.device_id and resolved[0] == provider_names.CPU:
        raise bad("device_id", options.device_id, "it picks a GPU, and the first provider is the CPU: drop it, or "
                                                  "put a GPU provider first")
    if options.provider_options and resolved[0] == provider_names.CPU:
        raise bad("provider_options", options.provider_options, "they are for the first provider, and the CPU "
                                                                "provider has none")
    return replace(options, providers=resolved, dims=dict(options.dims), state=dict(options.state),
                   shapes={k: list(v) for k, v in options.shapes.items()})


# Above this much weight, the evidence session does not save ORT's optimized model (a full copy of the weights).
OPTIMIZED_MODEL_MAX_WEIGHT_BYTES = 512 * 2**20


def session_options(ort: Any, options: CheckOptions, *, verbose: bool, profile_prefix: str | None,
                    optimized_path: Path | None) -> Any:
    """ORT session options for ``options``: log level, profiling, the optimized model's path, custom op
    libraries (a bad one is a UsageError that says what to pass)."""
    so = ort.SessionOptions()
    so.log_severity_level = 0 if verbose else 3
    if profile_prefix:
        so.enable_profiling = True
        so.profile_file_prefix = profile_prefix
    if verbose:
        # ORT >= 1.26 keeps the EP assignment of every node when asked (get_provider_graph_assignment_info).
        so.add_session_config_entry("session.record_ep_graph_assignment_info", "1")
    if optimized_path is not None:
        so.optimized_model_filepath = str(optimized_path)
        # Weights go to a side file, so a large model is not serialised into one protobuf.
        so.add_session_config_entry("session.optimized_model_external_initializers_file_name", optimized_path.name + ".data")
        so.add_session_config_entry("session.optimized_model_external_initializers_min_size_in_bytes", "1024")
    for library in options.custom_op_libraries:
        if not Path(library).is_file():
            raise UsageError(f"--custom-op-library {library} not found: pass the path of the shared library")
        # Always an absolute path: ORT dlopen()s it, and dlopen searches the system paths for a name without
        # a slash, and ORT drops a leading "./", so "./lib.so" would load another library of that name.
        absolute = os.path.abspath(library)
        try:
            so.register_custom_ops_library(absolute)
        except Exception as exc:  # noqa: BLE001 - not a shared library, wrong architecture, missing symbol
            text = str(exc).strip()
            reason = text.splitlines()[0][:300] if text else type(exc).__name__
            raise UsageError(f"--custom-op-library {library} could not be loaded ({reason}): pass a custom-op "
                             "shared library built for this onnxruntime") from None
    return so


def provider_list(options: CheckOptions) -> list[Any]:
    """The providers argument of InferenceSession: names, with the device id and provider options where set."""
    result: list[Any] = []
    for name in options.providers:
        if name == provider_names.CPU:
            result.append(name)
            continue
        opts: dict[str, str] = {}
        if name in ("CUDAExecutionProvider", "TensorrtExecutionProvider", "ROCMExecutionProvider", "MIGraphXExecutionProvider"):
            opts["device_id"] = str(options.device_id)
        if name == options.providers[0]:
            opts.update(options.provider_options)
        result.append((name, opts) if opts else name)
    return result


def release_traceback(exc: BaseException | None) -> None:
    """Free now what the tracebacks of ``exc`` (and of the exceptions it replaced) hold in the frames they went
    through: a session ORT was building or running there, destroyed inside the fd-2 capture it logs into. The
    frames' locals are cleared (``traceback.clear_frames``; frames still running are left as they are), which is
    what held it, so no collection of the caller's heap is needed (the library leaves it alone)."""
    seen: set[int] = set()
    while exc is not None and id(exc) not in seen:
        seen.add(id(exc))
        if exc.__traceback__ is not None:
            traceback.clear_frames(exc.__traceback__)
        exc = exc.__context__


__all__ = ["OPTIMIZED_MODEL_MAX_WEIGHT_BYTES", "CheckOptions", "provider_list", "release_traceback", "session_options"]
