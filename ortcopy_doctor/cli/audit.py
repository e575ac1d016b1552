"""``ortcopy-doctor audit``: a model zoo checked row by row (issue 37), each row (a model and a configuration) a
``check`` in a child process of its own, so that a crash, a hang or an out-of-memory is that row's result and the
audit goes on.

GPUs are a resource: a row that measures holds one GPU alone while it runs (``CUDA_VISIBLE_DEVICES`` set to it in
the child), so no two measurements share a GPU; a static row (``--static``: a prediction, no session) holds none and
runs beside them. Before a row measures, NVML says whether another process holds its GPU (the row's ``gpu_busy``).

Results survive: each finished row is one line of ``OUT/audit.jsonl``, appended and synced as it finishes, with the
full report (JSON and HTML) in ``OUT/reports/``; ``--resume`` skips the rows already there; Ctrl-C stops the running
children and writes nothing for them. ``--shard I/N`` runs a deterministic slice, and ``audit merge`` joins the
shards' files. At the end: ``OUT/index.html``, the terminal summary, and the baseline gate (``--baseline``).
"""

from __future__ import annotations

import os
import queue
import signal
import subprocess
import sys
import threading
import time
import zlib
from collections.abc import Callable, Sequence
from datetime import datetime, timezone
from pathlib import Path
from typing import IO, TYPE_CHECKING, Any, Optional

from ortcopy_doctor.cli.outputs import Asked, write_outputs
from ortcopy_doctor.cli.supervisor import ENDINGS
from ortcopy_doctor.model import codec
from ortcopy_doctor.model.audit import (JSONL, AuditEntry, AuditResult, AuditRow, Regression, RegressionKind,
                                        RowStatus)
from ortcopy_doctor.model.errors import DoctorError, UsageError
from ortcopy_doctor.model.lazy import lazy_import
from ortcopy_doctor.render.output import OutputSet
from ortcopy_doctor.render.registry import AUDIT, RenderContext

if TYPE_CHECKING:
    from ortcopy_doctor.collect import gpus as _gpus
    from ortcopy_doctor.report import audit as _report_audit, core as _report_core
else:  # each on first use (model/lazy.py): NVML where a row measures, the analysis with the first report
    _gpus = lazy_import("ortcopy_doctor.collect.gpus")
    _report_audit = lazy_import("ortcopy_doctor.report.audit")
    _report_core = lazy_import("ortcopy_doctor.report.core")

STDERR_TAIL_LINES = 20
REPORTS = "reports"
INDEX_STEM = "index"  # the index page: --out/index.html (the HTML format's suffix)


def rows_done(jsonl: Path) -> int:
    """How many rows ``jsonl`` holds (0 where it does not exist)."""
    return len(_report_audit.read_rows(jsonl)) if jsonl.exists() else 0


def merge_files(files: Sequence[Path], warn: Callable[[str], None]) -> list[AuditRow]:
    """The rows of the shards' files (or folders) as one audit (``ValueError`` naming a file or row)."""
    return _report_audit.merge([_report_audit.read_rows(f, warn) for f in files])


def gate_failed(regressions: Sequence[Regression] | None) -> bool:
    """Whether a regression that is not allowed fails the gate."""
    return bool(regressions) and _report_audit.gate_exit(regressions or []) == 1


def parse_shard(text: str | None) -> tuple[int, int] | None:
    """``I/N`` (1 <= I <= N) as (I, N); None for None."""
    if text is None:
        return None
    try:
        index, count = (int(part) for part in text.split("/"))
    except ValueError:
        index = count = 0
    if not 1 <= index <= count:
        raise UsageError(f"--shard {text!r}: give I/N with 1 <= I <= N, e.g. --shard 2/4")
    return index, count


def in_shard(entry_id: str, shard: tuple[int, int] | None) -> bool:
    """Whether the row ``entry_id`` is in ``shard``: the CRC-32 of its id modulo N is I-1 (the same on every machine
    and Python, whatever the manifest's order)."""
    return shard is None or zlib.crc32(entry_id.encode("utf-8")) % shard[1] == shard[0] - 1


def parse_gpus(text: str | None, visible: Sequence[str]) -> list[str]:
    """``--gpus 0,1`` as a list; by default every visible GPU."""
    if text is None:
        return list(visible)
    gpus = [g.strip() for g in text.split(",") if g.strip()]
    if not gpus or len(set(gpus)) != len(gpus):
        raise UsageError(f"--gpus {text!r}: give GPU indexes once each, e.g. --gpus 0,1")
    return gpus


