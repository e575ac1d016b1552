"""Watch mode: audit the user's own calls of an existing ``onnxruntime.InferenceSession``.

>>> from ortcopy_doctor import watch
>>> with watch(session) as w:                                   # doctest: +SKIP
...     outputs = session.run(None, {"x": x})
>>> from ortcopy_doctor.render.watch import render_watch_text
>>> print(render_watch_text(w.report))                          # doctest: +SKIP
>>> w.report.assert_no_host_transfers(except_outputs=["y"])     # doctest: +SKIP

For the duration of the ``with`` block the session's ``run``, ``run_with_iobinding`` and ``run_with_ort_values``
(instance attributes) and the ``bind_*`` / ``clear_binding_*`` methods of ``onnxruntime.IOBinding`` (class
attributes; only bindings of the watched session are recorded) are wrapped; all are restored on exit, also when
the block raises. Per call it records where each input was given (numpy, an OrtValue and its ``device_name()``,
what was bound with which ``bind_*``) and where each output was delivered, and, where CUPTI can trace, the
memcpys of exactly that call (one ``census.CuptiTracer`` around each call and each ``bind_*``: ORT copies a
host input bound for a device consumer inside ``bind_cpu_input``, not inside ``run_with_iobinding``).

Placement (which inputs a device kernel reads in device memory, which outputs it writes there) comes from the
session itself where it was created with the session config ``session.record_ep_graph_assignment_info=1``
(``instrumented_session`` does that and also keeps the graph ORT ran), else from static prediction
(``predict.predict``) on the model file, and the report says which.

What counts as a *host transfer of the user's code* (``assert_no_host_transfers``): feed copies (an input given
in host memory that a device kernel reads, or given on the device and read in host memory) and fetch copies (an
output produced on the device and delivered to host memory, or produced on the host and bound on the device).
Those are the ones the calling code can remove. Transfers of Memcpy nodes ORT inserted (a CPU-fallback op) and
transfers inside kernels (NonZero's count) are the model's: reported per call as ``model`` transfers, never
counted by ``assert_no_host_transfers``.

Recorded observations (``Watch.observations``) are plain data: ``analyse_watch`` turns them into a report without
onnxruntime, which is how the recorded GPU fixtures are replayed (tests/fixtures/watch, tools/record_watch.py).
"""

from __future__ import annotations

import copy
import msgspec
import contextlib
import functools
import inspect
import os
import shutil
import tempfile
import threading
import time
import weakref
from collections.abc import Callable, Iterator, Sequence
from msgspec import field
from pathlib import Path
from typing import Any, Optional

from ortcopy_doctor.analysis.attribution import clock_offset
from ortcopy_doctor.collect.census import CuptiTracer
from ortcopy_doctor.knowledge.providers import ALIASES, CUDA, KNOWN, is_device
from ortcopy_doctor.model.errors import UsageError
from ortcopy_doctor.model.census import TransferRecord
from ortcopy_doctor.analysis.watch import analyse_watch
from ortcopy_doctor.model.watch import (
    PLACEMENT_HOST_ONLY,
    PLACEMENT_UNKNOWN,
    BindRecords,
    CallObservation,
    CallProfile,
    Placement,
    ProfileMemcpy,
    TensorUse,
    WatchObservations,
    WatchReport,
)
from ortcopy_doctor.watch.placement import _assignment, _session_placement, predicted_placement


class _Instrumentation(msgspec.Struct):
    requested_providers: list[str]
    runtime_graph: Any  # onnx.ModelProto of the graph ORT ran, or None
    ep_failures: dict[str, str]
    profiling: bool
    workdir: str
    notes: list[str] = field(default_factory=list)
    profile_ended: bool = False


_INFO_ATTR = "_ortcopy_doctor_instrumentation"


