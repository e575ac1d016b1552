"""The report: evidence plus what the rules make of it (``analyse``), and reading the JSON format CI reads.

The report's types (``Report``, ``Summary``, ``ReportDocument``, ...) and the JSON format's version are in
model/report.py; docs/json-format.md has the layout. A field added or changed there needs the schema and
CHANGELOG.md updated (tests/model/test_schema.py checks the schema field by field).
"""

from __future__ import annotations

import re

import msgspec
from msgspec.structs import replace
from pathlib import Path
from typing import TYPE_CHECKING, Any

from ortcopy_doctor.analysis.copies import GraphView, find_copies, measured_sizes
from ortcopy_doctor.analysis.branches import heaviest_branches, split_conditional
from ortcopy_doctor.analysis.node_names import with_profiler_names
from ortcopy_doctor.analysis.stats import list_median, list_quantiles
from ortcopy_doctor.model.copies import Copy
from ortcopy_doctor.model.vocabulary import FEED, FETCH, IN_KERNEL, MEMCPY_NODE
from ortcopy_doctor.analysis.binding import make_plan
from ortcopy_doctor.analysis.census_match import UNEXPLAINED_KIND, drop_empty, explain_in_kernel, reconcile
from ortcopy_doctor.model import codec
from ortcopy_doctor.model.errors import UsageError
# The report's types live in model/report.py; named here too, where the public API and older code import them.
from ortcopy_doctor.model.report import (
    REPORT_FORMAT as REPORT_FORMAT,
    REPORT_FORMAT_VERSION as REPORT_FORMAT_VERSION,
    PredictionDocument as PredictionDocument,
    Report as Report,
    ReportDocument as ReportDocument,
    Summary as Summary,
)
from ortcopy_doctor.model.seal import analysis_key
from ortcopy_doctor.report.advice import AB_ROW_KEYS, binding_view
from ortcopy_doctor.report.recommend import advise
from ortcopy_doctor.model.evidence import FORMAT_VERSION as EVIDENCE_FORMAT_VERSION, Evidence
from ortcopy_doctor.knowledge.providers import CPU, is_device, short
from ortcopy_doctor.model.findings import Finding
from ortcopy_doctor.rules import RULES, RuleContext, run_rules
from ortcopy_doctor.model.format import fmt_bytes, fmt_run_bytes
from ortcopy_doctor.analysis.attribution import census_report, mark_confirmed
from ortcopy_doctor.model.lazy import lazy_import

if TYPE_CHECKING:
    from ortcopy_doctor.model import schema as _schema
else:  # run on first use (model/lazy.py): only report_schema reads it (tools/gen_schema.py, the tests)
    _schema = lazy_import("ortcopy_doctor.model.schema")


def _summary(evidence: Evidence, copies: list[Copy], findings: list[Finding],
             weighed: list[Copy] | None = None) -> Summary:
    """The numbers of ``copies`` (those per run); the bytes of ``weighed`` where given (a prediction's run with
    each If's heaviest branch, analysis/branches.py)."""
    by_provider: dict[str, int] = {}
    for node in evidence.nodes:
        if node.op_type in ("MemcpyToHost", "MemcpyFromHost"):
            continue  # counted as copies, not as compute
        key = short(node.provider) if node.provider else "unknown"
        by_provider[key] = by_provider.get(key, 0) + 1
    memcpy_us = 0.0
    measured = [r for r in evidence.run_events if not r.warmup]
    if measured:
        names = {c.node for c in copies if c.kind == MEMCPY_NODE}
        runs_measured = {r.run for r in measured}
        total = sum(e.dur_us for e in evidence.node_events if e.name in names and e.run in runs_measured)
        memcpy_us = total / len(measured)
    runs = evidence.timings.run_ms if evidence.timings else []
    q = list_quantiles(runs, 10) if len(runs) >= 2 else None
    severities: dict[str, int] = {}
    for f in findings:
        severities[f.severity] = severities.get(f.severity, 0) + 1
    primary = evidence.session.active_providers[0] if evidence.session.active_providers else CPU
    copies = [c for c in copies if c.count_per_run]  # a predicted copy the census did not see counts as nothing
    return Summary(
        copies_per_run=sum(c.count_per_run for c in copies),
        bytes_per_run=sum(c.bytes_per_run or 0 for c in (copies if weighed is None else weighed) if c.count_per_run),
        # per run, as copies_per_run counts them: the verdict's parts add up to its total (an LSTM with a zero
        # length makes 2 in-kernel uploads per run, one row of the table)
        feed_copies=sum(c.count_per_run for c in copies if c.kind == FEED),
        fetch_copies=sum(c.count_per_run for c in copies if c.kind == FETCH),
        memcpy_nodes=sum(c.count_per_run for c in copies if c.kind == MEMCPY_NODE),
        in_kernel_transfers=sum(c.count_per_run for c in copies if c.kind == IN_KERNEL),
        removable_by_binding=sum(1 for c in copies if c.removable_by_binding),
        nodes_by_provider=dict(sorted(by_provider.items())),
        fallback_nodes=sum(1 for n in evidence.nodes if n.provider == CPU and is_device(primary)
                           and n.fallback_reason != "cpu_preferred"),
        median_run_ms=list_median(runs) if runs else None,
        p10_run_ms=q[0] if q else None,
        p90_run_ms=q[-1] if q else None,
        memcpy_node_time_us_per_run=round(memcpy_us, 1),
        findings_by_severity=severities,
    )


