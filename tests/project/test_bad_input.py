"""Bad input through the real CLI: exit 2, one actionable `error:` line, no traceback, nothing left behind.

Each test runs ``python -m ortcopy_doctor`` as a subprocess in ``tmp_path`` and checks that the model
file (where there is one) is byte-for-byte unchanged and that no report file appeared.
"""

from __future__ import annotations

import hashlib
import json
import subprocess
from pathlib import Path

import numpy as np
import onnx
import onnxruntime as ort
import pytest
from onnx import TensorProto, helper

import models
from schema_helpers import assert_valid_report, run_cli

FAST = ["--timed-runs", "2", "--runs", "1", "--warmup", "1"]


def sha256(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


def listing(root: Path) -> set[str]:
    return {str(p.relative_to(root)) for p in root.rglob("*")}


def check_fails(tmp_path: Path, model: str, *extra: str, fragments: tuple[str, ...],
                reports: tuple[str, ...] = ("--html", "report.html", "--json", "report.json")) -> str:
    """Run `check`, assert the usage-error contract, return the error line."""
    model_path = tmp_path / model
    before_sha = sha256(model_path) if model_path.is_file() else None
    before = listing(tmp_path)
    result = run_cli(["check", model, *extra, *reports, *FAST], tmp_path)
    assert "Traceback" not in result.stdout + result.stderr
    assert result.returncode == 2, (result.returncode, result.stdout, result.stderr)
    assert result.stdout == ""
    lines = result.stderr.splitlines()
    assert len(lines) == 1, result.stderr
    assert lines[0].startswith("error: "), lines[0]
    for fragment in fragments:
        assert fragment in lines[0], (fragment, lines[0])
    for report in reports[1::2]:
        assert not (tmp_path / report).exists()
    assert listing(tmp_path) == before  # no report, temporary or .ortcopy.html file left behind
    if before_sha is not None:
        assert sha256(model_path) == before_sha
    return lines[0]


def save(tmp_path: Path, model: onnx.ModelProto, name: str = "model.onnx") -> str:
    onnx.save(model, str(tmp_path / name))
    return name


@pytest.fixture
def valid(tmp_path: Path) -> str:
    return save(tmp_path, models.cpu_op_between())


# --- the model path --------------------------------------------------------------------------------


def test_missing_model_path(tmp_path):
    check_fails(tmp_path, "missing.onnx", fragments=("model file not found: missing.onnx", "check the path"))


def test_model_path_is_a_directory(tmp_path):
    (tmp_path / "models").mkdir()
    check_fails(tmp_path, "models", fragments=("models is a directory", "pass the path of an .onnx file"))


def test_empty_model_file(tmp_path):
    (tmp_path / "empty.onnx").write_bytes(b"")
    check_fails(tmp_path, "empty.onnx", fragments=("empty.onnx is empty", "pass a complete .onnx model file"))


def test_random_bytes_are_not_onnx(tmp_path):
    (tmp_path / "random.onnx").write_bytes(np.random.default_rng(1234).bytes(4096))
    check_fails(tmp_path, "random.onnx",
                fragments=("random.onnx is not a readable ONNX model", "truncated or not ONNX", "re-export"))


def test_truncated_model(tmp_path):
    data = models.cpu_op_between().SerializeToString()
    (tmp_path / "truncated.onnx").write_bytes(data[: len(data) // 2])
    check_fails(tmp_path, "truncated.onnx", "--dim", "batch=2",
                fragments=("truncated.onnx is not a readable ONNX model", "truncated or not ONNX", "re-export"))


def test_missing_external_data(tmp_path):
    onnx.save(models.cpu_op_between(), str(tmp_path / "model.onnx"), save_as_external_data=True,
              all_tensors_to_one_file=True, location="weights.bin", size_threshold=0)
    assert (tmp_path / "weights.bin").is_file()
    (tmp_path / "weights.bin").unlink()
    check_fails(tmp_path, "model.onnx", "--dim", "batch=2",
                fragments=("external data file 'weights.bin' of model.onnx is missing",
                           "keep the weights file next to the model"))


def _external(tmp_path: Path, location: str) -> None:
    """model.onnx whose weights say they are at ``location`` (the file written as weights.bin, then renamed)."""
    model = models.cpu_op_between()
    onnx.save(model, str(tmp_path / "model.onnx"), save_as_external_data=True, all_tensors_to_one_file=True,
              location="weights.bin", size_threshold=0)
    loaded = onnx.load(str(tmp_path / "model.onnx"), load_external_data=False)
    for t in loaded.graph.initializer:
        for entry in t.external_data:
            if entry.key == "location":
                entry.value = location
    onnx.save(loaded, str(tmp_path / "model.onnx"))


@pytest.mark.parametrize("location", ["../../../../etc/passwd", "/etc/passwd", "sub/../../weights.bin"])
def test_external_data_outside_the_model_folder_is_refused_unread(tmp_path, location):
    _external(tmp_path, location)
    line = check_fails(tmp_path, "model.onnx", "--dim", "batch=2",
                       fragments=(f"external data file '{location}' of model.onnx points outside the model's folder",
                                  "keep the weights file in the model's folder and name it by a relative path"))
    assert "has " not in line  # the size of a file outside is not told


def test_external_data_that_is_a_directory_is_not_called_missing(tmp_path):
    _external(tmp_path, "weights")
    (tmp_path / "weights").mkdir()
    check_fails(tmp_path, "model.onnx", "--dim", "batch=2",
                fragments=("external data file 'weights' of model.onnx is not a regular file (a directory)",))


def test_ir_version_newer_than_onnxruntime_loads(tmp_path):
    model = models.cpu_op_between()
    model.ir_version = 14  # ORT 1.31 loads IR versions up to 13
    name = save(tmp_path, model)
    line = check_fails(tmp_path, name, "--dim", "batch=2",
                       fragments=("model.onnx: Unsupported model IR version: 14, max supported IR version: "
                                  f"{13 if ort.__version__.startswith('1.31.') else ''}",  # 10 in 1.20
                                  f"onnxruntime {ort.__version__} cannot load it",
                                  "upgrade onnxruntime or save the model with a lower ir_version"))
    assert "onnxruntime_src" not in line and "::" not in line  # no C++ source location or signature


def test_op_from_unknown_custom_domain(tmp_path):
    graph = helper.make_graph(
        [helper.make_node("Foo", ["x"], ["y"], name="foo", domain="com.example.custom")], "custom",
        [helper.make_tensor_value_info("x", TensorProto.FLOAT, [2, 4])],
        [helper.make_tensor_value_info("y", TensorProto.FLOAT, [2, 4])],
    )
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17),
                                                    helper.make_opsetid("com.example.custom", 1)])
    model.ir_version = models.IR_VERSION
    name = save(tmp_path, model, "custom.onnx")
    check_fails(tmp_path, name,
                fragments=("custom.onnx uses an op onnxruntime does not know",
                           "'Foo'", "'com.example.custom'", "register its library with --custom-op-library PATH"))


