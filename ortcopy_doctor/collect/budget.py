"""The memory a check plans for, before it allocates: its inputs and the profile of its evidence session (issue 38).

Two things a check holds grow with its flags rather than with the model's weights: the input arrays (``--dim``,
``--shape``, ``--inputs``) and the profile events of the evidence session, one per node per run (warm-up runs
included: ORT profiles every run of a profiling session). Both are bounded by one budget, checked before anything is
allocated: the inputs together (``collect.feeds``; exit 2 naming them), then the profile, which gets what the inputs
leave (``profiled_runs_that_fit``: ``--runs`` is lowered with a note, or the check refused where one run does not
fit).

The budget is ``ORTCOPY_DOCTOR_MEMORY_BUDGET`` (bytes, or with a unit as ``--max-transfer-bytes`` takes them:
``512MB``, ``2GB``, ``4GiB``) where set, else half of the memory available when the check starts: the least of ``MemAvailable``
(/proc/meminfo), the headroom of the process's memory cgroup (v2 ``memory.max``, v1 ``memory.limit_in_bytes``, less
what the group uses but its inactive page cache) and of the address-space limit (``ulimit -v``, less what the
process maps). The other half is for what the budget does not count: Python, onnxruntime and the model's weights
(about 0.15 GB and twice the weights), the model's own tensors, and the reports.

What one profile event costs was measured on the 2-CPU machine with onnxruntime 1.31.1 (a chain of 10,000 Relus,
docs/benchmarks.md): while the session runs, ORT keeps every event in memory until the profile is written, about
2.5 KB each plus about 60 bytes per thread of its intra-op pool (each event records every thread's scheduling
statistics), and drops every event past its 1,000,000th (``Profiler::global_max_num_events_``; it logs "Maximum
number of events reached, could not record profile event" and the runs past it go missing from the profile). Once the
session is gone, its memory is given back (``release_freed``) before the parsed events, the report and its outputs
take theirs: about 2.7 KB an event at the peak without ``--trace``, 6.4 KB with every output (``--trace`` writes a
Chrome trace of every event). ``EVENT_BYTES`` covers the larger.
"""

from __future__ import annotations

import msgspec
import os
import re
from pathlib import Path

from ortcopy_doctor.model.errors import UsageError
from ortcopy_doctor.model.format import fmt_bytes

BUDGET_ENV = "ORTCOPY_DOCTOR_MEMORY_BUDGET"
# The share of the memory available that the budget takes where ORTCOPY_DOCTOR_MEMORY_BUDGET is not set.
AVAILABLE_SHARE = 0.5
# onnxruntime records at most this many profile events per session and drops the rest (profiler.cc; seen with
# 1.31.1 here: 102 runs of 10,000 Relus gave 1,000,001 lines, 99 of the 102 model_run events).
ORT_MAX_PROFILE_EVENTS = 1_000_000
# Events of a run that are not node events: model_run and the executor's; and the session's own at the start.
SESSION_EVENTS_PER_RUN = 2
SESSION_EVENTS = 8
# Bytes one profile event takes at the check's peak (measured: see the module's docstring).
EVENT_BYTES = 7168
EVENT_BYTES_PER_THREAD = 64


class Budget(msgspec.Struct, frozen=True):
    """The bytes a check may plan for, and where the figure comes from (for the messages)."""

    bytes: int
    source: str

    def describe(self) -> str:
        """"the memory budget of 512.0 MB (ORTCOPY_DOCTOR_MEMORY_BUDGET)"."""
        return f"the memory budget of {fmt_bytes(self.bytes)} ({self.source})"


# The units of --max-transfer-bytes (report.gate): decimal as the reports print sizes, KiB/MiB/GiB/TiB binary.
_SIZE = re.compile(r"\s*(\d+(?:\.\d+)?)\s*([A-Za-z]*)\s*")
_UNITS = {"": 1, "B": 1, "KB": 10**3, "MB": 10**6, "GB": 10**9, "TB": 10**12, "KIB": 2**10, "MIB": 2**20,
          "GIB": 2**30, "TIB": 2**40}


def parse_size(text: str) -> int:
    """``"512MB"`` -> 512000000, ``"2GiB"`` -> 2147483648; a plain number is bytes. A ``UsageError`` for anything
    else."""
    match = _SIZE.fullmatch(text)
    unit = match.group(2).upper() if match else ""
    if not match or unit not in _UNITS or len(match.group(1)) > 30:
        raise UsageError(f"{BUDGET_ENV}={text[:40]!r} is not a byte count: give e.g. 2000000000, 2GB, 512MB or 4GiB")
    return int(float(match.group(1)) * _UNITS[unit])