def _verdict(evidence: Evidence, summary: Summary, findings: list[Finding], unexplained: int = 0,
             copies: list[Copy] | None = None, conditional: list[Copy] | None = None) -> str:
    """The one-line verdict; ``copies`` the rows it counts (their sizes, where some are unknown), ``conditional``
    the copies of If branches and loop bodies it does not count (said at its end)."""
    text = _verdict_text(evidence, summary, findings, unexplained, copies)
    if not conditional or evidence.failure or not text.endswith("."):
        return text
    n = len(conditional)
    rows = f"{n} cop{'y' if n == 1 else 'ies'}"
    if evidence.mode == "static":
        clause = f"; each If counted by its branch with the most copies ({rows} of other branches listed apart)"
    else:
        clause = f"; {rows} of If branches or loop bodies that did not run not counted (listed apart)"
    return text[:-1] + clause + "."


def _verdict_text(evidence: Evidence, summary: Summary, findings: list[Finding], unexplained: int,
                  copies: list[Copy] | None) -> str:
    if evidence.failure:
        return f"Incomplete: the check stopped early: {evidence.failure}"
    predicted = " (predicted)" if evidence.mode == "static" else ""
    inactive = [f for f in findings if f.slug == "ep-not-active"]
    if inactive:
        provider = short(str(inactive[0].details.get("provider", "")))
        return (f"{provider} was requested but is not active: the model ran on "
                f"{', '.join(short(p) for p in evidence.session.active_providers)}. {evidence.session.ep_failure}")
    primary = evidence.session.active_providers[0] if evidence.session.active_providers else CPU
    compute = sum(summary.nodes_by_provider.values())
    if not is_device(primary):
        return f"CPU-only session: no host↔device copies (all {compute} nodes on CPU)."
    on_device = summary.nodes_by_provider.get(short(primary), 0)
    on_cpu = summary.nodes_by_provider.get(short(CPU), 0)
    if summary.copies_per_run == 0:
        fallback = (f" ({summary.fallback_nodes} fall{'s' if summary.fallback_nodes == 1 else ''} back)"
                    if summary.fallback_nodes else "")
        if compute and on_cpu == compute:
            falls = f"{summary.fallback_nodes} fall{'s' if summary.fallback_nodes == 1 else ''} back"
            note = "; ".join(x for x in ("predicted" if predicted else "", falls if summary.fallback_nodes else "") if x)
            return (f"All {compute} nodes run on CPU{f' ({note})' if note else ''}, none on {short(primary)}: no tensor "
                    "crosses host↔device because the device does no work.")
        if on_device == compute:
            return f"No host↔device copies per run{predicted}: all {compute} nodes on {short(primary)}."
        others = ", ".join(f"{k}: {v}" for k, v in summary.nodes_by_provider.items() if k != short(primary))
        return (f"No host↔device copies per run{predicted}, but not every node is on {short(primary)}: "
                f"{on_device} of {compute} there; {others}{fallback}.")
    parts = []
    if summary.feed_copies:
        parts.append(f"{summary.feed_copies} feed")
    if summary.fetch_copies:
        parts.append(f"{summary.fetch_copies} fetch")
    if summary.memcpy_nodes:
        parts.append(f"{summary.memcpy_nodes} Memcpy node")
    if summary.in_kernel_transfers:
        parts.append(f"{summary.in_kernel_transfers} in-kernel")
    if unexplained:  # traced transfers no rule explains: counted, never dropped
        parts.append(f"{unexplained} unexplained")
    fallback = f"; {summary.fallback_nodes} node(s) fall back to CPU" if summary.fallback_nodes else ""
    removable = (f"; IO binding removes {summary.removable_by_binding}" if summary.removable_by_binding else "")
    # where sizes are unknown the verdict says so, rather than counting them as 0 B
    total = (fmt_run_bytes(summary.bytes_per_run, [c.bytes_per_run for c in copies if c.count_per_run])
             if copies is not None else fmt_bytes(summary.bytes_per_run))
    return (f"{summary.copies_per_run} host↔device copies per run{predicted} ({total}): "
            f"{', '.join(parts)}{fallback}{removable}.")


