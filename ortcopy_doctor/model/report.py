"""The report as data: what ``analyse`` (report/core.py) makes of the evidence, and the report JSON CI reads.

``Report`` is the analysis of one piece of evidence; ``ReportDocument`` is the JSON ``check --json`` writes
(``Report.to_document``), keyed by ``analysed_by`` (model/seal.py). The recommendation (``Advice``, computed by
report/recommend.py) and the "Binding: measured" view (``BindingView``, report/advice.py) are here too, with the
summary: the functions that compute them stay in report/; the types are in one place, below all of them.

JSON format: ``REPORT_FORMAT_VERSION``; the evidence inside carries its own ``format_version``. Every version and
every field added within one is listed in CHANGELOG.md. The JSON Schema ships as
``ortcopy_doctor/model/schema/report.schema.json``, generated from ``ReportDocument`` (tools/gen_schema.py); a
field added or changed here needs the schema and CHANGELOG.md updated (tests/model/test_schema.py checks it).
"""

from __future__ import annotations

import msgspec
from msgspec import field
from msgspec.structs import replace
from typing import Any

from ortcopy_doctor.model import codec
from ortcopy_doctor.model.attribution import CensusReport
from ortcopy_doctor.model.binding import BindingPlan
from ortcopy_doctor.model.copies import Copy
from ortcopy_doctor.model.evidence import Evidence
from ortcopy_doctor.model.findings import SEVERITY_RANK, Finding, Severity
from ortcopy_doctor.model.seal import analysis_key
from ortcopy_doctor.model.vocabulary import AdviceStatus, CiMethod, MeasurementStatus, Variant, VariantVerdict

REPORT_FORMAT = "ortcopy-doctor-report"
REPORT_FORMAT_VERSION = 2
# The level of every interval the report states (analysis/stats.py computes them at it).
CI_LEVEL = 0.95


class Summary(msgspec.Struct, frozen=True):
    """The report's numbers: transfers per run, by kind, node placement, run times and findings by severity."""

    copies_per_run: int
    bytes_per_run: int
    feed_copies: int
    fetch_copies: int
    memcpy_nodes: int
    in_kernel_transfers: int
    removable_by_binding: int
    nodes_by_provider: dict[str, int]
    fallback_nodes: int
    median_run_ms: float | None
    p10_run_ms: float | None
    p90_run_ms: float | None
    memcpy_node_time_us_per_run: float
    findings_by_severity: dict[str, int] = field(default_factory=dict)


