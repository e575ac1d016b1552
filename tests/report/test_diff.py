"""`ortcopy-doctor diff`: goldens of the text and HTML on JSON recorded on the GPU, matching of transfers and
findings, the latency and environment changes (an ORT upgrade, an opset change), --fail-on-regression, escaping,
and the HTML in headless Chromium.

Update the golden files after an intended change with ``ORTCOPY_UPDATE_GOLDEN=1 pytest tests/report/test_diff.py``.
"""

from __future__ import annotations

import copy
import re
import msgspec
from pathlib import Path

import pytest
from markupsafe import escape

from ortcopy_doctor.report.diff import diff_files, diff_reports
from ortcopy_doctor.model.diff import ADDED, CHANGED, REMOVED, UNCHANGED, Delta
from render_helpers import (
    EVIL_NODE,
    EVIL_TENSOR,
    check_golden,
    evil_report,
    fixture_report_dict,
    load_fixture,
    mask_text,
    network_references,
    script_tags,
    write_report_json,
)
from schema_helpers import assert_valid_report, run_cli
from ortcopy_doctor.render.diff import render_diff_html, render_diff_text

PAIR = ("cpu_op_between", "conv_net")


def mask_diff(text: str, *reports) -> str:
    for report in reports:
        text = mask_text(text, report)
    # Latency percentages follow the masked times: "(+#.### ms, +17.4%)".
    return re.sub(r"(#\.### ms, )[+-]\d+\.\d%", r"\1±#.#%", text)


@pytest.fixture
def pair(tmp_path):
    a = load_fixture(PAIR[0], tmp_path)
    b = load_fixture(PAIR[1], tmp_path)
    return a, b, diff_reports(a, b, f"{PAIR[0]}.json", f"{PAIR[1]}.json")


def upgraded(tmp_path: Path, name: str = "demo", version: str = "1.32.0", slower: float = 1.25) -> Path:
    """The fixture as if re-recorded after an ORT upgrade and an opset bump: same copies, slower runs."""
    data = fixture_report_dict(name)
    ev = copy.deepcopy(data["evidence"])
    ev["environment"]["ort_version"] = version
    ev["model"]["opsets"]["ai.onnx"] = ev["model"]["opsets"].get("ai.onnx", 17) + 1
    ev["timings"]["run_ms"] = [t * slower for t in ev["timings"]["run_ms"]]
    return write_report_json(ev, tmp_path / f"{name}-{version}.json")


# --- goldens ------------------------------------------------------------------------------------------------------


def test_diff_text_golden(pair):
    a, b, d = pair
    check_golden("diff_cpu_op_between_conv_net.txt", mask_diff(render_diff_text(d), a, b))


def test_diff_html_golden(pair):
    a, b, d = pair
    check_golden("diff_cpu_op_between_conv_net.html", mask_diff(render_diff_html(d), a, b))


def test_upgrade_diff_text_golden(tmp_path):
    a = load_fixture("demo", tmp_path)
    d = diff_files(tmp_path / "demo.json", upgraded(tmp_path))
    text = render_diff_text(d).replace(str(tmp_path) + "/", "")
    check_golden("diff_demo_upgrade.txt", mask_diff(text, a))


# --- content ------------------------------------------------------------------------------------------------------


def test_different_models_added_and_removed(pair):
    a, b, d = pair
    assert {c.key for c in d.copies if c.status == REMOVED} == {(c.kind, c.direction, c.tensor) for c in a.copies}
    assert {c.key for c in d.copies if c.status == ADDED} == {(c.kind, c.direction, c.tensor) for c in b.copies}
    assert len(d.regressions) == len(b.copies) + len(b.findings)
    bytes_delta = d.deltas[0]
    assert (bytes_delta.before, bytes_delta.after) == (a.summary.bytes_per_run, b.summary.bytes_per_run)
    envs = {what for what, _, _ in d.environment}
    assert {"model file", "model sha256"} <= envs
    text = render_diff_text(d)
    assert text.splitlines()[1].startswith("warning: Different models: ")
    assert text.splitlines()[2] == ("Inputs differ: x only in a (float32 2x64); image only in b (float32 2x3x32x32). "
                                    "What follows compares runs at different inputs.")
    assert text.splitlines()[3] == f"Regression: {len(b.copies)} transfer(s) and {len(b.findings)} finding(s) added."
    for c in b.copies:
        assert f"+ {c.tensor}" in text.replace("feed copy host→device ", "").replace("fetch copy device→host ", "")


