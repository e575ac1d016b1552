"""Shared helpers for the renderer, browser and wheel tests, and the paths the tests use (TESTS, REPO).

Fixtures are recorded GPU evidence (tests/fixtures/gpu/*.json.gz: {"report": <report dict>, ...});
``load_report`` wants a plain JSON file of that report dict, so each test writes one to its tmp dir.
"""

from __future__ import annotations

import ast
import copy
import msgspec
import gzip
import html as htmllib
import io
import json
import os
import re
import shutil
import subprocess
import tokenize
from html.parser import HTMLParser
from pathlib import Path
from typing import Any

import pytest

TESTS = Path(__file__).resolve().parent
REPO = TESTS.parent


def child_env(*first: Path | str, **extra: str) -> dict[str, str]:
    """The environment for a child Python process: this one's, with ``first`` and the checkout put first on
    PYTHONPATH and what was there kept (a machine's staged packages, as on the GPU machine, where a child that lost
    them imported another onnxruntime), plus ``extra``."""
    env = dict(os.environ, **extra)
    env["PYTHONPATH"] = os.pathsep.join([*map(str, first), str(REPO)] +
                                        ([os.environ["PYTHONPATH"]] if os.environ.get("PYTHONPATH") else []))
    return env
FIXTURES = TESTS / "fixtures" / "gpu"
GOLDEN = TESTS / "golden"
ARTIFACTS = TESTS / "artifacts"

# The fixtures the golden files and the browser test cover.
GOLDEN_FIXTURES = ["cpu_op_between", "demo"]

UPDATE_ENV = "ORTCOPY_UPDATE_GOLDEN"

# Untrusted names: HTML markup, both quote kinds, &, non-ASCII, rich console markup.
EVIL_NODE = '<script>alert("x")</script> & ü'
EVIL_TENSOR = "<img src=x onerror=alert('t')> & ü \"t\""
EVIL_INPUT = "in'put\" & ü"
EVIL_OUTPUT = "[bold]out[/bold] [/] & ü"


def fixture_report_dict(name: str) -> dict[str, Any]:
    with gzip.open(FIXTURES / f"{name}.json.gz", "rt", encoding="utf-8") as f:
        data = json.load(f)
    return data["report"]


def write_report_json(report_dict: dict[str, Any], path: Path) -> Path:
    path.write_text(json.dumps(report_dict, ensure_ascii=False), encoding="utf-8")
    return path


def fixture_json(name: str, tmp_path: Path) -> Path:
    """The fixture's report dict as a plain JSON file that ``load_report`` reads."""
    return write_report_json(fixture_report_dict(name), tmp_path / f"{name}.json")


def load_fixture(name: str, tmp_path: Path):
    from ortcopy_doctor.report.core import load_report

    return load_report(fixture_json(name, tmp_path))


def renamed(value: Any, mapping: dict[str, str]) -> Any:
    """A deep copy of ``value`` with every string exactly equal to a key of ``mapping`` replaced."""
    if isinstance(value, dict):
        return {k: renamed(v, mapping) for k, v in value.items()}
    if isinstance(value, list):
        return [renamed(v, mapping) for v in value]
    if isinstance(value, str):
        return mapping.get(value, value)
    return copy.deepcopy(value)


def evil_report(tmp_path: Path):
    """cpu_op_between with its CPU node, a Memcpy'd tensor, the input and the output renamed to hostile names.

    Only the evidence is renamed: ``load_report`` re-analyses it, so copies, findings and binding code
    are all derived from the hostile names.
    """
    from ortcopy_doctor.report.core import load_report

    report = fixture_report_dict("cpu_op_between")
    mapping = {"celu": EVIL_NODE, "h1": EVIL_TENSOR, "x": EVIL_INPUT, "y": EVIL_OUTPUT}
    evidence = renamed(report["evidence"], mapping)
    return load_report(write_report_json(evidence, tmp_path / "evil.json"))


def program(code: str) -> tuple[str, str]:
    """What generated code does and says, whatever its layout: its syntax tree and its comments' words in order.
    Fixtures recorded on the H200 hold the code as it ran there; the code printed now is laid out within 88
    characters (analysis/codelayout.py), the same program."""
    tree = ast.dump(ast.parse(code))
    words = " ".join(word for t in tokenize.generate_tokens(io.StringIO(code).readline) if t.type == tokenize.COMMENT
                     for word in t.string[1:].split())
    return tree, words


