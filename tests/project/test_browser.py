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
    renamed,
    run_chromium,
    tbody_rows,
    text_of,
    write_report_json,
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


# --- long names and shapes at a laptop's viewport (issue 36) ---------------------------------------------------------

# What the page looks like at 1280x800: for every table on screen, how wide it is against the box it sits in and
# how far right its cells reach; and every line break inside a name (a <code> in a cell or a finding) or a cause
# that falls inside one text node rather than at a <wbr>, a space or after a hyphen or dash, i.e. mid-word. A break is a change of line between two
# adjacent characters (their client rects' tops). Text in a `.long` span (a token of over 30 characters with no
# separator, which may break anywhere as a last resort) is not checked.
LAYOUT_HARNESS = r"""
<script>
(function () {
  var out = {errors: [], viewport: window.innerWidth, tables: [], midWord: [], lines: {}};
  window.addEventListener("error", function (e) { out.errors.push(String(e.message)); });
  try {
    var screen = document.documentElement.clientWidth;
    out.page = {scrollWidth: document.documentElement.scrollWidth, clientWidth: screen};
    Array.prototype.forEach.call(document.querySelectorAll("table"), function (table, i) {
      if (!table.getClientRects().length) { return; }  // not on screen (a closed <details>)
      var right = 0;
      Array.prototype.forEach.call(table.querySelectorAll("td, th"), function (cell) {
        var r = cell.getBoundingClientRect();
        if (r.width) { right = Math.max(right, r.right); }
      });
      var box = table.parentElement, style = getComputedStyle(box);  // the width the table may take
      var room = box.clientWidth - parseFloat(style.paddingLeft) - parseFloat(style.paddingRight);
      out.tables.push({table: table.id || "table " + i, scrollWidth: table.scrollWidth, containerWidth: room,
                       right: right, screen: screen});
    });
    var lineTops = function (el) {  // the distinct tops of the lines an element's text takes
      var tops = [];
      Array.prototype.forEach.call(el.getClientRects(), function (r) {
        if (r.width && tops.indexOf(Math.round(r.top)) === -1) { tops.push(Math.round(r.top)); }
      });
      return tops.length;
    };
    var range = document.createRange();
    var top = function (node, i) {
      range.setStart(node, i); range.setEnd(node, i + 1);
      var r = range.getClientRects();
      return r.length ? r[0].top : null;
    };
    Array.prototype.forEach.call(document.querySelectorAll("__NAMES__"), function (el) {
      if (!el.getClientRects().length) { return; }
      var walker = document.createTreeWalker(el, NodeFilter.SHOW_TEXT);
      for (var node = walker.nextNode(); node; node = walker.nextNode()) {
        if (node.parentElement.closest(".long")) { continue; }
        var text = node.data, before = top(node, 0);
        for (var i = 1; i < text.length; i++) {
          var at = top(node, i);
          if (at === null) { continue; }
          if (before !== null && at > before + 2 && !/[\s\-\u2013\u2014]/.test(text[i - 1]) && !/\s/.test(text[i])) {
            out.midWord.push(el.textContent + " | at " + JSON.stringify(text.slice(0, i) + "|" + text.slice(i)));
          }
          before = at;
        }
      }
      if (el.tagName === "CODE") { out.lines[el.textContent] = Math.max(out.lines[el.textContent] || 0, lineTops(el)); }
    });
""" + HARNESS_END


def _layout(page: Path, tmp_path: Path, tag: str, names: str = "td code, .finding code, td.why") -> dict:
    """The layout harness's findings on ``page`` at 1280x800; ``names`` selects the elements whose line breaks are
    checked."""
    harnessed = page.with_name(page.stem + "-layout.html")
    harness = LAYOUT_HARNESS.replace("__NAMES__", names)
    harnessed.write_text(page.read_text(encoding="utf-8").replace("</body>", harness + "</body>"), encoding="utf-8")
    proc = run_chromium(["--window-size=1280,800", "--dump-dom", page_url(harnessed)], tmp_path, tag)
    assert console_problems(proc.stderr) == []
    result = json.loads(text_of(proc.stdout, "harness-result"))
    assert result["errors"] == []
    assert result["viewport"] == 1280
    return result


def _overflowing(result: dict) -> list[dict]:
    """The tables wider than their box or reaching past the screen, and the page itself where it scrolls sideways."""
    page = [result["page"]] if result["page"]["scrollWidth"] > result["page"]["clientWidth"] else []
    return page + [t for t in result["tables"] if t["scrollWidth"] > t["containerWidth"] or t["right"] > t["screen"]]