def instrumented_session(model_path: str | os.PathLike[str], providers: Sequence[Any] | None = None, *,
                         sess_options: Any = None, provider_options: Sequence[dict[str, Any]] | None = None,
                         profile: bool = True, **kwargs: Any) -> Any:
    """An ``onnxruntime.InferenceSession`` that ``watch`` can read fully: the EP assignment recorded (session
    config ``session.record_ep_graph_assignment_info=1``), the graph ORT ran saved and read back
    (``optimized_model_filepath``), ORT's verbose creation log captured from fd 2 (Memcpy insertions, why a
    provider did not load), and profiling on (``profile=False`` turns it off; profiling roughly doubles the run
    time of a small model).

    ``sess_options`` (an ``onnxruntime.SessionOptions``) is modified in place; ``providers``, ``provider_options``
    and ``kwargs`` go to ``InferenceSession`` unchanged.
    """
    import onnx
    import onnxruntime as ort

    from ortcopy_doctor.collect import ortlog

    so = sess_options if sess_options is not None else ort.SessionOptions()
    workdir = tempfile.mkdtemp(prefix="ortcopy-doctor-watch-")
    optimized = Path(workdir) / "runtime_graph.onnx"
    previous_level = so.log_severity_level
    so.log_severity_level = 0
    try:
        with ortlog.capture_native_stderr() as captured:
            # inside the capture: options used for an earlier session already hold these entries, and ORT warns
            # on the terminal that each is set again
            _set_config(so, "session.record_ep_graph_assignment_info", "1")
            so.optimized_model_filepath = str(optimized)
            _set_config(so, "session.optimized_model_external_initializers_file_name", optimized.name + ".data")
            _set_config(so, "session.optimized_model_external_initializers_min_size_in_bytes", "1024")
            if profile:
                so.enable_profiling = True
                so.profile_file_prefix = str(Path(workdir) / "profile")
            session = ort.InferenceSession(os.fspath(model_path), so, providers=providers,
                                           provider_options=provider_options, **kwargs)
    except BaseException:
        shutil.rmtree(workdir, ignore_errors=True)  # ORT refused the model (or the options): nothing to keep
        raise
    finally:
        so.log_severity_level = previous_level
    facts = ortlog.extract_facts(ortlog.parse_lines(captured.text))
    notes: list[str] = []
    graph = None
    if optimized.is_file():
        try:
            graph = onnx.load(str(optimized), load_external_data=False)
        except Exception as exc:  # noqa: BLE001
            notes.append(f"the graph ORT saved could not be read ({exc}): placement is mapped onto the model file")
    for leftover in (optimized, Path(str(optimized) + ".data")):
        with contextlib.suppress(OSError):
            leftover.unlink()
    requested = [p[0] if isinstance(p, (tuple, list)) else str(p) for p in (providers or [])]
    info = _Instrumentation(requested_providers=requested, runtime_graph=graph, ep_failures=dict(facts.ep_failures),
                            profiling=profile, workdir=workdir, notes=notes)
    setattr(session, _INFO_ATTR, info)
    # When the session is collected (or at interpreter exit): end its profiling and destroy ORT's session while
    # fd 2 is captured, then remove the temporary folder. Left to ORT, the session writes profile_*.json there as it
    # is destroyed and logs "Writing profiler data to file ..." (or "Profiler is disabled.") on the terminal: its
    # logger stays verbose, it was created at level 0. The finalizer holds the wrapper's __dict__ (where ORT's
    # wrapper keeps the native session as ``_sess``), not the wrapper, so it does not keep the wrapper alive.
    weakref.finalize(session, _finish_instrumented, getattr(session, "__dict__", {}), info)
    return session


def _set_config(options: Any, key: str, value: str) -> None:
    """``options.add_session_config_entry(key, value)``, not again where the entry already has that value."""
    with contextlib.suppress(Exception):  # onnxruntime raises where the entry is not set
        if options.get_session_config_entry(key) == value:
            return
    options.add_session_config_entry(key, value)


def _finish_instrumented(attributes: dict[str, Any], info: _Instrumentation) -> None:
    from ortcopy_doctor.collect import ortlog

    with contextlib.suppress(Exception), ortlog.capture_native_stderr():
        inner = attributes.get("_sess")
        if info.profiling and not info.profile_ended and inner is not None:
            path = inner.end_profiling()
            info.profile_ended = True
            if path:
                with contextlib.suppress(OSError):
                    os.unlink(path)
        del inner
        # The wrapper's metadata (inputs_meta, session_options, ...) keeps the native session alive as well
        # (pybind11 keep-alive): dropping them all drops its last reference in the usual case, so ORT's session
        # is destroyed, and logs, here.
        attributes.clear()
    shutil.rmtree(info.workdir, ignore_errors=True)


# --- live recording -------------------------------------------------------------------------------------------------


def _ort_dtype_bytes(element_type: Any) -> Optional[int]:
    import numpy as np

    try:
        if isinstance(element_type, int):
            from onnx import helper

            return int(np.dtype(helper.tensor_dtype_to_np_dtype(element_type)).itemsize)
        return int(np.dtype(element_type).itemsize)
    except Exception:  # noqa: BLE001
        return None


def _ortvalue_nbytes(value: Any) -> Optional[int]:
    """Bytes of a tensor OrtValue: ``tensor_size_in_bytes()``, which onnxruntime 1.20's OrtValue lacks (1.27 has it);
    there, its elements times their size (None where the element type has no fixed size)."""
    if hasattr(value, "tensor_size_in_bytes"):
        return int(value.tensor_size_in_bytes())
    itemsize = _ort_dtype_bytes(value.element_type())
    if itemsize is None:
        return None
    count = 1
    for d in value.shape():
        count *= int(d)
    return count * itemsize


