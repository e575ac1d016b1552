"""One lazy import: ``lazy_import(name)`` hands out a module that runs on its first attribute read.

Built on ``importlib.util.LazyLoader`` as the Python documentation shows it (``importlib`` docs, "Implementing lazy
imports"). The command line and the renderers' registry keep module-level handles (``_html =
lazy_import("ortcopy_doctor.render.html")``, then ``_html.render_html(...)`` where it is used), so that ``--help``
and ``check -q`` load no module a command may not need (tests/project/test_startup.py), without an import inside
each function that uses one.

Caveats:

- The module runs on the first read of any attribute of it (``_html.render_html``), not where ``lazy_import`` is
  called. Until then it is in ``sys.modules`` without having run: whether a module was loaded is ``loaded(name)``,
  not ``name in sys.modules`` (code that asks the latter, as collect/ortlog.py and watch/ do of onnxruntime, would
  be misled: hand out only modules nobody asks that of).
- ``from X import y`` cannot be lazy: it reads ``y`` at once, so ``X`` runs then. Read the attribute where it is
  used (``_html.render_html``).
- A module's parent package is imported at once (``find_spec`` needs its ``__path__``): a submodule is lazy only
  where its package's ``__init__`` is light, or loaded anyway (not ``ortcopy_doctor.report``, whose ``__init__``
  imports ``report.core``; not ``rich.console``: ``rich`` would load).
- Only modules whose loader runs Python source (or byte code) can wait: an extension module is created at once.
- An error the module raises when it runs (an ``ImportError`` of a missing optional dependency) comes at the first
  attribute read, and on Python < 3.12 leaves the half-run module in ``sys.modules``: an optional dependency stays
  a ``try: import ...`` where it is used.
- The first attribute read may be another module's plain ``import`` of the same name (onnx's ``__init__`` imports
  importlib.metadata): the import statement reads the handle's ``__spec__`` from C, and CPython 3.10 to 3.12 drop
  what that read raised, so an exception of the module's first run there is lost (a signal's is put off:
  cli/interrupts.py, ``_in_lazy_module_load``).
- On Python < 3.12 the first attribute read is not guarded by a lock: two threads reading the first attribute of
  the same handle at once may both run the module. The command's handles are read on its main thread.

The lowest layer (``model/``): it imports only the standard library. Which modules may hand out which (the layers
of ``.importlinter``, which cannot see these strings) is checked by tests/project/test_lazy_imports.py.
"""

from __future__ import annotations

import importlib.util
import sys
import types


def lazy_import(name: str) -> types.ModuleType:
    """The module ``name`` (absolute: ``"ortcopy_doctor.render.html"``), which runs on the first read of one of its
    attributes; the module itself where it is in ``sys.modules`` already (loaded, or handed out before).

    Its parent package is imported now and names the module (``ortcopy_doctor.render.html`` resolves), as an
    import would; a module that does not exist raises ``ModuleNotFoundError`` now."""
    found = sys.modules.get(name)
    if found is not None:
        return found
    spec = importlib.util.find_spec(name)
    if spec is None or spec.loader is None:
        raise ModuleNotFoundError(f"No module named {name!r}", name=name)
    loader = importlib.util.LazyLoader(spec.loader)
    spec.loader = loader
    module = importlib.util.module_from_spec(spec)
    sys.modules[name] = module
    loader.exec_module(module)
    _WAITING.add(type(module))  # the class of a handle not run yet (the module's class becomes its own once it runs)
    parent, _, child = name.rpartition(".")
    if parent:
        setattr(sys.modules[parent], child, module)
    return module


def loaded(name: str) -> bool:
    """Whether the module ``name`` has run: it is in ``sys.modules``, and not a ``lazy_import`` handle still
    waiting for its first attribute read. Reading the module's class does not load it."""
    module = sys.modules.get(name)
    return module is not None and type(module) not in _WAITING


# The classes handles have before they run, as lazy_import saw them (importlib's own, read from the handles rather
# than imported by a private name).
_WAITING: set[type] = set()

__all__ = ["lazy_import", "loaded"]
