"""An audit of a model zoo (``ortcopy-doctor audit MANIFEST``, issue 37): what to check (``AuditEntry``, one per model
and configuration), what each check gave (``AuditRow``, one JSONL line per row as it finishes), and what a baseline
comparison finds (``Regression``). Plain data: the runner (cli/audit.py) fills rows from each child check's report,
report/audit.py compares rows with a baseline, render/audit.py draws the index.

JSON format: every JSONL line is an ``AuditRow`` (``AUDIT_FORMAT``, ``AUDIT_FORMAT_VERSION`` in each line, so a shard's
file, a merged file and a baseline read alike).
"""

from __future__ import annotations

from typing import NamedTuple, Optional

import msgspec
from msgspec import field

from ortcopy_doctor.model.vocabulary import RegressionKind, RowStatus

AUDIT_FORMAT = "ortcopy-doctor-audit-row"
AUDIT_FORMAT_VERSION = 1
JSONL = "audit.jsonl"  # the rows' file in an audit's folder


class AuditEntry(msgspec.Struct, frozen=True, kw_only=True):
    """One row to check: a model and one configuration of it, with the ``check`` flags that make it.

    ``id`` is the row's key across runs (``--resume``, shards, baselines): the model's name, and the configuration's
    label in brackets where the manifest gives several (``resnet18[batch=8]``). ``measure``: whether the check runs
    on a GPU (False for a static prediction only, ``--static``: such rows may share a GPU)."""

    id: str
    model: str  # the model file, as the manifest resolves it (absolute, or relative to the manifest's folder)
    config: str = ""  # the configuration's label ("" where the model has one)
    args: list[str] = field(default_factory=list)  # the check's flags: ["--dim", "batch=8", "--provider", "cuda"]
    measure: bool = True
    timeout_s: float = 900.0


class AuditRow(msgspec.Struct, frozen=True, kw_only=True):
    """One finished row: how its check ended and, where it wrote a report, the numbers the index and the gate read.

    ``report`` is the path of the full report JSON beside the JSONL, relative to the JSONL's folder ("" without one).
    Copies, bytes and nodes are per run, as the check's summary gives them; ``fallback_ops`` the op types of the nodes
    that fell back to the CPU provider (sorted, each once); ``recommended`` the advice's variant ("" where not
    measured) and ``gain`` its measured speedup with its 95% interval."""

    format: str = AUDIT_FORMAT
    format_version: int = AUDIT_FORMAT_VERSION
    id: str
    model: str
    config: str = ""
    status: RowStatus
    # the child's exit status: negative where a signal killed it; check's own supervisor ends a check that native code
    # crashed (SIGSEGV) or the OOM killer ended with 4 or 3 and its line, which the row keeps as ``crashed``
    exit_code: Optional[int] = None
    error: str = ""  # the check's one-line error, or what ended the child
    stderr_tail: str = ""  # the last lines of the child's stderr, where it did not end ok
    gpu: str = ""  # the GPU the row ran on (its index in --gpus), "" for none
    gpu_busy: str = ""  # other processes seen on that GPU before measuring ("" where none, or not checked)
    started: str = ""  # when the child started: UTC, ISO 8601 to the millisecond
    seconds: float = 0.0  # the child's wall time
    ort_version: str = ""
    providers: list[str] = field(default_factory=list)  # the session's active providers
    verdict: str = ""
    copies_per_run: Optional[int] = None
    bytes_per_run: Optional[int] = None
    memcpy_nodes: Optional[int] = None
    fallback_nodes: Optional[int] = None
    fallback_ops: list[str] = field(default_factory=list)
    findings_by_severity: dict[str, int] = field(default_factory=dict)
    median_ms: Optional[float] = None
    ci_low_ms: Optional[float] = None
    ci_high_ms: Optional[float] = None
    recommended: str = ""
    recommended_label: str = ""
    gain: Optional[float] = None
    gain_ci_low: Optional[float] = None
    gain_ci_high: Optional[float] = None
    report: str = ""


class Regression(msgspec.Struct, frozen=True, kw_only=True):
    """One difference of a row from its baseline that the gate names: its kind, the row, and the words (with both
    values: "Memcpy nodes 0 -> 2")."""

    kind: RegressionKind
    id: str
    model: str
    words: str
    allowed: bool = False  # its kind was allowed (--allow-regression): named, not failing


class AuditResult(NamedTuple):
    """What the renderers of an audit read (render/registry.py, kind ``AUDIT``): its rows, the regressions against
    the baseline (None: no baseline) and the index page's title."""

    rows: list[AuditRow]
    regressions: list[Regression] | None
    title: str


__all__ = ["AUDIT_FORMAT", "AUDIT_FORMAT_VERSION", "JSONL", "AuditEntry", "AuditResult", "AuditRow", "Regression",
           "RegressionKind", "RowStatus"]