def _use_of_value(name: str, role: str, value: Any, via_numpy: str) -> TensorUse:
    """Describe a feed or a result: numpy array, OrtValue, or another Python object."""
    import numpy as np

    if hasattr(value, "device_name") and hasattr(value, "is_tensor") and hasattr(value, "shape"):  # OrtValue
        try:
            if not value.is_tensor():
                return TensorUse(name, role, "ortvalue", value.device_name().lower(), is_tensor=False)
            return TensorUse(name, role, "ortvalue", value.device_name().lower(), _ortvalue_nbytes(value),
                             list(value.shape()), value.data_type())
        except Exception:  # noqa: BLE001 - a sparse or odd value
            return TensorUse(name, role, "ortvalue", "", is_tensor=False)
    if isinstance(value, list):  # ORT converts a list of numbers to the input's type: its shape is known, not its size
        try:
            arr = np.asarray(value)
        except (ValueError, TypeError):
            return TensorUse(name, role, via_numpy, "cpu", is_tensor=False)
        if arr.dtype == object:
            return TensorUse(name, role, via_numpy, "cpu", is_tensor=False)
        return TensorUse(name, role, via_numpy, "cpu", None, list(arr.shape), None)
    if isinstance(value, dict):
        return TensorUse(name, role, via_numpy, "cpu", is_tensor=False)
    try:
        arr = np.asarray(value)
    except Exception:  # noqa: BLE001
        return TensorUse(name, role, via_numpy, "cpu", is_tensor=False)
    return TensorUse(name, role, via_numpy, "cpu", int(arr.nbytes), list(arr.shape), str(arr.dtype),
                     is_tensor=arr.dtype != object)


class _BindingState(msgspec.Struct):
    inputs: dict[str, TensorUse] = field(default_factory=dict)
    outputs: dict[str, TensorUse] = field(default_factory=dict)
    pending: list[BindRecords] = field(default_factory=list)


class _IOBindingPatch:
    """Class-level wrappers of ``onnxruntime.IOBinding``'s bind methods, shared by every active watch."""

    METHODS = ("bind_cpu_input", "bind_input", "bind_ortvalue_input", "bind_output", "bind_ortvalue_output",
               "clear_binding_inputs", "clear_binding_outputs")
    _lock = threading.Lock()
    _watchers: dict[int, list[Watch]] = {}  # id(C session) -> its active watches, outermost first
    _saved: dict[str, Any] = {}
    _cls: Any = None

    @classmethod
    def add(cls, c_session: Any, watcher: Watch) -> None:
        import onnxruntime as ort

        with cls._lock:
            if not cls._watchers:
                cls._cls = ort.IOBinding
                for name in cls.METHODS:
                    original = cls._cls.__dict__.get(name)
                    if original is None:
                        continue
                    cls._saved[name] = original
                    setattr(cls._cls, name, cls._wrap(name, original))
                init = cls._cls.__dict__.get("__init__")
                if init is not None:
                    cls._saved["__init__"] = init
                    setattr(cls._cls, "__init__", cls._wrap_init(init))
            cls._watchers.setdefault(id(c_session), []).append(watcher)

    @classmethod
    def remove(cls, c_session: Any, watcher: Watch) -> None:
        with cls._lock:
            watchers = cls._watchers.get(id(c_session), [])
            watchers[:] = [w for w in watchers if w is not watcher]  # this watch only: an enclosing one goes on
            if not watchers:
                cls._watchers.pop(id(c_session), None)
            if not cls._watchers and cls._cls is not None:
                for name, original in cls._saved.items():
                    setattr(cls._cls, name, original)
                cls._saved = {}
                cls._cls = None

    @classmethod
    def _wrap_init(cls, original: Callable[..., Any]) -> Callable[..., Any]:
        """``IOBinding(session)`` that remembers its native session, by which the bind wrappers find their watch:
        onnxruntime 1.30 keeps it as ``_session``, 1.27 and 1.20 do not (read in the wheels' Python sources)."""

        def wrapper(binding: Any, session: Any, *args: Any, **kwargs: Any) -> None:
            original(binding, session, *args, **kwargs)
            if getattr(binding, "_session", None) is None:
                binding._ortcopy_session = getattr(session, "_sess", None)

        wrapper.__name__ = "__init__"
        wrapper.__doc__ = original.__doc__
        wrapper.__wrapped__ = original  # type: ignore[attr-defined]
        return wrapper

    @classmethod
    def _wrap(cls, method: str, original: Callable[..., Any]) -> Callable[..., Any]:
        signature = inspect.signature(original)

        def wrapper(binding: Any, *args: Any, **kwargs: Any) -> Any:
            native = getattr(binding, "_session", None) or getattr(binding, "_ortcopy_session", None)
            watchers = list(cls._watchers.get(id(native), ()))
            if not watchers:
                return original(binding, *args, **kwargs)

            # Every active watch of the session records the bind (nested watches: the pytest fixture and a watch
            # inside the test, or `run` and the program's own watch); ORT binds once, inside the innermost.
            def through(i: int, binding: Any, *args: Any, **kwargs: Any) -> Any:
                if i == len(watchers):
                    return original(binding, *args, **kwargs)
                return watchers[i]._on_bind(method, functools.partial(through, i + 1), signature, binding, args,
                                            kwargs)

            return through(0, binding, *args, **kwargs)

        wrapper.__name__ = method
        wrapper.__doc__ = original.__doc__
        wrapper.__wrapped__ = original  # type: ignore[attr-defined]
        return wrapper