# --- inputs ----------------------------------------------------------------------------------------


def test_unresolved_symbolic_dim_names_input_and_flag(tmp_path, valid):
    check_fails(tmp_path, valid, "--strict-shapes",
                fragments=("input 'x' dim 0 is the symbol 'batch'", "pass --dim batch=N"))


def test_inputs_file_with_wrong_name(tmp_path, valid):
    np.savez(tmp_path / "inputs.npz", nope=np.zeros((2, 64), np.float32))
    check_fails(tmp_path, valid, "--dim", "batch=2", "--inputs", "inputs.npz",
                fragments=("--inputs has 'nope', which is not an input of the model", "(inputs: x)"))


def test_inputs_file_with_wrong_dtype(tmp_path, valid):
    np.savez(tmp_path / "inputs.npz", x=np.zeros((2, 64), np.float64))
    check_fails(tmp_path, valid, "--dim", "batch=2", "--inputs", "inputs.npz",
                fragments=("--inputs 'x' has dtype float64, the model expects float32",
                           "convert it with .astype('float32')"))


def test_inputs_file_with_wrong_shape(tmp_path, valid):
    np.savez(tmp_path / "inputs.npz", x=np.zeros((2, 63), np.float32))
    check_fails(tmp_path, valid, "--dim", "batch=2", "--inputs", "inputs.npz",
                fragments=("--inputs 'x' has shape [2, 63], the model fixes dim 1 to 64",))