def test_same_report_has_no_changes(tmp_path):
    a = load_fixture("demo", tmp_path)
    d = diff_reports(a, load_fixture("demo", tmp_path))
    assert {c.status for c in d.copies + d.findings} == {UNCHANGED}
    assert d.regressions == [] and d.environment == []
    assert "No new transfers or findings." in render_diff_text(d)
    assert "(no change)" in render_diff_text(d)


def test_every_copy_kind_and_direction_has_a_diff_label():
    from ortcopy_doctor.model.diff import _ARROW, _KIND
    from ortcopy_doctor.model.vocabulary import CopyKind, Direction

    assert (set(_KIND), set(_ARROW)) == ({k.value for k in CopyKind}, {d.value for d in Direction})


def test_an_unexplained_transfer_added_is_listed(tmp_path):
    from ortcopy_doctor.model.copies import Copy
    from ortcopy_doctor.model.vocabulary import DEVICE_TO_HOST, UNEXPLAINED

    a = load_fixture("demo", tmp_path)
    traced = Copy(kind=UNEXPLAINED, direction=DEVICE_TO_HOST, tensor="", bytes_per_run=64, node="mystery")
    b = msgspec.structs.replace(a, copies=[*a.copies, traced])
    text = render_diff_text(diff_reports(a, b, "a.json", "b.json"))
    assert "  + unexplained transfer device→host, 64 B per run (node mystery)" in text.splitlines()
    assert "unexplained transfer" in render_diff_html(diff_reports(b, a, "b.json", "a.json"))


def test_ort_upgrade_shows_version_opset_and_latency(tmp_path):
    load_fixture("demo", tmp_path)
    d = diff_files(tmp_path / "demo.json", upgraded(tmp_path))
    env = {what: (x, y) for what, x, y in d.environment}
    assert env["onnxruntime"] == ("1.31.1", "1.32.0")
    assert env["opset ai.onnx"][1] == str(int(env["opset ai.onnx"][0]) + 1)
    latency = next(x for x in d.deltas if x.label == "median run")
    assert latency.percent == pytest.approx(25.0, abs=0.01)
    assert d.regressions == []
    assert "onnxruntime: 1.31.1 → 1.32.0" in render_diff_text(d)


def test_changed_copy_and_finding(tmp_path):
    a = load_fixture("cpu_op_between", tmp_path)
    b = load_fixture("cpu_op_between", tmp_path)
    b.copies[0] = msgspec.structs.replace(b.copies[0], bytes_per_run=(b.copies[0].bytes_per_run or 0) * 4)
    b.findings[0] = msgspec.structs.replace(b.findings[0], severity="error")
    d = diff_reports(a, b)
    changed = [c for c in d.copies if c.status == CHANGED]
    assert len(changed) == 1 and changed[0].what == ["bytes per run 512 B → 2.0 KB"]
    changed = [f for f in d.findings if f.status == CHANGED]
    assert len(changed) == 1 and changed[0].what == ["severity warning → error"]
    assert d.regressions == []
    assert "~ feed copy host→device x: bytes per run 512 B → 2.0 KB" in render_diff_text(d)


def test_memcpy_findings_match_by_tensor_not_by_ort_node_name(tmp_path):
    a = load_fixture("cpu_op_between", tmp_path)
    b = load_fixture("cpu_op_between", tmp_path)
    b = msgspec.structs.replace(b, findings=[
        msgspec.structs.replace(f, location=f.location + "_renamed_by_ort") if f.slug == "memcpy-node" else f
        for f in b.findings])
    d = diff_reports(a, b)
    assert all(f.status != ADDED for f in d.findings)


def test_duplicate_keys_pair_in_order():
    from ortcopy_doctor.report.diff import _match

    changes = _match(["x", "x", "y"], ["x", "z"], key=lambda s: (s,), compare=lambda p, q: [])
    assert sorted((c.status, c.key) for c in changes) == [
        (ADDED, ("z",)), (REMOVED, ("x",)), (REMOVED, ("y",)), (UNCHANGED, ("x",))]


def test_delta_text():
    assert Delta("b", 1000, 1500, "bytes").text() == "1.0 KB → 1.5 KB (+500 B, +50.0%)"
    assert Delta("c", 4, 2).text() == "4 → 2 (-2, -50.0%)"
    assert Delta("m", None, 0.5, "ms").text() == "n/a → 0.500 ms"
    assert Delta("z", 0, 3).text() == "0 → 3 (+3)"


