"""The recommendation (recommend.py), the headline under the verdict, the advice in the JSON, --fail-on-gain, and
the truth of the verdict against the placement and copies of the same report, on every recorded fixture.

The GPU evidence (tests/fixtures/gpu, tests/fixtures/binding) was recorded on the H200 before raw samples were
kept: their intervals are the approximate ones from the summary quantiles (stats.summary_ratio_ci). The synthetic
measurements here carry raw samples.
"""

from __future__ import annotations

import copy
import msgspec
import gzip
import json
import re
from statistics import NormalDist

import numpy as np
import onnx
import pytest

import models
from fixture_loader import recorded_report
from ortcopy_doctor.render.html import render_html
from ortcopy_doctor.render.text import render_text
from ortcopy_doctor.report.advice import binding_view
from ortcopy_doctor.model.errors import UsageError
from ortcopy_doctor.model.evidence import BindingMeasurement, VariantTiming
from ortcopy_doctor.report.gate import Gate, evaluate, parse_gain
from ortcopy_doctor.report.recommend import advise
from ortcopy_doctor.report.core import Report, analyse, load_report
from render_helpers import REPO, TESTS, write_report_json
from schema_helpers import assert_valid_report, run_cli

FIXTURES = TESTS / "fixtures"
GPU_FIXTURES = sorted(p.name.split(".")[0] for p in (FIXTURES / "gpu").glob("*.json.gz"))
BINDING_FIXTURES = sorted((FIXTURES / "binding").glob("*.json.gz"))
_SEEDS = {"plain": 1, "plan": 2, "all_device": 3, "cuda_graph": 4}


def _samples(variant, median, rel_sigma=0.03, n=101):
    values = [median * (1.0 + rel_sigma * NormalDist().inv_cdf((i + 0.5) / n)) for i in range(n)]
    np.random.default_rng(_SEEDS[variant]).shuffle(values)
    return values


def _v(variant, median, ran=True, h2d=0, d2h=0, skipped="", gpu=None):
    samples = _samples(variant, median) if ran else None
    q = np.percentile(samples, [10, 25, 50, 75, 90]) if ran else [None] * 5
    return VariantTiming(variant=variant, label=variant, ran=ran, skipped_reason=skipped, runs=len(samples or []),
                         median_ms=q[2], p10_ms=q[0], p25_ms=q[1], p75_ms=q[3], p90_ms=q[4],
                         h2d_count=h2d, h2d_bytes=1000 * h2d, d2h_count=d2h, d2h_bytes=1000 * d2h,
                         transfer_source="census", samples_ms=samples,
                         gpu_samples_ms=_samples(variant, gpu) if gpu is not None else None)


def _measured(name, tmp_path, variants) -> Report:
    report = recorded_report(name, tmp_path)
    evidence = msgspec.structs.replace(copy.deepcopy(report.evidence), binding_measurement=BindingMeasurement(
        status="measured", runs=101, warmup_runs=3, transfer_source="census", variants=variants))
    return analyse(evidence)


# --- the choice ---------------------------------------------------------------------------------------------------


def test_ready_and_faster_cuda_graph_is_recommended(tmp_path):
    # The resnet18 numbers: plain 1.678, plan 1.255, all bound 1.209, CUDA graph 0.843 ms.
    report = _measured("conv_net", tmp_path, [_v("plain", 1.678, h2d=1, d2h=1), _v("plan", 1.255),
                                              _v("all_device", 1.209), _v("cuda_graph", 0.843)])
    advice = advise(report)
    assert advice.recommended == "cuda_graph"
    assert advice.speedup == pytest.approx(1.678 / 0.843, rel=1e-6)
    assert advice.speedup_ci_low < 1.678 / 0.843 < advice.speedup_ci_high and advice.speedup_ci_low > 1.0
    assert advice.ci_method == "bootstrap_paired"
    assert advice.cuda_graph_vs_plan == "faster"
    assert any(n.startswith("fixed shapes") for n in advice.needs)
    assert any("update_inplace()" in n for n in advice.needs)
    assert (advice.copies_removed, advice.bytes_removed) == (2, 2000)
    assert advice.headline == (
        f"Latency 1.678 ms now (plain run()) → 0.843 ms with the CUDA graph: {advice.speedup:.2f}x faster "
        f"(95% CI {advice.speedup_ci_low:.2f}–{advice.speedup_ci_high:.2f}), 2 host↔device copies (2.0 KB) per run "
        "removed, needs fixed shapes and fixed input buffers (update_inplace).")


