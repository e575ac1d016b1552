"""The run's timeline (render/run_timeline.py), its trace (`run --trace`, render/trace.py: run_trace) and its HTML
page (reports/templates/pipeline.html.j2, extending base.html.j2 as check's and diff's pages do), on the pipelines
recorded on a GPU (tests/fixtures/pipelines).

Update the golden file after an intended change with ``ORTCOPY_UPDATE_GOLDEN=1 pytest tests/render/test_run_timeline.py``.
"""

from __future__ import annotations

import gzip
import json
import re
import subprocess
import sys
from collections import Counter

import pytest
from msgspec.structs import replace

from ortcopy_doctor.model.pipeline import PipelineCall, PipelineObservations, SessionRecord, ValueInfo
from ortcopy_doctor.model.vocabulary import HOST_TO_DEVICE
from ortcopy_doctor.model.watch import CallObservation, Placement, TensorUse, WatchObservations
from ortcopy_doctor.render.html import template_dir
from ortcopy_doctor.render.pipeline import render_pipeline_html
from ortcopy_doctor.render.registry import TRACE, RUN, RenderContext
from ortcopy_doctor.render.run_timeline import run_timeline
from ortcopy_doctor.render.trace import (
    RUN_TID_DOWNLOADS,
    RUN_TID_HOST,
    RUN_TID_ITERATIONS,
    RUN_TID_SESSION0,
    RUN_TID_UPLOADS,
    render_run_trace,
    run_trace,
)
from ortcopy_doctor.report.pipeline import analyse_pipeline, load_pipeline_observations
from render_helpers import REPO, TESTS, check_golden, child_env, network_references, renamed, script_tags
from test_trace import check_trace_format

PIPELINES = TESTS / "fixtures" / "pipelines"
ALL = sorted(p.name[: -len(".json.gz")] for p in PIPELINES.glob("*.json.gz"))
GOLDEN_RUN = "detect_crop_classify"


def _observations(name: str) -> dict:
    with gzip.open(PIPELINES / f"{name}.json.gz", "rt", encoding="utf-8") as f:
        return json.load(f)["report"]["observations"]


def _report(name: str, mapping: dict[str, str] | None = None):
    data = _observations(name)
    return analyse_pipeline(load_pipeline_observations(renamed(data, mapping) if mapping else data))


# --- the timeline agrees with the stage table ----------------------------------------------------------------------