class Report(msgspec.Struct, frozen=True):
    """The analysis of one piece of evidence: copies, findings, binding plan, summary and verdict."""

    evidence: Evidence
    copies: list[Copy]
    findings: list[Finding]
    binding: BindingPlan
    summary: Summary
    verdict: str
    prediction: Report | None = None  # for the requested EP, where it was not active
    census: CensusReport | None = None  # every traced transfer attributed, where the evidence has a census
    # Computed by analyse() from the binding measurement (None without one): the recommendation, and the
    # "Binding: measured" view the renderers show. Renderers read these and compute nothing.
    advice: Advice | None = None
    measured: BindingView | None = None
    # Copies of If branches and Loop/Scan bodies left out of ``copies`` and every count: measured, ones that did not
    # run in the profiled runs; predicted, those of the If branches not counted (analysis/branches.py).
    conditional_copies: list[Copy] = field(default_factory=list)
    # True where the derived sections above were read from a file as it holds them (``load_report(cache=True)``,
    # seal.py) rather than computed by this code: the file's word, which anyone can edit and seal again. Such a
    # report is rendered, never judged: ``fails`` and the CI gate (report/gate.py) refuse it.
    from_cache: bool = False

    def shown_binding(self) -> BindingPlan:
        """The plan whose code the report shows: the session's, or, where no device provider was active and the
        requested one's placement was predicted, the predicted plan (the session's has no code: every tensor is in
        host memory)."""
        predicted = self.prediction.binding if self.prediction is not None else None
        if not self.binding.applicable and predicted is not None and predicted.applicable:
            return predicted
        return self.binding

    def worst_severity(self) -> str | None:
        """The highest severity among the findings (error, warning, info), or None without findings."""
        ranks = [SEVERITY_RANK[f.severity] for f in self.findings]
        if not ranks:
            return None
        return {3: "error", 2: "warning", 1: "info"}[max(ranks)]

    def fails(self, threshold: str) -> bool:
        """Whether any finding is at or above ``threshold`` (error, warning, info; never). ``ValueError`` for a report
        read from a file's cache (``from_cache``): its findings are the file's, not this code's."""
        self.require_analysed("Report.fails")
        if threshold == "never":
            return False
        rank = Severity(threshold).rank
        return any(SEVERITY_RANK[f.severity] >= rank for f in self.findings)

    def require_analysed(self, what: str) -> None:
        """Refuse to judge a report read from a file's cache (``from_cache``): a gate must read what this code makes
        of the evidence, never what a file says it made (seal.py: the seal is no signature)."""
        if self.from_cache:
            raise ValueError(f"{what}: this report's findings and numbers were read from the file as it holds them "
                             "(load_report(cache=True)), which anyone can edit and seal again: judge a report "
                             "loaded with load_report(path), which analyses the file's evidence")

    def to_document(self) -> ReportDocument:
        """The report as the document ``--json`` writes (the evidence included), keyed for reuse (``analysed_by``)."""
        prediction = None
        if self.prediction is not None:
            p = self.prediction
            prediction = PredictionDocument(verdict=p.verdict, summary=p.summary, copies=p.copies,
                                            conditional_copies=p.conditional_copies, findings=p.findings,
                                            binding=p.binding)
        document = ReportDocument(verdict=self.verdict, summary=self.summary, copies=self.copies,
                                  conditional_copies=self.conditional_copies, findings=self.findings,
                                  binding=self.binding, prediction=prediction, census=self.census, advice=self.advice,
                                  measured=self.measured, evidence=self.evidence)
        return replace(document, analysed_by=analysis_key(document))

    def to_dict(self) -> dict[str, Any]:
        """The report as plain JSON values (``to_document`` through the codec)."""
        data: dict[str, Any] = codec.to_builtins(self.to_document())
        return data

    def advice_dict(self) -> dict[str, Any] | None:
        """The binding recommendation (recommend.py) as JSON; None without a measurement record."""
        data: dict[str, Any] | None = codec.to_builtins(self.advice)
        return data

    def headline(self) -> str:
        """The line under the verdict: current latency → best attainable, with the variant that gets there."""
        return self.advice.headline if self.advice is not None else ""

    def to_json(self) -> str:
        """The report as the JSON ``--json`` writes: ``to_document`` through the codec, indented."""
        return codec.to_json(self.to_document())


class PredictionDocument(msgspec.Struct, frozen=True, kw_only=True):
    """What analysis predicts for the requested provider where it was not active, as the report JSON holds it."""

    verdict: str
    summary: Summary
    copies: list[Copy]
    conditional_copies: list[Copy] = field(default_factory=list)
    findings: list[Finding]
    binding: BindingPlan


class ReportDocument(msgspec.Struct, frozen=True, kw_only=True):
    """The report JSON (``check --json``, ``report --json``): what analysis made of the evidence, then the evidence.

    ``analysed_by`` keys the reuse of the derived sections (``load_report(cache=True)``): the SHA-256 of the
    analysing code and of the rest of this document as the codec writes it (report/seal.py); "" where none was
    computed."""

    format: str = REPORT_FORMAT
    format_version: int = REPORT_FORMAT_VERSION
    verdict: str
    summary: Summary
    copies: list[Copy]
    # Copies of If branches and Loop/Scan bodies not counted per run (added within report version 2).
    conditional_copies: list[Copy] = field(default_factory=list)
    findings: list[Finding]
    binding: BindingPlan
    prediction: PredictionDocument | None = None
    census: CensusReport | None = None
    advice: Advice | None = None
    measured: BindingView | None = None
    evidence: Evidence
    analysed_by: str = ""


