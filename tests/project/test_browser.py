"""Open the HTML report of each recorded fixture in headless Chromium (Debian's /usr/bin/chromium).

Plain command-line Chromium, no extra Python packages: ``--screenshot`` keeps a PNG per fixture under
tests/artifacts/ (git-ignored) to look at, ``--dump-dom`` gives the DOM after the page's script ran, and
``--enable-logging=stderr`` puts every console message on stderr as ``INFO:CONSOLE`` lines. The report logs
nothing, so any console line (an uncaught exception, a console.error) fails the test.

The interactive parts (sortable tables, the node filter, the copy button) are exercised by a copy of the
report with a small harness script appended: it clicks and types, then writes what it saw into the DOM,
which --dump-dom returns. The same way, a generated 10,000-node report times sorting and filtering the node
table with performance.now() (printed, not asserted: it depends on the machine).

`make test` installs chromium (Debian package, tools/ensure_chromium.sh) when it is missing and it runs as root;
without it these tests are skipped with that reason.
"""

from __future__ import annotations

import html as htmllib
import json
import re
import struct
from pathlib import Path

import pytest
from markupsafe import escape

from render_helpers import (
    ARTIFACTS,
    CHROMIUM,
    GOLDEN_FIXTURES,
    big_report,
    console_problems,
    evil_report,
    load_fixture,
    network_references,
    page_url,
    run_chromium,
    tbody_rows,
    text_of,
)
from ortcopy_doctor.render.html import render_html

pytestmark = pytest.mark.skipif(
    CHROMIUM is None,
    reason="chromium is not installed (/usr/bin/chromium): `make test` installs Debian's chromium where it runs "
           "as root; or set CHROMIUM=/path/to/chromium",
)


def png_size(path: Path) -> tuple[int, int]:
    data = path.read_bytes()[:24]
    assert data[:8] == b"\x89PNG\r\n\x1a\n", f"{path} is not a PNG"
    return struct.unpack(">II", data[16:24])


@pytest.fixture(params=GOLDEN_FIXTURES)
def report_file(request, tmp_path):
    report = load_fixture(request.param, tmp_path)
    path = tmp_path / f"{request.param}.html"
    path.write_text(render_html(report), encoding="utf-8")
    return request.param, report, path


def test_screenshot(report_file, tmp_path):
    name, report, path = report_file
    ARTIFACTS.mkdir(parents=True, exist_ok=True)
    png = ARTIFACTS / f"{name}.png"
    png.unlink(missing_ok=True)
    proc = run_chromium([f"--screenshot={png}", "--window-size=1280,2000", page_url(path)], tmp_path, "shot")
    assert png.is_file(), f"no screenshot written:\n{proc.stderr[-3000:]}"
    assert png_size(png) == (1280, 2000)
    assert png.stat().st_size > 20_000, "screenshot is suspiciously small (blank page?)"
    assert console_problems(proc.stderr) == []


def test_dom_after_load(report_file, tmp_path):
    name, report, path = report_file
    html = path.read_text(encoding="utf-8")
    assert network_references(html) == []
    proc = run_chromium(["--dump-dom", page_url(path)], tmp_path, "dom")
    dom = proc.stdout
    assert console_problems(proc.stderr) == []
    assert dom.lstrip().startswith("<!DOCTYPE html>"), dom[:200]  # standards mode, a whole document
    assert text_of(dom, "verdict") == report.verdict
    assert len(tbody_rows(dom, "copies-table")) == len(report.copies)
    nodes = tbody_rows(dom, "nodes-table")
    assert len(nodes) == len(report.evidence.nodes)
    assert sum('class="cpu"' in row for row in nodes) == sum(
        n.provider == "CPUExecutionProvider" for n in report.evidence.nodes)
    from ortcopy_doctor.report.recommend import advise

    advice = advise(report)  # the first code block is the recommended one: the CUDA graph's where it wins
    graph = advice is not None and advice.recommended == "cuda_graph"
    assert text_of(dom, "binding-code") == (advice.code if graph else report.binding.code)
    # The pictures are inline SVG elements of the DOM: one bar per node event of the run, the CPU island boxed.
    for svg_id in ("timeline-svg", "islands-svg"):
        assert re.search(rf'<svg [^>]*\bid="{svg_id}"', dom), f"#{svg_id} not in the DOM"
    run = max(r.run for r in report.evidence.run_events if not r.warmup)
    assert dom.count('<g class="ev">') == sum(e.run == run for e in report.evidence.node_events)
    assert dom.count('<g class="island"') == 1
    # Chromium parsed the same document the renderer wrote: one inline script, nothing else loaded.
    assert dom.count("<script") == 1


