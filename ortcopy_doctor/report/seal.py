"""The analysis seal: the key of a cache, which JSON reports ``report`` and ``diff`` may render as they are, instead
of re-analysing them.

``load_report`` re-runs the analysis over a file's evidence, so that evidence recorded by an older ortcopy-doctor
(or on the GPU machine) is read by today's rules. Where the file was written by this very code and not changed
since, re-analysis gives back exactly what the file holds (tests/report/test_stored.py checks this over every
recorded report): then ``load_report(cache=True)`` reads the file's copies, findings, plan and summary as they
are, which is a third to a fifth of the time (issue 15: loading a JSON within 10% of the check that wrote it).

The seal is the document's last member, ``"analysis_seal": "<64 hex digits>"``: the SHA-256 of this code's
``code_digest`` followed by every byte of the document before the seal's member. Any change to the file (a byte of
its evidence, a finding edited by hand, the file re-indented) or to the code that analyses it (another version, a
rule edited in a checkout, another Python) breaks the seal, and the file is re-analysed as before; a process
whose analysis files changed after it imported them writes no seal.

It is a check of consistency, not a signature: there is no secret, and anyone who edits a file and seals it again
with this code gets what they wrote. So the seal says nothing about who wrote a file, and what it keys is a cache
for rendering only: a report read from it is marked ``Report.from_cache``, the gate and ``Report.fails`` refuse it,
and the CLI re-analyses whenever it judges (a gate, SARIF). What the cache holds is checked as it is read
(``report.core.cache_problem``), and every renderer escapes what it prints (docs/guarantees.md).
"""

from __future__ import annotations

import functools
import hashlib
import os
import re
import sys
from pathlib import Path

from ortcopy_doctor.model.version import __version__

SEAL_KEY = "analysis_seal"
# The packages whose code (and data: the kernel tables) decides what `analyse` makes of evidence. The layer
# contract (pyproject.toml, import-linter) keeps `analyse` from importing anything else of the package.
ANALYSIS_PACKAGES = ("model", "knowledge", "analysis", "rules", "report")
_MEMBER = f',\n "{SEAL_KEY}": "'  # then the 64 hex digits, '"', and the document's closing "\n}"
_TAIL = re.compile(re.escape(_MEMBER.encode()) + rb'([0-9a-f]{64})"\n}\n?\Z')


def code_digest(root: Path | None = None) -> bytes:
    """SHA-256 of the tool's version, the Python version (``sum`` of floats rounds differently in 3.12) and every
    file of ``ANALYSIS_PACKAGES`` under ``root`` (this installed package), by relative path; empty where a file
    cannot be read, or where a file of this installed package changed since this process imported its code (a
    rule edited in a checkout while a check runs): then nothing is sealed, and every file is re-analysed."""
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
# As this process imported its code (report.core imports this module as the analysis loads).
_STATS_AT_IMPORT = _stats(_ROOT)


def sealed(document: str) -> str:
    """``document`` (a report as ``jsontext.dumps`` writes it: an object ending ``\\n}``) with its seal as the last
    member; as it is where this code cannot be read (``code_digest`` empty)."""
    code = code_digest()
    if not code or not document.endswith("\n}"):
        return document
    body = document[:-2]
    digest = hashlib.sha256(code)
    digest.update(body.encode("utf-8"))
    return f'{body}{_MEMBER}{digest.hexdigest()}"\n}}'


def unsealed(document: str) -> str:
    """``document`` without its seal, as ``jsontext.dumps`` wrote it; as it is where it has none."""
    at = document.rfind(_MEMBER)
    return document if at < 0 or _TAIL.search(document[at:].encode()) is None else document[:at] + "\n}"


def verified(raw: bytes) -> bool:
    """Whether ``raw`` (a JSON file's bytes) ends with a seal that matches its bytes and this code."""
    found = _TAIL.search(raw, max(0, len(raw) - 120))
    if found is None:
        return False
    code = code_digest()
    if not code:
        return False
    digest = hashlib.sha256(code)
    digest.update(memoryview(raw)[:found.start()])  # not a copy of the 20 MB before the seal
    return digest.hexdigest() == found.group(1).decode()


__all__ = ["ANALYSIS_PACKAGES", "SEAL_KEY", "code_digest", "sealed", "unsealed", "verified"]