# --- options ---------------------------------------------------------------------------------------


def test_unknown_provider(tmp_path, valid):
    check_fails(tmp_path, valid, "--dim", "batch=2", "--provider", "nosuch",
                fragments=("unknown provider 'nosuch'", "use one of", "cpu", "cuda", "CUDAExecutionProvider"))


def test_html_into_missing_folder(tmp_path, valid):
    check_fails(tmp_path, valid, "--dim", "batch=2", "--json", "report.json", "--html", "nowhere/report.html",
                reports=(),
                fragments=("--html nowhere/report.html: folder nowhere does not exist",
                           "create it or choose another path"))
    assert not (tmp_path / "nowhere").exists()
    assert not (tmp_path / "report.json").exists()


def test_html_into_a_folder_that_takes_no_file_is_refused_before_the_session(tmp_path):
    """/proc lets root pass every permission check and still takes no new file: the output is tried before the
    model is run (here one onnxruntime refuses, so an error about the model would mean it ran first)."""
    graph = helper.make_graph([helper.make_node("Foo", ["x"], ["y"], domain="com.example.custom")], "custom",
                              [helper.make_tensor_value_info("x", TensorProto.FLOAT, [2])],
                              [helper.make_tensor_value_info("y", TensorProto.FLOAT, [2])])
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17),
                                                    helper.make_opsetid("com.example.custom", 1)])
    model.ir_version = models.IR_VERSION
    name = save(tmp_path, model, "custom.onnx")
    check_fails(tmp_path, name, "--json", "report.json", "--html", "/proc/ortcopy-doctor-test.html", reports=(),
                fragments=("error: --html /proc/ortcopy-doctor-test.html could not be written",
                           "choose another path"))
    assert not (tmp_path / "report.json").exists()


def test_json_pointing_at_a_directory(tmp_path, valid):
    (tmp_path / "out").mkdir()
    check_fails(tmp_path, valid, "--dim", "batch=2", "--html", "report.html", "--json", "out", reports=(),
                fragments=("--json out is a directory", "give a file path"))
    assert list((tmp_path / "out").iterdir()) == []
    assert not (tmp_path / "report.html").exists()


# --- exit codes on a valid model -------------------------------------------------------------------


def test_cpu_provider_on_valid_model_exits_0(tmp_path, valid):
    before = sha256(tmp_path / valid)
    result = run_cli(["check", valid, "--dim", "batch=2", "--provider", "cpu", "--no-html", *FAST], tmp_path)
    assert result.returncode == 0, (result.stdout, result.stderr)
    assert result.stderr == ""
    assert result.stdout.splitlines()[0] == "CPU-only session: no host↔device copies (all 3 nodes on CPU)."
    assert sha256(tmp_path / valid) == before


def _default_check(tmp_path: Path, valid: str, fail_on: str) -> subprocess.CompletedProcess[str]:
    result = run_cli(["check", valid, "--dim", "batch=2", "--no-html", "--json", "run.json", "--fail-on", fail_on,
                      *FAST], tmp_path)
    assert "Traceback" not in result.stdout + result.stderr
    assert_valid_report(tmp_path / "run.json")  # the shipped JSON Schema (tests/model/test_schema.py)
    session = json.loads((tmp_path / "run.json").read_text())["evidence"]["session"]
    if "CUDAExecutionProvider" in session["active_providers"]:
        pytest.skip("CUDA is active on this machine: these tests are for CUDA requested but not active")
    assert session["requested_providers"] == ["CUDAExecutionProvider", "CPUExecutionProvider"]
    assert session["active_providers"] == ["CPUExecutionProvider"]
    return result


def test_default_providers_with_cuda_inactive_fail_on_error_exits_1(tmp_path, valid):
    result = _default_check(tmp_path, valid, "error")
    assert result.returncode == 1, (result.stdout, result.stderr)
    assert "OCD001 ep-not-active" in result.stdout