def safe_name(entry_id: str) -> str:
    """A file name for a row's report: its id with anything but letters, digits and ``._=-`` as ``_``, and where
    that changed the id, the id's CRC-32 after it, so that two ids never share a report (``m[a,b]`` and ``m[a+b]``
    would both be ``m_a_b_``)."""
    name = "".join(c if c.isalnum() or c in "._=-" else "_" for c in entry_id)[:180] or "row"
    return name if name == entry_id else f"{name}-{zlib.crc32(entry_id.encode('utf-8')):08x}"


class Running:
    """The children running now, so that Ctrl-C can stop them all (their process groups)."""

    def __init__(self) -> None:
        self.lock = threading.Lock()
        self.children: dict[int, subprocess.Popen[bytes]] = {}
        self.stopping = threading.Event()

    def add(self, child: subprocess.Popen[bytes]) -> None:
        """A child started."""
        with self.lock:
            self.children[child.pid] = child

    def remove(self, child: subprocess.Popen[bytes]) -> None:
        """A child ended."""
        with self.lock:
            self.children.pop(child.pid, None)

    def stop_all(self) -> None:
        """Kill every running child's process group (each started a session of its own)."""
        self.stopping.set()
        with self.lock:
            children = list(self.children.values())
        for child in children:
            _kill_group(child)


def _kill_group(child: subprocess.Popen[bytes]) -> None:
    try:
        os.killpg(child.pid, signal.SIGKILL)
    except (ProcessLookupError, PermissionError):
        pass


def _tail(path: Path) -> str:
    try:
        lines = path.read_text(encoding="utf-8", errors="replace").splitlines()
    except OSError:
        return ""
    return "\n".join(lines[-STDERR_TAIL_LINES:])


def _error_line(stderr: str) -> str:
    return next((line[len("error: "):] for line in reversed(stderr.splitlines()) if line.startswith("error: ")), "")


class Runner:
    """Runs the rows: ``jobs`` workers, the GPUs in a queue (a measuring row takes one and gives it back), each
    finished row appended to the JSONL."""

    def __init__(self, out: Path, gpus: Sequence[str], jobs: int, on_done: Callable[[AuditRow, int], None],
                 on_start: Callable[[AuditEntry, str], None]) -> None:
        self.out, self.gpus, self.jobs = out, list(gpus), jobs
        self.free: queue.Queue[str] = queue.Queue()
        for gpu in self.gpus:
            self.free.put(gpu)
        self.running = Running()
        self.write_lock = threading.Lock()
        self.on_done, self.on_start = on_done, on_start
        self.done = 0
        self.ours = frozenset({os.getpid()})

    def run(self, entries: Sequence[AuditEntry]) -> None:
        """Every entry, ``jobs`` at a time; returns when all are done or the audit was stopped (KeyboardInterrupt
        and SIGTERM propagate after the children were killed)."""
        todo: queue.Queue[AuditEntry] = queue.Queue()
        for entry in sorted(entries, key=lambda e: e.measure):  # static rows first: they wait for no GPU
            todo.put(entry)
        workers = [threading.Thread(target=self._work, args=(todo,), daemon=True) for _ in range(self.jobs)]
        for worker in workers:
            worker.start()
        try:
            while any(w.is_alive() for w in workers):
                for worker in workers:
                    worker.join(0.2)
        except BaseException:
            self.running.stop_all()
            raise

    def _work(self, todo: queue.Queue[AuditEntry]) -> None:
        while not self.running.stopping.is_set():
            try:
                entry = todo.get_nowait()
            except queue.Empty:
                return
            gpu = ""
            if entry.measure and self.gpus:
                gpu = self.free.get()
            try:
                if self.running.stopping.is_set():
                    return
                row = self._row(entry, gpu)
            finally:
                if gpu:
                    self.free.put(gpu)
            if row is not None and not self.running.stopping.is_set():
                self._write(row)

    def _write(self, row: AuditRow) -> None:
        with self.write_lock:
            with open(self.out / "audit.jsonl", "ab") as f:
                f.write(codec.to_json_bytes(row, indent=0) + b"\n")
                f.flush()
                os.fsync(f.fileno())
            self.done += 1
            self.on_done(row, self.done)

    def _row(self, entry: AuditEntry, gpu: str) -> AuditRow | None:
        """The row of ``entry``: its check run in a child; None where the audit was stopped meanwhile."""
        busy = _gpus.other_processes(gpu, self.ours) if gpu else ""
        self.on_start(entry, gpu)
        name = safe_name(entry.id)
        report, page = self.out / REPORTS / f"{name}.json", self.out / REPORTS / f"{name}.html"
        for stale in (report, page):
            stale.unlink(missing_ok=True)
        stderr_path = self.out / REPORTS / f"{name}.stderr.txt"
        env = dict(os.environ)
        if gpu:
            # NVML numbers GPUs in PCI bus order and CUDA by default fastest first: with PCI_BUS_ID an index means
            # the same GPU to both (the GPU that other_processes checked is the one the check runs on)
            env["CUDA_DEVICE_ORDER"] = "PCI_BUS_ID"
            env["CUDA_VISIBLE_DEVICES"] = gpu
        command = [sys.executable, "-m", "ortcopy_doctor", "check", entry.model, *entry.args,
                   "--json", str(report), "--html", str(page), "-q"]
        started = datetime.now(timezone.utc).isoformat(timespec="milliseconds").replace("+00:00", "Z")
        start = time.monotonic()
        with open(stderr_path, "wb") as stderr:
            child = subprocess.Popen(command, stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL, stderr=stderr,
                                     env=env, start_new_session=True)
            self.running.add(child)
            try:
                code: Optional[int] = child.wait(timeout=entry.timeout_s)
            except subprocess.TimeoutExpired:
                _kill_group(child)
                child.wait()
                code = None
            finally:
                self.running.remove(child)
        if self.running.stopping.is_set():
            return None
        run = {"gpu": gpu, "gpu_busy": busy, "started": started, "seconds": round(time.monotonic() - start, 3)}
        tail = _tail(stderr_path)
        stderr_path.unlink(missing_ok=True)
        return _finished(entry, code, tail, report, page, self.out, run)


