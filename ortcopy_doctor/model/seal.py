"""The key of a cache, which JSON reports ``report`` and ``diff`` may render as they are, instead of re-analysing.

Here in model/ (it reads the package's own files and imports nothing of it but the codec and the version) because
``Report.to_document`` keys the document it makes; ``report.seal`` names the same functions.

``load_report`` re-runs the analysis over a file's evidence, so that evidence recorded by an older ortcopy-doctor
(or on the GPU machine) is read by today's rules. Where the file was written by this very code, re-analysis gives
back what the file holds (tests/report/test_stored.py checks this over every recorded report): then
``load_report(cache=True)`` reads the file's copies, findings, plan and summary as they are.

The key is a metadata field of the report, ``analysed_by``: the SHA-256 of this code's ``code_digest`` and of the
report as the codec writes it (read back, it is written again to be checked: a file re-indented keeps its key). A
change to any value of the file (its evidence, a finding edited by hand) or to the code that analyses it (another
version, a rule edited in a checkout, another Python) breaks the key, and the file is re-analysed; a process whose
analysis files changed after it imported them writes no key.

It is a check of consistency, not a signature: there is no secret, and anyone who edits a file can key it again
with this code. So what it keys is a cache for rendering only: a report read from it is marked ``Report.from_cache``, the gate
and ``Report.fails`` refuse it, and the CLI re-analyses whenever it judges (a gate, SARIF). What the cache holds is
checked as it is read (``report.core.cache_problem``), and every renderer escapes what it prints
(docs/guarantees.md).
"""

from __future__ import annotations

import functools
import hashlib
import os
import sys
from pathlib import Path
from typing import Any

from ortcopy_doctor.model import codec
from ortcopy_doctor.model.version import __version__

# The packages whose code (and data: the kernel tables) decides what `analyse` makes of evidence. The layer
# contract (pyproject.toml, import-linter) keeps `analyse` from importing anything else of the package.
ANALYSIS_PACKAGES = ("model", "knowledge", "analysis", "rules", "report")


def code_digest(root: Path | None = None) -> bytes:
    """SHA-256 of the tool's version, the Python version (``sum`` of floats rounds differently in 3.12) and every
    file of ``ANALYSIS_PACKAGES`` under ``root`` (this installed package), by relative path; empty where a file
    cannot be read, or where a file of this installed package changed since this process imported its code (a
    rule edited in a checkout while a check runs): then no key is written, and every file is re-analysed."""
    if root is None:
        if _stats(_ROOT) != _STATS_AT_IMPORT:
            return b""
        return _installed_digest()
    digest = hashlib.sha256(f"ortcopy-doctor {__version__}\0python {sys.version_info[0]}.{sys.version_info[1]}\0"
                            .encode())
    try:
        for relative in _files(root):
            digest.update(relative.encode() + b"\0")
            data = (root / relative).read_bytes()
            digest.update(len(data).to_bytes(8, "little") + data)
    except OSError:
        return b""
    return digest.digest()


def _files(root: Path) -> list[str]:
    """The files of ``ANALYSIS_PACKAGES`` under ``root`` (bytecode caches left out), as sorted relative paths."""
    return sorted(relative for relative, _, _ in _scan(str(root)))


def _scan(root: str) -> list[tuple[str, int, int]]:
    """(relative path, modification time, size) of each file of ``ANALYSIS_PACKAGES`` under ``root``."""
    found: list[tuple[str, int, int]] = []
    pending = list(ANALYSIS_PACKAGES)
    while pending:
        relative = pending.pop()
        with os.scandir(os.path.join(root, relative)) as entries:
            for entry in entries:
                name = f"{relative}/{entry.name}"
                if entry.is_dir():
                    if entry.name != "__pycache__":
                        pending.append(name)
                elif entry.is_file():
                    st = entry.stat()
                    found.append((name, st.st_mtime_ns, st.st_size))
    return found


def _stats(root: Path) -> tuple[tuple[str, int, int], ...]:
    """``_scan`` in order (~1 ms, where ``code_digest`` reads every file); empty where a folder cannot be read."""
    try:
        return tuple(sorted(_scan(str(root))))
    except OSError:
        return ()


@functools.lru_cache(maxsize=1)
def _installed_digest() -> bytes:
    return code_digest(_ROOT)


_ROOT = Path(__file__).resolve().parent.parent
# As this process imported its code (model.report imports this module as the analysis loads).
_STATS_AT_IMPORT = _stats(_ROOT)


def analysis_key(document: Any) -> str:
    """The key a report's ``analysed_by`` holds: the SHA-256 of this code (``code_digest``) and of ``document`` (the
    report as it is written, its ``analysed_by`` empty) as the codec writes it, in hex; "" where this code cannot be
    read (then no report is reused)."""
    code = code_digest()
    if not code:
        return ""
    digest = hashlib.sha256(code)
    digest.update(codec.to_json_bytes(document, indent=0))
    return digest.hexdigest()


__all__ = ["ANALYSIS_PACKAGES", "analysis_key", "code_digest"]