def programs_in(value: Any) -> Any:
    """A report's JSON as this code writes it (read through the codec: the fields older code left out at their
    defaults filled in), with each generated program (a string holding ``import onnxruntime as ort``) replaced by
    ``program`` of it: compares two reports whose code differs only in layout. Without the ``analysed_by`` key,
    which names the code that wrote a report (report/seal.py): the recorded files were written by older code."""
    if isinstance(value, dict) and value.get("format") == "ortcopy-doctor-report":
        from ortcopy_doctor.model import codec
        from ortcopy_doctor.report.core import ReportDocument

        value = codec.to_builtins(codec.convert(value, ReportDocument))
    return _programs_in(value)


def _programs_in(value: Any) -> Any:
    if isinstance(value, dict):
        return {k: _programs_in(v) for k, v in value.items() if k != "analysed_by"}
    if isinstance(value, list):
        return [_programs_in(v) for v in value]
    if isinstance(value, str) and "import onnxruntime as ort\n" in value:
        return ["<program>", *program(value)]
    return value


# ----------------------------------------------------------------------------------------------------------------
# Masking volatile parts before comparing with the golden files.

_TIME_UNIT = r"(?=\s?(?:ms|µs|us)(?![A-Za-z]))"


def _hash_number(m: re.Match[str]) -> str:
    whole, _, frac = m.group(0).partition(".")
    return "#" + ("." + "#" * len(frac) if frac else "")


def _wbr_tolerant(literal: str) -> str:
    """A pattern for ``literal`` as the HTML report writes it, with a <wbr> where a long name may break."""
    return "(?:<wbr>)?".join(re.escape(c) for c in literal)


def mask_text(text: str, report) -> str:
    """Mask what differs between recordings but not in what the renderers do with it.

    Timing numbers keep their format (``0.238 ms`` -> ``#.### ms``) so a change of precision or unit
    still shows in the golden diff.
    """
    ev = report.evidence
    model_dir = os.path.dirname(ev.model.path)
    if model_dir:
        text = re.sub(_wbr_tolerant(model_dir), "<MODEL_DIR>", text)
    text = re.sub(r"/tmp/(?:<wbr>)?(?:[^\s/'\"<>]|<wbr>)+/(?:<wbr>)?", "<TMP>/", text)
    if ev.created_utc:
        text = re.sub(_wbr_tolerant(ev.created_utc), "<CREATED_UTC>", text)
    text = re.sub(r"\b\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(?:\.\d+)?Z", "<UTC>", text)
    text = re.sub(r"(ortcopy-doctor )\d+\.\d+\.\d+\S*?(?=[\s,<'\"]|$)", r"\1<VERSION>", text)
    text = re.sub(r"\d+(?:\.\d+)?" + _TIME_UNIT, _hash_number, text)
    text = re.sub(r"(?<=\bp10 )\d+(?:\.\d+)?|(?<=\bp90 )\d+(?:\.\d+)?", _hash_number, text)
    text = re.sub(r"\d+\.\d+(?= – | –</span>)", _hash_number, text)  # "0.223 – 0.259 ms" in the HTML
    # Measured in the census and binding sections: "IQR 0.062–0.067 vs", "0.32 %" of run time, "µs, -24%; IQR",
    # "Tracing overhead: +64 %", "0.18 GB/s", "(0.8×, pinned", "= -2992 ns".
    text = re.sub(r"\d+\.\d+(?=–)|(?<=–)\d+\.\d+", _hash_number, text)
    text = re.sub(r"\d+\.\d+(?= %)|(?<=s, [+-])\d+(?=%; IQR)|(?<=Tracing overhead: [+-])\d+(?= %)", _hash_number, text)
    text = re.sub(r"\d+(?:\.\d+)?(?= GB/s)|\d+\.\d+(?=×)", _hash_number, text)
    text = re.sub(r"-?\d+(?= ns\b)", "#", text)
    text = re.sub(r"\d+\.\d+(?=x\b)", _hash_number, text)  # speed-ups: "1.20x faster (95% CI 1.10–1.31)"
    # The timeline's horizontal geometry follows the measured times; its structure (lanes, one rect per node
    # event, transfer marks and their bytes) stays in the golden file.
    text = re.sub(r'<svg id="timeline-svg".*?</svg>', _mask_timeline, text, flags=re.DOTALL)
    return text