def analyse(evidence: Evidence, *, measured: Evidence | None = None) -> Report:
    """Rules and plan over the evidence; no onnxruntime needed. ``measured``: for the prediction of a check whose
    requested provider did not load, that check's own run, whose sizes size the copies the prediction leaves
    unknown (``analysis.copies.measured_sizes``)."""
    evidence = with_profiler_names(evidence)  # a node the model leaves unnamed: as ORT's profile names it
    graph = GraphView.of(evidence)  # once: the copies, the rules and the plan read the same view
    sizes = measured_sizes(measured, evidence) if measured is not None else None
    copies = drop_empty(find_copies(evidence, graph, sizes))
    # copies of If branches and loop bodies that do not happen on this run (or, predicted, are another branch's)
    copies, conditional = split_conditional(evidence, copies)
    census = census_report(evidence, copies)  # the transfer census makes the copies ground truth
    if census is not None:
        explained = explain_in_kernel(evidence, copies, census)
        if explained:  # in-kernel transfers only the data decides: explained by a rule, attributed again
            copies = copies + explained
            census = census_report(evidence, copies)
        assert census is not None
        copies, notes = reconcile(copies, census)  # the table equals the census per run
        census.notes.extend(notes)
        copies = mark_confirmed(copies, census)
    plan = make_plan(evidence, graph)
    findings = run_rules(RuleContext(evidence=evidence, copies=copies, graph=graph, census=census, binding=plan))
    # bytes per run: of a prediction, the run whose If branches make the most bytes (the most copies may be fewer)
    summary = _summary(evidence, copies, findings, heaviest_branches(evidence, copies, conditional))
    prediction = analyse(evidence.predicted, measured=evidence) if evidence.predicted is not None else None
    report = Report(evidence=evidence, copies=copies, findings=findings, binding=plan, summary=summary,
                    verdict=_verdict(evidence, summary, findings,
                                     sum(1 for c in copies if c.kind == UNEXPLAINED_KIND and c.count_per_run),
                                     copies=copies, conditional=conditional),
                    prediction=prediction, census=census, conditional_copies=conditional)
    report = replace(report, advice=advise(report))
    return replace(report, measured=binding_view(report))


def load_report(path: Path | str, *, cache: bool = False) -> Report:
    """Re-analyse a report or evidence JSON written by ``--json`` with this code's rules; needs no ORT session or GPU.

    ``cache=True``, for rendering only: a report whose ``analysed_by`` key matches this code and what it holds
    (seal.py) is read as it is, its copies, findings, verdict and summary taken from the file (a third to a fifth of the
    time for a 10,000-node report). The seal is no signature: anyone can edit a file and seal it again, so such a
    report says what the file says. It is marked ``from_cache``, and ``Report.fails`` and the CI gate refuse it.
    What is read is checked (the types; each finding's rule and slug against the rules; the values the renderers
    compute with): a file that fails a check is re-analysed, as is any file without a matching seal."""
    return _load_report(Path(path), cache=cache)


def load_report_bytes(data: bytes, name: str = "stdin", *, cache: bool = False) -> Report:
    """``load_report`` of a JSON document already read (``report -`` reads stdin); ``name`` names it in errors."""
    return _load_report(Path(name), data, cache=cache)


def _check_version(path: Path, what: str, version: object, newest: int) -> None:
    """Refuse a ``format_version`` (of the report, or of the evidence inside it) that this code does not read
    (``codec.version_problem``)."""
    problem = codec.version_problem(version, newest, "`check --json`")
    if problem:
        raise UsageError(f"{path} has {what} {problem}")


