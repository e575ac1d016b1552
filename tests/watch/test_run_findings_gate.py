"""`ortcopy-doctor run` with its findings as rules: `--sarif FILE` at the program's source lines, `--fail-on` by
severity (and its older spellings round-trip, host-transfer), `--allow` of run rules; exit 1 only where the program
itself exited 0. A program that feeds a Relu's output back as its next input, on the CPU EP: its state round trip is
predicted for the device (OCD102, warning), and its one upload and download are infos."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import onnx
from onnx import TensorProto, helper

from render_helpers import child_env
from schema_helpers import assert_valid_sarif

_PROGRAM = """import sys
import numpy as np
import onnxruntime as ort
s = ort.InferenceSession("relu.onnx", providers=["CPUExecutionProvider"])
y = np.ones((2, 3), np.float32)
for _ in range(5):
    y = s.run(None, {"x": y})[0]
sys.exit(int(sys.argv[1]) if len(sys.argv) > 1 else 0)
"""


def _program(tmp_path: Path) -> Path:
    graph = helper.make_graph([helper.make_node("Relu", ["x"], ["y"])], "relu",
                              [helper.make_tensor_value_info("x", TensorProto.FLOAT, [2, 3])],
                              [helper.make_tensor_value_info("y", TensorProto.FLOAT, [2, 3])])
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17)])
    model.ir_version = 8
    onnx.save(model, str(tmp_path / "relu.onnx"))
    script = tmp_path / "prog.py"
    script.write_text(_PROGRAM, encoding="utf-8")
    return script


def _run(tmp_path: Path, *options: str, exit_code: int = 0) -> subprocess.CompletedProcess[str]:
    script = _program(tmp_path)
    return subprocess.run([sys.executable, "-m", "ortcopy_doctor", "run", "--no-html", *options, "--", "python",
                           str(script), str(exit_code)], cwd=tmp_path, env=child_env(), capture_output=True, text=True,
                          timeout=300)


def test_fail_on_warning_fails_on_the_state_round_trip_and_sarif_points_at_its_line(tmp_path):
    proc = _run(tmp_path, "--fail-on", "warning", "--sarif", "out.sarif")
    assert proc.returncode == 1, proc.stderr
    assert "gate failed: 1 finding(s) at or above --fail-on warning: OCD102 state-round-trip" in proc.stderr
    results = assert_valid_sarif(tmp_path / "out.sarif")["runs"][0]["results"]
    assert [(r["ruleId"], r["level"]) for r in results] == [("OCD102", "warning"), ("OCD105", "note"),
                                                            ("OCD106", "note")]
    assert results[0]["locations"][0]["physicalLocation"] == {
        "artifactLocation": {"uri": "prog.py", "uriBaseId": "%SRCROOT%"}, "region": {"startLine": 7}}


def test_an_allowed_kind_passes_the_gate_and_is_a_suppressed_note(tmp_path):
    proc = _run(tmp_path, "--fail-on", "warning", "--allow", "state-round-trip", "--sarif", "out.sarif")
    assert proc.returncode == 0, proc.stderr
    (result, *_) = json.loads((tmp_path / "out.sarif").read_text(encoding="utf-8"))["runs"][0]["results"]
    assert (result["ruleId"], result["level"], result["suppressions"][0]["status"]) == ("OCD102", "note", "accepted")


def test_the_program_s_own_exit_code_comes_first(tmp_path):
    assert _run(tmp_path, "--fail-on", "info", exit_code=3).returncode == 3


def test_the_older_round_trip_spelling_still_fails_on_a_round_trip(tmp_path):
    proc = _run(tmp_path, "--fail-on", "round-trip")
    assert proc.returncode == 1
    assert "gate failed: 1 host round trip(s) between stages (--fail-on round-trip)" in proc.stderr


def test_a_check_rule_in_allow_is_refused_before_the_program_runs(tmp_path):
    proc = _run(tmp_path, "--allow", "feed-copy", "--json", "out.json")
    assert proc.returncode == 2
    assert proc.stderr.startswith("error: --allow 'feed-copy' is a rule of check reports (OCD004 feed-copy), not of "
                                  "run ones")
    assert not (tmp_path / "out.json").exists()