class Watch:
    """``with watch(session) as w: ...``; then ``w.report`` (a ``WatchReport``) and ``w.observations``."""

    def __init__(self, session: Any, *, census: bool | Callable[[], Any] = True, predict_for: Optional[str] = "auto",
                 profile: bool = False, model: Any = None) -> None:
        self.session = session
        self._census_option = census
        self._predict_for = _provider_to_predict(predict_for)
        self._profile = profile
        self._model_arg = model
        self.observations = WatchObservations()
        self._bindings: dict[int, tuple[Any, _BindingState]] = {}
        self._saved_attrs: dict[str, Any] = {}
        self._tracer_factory: Optional[Callable[[], Any]] = None
        self._report: Optional[WatchReport] = None
        self._active = False
        self._calls_lock = threading.Lock()

    # context manager --------------------------------------------------------------------------------------------------

    def __enter__(self) -> Watch:
        import onnxruntime as ort

        obs = self.observations
        obs.ort_version = ort.__version__
        obs.active_providers = list(self.session.get_providers())
        info: Optional[_Instrumentation] = getattr(self.session, _INFO_ATTR, None)
        obs.requested_providers = list(info.requested_providers) if info else []
        obs.model = str(getattr(self.session, "_model_path", "") or "")
        self._set_placement(info)
        self._set_census()
        if self._profile:
            if info is not None and info.profile_ended:
                obs.profile_note = "an earlier watch ended this session's profiling"
                self._profile = False
            elif not self._session_profiles():
                obs.profile_note = "the session was not created with profiling on (instrumented_session does that)"
                self._profile = False
        self._patch()
        self._active = True
        return self

    def __exit__(self, *exc: object) -> None:
        self._restore()
        self._active = False
        if self._profile:
            self._read_profile()
        self._report = None

    # results ------------------------------------------------------------------------------------------------------------

    @property
    def report(self) -> WatchReport:
        """The report of the calls recorded so far (analysed again while the block is active)."""
        if self._report is None or self._active:
            self._report = analyse_watch(self.observations)
        return self._report

    @property
    def calls(self) -> list[CallObservation]:
        """The recorded calls, in order."""
        return self.observations.calls

    # setup ----------------------------------------------------------------------------------------------------------------

    def _model(self) -> Any:
        import onnx

        if self._model_arg is not None:
            return self._model_arg if not isinstance(self._model_arg, (str, os.PathLike)) else onnx.load(
                os.fspath(self._model_arg), load_external_data=False)
        path = getattr(self.session, "_model_path", None)
        if path:
            return onnx.load(path, load_external_data=False)
        data = getattr(self.session, "_model_bytes", None)
        if data:
            return onnx.load_from_string(data)
        return None

    def _set_placement(self, info: Optional[_Instrumentation]) -> None:
        import onnxruntime as ort

        obs = self.observations
        active = obs.active_providers
        device = next((p for p in active if is_device(p)), "")
        try:
            model = self._model()
        except Exception as exc:  # noqa: BLE001
            model = None
            obs.notes.append(f"the model could not be read ({type(exc).__name__}: {exc})")
        if model is not None and self._model_arg is not None:
            mismatch = _inputs_mismatch(model, self.session)
            if mismatch:
                obs.notes.append(f"model= is not the session's model ({mismatch}): placement and predictions "
                                 "below describe another graph; pass the model the session was created from")
        if info is not None:
            obs.notes.extend(info.notes)
        if not device:
            obs.placement = Placement(source=PLACEMENT_HOST_ONLY, provider="",
                                      detail=f"active providers: {', '.join(active)}")
            wanted = self._predict_for
            if wanted == "auto":
                requested = [p for p in obs.requested_providers if is_device(p)]
                if requested:
                    wanted = requested[0]
                    reason = info.ep_failures.get(wanted) if info else None
                    obs.notes.append(f"{wanted} was requested but is not active" + (f": {reason}" if reason else ""))
                elif CUDA in ort.get_available_providers():
                    wanted = CUDA
                    obs.notes.append("this onnxruntime build has the CUDA provider but the session runs on CPU "
                                     "(not requested, or its libraries did not load): `predicted` shows the same calls on CUDA")
                else:
                    wanted = None
            if wanted and model is not None:
                try:
                    obs.predicted_placement = predicted_placement(model, wanted, ort.__version__)
                except Exception as exc:  # noqa: BLE001 - no kernel table for that provider
                    obs.notes.append(f"no prediction for {wanted}: {exc}")
            return
        assignment = _assignment(self.session)
        if assignment is not None and (model is not None or (info and info.runtime_graph is not None)):
            obs.placement = _session_placement(self.session, model, info.runtime_graph if info else None,
                                               assignment, device, ort.__version__)
        elif model is not None:
            try:
                obs.placement = predicted_placement(model, device, ort.__version__)
            except Exception as exc:  # noqa: BLE001
                obs.placement = Placement(source=PLACEMENT_UNKNOWN, provider=device,
                                          detail=f"no assignment info and no prediction for {device}: {exc}")
        else:
            obs.placement = Placement(source=PLACEMENT_UNKNOWN, provider=device,
                                      detail="the session has no assignment info and its model is not readable: pass model=")

    def _set_census(self) -> None:
        obs = self.observations
        if obs.placement.source == PLACEMENT_HOST_ONLY:
            obs.census_note = "not taken: no device provider is active, so there is nothing to trace"
            return
        option = self._census_option
        if option is False:
            obs.census_note = "turned off (watch(..., census=False))"
            return
        if callable(option):
            self._tracer_factory = option
            obs.census_backend = getattr(option, "backend", "custom")
            return
        if CuptiTracer._sink is not None:
            obs.census_note = "another CuptiTracer is active in this process (one tracer at a time)"
            return
        try:
            trial = CuptiTracer()
            with trial:
                pass
        except Exception as exc:  # noqa: BLE001 - CuptiUnavailable, NotSupportedError without a CUDA driver, ...
            from ortcopy_doctor.collect.census import _abandon

            _abandon(None)
            obs.census_note = f"CUPTI cannot trace here ({type(exc).__name__}: {str(exc).splitlines()[0] if str(exc) else ''})"
            return
        self._tracer_factory = CuptiTracer
        obs.census_backend = "cupti-python"

    def _session_profiles(self) -> bool:
        try:
            return bool(self.session.get_session_options().enable_profiling)
        except Exception:  # noqa: BLE001
            return False

    # patching -----------------------------------------------------------------------------------------------------------

    def _patch(self) -> None:
        session = self.session
        for name, wrapper in (("run", self._run), ("run_with_iobinding", self._run_with_iobinding),
                              ("run_with_ort_values", self._run_with_ort_values)):
            if not hasattr(session, name):
                continue
            saved = session.__dict__.get(name, _MISSING)
            self._saved_attrs[name] = saved
            setattr(session, name, _bind_wrapper(self, wrapper, getattr(session, name), name, saved))
        _IOBindingPatch.add(session._sess, self)

    def _restore(self) -> None:
        """Put back what ``_patch`` replaced. Where a later watch wrapped this one's wrapper and is still active
        (watches ended out of order), the attribute stays the later watch's, and this one's wrapper, now ended,
        passes calls straight through; that watch, when it ends, puts back what was there before either."""
        _IOBindingPatch.remove(self.session._sess, self)
        for name, saved in self._saved_attrs.items():
            current = self.session.__dict__.get(name, _MISSING)
            if getattr(current, "_ortcopy_watch", None) not in (self, None):
                continue
            while getattr(saved, "_ortcopy_watch", None) is not None and not saved._ortcopy_watch._active:
                saved = saved._ortcopy_saved  # the wrapper of a watch that ended first: what it replaced
            if saved is _MISSING:
                self.session.__dict__.pop(name, None)
            else:
                setattr(self.session, name, saved)
        self._saved_attrs = {}

    @contextlib.contextmanager
    def _traced(self) -> Iterator[_Records | None]:
        """The records of one call (or bind): a list filled when the tracing ends.

        CUPTI traces one tracer at a time, for the whole process. So the calls that overlap (nested watches of one
        session, each wrapping the other's call; calls from several threads) share one tracer: the first starts
        it, the last to end stops it, and each of them gets the records issued while it ran (``_SharedTrace``). A
        call that is not the last to end gets its list filled later (``_Records.filled``); no call's transfers are
        lost after another's end."""
        global _shared_trace
        if self._tracer_factory is None:
            yield None
            return
        records = _Records()
        with _trace_lock:
            shared = _shared_trace
            if shared is None:
                tracer = self._tracer_factory()
                tracer.__enter__()  # under the lock: another thread's call waits until the tracing runs
                shared = _shared_trace = _SharedTrace(tracer)
            shared.join(records, self)
        try:
            yield records
        finally:
            with _trace_lock:
                shared.leave(records)
                if shared.active == 0:
                    _shared_trace = None
                    shared.finish()  # under the lock: the next call's tracer starts after this one stopped

    def _state(self, binding: Any) -> _BindingState:
        entry = self._bindings.get(id(binding))
        if entry is None or entry[0] is not binding:
            state = _BindingState()
            # Bound before the watch: the Python wrapper keeps the OrtValues it bound (onnxruntime 1.30 does;
            # 1.27 and 1.20 keep none, so such a binding is seen only from its first bind inside the watch).
            for name, value in (getattr(binding, "_bound_inputs", None) or {}).items():
                state.inputs[name] = (_use_of_value(name, "input", value, "bound_before_watch") if value is not None
                                      else TensorUse(name, "input", "bound_before_watch", ""))
                state.inputs[name].via = "bound_before_watch"
                state.inputs[name].fresh = False  # copied (if at all) when it was bound, before the watch
            for name, value in (getattr(binding, "_bound_outputs", None) or {}).items():
                state.outputs[name] = TensorUse(name, "output", "bound_before_watch", "")
            self._bindings[id(binding)] = (binding, state)
            return state
        return entry[1]

    def _on_bind(self, method: str, original: Callable[..., Any], signature: inspect.Signature, binding: Any,
                 args: tuple[Any, ...], kwargs: dict[str, Any]) -> Any:
        state = self._state(binding)
        try:
            bound = signature.bind(binding, *args, **kwargs)
            bound.apply_defaults()
            a = bound.arguments
        except TypeError:
            return original(binding, *args, **kwargs)
        if method == "clear_binding_inputs":
            state.inputs.clear()
            return original(binding, *args, **kwargs)
        if method == "clear_binding_outputs":
            state.outputs.clear()
            return original(binding, *args, **kwargs)
        name = str(a.get("name"))
        if method == "bind_cpu_input":
            use = _use_of_value(name, "input", a.get("arr_on_cpu"), "bind_cpu_input")
            use.via, use.device = "bind_cpu_input", "cpu"
        elif method == "bind_input":
            shape = [int(d) for d in (a.get("shape") or [])]
            size = _ort_dtype_bytes(a.get("element_type"))
            count = 1
            for d in shape:
                count *= d
            use = TensorUse(name, "input", "bind_input", str(a.get("device_type", "")).lower(),
                            count * size if size is not None else None, shape, str(a.get("element_type")))
        elif method == "bind_ortvalue_input":
            use = _use_of_value(name, "input", a.get("ortvalue"), "bind_ortvalue_input")
            use.via = "bind_ortvalue_input"
        elif method == "bind_output":
            use = TensorUse(name, "output", "bind_output", str(a.get("device_type") or "cpu").lower())
        else:  # bind_ortvalue_output
            use = _use_of_value(name, "output", a.get("ortvalue"), "bind_ortvalue_output")
            use.via = "bind_ortvalue_output"
        with self._traced() as records:
            result = original(binding, *args, **kwargs)
        (state.inputs if use.role == "input" else state.outputs)[name] = use
        # not filled yet: a call that overlaps this bind (an enclosing watch's, another thread's) ends the tracing
        if records or (records is not None and not records.filled):
            state.pending.append(BindRecords(method=method, name=name, records=records))
        return result

    def _record(self, method: str, inputs: list[TensorUse], call: Callable[[], Any],
                outputs_of: Callable[[Any], list[TensorUse]], bind_records: list[BindRecords] | None = None) -> Any:
        obs = CallObservation(index=0, method=method, inputs=inputs, bind_records=bind_records or [])
        with self._calls_lock:  # calls from several threads: each its own index, its place in the list
            obs.index = len(self.observations.calls)
            self.observations.calls.append(obs)
        obs.start_ns = time.time_ns()
        records: list[TransferRecord] | None = None
        try:
            with self._traced() as records:
                result = call()
        except BaseException as exc:
            obs.end_ns = time.time_ns()
            obs.error = f"{type(exc).__name__}: {str(exc).splitlines()[0] if str(exc) else ''}"[:300]
            obs.traced, obs.records = records is not None, records if records is not None else []
            raise
        obs.end_ns = time.time_ns()
        # the list itself: under an enclosing watch's tracer it is filled when that tracer ends
        obs.traced, obs.records = records is not None, records if records is not None else []
        try:
            obs.outputs = outputs_of(result)
        except Exception as exc:  # noqa: BLE001 - never break the user's call
            self.observations.notes.append(f"call {obs.index}: outputs not readable ({exc})")
        return result

    def _output_names(self, requested: Any) -> list[str]:
        try:
            if requested:
                return [str(n) for n in requested]
            return [o.name for o in self.session.get_outputs()]
        except Exception:  # noqa: BLE001 - ORT refuses what it cannot take, with its own error, in the call
            return []

    def _run(self, original: Callable[..., Any], output_names: Any, input_feed: Any, *args: Any, **kwargs: Any) -> Any:
        inputs = _feed_uses(input_feed)
        names = self._output_names(output_names)

        def outputs_of(result: Any) -> list[TensorUse]:
            uses = [_use_of_value(n, "output", v, "returned") for n, v in zip(names, result)]
            return uses

        return self._record("run", inputs, lambda: original(output_names, input_feed, *args, **kwargs), outputs_of)

    def _run_with_ort_values(self, original: Callable[..., Any], output_names: Any, input_dict_ort_values: Any,
                             *args: Any, **kwargs: Any) -> Any:
        input_dict = input_dict_ort_values
        inputs = _feed_uses(input_dict)
        names = self._output_names(output_names)

        def outputs_of(result: Any) -> list[TensorUse]:
            return [_use_of_value(n, "output", v, "returned") for n, v in zip(names, result)]

        return self._record("run_with_ort_values", inputs,
                            lambda: original(output_names, input_dict, *args, **kwargs), outputs_of)

    def _run_with_iobinding(self, original: Callable[..., Any], iobinding: Any, *args: Any, **kwargs: Any) -> Any:
        state = self._state(iobinding)
        inputs = [copy.deepcopy(u) for u in state.inputs.values()]
        for use in state.inputs.values():
            use.fresh = False  # the next run reuses what ORT already copied at bind time
        pending, state.pending = state.pending, []
        bound = list(state.outputs.values())

        def outputs_of(_: Any) -> list[TensorUse]:
            values = iobinding.get_outputs()
            names = list(state.outputs) if len(state.outputs) == len(values) else \
                list(getattr(iobinding, "_bound_outputs", {}) or [])
            uses: list[TensorUse] = []
            for i, value in enumerate(values):
                name = names[i] if i < len(names) else f"output_{i}"
                how = next((b for b in bound if b.name == name), None)
                use = _use_of_value(name, "output", value, "bind_output")
                use.via = how.via if how is not None else "bound_before_watch"
                uses.append(use)
            return uses

        return self._record("run_with_iobinding", inputs, lambda: original(iobinding, *args, **kwargs), outputs_of,
                            bind_records=pending)

    # profile --------------------------------------------------------------------------------------------------------------

    def _read_profile(self) -> None:
        from ortcopy_doctor.analysis.profile import parse_profile, profile_names_raw

        obs = self.observations
        info: Optional[_Instrumentation] = getattr(self.session, _INFO_ATTR, None)
        try:
            from ortcopy_doctor.collect import ortlog

            start_ns = int(self.session.get_profiling_start_time_ns())
            with ortlog.capture_native_stderr():  # an instrumented session logs verbosely
                path = self.session.end_profiling()
            if info is not None:
                info.profile_ended = True
            import onnxruntime as ort

            from ortcopy_doctor.knowledge.model_file import walk_nodes

            # onnxruntime up to 1.30 writes node names unescaped: read as written where a name needs it
            graph = info.runtime_graph if info is not None else None
            names = None if graph is None else [node.name for _, node in walk_nodes(graph.graph)]
            runs, events = parse_profile(Path(path), 0, raw_names=profile_names_raw(ort.__version__, names))
        except Exception as exc:  # noqa: BLE001
            obs.profile_note = f"the profile could not be read ({type(exc).__name__}: {exc})"
            return
        for call in obs.calls:
            lo, hi = (call.start_ns - start_ns) / 1000.0, (call.end_ns - start_ns) / 1000.0
            mine = [r for r in runs if lo <= r.ts_us <= hi]
            if not mine:
                continue
            run_ids = {r.run for r in mine}
            memcpy = [ProfileMemcpy(e.name, e.op_type, e.output_bytes, e.dur_us) for e in events
                      if e.run in run_ids and e.op_type in ("MemcpyToHost", "MemcpyFromHost")]
            call.profile = CallProfile(run_dur_us=sum(r.dur_us for r in mine), memcpy_nodes=memcpy)
        with contextlib.suppress(OSError):
            os.unlink(path)