def test_plan_is_recommended_where_the_graph_is_not_faster(tmp_path):
    report = _measured("conv_net", tmp_path, [_v("plain", 1.0, h2d=1), _v("plan", 0.7), _v("cuda_graph", 0.7)])
    advice = advise(report)
    assert advice.recommended == "plan"
    assert advice.cuda_graph_vs_plan == "within_noise"
    assert "the CUDA graph is not measurably faster than the binding plan: 0.700 ms vs 0.700 ms" in advice.reason
    assert advice.headline.startswith("Latency 1.000 ms now (plain run()) → 0.700 ms with the binding plan: 1.43x faster")


def test_blocked_graph_leaves_the_plan(tmp_path):
    report = _measured("demo", tmp_path, [_v("plain", 0.3, h2d=1, d2h=2), _v("plan", 0.2),
                                          _v("cuda_graph", 0, ran=False, skipped="5 blocker(s)")])
    advice = advise(report)
    assert advice.recommended == "plan" and not advice.cuda_graph_ready
    assert len(advice.cuda_graph_blockers) == 5
    assert "the CUDA graph is blocked (5 blocker(s)" in advice.reason
    assert advice.needs and advice.needs[0].startswith("reuse the bound device input buffer")
    assert advice.headline.endswith("needs the device input buffers reused (update_inplace).")


@pytest.mark.parametrize("plan_ms", [1.0, 1.3], ids=["within_noise", "slower"])
def test_nothing_faster_keeps_plain_run(tmp_path, plan_ms):
    report = _measured("conv_net", tmp_path, [_v("plain", 1.0), _v("plan", plan_ms), _v("cuda_graph", plan_ms)])
    advice = advise(report)
    assert advice.recommended == "plain"
    assert advice.gain_left is None and advice.needs == []
    assert advice.headline.startswith("Latency 1.000 ms with plain run(), the best measured: no variant is measurably "
                                      "faster (plan ")
    assert advice.headline.endswith("; keep plain run().")
    assert advice.reason.startswith("no variant is measurably faster than plain run(): plan ")


def test_graph_faster_than_plain_but_not_than_a_faster_plan_is_not_recommended(tmp_path):
    report = _measured("conv_net", tmp_path, [_v("plain", 1.0), _v("plan", 0.8), _v("cuda_graph", 0.798)])
    assert advise(report).recommended == "plan"


def test_never_a_variant_slower_than_plain(tmp_path):
    report = _measured("conv_net", tmp_path, [_v("plain", 1.0), _v("plan", 1.5), _v("cuda_graph", 1.2)])
    advice = advise(report)
    assert advice.recommended == "plain"
    assert {v.variant: v.verdict for v in advice.variants} == {"plain": "baseline", "plan": "slower",
                                                               "cuda_graph": "slower"}


def test_host_jitter_is_told_apart_with_cuda_events(tmp_path):
    # Host clock: plan 1.25x faster; GPU clock: the same time. The difference is host-side.
    report = _measured("demo", tmp_path, [_v("plain", 1.0, gpu=0.5), _v("plan", 0.8, gpu=0.5)])
    assert advise(report).host_jitter.startswith("possibly: the GPU clock (CUDA events) says within noise")
    confirmed = _measured("demo", tmp_path, [_v("plain", 1.0, gpu=0.9), _v("plan", 0.8, gpu=0.7)])
    assert advise(confirmed).host_jitter.startswith("no: the GPU clock (CUDA events) confirms it, 1.29x faster")
    without = _measured("demo", tmp_path, [_v("plain", 1.0), _v("plan", 0.8)])
    assert advise(without).host_jitter.startswith("not checked: no CUDA-event timing in this record")