def memory_budget(environ: dict[str, str] | None = None) -> Budget:
    """The budget: ``ORTCOPY_DOCTOR_MEMORY_BUDGET`` where set, else half of ``available_memory()`` (no bound where
    nothing says how much memory there is)."""
    env = os.environ if environ is None else environ
    given = env.get(BUDGET_ENV, "").strip()
    if given:
        return Budget(bytes=parse_size(given), source=f"{BUDGET_ENV}={given}")
    available = available_memory()
    if available is None:
        return Budget(bytes=1 << 62, source="the memory available is not known here")
    amount, where = available
    return Budget(bytes=int(amount * AVAILABLE_SHARE),
                  source=f"half of the {fmt_bytes(amount)} {where}; {BUDGET_ENV} sets it")


def available_memory() -> tuple[int, str] | None:
    """The least memory the process can still take, and what says so; None where nothing does (not Linux)."""
    found: list[tuple[int, str]] = []
    meminfo = _meminfo(Path("/proc/meminfo"))
    if "MemAvailable" in meminfo:
        found.append((meminfo["MemAvailable"], "of memory available"))
    cgroup = _cgroup_headroom()
    if cgroup is not None:
        found.append((cgroup, "its memory cgroup has left"))
    address_space = _address_space_headroom()
    if address_space is not None:
        found.append((address_space, "of address space ulimit -v leaves"))
    return min(found) if found else None


def _read(path: Path) -> str:
    try:
        return path.read_text(encoding="ascii", errors="replace")
    except OSError:
        return ""


def _meminfo(path: Path) -> dict[str, int]:
    """/proc/meminfo's or /proc/self/status's ``Key: N kB`` lines, in bytes."""
    values: dict[str, int] = {}
    for line in _read(path).splitlines():
        key, _, rest = line.partition(":")
        parts = rest.split()
        if parts and parts[0].isdigit():
            values[key.strip()] = int(parts[0]) * (1024 if parts[1:2] == ["kB"] else 1)
    return values


def _stat_value(text: str, key: str) -> int:
    for line in text.splitlines():
        name, _, value = line.partition(" ")
        if name == key and value.strip().isdigit():
            return int(value)
    return 0


def _cgroup_headroom() -> int | None:
    """What the process's memory cgroup lets it take still (v2 or v1); None where no limit is set."""
    for line in _read(Path("/proc/self/cgroup")).splitlines():
        parts = line.split(":", 2)
        if len(parts) != 3:
            continue
        hierarchy, controllers, group = parts
        group = group.lstrip("/")
        if hierarchy == "0" and controllers == "":  # v2: one unified hierarchy
            root = Path("/sys/fs/cgroup") / group
            limit, usage, stat = root / "memory.max", root / "memory.current", root / "memory.stat"
        elif "memory" in controllers.split(","):  # v1
            root = Path("/sys/fs/cgroup/memory") / group
            limit, usage, stat = (root / "memory.limit_in_bytes", root / "memory.usage_in_bytes",
                                  root / "memory.stat")
        else:
            continue
        text = _read(limit).strip()
        if not text.isdigit() or int(text) >= 1 << 60:  # "max" (v2) or v1's page-rounded 2**63
            continue
        used = _read(usage).strip()
        reclaimable = _stat_value(_read(stat), "inactive_file") or _stat_value(_read(stat), "total_inactive_file")
        return max(0, int(text) - (int(used) if used.isdigit() else 0) + reclaimable)
    return None


def _address_space_headroom() -> int | None:
    try:
        import resource  # here: a Unix module (the ImportError below: elsewhere there is no limit to read)
    except ImportError:  # not a Unix
        return None
    soft, _ = resource.getrlimit(resource.RLIMIT_AS)
    if soft == resource.RLIM_INFINITY:
        return None
    mapped = _meminfo(Path("/proc/self/status")).get("VmSize", 0)
    return max(0, soft - mapped)


def intra_op_threads() -> int:
    """The threads of ORT's intra-op pool at most (it sizes the pool by the cores it may use)."""
    try:
        return len(os.sched_getaffinity(0))
    except (AttributeError, OSError):
        return os.cpu_count() or 1


