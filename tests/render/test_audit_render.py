"""An audit rendered (render/audit.py, issue 37): the terminal summary, SARIF and the HTML index of fixed rows as golden
files, and the index sorted and filtered in the real browser."""

from __future__ import annotations

import json

import msgspec
import pytest

from ortcopy_doctor.model.audit import AuditRow, RowStatus
from ortcopy_doctor.render.audit import headline, render_index_html, render_sarif, render_summary_text
from ortcopy_doctor.report.audit import compare
from render_helpers import CHROMIUM, check_golden, console_problems, page_url, run_chromium, text_of

ROWS = [
    AuditRow(id="resnet18[batch=8]", model="zoo/resnet18.onnx", config="batch=8", status=RowStatus.OK, gpu="0",
             verdict="2 host↔device copies per run (4.8 MB)", copies_per_run=2, bytes_per_run=4_848_896,
             memcpy_nodes=0, fallback_nodes=0, median_ms=1.91, ci_low_ms=1.8, ci_high_ms=1.99,
             recommended="plan", recommended_label="the binding plan", gain=1.31, gain_ci_low=1.25, gain_ci_high=1.36,
             report="reports/resnet18_batch=8_.html"),
    AuditRow(id="vad", model="zoo/vad.onnx", status=RowStatus.OK, gpu="1", gpu_busy="pid 4242 (1.5 GiB)",
             verdict="7 host↔device copies per run", copies_per_run=7, bytes_per_run=4113, memcpy_nodes=4,
             fallback_nodes=2, fallback_ops=["If", "Loop"], median_ms=1.23, ci_low_ms=1.2, ci_high_ms=1.3,
             recommended="cpu_provider", recommended_label="the CPU provider", gain=4.16, gain_ci_low=3.89,
             gain_ci_high=4.8, report="reports/vad.html"),
    AuditRow(id="custom", model="zoo/custom.onnx", status=RowStatus.CRASHED, exit_code=4, gpu="0",
             error="native code crashed the check (SIGSEGV)", stderr_tail="error: native code crashed the check"),
    AuditRow(id="slow", model="zoo/slow.onnx", status=RowStatus.TIMEOUT, gpu="1", error="timed out after 60 s: killed"),
]
BASELINE = [
    AuditRow(id="resnet18[batch=8]", model="zoo/resnet18.onnx", status=RowStatus.OK, copies_per_run=2,
             bytes_per_run=4_848_896, memcpy_nodes=0, fallback_nodes=0, median_ms=1.9, ci_low_ms=1.8, ci_high_ms=2.0),
    AuditRow(id="vad", model="zoo/vad.onnx", status=RowStatus.OK, copies_per_run=5, bytes_per_run=4113,
             memcpy_nodes=2, fallback_nodes=2, fallback_ops=["If", "Loop"], median_ms=1.2, ci_low_ms=1.1,
             ci_high_ms=1.3),
    AuditRow(id="custom", model="zoo/custom.onnx", status=RowStatus.OK),
]


def test_the_headline_counts_rows_and_regressions():
    assert headline(ROWS, compare(BASELINE, ROWS)) == ("4 rows: 2 ok, 1 crashed, 1 timed out; 2 with host<->device "
                                                       "copies; 3 regressions against the baseline")
    assert headline(ROWS, None) == "4 rows: 2 ok, 1 crashed, 1 timed out; 2 with host<->device copies"


def test_summary_text():
    check_golden("audit_summary.txt", render_summary_text(ROWS, compare(BASELINE, ROWS)) + "\n")


def test_sarif_has_a_result_per_regression_at_the_model():
    text = render_sarif(compare(BASELINE, ROWS), ROWS)
    log = json.loads(text)
    results = log["runs"][0]["results"]
    assert [(r["ruleId"], r["locations"][0]["physicalLocation"]["artifactLocation"]["uri"]) for r in results] == [
        ("newly_failing", "zoo/custom.onnx"), ("new_memcpy", "zoo/vad.onnx"), ("more_copies", "zoo/vad.onnx")]
    check_golden("audit.sarif.json", text.replace(log["runs"][0]["tool"]["driver"]["version"], "VERSION"))


def test_index_html():
    page = render_index_html(ROWS, compare(BASELINE, ROWS), "ortcopy-doctor audit: 4 rows")
    check_golden("audit_index.html", page)


@pytest.mark.skipif(CHROMIUM is None, reason="chromium is not installed (/usr/bin/chromium)")
def test_the_index_sorts_and_filters_in_the_browser(tmp_path):
    harness = """<script>
(function () {
  var out = {errors: []};
  try {
    var table = document.getElementById("audit-table");
    var ids = function () {
      return Array.prototype.filter.call(table.tBodies[0].rows, function (r) { return r.style.display !== "none"; })
        .map(function (r) { return r.cells[0].textContent.trim(); });
    };
    table.tHead.rows[0].cells[3].click();
    out.byCopies = ids();
    table.tHead.rows[0].cells[3].click();
    out.byCopiesDown = ids();
    var status = document.getElementById("status-filter");
    status.value = "crashed"; status.dispatchEvent(new Event("change"));
    out.crashed = ids();
    status.value = ""; status.dispatchEvent(new Event("change"));
    var filter = document.querySelector("input.filter");
    filter.value = "vad"; filter.dispatchEvent(new Event("input"));
    out.filtered = ids();
  } catch (e) { out.errors.push(String(e && e.stack || e)); }
  var pre = document.createElement("pre"); pre.id = "harness-result"; pre.textContent = JSON.stringify(out);
  document.body.appendChild(pre);
})();
</script>"""
    page = tmp_path / "index.html"
    page.write_text(render_index_html(ROWS, None, "audit").replace("</body>", harness + "</body>"), encoding="utf-8")
    proc = run_chromium(["--dump-dom", page_url(page)], tmp_path, "audit")
    assert console_problems(proc.stderr) == []
    result = json.loads(text_of(proc.stdout, "harness-result"))
    assert result["errors"] == []
    assert result["byCopies"] == ["custom", "slow", "resnet18[batch=8]batch=8", "vad"]
    assert result["byCopiesDown"] == ["vad", "resnet18[batch=8]batch=8", "custom", "slow"]
    assert result["crashed"] == ["custom"]
    assert result["filtered"] == ["vad"]


def test_a_report_path_links_as_a_relative_url_never_a_scheme():
    row = AuditRow(id="m", model="m.onnx", status=RowStatus.OK, report="javascript:alert(1)#x [b=8].html")
    assert 'href="javascript%3Aalert%281%29%23x%20%5Bb=8%5D.html"' in render_index_html([row], None, "audit")


def test_the_sarif_is_valid_sarif_2_1_0():
    jsonschema = pytest.importorskip("jsonschema")
    from render_helpers import REPO

    schema = json.loads((REPO / "tests" / "schemas" / "sarif-2.1.0.json").read_text(encoding="utf-8"))
    jsonschema.validate(json.loads(render_sarif(compare(BASELINE, ROWS), ROWS)), schema)


def test_a_regression_keeps_its_fingerprint_when_its_numbers_change():
    # code-scanning UIs match alerts across runs by fingerprint: "copies 5 -> 7" then "5 -> 8" is one alert
    def fingerprints(rows: list[AuditRow]) -> list[str]:
        results = json.loads(render_sarif(compare(BASELINE, rows), rows))["runs"][0]["results"]
        return [r["partialFingerprints"]["ortcopyDoctorRegression/v1"] for r in results]

    more = [msgspec.structs.replace(r, copies_per_run=8) if r.id == "vad" else r for r in ROWS]
    assert fingerprints(more) == fingerprints(ROWS)
