"""`ortcopy-doctor audit` as a subprocess (issue 37), on the CPU here: a check per row in a child of its own (a crash
and a hang are rows while the rest finishes), rows equal to plain checks, GPUs held one row at a time, --resume,
shards and their merge, the baseline gate, Ctrl-C, and one line for bad input."""

from __future__ import annotations

import json
import os
import shutil
import signal
import subprocess
import sys
import time
from datetime import datetime
from pathlib import Path

import onnx
import pytest

import models
from ortcopy_doctor.cli.audit import safe_name
from render_helpers import REPO
from schema_helpers import run_cli

FAST = 'providers = ["cpu"]\nruns = 1\ntimed_runs = 3\nwarmup = 1\n'
CC = shutil.which("cc") or shutil.which("gcc")


def _manifest(folder: Path, body: str, name: str = "zoo.toml") -> Path:
    path = folder / name
    path.write_text(f"[defaults]\n{FAST}\n{body}", encoding="utf-8")
    return path


def _rows(folder: Path) -> list[dict]:
    return [json.loads(line) for line in (folder / "audit.jsonl").read_text(encoding="utf-8").splitlines()]


@pytest.fixture(scope="module")
def zoo(tmp_path_factory) -> Path:
    folder = tmp_path_factory.mktemp("zoo")
    onnx.save(models.conv_net(), str(folder / "conv.onnx"))
    onnx.save(models.cpu_op_between(), str(folder / "celu.onnx"))
    return folder


def _library(folder: Path, name: str, body: str) -> Path:
    source = folder / f"{name}.c"
    source.write_text(f"void* RegisterCustomOps(void* options, const void* api) {{ {body} }}\n", encoding="utf-8")
    library = folder / f"lib{name}.so"
    subprocess.run([CC, "-shared", "-fPIC", "-o", str(library), str(source)], check=True, capture_output=True)
    return library


@pytest.mark.skipif(CC is None, reason="no C compiler (cc) to build the crashing and hanging custom-op libraries")
def test_a_crash_and_a_hang_are_rows_while_the_rest_finishes(zoo, tmp_path):
    _library(tmp_path, "crash", "volatile int* p = 0; *p = 1; return 0;")
    _library(tmp_path, "hang", "for (;;) {} return 0;")
    shutil.copy(zoo / "conv.onnx", tmp_path)
    _manifest(tmp_path, """
[[model]]
path = "conv.onnx"
dims = { batch = 1 }
[[model]]
path = "conv.onnx"
name = "crash"
custom_op_library = ["libcrash.so"]
[[model]]
path = "conv.onnx"
name = "hang"
custom_op_library = ["libhang.so"]
timeout = 3
""")
    result = run_cli(["audit", "zoo.toml", "--out", "out", "--no-html"], tmp_path)
    assert result.returncode == 0, (result.stdout, result.stderr)
    rows = {r["id"]: r for r in _rows(tmp_path / "out")}
    assert (rows["conv"]["status"], rows["crash"]["status"], rows["hang"]["status"]) == ("ok", "crashed", "timeout")
    assert rows["crash"]["error"] == ("native code crashed the check (SIGSEGV): set ORTCOPY_DOCTOR_DEBUG=1 and report "
                                      "it")
    assert rows["crash"]["stderr_tail"].endswith(rows["crash"]["error"])
    assert rows["hang"]["error"] == "timed out after 3 s: killed"
    assert result.stdout.splitlines()[0] == "3 rows: 1 ok, 1 crashed, 1 timed out; 0 with host<->device copies"
    assert sorted(p.name for p in (tmp_path / "out" / "reports").iterdir()) == ["conv.html", "conv.json"]


def test_a_row_s_numbers_are_those_of_a_plain_check(zoo):
    _manifest(zoo, '[[model]]\npath = "celu.onnx"\nproviders = ["cuda"]\n', "one.toml")
    audit = run_cli(["audit", "one.toml", "--out", "one", "--no-html", "-q"], zoo)
    check = run_cli(["check", "celu.onnx", "-p", "cuda", "--runs", "1", "--timed-runs", "3", "--warmup", "1",
                     "--json", "plain.json", "--no-html", "-q"], zoo)
    assert audit.returncode == 0 and check.returncode in (0, 1), (audit.stderr, check.stderr)
    (row,) = _rows(zoo / "one")
    summary = json.loads((zoo / "plain.json").read_text(encoding="utf-8"))["summary"]
    assert [row[k] for k in ("copies_per_run", "bytes_per_run", "memcpy_nodes", "fallback_nodes")] == [
        summary[k] for k in ("copies_per_run", "bytes_per_run", "memcpy_nodes", "fallback_nodes")]
    assert row["findings_by_severity"] == summary["findings_by_severity"]
    assert row["report"] == "reports/celu.html" and (zoo / "one" / "reports" / "celu.html").is_file()