@pytest.fixture(scope="module")
def long_names_pages(tmp_path_factory) -> dict[str, Path]:
    """Two reports with exporters' long names: the static prediction of a model built in code (copies with the
    nudenet shape, placement, findings, binding plan), and the H200 demo recording renamed (census, measured
    binding), both rendered as `check` writes them; and the diff page of the recording against its renamed copy."""
    import onnx
    from models import LAYER_PATH, LSTM_NODE, NUDENET_DIM, long_names
    from render_helpers import fixture_report_dict

    from ortcopy_doctor import check
    from ortcopy_doctor.render.diff import render_diff_html
    from ortcopy_doctor.report.core import load_report
    from ortcopy_doctor.report.diff import diff_reports

    folder = tmp_path_factory.mktemp("long-names")
    model = folder / "long_names.onnx"
    onnx.save(long_names(), model)
    static = check(model, static=True)
    mapping = {"encoder_matmul": LAYER_PATH, "celu_activation": LSTM_NODE, "hidden": "encoder/hidden_states",
               "active_count": NUDENET_DIM}
    data = fixture_report_dict("demo")
    measured = load_report(write_report_json(renamed(data["evidence"], mapping), folder / "measured.json"))
    pages = {}
    for name, report in (("static", static), ("measured", measured)):
        pages[name] = folder / f"{name}.html"
        pages[name].write_text(render_html(report), encoding="utf-8")
    # The diff page of the recording against its renamed copy: every copy and finding added or removed.
    original = load_report(write_report_json(data, folder / "demo.json"))
    pages["diff"] = folder / "diff.html"
    pages["diff"].write_text(render_diff_html(diff_reports(original, measured, "demo.json", "measured.json")),
                             encoding="utf-8")
    return pages


@pytest.mark.parametrize("name", ["static", "measured", "diff"])
def test_long_names_fit_the_screen(long_names_pages, name, tmp_path):
    """At 1280x800 no table is wider than the page; the tables with names are among those measured."""
    result = _layout(long_names_pages[name], tmp_path, f"layout-{name}")
    tables = {t["table"] for t in result["tables"]}
    expected = {"static": {"copies-table", "nodes-table"},
                "measured": {"copies-table", "nodes-table", "census-table", "binding-ab-table"},
                "diff": {"copies-diff", "findings-diff"}}[name]
    assert expected <= tables
    assert _overflowing(result) == []


@pytest.mark.parametrize("name", ["static", "measured", "diff"])
def test_long_names_break_only_between_words(long_names_pages, name, tmp_path):
    """A name wraps at its separators (`/`, `_`, `.`, camelCase), never inside a word: `active_indices` is never
    `active_i|ndices`, and the inlined LSTM's name takes at most 3 lines (it took 9)."""
    from models import LAYER_PATH, LSTM_NODE

    result = _layout(long_names_pages[name], tmp_path, f"words-{name}")
    assert result["midWord"] == []
    assert result["lines"]["active_indices"] == 1
    assert 1 <= result["lines"][LSTM_NODE] <= 3
    assert 1 <= result["lines"].get(LAYER_PATH, 1) <= 3  # (in the diff page only inside sentences)


def test_names_keep_their_text_for_filter_sort_and_copy(long_names_pages):
    """The <wbr> are markup only: each cell's text is the name itself, which the page's filter and sort read and
    copy and paste gives."""
    from models import LAYER_PATH, LSTM_NODE

    html = long_names_pages["static"].read_text(encoding="utf-8")
    assert "If_<wbr>0_<wbr>else_<wbr>branch__<wbr>Inline_<wbr>0__/<wbr>decoder/<wbr>rnn/<wbr>LSTM" in html
    cells = [htmllib.unescape(re.sub(r"<[^>]+>", "", c)) for row in tbody_rows(html, "nodes-table")
             for c in re.findall(r"<td>(.*?)</td>", row)]
    assert LSTM_NODE in cells and LAYER_PATH in cells
    assert "<code>active_indices</code>" in html  # 16 characters or fewer: one word, never broken


@pytest.mark.parametrize("name", GOLDEN_FIXTURES)
def test_recorded_reports_fit_the_screen(name, tmp_path):
    report = load_fixture(name, tmp_path)
    path = tmp_path / f"{name}.html"
    path.write_text(render_html(report), encoding="utf-8")
    result = _layout(path, tmp_path, f"fit-{name}")
    assert result["tables"] and _overflowing(result) == []
    assert result["midWord"] == []


def test_long_names_screenshot(long_names_pages, tmp_path):
    """A screenshot of each page at 1280x800 in tests/artifacts/ to look at."""
    ARTIFACTS.mkdir(parents=True, exist_ok=True)
    for name, page in long_names_pages.items():
        png = ARTIFACTS / f"long-names-{name}.png"
        png.unlink(missing_ok=True)
        proc = run_chromium([f"--screenshot={png}", "--window-size=1280,800", page_url(page)], tmp_path, f"shot-{name}")
        assert png_size(png) == (1280, 800)
        assert console_problems(proc.stderr) == []


