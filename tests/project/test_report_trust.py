"""A report file's derived sections are untrusted (issue 38, class 5), as docs/guarantees.md promises.

The ``analysed_by`` key is a SHA-256 with no secret: anyone can edit a report's copies, findings and numbers and key
the file again with this code. Such a file must fail every gate its evidence fails (the gates re-analyse), print
nothing raw to the terminal, and never end in exit 4, whatever a field holds. The CLI runs as a real subprocess on
real files, forged here as an attacker would: edited, then keyed with ``report.seal.analysis_key`` (``sealed`` here).
"""

from __future__ import annotations

import copy
import io
import json
import os
import re
import subprocess
import sys
from collections.abc import Callable
from msgspec.structs import replace
from pathlib import Path
from typing import Any

import onnx
import pytest
from onnx import TensorProto, helper

import models
from fixture_loader import recorded
from render_helpers import REPO
from ortcopy_doctor.model import codec
from ortcopy_doctor.model.errors import UsageError
from ortcopy_doctor.report.core import load_report, load_report_bytes
from seal_helpers import key_of, sealed, unsealed, verified

# What a terminal interprets: C0 (but the line breaks the renderer puts), DEL, C1, bidi and line separators.
RAW_CONTROL = re.compile("[\x00-\x09\x0b-\x1f\x7f-\x9f\u061c\u200e\u200f\u2028\u2029\u202a-\u202e\u2066-\u2069]")
OSC52 = "\x1b]52;c;ZXZpbA==\x07"  # writes the clipboard
CLEAR = "\x1b[2J\x1b[H"  # clears the screen
EVIL = f"{OSC52}{CLEAR}\u202e[bold]x[/]\x9b"
GATES = [["--fail-on", "warning"], ["--max-transfer-bytes", "1"], ["--fail-on-gain", "1.05"]]


def cli(args: list[str], cwd: Path) -> subprocess.CompletedProcess[str]:
    env = dict(os.environ)
    env["PYTHONPATH"] = os.pathsep.join([str(REPO)] + ([env["PYTHONPATH"]] if env.get("PYTHONPATH") else []))
    for name in ("COLUMNS", "LINES", "FORCE_COLOR", "TTY_COMPATIBLE", "TTY_INTERACTIVE", "ORTCOPY_DOCTOR_DEBUG"):
        env.pop(name, None)
    return subprocess.run([sys.executable, "-m", "ortcopy_doctor", *args], cwd=cwd, env=env, capture_output=True,
                          text=True, timeout=120, check=False, stdin=subprocess.DEVNULL)


def sealed_report(name: str, folder: Path) -> Path:
    """The recorded H200 report ``name``, as this code writes it: re-analysed and sealed."""
    path = folder / f"{name}.json"
    path.write_text(json.dumps(recorded(name)["report"]), encoding="utf-8")
    path.write_text(load_report(path).to_json(), encoding="utf-8")
    assert verified(path.read_bytes())
    return path


def forged(source: Path, target: Path, edit: Callable[[dict[str, Any]], None]) -> Path:
    """``source`` with ``edit`` applied to its JSON and sealed again with this code: what anyone can write."""
    data = json.loads(unsealed(source.read_text(encoding="utf-8")))
    edit(data)
    target.write_text(sealed(codec.to_json(data)), encoding="utf-8")
    # keyed again, unless it holds what no report of this format can (then no key names it: it is re-analysed)
    assert verified(target.read_bytes()) or key_of(data) is None
    return target


def emptied(data: dict[str, Any]) -> None:
    """Nothing found, nothing copied, no speed-up left: a report that passes every gate."""
    data["findings"] = []
    data["copies"] = []
    data["summary"].update(copies_per_run=0, bytes_per_run=0, feed_copies=0, fetch_copies=0, memcpy_nodes=0,
                           in_kernel_transfers=0, removable_by_binding=0, findings_by_severity={})
    data["verdict"] = "No host↔device copies per run: all 4 nodes on CUDA."
    data["advice"]["speedup_ci_low"] = 1.0  # the recommended variant's lower bound: no gain left


def test_the_forgery_is_read_as_it_is_from_the_cache(tmp_path):
    # the premise of the tests below: this code reads the forged file's derived sections as they are
    forgery = forged(sealed_report("demo", tmp_path), tmp_path / "forged.json", emptied)
    cached = load_report(forgery, cache=True)
    assert cached.from_cache and cached.findings == [] and cached.copies == []


@pytest.mark.parametrize("gate", GATES, ids=["fail-on", "max-transfer-bytes", "fail-on-gain"])
def test_a_forged_sealed_report_fails_the_gate_its_evidence_fails(tmp_path, gate):
    honest = sealed_report("demo", tmp_path)
    forgery = forged(honest, tmp_path / "forged.json", emptied)
    expected = cli(["report", honest.name, *gate], tmp_path)
    assert expected.returncode == 1, expected.stderr
    result = cli(["report", forgery.name, *gate], tmp_path)
    assert (result.returncode, result.stderr) == (1, "")
    failed = [line for line in result.stdout.splitlines() if line.startswith("gate failed: ")]
    assert failed and failed == [line for line in expected.stdout.splitlines() if line.startswith("gate failed: ")]


