"""ONNX Runtime's native log: captured from file descriptor 2 and parsed into facts.

ORT's logger writes from C++ straight to fd 2, so redirecting ``sys.stderr`` does not catch it;
``capture_native_stderr`` swaps fd 2 for a temporary file (``os.dup2``) and restores it. The lines
parsed here were read on ORT 1.31.1 on an H200 (see docs/ort-notes.md); each parser
tolerates their absence, since other versions word things differently.
"""

from __future__ import annotations

import msgspec
import contextlib
import os
import re
import sys
import tempfile
import threading
from collections.abc import Iterator
from msgspec import field
from typing import Any

from ortcopy_doctor.model.evidence import LogLine, MemcpyInsertion
from ortcopy_doctor.model.vocabulary import MemcpyOp

_ANSI = re.compile(r"\x1b\[[0-9;]*m")
_LINE = re.compile(r"^\S+ \S+ \[([VIWEF]):onnxruntime:[^,]*, ([^\]]*)\] ?(.*)$")
_KERNEL_NOT_FOUND = re.compile(r"(\w+) kernel not found in registries for Op type: (\S+) node name: (.*)$")
_FORCE_FALLBACK = re.compile(r"Force fallback to CPU execution for node: (.+?) because (.*)$")
_MEMCPY = re.compile(r"Add (MemcpyToHost|MemcpyFromHost) (?:before|after) (.+) for (\w+)$")
_PLACED = re.compile(r"^\s*(All nodes|Node\(s\)) placed on \[(\w+)\]\. Number of nodes: (\d+)")
_PLACED_NODE = re.compile(r"^\s{2}(\S+) \((.*)\)$")
_FAILED_EP = re.compile(r"Failed to create (\w+ExecutionProvider)")
_FAILED_LOAD = re.compile(r"Failed to load library (\S+) with error: (.*)$")
_EP_ERROR = re.compile(r"^EP Error (.*)$")
_EP_ERROR_USING = re.compile(r"when using \[\(?'(\w+ExecutionProvider)'")
_CPP_PREFIX = re.compile(r"^\S+:\d+ [^(]*\([^)]*\)\s*")  # "/src/x.cc:729 void f(args) " before ORT's reason


class NativeCapture:
    """Holds the text ORT wrote to fd 2 while captured."""

    def __init__(self) -> None:
        self.text = ""


# fd 2 and sys.stdout belong to the whole process: one capture at a time. Two checks in two threads that both
# saved and restored them interleaved left sys.stdout pointing at stderr and fd 2 at a deleted file.
_CAPTURE_LOCK = threading.RLock()


@contextlib.contextmanager
def capture_native_stderr() -> Iterator[NativeCapture]:
    """Redirect fd 2 into a temporary file for the duration; the text is in ``.text`` afterwards.

    Process-wide, as fd 2 is: captures in several threads take turns (a lock), and what other threads write to
    fd 2 or ``sys.stdout`` meanwhile goes into the capture."""
    with _CAPTURE_LOCK:
        with _capture() as capture:
            yield capture


@contextlib.contextmanager
def _capture() -> Iterator[NativeCapture]:
    capture = NativeCapture()
    sys.stderr.flush()
    try:
        saved = os.dup(2)
    except OSError:  # fd 2 closed: nothing to capture, nothing to protect
        yield capture
        return
    with tempfile.TemporaryFile(mode="w+b") as tmp:
        os.dup2(tmp.fileno(), 2)
        try:
            # onnxruntime's Python wrapper print()s its "EP Error ... Falling back" banner to stdout
            # (e.g. TensorRT libraries missing): send it into the capture too, where extract_facts reads it.
            with contextlib.redirect_stdout(sys.stderr):
                yield capture
        finally:
            sys.stderr.flush()
            os.dup2(saved, 2)
            os.close(saved)
            tmp.seek(0)
            capture.text = tmp.read().decode("utf-8", errors="replace")


# What ORT wrote to fd 2 while this process imported it (``import_onnxruntime``), "" before or where it wrote nothing.
_IMPORT_LOG = NativeCapture()


def import_onnxruntime() -> Any:
    """The ``onnxruntime`` module, imported with fd 2 captured where this is its first import in the process.

    ORT logs as its module loads, on the terminal, with colour codes: onnxruntime 1.31.1's telemetry warns
    "Failed to persist telemetry device ID; using an in-memory identifier" (``telemetry_1ds.cc``) where it cannot
    make its cache folder (``$XDG_CACHE_HOME`` or ``~/.cache``, then ``Microsoft/DeveloperTools/.onnxruntime``), as
    for a user whose home cannot be written (``nobody``, a CI container's user). What it wrote is kept
    (``import_log``) and parsed with the evidence session's log."""
    if "onnxruntime" not in sys.modules:
        with import_captured():
            import onnxruntime  # noqa: F401 - imported here for its log; returned below
    import onnxruntime as ort  # here: only this function imports onnxruntime (the first time with its log captured)

    return ort


