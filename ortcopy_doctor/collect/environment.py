"""What this machine offers ONNX Runtime: version and build, providers, GPUs, CUDA/cuDNN libraries."""

from __future__ import annotations

import msgspec
import ctypes
import glob
import os
import platform
import shutil
import subprocess
import sys
from msgspec import field
from typing import TYPE_CHECKING

import numpy as np

from ortcopy_doctor.collect.ortlog import capture_native_stderr, extract_facts, import_onnxruntime, parse_lines
from ortcopy_doctor.knowledge.installed import distribution_version
from ortcopy_doctor.knowledge.providers import CPU
from ortcopy_doctor.model.evidence import Environment
from ortcopy_doctor.model.lazy import lazy_import

if TYPE_CHECKING:
    from importlib import metadata
else:  # run on first use (model/lazy.py): ~10 ms on the 2-CPU machine; a check loads it as its session is made
    metadata = lazy_import("importlib.metadata")


ORT_DISTRIBUTIONS = ("onnxruntime-gpu", "onnxruntime", "onnxruntime-directml", "onnxruntime-openvino",
                     "onnxruntime-training")


def installed_ort_distributions() -> list[str]:
    """Every installed distribution that ships the ``onnxruntime`` module, as "name version"."""
    found = []
    for dist in ORT_DISTRIBUTIONS:
        try:
            found.append(f"{dist} {metadata.version(dist)}")
        except metadata.PackageNotFoundError:
            continue
    return found


def onnx_version() -> str:
    """``onnx.__version__`` (a check has imported onnx to read the model); "unknown" where onnx is not importable."""
    try:
        import onnx  # here, not a lazy_import: an onnx that cannot be imported is "unknown", not an error later
    except ImportError:
        return "unknown"
    return str(onnx.__version__)


def ort_conflict_warning(installed: list[str]) -> str | None:
    """Two distributions of the ``onnxruntime`` module overwrite each other's files: which one runs depends on
    the order they were installed in, silently (e.g. onnxruntime installed after onnxruntime-gpu has no CUDA EP)."""
    if len(installed) < 2:
        return None
    names = " ".join(item.split(" ")[0] for item in installed)
    both = "both" if len(installed) == 2 else "all"
    return (f"{' and '.join(installed)} are {both} installed: they ship the same `onnxruntime` module, so which one "
            f"is imported depends on install order; keep one: `pip uninstall -y {names}` then "
            "`pip install onnxruntime-gpu` (or the one you need)")


def ort_package() -> str:
    """Which distribution provides the ``onnxruntime`` module (onnxruntime-gpu, onnxruntime, ...), as "name version".

    Read from the module's own build record (``onnxruntime.capi.build_and_package_info``: the package it was built
    as, and its version), which names the files actually imported, without loading importlib.metadata (~15 ms of a
    small check on the 2-CPU machine). Where a build has no such record (onnxruntime-gpu 1.20), the first of
    ``ORT_DISTRIBUTIONS`` installed beside the module (``knowledge.installed``), else importlib.metadata's."""
    try:
        # here, not at the top: onnxruntime is imported by import_onnxruntime (its log captured), before this runs
        from onnxruntime.capi import build_and_package_info as built
    except ImportError:
        built = None
    name, version = getattr(built, "package_name", None), getattr(built, "__version__", None)
    if isinstance(name, str) and name and isinstance(version, str) and version:
        return f"{name} {version}"
    found = distribution_version("onnxruntime", ORT_DISTRIBUTIONS)
    return f"{found[0]} {found[1]}" if found is not None else "unknown"


GPU_LISTING_TIMEOUT_S = 10.0