def _finished(entry: AuditEntry, code: int | None, tail: str, report: Path, page: Path, out: Path,
              run: dict[str, Any]) -> AuditRow:
    """The row of a child that ended with ``code`` (None: killed at the timeout)."""
    base = {"id": entry.id, "model": entry.model, "config": entry.config, **run}
    if code is None:
        return AuditRow(**base, status=RowStatus.TIMEOUT, exit_code=None, stderr_tail=tail,
                        error=f"timed out after {entry.timeout_s:g} s: killed")
    if code < 0:  # a signal killed the child itself (before check's supervisor took over, or the supervisor)
        return AuditRow(**base, status=RowStatus.CRASHED, exit_code=code, stderr_tail=tail,
                        error=f"killed by {signal.Signals(-code).name}" if -code in signal.valid_signals()
                        else f"killed by signal {-code}")
    if code in (0, 1) and report.is_file():
        try:
            loaded = _report_core.load_report(report)
        except DoctorError as exc:
            return AuditRow(**base, status=RowStatus.CRASHED, exit_code=code, stderr_tail=tail,
                            error=f"its report does not read back: {exc.message}")
        return _report_audit.row_from_report(entry, loaded, exit_code=code, report=str(page.relative_to(out)),
                               **run)
    report.unlink(missing_ok=True)  # evidence gathered before an error: the row says what failed
    error = _error_line(tail)
    # check's supervisor ends a child that a signal killed (a segfaulting custom-op library, the OOM killer) with
    # exit 3 or 4 and its own line (cli/supervisor.py ENDINGS): a crash, not a refusal
    crashed = any(error == line for _, line in ENDINGS.values())
    status = RowStatus.FAILED if code in (2, 3, 4) and not crashed else RowStatus.CRASHED
    return AuditRow(**base, status=status, exit_code=code, stderr_tail=tail,
                    error=error or f"exit {code} without a report")


class Progress:
    """What the audit shows while it runs: a rich progress bar on a terminal (done/total, the rows running and their
    GPUs, the time left), else a line a finished row; nothing with -q."""

    def __init__(self, total: int, done: int, quiet: bool, stream: IO[str]) -> None:
        self.total, self.quiet, self.stream = total, quiet, stream
        self.running: dict[str, str] = {}
        self.lock = threading.Lock()
        self.bar: Any = None
        if not quiet and stream.isatty():
            from rich.console import Console  # here: the bar only on a terminal (a CI log gets lines)
            from rich.progress import BarColumn, MofNCompleteColumn, TextColumn, TimeRemainingColumn  # here: as above
            from rich.progress import Progress as Bar  # here: as above

            self.bar = Bar(TextColumn("{task.description}"), BarColumn(), MofNCompleteColumn(), TimeRemainingColumn(),
                           console=Console(file=stream), transient=True)
            self.task = self.bar.add_task("audit", total=total, completed=done)
            self.bar.start()

    def _describe(self) -> str:
        rows = [f"{i}" + (f" (GPU {g})" if g else "") for i, g in self.running.items()]
        return "audit: " + (", ".join(rows)[:80] if rows else "")

    def started(self, entry: AuditEntry, gpu: str) -> None:
        """A row started (on ``gpu``, "" for none)."""
        with self.lock:
            self.running[entry.id] = gpu
            if self.bar is not None:
                self.bar.update(self.task, description=self._describe())

    def finished(self, row: AuditRow, done: int) -> None:
        """A row finished, the ``done``-th of the audit."""
        with self.lock:
            self.running.pop(row.id, None)
            if self.bar is not None:
                self.bar.update(self.task, advance=1, description=self._describe())
            elif not self.quiet:
                where = f", GPU {row.gpu}" if row.gpu else ""
                what = str(row.status) if row.status == RowStatus.OK else f"{row.status}: {row.error}"
                self.stream.write(f"[{done}/{self.total}] {row.id}: {what} ({row.seconds:.1f} s{where})\n")
                self.stream.flush()

    def close(self) -> None:
        """The bar taken off the terminal."""
        if self.bar is not None:
            self.bar.stop()


