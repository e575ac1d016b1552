"""After the program: replay each session's calls on the provider it ran on and on the other one (CUDA vs CPU), with
the program's own inputs and thread settings, and say which is faster per call (``run``'s providers audit).

The program's interpreter keeps the inputs of each session's first call at each of its first input signatures
(watch/program.py, ``Recorder._keep_for_replay``) and writes them beside its observations; ``run``'s process reads
them here, makes two sessions of the model with the program's intra/inter-op thread settings (other session options
and provider options are ORT's defaults: the recorder does not see them all), and times them in turn
(collect/ep_compare.py). Nothing is replayed where no device provider of this onnxruntime loads.
"""

from __future__ import annotations

import glob
import json
import os
from collections.abc import Callable
from typing import Any, Optional

from msgspec.structs import replace

from ortcopy_doctor.collect.ep_compare import compare_providers, shape_text, switch_cost
from ortcopy_doctor.collect.ortlog import capture_native_stderr, import_onnxruntime
from ortcopy_doctor.knowledge.providers import CPU, CUDA, is_device
from ortcopy_doctor.model.pipeline import PipelineObservations, SessionRecord
from ortcopy_doctor.model.replay import SessionReplay, ShapeComparison, SwitchTiming

_NUMPY_TYPES = {"tensor(float)": "float32", "tensor(double)": "float64", "tensor(float16)": "float16",
                "tensor(int64)": "int64", "tensor(int32)": "int32", "tensor(int16)": "int16", "tensor(int8)": "int8",
                "tensor(uint8)": "uint8", "tensor(bool)": "bool"}


def _threads_words(record: SessionRecord) -> str:
    def one(n: int, what: str) -> str:
        return f"{what} {n}" if n else f"{what} ORT's default"

    return (f"the program's session options ({one(record.intra_op_threads, 'intra-op threads')}, "
            f"{one(record.inter_op_threads, 'inter-op threads')}); ORT's default provider options")


def _session(ort: Any, model: str, provider: str, record: SessionRecord, search: str = "") -> Any:
    options = ort.SessionOptions()
    options.log_severity_level = 3
    if record.intra_op_threads:
        options.intra_op_num_threads = record.intra_op_threads
    if record.inter_op_threads:
        options.inter_op_num_threads = record.inter_op_threads
    first: Any = (provider, {"cudnn_conv_algo_search": search}) if search else provider
    providers = [first] + ([CPU] if provider != CPU else [])
    with capture_native_stderr():
        session = ort.InferenceSession(model, options, providers=providers)
    if session.get_providers()[0] != provider:
        raise RuntimeError(f"{provider} did not load for this model")
    return session


def _program_calls(record: SessionRecord, feeds: dict[str, Any]) -> int:
    """The program's calls of the session whose inputs had these shapes."""
    wanted = {name: list(array.shape) for name, array in feeds.items()}
    return sum(1 for c in record.observations.calls
               if {t.name: list(t.shape or []) for t in c.inputs if t.role == "input"} == wanted)


def _kept_inputs(prefix: str, index: int) -> list[dict[str, Any]]:
    """The inputs the program's interpreter kept for session ``index``, in the order it met them."""
    import numpy as np

    found = []
    for path in sorted(glob.glob(f"{glob.escape(prefix)}-{index}-*.npz"),
                       key=lambda p: int(p.rsplit("-", 1)[1].split(".")[0])):
        try:
            with open(path[:-4] + ".json", encoding="utf-8") as f:
                names = [str(n) for n in json.load(f)]
            with np.load(path, allow_pickle=False) as data:
                arrays = [data[f"arr_{i}"] for i in range(len(names))]
        except (OSError, ValueError, KeyError):
            continue
        found.append(dict(zip(names, arrays)))
    return found