# How both harnesses end: an error is recorded, and the results are written into the page as JSON.
HARNESS_END = r"""  } catch (e) {
    out.errors.push(String(e && e.stack || e));
  }
  var pre = document.createElement("pre");
  pre.id = "harness-result";
  pre.textContent = JSON.stringify(out);
  document.body.appendChild(pre);
})();
</script>
"""


HARNESS = r"""
<script>
(function () {
  var out = {errors: []};
  window.addEventListener("error", function (e) { out.errors.push(String(e.message)); });
  try {
    var copies = document.getElementById("copies-table");
    if (copies) {
      var bytesCol = Array.prototype.map.call(copies.tHead.rows[0].cells, function (c) { return c.textContent; })
        .indexOf("bytes / run");
      var sorts = function () {
        return Array.prototype.map.call(copies.tBodies[0].rows, function (r) {
          return parseFloat(r.cells[bytesCol].getAttribute("data-sort"));
        });
      };
      copies.tHead.rows[0].cells[bytesCol].click();
      out.bytesAscending = sorts();
      copies.tHead.rows[0].cells[bytesCol].click();
      out.bytesDescending = sorts();
      var tensorCol = 2;
      copies.tHead.rows[0].cells[tensorCol].click();
      out.tensorsAscending = Array.prototype.map.call(copies.tBodies[0].rows, function (r) {
        return r.cells[tensorCol].textContent;
      });
    }
    var filter = document.querySelector("input.filter");
    var nodes = document.getElementById("nodes-table");
    var visible = function () {
      return Array.prototype.filter.call(nodes.tBodies[0].rows, function (r) { return r.style.display !== "none"; })
        .map(function (r) { return r.cells[0].textContent; });
    };
    filter.value = "__FILTER__";
    filter.dispatchEvent(new Event("input"));
    out.filtered = visible();
    filter.value = "";
    filter.dispatchEvent(new Event("input"));
    out.unfiltered = visible().length;
    var copy = document.getElementById("copy-code");
    copy.click();
    out.copyButton = copy.textContent;
""" + HARNESS_END


def test_interaction(report_file, tmp_path):
    name, report, path = report_file
    cpu = next(n.name for n in report.evidence.nodes if n.provider == "CPUExecutionProvider")
    harness = HARNESS.replace("__FILTER__", cpu.replace("\\", "\\\\").replace('"', '\\"'))
    page = tmp_path / f"{name}-harness.html"
    page.write_text(path.read_text(encoding="utf-8").replace("</body>", harness + "</body>"), encoding="utf-8")
    proc = run_chromium(["--dump-dom", page_url(page)], tmp_path, "harness")
    assert console_problems(proc.stderr) == []
    result = json.loads(text_of(proc.stdout, "harness-result"))
    assert result["errors"] == []
    sizes = sorted(c.bytes_per_run or 0 for c in report.copies)
    assert result["bytesAscending"] == sizes
    assert result["bytesDescending"] == sizes[::-1]
    assert result["tensorsAscending"] == sorted((c.tensor for c in report.copies), key=str.lower)
    assert cpu in result["filtered"]
    assert len(result["filtered"]) < len(report.evidence.nodes)
    assert result["unfiltered"] == len(report.evidence.nodes)
    assert result["copyButton"] in ("Copy", "Copied")