def _interval(row: dict) -> tuple[float, float]:
    start = datetime.fromisoformat(row["started"].replace("Z", "+00:00")).timestamp()
    return start, start + row["seconds"]


def test_measuring_rows_hold_a_gpu_alone_and_static_rows_none(zoo):
    body = "".join(f'[[model]]\npath = "conv.onnx"\nname = "m{i}"\ndims = {{ batch = {i + 1} }}\n' for i in range(4))
    body += '[[model]]\npath = "conv.onnx"\nname = "s"\nstatic = true\n'
    _manifest(zoo, body, "gpus.toml")
    result = run_cli(["audit", "gpus.toml", "--out", "gpus", "--gpus", "0,1", "--jobs", "4", "--no-html"], zoo)
    assert result.returncode == 0, (result.stdout, result.stderr)
    rows = _rows(zoo / "gpus")
    assert {r["id"]: r["gpu"] for r in rows if r["id"] == "s"} == {"s": ""}
    measured = [r for r in rows if r["id"] != "s"]
    assert {r["gpu"] for r in measured} <= {"0", "1"}
    for gpu in ("0", "1"):
        spans = sorted(_interval(r) for r in measured if r["gpu"] == gpu)
        assert all(a[1] <= b[0] + 0.002 for a, b in zip(spans, spans[1:])), spans  # one at a time on a GPU


def test_resume_skips_the_rows_done_and_an_audit_without_it_is_refused(zoo):
    _manifest(zoo, '[[model]]\npath = "conv.onnx"\nname = "a"\n', "r1.toml")
    assert run_cli(["audit", "r1.toml", "--out", "res", "--no-html", "-q"], zoo).returncode == 0
    again = run_cli(["audit", "r1.toml", "--out", "res", "--no-html"], zoo)
    assert (again.returncode, again.stderr.splitlines()) == (2, [
        "error: res/audit.jsonl holds an earlier audit: pass --resume to continue it, or another --out"])
    _manifest(zoo, '[[model]]\npath = "conv.onnx"\nname = "a"\n[[model]]\npath = "conv.onnx"\nname = "b"\n', "r2.toml")
    resumed = run_cli(["audit", "r2.toml", "--out", "res", "--no-html", "--resume"], zoo)
    assert resumed.returncode == 0, resumed.stderr
    assert [line.split(":")[0] for line in resumed.stderr.splitlines() if line.startswith("[")] == ["[2/2] b"]
    assert [r["id"] for r in _rows(zoo / "res")] == ["a", "b"]


def test_two_shards_merged_hold_every_row_once(zoo):
    body = "".join(f'[[model]]\npath = "conv.onnx"\nname = "n{i}"\nstatic = true\n' for i in range(6))
    _manifest(zoo, body, "shards.toml")
    for index in (1, 2):
        assert run_cli(["audit", "shards.toml", "--out", f"shard{index}", "--shard", f"{index}/2", "--no-html", "-q"],
                       zoo).returncode == 0
    ids = [[r["id"] for r in _rows(zoo / f"shard{i}")] for i in (1, 2)]
    assert sorted(ids[0] + ids[1]) == [f"n{i}" for i in range(6)] and not set(ids[0]) & set(ids[1])
    merged = run_cli(["audit", "merge", "shard1", "shard2/audit.jsonl", "--out", "merged"], zoo)
    assert merged.returncode == 0, merged.stderr
    assert [r["id"] for r in _rows(zoo / "merged")] == [f"n{i}" for i in range(6)]
    assert (zoo / "merged" / "index.html").is_file()
    assert all((zoo / "merged" / r["report"]).is_file() for r in _rows(zoo / "merged"))  # the links resolve