def _mask_timeline(m: re.Match[str]) -> str:
    return re.sub(r'(?<![\w-])(x|x1|x2|width|points)="[^"]*"', r'\1="#"', m.group(0))


_TIME_KEYS = {"ts_us", "dur_us", "run_ms", "session_create_ms", "first_run_ms", "median_run_ms", "p10_run_ms",
              "p90_run_ms", "memcpy_node_time_us_per_run",
              # the binding measurement and the transfer census (measured, differ between recordings)
              "median_ms", "p10_ms", "p25_ms", "p75_ms", "p90_ms", "pageable_ms", "pinned_ms", "staging_ms",
              "traced_run_ms", "duration_ns", "start_ns", "end_ns", "api_start_ns", "at_us", "run_dur_us",
              "time_ns_per_run", "share_of_run", "gb_per_s", "largest_gb_per_s", "overhead", "clock_offset_ns",
              "clock_pairs", "correlation_id", "profiling_start_ns", "boundary_us",
              "boundary_tolerance_us", "clock_error_ns",
              # the advice (recommend.py): medians, intervals and speed-ups follow the measured times
              "median_ci_low_ms", "median_ci_high_ms", "speedup", "speedup_ci_low", "speedup_ci_high",
              "gpu_median_ms", "gpu_speedup", "gpu_speedup_ci_low", "gpu_speedup_ci_high", "current_ms", "best_ms",
              "gain_left", "samples_ms", "gpu_samples_ms"}


def _mask_numbers(value: Any) -> Any:
    if isinstance(value, list):
        return [_mask_numbers(v) for v in value]
    if isinstance(value, (int, float)) and not isinstance(value, bool):
        return "<time>"
    return value


def _mask_json_value(value: Any) -> Any:
    if isinstance(value, dict):
        out = {}
        for k, v in value.items():
            if k in _TIME_KEYS:
                out[k] = _mask_numbers(v)
            elif k in ("created_utc", "tool_version", "analysed_by") and isinstance(v, str):
                out[k] = f"<{k.upper()}>"
            else:
                out[k] = _mask_json_value(v)
        return out
    if isinstance(value, list):
        return [_mask_json_value(v) for v in value]
    return value


def mask_json(text: str, report) -> str:
    """Mask the timing fields, timestamps, tool version and analysis seal (a digest of the code: it changes with
    every edit of the analysis) structurally, then paths etc. as in the text."""
    masked = _mask_json_value(json.loads(text))
    return mask_text(json.dumps(masked, indent=1, ensure_ascii=False), report) + "\n"


def check_golden(name: str, actual: str) -> None:
    """Compare with tests/golden/<name>; ORTCOPY_UPDATE_GOLDEN=1 rewrites the file instead."""
    path = GOLDEN / name
    if os.environ.get(UPDATE_ENV) == "1":
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(actual, encoding="utf-8", newline="\n")
        return
    if not path.exists():
        raise AssertionError(f"golden file {path} is missing: run with {UPDATE_ENV}=1 to write it, then review it")
    expected = path.read_text(encoding="utf-8")
    if actual != expected:
        import difflib

        diff = "".join(difflib.unified_diff(expected.splitlines(True), actual.splitlines(True),
                                            f"golden/{name}", "actual", n=2))
        if len(diff) > 8000:
            diff = diff[:8000] + "\n... (diff truncated)\n"
        raise AssertionError(f"{name} differs from its golden file (if the change is intended, rerun with "
                             f"{UPDATE_ENV}=1 and review the diff):\n{diff}")


# ----------------------------------------------------------------------------------------------------------------
# Network references in the HTML.

_URL_ATTRS = {"src", "href", "srcset", "action", "formaction", "data", "poster", "background", "cite", "manifest",
              "xlink:href", "ping"}
_REMOTE = re.compile(r"^\s*(?:[a-z][a-z0-9+.-]*:)?//", re.IGNORECASE)  # http://, https://, //host, ws://


