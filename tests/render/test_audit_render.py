"""The audit's outputs (render/audit.py, issue 37): the HTML index, the SARIF log of the gate and the terminal summary,
each against a golden file (tests/golden/audit_*; ORTCOPY_UPDATE_GOLDEN=1 rewrites them), from rows built in code
that hold every status and untrusted text; and the index's sorting and filtering in headless Chromium."""

from __future__ import annotations

import json

import pytest

from ortcopy_doctor.model.audit import AuditRow, Regression, RegressionKind, RowStatus
from ortcopy_doctor.model.version import __version__
from ortcopy_doctor.render.audit import headline, render_index_html, render_sarif, render_summary_text
from render_helpers import (
    CHROMIUM,
    REPO,
    check_golden,
    console_problems,
    network_references,
    page_url,
    run_chromium,
    script_tags,
    text_of,
)

EVIL = '<script>alert("x")</script> & ü'


def rows() -> list[AuditRow]:
    return [
        AuditRow(id="resnet18[batch=8]", model="models/resnet18.onnx", config="batch=8", status=RowStatus.OK,
                 exit_code=0, gpu="0", started="2026-12-04T10:00:00Z", seconds=12.5, ort_version="1.31.1",
                 providers=["CUDAExecutionProvider", "CPUExecutionProvider"], verdict="2 copies per run, 1.2 MB",
                 copies_per_run=2, bytes_per_run=1_204_224, memcpy_nodes=0, fallback_nodes=0,
                 findings_by_severity={"warning": 1}, median_ms=1.84, ci_low_ms=1.8, ci_high_ms=1.9,
                 recommended="plan", recommended_label="IOBinding plan", gain=1.31, gain_ci_low=1.22,
                 gain_ci_high=1.4, report="reports/resnet18[batch=8].json"),
        AuditRow(id="detector", model="models/detector.onnx", status=RowStatus.OK, exit_code=1, gpu="1",
                 gpu_busy="pid 4242 (python, 2.1 GiB)", verdict="9 copies per run, 24.6 MB", copies_per_run=9,
                 bytes_per_run=24_600_000, memcpy_nodes=4, fallback_nodes=2, fallback_ops=["NonZero", "TopK"],
                 median_ms=12.0, ci_low_ms=11.5, ci_high_ms=12.6, report="reports/detector.json"),
        AuditRow(id=EVIL, model="models/evil.onnx", status=RowStatus.CRASHED, exit_code=-11,
                 error="killed by SIGSEGV", stderr_tail=f"loading custom ops\n{EVIL}\nSegmentation fault", gpu="0"),
        AuditRow(id="whisper", model="models/whisper.onnx", status=RowStatus.TIMEOUT, error="ran past 900 s",
                 gpu="1"),
        AuditRow(id="bad_dims", model="models/bad.onnx", status=RowStatus.FAILED, exit_code=2,
                 error="error: --dim batch=x: not an integer"),
    ]


def regressions() -> list[Regression]:
    return [
        Regression(kind=RegressionKind.NEW_MEMCPY, id="detector", model="models/detector.onnx",
                   words="Memcpy nodes 1 -> 4"),
        Regression(kind=RegressionKind.MORE_BYTES, id="detector", model="models/detector.onnx",
                   words="bytes per run 4096 -> 24600000", allowed=True),
        Regression(kind=RegressionKind.NEWLY_FAILING, id=EVIL, model="models/evil.onnx",
                   words="status ok -> crashed: killed by SIGSEGV"),
    ]


def unversioned(text: str) -> str:
    return text.replace(__version__, "<VERSION>")


def test_index_html_golden():
    check_golden("audit_index.html", unversioned(render_index_html(rows(), regressions(), "ortcopy-doctor audit")))


def test_sarif_golden():
    check_golden("audit.sarif.json", unversioned(render_sarif(regressions(), rows())))


def test_summary_text_golden():
    check_golden("audit_summary.txt", render_summary_text(rows(), regressions()))


def test_the_headline_counts_each_status_and_the_regressions():
    assert headline(rows(), regressions()) == ("5 models: 2 ok, 1 failed, 1 crashed, 1 timed out; 3 regressions "
                                               "against the baseline (1 allowed)")


def test_the_headline_counts_rows_of_a_model_with_several_configurations():
    two = [AuditRow(id=f"m[{b}]", model="m.onnx", config=b, status=RowStatus.OK) for b in ("batch=1", "batch=8")]
    assert headline(two, []) == "2 rows of 1 models: 2 ok"


