"""ONNX's protobuf classes and model reading without ``import onnx``.

``import onnx`` takes 45-60 ms of a 0.3-0.35 s `check` of a small model on the 2-CPU build machine (its C++ checker
and shape inference, its numpy helpers, ml_dtypes, importlib.metadata; docs/benchmarks.md, issue 15), and a measured
check needs none of it: it reads the model's protobuf and walks the messages. That takes only the module protoc
generated, ``onnx/onnx_ml_pb2.py``, and google.protobuf (~15 ms). ``protos()`` loads that file from the installed
onnx package under a private name, without running onnx's ``__init__``.

The classes are onnx's own: protobuf registers ``onnx/onnx-ml.proto`` once in its default descriptor pool and
gives every module that declares it the same message classes, so a model read here is an ``onnx.ModelProto`` to
onnx imported later (shape inference, the checker). tests/knowledge/test_onnx_proto.py checks this for the
protobuf implementation installed (upb) and for the pure-Python one. Where onnx is already imported, or the file
is missing, is not the one onnx's ``onnx_pb`` uses (an onnx built without ONNX_ML) or fails to load (a protobuf that
refuses it), ``protos()`` is onnx.
"""

from __future__ import annotations

import importlib.util
import os
import sys
from collections.abc import Callable
from pathlib import Path
from types import ModuleType
from typing import TYPE_CHECKING, Any

from ortcopy_doctor.knowledge.installed import distribution_version, package_folders

if TYPE_CHECKING:
    import onnx

# Set once: the generated module (or onnx itself, see the module docstring).
_protos: ModuleType | None = None
_PRIVATE_NAME = "ortcopy_doctor._onnx_ml_pb2"

# The extensions onnx.load reads as a text format (onnx.serialization's registry in onnx 1.23; older onnx knows
# fewer): a file with one of them is read by onnx itself, as before. Any other path is binary protobuf to
# onnx.load, and to ``read_model``.
TEXT_FORMAT_SUFFIXES = frozenset({".txtpb", ".textproto", ".prototxt", ".pbtxt", ".json", ".onnxjson", ".onnxtxt",
                                  ".onnxtext"})


def protos() -> Any:
    """A module with ONNX's message classes (``ModelProto``, ``TensorProto``, ...): onnx's generated protobuf
    module, loaded without onnx's package, or onnx itself (module docstring)."""
    global _protos
    if _protos is None:
        _protos = _onnx_imported("ModelProto") or _load_generated() or _import_onnx()
    return _protos


def _onnx_imported(name: str) -> ModuleType | None:
    """onnx, where it is imported and has ``name`` (not a module another thread is still importing)."""
    module = sys.modules.get("onnx")
    return module if module is not None and hasattr(module, name) else None


def _import_onnx() -> ModuleType:
    import onnx

    return onnx


def _load_generated() -> ModuleType | None:
    for folder in package_folders("onnx"):  # found without running onnx's __init__
        path = os.path.join(folder, "onnx_ml_pb2.py")
        if os.path.isfile(path) and _onnx_uses_it(folder):
            break
    else:
        return None
    file_spec = importlib.util.spec_from_file_location(_PRIVATE_NAME, path)
    if file_spec is None or file_spec.loader is None:
        return None
    module = importlib.util.module_from_spec(file_spec)
    try:
        file_spec.loader.exec_module(module)
        module.ModelProto  # noqa: B018 - the classes are there
    except Exception:  # noqa: BLE001 - any failure: onnx's own import (which raises what is really wrong)
        return None
    return module


def _onnx_uses_it(folder: str) -> bool:
    """Whether onnx's own ``onnx_pb`` takes its classes from ``onnx_ml_pb2`` (every onnx wheel: built with
    ONNX_ML). Loading the other file of a build without it would declare the same messages twice."""
    try:
        with open(os.path.join(folder, "onnx_pb.py"), encoding="utf-8") as f:
            return "from .onnx_ml_pb2 import" in f.read()
    except (OSError, UnicodeDecodeError):
        return False


def onnx_version() -> str:
    """``onnx.__version__`` without importing onnx (nor importlib.metadata, ~15 ms with the email package it
    loads): the version in the METADATA of the onnx (or onnx-weekly) distribution installed beside the package,
    which is what onnx's ``__init__`` reads through importlib.metadata; importlib.metadata where that is not found."""
    onnx_module = _onnx_imported("__version__")
    if onnx_module is not None:
        return str(onnx_module.__version__)
    found = distribution_version("onnx", ("onnx", "onnx-weekly"))
    return found[1] if found is not None else "unknown"


def read_model(path: Path | str) -> onnx.ModelProto:
    """``onnx.load(path, load_external_data=False)``: the same message, and the same exceptions for a file that
    is not a model (protobuf's ``DecodeError``), without importing onnx for a binary model file."""
    return model_reader(path)()


def model_reader(path: Path | str) -> Callable[[], onnx.ModelProto]:
    """``read_model(path)`` as a function to call, with the classes it needs loaded now: a broken onnx or protobuf
    install raises here, with its own error, so that a caller can tell it apart from a file that is not a model
    (which raises when the function is called)."""
    path = Path(path)
    if os.path.splitext(path)[1] in TEXT_FORMAT_SUFFIXES:
        import onnx

        return lambda: onnx.load(str(path), load_external_data=False)
    model_class = protos().ModelProto
    from google.protobuf.message import DecodeError

    def read() -> onnx.ModelProto:
        with open(path, "rb") as f:
            content = f.read()
        model: onnx.ModelProto = model_class()
        decoded = model.ParseFromString(content)
        if decoded is not None and decoded != len(content):  # what onnx's protobuf serializer checks too
            raise DecodeError(f"Protobuf decoding consumed too few bytes: {decoded} out of {len(content)}")
        return model

    return read