def test_default_providers_with_cuda_inactive_fail_on_never_exits_0(tmp_path, valid):
    result = _default_check(tmp_path, valid, "never")
    assert result.returncode == 0, (result.stdout, result.stderr)
    assert "OCD001 ep-not-active" in result.stdout


def test_a_model_without_outputs_is_told_so(tmp_path):
    graph = helper.make_graph([helper.make_node("Relu", ["x"], ["y"], name="relu")], "no_outputs",
                              [helper.make_tensor_value_info("x", TensorProto.FLOAT, [2, 4])], [])
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17)])
    model.ir_version = models.IR_VERSION
    name = save(tmp_path, model, "no_outputs.onnx")
    check_fails(tmp_path, name, fragments=(
        "error: no_outputs.onnx declares no graph outputs, so there is nothing to run: give the graph the outputs the "
        "model should return, or use --static to see its placement",))


@pytest.mark.parametrize("flag, value, limit", [("--runs", "99999999999999999999", "1<=x<=1000"),
                                                ("--warmup", "10001", "0<=x<=10000"),
                                                ("--timed-runs", "1000001", "1<=x<=1000000")])
def test_run_counts_have_an_upper_bound(tmp_path, valid, flag, value, limit):
    """--runs 99999999999999999999 was accepted and ran for minutes, its profile growing to a GB."""
    result = run_cli(["check", valid, "--dim", "batch=2", flag, value, "--no-html"], tmp_path)
    assert (result.returncode, result.stdout, result.stderr) == (
        2, "", f"error: Invalid value for '{flag}': {value} is not in the range {limit}: see "
               "`python -m ortcopy_doctor check --help`\n")


def test_html_and_no_html_together_are_refused(tmp_path, valid):
    check_fails(tmp_path, valid, "--dim", "batch=2", "--html", "out.html", "--no-html", reports=(),
                fragments=("error: --html out.html and --no-html contradict each other: give one",))


@pytest.mark.parametrize("names", ["", ",", " , "])
def test_a_provider_list_naming_no_provider_is_refused(tmp_path, valid, names):
    """--provider '' silently meant the CPU provider alone."""
    check_fails(tmp_path, valid, "--dim", "batch=2", "--provider", names,
                fragments=(f"error: --provider {names!r} names no provider: use one of",))


def test_a_shape_naming_no_input_is_refused_also_by_static(tmp_path, valid):
    """--static took every input error as "sizes stay symbolic", a --shape for a name the model lacks included."""
    check_fails(tmp_path, valid, "--static", "--shape", "nosuch=3",
                fragments=("error: --shape names 'nosuch', which is not an input of the model",))


def test_a_provider_option_for_the_cpu_provider_is_refused(tmp_path, valid):
    """onnxruntime takes options for the CPU provider and ignores them: the flag did nothing."""
    check_fails(tmp_path, valid, "--dim", "batch=2", "--provider", "cpu", "--provider-option", "foo=bar",
                fragments=("error: --provider-option sets an option of the first provider, and the CPU provider has "
                           "none: drop it, or name the provider it is for first (e.g. --provider cuda)",))


@pytest.mark.parametrize("device_id", ["-1", "99999999999999999999"])
def test_a_device_id_out_of_range_is_refused(tmp_path, valid, device_id):
    check_fails(tmp_path, valid, "--dim", "batch=2", "--device-id", device_id,
                fragments=(f"error: Invalid value for '--device-id': {device_id} is not in the range 0<=x<=1023",))


def test_a_device_id_with_the_cpu_provider_is_refused(tmp_path, valid):
    check_fails(tmp_path, valid, "--dim", "batch=2", "--provider", "cpu", "--device-id", "1",
                fragments=("error: --device-id 1 picks a GPU, and --provider cpu uses none: drop it, or request a GPU "
                           "provider (e.g. --provider cuda)",))


def test_a_measure_budget_that_is_no_number_is_refused(tmp_path, valid):
    """nan passes a range check (every comparison with it is false)."""
    check_fails(tmp_path, valid, "--dim", "batch=2", "--measure-budget", "nan",
                fragments=("error: --measure-budget nan: give a number of seconds, e.g. --measure-budget 5",))