_MISSING = object()


class _Records(list):  # type: ignore[type-arg]
    """The records of one traced call; ``filled`` once the shared tracer has ended (``Watch._traced``); the call
    ran from ``start_ns`` to ``end_ns`` (``time.time_ns()``)."""

    filled = False
    start_ns = 0
    end_ns = 0


class _SharedTrace:
    """The one tracer of the traced calls that overlap it (``Watch._traced``), and their record lists."""

    def __init__(self, tracer: Any) -> None:
        self.tracer = tracer
        self.lists: list[_Records] = []
        self.watches: list[Watch] = []
        self.threads: set[int] = set()
        self.active = 0

    def _share(self, got: list[TransferRecord], clock_pairs: list[Any]) -> list[list[TransferRecord]]:
        """Each call's records: those issued while it ran (the API call's start where CUPTI gives it, else the
        copy's start, on ``time.time_ns()``'s clock through the tracer's clock pairs), so calls one after the other
        in a chain of overlapping ones do not get each other's. A record in no call's window (clock error) goes to
        the nearest. Without clock pairs (a tracer of another kind) every call gets every record."""
        if len(self.lists) == 1 or not clock_pairs:
            return [got for _ in self.lists]
        offset = clock_offset(clock_pairs)
        shares: list[list[TransferRecord]] = [[] for _ in self.lists]
        for r in got:
            at = (r.api_start_ns if r.api_start_ns is not None else r.start_ns) - offset
            inside = [i for i, call in enumerate(self.lists) if call.start_ns <= at <= call.end_ns]
            if not inside:
                inside = [min(range(len(self.lists)),
                              key=lambda i: max(self.lists[i].start_ns - at, at - self.lists[i].end_ns))]
            for i in inside:
                shares[i].append(r)
        return shares

    def join(self, records: _Records, watch: Watch) -> None:
        records.start_ns = time.time_ns()
        self.lists.append(records)
        if all(w is not watch for w in self.watches):
            self.watches.append(watch)
        self.threads.add(threading.get_ident())
        self.active += 1

    def leave(self, records: _Records) -> None:
        records.end_ns = time.time_ns()
        self.active -= 1

    def finish(self) -> None:
        try:
            self.tracer.__exit__(None, None, None)
        finally:
            census = getattr(self.tracer, "census", None)
            got = list(getattr(census, "records", None) or [])
            for records, mine in zip(self.lists, self._share(got, list(getattr(census, "clock_pairs", None) or []))):
                records.extend(mine)
                records.filled = True
            if len(self.threads) > 1:
                note = (f"calls from {len(self.threads)} threads overlapped while traced: CUPTI traces the whole "
                        "process, so a call's records include the transfers other threads made while it ran")
                for w in self.watches:
                    if note not in w.observations.notes:
                        w.observations.notes.append(note)