def test_unmeasured_record_gives_the_reason(tmp_path):
    report = recorded_report("conv_net", tmp_path)
    evidence = msgspec.structs.replace(copy.deepcopy(report.evidence), binding_measurement=BindingMeasurement(
        status="skipped", reason="the CUDA EP is not active here"))
    advice = advise(analyse(evidence))
    assert advice.status == "not_measured" and advice.recommended == ""
    assert advice.headline == "Best attainable latency not measured: the CUDA EP is not active here"
    evidence = msgspec.structs.replace(evidence, binding_measurement=None)
    assert advise(analyse(evidence)) is None


# --- the report: headline, JSON, schema ---------------------------------------------------------------------------


def test_headline_is_the_second_line_of_text_and_html(tmp_path):
    report = _measured("conv_net", tmp_path, [_v("plain", 1.678, h2d=1, d2h=1), _v("plan", 1.255),
                                              _v("cuda_graph", 0.843)])
    headline = advise(report).headline
    lines = render_text(report, width=1000).splitlines()
    assert lines[0] == report.verdict
    assert lines[1] == headline
    html = render_html(report)
    assert html.index('id="verdict"') < html.index('id="headline"') < html.index('id="copies"')
    assert 'class="recommended"' in html
    # The first code block is the recommended one: the CUDA graph's, the plan's folded below it.
    first = html.index('<code id="binding-code">')
    assert html.index("Recommended: the CUDA graph, ") < first < html.index('id="binding-plan-code"')
    assert "enable_cuda_graph" in html[first:html.index("</code>", first)]


def test_advice_is_in_the_json_and_validates(tmp_path):
    report = _measured("conv_net", tmp_path, [_v("plain", 1.678, h2d=1, d2h=1), _v("plan", 1.255),
                                              _v("all_device", 1.209), _v("cuda_graph", 0.843)])
    data = assert_valid_report(json.loads(report.to_json()))
    advice = data["advice"]
    assert advice["recommended"] == "cuda_graph"
    assert advice["gain_left"] == advice["speedup_ci_low"] > 1.9
    assert [v["variant"] for v in advice["variants"]] == ["plain", "plan", "all_device", "cuda_graph"]
    graph = advice["variants"][3]
    assert graph["median_ci_low_ms"] <= graph["median_ms"] <= graph["median_ci_high_ms"]
    assert graph["verdict"] == "faster" and graph["needs"]
    assert data["format_version"] == 2


def test_advice_is_null_without_a_measurement(tmp_path):
    report = recorded_report("conv_net", tmp_path)
    data = assert_valid_report(json.loads(analyse(msgspec.structs.replace(report.evidence, binding_measurement=None)).to_json()))
    assert data["advice"] is None


# --- --fail-on-gain -----------------------------------------------------------------------------------------------


@pytest.mark.parametrize("text, value", [("1.2x", 1.2), ("1.2", 1.2), ("20%", 1.2), ("1X", 1.0), ("2×", 2.0)])
def test_parse_gain(text, value):
    assert parse_gain(text) == pytest.approx(value)


@pytest.mark.parametrize("text", ["fast", "0.9x", "-1", "1.2y"])
def test_parse_gain_refuses(text):
    with pytest.raises(UsageError, match="--fail-on-gain"):
        parse_gain(text)


