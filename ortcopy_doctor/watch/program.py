"""``ortcopy-doctor run -- python script.py args``: audit an unmodified program's sessions and pipelines.

The program runs as ``python`` runs it, in an interpreter of its own started with the program's own command line,
which records itself (watch/child.py) and writes its observations when it exits; this process passes on the signals
sent to it (watch/forwarding.py). Once the program imports onnxruntime, ``onnxruntime.InferenceSession.__init__``
is wrapped: each session the program creates is watched for its whole life by the recorder of
``ortcopy_doctor.watch.recorder`` (per call: how each value was given and delivered, and a CUPTI census of the call where CUPTI can trace), and this module records, per input, which
earlier output the value came from (``pipeline.ValueLink``). When the program ends (normally, by ``sys.exit``, by an
exception, whose traceback is the program's and is printed as Python would, or by Ctrl-C) the report is written
and the program's exit code is returned.

Value tracing, in order: the same object, a numpy view of it or any host array over the same buffer (the recorder
holds a reference to the outputs of the last ``KEEP_CALLS`` calls of each session, so an address cannot be reused
while it is looked up), the same OrtValue data pointer (IO binding outputs, ``bind_input(buffer_ptr=...)``), an
OrtValue output turned into numpy by the program (``OrtValue.numpy()``, ``IOBinding.copy_outputs_to_cpu``), and
equal bytes of host arrays (``HASH_LIMIT`` bytes at most per array; bigger arrays are hashed on a sample).
"""

from __future__ import annotations

import msgspec
import collections
import hashlib
import inspect
import os
import sys
import threading
import time
from collections.abc import Callable, Sequence
from msgspec import field
from pathlib import Path
from typing import Any, Optional

from ortcopy_doctor.model.pipeline import (
    HOW_DOWNLOAD,
    HOW_HASH,
    HOW_OBJECT,
    HOW_POINTER,
    HOW_VIEW,
    Download,
    PipelineCall,
    PipelineObservations,
    PipelineReport,
    SessionRecord,
    ValueInfo,
    ValueLink,
)
from ortcopy_doctor.report.pipeline import analyse_pipeline
from ortcopy_doctor.watch.recorder import _INFO_ATTR, Watch, _Instrumentation, _ortvalue_nbytes
from ortcopy_doctor.model.errors import EnvironmentProblem
from ortcopy_doctor.model.vocabulary import Ending, HandedAs, LinkHow, Role

KEEP_CALLS = 2
BINDING_METHODS = ("bind_cpu_input", "bind_input", "bind_ortvalue_input", "bind_output", "bind_ortvalue_output",
                   "clear_binding_inputs", "clear_binding_outputs", "copy_outputs_to_cpu")
HASH_LIMIT = 1 << 20
ASSIGNMENT_CONFIG = "session.record_ep_graph_assignment_info"


SITE_FRAMES = 12  # frames walked up from the recorder's wrapper to find the program's call site
# The program's inputs kept for the replay on the other provider after it ends (watch/replay.py): the first call at
# each of a session's first REPLAY_SIGNATURES input signatures, whose inputs are all numpy arrays, REPLAY_BYTES at most
# over the program.
REPLAY_SIGNATURES = 3
REPLAY_BYTES = 256 << 20
STACK_FRAMES = 24  # the program's frames kept above a call's site (PipelineCall.stack)


def _package_prefixes(module_file: str, up: int) -> tuple[str, ...]:
    """The folder ``up`` levels above ``module_file`` as a path prefix, as given and resolved."""
    folder = os.path.dirname(os.path.abspath(module_file))
    for _ in range(up - 1):
        folder = os.path.dirname(folder)
    return tuple(dict.fromkeys(p + os.sep for p in (folder, os.path.realpath(folder))))


class _Produced(msgspec.Struct):
    seq: int
    output: str
    obj: Any  # the object kept alive while it can be looked up
    root_id: int
    ptr: int
    nbytes: int
    host: bool
    digest: str
    device: str
    how: LinkHow = HOW_OBJECT  # HOW_DOWNLOAD for an array the program made from an OrtValue output
    alias: Optional[_Produced] = None  # the owner of a view ORT returned
    derived: list[_Produced] = field(default_factory=list)  # arrays downloaded from this OrtValue


def _config(so: Any, key: str) -> str:
    try:
        return str(so.get_session_config_entry(key))
    except Exception:  # noqa: BLE001 - not set
        return ""


def _threads(options: Any, name: str) -> int:
    """A thread setting of the program's session options (0: ORT's default, or not known)."""
    try:
        return int(getattr(options, name, 0) or 0)
    except (TypeError, ValueError):
        return 0


def _numpy() -> Any:
    import numpy as np

    return np


def _root(arr: Any) -> Any:
    """The object that owns a numpy array's memory (the array itself, or the base of a view)."""
    base = arr
    while getattr(base, "base", None) is not None:
        base = base.base
    return base


