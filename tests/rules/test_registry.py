"""The rule registry (ortcopy_doctor.rules.registry): each rule declared once, documented once (docs/rules.md), and
described in SARIF with its own help text."""

from __future__ import annotations

import json
import re

import pytest

from ortcopy_doctor.model.findings import Severity
from ortcopy_doctor.render.sarif import render_sarif
from ortcopy_doctor.rules import CHECK_RULES, RULES, RUN_RULES, Rule, registered
from ortcopy_doctor.rules.registry import checks, register
from render_helpers import REPO, load_fixture

RULE_MODULES = {"OCD001": "ep_not_active", "OCD002": "cpu_fallback", "OCD003": "memcpy_node", "OCD004": "feed_copy",
                "OCD005": "fetch_copy", "OCD006": "unbindable_output", "OCD007": "cpu_only_input",
                "OCD008": "cpu_preferred_node", "OCD009": "in_kernel_transfer", "OCD010": "unexplained_transfer",
                "OCD011": "census_mismatch", "OCD012": "state_carried", "OCD013": "generated_code",
                "OCD014": "cpu_provider_faster", "OCD015": "conv_algo_search",
                "OCD101": "host_round_trip", "OCD102": "state_round_trip", "OCD103": "possible_state_round_trip",
                "OCD104": "session_on_cpu", "OCD105": "host_upload", "OCD106": "host_download",
                "OCD107": "slow_new_shape", "OCD108": "cpu_faster",
                "OCD109": "shape_switch_cost"}


def _never(_context):
    raise AssertionError("a rule refused at registration must never run")


def test_a_duplicate_rule_id_raises_at_registration():
    taken = RULES[0]
    duplicate = Rule(id=taken.id, slug="a-new-slug", severity=Severity.INFO, title="Duplicate id")
    with pytest.raises(ValueError, match=f"rule id {taken.id} is declared twice"):
        register(duplicate)(_never)
    assert registered() == RULES


def test_a_duplicate_rule_slug_raises_at_registration():
    taken = RULES[0]
    duplicate = Rule(id="OCD999", slug=taken.slug, severity=Severity.INFO, title="Duplicate slug")
    with pytest.raises(ValueError, match=f"rule slug {taken.slug} is declared twice"):
        register(duplicate)(_never)
    assert registered() == RULES


def test_an_unknown_location_raises_at_registration():
    with pytest.raises(ValueError, match="location 'tensor' is not one of"):
        register(Rule(id="OCD998", slug="bad-location", severity=Severity.INFO, title="x", location="tensor"))


def test_one_module_and_one_test_file_per_rule():
    """Each rule lives in its module (rules/<module>.py, RULE) and has tests/rules/test_<id>_<module>.py."""
    from importlib import import_module

    assert [rule.id for rule in RULES] == sorted(RULE_MODULES)
    for rule, check in checks():
        module = import_module(f"ortcopy_doctor.rules.{RULE_MODULES[rule.id]}")
        assert module.RULE is rule and check.__module__ == module.__name__
        assert (REPO / "tests" / "rules" / f"test_{rule.id.lower()}_{RULE_MODULES[rule.id]}.py").is_file(), rule.id


def _sections() -> list[tuple[str, str]]:
    text = (REPO / "docs" / "rules.md").read_text(encoding="utf-8")
    return [(part.splitlines()[0], part) for part in re.split(r"^## ", text, flags=re.M)[1:]]


def test_rules_page_has_exactly_one_section_per_rule_with_its_id_slug_and_severity():
    sections = _sections()
    assert [heading for heading, _ in sections] == [f"{rule.id} {rule.slug}" for rule in RULES]
    for (heading, body), rule in zip(sections, RULES):
        first = body.split("\n\n")[1]
        assert first.startswith(f"**{rule.severity.value}.** "), heading


def test_sarif_help_is_the_rules_help(tmp_path):
    sarif = json.loads(render_sarif(load_fixture("demo", tmp_path)))
    descriptors = sarif["runs"][0]["tool"]["driver"]["rules"]
    assert [d["id"] for d in descriptors] == [rule.id for rule in CHECK_RULES]
    for descriptor, rule in zip(descriptors, CHECK_RULES):
        assert rule.help, rule.id
        assert descriptor["help"]["text"] == rule.help
        assert descriptor["help"]["markdown"] == f"**{rule.title}** (`{rule.id}` `{rule.slug}`)\n\n{rule.help}"
        assert descriptor["fullDescription"]["text"] == f"{rule.title} ({rule.slug}): {rule.help}"


def test_each_rule_is_of_one_kind_of_report_check_ids_below_100_run_ids_from_101():
    assert [r.id for r in CHECK_RULES] == [f"OCD{n:03d}" for n in range(1, 16)]
    assert [r.id for r in RUN_RULES] == [f"OCD{n}" for n in range(101, 110)]
    assert {r.report for r in CHECK_RULES} == {"check"} and {r.report for r in RUN_RULES} == {"run"}
    assert RULES == sorted(CHECK_RULES + RUN_RULES, key=lambda r: r.id)


def test_an_unknown_report_kind_raises_at_registration():
    with pytest.raises(ValueError, match="report 'watch' is not one of check, run"):
        register(Rule(id="OCD997", slug="bad-kind", severity=Severity.INFO, title="x", report="watch"))


def test_run_rules_runs_the_rules_of_its_contexts_kind_only(monkeypatch):
    from ortcopy_doctor.rules import RunContext, run_rules
    from ortcopy_doctor.rules import registry
    from ortcopy_doctor.report.pipeline import PipelineObservations, analyse_pipeline

    ran: list[str] = []
    entries = {rule_id: registry._Entry(entry.rule, lambda ctx, rid=rule_id: ran.append(rid) or [])
               for rule_id, entry in registry._REGISTRY.items()}
    obs = PipelineObservations()
    report = analyse_pipeline(obs)
    monkeypatch.setattr(registry, "_REGISTRY", entries)
    run_rules(RunContext(report=report, observations=obs))
    assert ran == [r.id for r in RUN_RULES]


def test_run_rules_of_a_check_context_runs_check_rules_only(monkeypatch, tmp_path):
    from ortcopy_doctor.analysis.copies import GraphView
    from ortcopy_doctor.rules import RuleContext, run_rules
    from ortcopy_doctor.rules import registry

    report = load_fixture("demo", tmp_path)
    ran: list[str] = []
    entries = {rule_id: registry._Entry(entry.rule, lambda ctx, rid=rule_id: ran.append(rid) or [])
               for rule_id, entry in registry._REGISTRY.items()}
    monkeypatch.setattr(registry, "_REGISTRY", entries)
    run_rules(RuleContext(evidence=report.evidence, copies=report.copies, graph=GraphView.of(report.evidence)))
    assert ran == [r.id for r in CHECK_RULES]