def test_gain_gate_fails_by_the_lower_bound(tmp_path):
    report = _measured("conv_net", tmp_path, [_v("plain", 1.0), _v("plan", 0.8), _v("cuda_graph", 0.8)])
    advice = advise(report)
    assert advice.recommended == "plan" and advice.speedup == pytest.approx(1.25, rel=1e-3)
    low = advice.speedup_ci_low
    assert 1.2 < low < 1.25
    failed = evaluate(report, Gate(fail_on="never", fail_on_gain=1.2))
    assert failed.failed and len(failed.reasons) == 1
    assert "left on the table" in failed.reasons[0] and "--fail-on-gain 1.2x" in failed.reasons[0]
    # The point estimate is above 1.25x only by noise: judged by the lower bound, 1.25x passes.
    assert not evaluate(report, Gate(fail_on="never", fail_on_gain=1.25)).failed


def test_gain_gate_passes_when_plain_run_is_best_and_notes_when_unmeasured(tmp_path):
    report = _measured("conv_net", tmp_path, [_v("plain", 1.0), _v("plan", 1.0)])
    assert not evaluate(report, Gate(fail_on="never", fail_on_gain=1.0)).failed
    result = evaluate(analyse(msgspec.structs.replace(report.evidence, binding_measurement=None)),
                      Gate(fail_on="never", fail_on_gain=1.2))
    assert not result.failed
    assert result.notes == ["--fail-on-gain: not judged: no binding measurement in this report"]


def test_report_command_fails_on_gain(tmp_path):
    report = _measured("conv_net", tmp_path, [_v("plain", 1.678), _v("plan", 1.255), _v("cuda_graph", 0.843)])
    src = tmp_path / "r.json"
    src.write_text(report.to_json(), encoding="utf-8")
    over = run_cli(["report", src.name, "--fail-on-gain", "1.5x"], tmp_path)
    assert over.returncode == 1, over.stdout + over.stderr
    assert "gate failed: a measured speed-up of 1.99x" in over.stdout
    under = run_cli(["report", src.name, "--fail-on-gain", "3x"], tmp_path)
    assert under.returncode == 0, under.stdout + under.stderr
    bad = run_cli(["report", src.name, "--fail-on-gain", "fast"], tmp_path)
    assert bad.returncode == 2 and "--fail-on-gain 'fast' is not a speed-up" in bad.stderr


# --- verdict truth on every fixture --------------------------------------------------------------------------------


def assert_verdict_true(report: Report) -> None:
    """The verdict's claims against the placement and copies of the same report."""
    verdict, s = report.verdict, report.summary
    if report.evidence.failure or verdict.startswith(("Incomplete", "CPU-only session")) or " was requested but " in verdict:
        return
    on = re.search(r"all (\d+) nodes on (\w+)", verdict)
    if on:
        assert s.nodes_by_provider == {on.group(2): int(on.group(1))}, (verdict, s.nodes_by_provider)
    if "No host↔device copies" in verdict or "no tensor crosses" in verdict:
        assert s.copies_per_run == 0, verdict
    if s.copies_per_run:
        assert verdict.startswith(f"{s.copies_per_run} host↔device copies per run"), verdict
    if s.fallback_nodes:
        assert f"{s.fallback_nodes} node(s) fall back to CPU" in verdict or f"{s.fallback_nodes} fall" in verdict, verdict
    if s.nodes_by_provider.get("CPU"):
        assert not on, verdict


@pytest.mark.parametrize("name", GPU_FIXTURES)
def test_verdict_is_true_on_the_gpu_fixtures(name, tmp_path):
    report = recorded_report(name, tmp_path)
    assert_verdict_true(report)
    if report.prediction is not None:
        assert_verdict_true(report.prediction)


@pytest.mark.parametrize("path", BINDING_FIXTURES, ids=lambda p: p.name.split(".")[0])
def test_verdict_is_true_on_the_binding_fixtures(path, tmp_path):
    with gzip.open(path, "rt", encoding="utf-8") as f:
        data = json.load(f)
    assert_verdict_true(load_report(write_report_json(data["report"], tmp_path / "r.json")))


def _static(model, tmp_path, dims):
    from ortcopy_doctor.api import check

    path = tmp_path / "m.onnx"
    onnx.save(model, str(path))
    return check(path, dims=dims, static=True)