# The tracer shared by the traced calls running now (``Watch._traced``); one at a time per process, as CUPTI.
_trace_lock = threading.Lock()
_shared_trace: Optional[_SharedTrace] = None


def _provider_to_predict(name: Optional[str]) -> Optional[str]:
    """``predict_for`` as a provider's full name ("cuda" -> "CUDAExecutionProvider", as the command line takes
    it); "auto" and None as they are; ``UsageError`` for a name that is no provider."""
    if name is None or name == "auto":
        return name
    if not isinstance(name, str):
        raise UsageError(f"watch(predict_for={name!r}): give a provider name such as 'cuda' or "
                         "'CUDAExecutionProvider', 'auto' or None")
    full = ALIASES.get(name.strip().lower(), name.strip())
    if full not in KNOWN:
        raise UsageError(f"watch(predict_for={name!r}): unknown provider: use one of {', '.join(sorted(ALIASES))}, "
                         "a full name such as CUDAExecutionProvider, 'auto' or None")
    return full


def _inputs_mismatch(model: Any, session: Any) -> str:
    """Where ``model``'s inputs are not the session's (names and order, initializers left out): how, else ""."""
    try:
        initializers = {t.name for t in model.graph.initializer}
        declared = [v.name for v in model.graph.input if v.name not in initializers]
        actual = [i.name for i in session.get_inputs()]
    except Exception:  # noqa: BLE001 - not a ModelProto, or no inputs to read: nothing to compare
        return ""
    if declared == actual:
        return ""
    return f"its inputs are {declared[:5]}, the session's {actual[:5]}"