class _RefFinder(HTMLParser):
    def __init__(self) -> None:
        super().__init__(convert_charrefs=True)
        self.problems: list[str] = []
        self.scripts: list[dict[str, str | None]] = []
        self._in_style = False
        self.style_text: list[str] = []

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        a = dict(attrs)
        if tag == "script":
            self.scripts.append(a)
            if a.get("src"):
                self.problems.append(f"<script src={a['src']!r}>: scripts must be inline")
        if tag == "link" and "stylesheet" in (a.get("rel") or "").lower():
            self.problems.append(f"<link rel=stylesheet href={a.get('href')!r}>: styles must be inline")
        if tag == "link" and a.get("href") and _REMOTE.match(a["href"] or ""):
            self.problems.append(f"<link href={a['href']!r}>")
        if tag in ("iframe", "object", "embed") :
            self.problems.append(f"<{tag}> element")
        for name, value in attrs:
            if name in _URL_ATTRS and value and (_REMOTE.match(value) or "http://" in value or "https://" in value):
                self.problems.append(f"<{tag} {name}={value!r}>: network reference")
            if name == "style" and value and re.search(r"url\(|@import", value, re.IGNORECASE):
                self.problems.append(f"<{tag} style={value!r}>: url() in inline style")
        if tag == "style":
            self._in_style = True

    def handle_endtag(self, tag: str) -> None:
        if tag == "style":
            self._in_style = False

    def handle_data(self, data: str) -> None:
        if self._in_style:
            self.style_text.append(data)


def network_references(html: str) -> list[str]:
    """Everything in ``html`` that would make a browser fetch something: must be empty for a self-contained file."""
    finder = _RefFinder()
    finder.feed(html)
    finder.close()
    problems = list(finder.problems)
    css = "".join(finder.style_text)
    for m in re.finditer(r"url\(\s*['\"]?([^)'\"]*)|@import\s+[^;]*", css, re.IGNORECASE):
        if m.group(0).lower().startswith("@import") or not (m.group(1) or "").startswith("data:"):
            problems.append(f"CSS {m.group(0)!r}")
    # Belt and braces: any src/href attribute value anywhere (also in script strings) pointing off the machine.
    for m in re.finditer(r"""\b(?:src|href)\s*=\s*["']?\s*(?:https?:)?//""", html, re.IGNORECASE):
        problems.append(f"raw {m.group(0)!r}")
    return problems


def script_tags(html: str) -> list[dict[str, str | None]]:
    finder = _RefFinder()
    finder.feed(html)
    finder.close()
    return finder.scripts


# ----------------------------------------------------------------------------------------------------------------
# A big graph: the demo evidence with thousands of nodes appended (performance of the SVGs and the tables).


def big_report(tmp_path: Path, n_nodes: int = 10_000, island_every: int = 400):
    """The demo fixture with a chain of ``n_nodes`` more nodes after ``positive_scores`` and node events for them.

    Mostly CUDA Add/Relu nodes (each also reads the tensor two steps back, so layers have some width); every
    ``island_every`` nodes a CPU island of 1-3 nodes between a MemcpyToHost and a MemcpyFromHost. Node events go
    into every run (a few µs each, run events stretched to fit); the census is dropped (its times would not
    match), so the timeline marks the analysis copies. Re-analysed with ``report.analyse``.
    """
    from ortcopy_doctor.model.evidence import NodeEvent, RunEvent, RuntimeNode
    from ortcopy_doctor.report.core import analyse

    base = load_fixture("demo", tmp_path)
    ev = base.evidence
    cuda, cpu = "CUDAExecutionProvider", "CPUExecutionProvider"
    added: list[RuntimeNode] = []
    prev, prev2 = "positive_scores", "positive_scores"
    i = 0
    island = 0
    while len(added) < n_nodes:
        if i and i % island_every == 0:
            island += 1
            host = f"island{island}_in"
            added.append(RuntimeNode(f"Memcpy_island{island}_to", "MemcpyToHost", "", cuda, [prev], [host]))
            t = host
            for k in range(1 + island % 3):
                out = f"island{island}_cpu{k}"
                added.append(RuntimeNode(f"cpu_op_{island}_{k}", "Celu", "", cpu, [t], [out],
                                         fallback_reason="no_kernel", fallback_detail="no CUDA kernel for Celu"))
                t = out
            dev = f"island{island}_out_CUDAExecutionProvider"
            added.append(RuntimeNode(f"Memcpy_island{island}_from", "MemcpyFromHost", "", cuda, [t], [dev]))
            prev2, prev = prev, dev
        out = f"t{i}"
        op = "Add" if i % 2 else "Relu"
        inputs = [prev, prev2] if op == "Add" else [prev]
        added.append(RuntimeNode(f"node_{i}", op, "", cuda, inputs, [out]))
        prev2, prev = prev, out
        i += 1
    ev.nodes.extend(added)
    runs: list[RunEvent] = []
    events: list[NodeEvent] = []
    ts = 1000
    order = [n for n in ev.nodes]
    for r in ev.run_events:
        start = ts
        ts += 5
        for n in order:
            dur = 2 + (len(n.name) % 7 if n.provider == cuda else 9)
            events.append(NodeEvent(r.run, n.name, n.op_type, n.provider, ts, dur, [], [], 16384))
            ts += dur + 1
        runs.append(RunEvent(r.run, start, ts - start + 5, r.warmup))
        ts += 100
    return analyse(msgspec.structs.replace(ev, run_events=runs, node_events=events, census=None, census_status=""))


