"""`report RUN.json` and `diff A.json B.json` of run reports (`run --json`): re-analysed from their observations (or
used as written without them), rendered as text, JSON, HTML and SARIF, judged by the gate flags that apply; a check
report against a run report is one error line, exit 2."""

from __future__ import annotations

import gzip
import json
from pathlib import Path

import pytest

from render_helpers import TESTS, check_golden, fixture_json
from schema_helpers import assert_valid_sarif, run_cli


def _run_json(name: str, tmp_path: Path, **changes) -> Path:
    """The `run --json` report of tests/fixtures/<name>.json.gz as a plain JSON file (``changes`` set its keys)."""
    with gzip.open(TESTS / "fixtures" / f"{name}.json.gz", "rt", encoding="utf-8") as f:
        data = json.load(f)
    data = data.get("report", data)
    data.update(changes)
    path = tmp_path / f"{Path(name).name}.json"
    path.write_text(json.dumps(data), encoding="utf-8")
    return path


@pytest.fixture(scope="module")
def crop(tmp_path_factory) -> Path:
    return _run_json("pipelines/detect_crop_classify", tmp_path_factory.mktemp("run"))


def test_report_of_a_run_report_prints_its_findings_and_writes_json_html_and_sarif(crop, tmp_path):
    proc = run_cli(["report", str(crop), "--json", "r.json", "--html", "r.html", "--sarif", "r.sarif"], tmp_path)
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout.startswith("ortcopy-doctor run: python /work/main/examples/detect_crop_classify.py")
    assert "  warning OCD101 host-round-trip at cls.onnx, 4.2 MB per iteration\n" in proc.stdout
    written = json.loads((tmp_path / "r.json").read_text(encoding="utf-8"))
    assert [f["rule"] for f in written["findings"]] == ["OCD101", "OCD101", "OCD105", "OCD105", "OCD106", "OCD106",
                                                         "OCD107", "OCD107"]
    page = (tmp_path / "r.html").read_text(encoding="utf-8")
    assert '<h2 id="findings">Findings</h2>' in page and "<td>OCD101 host-round-trip</td>" in page
    assert len(assert_valid_sarif(tmp_path / "r.sarif")["runs"][0]["results"]) == 8


def test_report_of_a_run_report_gates_on_its_findings(crop, tmp_path):
    failed = run_cli(["report", str(crop), "--fail-on", "warning"], tmp_path)
    assert failed.returncode == 1
    assert "gate failed: 2 finding(s) at or above --fail-on warning: OCD101 host-round-trip" in failed.stdout
    allowed = run_cli(["report", str(crop), "--fail-on", "warning", "--allow", "host-round-trip"], tmp_path)
    assert allowed.returncode == 0, allowed.stdout


def test_report_of_a_run_report_writes_its_trace(crop, tmp_path):
    proc = run_cli(["report", str(crop), "--trace", "t.json"], tmp_path)
    assert proc.returncode == 0, proc.stderr
    assert json.loads((tmp_path / "t.json").read_text(encoding="utf-8"))["traceEvents"]


def test_report_of_a_run_report_refuses_fail_on_gain_before_writing(crop, tmp_path):
    gain = run_cli(["report", str(crop), "--fail-on-gain", "1.2x", "--json", "r.json"], tmp_path)
    assert (gain.returncode, gain.stderr) == (2, "error: --fail-on-gain judges the binding measurement of a check "
                                                 "report, and a run report has none: drop it\n")
    assert not (tmp_path / "r.json").exists()


def test_a_run_report_without_observations_is_used_as_written(tmp_path):
    source = json.loads(_run_json("pipelines/streaming_state", tmp_path).read_text(encoding="utf-8"))
    finding = {"rule": "OCD102", "slug": "state-round-trip", "severity": "warning", "title": "t",
               "message": "as written", "fix": "f", "location": "prog.py:main:3"}
    path = _run_json("pipelines/streaming_state", tmp_path, observations=None, findings=[finding])
    proc = run_cli(["report", str(path), "--fail-on", "warning"], tmp_path)
    assert proc.returncode == 1
    assert "  warning OCD102 state-round-trip at prog.py:main:3\n          as written\n" in proc.stdout
    assert source["observations"] is not None


def test_report_reads_a_run_report_from_stdin(crop, tmp_path):
    import subprocess
    import sys

    from render_helpers import child_env

    proc = subprocess.run([sys.executable, "-m", "ortcopy_doctor", "report", "-"], input=crop.read_bytes(),
                          cwd=tmp_path, env=child_env(), capture_output=True, timeout=120)
    assert proc.returncode == 0, proc.stderr
    assert b"OCD101 host-round-trip" in proc.stdout


def test_diff_of_two_run_reports_text_and_html(crop, tmp_path):
    fixed = _run_json("pipelines/detect_crop_classify_fixed", tmp_path)
    proc = run_cli(["diff", str(crop), str(fixed), "--html", "d.html"], tmp_path)
    assert proc.returncode == 0, proc.stderr
    text = proc.stdout.replace(str(crop), "a.json").replace(str(fixed), "b.json")
    check_golden("diff_run_detect_crop_classify.txt", text.replace("wrote d.html\n", ""))
    page = (tmp_path / "d.html").read_text(encoding="utf-8")
    check_golden("diff_run_detect_crop_classify.html",
                 page.replace(str(crop), "a.json").replace(str(fixed), "b.json"))


def test_diff_of_run_reports_fails_on_a_finding_added(crop, tmp_path):
    fixed = _run_json("pipelines/detect_crop_classify_fixed", tmp_path)
    proc = run_cli(["diff", str(fixed), str(crop), "--fail-on-regression"], tmp_path)
    assert proc.returncode == 1
    assert "Regression: 3 finding(s) added." in proc.stdout


def test_diff_of_a_check_report_and_a_run_report_is_one_error_line(crop, tmp_path):
    check = fixture_json("demo", tmp_path)
    proc = run_cli(["diff", str(check), str(crop)], tmp_path)
    assert (proc.returncode, proc.stdout) == (2, "")
    assert proc.stderr == (f"error: diff compares two reports of one kind: {check} is a check report and {crop} a "
                           "run report (`check --json` and `run --json` write them)\n")


def test_a_run_report_of_a_newer_format_is_one_error_line(tmp_path):
    path = _run_json("pipelines/streaming_state", tmp_path, format_version=9)
    proc = run_cli(["report", str(path)], tmp_path)
    assert (proc.returncode, proc.stdout) == (2, "")
    assert proc.stderr == (f"error: {path} has run report format 9, newer than this ortcopy-doctor reads (1): upgrade "
                           "ortcopy-doctor\n")