def test_the_index_has_no_network_references():
    assert network_references(render_index_html(rows(), regressions(), "audit")) == []


def test_the_index_escapes_untrusted_text():
    html = render_index_html(rows(), regressions(), "audit")
    assert "<script>alert" not in html
    assert [tag for tag in script_tags(html) if tag.get("src")] == []


def test_the_summary_has_no_control_characters():
    text = render_summary_text(rows(), regressions())
    assert [c for c in text if ord(c) < 32 and c != "\n"] == []


def test_sarif_has_one_result_per_regression_allowed_ones_suppressed():
    log = json.loads(render_sarif(regressions(), rows()))
    results = log["runs"][0]["results"]
    assert [(r["ruleId"], r["level"], "suppressions" in r) for r in results] == [
        ("new_memcpy", "error", False), ("more_bytes", "note", True), ("newly_failing", "error", False)]


def test_sarif_locates_a_regression_at_its_model_file():
    result = json.loads(render_sarif(regressions(), rows()))["runs"][0]["results"][0]
    assert result["locations"][0]["physicalLocation"]["artifactLocation"] == {"uri": "models/detector.onnx",
                                                                             "uriBaseId": "%SRCROOT%"}
    assert result["message"]["text"] == "detector: Memcpy nodes 1 -> 4."


def test_sarif_is_valid_against_the_sarif_schema():
    jsonschema = pytest.importorskip("jsonschema")
    schema = json.loads((REPO / "tests" / "schemas" / "sarif-2.1.0.json").read_text(encoding="utf-8"))
    jsonschema.validate(json.loads(render_sarif(regressions(), rows())), schema)


# --- in the browser -----------------------------------------------------------------------------------------------

HARNESS = r"""
<script>
(function () {
  var out = {errors: []};
  window.addEventListener("error", function (e) { out.errors.push(String(e.message)); });
  var ids = function () {
    return Array.prototype.filter.call(document.querySelectorAll("#audit-table tbody tr"), function (row) {
      return row.style.display !== "none";
    }).map(function (row) { return row.cells[0].querySelector("b").textContent; });
  };
  try {
    var header = document.querySelectorAll("#audit-table thead th")[4];  // copies/run
    header.click(); out.copiesAscending = ids();
    header.click(); out.copiesDescending = ids();
    var filter = document.getElementById("audit-filter");
    filter.value = "RESNET"; filter.dispatchEvent(new Event("input")); out.filtered = ids();
    filter.value = ""; filter.dispatchEvent(new Event("input"));
    var status = document.getElementById("audit-status");
    status.value = "timeout"; status.dispatchEvent(new Event("change")); out.timeouts = ids();
    out.count = document.getElementById("audit-count").textContent;
  } catch (e) { out.errors.push(String(e)); }
  var pre = document.createElement("pre"); pre.id = "harness-result"; pre.textContent = JSON.stringify(out);
  document.body.appendChild(pre);
})();
</script>
"""


@pytest.mark.skipif(CHROMIUM is None, reason="chromium is not installed (/usr/bin/chromium)")
def test_the_index_sorts_by_a_header_click_and_filters_by_text_and_status(tmp_path):
    page = tmp_path / "index.html"
    page.write_text(render_index_html(rows(), regressions(), "audit").replace("</body>", HARNESS + "</body>"),
                    encoding="utf-8")
    proc = run_chromium(["--dump-dom", page_url(page)], tmp_path, "audit")
    assert console_problems(proc.stderr) == []
    result = json.loads(text_of(proc.stdout, "harness-result"))
    assert result == {"errors": [],
                      # rows without a number sort first (as -1), in their order
                      "copiesAscending": [EVIL, "whisper", "bad_dims", "resnet18[batch=8]", "detector"],
                      "copiesDescending": ["detector", "resnet18[batch=8]", EVIL, "whisper", "bad_dims"],
                      "filtered": ["resnet18[batch=8]"], "timeouts": ["whisper"], "count": "1 of 5 rows"}


def test_a_report_path_links_as_a_relative_url_never_a_scheme():
    row = AuditRow(id="m", model="m.onnx", status=RowStatus.OK, report="javascript:alert(1)#x.json")
    assert 'href="javascript%3Aalert%281%29%23x.json"' in render_index_html([row], [], "audit")
