"""GPU faults (run on the GPU machine with `pytest -m gpu`): a clear one-line error, exit 3, no traceback,
and the evidence gathered before the fault kept in the --json file."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import numpy as np
import onnx
import pytest
from onnx import TensorProto, helper

from render_helpers import REPO

pytestmark = pytest.mark.gpu
ROOT = REPO


def _cuda_available() -> bool:
    """The CUDA EP is in this build and really loads (a build can list it and still fall back to CPU)."""
    import onnxruntime as ort

    from ortcopy_doctor.collect.environment import provider_loadable

    return ("CUDAExecutionProvider" in ort.get_available_providers()
            and provider_loadable("CUDAExecutionProvider").loadable)


def _cli(tmp_path: Path, *args: str) -> subprocess.CompletedProcess:
    env = dict(os.environ, PYTHONPATH=os.pathsep.join([str(ROOT), os.environ.get("PYTHONPATH", "")]))
    return subprocess.run([sys.executable, "-m", "ortcopy_doctor", *args], cwd=tmp_path, env=env,
                          capture_output=True, text=True, timeout=300)


def _filler(path: Path) -> None:
    """ConstantOfShape reads its shape on the host: a shape input of 400 GB makes the device run out of memory."""
    graph = helper.make_graph(
        [helper.make_node("ConstantOfShape", ["shape"], ["filled"], name="fill",
                          value=helper.make_tensor("v", TensorProto.FLOAT, [1], [1.0])),
         helper.make_node("Relu", ["filled"], ["y"], name="relu")],
        "filler",
        [helper.make_tensor_value_info("shape", TensorProto.INT64, [2])],
        [helper.make_tensor_value_info("y", TensorProto.FLOAT, ["rows", "cols"])],
    )
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17)])
    model.ir_version = 10
    onnx.save(model, str(path))


@pytest.fixture()
def cuda(tmp_path):
    if not _cuda_available():
        pytest.skip("the CUDA EP does not load here")
    return tmp_path


def test_out_of_device_memory_is_exit_3_with_evidence_kept(cuda):
    tmp_path = cuda
    model = tmp_path / "filler.onnx"
    _filler(model)
    np.savez(tmp_path / "inputs.npz", shape=np.array([320_000, 320_000], np.int64))  # 409.6 GB of float32
    result = _cli(tmp_path, "check", str(model), "--inputs", "inputs.npz", "--json", "partial.json",
                  "--html", "report.html", "--warmup", "0", "--runs", "1", "--timed-runs", "1")
    assert result.returncode == 3, result.stderr
    assert "Traceback" not in result.stderr + result.stdout
    lines = result.stderr.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("error: the device ran out of memory")
    assert lines[0].endswith("(evidence gathered so far, with the static prediction: partial.json, report.html)")
    assert (tmp_path / "report.html").exists()  # with the static prediction (issue 36)
    partial = json.loads((tmp_path / "partial.json").read_text())
    assert partial["verdict"].startswith("Incomplete: the check stopped early: the device ran out of memory")
    assert partial["evidence"]["predicted"]["mode"] == "static"
    assert partial["evidence"]["session"]["active_providers"][0] == "CUDAExecutionProvider"
    assert [n["name"] for n in partial["evidence"]["nodes"]] == ["fill", "relu"]


def test_cuda_device_that_does_not_exist_falls_back_to_cpu_and_says_why(cuda):
    # Seen on the H200 with ORT 1.31.1: a device id the machine lacks does not fail session creation;
    # ORT drops the CUDA EP ("provider_options ...") and runs on CPU. The doctor must say so, with ORT's reason.
    tmp_path = cuda
    model = tmp_path / "filler.onnx"
    _filler(model)
    np.savez(tmp_path / "inputs.npz", shape=np.array([4, 4], np.int64))
    result = _cli(tmp_path, "check", str(model), "--inputs", "inputs.npz", "--device-id", "7", "--no-html",
                  "--json", "r.json", "--timed-runs", "1")
    assert "Traceback" not in result.stderr + result.stdout
    assert result.returncode == 1
    report = json.loads((tmp_path / "r.json").read_text())
    assert report["verdict"].startswith("CUDA was requested but is not active: the model ran on CPU.")
    assert [f["rule"] for f in report["findings"] if f["severity"] == "error"] == ["OCD001"]
    assert "provider_options" in report["evidence"]["session"]["ep_failure"]


def test_cuda_graph_refused_at_session_creation_is_a_clear_usage_error(cuda):
    import models

    tmp_path = cuda
    model = tmp_path / "cpu_op_between.onnx"
    onnx.save(models.cpu_op_between(), str(model))
    result = _cli(tmp_path, "check", str(model), "--dim", "batch=2", "--provider-option", "enable_cuda_graph=1",
                  "--json", "r.json", "--html", "r.html", "--timed-runs", "1")
    assert "Traceback" not in result.stderr + result.stdout
    assert result.returncode == 2, (result.returncode, result.stderr, result.stdout[:500])
    lines = result.stderr.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("error: enable_cuda_graph needs every node on the CUDA EP")
    assert not (tmp_path / "r.json").exists() and not (tmp_path / "r.html").exists()