@pytest.mark.parametrize("name", ALL)
def test_the_iterations_last_what_the_stage_table_says(name):
    report = _report(name)
    timeline = run_timeline(report)
    for pt, p in zip(timeline.pipelines, report.pipelines):
        assert pt.note == "" and len(pt.iterations) == p.iterations
        steady = [it for it in pt.iterations if it.complete and it.index > 0]
        spans = sorted((it.end_ns - it.start_ns) / 1e6 for it in steady)
        typical = pt.iterations[pt.typical]
        assert (typical.end_ns - typical.start_ns) / 1e6 == spans[(len(spans) - 1) // 2]
        assert (pt.iterations[0].end_ns - pt.iterations[0].start_ns) / 1e6 == pytest.approx(p.first_iteration_ms,
                                                                                          abs=1e-9)


@pytest.mark.parametrize("name", ALL)
def test_the_uploads_and_downloads_add_up_to_the_report_s_bytes_per_iteration(name):
    report = _report(name)
    timeline = run_timeline(report)
    p = report.pipelines[0]
    up = sum(m.bytes or 0 for m in timeline.transfers if m.direction == HOST_TO_DEVICE)
    down = sum(m.bytes or 0 for m in timeline.transfers if m.direction != HOST_TO_DEVICE)
    assert (up / p.iterations, down / p.iterations) == (p.h2d_bytes_per_iteration, p.d2h_bytes_per_iteration)


def test_the_steady_host_stretches_are_the_stage_table_s():
    report = _report(GOLDEN_RUN)
    timeline = run_timeline(report)
    steady = {seq for it in timeline.pipelines[0].iterations[1:-1] for seq in it.calls}
    between = [h.end_ns - h.start_ns for h in timeline.hosts if h.before_seq in steady and h.after_seq >= 0]
    table = sum(r.total_ms for r in report.pipelines[0].stages if r.kind == "host")
    assert sum(between) / 1e6 == pytest.approx(table, abs=1e-9)


def test_the_host_code_fills_every_gap_between_calls():
    timeline = run_timeline(_report(GOLDEN_RUN))
    assert len(timeline.hosts) == len(timeline.calls) + 1
    for h, c in zip(timeline.hosts, timeline.calls):
        assert h.end_ns == c.start_ns
    assert timeline.hosts[0].start_ns == 0 and timeline.hosts[-1].end_ns == timeline.program_ns


# --- observations built here: loops one after the other, warm-up calls, calls that never repeat ------------------

MS = 1_000_000


def _observations_of(keys: list[tuple[int, str]]) -> PipelineObservations:
    """A call of session ``s`` at site ``site`` for each (s, site) of ``keys``, on three sessions of one input and
    one output (64 B each, read and written on the device), the first call after 5 ms, each call 1 to 3 ms with 1 ms of the recorder in it,
    and 3 or 4 ms of host code (1 ms of them the recorder's) after it."""
    per: dict[int, list[CallObservation]] = {}
    calls = []
    t, overhead = 5 * MS, 0  # the program's own code for 5 ms before its first call
    for n, (s, site) in enumerate(keys):
        mine = per.setdefault(s, [])
        mine.append(CallObservation(index=len(mine), method="run",
                                    inputs=[TensorUse("x", "input", "numpy", "cpu", 64, [1, 4])],
                                    outputs=[TensorUse("y", "output", "returned", "cpu", 64)]))
        ort_ns = (n % 3 + 1) * MS
        calls.append(PipelineCall(seq=n, session=s, call=len(mine) - 1, method="run", wrap_start_ns=t,
                                  wrap_end_ns=t + ort_ns + MS, overhead_start_ns=overhead,
                                  overhead_end_ns=overhead + MS, start_ns=t + MS // 2, end_ns=t + MS // 2 + ort_ns,
                                  site=site, inputs=[ValueInfo("x", "input", "numpy", "cpu", 64)],
                                  outputs=[ValueInfo("y", "output", "numpy", "cpu", 64)]))
        overhead += 2 * MS
        t += ort_ns + 3 * MS + (n % 2) * MS
    placement = Placement(source="session", provider="CUDAExecutionProvider", inputs_on_device={"x": "m"},
                          outputs_on_device={"y": "m"})
    sessions = [SessionRecord(label=f"s{s}.onnx", model=f"s{s}.onnx", observations=WatchObservations(
        active_providers=["CUDAExecutionProvider", "CPUExecutionProvider"], placement=placement,
        calls=per.get(s, []))) for s in range(3)]
    return PipelineObservations(sessions=sessions, calls=calls, started_ns=0, ended_ns=t + 5 * MS)


LOOPS = {
    "two loops": [(0, "p.py:main:1"), (1, "p.py:main:2")] * 3 + [(2, "p.py:main:3")] * 4,
    "warm-up first": [(2, "p.py:warm:1"), (0, "p.py:warm:2")] + [(0, "p.py:main:1"), (1, "p.py:main:2")] * 4,
    "calls after": [(0, "p.py:main:1"), (1, "p.py:main:2")] * 4 + [(2, "p.py:end:9"), (1, "p.py:end:8")],
    "no repeat": [(0, "p.py:main:1"), (1, "p.py:main:2"), (2, "p.py:main:3")],
}


@pytest.mark.parametrize("case", list(LOOPS))
def test_the_iterations_are_the_report_s_for_every_shape_of_loop(case):
    report = analyse_pipeline(_observations_of(LOOPS[case]))
    timeline = run_timeline(report)
    assert [(pt.note, len(pt.iterations)) for pt in timeline.pipelines] == [("", p.iterations)
                                                                           for p in report.pipelines]


def test_each_of_two_loops_has_its_timelines_on_the_page():
    page = render_pipeline_html(analyse_pipeline(_observations_of(LOOPS["two loops"])))
    assert re.findall(r'<svg id="([^"]+)"', page) == ["timeline-1-typical-svg", "timeline-1-first-svg",
                                                      "timeline-2-typical-svg", "timeline-2-first-svg"]


def test_a_loop_of_one_iteration_draws_only_that_iteration():
    page = render_pipeline_html(analyse_pipeline(_observations_of(LOOPS["no repeat"])))
    assert re.findall(r'<svg id="([^"]+)"', page) == ["timeline-1-first-svg"]
    assert "The first iteration: iteration 1 of 1, 9.000 ms (the last: up to the end of its last call)" in page


def test_host_code_is_named_by_the_code_sites_on_either_side():
    timeline = run_timeline(analyse_pipeline(_observations_of(LOOPS["warm-up first"])))
    assert [h.name for h in timeline.hosts[:3]] == [
        "host: before the first call (s2.onnx at p.py:warm:1)", "host: between p.py:warm:1 and p.py:warm:2",
        "host: between p.py:warm:2 and p.py:main:1"]


# --- run --trace ---------------------------------------------------------------------------------------------------


def test_the_run_trace_has_a_track_for_host_code_iterations_each_session_uploads_and_downloads():
    data = run_trace(_report(GOLDEN_RUN))
    names = {e["tid"]: e["args"]["name"] for e in data["traceEvents"] if e["name"] == "thread_name"}
    assert names == {RUN_TID_HOST: "host code", RUN_TID_ITERATIONS: "iterations",
                     RUN_TID_SESSION0: "session det.onnx", RUN_TID_SESSION0 + 1: "session cls.onnx",
                     RUN_TID_UPLOADS: "uploads (host→device)", RUN_TID_DOWNLOADS: "downloads (device→host)"}
    counts = Counter(e["tid"] for e in data["traceEvents"] if e["ph"] != "M")
    assert counts == {RUN_TID_HOST: 41, RUN_TID_ITERATIONS: 20, RUN_TID_SESSION0: 20, RUN_TID_SESSION0 + 1: 20,
                      RUN_TID_UPLOADS: 80, RUN_TID_DOWNLOADS: 80}


def test_the_run_trace_marks_the_first_and_the_typical_iteration():
    report = _report(GOLDEN_RUN)
    data = run_trace(report)
    iterations = [e for e in data["traceEvents"] if e.get("cat") == "iteration"]
    assert iterations[0]["name"] == "iteration 1 of det.onnx → cls.onnx (first, shown apart)"
    typical = [e for e in iterations if e["args"]["typical"]]
    assert len(typical) == 1 and typical[0]["name"].endswith("(typical: the median of the stage table's)")
    assert iterations[0]["dur"] == round(report.pipelines[0].first_iteration_ms * 1000)


def test_each_call_of_the_run_trace_has_its_shape_and_bytes():
    data = run_trace(_report(GOLDEN_RUN))
    first = next(e for e in data["traceEvents"] if e.get("cat") == "inference")
    assert first["name"] == "det.onnx: run"
    assert {k: first["args"][k] for k in ("call", "shape", "input_bytes", "host_to_device_bytes",
                                            "device_to_host_bytes")} == {
        "call": 0, "shape": "1x3x256x256", "input_bytes": 786432, "host_to_device_bytes": 786432,
        "device_to_host_bytes": 2097232}


@pytest.mark.parametrize("name", ALL)
def test_the_run_trace_of_every_recorded_pipeline_follows_the_format(name):
    events = check_trace_format(json.loads(render_run_trace(_report(name))))
    assert all(isinstance(e["ts"], int) for e in events if e["ph"] != "M")


def test_the_run_trace_writes_names_from_the_program_as_json_escapes():
    report = _report(GOLDEN_RUN, {"det.onnx": "det\u202e\x9b.onnx", "features": "feat\u2028ures"})
    text = render_run_trace(report)
    assert "\u202e" not in text and "\x9b" not in text and "\u2028" not in text
    assert "\\u202e\\u009b" in text
    assert json.loads(text)["traceEvents"][5]["args"]["name"] == "session det\u202e\x9b.onnx"


@pytest.mark.parametrize(("case", "marked"), [
    ("warm-up first", [("before the loop of s0.onnx → s1.onnx (warm-up, initialisation)", 5000, 4000)]),
    ("calls after", [("after the loop of s0.onnx → s1.onnx", 32000, 5000)]),
    ("two loops", []),
])
def test_the_run_trace_marks_the_calls_outside_every_loop(case, marked):
    data = run_trace(analyse_pipeline(_observations_of(LOOPS[case])))
    assert [(e["name"], e["ts"], e["dur"]) for e in data["traceEvents"]
            if e.get("cat") == "iteration" and not e["name"].startswith("iteration ")] == marked


def test_the_registry_renders_the_run_trace():
    report = _report(GOLDEN_RUN)
    assert TRACE.render(report, RenderContext(RUN)) == render_run_trace(report)


def test_a_run_report_without_its_observations_has_no_trace():
    report = replace(_report(GOLDEN_RUN), observations=None)
    with pytest.raises(ValueError, match="observations"):
        run_trace(report)


# --- the HTML page -------------------------------------------------------------------------------------------------


def test_pipeline_html_golden():
    check_golden(f"run_{GOLDEN_RUN}.html", render_pipeline_html(_report(GOLDEN_RUN)))


def test_the_three_pages_extend_the_base_template():
    for name in ("report.html.j2", "diff.html.j2", "pipeline.html.j2"):
        assert (template_dir() / name).read_text(encoding="utf-8").startswith('{% extends "base.html.j2" %}\n')


def test_the_pipeline_page_shares_check_s_look():
    page = render_pipeline_html(_report(GOLDEN_RUN))
    base = (template_dir() / "base.html.j2").read_text(encoding="utf-8")
    look = base[base.index("{% block style %}\n") + len("{% block style %}\n"):base.index("{% endblock %}")]
    assert look in page


def test_the_pipeline_page_draws_a_typical_and_the_first_iteration_with_their_stages():
    page = render_pipeline_html(_report(GOLDEN_RUN))
    assert re.findall(r'<svg id="([^"]+)"', page) == ["timeline-1-typical-svg", "timeline-1-first-svg"]
    for lane in ("host code", "session det.onnx", "session cls.onnx", "uploads", "downloads"):
        assert page.count(f">{lane}<title>") == 2
    assert page.count('<table class="timeline-stages">') == 2


def test_the_pipeline_page_is_self_contained_and_shows_no_markdown_backticks():
    page = render_pipeline_html(_report(GOLDEN_RUN))
    assert network_references(page) == [] and script_tags(page) == []
    outside_code = re.sub(r"<pre>.*?</pre>", "", page, flags=re.S)  # the hand-off code's comments quote names
    assert "`" not in outside_code
    assert "<code>features</code>" in page


def test_the_pipeline_page_escapes_names_from_the_program():
    report = _report(GOLDEN_RUN, {"det.onnx": "<img src=x onerror=alert(1)>.onnx", "features": "a`<b>`"})
    page = render_pipeline_html(report)
    assert "<img src=x" not in page and "<b>" not in page
    assert "&lt;img src=x onerror=alert(1)&gt;.onnx" in page


# --- the command line ----------------------------------------------------------------------------------------------


def _run_cli(tmp_path, *options: str) -> subprocess.CompletedProcess:
    cmd = [sys.executable, "-m", "ortcopy_doctor", "run", "--no-html", *options, "--", "python",
           str(REPO / "examples" / "text_pipeline.py"), "--iterations", "3"]
    env = child_env(ORTCOPY_EXAMPLE_PROVIDERS="cpu", ORTCOPY_EXAMPLE_CACHE=str(tmp_path / "models"))
    return subprocess.run(cmd, cwd=tmp_path, env=env, capture_output=True, text=True, timeout=300)


def test_run_writes_its_trace_with_the_program_s_code_sites(tmp_path):
    proc = _run_cli(tmp_path, "--trace", "run.trace.json")
    assert proc.returncode == 0, proc.stderr
    events = check_trace_format(json.loads((tmp_path / "run.trace.json").read_text(encoding="utf-8")))
    hosts = [e["name"] for e in events if e.get("cat") == "host"]
    assert hosts[1:3] == ["host: between text_pipeline.py:<module>:24 and text_pipeline.py:<module>:26",
                          "host: between text_pipeline.py:<module>:26 and text_pipeline.py:<module>:24"]
    assert [e["args"]["iteration"] for e in events if e.get("cat") == "iteration"] == [1, 2, 3]


def test_run_refuses_to_write_its_trace_to_the_program_s_stdout(tmp_path):
    proc = _run_cli(tmp_path, "--trace", "-")
    assert (proc.returncode, proc.stderr) == (2, "error: --trace cannot write to stdout ('-'): give a file path\n")