@contextlib.contextmanager
def import_captured() -> Iterator[None]:
    """Around the first import of onnxruntime in this process (``import_onnxruntime``, or the program's own import
    under ``run``: watch/child.py): what ORT writes to fd 2 as it loads is kept (``import_log``), also where the
    import fails, and not printed."""
    captured = NativeCapture()
    try:
        with capture_native_stderr() as captured:
            yield
    finally:
        _IMPORT_LOG.text = captured.text


def import_log() -> str:
    """What ORT wrote to fd 2 while ``import_onnxruntime`` imported it ("" where it wrote nothing, or another import
    came first)."""
    return _IMPORT_LOG.text


def parse_lines(text: str) -> list[LogLine]:
    """Log lines as (severity, source, message); continuation lines are appended to their message."""
    lines: list[LogLine] = []
    for raw in text.splitlines():
        clean = _ANSI.sub("", raw).rstrip()
        if not clean:
            continue
        match = _LINE.match(clean)
        if match:
            lines.append(LogLine(severity=match.group(1), source=match.group(2).strip(), message=match.group(3)))
        elif lines:
            # Placement lists continue on lines of their own with no prefix.
            lines.append(LogLine(severity=lines[-1].severity, source="", message=clean))
        else:
            lines.append(LogLine(severity="?", source="", message=clean))
    return lines


class LogFacts(msgspec.Struct, frozen=True):
    """What the log says about providers, placement and Memcpy insertion."""

    ep_failures: dict[str, str] = field(default_factory=dict)  # provider -> reason
    kernel_not_found: dict[str, str] = field(default_factory=dict)  # node name -> op type
    cpu_preferred: dict[str, str] = field(default_factory=dict)  # node name -> ORT's stated reason
    memcpy: list[MemcpyInsertion] = field(default_factory=list)
    placement: dict[str, list[tuple[str, str]]] = field(default_factory=dict)  # provider -> [(op, name)]
    placement_counts: dict[str, int] = field(default_factory=dict)
    relevant: list[LogLine] = field(default_factory=list)


def extract_facts(lines: list[LogLine]) -> LogFacts:
    """The facts in ORT's verbose log lines: provider failures, nodes without a kernel or placed on CPU by
    choice, Memcpy insertions and placement; the lines that said them are kept in ``relevant``."""
    facts = LogFacts()
    load_error: str | None = None
    ep_error: str | None = None  # the Python wrapper's "EP Error <reason>" line, before "when using [...]"
    current_ep: str | None = None
    for line in lines:
        msg = line.message
        keep = False
        if m := _EP_ERROR.match(msg.strip()):
            ep_error = _CPP_PREFIX.sub("", m.group(1)).strip()
            keep = True
        elif ep_error is not None and (m := _EP_ERROR_USING.search(msg)):
            facts.ep_failures.setdefault(m.group(1), ep_error)
            ep_error = None
            keep = True
        placed = _PLACED.match(msg)
        if placed:
            current_ep = placed.group(2)
            facts.placement.setdefault(current_ep, [])
            facts.placement_counts[current_ep] = facts.placement_counts.get(current_ep, 0) + int(placed.group(3))
            keep = True
        elif current_ep and (node := _PLACED_NODE.match(msg)):
            facts.placement[current_ep].append((node.group(1), node.group(2)))
            keep = True
        else:
            current_ep = None
        if m := _FAILED_LOAD.search(msg):
            library = os.path.basename(m.group(1))
            load_error = f"Failed to load library {library} with error: {m.group(2).strip()}"
            keep = True
        if m := _FAILED_EP.search(msg):
            provider = m.group(1)
            stated = msg[m.start():].split(". Please install")[0].strip()
            facts.ep_failures[provider] = f"{load_error} ({stated})" if load_error else stated
            keep = True
        if m := _KERNEL_NOT_FOUND.search(msg):
            facts.kernel_not_found[m.group(3).strip()] = m.group(2)
            keep = True
        if m := _FORCE_FALLBACK.search(msg):
            facts.cpu_preferred[m.group(1).strip()] = m.group(2).strip()
            keep = True
        if m := _MEMCPY.search(msg):
            facts.memcpy.append(MemcpyInsertion(op_type=MemcpyOp(m.group(1)), tensor=m.group(2).strip(), provider=m.group(3)))
            keep = True
        if "Memcpy nodes are added" in msg or line.severity in ("E", "F"):
            keep = True
        if keep:
            facts.relevant.append(line)
    return facts