class _Envelope(msgspec.Struct, frozen=True):
    """What ``load_report`` reads first: which format a document is, its parts left as raw JSON."""

    format: Any = None
    format_version: Any = REPORT_FORMAT_VERSION
    evidence: msgspec.Raw = msgspec.Raw(b"")  # (msgspec reads no Raw in a union: empty where absent)
    analysed_by: Any = ""
    # a bare evidence document (written by older versions, or by `check --json` of the first format) has these
    model: msgspec.Raw = msgspec.Raw(b"")
    session: msgspec.Raw = msgspec.Raw(b"")


_AN_OBJECT = re.compile(rb"[ \t\r\n]*\{")  # JSON text that is an object (what the JSON grammar allows before it)


def _load_report(path: Path, raw: bytes | None = None, *, cache: bool = False) -> Report:
    try:
        if raw is None:
            raw = path.read_bytes()
    except FileNotFoundError:
        raise UsageError(f"{path} not found: pass a JSON file written by `ortcopy-doctor check --json`") from None
    except OSError as exc:
        raise UsageError(f"{path} is not readable JSON ({codec.message(exc)}): pass a file written by "
                         "`check --json`") from None
    if cache:  # a report this code keyed: read once, as it is (a file of another format or version is read below)
        document = _current_document(raw)
        if document is not None:
            stored = _stored_from(document)
            # keyed by other code, or edited: re-analysed, its evidence as decoded here (not decoded a second time)
            return stored if stored is not None else _analysed(path, document.evidence)
    try:
        envelope = codec.decode(raw, _Envelope)
    except codec.ValidationError:  # JSON, but no object
        raise UsageError(f"{path} is not an ortcopy-doctor report: pass a file written by `check --json`") from None
    except codec.DecodeError as exc:
        reason = "it is empty" if not raw.strip() else codec.message(exc)
        raise UsageError(f"{path} is not readable JSON ({reason}): pass a file written by `check --json`") from None
    except RecursionError:
        raise UsageError(f"{path} is nested too deeply to be a report: pass a file written by `check --json`") from None
    evidence_raw: Any = raw
    if envelope.format == REPORT_FORMAT:
        _check_version(path, "report", envelope.format_version, REPORT_FORMAT_VERSION)
        evidence_raw = envelope.evidence
    elif not envelope.model or not envelope.session:
        evidence_raw = None
    if evidence_raw is None or not _AN_OBJECT.match(memoryview(evidence_raw)):  # (no copy of the evidence's bytes)
        raise UsageError(f"{path} is not an ortcopy-doctor report: pass a file written by `check --json`")
    try:
        version = codec.decode(evidence_raw, codec.Header).format_version
        _check_version(path, "evidence", 0 if version is None else version, EVIDENCE_FORMAT_VERSION)
        evidence = codec.decode(evidence_raw, Evidence)
    except (codec.DecodeError, TypeError, KeyError, ValueError, AttributeError, IndexError, RecursionError) as exc:
        raise _not_evidence(path, exc) from None
    return _analysed(path, evidence)


def _analysed(path: Path, evidence: Evidence) -> Report:
    """``analyse(evidence)``, the evidence of the file at ``path``; an error of the analysis (the values, kinds,
    directions and sizes, are checked by the analysis itself) is a ``UsageError`` saying the file does not match."""
    try:
        return analyse(evidence)
    except (TypeError, KeyError, ValueError, AttributeError, IndexError, RecursionError) as exc:
        raise _not_evidence(path, exc) from None


def _not_evidence(path: Path, exc: Exception) -> UsageError:
    """The error for a file whose evidence does not decode, or that its analysis cannot take."""
    return UsageError(f"{path} does not match the evidence format ({codec.message(exc)}): pass a file written by "
                      "`check --json`")


def _current_document(raw: bytes) -> ReportDocument | None:
    """``raw`` decoded as a report of this format and version, whose evidence is of this version; None where it is
    not one (``load_report`` then reads it as any file: its format and versions checked, its evidence decoded)."""
    try:
        document = codec.decode(raw, ReportDocument)
    except (codec.DecodeError, RecursionError):
        return None
    if (document.format, document.format_version, document.evidence.format_version) != (
            REPORT_FORMAT, REPORT_FORMAT_VERSION, EVIDENCE_FORMAT_VERSION):
        return None
    return document