def test_evil_names_stay_text_in_the_browser(tmp_path):
    """Hostile node/tensor names render as text: no element or script from them, no console output."""
    from render_helpers import EVIL_NODE, EVIL_TENSOR

    report = evil_report(tmp_path)
    path = tmp_path / "evil.html"
    path.write_text(render_html(report), encoding="utf-8")
    proc = run_chromium(["--dump-dom", page_url(path)], tmp_path, "evil")
    dom = proc.stdout
    assert console_problems(proc.stderr) == []
    assert dom.count("<script") == 1
    assert "<img" not in dom
    assert str(escape(EVIL_NODE)).replace("&#34;", '"') in dom
    assert text_of(dom, "verdict") == report.verdict
    cells = [htmllib.unescape(re.sub(r"<[^>]+>", "", row)) for row in tbody_rows(dom, "copies-table")]
    assert any(EVIL_TENSOR in cell for cell in cells)


BIG_HARNESS = r"""
<script>
(function () {
  var out = {errors: []};
  window.addEventListener("error", function (e) { out.errors.push(String(e.message)); });
  try {
    var nodes = document.getElementById("nodes-table");
    var head = nodes.tHead.rows[0].cells;
    var shown = function () {
      return Array.prototype.filter.call(nodes.tBodies[0].rows, function (r) {
        return r.style.display !== "none" && !r.classList.contains("over-limit");
      });
    };
    var timed = function (name, action) {  // the action, then a forced layout, timed together
      var t0 = performance.now();
      action();
      document.body.offsetHeight;
      out[name] = performance.now() - t0;
    };
    out.rows = nodes.tBodies[0].rows.length;
    out.shownAtLoad = shown().length;
    timed("sortByName", function () { head[0].click(); });
    out.firstAscending = shown()[0].cells[0].textContent;
    timed("sortByNameAgain", function () { head[0].click(); });
    out.firstDescending = shown()[0].cells[0].textContent;
    timed("sortByProvider", function () { head[2].click(); });
    var filter = document.querySelector("input.filter");
    timed("filter", function () { filter.value = "cpu_op_"; filter.dispatchEvent(new Event("input")); });
    out.filtered = shown().length;
    timed("unfilter", function () { filter.value = ""; filter.dispatchEvent(new Event("input")); });
    out.unfiltered = shown().length;
    var more = document.querySelector(".more-rows button");
    timed("showAll", function () { more.click(); });
    out.shownAll = shown().length;
""" + HARNESS_END


def test_big_report_sorts_and_filters(tmp_path):
    """10,000 nodes: the report opens with both pictures, and sorting and filtering the node table complete."""
    report = big_report(tmp_path, n_nodes=10_000)
    n = len(report.evidence.nodes)
    html = render_html(report)
    page = tmp_path / "big-harness.html"
    page.write_text(html.replace("</body>", BIG_HARNESS + "</body>"), encoding="utf-8")
    proc = run_chromium(["--dump-dom", page_url(page)], tmp_path, "big")
    assert console_problems(proc.stderr) == []
    result = json.loads(text_of(proc.stdout, "harness-result"))
    print(f"\n{n}-row node table in chromium: sort {result['sortByName']:.0f} ms, sort again "
          f"{result['sortByNameAgain']:.0f} ms, sort by provider {result['sortByProvider']:.0f} ms, filter "
          f"{result['filter']:.0f} ms, clear filter {result['unfilter']:.0f} ms, show all rows {result['showAll']:.0f} ms")
    assert result["errors"] == []
    assert result["rows"] == n
    assert result["shownAtLoad"] == 500  # the first 500 rows on screen, a button for the rest
    names = sorted((x.name for x in report.evidence.nodes), key=str.lower)
    assert result["firstAscending"] == names[0] and result["firstDescending"] == names[-1]
    assert result["filtered"] == sum(x.name.startswith("cpu_op_") for x in report.evidence.nodes)
    assert result["unfiltered"] == 500 and result["shownAll"] == n
    for svg_id in ("timeline-svg", "islands-svg"):
        assert re.search(rf'<svg [^>]*\bid="{svg_id}"', proc.stdout)
