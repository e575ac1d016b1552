"""The files mapped into this process (Linux ``/proc/self/maps``): which CUDA libraries are loaded.

Read where the binding A/B looks for the CUDA runtime that onnxruntime loaded (``CudaRuntime.loaded``) and where
the command decides how to end its process (``cli/app.py``: a process with the CUDA driver mapped exits the
normal way). Standard library only: the command reads it at exit.
"""

from __future__ import annotations

import os
from pathlib import Path

MAPS = Path("/proc/self/maps")


def mapped_files(maps: Path = MAPS) -> list[str] | None:
    """The paths of the files mapped into the process, in the map's order (one per mapping, repeats kept); None
    where the map cannot be read (not Linux, or no /proc)."""
    try:
        text = maps.read_text(encoding="utf-8", errors="replace")
    except OSError:
        return None
    # address perms offset dev inode path: the path is the sixth field and may hold spaces.
    return [fields[5] for fields in (line.split(None, 5) for line in text.splitlines()) if len(fields) == 6]


def first_library(prefix: str, maps: Path = MAPS) -> str | None:
    """The first mapped file whose name starts with ``prefix`` (``libcudart.so``), or None; also None where the map
    cannot be read."""
    return next((path for path in mapped_files(maps) or [] if os.path.basename(path).startswith(prefix)), None)


__all__ = ["MAPS", "first_library", "mapped_files"]