class VariantAdvice(msgspec.Struct, frozen=True):
    """One measured variant as the recommendation shows it: median, speed-up over plain run() and what it needs."""

    variant: str
    label: str
    ran: bool
    runs: int = 0
    skipped_reason: str = ""
    median_ms: float | None = None
    median_ci_low_ms: float | None = None
    median_ci_high_ms: float | None = None
    speedup: float | None = None  # median(plain) / median(variant); above 1 is faster
    speedup_ci_low: float | None = None
    speedup_ci_high: float | None = None
    verdict: VariantVerdict = VariantVerdict.NONE  # baseline, faster, slower, within_noise, not_run, not_compared
    gpu_median_ms: float | None = None
    gpu_speedup: float | None = None
    gpu_speedup_ci_low: float | None = None
    gpu_speedup_ci_high: float | None = None
    copies_per_run: int | None = None  # host<->device transfers of one call (census or promised)
    bytes_per_run: int | None = None
    needs: list[str] = field(default_factory=list)  # what the caller must do to get this variant's gain


class Advice(msgspec.Struct, frozen=True):
    """The recommendation: the variant to use, why, its measured gain and the code."""

    status: AdviceStatus  # measured, not_measured
    recommended: Variant = Variant.NONE  # plain, plan, all_device, cuda_graph ("" where not measured)
    recommended_label: str = ""
    reason: str = ""
    headline: str = ""  # the line under the verdict
    current_ms: float | None = None  # plain run()'s median
    best_ms: float | None = None  # the recommended variant's median
    speedup: float | None = None
    speedup_ci_low: float | None = None
    speedup_ci_high: float | None = None
    ci_level: float = CI_LEVEL
    ci_method: CiMethod = CiMethod.NONE  # bootstrap_paired, bootstrap, summary
    copies_removed: int | None = None
    bytes_removed: int | None = None
    needs: list[str] = field(default_factory=list)
    cuda_graph_ready: bool = False
    cuda_graph_blockers: list[str] = field(default_factory=list)
    # faster, slower, within_noise, not_compared ("" where the graph did not run)
    cuda_graph_vs_plan: VariantVerdict = VariantVerdict.NONE
    host_jitter: str = ""  # whether the GPU clock (CUDA events) confirms the difference
    code: str = ""  # the recommended code: the plan's, everything bound's or the CUDA graph's ("" for plain run())
    code_check: str = ""  # what running that code next to plain run() showed (analysis/binding.code_verdict)
    notes: list[str] = field(default_factory=list)
    runs: int = 0
    stop_reason: str = ""
    variants: list[VariantAdvice] = field(default_factory=list)
    # The lower bound of the recommended variant's speed-up (None where it is plain run() or not measured): what
    # --fail-on-gain judges. Set by ``report.recommend.advise``.
    gain_left: float | None = None


class BindingView(msgspec.Struct, frozen=True):
    """The binding measurement as the renderers show it: rows and lines, computed once by
    ``report.advice.binding_view``."""

    status: MeasurementStatus  # measured, skipped, off, failed
    one_line: str
    reason: str = ""
    conclusions: list[str] = field(default_factory=list)
    warnings: list[str] = field(default_factory=list)
    ab_rows: list[dict[str, str]] = field(default_factory=list)
    transfer_source: str = ""
    phase_rows: list[tuple[str, str, str, str]] = field(default_factory=list)  # phase, what, median, p10–p90
    phase_note: str = ""
    apart_rows: list[tuple[str, str]] = field(default_factory=list)  # session creation, first runs
    copy_guidance: list[str] = field(default_factory=list)
    graph_ready: bool = False
    graph_blockers: list[str] = field(default_factory=list)
    graph_text: str = ""
    graph_code: str = ""
    graph_code_check: str = ""  # what running the CUDA-graph code next to plain run() showed (code_verdict)
    pinned: str = ""
    all_cpu: bool = False
    all_cpu_advice: str = ""
    # (flavor, code, what running it next to plain run() showed): the code is "" where it is not offered
    code_variants: list[tuple[str, str, str]] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)
    # The recommendation (recommend.py): the winning variant, why, what it needs from the caller, its code.
    recommended: Variant = Variant.NONE
    recommendation: str = ""
    needs: list[str] = field(default_factory=list)
    host_jitter: str = ""
    recommended_code: str = ""


__all__ = ["Advice", "BindingView", "CI_LEVEL", "PredictionDocument", "REPORT_FORMAT", "REPORT_FORMAT_VERSION",
           "Report", "ReportDocument", "Summary", "VariantAdvice"]