@pytest.mark.parametrize("name", sorted(models.ALL))
def test_verdict_is_true_on_the_static_prediction(name, tmp_path):
    assert_verdict_true(_static(models.ALL[name](), tmp_path, {"batch": 2, "rows": 4, "cols": 8}))


def test_all_cpu_ml_static_verdict_does_not_claim_cuda(tmp_path):
    # Seen: "No host↔device copies per run (predicted): all 3 nodes on CUDA" above cpu-fallback warnings.
    import importlib.util

    spec = importlib.util.spec_from_file_location("record_binding_ab", REPO
                                                  / "tools" / "record_binding_ab.py")
    tool = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(tool)
    report = _static(tool.all_cpu_ml_model(), tmp_path, {"batch": 4})
    assert report.summary.nodes_by_provider == {"CPU": 3}
    assert report.verdict == ("All 3 nodes run on CPU (predicted; 3 fall back), none on CUDA: no tensor crosses "
                              "host↔device because the device does no work.")
    assert_verdict_true(report)


def test_partly_cpu_verdict_names_the_split(tmp_path):
    from ortcopy_doctor.report.core import _verdict

    report = recorded_report("conv_net", tmp_path)
    summary = msgspec.structs.replace(report.summary, copies_per_run=0, bytes_per_run=0, feed_copies=0, fetch_copies=0,
                                  nodes_by_provider={"CPU": 2, "CUDA": 5}, fallback_nodes=1)
    verdict = _verdict(report.evidence, summary, [])
    assert verdict == ("No host↔device copies per run, but not every node is on CUDA: 5 of 7 there; CPU: 2 "
                       "(1 falls back).")
    summary = msgspec.structs.replace(summary, nodes_by_provider={"CUDA": 7}, fallback_nodes=0)
    assert _verdict(report.evidence, summary, []) == "No host↔device copies per run: all 7 nodes on CUDA."


def test_check_on_cpu_notes_that_the_gain_is_not_judged(tmp_path):
    onnx.save(models.conv_net(), str(tmp_path / "m.onnx"))
    result = run_cli(["check", "m.onnx", "--dim", "batch=2", "--timed-runs", "2", "--no-html", "--fail-on", "never",
                      "--fail-on-gain", "1.2x", "--measure-budget", "0.5"], tmp_path, timeout=300)
    if "Binding measured" in result.stdout:
        pytest.skip("CUDA is active here: the gain is judged (tests/report/test_binding_replay.py territory)")
    assert result.returncode == 0, result.stdout + result.stderr
    assert "note: --fail-on-gain: not judged: " in result.stdout
    assert result.stdout.splitlines()[1].startswith("Best attainable latency not measured: ")


def test_zero_or_missing_timings_give_no_interval_rather_than_a_crash(tmp_path):
    from ortcopy_doctor.report.variants import compare

    zero = _v("plan", 0.5)
    zero = msgspec.structs.replace(zero, samples_ms=[0.0] * len(zero.samples_ms), median_ms=0.0, p25_ms=0.0, p75_ms=0.0)
    assert compare(_v("plain", 1.0), zero).verdict == "not_compared"
    report = _measured("conv_net", tmp_path, [_v("plain", 1.0), zero])
    advice = advise(report)
    assert advice.recommended == "plain"
    assert json.loads(report.to_json())["advice"]["variants"][1]["verdict"] == "not_compared"