def _stored_report(raw: bytes) -> Report | None:
    """The report ``raw`` holds, read as it is (``_stored_from``), where it is a report of this format and version
    (``_current_document``); None where it is not one, or cannot be read as it is."""
    document = _current_document(raw)
    return None if document is None else _stored_from(document)


def _stored_from(stored: ReportDocument) -> Report | None:
    """The report ``stored`` holds, read as it is rather than re-analysed (``from_cache``), where its ``analysed_by``
    is this code's key for what it holds (seal.py), so that re-analysis would give back what it holds unless someone
    edited it and keyed it again. None where it has no key or another one, or what it holds fails ``cache_problem``
    (then ``load_report`` re-analyses its evidence)."""
    evidence = stored.evidence
    if not stored.analysed_by or analysis_key(replace(stored, analysed_by="")) != stored.analysed_by:
        return None
    prediction = None
    if stored.prediction is not None:
        predicted = evidence.predicted
        # analyse() of the predicted evidence: the same, where it has no census, measurement or prediction of its own
        if (predicted is None or predicted.census is not None or predicted.binding_measurement is not None
                or predicted.predicted is not None):
            return None
        p = stored.prediction
        prediction = Report(evidence=with_profiler_names(predicted), copies=p.copies, findings=p.findings,
                            binding=p.binding, summary=p.summary, verdict=p.verdict,
                            conditional_copies=p.conditional_copies)
    elif evidence.predicted is not None:
        return None
    report = Report(evidence=evidence, copies=stored.copies, findings=stored.findings, binding=stored.binding,
                    summary=stored.summary, verdict=stored.verdict, prediction=prediction, census=stored.census,
                    advice=stored.advice, measured=stored.measured, conditional_copies=stored.conditional_copies,
                    from_cache=True)
    return None if cache_problem(report) else report


def cache_problem(report: Report) -> str | None:
    """What in a report read from a file's cache (``_stored_report``) this code's analysis never makes, and a
    renderer would compute with or print as it is: the first such field, named; None where there is none.

    The decoder checks the types (a string where a number belongs, a null where none may be); this checks what
    types cannot say: each finding's rule and slug are a rule of this code's (the terminal prints them as they
    are), and the values that come together come together (the run-time quantiles, the speed-up and its interval,
    the columns of the A/B rows)."""
    slugs = {r.id: r.slug for r in RULES}
    for where, one in (("", report), ("prediction.", report.prediction)):
        if one is None:
            continue
        for i, f in enumerate(one.findings):
            if slugs.get(f.rule) != f.slug:
                return f"{where}findings[{i}]: rule {f.rule!r} slug {f.slug!r} is no rule of this ortcopy-doctor"
        s = one.summary
        if len({v is None for v in (s.median_run_ms, s.p10_run_ms, s.p90_run_ms)}) > 1:
            return f"{where}summary: median_run_ms, p10_run_ms and p90_run_ms are not all numbers or all null"
    advice = report.advice
    if advice is not None and len({v is None for v in (advice.speedup, advice.speedup_ci_low,
                                                       advice.speedup_ci_high)}) > 1:
        return "advice: speedup, speedup_ci_low and speedup_ci_high are not all numbers or all null"
    if report.measured is not None:
        for i, row in enumerate(report.measured.ab_rows):
            if set(row) != AB_ROW_KEYS:
                return f"measured.ab_rows[{i}]: its columns are not {', '.join(sorted(AB_ROW_KEYS))}"
    return None


def report_schema() -> dict[str, Any]:
    """The JSON Schema (draft 2020-12) of the report JSON, generated from ``ReportDocument`` and the types it holds
    (``model/schema/report.schema.json`` is this, written by tools/gen_schema.py; a test keeps it current)."""
    return _schema.generated(
        ReportDocument, _schema.SCHEMA_ID, "ortcopy-doctor report",
        f"The JSON written by `ortcopy-doctor check --json` and `report --json` (format version "
        f"{REPORT_FORMAT_VERSION}; evidence format version {EVIDENCE_FORMAT_VERSION}), generated from the types that "
        "write and read it. Readers should ignore keys they do not know: fields are added within a format version; a "
        "removal, rename or change of meaning bumps format_version. The change log is CHANGELOG.md.")