class GpuListing:
    """``nvidia-smi -L`` started now, in the background, where nvidia-smi is installed; ``result()`` waits for it.

    It takes 25-30 ms on the H200 machine, 6-8% of a small CPU ``check`` there when it ran in line; a check starts
    it first and reads it once its session exists, before any run (so it competes with no run it measures). Use
    it as a context manager, or call ``close()``: a listing not read by then is stopped."""

    def __init__(self) -> None:
        self._listed: list[str] | None = None
        self._process: subprocess.Popen[str] | None = None
        exe = shutil.which("nvidia-smi")
        if not exe:
            self._listed = []
            return
        try:
            self._process = subprocess.Popen([exe, "-L"], stdin=subprocess.DEVNULL, stdout=subprocess.PIPE,
                                             stderr=subprocess.DEVNULL, text=True)
        except OSError:
            self._listed = []

    def result(self, timeout: float = GPU_LISTING_TIMEOUT_S) -> list[str]:
        """The GPUs nvidia-smi listed; empty where there is none, no driver, or it failed or took over ``timeout``
        seconds."""
        if self._listed is None:
            out = ""
            try:
                out = self._wait(timeout)
            finally:
                self.close()
            self._listed = [line.split(" (UUID")[0].strip() for line in out.splitlines() if line.startswith("GPU ")]
        return list(self._listed)

    def _wait(self, timeout: float) -> str:
        assert self._process is not None
        try:
            out, _ = self._process.communicate(timeout=timeout)
        except (OSError, ValueError, subprocess.TimeoutExpired):
            return ""
        return out or ""

    def close(self) -> None:
        """Stop the listing if it still runs, and reap it."""
        process, self._process = self._process, None
        if process is None:
            return
        if process.poll() is None:
            process.kill()
        try:  # reaps it and closes its pipe (after result() read it: only waits)
            process.communicate(timeout=GPU_LISTING_TIMEOUT_S)
        except (OSError, ValueError, subprocess.TimeoutExpired):
            pass
        if self._listed is None:
            self._listed = []

    def __enter__(self) -> GpuListing:
        return self

    def __exit__(self, *_: object) -> None:
        self.close()


def gpus() -> list[str]:
    """GPUs listed by nvidia-smi; empty where there is none or no driver."""
    return GpuListing().result()


def platform_name() -> str:
    """``platform.platform()``, without the child process it starts on Linux: there it runs ``uname -p`` for the
    processor name (~9 ms of every ``check``, issue 15 goal c), which it leaves out where it equals the machine or
    is ``unknown``, as GNU ``uname -p`` gives on Linux. Other systems get ``platform.platform()`` itself."""
    if sys.platform != "linux":
        return platform.platform()
    uname = os.uname()
    libc, version = platform.libc_ver()
    text = "-".join(part.strip() for part in (uname.sysname, uname.release, uname.machine, "with", libc + version)
                    if part)
    for obstacle in ' /\\:;"()':  # platform.platform()'s clean-up of characters that trouble a file name
        text = text.replace(obstacle, "_" if obstacle == " " else "-")
    text = text.replace("unknown", "")
    while "--" in text:
        text = text.replace("--", "-")
    return text.rstrip("-")


def collect_environment(listing: GpuListing | None = None) -> Environment:
    """Versions (onnxruntime, its build and package, onnx, numpy, Python), platform, ORT's available providers
    and the GPUs nvidia-smi lists (``listing``: started earlier, read now)."""
    ort = import_onnxruntime()  # what ORT logs as it loads is captured

    build = ""
    if hasattr(ort, "get_build_info"):
        try:
            build = str(ort.get_build_info()).strip()
        except Exception:  # noqa: BLE001 - informational only
            build = ""
    return Environment(
        ort_has_from_dlpack=hasattr(ort.OrtValue, "from_dlpack"),
        ort_version=ort.__version__,
        ort_build=build,
        ort_package=ort_package(),
        onnx_version=onnx_version(),
        numpy_version=np.__version__,
        python=sys.version.split()[0],
        platform=platform_name(),
        available_providers=list(ort.get_available_providers()),
        gpus=listing.result() if listing is not None else gpus(),
    )


# The libraries the CUDA EP of onnxruntime-gpu loads (CUDA 12/13 builds), by soname stem.
CUDA_LIBRARIES = ["libcudart.so", "libcublas.so", "libcublasLt.so", "libcufft.so", "libcurand.so", "libcudnn.so"]