def test_docs_state_the_recommendation_for_every_binding_fixture(tmp_path):
    """The A/B table of docs/verification.md (recorded with raw samples, tests/fixtures/binding_ab) says what the
    replay says."""
    text = (REPO / "docs" / "verification.md").read_text(encoding="utf-8")
    labels = {"plan": "plan", "cuda_graph": "CUDA graph", "plain": "plain run()", "all_device": "all on device"}
    fixtures = sorted((TESTS / "fixtures" / "binding_ab").glob("*.json.gz"))
    assert len(fixtures) == 11
    for path in fixtures:
        with gzip.open(path, "rt", encoding="utf-8") as f:
            report = load_report(write_report_json(json.load(f)["report"], tmp_path / "r.json"))
        a = advise(report)
        name = path.name.split(".")[0]
        label = labels[a.recommended] + (" (host-only binding)" if name == "all_cpu_ml" else "")
        row = [line for line in text.splitlines() if line.startswith(f"| {name} | ")
               and f" | {a.runs} | " in line]
        assert len(row) == 1, name
        assert f" | {label} | {a.speedup:.2f}x ({a.speedup_ci_low:.2f}–{a.speedup_ci_high:.2f}) | " in row[0], row[0]


def test_a_recorded_spread_too_wide_for_a_float_is_reported_not_crashed_on(tmp_path):
    """A variant whose p75 is ~400x its median: `report` once exited 4 (OverflowError in the interval)."""
    from render_helpers import fixture_report_dict

    data = fixture_report_dict("demo")  # recorded without raw samples: the interval comes from the quantiles
    data["evidence"]["binding_measurement"]["variants"][1]["p75_ms"] = 1e5
    (tmp_path / "wide.json").write_text(json.dumps(data), encoding="utf-8")
    result = run_cli(["report", "wide.json", "--json", "-"], tmp_path)
    assert result.returncode == 0, result.stderr
    assert json.loads(result.stdout)["advice"]["headline"] == (
        "Latency 0.225 ms with plain run(), the best measured: no variant is measurably faster (plan within noise "
        "(1.20x, 95% CI 0.00–inf, approximate: no raw samples recorded)); keep plain run().")


def _wide_report_json(tmp_path) -> str:
    from render_helpers import fixture_report_dict

    data = fixture_report_dict("demo")  # recorded without raw samples: the interval comes from the quantiles
    data["evidence"]["binding_measurement"]["variants"][1]["p75_ms"] = 1e5
    (tmp_path / "wide.json").write_text(json.dumps(data), encoding="utf-8")
    result = run_cli(["report", "wide.json", "--json", "-"], tmp_path)
    assert result.returncode == 0, result.stderr
    return result.stdout


def test_an_unbounded_interval_is_written_as_null_in_strict_json(tmp_path):
    """JSON has no Infinity: jq, JSON.parse and Go refused the report that wrote `"speedup_ci_high": Infinity`."""
    def refuse(name):
        raise ValueError(name)

    data = json.loads(_wide_report_json(tmp_path), parse_constant=refuse)
    plan = next(v for v in data["advice"]["variants"] if v["variant"] == "plan")
    assert (plan["speedup_ci_low"], plan["speedup_ci_high"]) == (0.0, None)
    assert_valid_report(data)


def test_a_median_interval_from_a_wide_spread_stops_at_zero(tmp_path):
    """From the quantiles, median ± half-width once gave a latency interval of -25751.958 to 25752.332 ms."""
    data = json.loads(_wide_report_json(tmp_path))
    plan = next(v for v in data["advice"]["variants"] if v["variant"] == "plan")
    assert (plan["median_ci_low_ms"], round(plan["median_ci_high_ms"], 3)) == (0.0, 25752.332)


# --- the fastest variant that ran correctly (issue 36) --------------------------------------------------------------


def _checked(name, tmp_path, variants, failed_check=None) -> Report:
    """A measured report whose evidence says every code block was run next to plain run() (code_checks), as a
    check does now: every candidate, everything bound on the device too, is recommended on its measurement."""
    from ortcopy_doctor.model.evidence import CodeCheck

    report = recorded_report(name, tmp_path)
    checks = [CodeCheck(block=b, status="matched", device="cuda", calls=4) for b in ("plan", "all_device")]
    if failed_check is not None:
        checks.append(failed_check)
    evidence = msgspec.structs.replace(copy.deepcopy(report.evidence), code_checks=checks, binding_measurement=(
        BindingMeasurement(status="measured", runs=101, warmup_runs=3, transfer_source="census", variants=variants)))
    return analyse(evidence)