def event_bytes(threads: int) -> int:
    """The bytes one profile event takes at the check's peak, with an intra-op pool of ``threads`` threads."""
    return EVENT_BYTES + EVENT_BYTES_PER_THREAD * threads


def profile_events(nodes: int, runs: int) -> int:
    """The events a profiling session records for ``runs`` runs of ``nodes`` nodes."""
    return SESSION_EVENTS + runs * (nodes + SESSION_EVENTS_PER_RUN)


class ProfilePlan(msgspec.Struct, frozen=True):
    """The profiled runs a check makes (``runs``), and the note that says why where they are fewer than asked."""

    runs: int
    note: str = ""


def profiled_runs_that_fit(nodes: int, warmup: int, runs: int, budget: Budget, input_bytes: int = 0,
                           threads: int | None = None, model: str = "the model") -> ProfilePlan:
    """The profiled runs of ``nodes`` nodes that fit, after ``warmup`` warm-up runs (profiled too), both in ORT's
    1,000,000 events and in what ``budget`` leaves after ``input_bytes`` of inputs: ``runs``, or fewer with a note.
    A ``UsageError`` naming what to change where not even one profiled run fits."""
    per_event = event_bytes(intra_op_threads() if threads is None else threads)
    left = max(0, budget.bytes - input_bytes)
    by_memory = left // per_event
    limit = min(ORT_MAX_PROFILE_EVENTS, by_memory)
    per_run = nodes + SESSION_EVENTS_PER_RUN
    fit = (limit - SESSION_EVENTS) // per_run - warmup
    if fit >= runs:
        return ProfilePlan(runs=runs)
    need = profile_events(nodes, warmup + runs)
    each = (f"each run of {model}'s {nodes:,} nodes records {per_run:,} profile events (about "
            f"{fmt_bytes(per_run * per_event)} of memory)")
    if by_memory < ORT_MAX_PROFILE_EVENTS:
        spare = f" after the inputs' {fmt_bytes(input_bytes)}" if input_bytes * 100 >= budget.bytes else ""
        bound = f"{budget.describe()} holds {by_memory:,} events{spare}"
    else:
        bound = (f"onnxruntime records at most {ORT_MAX_PROFILE_EVENTS:,} events per session and drops the rest")
    runs_text = f"{runs} profiled run{'s' if runs != 1 else ''}" + (
        f" after {warmup} warm-up run{'s' if warmup != 1 else ''}" if warmup else "")
    if fit < 1:
        if warmup and (limit - SESSION_EVENTS) // per_run >= 1:
            fix = f"lower --warmup (to {max(0, (limit - SESSION_EVENTS) // per_run - 1)} with --runs 1)"
        elif by_memory < ORT_MAX_PROFILE_EVENTS:
            fix = f"set {BUDGET_ENV} higher where the machine has the memory, or use --static"
        else:
            fix = "use --static (it predicts the copies without running the model)"
        raise UsageError(f"profiling {runs_text} would record {need:,} events: {each}, and {bound}: {fix}")
    return ProfilePlan(runs=fit, note=f"--runs {runs} lowered to {fit}: {runs_text} would record {need:,} events: "
                                      f"{each}, and {bound}")


def runs_lowered(notes: list[str]) -> str:
    """The note of ``profiled_runs_that_fit`` among an evidence's ``notes`` ("--runs 1000 lowered to 97: ..."), or
    ""."""
    return next((note for note in notes if _LOWERED.match(note)), "")


_LOWERED = re.compile(r"--runs \d+ lowered to \d+: ")


def release_freed() -> None:
    """Give the memory the C heap holds free back to the system (glibc's ``malloc_trim``), where there is one.

    onnxruntime frees its profile events after writing them, but glibc keeps the freed pages, and Python's small
    objects come from pages of their own: without this, the parsed profile and the reports piled up on top of the
    profile ORT had held (peak RSS 1.57 GB where 0.8 GB were ever in use at once, for 220,000 events)."""
    try:
        import ctypes  # here: a Python built without ctypes has nothing to trim with (the ImportError below)

        ctypes.CDLL(None).malloc_trim(0)
    except (OSError, AttributeError, ImportError):  # not glibc (musl, macOS): nothing to trim
        pass


__all__ = ["BUDGET_ENV", "Budget", "ORT_MAX_PROFILE_EVENTS", "ProfilePlan", "available_memory", "event_bytes",
           "memory_budget", "parse_size", "profile_events", "profiled_runs_that_fit", "release_freed",
           "runs_lowered"]