class LibraryStatus(msgspec.Struct, frozen=True):
    """One CUDA library: where it was found (None: nowhere) and why it did not load, where it did not."""

    name: str
    found: str | None
    error: str | None = None


class ProviderStatus(msgspec.Struct, frozen=True):
    """One execution provider: whether a session could use it, and ORT's reason where not."""

    name: str
    loadable: bool
    reason: str = ""


class EnvironmentReport(msgspec.Struct, frozen=True):
    """What ``environment_report`` found: the environment, each available provider, the CUDA libraries and warnings."""

    environment: Environment
    providers: list[ProviderStatus] = field(default_factory=list)
    libraries: list[LibraryStatus] = field(default_factory=list)
    warnings: list[str] = field(default_factory=list)


def _search_dirs() -> list[str]:
    dirs = [d for d in os.environ.get("LD_LIBRARY_PATH", "").split(":") if d]
    for site in sys.path:
        dirs.extend(glob.glob(os.path.join(site, "nvidia", "*", "lib")))
        dirs.extend(glob.glob(os.path.join(site, "nvidia", "cu*", "lib")))
    dirs.extend(["/usr/local/cuda/lib64", "/usr/lib/x86_64-linux-gnu"])
    return dirs


def find_library(stem: str) -> LibraryStatus:
    """Look for the library ``stem`` (e.g. ``libcudart.so``) on LD_LIBRARY_PATH, in the nvidia-* wheels and the
    system folders, and try to load it."""
    for directory in _search_dirs():
        matches = sorted(glob.glob(os.path.join(directory, stem + "*")))
        if matches:
            path = matches[-1]
            try:
                ctypes.CDLL(path)
            except OSError as exc:
                return LibraryStatus(stem, path, str(exc))
            return LibraryStatus(stem, path)
    from ctypes import util as ctypes_util  # here: most checks find every library before this

    name = ctypes_util.find_library(stem[3:].split(".")[0])
    if name:
        return LibraryStatus(stem, name)
    return LibraryStatus(stem, None, "not found on LD_LIBRARY_PATH, in the nvidia-* wheels or the system library path")


def provider_loadable(provider: str) -> ProviderStatus:
    """Try the provider on a one-node model, reading ORT's own reason from its log when it does not load."""
    from onnx import TensorProto, helper  # here: onnx (~50 ms) only where a provider is probed (env, run)

    ort = import_onnxruntime()  # what ORT logs as it loads is captured

    graph = helper.make_graph(
        [helper.make_node("Relu", ["x"], ["y"])], "probe",
        [helper.make_tensor_value_info("x", TensorProto.FLOAT, [1])],
        [helper.make_tensor_value_info("y", TensorProto.FLOAT, [1])],
    )
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 13)])
    model.ir_version = 8
    options = ort.SessionOptions()
    options.log_severity_level = 1
    try:
        with capture_native_stderr() as captured:
            session = ort.InferenceSession(model.SerializeToString(), options, providers=[provider, CPU])
    except Exception as exc:  # noqa: BLE001 - any failure means "not loadable", with its message
        return ProviderStatus(provider, False, str(exc).splitlines()[0])
    if provider in session.get_providers():
        return ProviderStatus(provider, True)
    facts = extract_facts(parse_lines(captured.text))
    reason = facts.ep_failures.get(provider) or "ORT left it out of the session's providers and logged no reason"
    return ProviderStatus(provider, False, reason)


def environment_report() -> EnvironmentReport:
    """The environment, with each available provider tried on a one-node model, the CUDA libraries looked up and
    a warning where more than one onnxruntime package is installed."""
    env = collect_environment()
    providers = [provider_loadable(p) if p != CPU else ProviderStatus(p, True)
                 for p in env.available_providers]
    conflict = ort_conflict_warning(installed_ort_distributions())
    return EnvironmentReport(environment=env, providers=providers, libraries=[find_library(s) for s in CUDA_LIBRARIES],
                             warnings=[conflict] if conflict else [])
