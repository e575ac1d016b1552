"""The program's own interpreter under ``ortcopy-doctor run``: it records itself and leaves the program as
``python PROGRAM`` would have it.

``run`` starts ``python`` with the program's own command line (options, script, directory, zip file or ``-m``
module, arguments), so Python itself sets ``__file__``, ``sys.argv``, ``sys.path[0]``, ``__main__``, the signal
dispositions and ``sys.excepthook``. Only Python's start-up hook runs first: ``_bootstrap/sitecustomize.py`` (found
through ``PYTHONPATH``) calls ``start`` here, which

* takes back what ``run`` changed to get there: its entries of ``sys.path``, ``PYTHONPATH`` as it was, and every
  ``ORTCOPY_DOCTOR_RUN_*`` variable; a ``sitecustomize`` of the program's environment is then imported as Python
  would have imported it;
* installs the recorder (watch/program.py, ``PipelineRecorder``) once the program imports onnxruntime itself, not
  before: importing it here would change the program (a child it forks after importing onnxruntime waits at its
  exit for threads that stayed in the parent);
* registers the one exit handler that writes the observations. It is registered before the program runs, so it runs
  after the program's own exit handlers, and Python calls exit handlers after it has joined the program's
  non-daemon threads: the sessions of both are in the report. A child the program forks (``os.fork``) runs its
  exit handlers as Python runs them, but this one does nothing there.

How the program ended is read as Python left it: an uncaught exception is in ``sys.last_type`` (Python sets it as
it prints the traceback, with the program's own ``sys.excepthook``), a Ctrl-C is a ``KeyboardInterrupt`` there.
"""

from __future__ import annotations

import atexit
import importlib.abc
import importlib.util
import json
import os
import signal
import sys
from collections.abc import Callable
from typing import Any, Optional

from ortcopy_doctor.watch.handover import CENSUS, MODELS, OBSERVATIONS, PATHS, PREFIX, PYTHONPATH, REPLAY, STARTED

HELD = (signal.SIGINT, signal.SIGTERM, signal.SIGHUP)  # held while the observations are written at exit


def restore_environment() -> tuple[str, bool]:
    """Take back what the parent changed (module docstring): the observations file to write ("" where this is not
    a child of ``run``) and whether to take a census."""
    path = os.environ.get(OBSERVATIONS, "")
    census = os.environ.get(CENSUS, "1") != "0"
    added = [p for p in os.environ.get(PATHS, "").split(os.pathsep) if p]
    if PATHS in os.environ:
        if PYTHONPATH in os.environ:
            os.environ["PYTHONPATH"] = os.environ[PYTHONPATH]
        else:
            os.environ.pop("PYTHONPATH", None)
    for name in [name for name in os.environ if name.startswith(PREFIX)]:
        del os.environ[name]
    for entry in added:  # the first occurrence of each: the same folder on the program's own PYTHONPATH stays
        if entry in sys.path:
            sys.path.remove(entry)
    return path, census


def import_own_sitecustomize(bootstrap: str) -> None:
    """Import the ``sitecustomize`` the program's environment has (Debian's, a virtualenv's), as Python would have
    imported it in place of ``_bootstrap/sitecustomize.py`` (``bootstrap``, already off ``sys.path``)."""
    ours = sys.modules.pop("sitecustomize", None)
    try:
        spec = importlib.util.find_spec("sitecustomize")
    except (ImportError, ValueError):
        spec = None
    if spec is None or spec.origin is None or os.path.dirname(os.path.abspath(spec.origin)) == bootstrap:
        if ours is not None:
            sys.modules["sitecustomize"] = ours
        return
    import sitecustomize  # type: ignore[import-not-found]  # noqa: F401 - the environment's own, errors as site prints them