def test_a_forged_sealed_report_gives_the_sarif_of_its_evidence(tmp_path):
    honest = sealed_report("demo", tmp_path)
    forgery = forged(honest, tmp_path / "forged.json", emptied)
    for name in (honest.name, forgery.name):
        result = cli(["report", name, "--sarif", f"{name}.sarif"], tmp_path)
        assert result.returncode == 0, result.stderr
    results = [json.loads((tmp_path / f"{name}.sarif").read_text(encoding="utf-8"))["runs"][0]["results"]
               for name in (honest.name, forgery.name)]
    assert len(results[0]) == 7
    assert results[1] == results[0]


def test_a_forged_later_report_cannot_hide_a_regression_from_diff(tmp_path):
    # b's evidence is the demo's; its derived sections say what a's say: no new copy, no new finding
    a = sealed_report("cpu_op_between", tmp_path)
    derived = json.loads(unsealed(a.read_text(encoding="utf-8")))

    def like_a(data: dict[str, Any]) -> None:
        for key in ("verdict", "summary", "copies", "findings", "binding", "prediction", "census", "advice",
                    "measured"):
            data[key] = copy.deepcopy(derived[key])

    honest = sealed_report("demo", tmp_path)
    forgery = forged(honest, tmp_path / "forged.json", like_a)
    expected = cli(["diff", a.name, honest.name, "--fail-on-regression"], tmp_path)
    assert expected.returncode == 1, expected.stdout + expected.stderr
    result = cli(["diff", a.name, forgery.name, "--fail-on-regression"], tmp_path)
    assert (result.returncode, result.stderr) == (1, "")
    assert result.stdout.replace(forgery.name, honest.name) == expected.stdout


def test_a_forged_rule_and_slug_reach_the_terminal_escaped(tmp_path):
    def evil(data: dict[str, Any]) -> None:
        data["findings"][0]["rule"] = f"OCD{OSC52}"
        data["findings"][0]["slug"] = CLEAR

    forgery = forged(sealed_report("demo", tmp_path), tmp_path / "forged.json", evil)
    result = cli(["report", forgery.name], tmp_path)
    assert (result.returncode, result.stderr) == (0, "")
    assert not RAW_CONTROL.search(result.stdout)


def test_the_terminal_escapes_a_findings_rule_and_slug(tmp_path):
    from ortcopy_doctor.render.text import render_text

    report = load_report(sealed_report("demo", tmp_path))
    report = replace(report, findings=[replace(f, rule=f"OCD{OSC52}", slug=CLEAR) for f in report.findings])
    text = render_text(report)
    assert not RAW_CONTROL.search(text)
    assert "\\x1b]52;c;ZXZpbA==\\x07" in text


def test_the_gate_lines_are_escaped(tmp_path):
    from rich.console import Console

    from ortcopy_doctor.cli.ci import CiOptions

    report = load_report(sealed_report("demo", tmp_path))
    report = replace(report, findings=[replace(f, rule=f"OCD{OSC52}", slug=CLEAR) for f in report.findings])
    out = io.StringIO()
    assert CiOptions.parse("warning").exit_code(report, Console(file=out, width=1000)) == 1
    assert out.getvalue().startswith("gate failed: ")
    assert not RAW_CONTROL.search(out.getvalue())


@pytest.mark.parametrize(("field", "value", "args"), [
    ("summary.p90_run_ms", None, []),
    ("summary.p10_run_ms", None, ["-o", "out.html"]),
    ("advice.speedup_ci_low", None, ["-o", "out.html"]),
    ("advice.speedup_ci_high", None, ["--fail-on-gain", "1.05"]),
    ("advice.speedup", None, ["--fail-on-gain", "1.05"]),
    ("measured.ab_rows.0", {}, ["-o", "out.html"]),
    ("summary.p90_run_ms", "fast", []),  # wrong-typed: the decoder refuses it
])
def test_a_bad_value_in_a_sealed_report_is_never_an_internal_error(tmp_path, field, value, args):
    honest = sealed_report("demo", tmp_path)

    def put(data: dict[str, Any]) -> None:
        *parents, last = field.split(".")
        for key in parents:
            data = data[int(key)] if key.isdigit() else data[key]
        data[int(last) if last.isdigit() else last] = value

    forgery = forged(honest, tmp_path / "forged.json", put)
    expected = cli(["report", honest.name, *args], tmp_path)
    result = cli(["report", forgery.name, *args], tmp_path)
    assert "internal error" not in result.stderr and "Traceback" not in result.stderr, result.stderr
    assert (result.returncode, result.stderr) == (expected.returncode, "")  # read again from its evidence
    assert result.stdout.replace(forgery.name, honest.name) == expected.stdout