def audit_rows(entries: Sequence[AuditEntry], out: Path, gpus: Sequence[str], jobs: int, resume: bool,
               quiet: bool, warn: Callable[[str], None]) -> tuple[list[AuditRow], int]:
    """Run every row not already in ``out/audit.jsonl`` (with ``resume``) and return every row of the audit, in
    ``entries``' order, and how many were run now. KeyboardInterrupt propagates once the children are stopped."""
    jsonl = out / JSONL
    if jsonl.exists() and jsonl.stat().st_size and not resume:
        raise UsageError(f"{jsonl} holds an earlier audit: pass --resume to continue it, or another --out")
    (out / REPORTS).mkdir(parents=True, exist_ok=True)
    earlier = _report_audit.read_rows(jsonl, warn) if jsonl.exists() else []
    if earlier and not jsonl.read_bytes().endswith(b"\n"):  # a cut-off last line: dropped, the file made whole
        jsonl.write_bytes(b"".join(codec.to_json_bytes(r, indent=0) + b"\n" for r in earlier))
    ids = {e.id for e in entries}
    finished = {r.id for r in earlier if r.id in ids}
    pending = [e for e in entries if e.id not in finished]
    if any(e.measure for e in pending) and not gpus and not quiet:
        sys.stderr.write("note: no GPU is visible here (NVML): measuring rows run without one\n")
    progress = Progress(len(entries), len(finished), quiet, sys.stderr)
    runner = Runner(out, gpus, jobs, progress.finished, progress.started)
    runner.done = len(finished)  # the progress counts the audit's rows, those of the earlier run first
    try:
        runner.run(pending)
    finally:
        progress.close()
    rows = {r.id: r for r in _report_audit.read_rows(jsonl, warn)} if jsonl.exists() else {}
    return [rows[e.id] for e in entries if e.id in rows], runner.done - len(finished)


def gate(rows: Sequence[AuditRow], baseline: Path | None, allow: Sequence[str],
         warn: Callable[[str], None]) -> list[Regression] | None:
    """The regressions of ``rows`` against ``baseline`` (None without one)."""
    if baseline is None:
        return None
    kinds = []
    for kind in allow:
        try:
            kinds.append(RegressionKind(kind))
        except ValueError:
            raise UsageError(f"--allow-regression {kind!r}: give one of "
                             f"{', '.join(str(k) for k in RegressionKind)}") from None
    try:
        old = _report_audit.read_rows(baseline, warn)
    except ValueError as exc:
        raise UsageError(f"--baseline: {exc}") from None
    return _report_audit.compare(old, rows, kinds)


def planned_outputs(out: Path, asked: Asked, reads: Sequence[Path], merged: bool = False) -> OutputSet:
    """The audit's files checked before any row runs (render/output.py, as every command's): the formats ``asked``
    (the index page, ``--out``/index.html unless ``--no-html``; ``--sarif``, ``-``: stdout) and, for ``audit merge``,
    ``--out``'s audit.jsonl; none of them one of ``reads`` (the manifest, the baseline, the shards)."""
    out.mkdir(parents=True, exist_ok=True)
    outputs = OutputSet()
    for path in reads:
        outputs.add_input("an audit's input", path / JSONL if path.is_dir() else path)
    if merged:
        outputs.add("--out", out / JSONL)
    for renderer, target in asked.targets(stem=str(out / INDEX_STEM)):
        if renderer.flag is not None:
            outputs.add(renderer.flag, target, stdout_ok=renderer.stdout_ok)
    return outputs


def write_results(outputs: OutputSet, result: AuditResult, asked: Asked) -> list[str]:
    """The merged audit.jsonl and the formats asked (the index page, SARIF) that ``outputs`` plans, all written or
    none."""
    merged = {"--out": "".join(codec.to_json(r, indent=0) + "\n" for r in result.rows)} if outputs.asked("--out") else {}
    return write_outputs(outputs, result, asked, RenderContext(AUDIT), merged)


__all__ = ["audit_rows", "gate", "in_shard", "parse_gpus", "parse_shard", "planned_outputs", "safe_name", "write_results"]
