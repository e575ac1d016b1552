"""Writing output files: checked up front, written whole or not at all."""

from __future__ import annotations

import os
import tempfile
from pathlib import Path

from ..errors import UsageError


def check_writable(path: Path, flag: str) -> None:
    """Fail before any work if ``path`` cannot be written, with the flag to change."""
    path = Path(path)
    if path.is_dir():
        raise UsageError(f"{flag} {path} is a directory: give a file path")
    parent = path.parent if str(path.parent) else Path(".")
    if not parent.exists():
        raise UsageError(f"{flag} {path}: folder {parent} does not exist: create it or choose another path")
    if not os.access(parent, os.W_OK) or (path.exists() and not os.access(path, os.W_OK)):
        raise UsageError(f"{flag} {path} cannot be written (permission denied): choose another path")


def write_atomic(path: Path, text: str) -> None:
    """Write to a temporary file beside ``path`` and rename it, so no half-written report is ever left."""
    path = Path(path)
    parent = path.parent if str(path.parent) else Path(".")
    fd, tmp = tempfile.mkstemp(prefix=f".{path.name}.", suffix=".tmp", dir=parent)
    try:
        with os.fdopen(fd, "w", encoding="utf-8") as f:
            f.write(text)
        os.replace(tmp, path)
    except BaseException:
        try:
            os.unlink(tmp)
        except OSError:
            pass
        raise