def test_diff_html_is_self_contained_and_escapes_names(tmp_path):
    a = load_fixture("cpu_op_between", tmp_path)
    evil = evil_report(tmp_path)
    html = render_diff_html(diff_reports(a, evil, "<a>.json", "b&.json"))
    assert html.startswith("<!DOCTYPE html>")
    assert network_references(html) == [] and script_tags(html) == []
    assert "<script>alert" not in html and "<img src=x" not in html
    text = html.replace("<wbr>", "")  # where a long name may break (render/html.py: breakable)
    assert str(escape(EVIL_NODE)) in text and str(escape(EVIL_TENSOR)) in text
    assert "&lt;a&gt;.json" in html


# --- CLI on JSON recorded on the GPU --------------------------------------------------------------------------------


def _write_pair(tmp_path: Path) -> tuple[str, str]:
    for name in PAIR:
        write_report_json(fixture_report_dict(name), tmp_path / f"{name}.json")
    return f"{PAIR[0]}.json", f"{PAIR[1]}.json"


def test_cli_diff(tmp_path):
    a, b = _write_pair(tmp_path)
    result = run_cli(["diff", a, b, "--html", "diff.html"], tmp_path)
    assert result.returncode == 0, result.stdout + result.stderr
    assert result.stdout.startswith(f"ortcopy-doctor diff: {a} → {b}\n")
    assert result.stdout.rstrip().endswith("wrote diff.html")
    assert result.stderr == ""
    assert (tmp_path / "diff.html").read_text(encoding="utf-8").startswith("<!DOCTYPE html>")

    regression = run_cli(["diff", a, b, "--fail-on-regression"], tmp_path)
    assert regression.returncode == 1
    improvement = run_cli(["diff", b, b, "--fail-on-regression", "--all"], tmp_path)
    assert improvement.returncode == 0, improvement.stdout + improvement.stderr
    assert "\n    feed copy host→device image" in improvement.stdout  # --all lists unchanged ones


def test_cli_diff_of_report_json_written_by_report(tmp_path):
    """`report --json` output (re-analysed, schema-valid) diffs like the recorded file."""
    a, b = _write_pair(tmp_path)
    result = run_cli(["report", a, "--json", "again.json"], tmp_path)
    assert result.returncode == 0, result.stderr
    assert_valid_report(tmp_path / "again.json")
    result = run_cli(["diff", a, "again.json", "--fail-on-regression"], tmp_path)
    assert result.returncode == 0, result.stdout + result.stderr
    assert "No new transfers or findings." in result.stdout


def test_cli_diff_bad_input_exits_2(tmp_path):
    a, _ = _write_pair(tmp_path)
    result = run_cli(["diff", a, "missing.json"], tmp_path)
    assert result.returncode == 2
    assert "missing.json not found" in result.stderr
    result = run_cli(["diff", a, a, "--html", "nowhere/d.html"], tmp_path)
    assert result.returncode == 2 and "--html nowhere/d.html" in result.stderr


# --- in the browser -------------------------------------------------------------------------------------------------


def test_diff_html_in_headless_chromium(pair, tmp_path):
    from render_helpers import CHROMIUM, console_problems, page_url, run_chromium, tbody_rows, text_of

    if CHROMIUM is None:
        pytest.skip("chromium is not installed (/usr/bin/chromium): `make test` installs it")
    a, b, d = pair
    path = tmp_path / "diff.html"
    path.write_text(render_diff_html(d), encoding="utf-8")
    proc = run_chromium(["--dump-dom", page_url(path)], tmp_path, "diff")
    assert console_problems(proc.stderr) == []
    dom = proc.stdout
    assert dom.lstrip().startswith("<!DOCTYPE html>")
    assert text_of(dom, "inputs-differ") == render_diff_text(d).splitlines()[2]
    assert text_of(dom, "headline") == render_diff_text(d).splitlines()[3]
    assert "warning: " + text_of(dom, "model-change") == render_diff_text(d).splitlines()[1]
    assert len(tbody_rows(dom, "copies-diff")) == len(d.copies)
    assert len(tbody_rows(dom, "findings-diff")) == len(d.findings)
    assert "<script" not in dom

    from render_helpers import ARTIFACTS

    ARTIFACTS.mkdir(parents=True, exist_ok=True)
    png = ARTIFACTS / "diff.png"
    png.unlink(missing_ok=True)
    shot = run_chromium([f"--screenshot={png}", "--window-size=1280,1600", page_url(path)], tmp_path, "diffshot")
    assert console_problems(shot.stderr) == []
    assert png.is_file() and png.stat().st_size > 20_000