def _feed_uses(feed: Any) -> list[TensorUse]:
    """What each input of a feed dict is, read without changing the call: a feed that is no mapping (None, a
    list) is passed to ORT as it is, which raises its own error, and the call is recorded with it."""
    try:
        items = list(feed.items())
    except Exception:  # noqa: BLE001
        return []
    return [_use_of_value(k if isinstance(k, str) else repr(k), "input", v, "numpy") for k, v in items]


def _bind_wrapper(watcher: Watch, method: Callable[..., Any], original: Callable[..., Any], name: str,
                  saved: Any) -> Callable[..., Any]:
    def wrapper(*args: Any, **kwargs: Any) -> Any:
        if not watcher._active:  # ended while a later watch of the session that wraps it is still active
            return original(*args, **kwargs)
        return method(original, *args, **kwargs)

    wrapper.__name__ = name
    wrapper.__doc__ = getattr(original, "__doc__", None)
    wrapper.__wrapped__ = original  # type: ignore[attr-defined]
    wrapper._ortcopy_watch = watcher  # type: ignore[attr-defined]
    wrapper._ortcopy_saved = saved  # type: ignore[attr-defined]  # the instance attribute it replaced
    return wrapper


def watch(session: Any, *, census: bool | Callable[[], Any] = True, predict_for: Optional[str] = "auto",
          profile: bool = False, model: Any = None) -> Watch:
    """Watch every call of ``session`` (an ``onnxruntime.InferenceSession``) inside a ``with`` block.

    ``census``: trace each call with CUPTI where it can run (True), not at all (False), or with a factory returning
    a tracer (``census.CuptiTracer``'s contract: a context manager with ``.census.records`` afterwards).
    ``predict_for``: when no device provider is active, the provider whose placement ``report.predicted`` shows
    ("auto": the requested one for an ``instrumented_session``, else CUDA where this onnxruntime build has it;
    None: no prediction). ``profile``: on a profiling session (``instrumented_session``), end profiling when the
    block ends and read each call's Memcpy nodes from the profile. ``model``: the model (path or ModelProto) where
    the session was created from bytes.
    """
    return Watch(session, census=census, predict_for=predict_for, profile=profile, model=model)