# ----------------------------------------------------------------------------------------------------------------
# Headless Chromium: the browser tests (tests/project/test_browser.py) and the diff page (tests/report/test_diff.py).

CHROMIUM_TIMEOUT_S = 60


def _chromium() -> str | None:
    if os.environ.get("CHROMIUM"):  # an explicit choice is the only candidate
        candidate = os.environ["CHROMIUM"]
        return candidate if Path(candidate).is_file() and os.access(candidate, os.X_OK) else None
    for candidate in (shutil.which("chromium"), "/usr/bin/chromium"):
        if candidate and Path(candidate).is_file() and os.access(candidate, os.X_OK):
            return candidate
    return None


CHROMIUM = _chromium()

def run_chromium(args: list[str], tmp_path: Path, tag: str) -> subprocess.CompletedProcess[str]:
    profile = tmp_path / f"profile-{tag}"
    cmd = [
        CHROMIUM, "--headless", "--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage", "--disable-quic",
        "--no-first-run", "--no-default-browser-check", "--disable-background-networking",
        "--disable-component-update", "--disable-sync", "--disable-extensions", "--mute-audio",
        f"--user-data-dir={profile}", "--enable-logging=stderr", "--v=0", *args,
    ]
    env = dict(os.environ, HOME=str(tmp_path))  # keep ~/.config, ~/.cache and crash dumps out of the real home
    try:
        proc = subprocess.run(cmd, capture_output=True, text=True, timeout=CHROMIUM_TIMEOUT_S, env=env,
                              cwd=tmp_path)
    except subprocess.TimeoutExpired as exc:
        pytest.fail(f"chromium did not finish within {CHROMIUM_TIMEOUT_S} s: {' '.join(cmd)}\n"
                    f"stderr: {(exc.stderr or b'')[-3000:]!r}")
    assert proc.returncode == 0, f"chromium exited {proc.returncode}: {' '.join(cmd)}\n{proc.stderr[-3000:]}"
    return proc


def console_problems(stderr: str) -> list[str]:
    """Console messages and uncaught errors from the page (Chromium's own dbus/GPU warnings are not these)."""
    lines = []
    for line in stderr.splitlines():
        if ":CONSOLE" in line or "Uncaught" in line or "Refused to" in line:
            lines.append(line)
    return lines


def page_url(path: Path) -> str:
    return path.resolve().as_uri()


def text_of(dom: str, element_id: str) -> str:
    m = re.search(rf'<[a-z0-9]+[^>]*\bid="{element_id}"[^>]*>(.*?)</', dom, re.DOTALL)
    assert m, f"#{element_id} not in the DOM"
    return htmllib.unescape(re.sub(r"<[^>]+>", "", m.group(1)))


def tbody_rows(dom: str, table_id: str) -> list[str]:
    m = re.search(rf'<table[^>]*\bid="{table_id}"[^>]*>.*?<tbody>(.*?)</tbody>', dom, re.DOTALL)
    assert m, f"table #{table_id} not in the DOM"
    return re.findall(r"<tr\b.*?</tr>", m.group(1), re.DOTALL)