def _mutations(value: Any, at: tuple[Any, ...] = ()) -> list[tuple[tuple[Any, ...], Any]]:
    """(path, bad value) for each field of ``value``: a number null, a string escape sequences, a list's first
    element (an object or a list) ``{}``; lists are followed into their first element."""
    if isinstance(value, dict):
        return [m for k, v in value.items() for m in _mutations(v, (*at, k))]
    if isinstance(value, list):
        if not value:
            return []
        first = [(at + (0,), {})] if isinstance(value[0], (dict, list)) else []
        return first + _mutations(value[0], at + (0,))
    if isinstance(value, str):
        return [(at, EVIL)]
    if isinstance(value, (int, float)) and not isinstance(value, bool):
        return [(at, None)]
    return []


def test_no_single_field_of_a_sealed_report_breaks_a_renderer(tmp_path):
    """Each number of the derived sections set to null, each string to escape sequences, each list's first
    element to ``{}``; sealed again. Rendered from the cache (terminal, HTML, SARIF, trace, diff): never an
    exception but a usage error, never a raw control character; loaded to be judged: the honest report."""
    from ortcopy_doctor.render.diff import render_diff_html, render_diff_text
    from ortcopy_doctor.render.html import render_html
    from ortcopy_doctor.render.sarif import render_sarif
    from ortcopy_doctor.render.text import render_text
    from ortcopy_doctor.render.trace import render_trace
    from ortcopy_doctor.report.diff import diff_reports

    honest = sealed_report("demo", tmp_path)
    base = json.loads(unsealed(honest.read_text(encoding="utf-8")))
    honest_text = honest.read_text(encoding="utf-8")
    broken = []
    tried = 0
    for at, bad in _mutations({k: v for k, v in base.items() if k not in ("evidence", "analysed_by")}):
        data = copy.deepcopy(base)
        parent = data
        for key in at[:-1]:
            parent = parent[key]
        parent[at[-1]] = bad
        raw = sealed(codec.to_json(data)).encode("utf-8")
        tried += 1
        try:
            report = load_report_bytes(raw, "forged.json", cache=True)
            texts = [render_text(report), render_sarif(report, (), tmp_path), render_trace(report)]
            render_html(report)
            d = diff_reports(report, report)
            texts.append(render_diff_text(d, show_unchanged=True))
            render_diff_html(d)
            if tried % 20 == 1:  # what a gate judges: the evidence analysed again, whatever the file says
                assert load_report_bytes(raw, "forged.json").to_json() == honest_text
        except UsageError:
            continue
        except Exception as exc:  # noqa: BLE001 - what the test looks for
            broken.append(f"{'.'.join(map(str, at))}={bad!r}: {type(exc).__name__}: {exc}")
            continue
        raw_control = [t for t in texts if RAW_CONTROL.search(t)]
        if raw_control:
            broken.append(f"{'.'.join(map(str, at))}={bad!r}: raw control character")
    assert tried > 200
    assert broken == []


def _model_named(name: str) -> onnx.ModelProto:
    """Celu (no CUDA kernel) with ``name`` in its node, input and output names."""
    nodes = [helper.make_node("Celu", [f"in{name}"], [f"out{name}"], name=f"celu{name}", alpha=1.0)]
    return models._model(nodes, [helper.make_tensor_value_info(f"in{name}", TensorProto.FLOAT, [2, 4])],
                         [helper.make_tensor_value_info(f"out{name}", TensorProto.FLOAT, [2, 4])])


def test_sarif_and_trace_files_hold_no_raw_control_character(tmp_path):
    name = "\x9b2J\u202etxt.exe\u2028"  # C1 CSI, a right-to-left override, a line separator: JSON leaves them raw
    onnx.save(_model_named(name), str(tmp_path / "m.onnx"))
    result = cli(["check", "m.onnx", "--timed-runs", "1", "--runs", "1", "--warmup", "0",
                  "--fail-on", "never", "--no-html", "--sarif", "s.sarif", "--trace", "t.json"], tmp_path)
    assert result.returncode == 0, result.stderr
    for output in ("s.sarif", "t.json"):
        text = (tmp_path / output).read_text(encoding="utf-8")
        assert not RAW_CONTROL.search(text.replace("\n", "")), output
        assert f"celu{name}" in json.dumps(json.loads(text), ensure_ascii=False), output  # the same strings


def test_json_to_stdout_holds_no_raw_control_character(tmp_path):
    """`--json -` reaches a terminal as text: C1 controls, DEL and the bidi and line separators a model's names can
    hold are written as JSON escapes (the same strings once parsed), as in SARIF and trace files."""
    def evil(data: dict[str, Any]) -> None:
        data["evidence"]["model"]["producer"] = EVIL + "\x7f\u2028"

    forgery = forged(sealed_report("demo", tmp_path), tmp_path / "forged.json", evil)
    result = cli(["report", forgery.name, "--json", "-"], tmp_path)
    assert result.returncode == 0, result.stderr  # (the terminal report goes to stderr)
    assert not RAW_CONTROL.search(result.stdout.replace("\n", ""))
    assert json.loads(result.stdout)["evidence"]["model"]["producer"] == EVIL + "\x7f\u2028"