def test_pipeline_page_with_long_names_fits_the_screen(tmp_path):
    """The `run` page (report/pipeline.py) of the recorded detect -> classify pipeline with a 90-character model name
    and long tensor names: no table or line widens the page, and names break only at their separators."""
    import gzip

    from render_helpers import TESTS

    from ortcopy_doctor.report.pipeline import analyse_pipeline, load_pipeline_observations
    from ortcopy_doctor.render.pipeline import render_pipeline_html

    with gzip.open(TESTS / "fixtures" / "pipelines" / "detect_crop_classify.json.gz", "rt", encoding="utf-8") as f:
        observations = json.load(f)["report"]["observations"]
    model = "If_0_else_branch__Inline_0__decoder_rnn_lstm_exported_model_v2_with_past_key_values.onnx"
    mapping = {"det.onnx": model, "features": "encoder/layers.11/self_attention/output_projection/MatMul_1_output_0",
               "boxes": "active_indices"}
    report = analyse_pipeline(load_pipeline_observations(renamed(observations, mapping)))
    page = tmp_path / "run.html"
    page.write_text(render_pipeline_html(report), encoding="utf-8")
    result = _layout(page, tmp_path, "pipeline", names="td, li")
    # the sessions, the run rules' findings, every transfer per iteration, the stages beside the timeline of a
    # typical and of the first iteration, the first iteration (shown apart, issue 33) and the stage table
    assert len(result["tables"]) == 7 and _overflowing(result) == []
    assert result["midWord"] == []


# --- the run page's timeline (issue 33 part 5) -------------------------------------------------------------------

TIMELINE_HARNESS = r"""
<script>
(function () {
  var out = {errors: [], pairs: []};
  try {
    Array.prototype.forEach.call(document.querySelectorAll(".timeline-pair"), function (pair) {
      var svg = pair.querySelector("svg").getBoundingClientRect();
      var table = pair.querySelector("table").getBoundingClientRect();
      out.pairs.push({id: pair.id, svgWidth: svg.width, svgRight: svg.right, svgTop: svg.top, tableLeft: table.left,
                      tableRight: table.right, tableTop: table.top, screen: document.documentElement.clientWidth,
                      rects: pair.querySelectorAll("svg rect").length});
    });
""" + HARNESS_END


def test_the_run_page_draws_its_timelines_with_their_stages_beside_them(tmp_path):
    """At 1280x800 each iteration's lanes and its table of stages stand side by side, within the screen."""
    import gzip

    from render_helpers import TESTS

    from ortcopy_doctor.render.pipeline import render_pipeline_html
    from ortcopy_doctor.report.pipeline import analyse_pipeline, load_pipeline_observations

    with gzip.open(TESTS / "fixtures" / "pipelines" / "detect_crop_classify.json.gz", "rt", encoding="utf-8") as f:
        report = analyse_pipeline(load_pipeline_observations(json.load(f)["report"]["observations"]))
    page = tmp_path / "run.html"
    page.write_text(render_pipeline_html(report).replace("</body>", TIMELINE_HARNESS + "</body>"), encoding="utf-8")
    proc = run_chromium(["--window-size=1280,800", "--dump-dom", page_url(page)], tmp_path, "run-timeline")
    assert console_problems(proc.stderr) == []
    result = json.loads(text_of(proc.stdout, "harness-result"))
    assert result["errors"] == []
    assert [p["id"] for p in result["pairs"]] == ["timeline-1-typical", "timeline-1-first"]
    for p in result["pairs"]:
        assert p["svgWidth"] > 400 and p["rects"] > 5
        assert p["tableLeft"] >= p["svgRight"] and p["tableRight"] <= p["screen"]  # beside it, on screen


def test_run_page_screenshot(tmp_path):
    """A screenshot of the run page of the recorded detect -> classify pipeline in tests/artifacts/ to look at."""
    import gzip

    from render_helpers import TESTS

    from ortcopy_doctor.render.pipeline import render_pipeline_html
    from ortcopy_doctor.report.pipeline import analyse_pipeline, load_pipeline_observations

    with gzip.open(TESTS / "fixtures" / "pipelines" / "detect_crop_classify.json.gz", "rt", encoding="utf-8") as f:
        report = analyse_pipeline(load_pipeline_observations(json.load(f)["report"]["observations"]))
    page = tmp_path / "run.html"
    page.write_text(render_pipeline_html(report), encoding="utf-8")
    ARTIFACTS.mkdir(parents=True, exist_ok=True)
    png = ARTIFACTS / "run-timeline.png"
    png.unlink(missing_ok=True)
    proc = run_chromium([f"--screenshot={png}", "--window-size=1280,1400", page_url(page)], tmp_path, "shot-run")
    assert png_size(png) == (1280, 1400)
    assert console_problems(proc.stderr) == []
