"""Which distribution installed a package, and its version, read from the ``.dist-info`` folder pip writes beside
the package, without importlib.metadata.

``import importlib.metadata`` loads the email package with it: ~15 ms of a 0.3 s `check` of a small model on the
2-CPU build machine (issue 15), where a check needs two versions (onnx's; onnxruntime's where its build has no
record of them, as 1.20 has none). Where the folder is not beside the package (an editable or egg install),
``distribution_version`` asks importlib.metadata.
"""

from __future__ import annotations

import importlib.util
import os
import re
from typing import TYPE_CHECKING

from ortcopy_doctor.model.lazy import lazy_import

if TYPE_CHECKING:
    from importlib import metadata
else:  # run on first use (model/lazy.py): only where no .dist-info folder lies beside the package (above)
    metadata = lazy_import("importlib.metadata")


def _normalized(name: str) -> str:
    return re.sub(r"[-_.]+", "_", name).lower()


def package_folders(package: str) -> list[str]:
    """The folders of the package ``package``, found, not imported (its ``__init__`` does not run); empty where
    there is no such package."""
    try:
        spec = importlib.util.find_spec(package)
    except (ImportError, ValueError):
        return []
    return list(spec.submodule_search_locations or []) if spec is not None else []


def distribution_version(package: str, distributions: tuple[str, ...]) -> tuple[str, str] | None:
    """(name, version) of the first of ``distributions`` installed beside ``package`` (``distribution_beside``),
    else the first importlib.metadata knows; None where neither finds one."""
    found = distribution_beside(package, distributions)
    if found is not None:
        return found
    for distribution in distributions:
        try:
            return distribution, metadata.version(distribution)
        except metadata.PackageNotFoundError:
            continue
    return None


def distribution_beside(package: str, distributions: tuple[str, ...]) -> tuple[str, str] | None:
    """(name, version) of the first of ``distributions`` whose ``.dist-info`` folder lies beside ``package``'s
    folder (how pip installs a wheel), with the version its METADATA states; None where there is none. The package
    is found, not imported."""
    folders = package_folders(package)
    if not folders:
        return None
    site = os.path.dirname(os.path.abspath(folders[0]))
    infos: dict[str, str] = {}
    try:
        for entry in os.scandir(site):
            if entry.name.lower().endswith(".dist-info"):
                # the first of two folders of one distribution (a stale one left by a broken upgrade), as
                # importlib.metadata takes it
                infos.setdefault(_normalized(entry.name.split("-", 1)[0]), entry.path)
    except OSError:
        return None
    for distribution in distributions:
        info = infos.get(_normalized(distribution))
        version = _metadata_version(info) if info is not None else None
        if version:
            return distribution, version
    return None


def _metadata_version(info: str) -> str | None:
    try:
        with open(os.path.join(info, "METADATA"), encoding="utf-8") as f:
            for line in f:
                if line.startswith("Version:"):
                    return line.split(":", 1)[1].strip() or None
                if not line.strip():  # the end of the headers
                    return None
    except (OSError, UnicodeDecodeError):
        return None
    return None