def replay_sessions(obs: PipelineObservations, prefix: str,
                    progress: Optional[Callable[[str], None]] = None) -> list[SessionReplay]:
    """Each session of ``obs`` replayed on its provider and the other one (``prefix``: where the program's
    interpreter wrote the kept inputs); [] where no device provider loads here."""
    ort = import_onnxruntime()
    if CUDA not in ort.get_available_providers():
        return []
    if CUDA in obs.device_status:  # tried already (watch/program.py, device_status)
        if obs.device_status[CUDA] != "":
            return []
    elif not any(CUDA in r.observations.active_providers for r in obs.sessions):
        from ortcopy_doctor.collect.environment import provider_loadable

        if not provider_loadable(CUDA).loadable:  # a build's list names providers whose libraries are missing
            return []
    say = progress or (lambda _step: None)
    replays: list[SessionReplay] = []
    for index, record in enumerate(obs.sessions):
        active = record.observations.active_providers
        used = active[0] if active else CPU
        other = CPU if is_device(used) else CUDA
        if is_device(used) and used != CUDA:
            continue  # another device provider: not compared here
        say(f"replaying {record.label} on {used} and {other}")
        replays.append(replay_session(ort, record, index, prefix, used, other))
    return replays


def replay_session(ort: Any, record: SessionRecord, index: int, prefix: str, used: str, other: str) -> SessionReplay:
    """One session replayed on ``used`` and ``other`` with the inputs kept for it at ``prefix`` (see the module)."""
    base = SessionReplay(session=record.label, used=used, other=other, threads=_threads_words(record))
    if not record.model or not os.path.isfile(record.model):
        return replace(base, error="its model was not loaded from a file that is still there")
    kept = _kept_inputs(prefix, index)
    if not kept:
        return base
    try:
        sessions = (_session(ort, record.model, used, record), _session(ort, record.model, other, record))
    except Exception as exc:  # noqa: BLE001 - a provider that fails for this model is the replay's result
        return replace(base, error=_error(exc))
    order = [i.name for i in sessions[0].get_inputs()]
    types = {i.name: _NUMPY_TYPES.get(i.type) for i in sessions[0].get_inputs()}
    # a list the program fed was kept as numpy's choice of type; ORT converted it to the input's
    kept = [_typed(feeds, types) for feeds in kept]
    shapes: list[ShapeComparison] = []
    for feeds in kept:
        try:
            shapes.append(compare_providers(*sessions, feeds, shape=shape_text(feeds, order),
                                            program_calls=_program_calls(record, feeds)))
        except Exception as exc:  # noqa: BLE001
            return replace(base, shapes=shapes, error=_error(exc))
    switch = _switch(ort, record, used, kept) if used == CUDA and len(kept) > 1 else []
    return replace(base, shapes=shapes, switch=switch)


def _typed(feeds: dict[str, Any], types: dict[str, Any]) -> dict[str, Any]:
    return {k: v.astype(types[k]) if types.get(k) and v.dtype != types[k] else v for k, v in feeds.items()}


SEARCHES = ("EXHAUSTIVE", "HEURISTIC")  # ORT's default first


def _switch(ort: Any, record: SessionRecord, used: str, kept: list[dict[str, Any]]) -> list[SwitchTiming]:
    """Where the model has convolutions: the calls when the shape changes at every call, on a fresh session for each
    cudnn_conv_algo_search value ([] where it has none, or a session fails)."""
    try:
        import onnx

        model = onnx.load(record.model, load_external_data=False)
        if not any(n.op_type in ("Conv", "ConvTranspose") for n in model.graph.node):
            return []
        return [switch_cost(_session(ort, record.model, used, record, search), kept, search) for search in SEARCHES]
    except Exception:  # noqa: BLE001 - the switch measurement is extra: the comparison stands without it
        return []


def _error(exc: BaseException) -> str:
    first = str(exc).splitlines()[0] if str(exc) else ""
    return f"{type(exc).__name__}: {first}"[:300]


__all__ = ["replay_session", "replay_sessions"]