class _AfterImport(importlib.abc.MetaPathFinder):
    """Calls ``then()`` once the module ``name`` has been imported by the program, its loading wrapped in
    ``around`` (a context manager factory). The finder stays first in ``sys.meta_path`` until the module is
    loaded: a lookup alone (``importlib.util.find_spec("onnxruntime")``, as torch.onnx asks whether onnxruntime is
    installed) loads nothing, and the import that follows must still be seen."""

    def __init__(self, name: str, then: Callable[[], None], around: Callable[[], Any]) -> None:
        self.name, self.then, self.around = name, then, around
        self._looking = False

    def find_spec(self, fullname: str, path: Any = None, target: Any = None) -> Optional[importlib.machinery.ModuleSpec]:
        if fullname != self.name or self._looking:
            return None
        self._looking = True
        try:
            found = importlib.util.find_spec(fullname)  # what the finders after this one find
        finally:
            self._looking = False
        if found is None or found.loader is None or not hasattr(found.loader, "exec_module"):
            return found
        spec, original, finder = found, found.loader, self

        class Loader(importlib.abc.Loader):
            def create_module(self, spec: Any) -> Any:
                return original.create_module(spec)

            def exec_module(self, module: Any) -> None:
                spec.loader = module.__loader__ = original  # the module's own loader, as if we were not there
                if finder in sys.meta_path:
                    sys.meta_path.remove(finder)
                try:
                    with finder.around():
                        original.exec_module(module)
                except BaseException:
                    sys.meta_path.insert(0, finder)  # not loaded: the program may try again
                    raise
                finder.then()

        spec.loader = Loader()
        return spec


def start(path: str, census: bool) -> None:
    """Record the program's sessions from here on and write them to ``path`` as the process exits. Nothing of
    ortcopy-doctor's recorder, numpy or onnxruntime is imported before the program imports onnxruntime."""
    me = os.getpid()
    recorders: list[Any] = []
    jsonable: list[Callable[[Any], Any]] = []

    def install() -> None:
        from ortcopy_doctor.model.codec import to_builtins
        from ortcopy_doctor.watch.program import PipelineRecorder

        jsonable.append(to_builtins)
        recorder = PipelineRecorder(census=census)
        recorders.append(recorder)
        try:
            recorder.install()
        except Exception as exc:  # noqa: BLE001 - the program runs on, unrecorded; the report says why
            recorder.observations.notes.append(f"not recorded: {type(exc).__name__}: {exc}")

    def captured() -> Any:
        from ortcopy_doctor.collect.ortlog import import_captured

        return import_captured()

    def write() -> None:
        # Nothing is imported here: a module that runs code from a string as it loads (a dataclass, a namedtuple)
        # would clear CPython 3.11's record of an uncaught KeyboardInterrupt, and the program would exit 1 where
        # it exits by SIGINT alone (130). So the recorder's modules come with onnxruntime (``install``), and a
        # program that never imported it gets the ending alone.
        if os.getpid() != me:  # a child the program forked: it ends as Python ends it, with no report
            return
        # A signal now (a second Ctrl-C) waits until the observations are written, then acts as it would have.
        came: list[int] = []
        saved: dict[int, Any] = {}
        for signum in HELD:
            handler = signal.getsignal(signum)
            if handler is not signal.SIG_IGN and handler is not None:
                saved[signum] = handler
                signal.signal(signum, lambda number, _frame: came.append(number))
        try:
            _write()
        finally:
            for number, handler in saved.items():
                signal.signal(number, handler)
            for number in came:
                signal.raise_signal(number)

    def _write() -> None:
        ending = {"ended_by": "exit", "error": ""}
        kind, value = getattr(sys, "last_type", None), getattr(sys, "last_value", None)
        if kind is not None and not issubclass(kind, SystemExit):
            ending["ended_by"] = "interrupt" if issubclass(kind, KeyboardInterrupt) else "exception"
            ending["error"] = f"{kind.__name__}: {str(value).splitlines()[0] if str(value) else ''}"[:300]
        data: dict[str, Any] = ending
        if recorders:
            obs = recorders[0].finish()
            obs.ended_by, obs.error = ending["ended_by"], ending["error"]
            data = jsonable[0](obs)
        with open(path + MODELS, "w", encoding="utf-8") as f:
            json.dump(recorders[0].model_files if recorders else [], f)
        if recorders:
            try:
                recorders[0].save_replay_inputs(path + REPLAY)
            except Exception:  # noqa: BLE001 - a full disk costs the replay, not the observations
                pass
        tmp = path + ".tmp"
        with open(tmp, "w", encoding="utf-8") as f:
            json.dump(data, f)
        os.replace(tmp, path)

    atexit.register(write)
    if "onnxruntime" in sys.modules:
        install()
    else:
        sys.meta_path.insert(0, _AfterImport("onnxruntime", install, captured))
    try:
        with open(path + STARTED, "w", encoding="utf-8"):
            pass
    except OSError:  # only the parent's message for a program that ends without writing is less precise
        pass


__all__ = ["import_own_sitecustomize", "restore_environment", "start"]