def test_the_baseline_gate_fails_on_a_regression_unless_its_kind_is_allowed(zoo):
    _manifest(zoo, '[[model]]\npath = "conv.onnx"\nname = "x"\nstatic = true\n', "base.toml")
    assert run_cli(["audit", "base.toml", "--out", "base", "--no-html", "-q"], zoo).returncode == 0
    rows = _rows(zoo / "base")
    rows[0]["copies_per_run"] = -1  # the baseline had fewer copies than now
    (zoo / "old.jsonl").write_text(json.dumps(rows[0]) + "\n", encoding="utf-8")
    gated = run_cli(["audit", "merge", "base", "--out", "gate", "--baseline", "old.jsonl", "--sarif", "g.sarif"], zoo)
    assert gated.returncode == 1
    assert "  x: more_copies: host<->device copies per run -1 -> 0" in gated.stdout.splitlines()
    assert [r["ruleId"] for r in json.loads((zoo / "g.sarif").read_text())["runs"][0]["results"]] == ["more_copies"]
    allowed = run_cli(["audit", "merge", "base", "--out", "gate2", "--baseline", "old.jsonl", "--allow-regression",
                       "more_copies"], zoo)
    assert allowed.returncode == 0
    to_stdout = run_cli(["audit", "merge", "base", "--out", "gate3", "--baseline", "old.jsonl", "--sarif", "-"], zoo)
    assert to_stdout.returncode == 1  # SARIF on stdout, the summary on stderr
    assert [r["ruleId"] for r in json.loads(to_stdout.stdout)["runs"][0]["results"]] == ["more_copies"]
    assert to_stdout.stderr.splitlines()[0].startswith("1 row: 1 ok")


def test_merge_refuses_to_write_over_a_shard_it_reads(zoo):
    _manifest(zoo, '[[model]]\npath = "conv.onnx"\nname = "y"\nstatic = true\n', "over.toml")
    assert run_cli(["audit", "over.toml", "--out", "over", "--no-html", "-q"], zoo).returncode == 0
    before = (zoo / "over" / "audit.jsonl").read_bytes()
    result = run_cli(["audit", "merge", "over", "--out", "over"], zoo)
    assert result.returncode == 2 and len(result.stderr.splitlines()) == 1
    assert result.stderr.startswith("error: --out ")
    assert (zoo / "over" / "audit.jsonl").read_bytes() == before


@pytest.mark.parametrize(("args", "line"), [
    (["audit", "nothing.toml"], "error: manifest nothing.toml cannot be read (No such file or directory): pass a TOML, "
                                "JSON or YAML file"),
    (["audit", "conv.onnx", "--shard", "3/2"], "error: --shard '3/2': give I/N with 1 <= I <= N, e.g. --shard 2/4"),
    (["audit", "conv.onnx", "--gpus", "0,0"], "error: --gpus '0,0': give GPU indexes once each, e.g. --gpus 0,1"),
    (["audit", "merge", "--out", "m"], "error: audit merge: give the shards' audit.jsonl files (or their folders)"),
])
def test_bad_input_is_one_line_and_exit_2(zoo, args, line):
    result = run_cli(args, zoo)
    assert (result.returncode, result.stderr.splitlines()) == (2, [line])


@pytest.mark.skipif(CC is None, reason="no C compiler (cc) to build the hanging custom-op library")
def test_ctrl_c_stops_the_children_keeps_the_rows_done_and_resume_continues(tmp_path):
    _library(tmp_path, "hang", "for (;;) {} return 0;")
    onnx.save(models.conv_net(), str(tmp_path / "conv.onnx"))
    _manifest(tmp_path, '[[model]]\npath = "conv.onnx"\nname = "a"\n[[model]]\npath = "conv.onnx"\nname = "z"\n'
                        'custom_op_library = ["libhang.so"]\ntimeout = 600\n')
    env = dict(os.environ, PYTHONPATH=os.pathsep.join([str(REPO), os.environ.get("PYTHONPATH", "")]))
    audit = subprocess.Popen([sys.executable, "-m", "ortcopy_doctor", "audit", "zoo.toml", "--out", "out", "--jobs",
                              "1", "--no-html"], cwd=tmp_path, env=env, stdout=subprocess.PIPE,
                             stderr=subprocess.PIPE, text=True)
    deadline = time.monotonic() + 60
    while not ((tmp_path / "out" / "audit.jsonl").exists() and _rows(tmp_path / "out")):
        assert time.monotonic() < deadline and audit.poll() is None
        time.sleep(0.05)
    time.sleep(0.5)  # the hanging row's child is running
    audit.send_signal(signal.SIGINT)
    _, stderr = audit.communicate(timeout=60)
    assert audit.returncode == 130
    assert stderr.splitlines()[-1] == ("error: interrupted: 1 of 2 rows done (in out/audit.jsonl); run the same command "
                                       "with --resume to continue")
    left = subprocess.run(["pgrep", "-f", "libhang.so"], capture_output=True, text=True).stdout.split()
    assert left == []
    assert [r["id"] for r in _rows(tmp_path / "out")] == ["a"]


def test_report_names_keep_plain_ids_and_never_share_a_file():
    assert safe_name("celu") == "celu" and safe_name("det[b=1]").startswith("det_b=1_-")
    assert safe_name("m[a,b]") != safe_name("m[a+b]")