def _digest(arr: Any) -> str:
    np = _numpy()
    if arr.nbytes < 16 or arr.dtype == object:
        return ""
    try:
        if not arr.any():
            return ""  # all zeros: equal to too many unrelated arrays
        data = np.ascontiguousarray(arr)
        h = hashlib.blake2b(digest_size=16)
        h.update(f"{arr.dtype.str}{arr.shape}".encode())
        flat = data.reshape(-1).view(np.uint8)
        if flat.nbytes <= HASH_LIMIT:
            h.update(flat.tobytes())
        else:
            step = max(1, flat.nbytes // HASH_LIMIT)
            h.update(flat[::step].tobytes())
        return h.hexdigest()
    except Exception:  # noqa: BLE001 - a value we cannot hash is simply not traced by value
        return ""


class PipelineRecorder:
    """Install with ``install()``; every session created afterwards is watched until ``finish()``."""

    def __init__(self, *, census: bool = True, providers: Optional[list[str]] = None) -> None:
        self.census = census
        self.observations = PipelineObservations(census_requested=census)
        self._watches: list[Watch] = []
        self._lock = threading.RLock()
        self._local = threading.local()
        self._produced: dict[tuple[int, str], collections.deque[_Produced]] = {}
        self._by_root: dict[int, _Produced] = {}
        self._by_ptr: dict[int, _Produced] = {}
        self._by_digest: dict[str, _Produced] = {}
        self._bound: dict[int, tuple[Any, dict[str, tuple[Any, str, int]]]] = {}
        self._bind_time: dict[int, int] = {}  # ORT's time in bind_* calls per IOBinding since its last run (ns)
        self._saved: list[tuple[Any, str, Any]] = []
        self._labels: dict[str, int] = {}
        self._installed = False
        self._finished = False
        self._overhead_ns = 0  # the recorder's own time so far (see PipelineCall.overhead_start_ns)
        self._outer_bindings = False
        self.model_files: list[str] = []  # each session's model file, as an absolute path when it was loaded
        # Where the frames of ortcopy_doctor and onnxruntime come from: skipped when naming a call's site.
        self._internal_prefixes: tuple[str, ...] = _package_prefixes(__file__, 2)
        self._replay: dict[int, list[tuple[tuple[Any, ...], list[str], list[Any]]]] = {}  # session -> kept inputs
        self._replay_bytes = 0
        self._named_sites: set[tuple[int, str]] = set()  # (session, call site) whose names were looked up

    # patching ----------------------------------------------------------------------------------------------------

    def install(self) -> None:
        """Patch ``InferenceSession.__init__``, ``IOBinding``'s methods and ``OrtValue.numpy`` to record."""
        from ortcopy_doctor.collect.ortlog import import_onnxruntime

        ort = import_onnxruntime()  # before the program's own import: what ORT logs as it loads is captured
        self._internal_prefixes += _package_prefixes(ort.__file__, 1)

        self.observations.ort_version = ort.__version__
        self.observations.started_ns = time.time_ns()
        recorder = self
        cls = ort.InferenceSession
        original_init = cls.__init__
        signature = inspect.signature(original_init)

        def __init__(session: Any, *args: Any, **kwargs: Any) -> None:
            try:
                bound = signature.bind(session, *args, **kwargs)
                bound.apply_defaults()
                so = bound.arguments.get("sess_options")
                if so is None:
                    so = ort.SessionOptions()
                    bound.arguments["sess_options"] = so
                if _config(so, ASSIGNMENT_CONFIG) != "1":  # ORT warns when an entry is set twice
                    so.add_session_config_entry(ASSIGNMENT_CONFIG, "1")
                args, kwargs = bound.args[1:], bound.kwargs
                requested = bound.arguments.get("providers")
            except Exception:  # noqa: BLE001 - the program's own call will say what is wrong
                requested = None
            site = recorder._call_site()
            # What ORT says as it creates the session (a provider that fails to load, and its reason) goes into the
            # report, as check keeps it; where the creation fails, the program sees it as it would alone.
            from ortcopy_doctor.collect.ortlog import NativeCapture, capture_native_stderr, extract_facts, parse_lines

            captured = NativeCapture()
            try:
                if threading.active_count() > 1:  # the capture takes the process's stderr and sys.stdout: what the
                    original_init(session, *args, **kwargs)  # program's other threads print meanwhile is theirs
                else:
                    with capture_native_stderr() as captured:
                        original_init(session, *args, **kwargs)
            except BaseException:
                if captured.text:  # the creation failed: what ORT said is the program's to see, as alone
                    try:
                        sys.stderr.write(captured.text)
                        sys.stderr.flush()
                    except (OSError, ValueError, AttributeError):
                        pass
                raise
            failures = dict(extract_facts(parse_lines(captured.text)).ep_failures)
            if type(session).__init__ is __init__ or isinstance(session, cls):
                recorder._attach(session, requested, site=site, failures=failures, options=so,
                                 available=list(ort.get_available_providers()))

        self._patch(cls, "__init__", __init__)
        for name in BINDING_METHODS:
            original = ort.IOBinding.__dict__.get(name)
            if original is not None:
                self._patch(ort.IOBinding, name, self._binding_wrapper(name, original))
        numpy_method = ort.OrtValue.__dict__.get("numpy")
        if numpy_method is not None:
            def numpy(value: Any, *args: Any, **kwargs: Any) -> Any:
                result = numpy_method(value, *args, **kwargs)
                with recorder._lock:
                    recorder._on_download(value, result)
                return result

            self._patch(ort.OrtValue, "numpy", numpy)
        self._installed = True

    def _patch(self, owner: Any, name: str, replacement: Any) -> None:
        self._saved.append((owner, name, owner.__dict__[name]))
        setattr(owner, name, replacement)

    def uninstall(self) -> None:
        """End every session's watch and restore what ``install`` patched."""
        for watch in self._watches:
            try:
                watch.__exit__(None, None, None)
            except Exception as exc:  # noqa: BLE001
                self.observations.notes.append(f"a session's watch did not end cleanly: {exc}")
        for owner, name, original in reversed(self._saved):
            setattr(owner, name, original)
        self._saved = []
        self._installed = False

    def finish(self) -> PipelineObservations:
        """Stop recording (idempotent) and return the observations."""
        if not self._finished:
            self._finished = True
            self.uninstall()
            self.observations.ended_ns = time.time_ns()
            self.observations.libraries = [m for m in ("torch", "cupy") if m in sys.modules]
            self._produced.clear()
            self._by_root.clear()
            self._by_ptr.clear()
            self._by_digest.clear()
            self._bound.clear()
        return self.observations

    # sessions ----------------------------------------------------------------------------------------------------

    def _label(self, session: Any) -> tuple[str, str]:
        path = str(getattr(session, "_model_path", "") or "")
        base = Path(path).name if path else "session (from bytes)"
        n = self._labels.get(base, 0) + 1
        self._labels[base] = n
        return (base if n == 1 else f"{base}#{n}"), path

    def _attach(self, session: Any, requested: Any, *, site: str = "", failures: Optional[dict[str, str]] = None,
                available: Optional[list[str]] = None, options: Any = None) -> None:
        with self._lock:
            if self._finished or getattr(session, "_ortcopy_doctor_pipeline", None) is not None:
                return
            index = len(self.observations.sessions)
            label, path = self._label(session)
            if path:  # absolute now: the program may change the working directory later
                self.model_files.append(os.path.abspath(path))
            if getattr(session, _INFO_ATTR, None) is None:
                names = [p[0] if isinstance(p, (tuple, list)) else str(p) for p in (requested or [])]
                setattr(session, _INFO_ATTR, _Instrumentation(requested_providers=names, runtime_graph=None,
                                                              ep_failures=dict(failures or {}), profiling=False,
                                                              workdir=""))
            # Inner wrappers time the ORT call alone; the watch wraps them; the outer wrappers trace values.
            for name in ("run", "run_with_iobinding", "run_with_ort_values"):
                if hasattr(session, name):
                    setattr(session, name, self._inner(getattr(session, name), name))
            watch = Watch(session, census=self.census)
            try:
                watch.__enter__()
            except Exception as exc:  # noqa: BLE001 - never break the program: leave this session unwatched
                self.observations.notes.append(f"{label}: not watched ({type(exc).__name__}: {exc})")
                for name in ("run", "run_with_iobinding", "run_with_ort_values"):
                    session.__dict__.pop(name, None)
                return
            self._watches.append(watch)
            if not self._outer_bindings:
                self._time_bindings()
            self.observations.sessions.append(SessionRecord(label=label, model=path, observations=watch.observations,
                                                            created_at=site, available_providers=list(available or []),
                                                            provider_failures=dict(failures or {}),
                                                            intra_op_threads=_threads(options, "intra_op_num_threads"),
                                                            inter_op_threads=_threads(options, "inter_op_num_threads")))
            session._ortcopy_doctor_pipeline = index
            for name in ("run", "run_with_iobinding", "run_with_ort_values"):
                if hasattr(session, name):
                    setattr(session, name, self._outer(session, index, watch, getattr(session, name), name))

    def _inner(self, original: Callable[..., Any], name: str) -> Callable[..., Any]:
        local = self._local

        def inner(*args: Any, **kwargs: Any) -> Any:
            start = time.time_ns()
            try:
                return original(*args, **kwargs)
            finally:
                local.timing = (start, time.time_ns())

        inner.__name__ = name
        return inner

    def _outer(self, session: Any, index: int, watch: Watch, wrapped: Callable[..., Any], method: str) -> Callable[..., Any]:
        recorder = self

        def outer(*args: Any, **kwargs: Any) -> Any:
            wrap_start = time.time_ns()
            if recorder._finished:
                return wrapped(*args, **kwargs)
            stack = recorder._call_stack()
            site = stack[0] if stack else ""
            if (index, site) not in recorder._named_sites:
                recorder._name_site(session, index, site, method, args, kwargs)
            overhead_start = recorder._overhead_ns
            try:
                inputs, outputs_of = recorder._before(session, method, args, kwargs)
            except Exception as exc:  # noqa: BLE001 - the recorder never breaks the program's call
                inputs, outputs_of = [], None
                recorder.observations.notes.append(f"a call's inputs could not be traced ({type(exc).__name__}: {exc})")
            recorder._local.timing = None
            calls_before = len(watch.observations.calls)
            error = ""
            try:
                result = wrapped(*args, **kwargs)
            except BaseException as exc:
                error = f"{type(exc).__name__}: {str(exc).splitlines()[0] if str(exc) else ''}"[:300]
                result = None
                raise
            finally:
                recorder._after(index, watch, method, calls_before, inputs, outputs_of, result, error, wrap_start,
                                overhead_start, site, stack)
            return result

        outer.__name__ = method
        outer.__wrapped__ = wrapped  # type: ignore[attr-defined]
        return outer

    def _call_site(self) -> str:
        """``file:function:line`` of the program's code that called the session: the first frame above the
        recorder's wrapper that is neither ortcopy_doctor's nor onnxruntime's (a few frames at most); "" where none
        is within ``SITE_FRAMES``."""
        stack = self._call_stack(depth=3)  # 0: _call_stack, 1: here, 2: the wrapper, 3: its caller
        return stack[0] if stack else ""

    def _call_stack(self, depth: int = 2) -> list[str]:
        """The program's frames that led to a session call, innermost first: the call's site (the first frame
        above the recorder's wrapper that is neither ortcopy_doctor's nor onnxruntime's, within ``SITE_FRAMES``),
        then its callers, ``STACK_FRAMES`` at most. A package that wraps every session in one method (OCR
        packages do) gives each call the same site; the callers tell the calls apart (``PipelineCall.stack``)."""
        frame: Any = sys._getframe(depth)  # depth 2: the caller of the wrapper that called this
        for _ in range(SITE_FRAMES):
            if frame is None or not frame.f_code.co_filename.startswith(self._internal_prefixes):
                break
            frame = frame.f_back
        stack: list[str] = []
        while frame is not None and len(stack) < STACK_FRAMES:
            code = frame.f_code
            if not code.co_filename.startswith(self._internal_prefixes):
                stack.append(f"{code.co_filename}:{code.co_name}:{frame.f_lineno}")
            frame = frame.f_back
        return stack

    def _name_site(self, session: Any, index: int, site: str, method: str, args: tuple[Any, ...],
                   kwargs: dict[str, Any]) -> None:
        """Keep the names the program's code uses at this call site (watch/callsite.py) in the session's record:
        once per (session, site), so that a call costs one set lookup; never raises."""
        from ortcopy_doctor.watch.callsite import site_names  # ast and linecache load at a first call, not at start

        with self._lock:
            self._named_sites.add((index, site))
        frame: Any = sys._getframe(2)  # 0: here, 1: the wrapper, 2: its caller
        try:
            for _ in range(SITE_FRAMES):
                if frame is None or not frame.f_code.co_filename.startswith(self._internal_prefixes):
                    break
                frame = frame.f_back
            if frame is None or frame.f_code.co_filename.startswith(self._internal_prefixes):
                return
            session_name, inputs, outputs = site_names(frame, session, method, args, kwargs)
            with self._lock:
                record = self.observations.sessions[index]
                if session_name and session_name not in record.variables:
                    record.variables.append(session_name)
                for table, names in ((record.input_variables, inputs), (record.output_variables, outputs)):
                    for name, variable in names.items():
                        table.setdefault(name, variable)
        except Exception:  # noqa: BLE001 - names are an extra: never break the program's call
            pass
        finally:
            del frame

    # values ------------------------------------------------------------------------------------------------------

    def _describe(self, name: str, role: Role, value: Any) -> tuple[ValueInfo, Optional[_Produced]]:
        """What a value is, and (inputs) which produced output it is."""
        np = _numpy()
        if hasattr(value, "device_name") and hasattr(value, "data_ptr"):  # OrtValue
            try:
                device = value.device_name().lower()
                nbytes = _ortvalue_nbytes(value) if value.is_tensor() else None
                ptr = int(value.data_ptr()) if value.is_tensor() else 0
            except Exception:  # noqa: BLE001
                return ValueInfo(name, role, HandedAs.ORTVALUE, ""), None
            info = ValueInfo(name, role, HandedAs.ORTVALUE, device, nbytes)
            hit = self._by_ptr.get(ptr) if ptr else None
            if role == "input" and hit is not None:
                return info, hit
            return info, None
        module = type(value).__module__ or ""
        if module.startswith("torch"):
            try:
                device = str(value.device.type)
                nbytes = int(value.numel() * value.element_size())
                ptr = int(value.data_ptr())
            except Exception:  # noqa: BLE001
                return ValueInfo(name, role, HandedAs.OTHER, ""), None
            info = ValueInfo(name, role, HandedAs.TORCH_CPU if device == "cpu" else HandedAs.TORCH_CUDA, device, nbytes)
            return info, (self._by_ptr.get(ptr) or (self._in_host_range(ptr) if device == "cpu" else None))
        if isinstance(value, np.ndarray):
            info = ValueInfo(name, role, HandedAs.NUMPY, "cpu", int(value.nbytes))
            return info, None
        return ValueInfo(name, role, HandedAs.OTHER, "cpu"), None

    def _in_host_range(self, ptr: int) -> Optional[_Produced]:
        for produced in self._by_root.values():
            if produced.host and produced.ptr <= ptr < produced.ptr + max(produced.nbytes, 1):
                return produced
        return None

    def _link_numpy(self, arr: Any) -> Optional[ValueLink]:
        produced = self._by_root.get(id(arr))
        if produced is not None and produced.obj is arr:
            return ValueLink(produced.seq, produced.output, produced.how)
        root = _root(arr)
        produced = self._by_root.get(id(root))
        if produced is not None and produced.obj is root:
            return ValueLink(produced.seq, produced.output, HOW_DOWNLOAD if produced.how == HOW_DOWNLOAD else HOW_VIEW)
        try:
            ptr = int(arr.__array_interface__["data"][0])
        except Exception:  # noqa: BLE001
            ptr = 0
        produced = self._in_host_range(ptr) if ptr else None
        if produced is not None:
            return ValueLink(produced.seq, produced.output, HOW_DOWNLOAD if produced.how == HOW_DOWNLOAD else HOW_VIEW)
        digest = _digest(arr)
        produced = self._by_digest.get(digest) if digest else None
        if produced is not None:
            return ValueLink(produced.seq, produced.output, HOW_HASH)
        return None

    def _input_info(self, name: str, value: Any) -> ValueInfo:
        np = _numpy()
        info, hit = self._describe(name, Role.INPUT, value)
        if info.kind == "numpy":
            info.link = self._link_numpy(value)
        elif info.kind == "other" and not isinstance(value, (list, dict)):
            try:
                arr = np.asarray(value)
                info.bytes = int(arr.nbytes)
            except Exception:  # noqa: BLE001
                pass
        elif hit is not None:
            info.link = ValueLink(hit.seq, hit.output, HOW_POINTER if info.kind != "torch_cpu" else HOW_VIEW)
        return info

    def _register(self, seq: int, session: int, name: str, value: Any) -> ValueInfo:
        """Remember an output of call ``seq`` so later inputs can be traced to it."""
        info, _ = self._describe(name, Role.OUTPUT, value)
        produced: Optional[_Produced] = None
        if info.kind == "numpy":
            root = _root(value)
            try:
                ptr = int(value.__array_interface__["data"][0])
            except Exception:  # noqa: BLE001
                ptr = 0
            produced = _Produced(seq, name, value, id(value), ptr, int(value.nbytes), True, _digest(value), "cpu")
            extra_root = root if root is not value else None
        elif info.kind == "ortvalue":
            try:
                ptr = int(value.data_ptr()) if value.is_tensor() else 0
            except Exception:  # noqa: BLE001
                ptr = 0
            produced = _Produced(seq, name, value, id(value), ptr, info.bytes or 0, False, "", info.device)
            extra_root = None
        else:
            return info
        key = (session, name)
        queue = self._produced.setdefault(key, collections.deque())
        queue.append(produced)
        self._by_root[produced.root_id] = produced
        if info.kind == "numpy" and extra_root is not None and id(extra_root) not in self._by_root:
            # A view returned by ORT: its owner identifies the buffer too.
            alias = _Produced(seq, name, extra_root, id(extra_root), produced.ptr, produced.nbytes, True, "", "cpu")
            self._by_root[id(extra_root)] = alias
            produced.alias = alias
        if produced.ptr and not produced.host:
            self._by_ptr[produced.ptr] = produced
        if produced.digest:
            self._by_digest[produced.digest] = produced
        while len(queue) > KEEP_CALLS:
            self._forget(queue.popleft())
        return info

    def _forget(self, produced: _Produced) -> None:
        for table, key in ((self._by_root, produced.root_id), (self._by_ptr, produced.ptr)):
            if key and table.get(key) is produced:
                del table[key]
        if produced.digest and self._by_digest.get(produced.digest) is produced:
            del self._by_digest[produced.digest]
        alias = produced.alias
        if alias is not None and self._by_root.get(alias.root_id) is alias:
            del self._by_root[alias.root_id]
        for derived in produced.derived:
            self._forget(derived)

    def _on_download(self, value: Any, result: Any) -> None:
        """``OrtValue.numpy()`` of a produced OrtValue: the array comes from that output."""
        np = _numpy()
        if self._finished or not isinstance(result, np.ndarray):
            return
        try:
            ptr = int(value.data_ptr()) if value.is_tensor() else 0
        except Exception:  # noqa: BLE001
            return
        source = self._by_ptr.get(ptr) if ptr else None
        if source is None:
            return
        self._add_derived(source, result)

    def _add_derived(self, source: _Produced, arr: Any) -> None:
        try:
            ptr = int(arr.__array_interface__["data"][0])
        except Exception:  # noqa: BLE001
            ptr = 0
        derived = _Produced(source.seq, source.output, arr, id(arr), ptr, int(arr.nbytes), True, "", "cpu",
                            how=HOW_DOWNLOAD)
        self._by_root[id(arr)] = derived
        source.derived.append(derived)
        self.observations.downloads.append(Download(seq=source.seq, output=source.output, device=source.device,
                                                    bytes=int(arr.nbytes), at_ns=time.time_ns()))

    # bindings ----------------------------------------------------------------------------------------------------

    def _binding_wrapper(self, method: str, original: Callable[..., Any]) -> Callable[..., Any]:
        signature = inspect.signature(original)
        recorder = self

        def timed(binding: Any, *args: Any, **kwargs: Any) -> Any:
            start = time.time_ns()
            try:
                return original(binding, *args, **kwargs)
            finally:
                recorder._local.bind_ns = time.time_ns() - start

        def wrapper(binding: Any, *args: Any, **kwargs: Any) -> Any:
            if recorder._finished:
                return original(binding, *args, **kwargs)
            if method == "copy_outputs_to_cpu":
                try:
                    values = binding.get_outputs()
                except Exception:  # noqa: BLE001
                    values = []
                result = timed(binding, *args, **kwargs)
                with recorder._lock:
                    for value, arr in zip(values, result or []):
                        recorder._on_download(value, arr)
                return result
            result = timed(binding, *args, **kwargs)
            with recorder._lock:
                spent = getattr(recorder._local, "bind_ns", None) or 0
                recorder._bind_time[id(binding)] = recorder._bind_time.get(id(binding), 0) + spent
            if method not in ("bind_cpu_input", "bind_input", "bind_ortvalue_input", "clear_binding_inputs"):
                return result
            try:
                bound = signature.bind(binding, *args, **kwargs)
                bound.apply_defaults()
                a = bound.arguments
            except TypeError:
                return result
            with recorder._lock:
                entry = recorder._bound.get(id(binding))
                if entry is None or entry[0] is not binding:
                    entry = (binding, {})
                    recorder._bound[id(binding)] = entry
                table = entry[1]
                if method == "clear_binding_inputs":
                    table.clear()
                    return result
                name = str(a.get("name"))
                if method == "bind_cpu_input":
                    table[name] = (a.get("arr_on_cpu"), "", 0)
                elif method == "bind_ortvalue_input":
                    table[name] = (a.get("ortvalue"), "", 0)
                else:  # bind_input(buffer_ptr=...)
                    table[name] = (None, str(a.get("device_type", "")).lower(), int(a.get("buffer_ptr") or 0))
            return result

        wrapper.__name__ = method
        wrapper.__wrapped__ = original  # type: ignore[attr-defined]
        return wrapper

    def _bound_input(self, name: str, value: Any, device: str, ptr: int) -> ValueInfo:
        """What a bound input is at the time of a run: a bound object, or a raw pointer (``bind_input``)."""
        if value is not None:
            return self._input_info(name, value)
        host = device == "cpu"
        info = ValueInfo(name, Role.INPUT, HandedAs.HOST_POINTER if host else HandedAs.DEVICE_POINTER, device)
        hit = self._by_ptr.get(ptr) or (self._in_host_range(ptr) if host else None)
        if hit is not None:
            info.link = ValueLink(hit.seq, hit.output, HOW_POINTER)
        return info

    def _time_bindings(self) -> None:
        """Time the IOBinding methods from outside the watch's wrappers (installed by the first watch): what the
        watch and this recorder add around a bind_* call, CUPTI tracing included, is the recorder's time."""
        import onnxruntime as ort

        recorder = self
        self._outer_bindings = True
        for name in BINDING_METHODS:
            current = ort.IOBinding.__dict__.get(name)
            if current is None:
                continue

            def outer(binding: Any, *args: Any, _current: Any = current, **kwargs: Any) -> Any:
                start = time.time_ns()
                recorder._local.bind_ns = None
                try:
                    return _current(binding, *args, **kwargs)
                finally:
                    inner = getattr(recorder._local, "bind_ns", None)
                    if inner is not None and not recorder._finished:
                        recorder._overhead_ns += max(0, time.time_ns() - start - inner)

            outer.__name__ = name
            outer.__wrapped__ = current  # type: ignore[attr-defined]
            self._patch(ort.IOBinding, name, outer)

    # calls -------------------------------------------------------------------------------------------------------

    def _before(self, session: Any, method: str, args: tuple[Any, ...], kwargs: dict[str, Any]
                ) -> tuple[list[ValueInfo], Optional[Callable[[Any], list[tuple[str, Any]]]]]:
        with self._lock:
            if method == "run_with_iobinding":
                binding: Any = args[0] if args else kwargs.get("iobinding")  # an onnxruntime.IOBinding
                entry = self._bound.get(id(binding))
                bound = entry[1] if entry is not None and entry[0] is binding else {}
                # Resolved now, not when bound: a binding made once and run many times (state ping-pong between
                # two OrtValues) feeds, at each run, whatever its bound values hold by then.
                inputs = [self._bound_input(name, *spec) for name, spec in bound.items()]
                self._local.bind_ns_of_call = self._bind_time.pop(id(binding), 0)

                def outputs_of(_: Any) -> list[tuple[str, Any]]:
                    values = binding.get_outputs()
                    names = list(getattr(binding, "_bound_outputs", None) or [])
                    if len(names) != len(values):
                        names = [o.name for o in session.get_outputs()][:len(values)]
                    return list(zip(names, values))

                return inputs, outputs_of
            output_names = args[0] if args else kwargs.get("output_names")
            feed = args[1] if len(args) > 1 else kwargs.get("input_feed", kwargs.get("input_dict_ort_values", {}))
            inputs = [self._input_info(str(k), v) for k, v in dict(feed or {}).items()]
            if method == "run":
                self._keep_for_replay(session, dict(feed or {}))
            names = list(output_names) if output_names else [o.name for o in session.get_outputs()]

            def returned_outputs(result: Any) -> list[tuple[str, Any]]:
                return list(zip(names, result))

            return inputs, returned_outputs

    def _keep_for_replay(self, session: Any, feed: dict[Any, Any]) -> None:
        """Keep a copy of ``feed`` for the replay after the program (watch/replay.py) where it is the session's
        first call at a new input signature, within REPLAY_SIGNATURES and REPLAY_BYTES, and every input is numpy (or
        a list of numbers, which ORT converts)."""
        index = getattr(session, "_ortcopy_doctor_pipeline", None)
        if index is None or not feed:
            return
        np = _numpy()
        if not all(isinstance(v, (np.ndarray, list)) for v in feed.values()):
            return
        if any(isinstance(v, list) for v in feed.values()):  # ORT converts a list to the input's type: so does the replay
            try:
                feed = {k: v if isinstance(v, np.ndarray) else np.asarray(v) for k, v in feed.items()}
            except (ValueError, TypeError):
                return
            if any(v.dtype == object for v in feed.values()):
                return
        signature = tuple((str(k), v.dtype.str, v.shape) for k, v in feed.items())
        kept = self._replay.setdefault(index, [])
        if len(kept) >= REPLAY_SIGNATURES or any(k[0] == signature for k in kept):
            return
        nbytes = sum(int(v.nbytes) for v in feed.values())
        if self._replay_bytes + nbytes > REPLAY_BYTES:
            return
        self._replay_bytes += nbytes
        kept.append((signature, [str(k) for k in feed], [np.array(v, copy=True) for v in feed.values()]))

    def save_replay_inputs(self, prefix: str) -> None:
        """Write the kept inputs beside the observations: ``<prefix>-<session>-<k>.npz`` (arrays by position) and
        ``.json`` (their input names), for watch/replay.py in ``run``'s process."""
        import json

        np = _numpy()
        for index, kept in self._replay.items():
            for k, (_, names, arrays) in enumerate(kept):
                np.savez(f"{prefix}-{index}-{k}.npz", *arrays)
                with open(f"{prefix}-{index}-{k}.json", "w", encoding="utf-8") as f:
                    json.dump(names, f)
        self._replay.clear()

    def _after(self, index: int, watch: Watch, method: str, calls_before: int, inputs: list[ValueInfo],
               outputs_of: Optional[Callable[[Any], list[tuple[str, Any]]]], result: Any, error: str,
               wrap_start: int, overhead_start: int, site: str = "", stack: Optional[list[str]] = None) -> None:
        with self._lock:
            timing = getattr(self._local, "timing", None)
            calls = watch.observations.calls
            call_index = len(calls) - 1 if len(calls) > calls_before else -1
            seq = len(self.observations.calls)
            call = PipelineCall(seq=seq, session=index, call=call_index, method=method, inputs=inputs, error=error,
                                site=site, stack=list(stack or [])[1:])
            if timing is not None:
                call.start_ns, call.end_ns = timing
            elif call_index >= 0:
                call.start_ns, call.end_ns = calls[call_index].start_ns, calls[call_index].end_ns
            if not error and outputs_of is not None:
                try:
                    call.outputs = [self._register(seq, index, n, v) for n, v in outputs_of(result)]
                except Exception as exc:  # noqa: BLE001
                    self.observations.notes.append(f"call {seq}: outputs not traced ({type(exc).__name__}: {exc})")
            if method == "run_with_iobinding":
                call.bind_ns = getattr(self._local, "bind_ns_of_call", 0) or 0
                self._local.bind_ns_of_call = 0
            call.wrap_start_ns = wrap_start
            call.overhead_start_ns = overhead_start
            self.observations.calls.append(call)
            call.wrap_end_ns = time.time_ns()
            if timing is not None:
                self._overhead_ns += max(0, (call.wrap_end_ns - wrap_start) - (call.end_ns - call.start_ns))
            call.overhead_end_ns = self._overhead_ns


# --- running a program --------------------------------------------------------------------------------------------------


class Target(msgspec.Struct, frozen=True):
    """What to run: the words after ``python`` (``args``: its options, then the script, directory, zip file or
    ``-m module`` or ``-c code``, then the program's arguments), the program's name for the report (``script``,
    ``module``) and its ``sys.argv``."""

    script: Optional[str]
    module: Optional[str]
    argv: list[str]
    interpreter: Optional[str] = None  # another interpreter than this one
    args: list[str] = field(default_factory=list)


def _is_python(word: str) -> bool:
    name = Path(word).name.lower()
    return name.startswith("python") and (name[6:].replace(".", "").replace("w", "").isdigit() or name[6:] in ("", "3"))


# Python's options (``python --help``): those that take a value, those that make it ignore the PYTHONPATH or the
# ``site`` module through which `run` records (watch/child.py), and those that print something and exit.
_WITH_VALUE = "WX"
_NO_RECORDING = {"E": "ignores PYTHONPATH", "I": "isolates it from PYTHONPATH", "S": "skips the site module"}
_FLAGS = "bBdiOqPRsuvx"
_LONG_WITH_VALUE = ("--check-hash-based-pycs",)


def parse_command(command: Sequence[str]) -> Target:
    """``python [options] script|dir|zip|-m module|-c code args``, or the same without ``python``."""
    from ortcopy_doctor.model.errors import UsageError

    words = list(command)
    if not words:
        raise UsageError("give the program to run after --, e.g. `ortcopy-doctor run -- python serve.py`")
    interpreter = None
    if _is_python(words[0]) and not words[0].endswith(".py"):
        first = words.pop(0)
        if os.sep in first or first not in ("python", "python3", Path(sys.executable).name):
            resolved = os.path.realpath(first if os.sep in first else (_which(first) or first))
            if resolved != os.path.realpath(sys.executable):
                interpreter = first
    args = list(words)
    i, mode, value = 0, "", ""
    while i < len(words) and not mode:
        word = words[i]
        if word == "--" or word == "-" or not word.startswith("-"):
            i += word == "--"
            break
        i += 1
        if word.startswith("--"):
            name = word.partition("=")[0]
            if name in _LONG_WITH_VALUE:
                i += "=" not in word
                continue
            raise UsageError(f"python option {word!r} runs no program: give the script (or -m module) to run")
        letters = word[1:]
        for j, letter in enumerate(letters):
            if letter in _NO_RECORDING:
                raise UsageError(f"python option -{letter} {_NO_RECORDING[letter]}, through which `ortcopy-doctor "
                                 "run` records the program: run it without")
            if letter in _WITH_VALUE + "mc":
                if j + 1 == len(letters):
                    if i == len(words):
                        raise UsageError(f"python option -{letter} needs a value")
                    value, i = words[i], i + 1
                else:
                    value = letters[j + 1:]
                if letter in "mc":
                    mode = letter
                break
            if letter not in _FLAGS:
                raise UsageError(f"python option -{letter} is not supported by `ortcopy-doctor run`: give the "
                                 "script path (or -m module) after `python`")
    rest = words[i:]
    if mode == "m":
        return Target(None, value, [value] + rest, interpreter, args)
    if mode == "c":
        return Target(None, None, ["-c"] + rest, interpreter, args)
    if not rest:
        raise UsageError("give the script to run: `ortcopy-doctor run -- python script.py args`")
    script = rest[0]
    if script == "-":
        raise UsageError("a program read from stdin cannot be run: give the path of the Python script")
    path = Path(script)
    if path.is_dir():
        if not (path / "__main__.py").is_file():
            raise UsageError(f"{script}: is a directory without a __main__.py: give the path of the Python script to "
                             "run, or of a directory or zip file with a __main__.py")
    elif not path.is_file():
        what = "is not a regular file" if path.exists() else "no such file"
        raise UsageError(f"{script}: {what}: give the path of the Python script to run")
    return Target(script, None, rest, interpreter, args)


def _which(name: str) -> Optional[str]:
    import shutil

    return shutil.which(name)


class ProgramKilled(EnvironmentProblem):
    """The program's interpreter was ended by the signal ``signum`` before it wrote what it recorded."""

    def __init__(self, signum: int) -> None:
        super().__init__(f"the program was killed by {_signal_name(signum)} before it wrote what was recorded: no "
                         f"report (exit code {128 + signum})")
        self.signum = signum


def _signal_name(signum: int) -> str:
    import signal

    try:
        return signal.Signals(signum).name
    except ValueError:
        return f"signal {signum}"


def run_child(target: Target, census: bool, replay: bool = False,
              progress: Optional[Callable[[str], None]] = None) -> tuple[PipelineObservations, int, list[str]]:
    """Run the program in an interpreter of its own that records itself (watch/child.py): its observations, its
    exit code and its model files. The temporary folder the child writes to is removed on every way out: the
    child's exit, os._exit or death by a signal, and an error or a signal in this process."""
    import shutil
    import tempfile

    folder = tempfile.mkdtemp(prefix="ortcopy-doctor-run-")
    try:
        obs, code, models = _run_child_in(folder, target, census)
        obs.device_status = device_status(obs)
        if replay and obs.sessions:  # before the folder goes: the program's kept inputs are in it
            from ortcopy_doctor.watch.handover import REPLAY
            from ortcopy_doctor.watch.replay import replay_sessions

            obs.replays = replay_sessions(obs, os.path.join(folder, "observations.json") + REPLAY, progress)
        return obs, code, models
    finally:
        # Signals wait until the folder is gone: the program's signal was its own (passed on), so one that comes
        # now is this command's first, and its exception would cut the removal short.
        import signal

        held = signal.pthread_sigmask(signal.SIG_BLOCK, {signal.SIGINT, signal.SIGTERM, signal.SIGHUP})
        try:
            shutil.rmtree(folder, ignore_errors=True)
        finally:
            signal.pthread_sigmask(signal.SIG_SETMASK, held)


def _child_env(out: str, census: bool) -> dict[str, str]:
    """The program's environment, with what watch/child.py needs to record and then takes back."""
    from ortcopy_doctor.watch import handover as child

    added = [str(Path(__file__).resolve().parents[1] / "_bootstrap")]  # _bootstrap/sitecustomize.py
    env = dict(os.environ)
    env[child.OBSERVATIONS], env[child.CENSUS], env[child.PATHS] = out, "1" if census else "0", os.pathsep.join(added)
    if "PYTHONPATH" in env:
        env[child.PYTHONPATH] = env["PYTHONPATH"]
    env["PYTHONPATH"] = os.pathsep.join(added + ([env["PYTHONPATH"]] if env.get("PYTHONPATH") else []))
    return env


def _run_child_in(folder: str, target: Target, census: bool) -> tuple[PipelineObservations, int, list[str]]:
    import json
    import signal

    from ortcopy_doctor.watch.handover import MODELS, STARTED
    from ortcopy_doctor.watch.forwarding import call_forwarding
    from ortcopy_doctor.model.pipeline import load_pipeline_observations

    out = os.path.join(folder, "observations.json")
    interpreter = target.interpreter or sys.executable
    code = call_forwarding([interpreter, *target.args], env=_child_env(out, census))
    if not os.path.isfile(out):
        if code < 0:
            raise ProgramKilled(-code)
        if os.path.isfile(out + STARTED):
            raise EnvironmentProblem(f"the program ended (exit code {code}) without Python's exit handlers, which "
                                     "write what was recorded (os._exit?): end it with sys.exit()")
        raise EnvironmentProblem(f"{interpreter} ran the program (exit code {code}) but recorded nothing: it needs "
                                 "ortcopy-doctor's dependencies (numpy, onnx, onnxruntime) importable")
    killed = -code if code < 0 else 0
    if killed:
        code = 128 + killed  # killed by a signal after its exit handlers wrote (KeyboardInterrupt: SIGINT, 130)
    with open(out, encoding="utf-8") as f:
        data = json.load(f)
    if "sessions" in data:
        obs = load_pipeline_observations(data)
    else:  # the program never imported onnxruntime: how it ended, alone (watch/child.py)
        obs = PipelineObservations(census_requested=census, ended_by=data["ended_by"], error=data["error"])
    try:
        with open(out + MODELS, encoding="utf-8") as f:
            models = [str(m) for m in json.load(f)]
    except (OSError, ValueError, TypeError):
        models = [os.path.abspath(s.model) for s in obs.sessions if s.model]  # the child started in this folder
    if killed and killed != signal.SIGINT:  # ended by a signal that was not a Ctrl-C the program saw as one
        obs.ended_by, obs.error = Ending.SIGNAL, _signal_name(killed)
    return obs, code, models


def watch_program(target: Target, command: Sequence[str], *, census: bool = True, subprocess: bool = False,
                  replay: bool = False, progress: Optional[Callable[[str], None]] = None
                  ) -> tuple[PipelineReport, int, list[str]]:
    """Run ``target`` (``parse_command(command)``) with every session recorded: the report, the program's exit code
    and the model files its sessions loaded (absolute paths).

    The program runs as ``python`` runs it, in an interpreter of its own (watch/child.py); ``subprocess`` is
    accepted for the callers of earlier versions, which ran the program in this interpreter without it. ``replay``:
    each session's calls replayed afterwards on the provider it ran on and the other one (watch/replay.py), each
    step said to ``progress``."""
    del subprocess
    obs, code, models = run_child(target, census, replay, progress)
    obs.program = list(command)
    obs.exit_code = code
    return _checked(obs), code, models


def device_status(obs: PipelineObservations) -> dict[str, str]:
    """The device providers of the program's onnxruntime that a session ran without, not asking for them, each
    tried here on a one-node model: "" where it loads, else ORT's reason (``audit_providers`` says so only of one
    that loads: a build lists providers whose libraries may be missing)."""
    from ortcopy_doctor.knowledge.providers import CUDA, is_device

    wanted = sorted({p for r in obs.sessions if not any(is_device(a) for a in r.observations.active_providers)
                     and not any(is_device(q) for q in r.observations.requested_providers)
                     for p in r.available_providers if is_device(p) and p == CUDA})
    if not wanted:
        return {}
    from ortcopy_doctor.collect.environment import provider_loadable

    status: dict[str, str] = {}
    for provider in wanted:
        tried = provider_loadable(provider)
        status[provider] = "" if tried.loadable else (tried.reason or "it did not load")
    return status


def _checked(obs: PipelineObservations) -> PipelineReport:
    """The report of ``obs``, its hand-off code run next to plain run() first (watch/handoff_check.py): a block
    that raised or gave other outputs is not offered."""
    from ortcopy_doctor.watch.handoff_check import check_handoffs

    report = analyse_pipeline(obs)
    obs.code_checks = check_handoffs(report, obs)
    return analyse_pipeline(obs) if obs.code_checks else report


def run_program(command: Sequence[str], *, census: bool = True, subprocess: bool = False) -> tuple[PipelineReport, int]:
    """Run ``command`` (``python script.py args``) as Python runs it, with every session recorded; the report and
    its exit code (``subprocess``: see ``watch_program``)."""
    report, code, _ = watch_program(parse_command(command), command, census=census, subprocess=subprocess)
    return report, code


def command_files(command: Sequence[str]) -> list[str]:
    """The existing regular files ``command`` names, as a word or as the value of ``--option=FILE``: the script, the
    models and the data it is given, which ``ortcopy-doctor run`` never writes over."""
    found: list[str] = []
    for word in command:
        for candidate in (word, word.partition("=")[2]) if "=" in word else (word,):
            if candidate and candidate not in found and os.path.isfile(candidate):
                found.append(candidate)
    return found


FAIL_ON = ("never", "round-trip", "host-transfer")


__all__ = ["FAIL_ON", "PipelineRecorder", "ProgramKilled", "Target", "command_files", "parse_command",
           "run_program", "watch_program"]
