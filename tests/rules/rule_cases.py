"""Inputs for the per-rule tests (tests/rules/test_ocdNNN_*.py): evidence recorded on the H200 (tests/fixtures/gpu,
onnxruntime-gpu 1.31.1) or a real onnxruntime CPU check of a tiny model (tests/models.py), re-analysed by the
current code; and the findings of one rule, run on the context ``analyse`` built.
"""

from __future__ import annotations

import copy
from pathlib import Path

import onnx

from fixture_loader import recorded
from ortcopy_doctor.model import codec
from ortcopy_doctor.analysis.copies import GraphView
from ortcopy_doctor.model.evidence import Evidence
from ortcopy_doctor.model.findings import Finding
from ortcopy_doctor.report.core import analyse
from ortcopy_doctor.rules import Rule, RuleContext
from ortcopy_doctor.rules.registry import checks

CUDA, CPU = "CUDAExecutionProvider", "CPUExecutionProvider"
# The rules' fix texts where they are one fixed sentence.
MEMCPY_FIX = ("Only a model or placement change removes it: give the CPU node(s) named above a device kernel "
              "(replace the op, or change its type/opset), then re-run the check. IO binding cannot remove it.")


def recorded_evidence(name: str) -> Evidence:
    """The evidence ``check`` recorded for tests/fixtures/gpu/<name>.json.gz (a fresh copy)."""
    return codec.convert(recorded(name)["report"]["evidence"], Evidence)


def cpu_check_evidence(model: onnx.ModelProto, tmp_path: Path, **dims: int) -> Evidence:
    """A real onnxruntime CPU check of ``model`` (a few runs, no binding measurement)."""
    from ortcopy_doctor.api import check

    path = tmp_path / "model.onnx"
    onnx.save(model, str(path))
    report = check(path, providers=[CPU], dims=dims, warmup_runs=1, profiled_runs=1, timed_runs=1)
    assert report.evidence.session.active_providers == [CPU]
    return report.evidence


def findings_of(rule: Rule, evidence: Evidence) -> list[Finding]:
    """``rule``'s check run on the context ``analyse`` builds for ``evidence``; the report has the same findings."""
    report = analyse(copy.deepcopy(evidence))
    check = dict((r.id, c) for r, c in checks())[rule.id]
    context = RuleContext(evidence=report.evidence, copies=report.copies, graph=GraphView.of(report.evidence),
                          census=report.census, binding=report.binding)
    found = check(context)
    assert [f for f in report.findings if f.rule == rule.id] == found, "analyse ran the rule differently"
    assert all((f.rule, f.slug, f.severity, f.title) == (rule.id, rule.slug, rule.severity.value, rule.title)
               for f in found)
    return found



# --- run rules (OCD1xx) -------------------------------------------------------------------------------------------


from pipeline_cases import pipeline_observations, state_observations  # noqa: E402,F401  (the run rules' tests)


def run_findings_of(rule: Rule, observations) -> list[Finding]:
    """``rule``'s check run on the pipeline report ``analyse_pipeline`` makes of ``observations`` (before its
    findings); the report has the same findings."""
    from msgspec.structs import replace

    from ortcopy_doctor.rules import RunContext
    from ortcopy_doctor.report.pipeline import analyse_pipeline

    report = analyse_pipeline(copy.deepcopy(observations))
    check = dict((r.id, c) for r, c in checks())[rule.id]
    found = check(RunContext(report=replace(report, findings=[]), observations=report.observations))
    assert [f for f in report.findings if f.rule == rule.id] == found, "analyse_pipeline ran the rule differently"
    assert all((f.rule, f.slug, f.severity, f.title) == (rule.id, rule.slug, rule.severity.value, rule.title)
               for f in found)
    return found