def test_everything_bound_is_recommended_where_it_is_the_fastest_variant_that_ran(tmp_path):
    """Issue 36: the VAD's plan code failed (a random sr), and the recommendation fell back to plain run() although
    everything bound on the device had run 1.06-1.13x faster. Now the fastest variant that ran is recommended, the
    failure is a finding, and the code offered is everything bound's."""
    failed = VariantTiming(variant="plan", label="plan", ran=False, failed=True,
                           skipped_reason="the binding plan's code failed: call 1 raised RuntimeError: Pad reflect")
    report = _checked("conv_net", tmp_path, [_v("plain", 1.10, h2d=1, d2h=1), failed, _v("all_device", 1.0)])
    advice = report.advice
    assert advice.recommended == "all_device"
    assert advice.speedup == pytest.approx(1.10, rel=1e-6) and advice.speedup_ci_low > 1.0
    assert advice.reason.startswith("everything bound on the device is measurably faster than plain run() (1.000 ms "
                                    "vs 1.100 ms)")
    assert ("the binding plan is not offered: the binding plan's code failed: call 1 raised RuntimeError: Pad "
            "reflect") in advice.reason
    from ortcopy_doctor.analysis.binding import all_device_plan

    assert advice.code == all_device_plan(report.evidence, report.binding).code
    assert "bind_cpu_input" not in advice.code and "bind_ortvalue_input" in advice.code
    assert [f.rule for f in report.findings if f.rule == "OCD013"] == ["OCD013"]
    assert "<b>Recommended: everything bound on the device, 1.10x faster than plain run()" in render_html(report)


def test_everything_bound_must_beat_the_plan_too(tmp_path):
    report = _checked("conv_net", tmp_path, [_v("plain", 1.2, h2d=1, d2h=1), _v("plan", 1.0), _v("all_device", 1.0)])
    assert report.advice.recommended == "plan"
    assert ("everything bound on the device is not measurably faster than the binding plan: 1.000 ms vs 1.000 ms"
            in report.advice.reason)


def test_legacy_evidence_keeps_everything_bound_a_diagnostic(tmp_path):
    """Evidence recorded before the code blocks were run timed "everything bound" with a binding of its own, not
    code a report offers: there it is never recommended."""
    report = _measured("conv_net", tmp_path, [_v("plain", 1.2, h2d=1, d2h=1), _v("plan", 1.19), _v("all_device", 0.9)])
    assert report.evidence.code_checks == []
    assert report.advice.recommended == "plain"


def test_a_block_that_gave_other_outputs_is_not_offered_and_is_a_finding(tmp_path):
    from ortcopy_doctor.analysis.binding import render_code
    from ortcopy_doctor.collect.code_check import code_sha256
    from ortcopy_doctor.model.evidence import CodeCheck

    recorded = recorded_report("conv_net", tmp_path)
    torch_code = render_code(recorded.evidence, recorded.binding, "torch")
    differs = CodeCheck(block="plan_torch", status="differs", device="cuda", calls=4,
                        detail="call 2: output 'logits': values differ (largest difference 3.1)",
                        code_sha256=code_sha256(torch_code))
    report = _checked("conv_net", tmp_path, [_v("plain", 1.2, h2d=1, d2h=1), _v("plan", 1.0)], failed_check=differs)
    flavors = {flavor: (code, note) for flavor, code, note in report.measured.code_variants}
    assert flavors["torch"] == ("", "not offered: run as printed, it gave other outputs than plain run(): call 2: "
                                    "output 'logits': values differ (largest difference 3.1)")
    assert flavors["onnxruntime"][0]  # the plan's own code stays: its check matched
    (finding,) = [f for f in report.findings if f.rule == "OCD013"]
    assert finding.details["block"] == "plan_torch"
    html = render_html(report)
    assert "not offered: run as printed, it gave other outputs than plain run()" in html
