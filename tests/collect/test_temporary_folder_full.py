"""A temporary folder without room for ORT's optimized model or profile is the machine's problem (exit 3, with
what to do), not a broken model (exit 2). Measured on a real full file system: a 256 KB tmpfs (needs root and
mount; skipped, with the reason, elsewhere)."""

from __future__ import annotations

import os
import re
import subprocess
import sys
import uuid
from collections.abc import Iterator
from pathlib import Path

import numpy as np
import onnx
import pytest
from onnx import TensorProto, helper, numpy_helper

from models import IR_VERSION
from render_helpers import child_env

from ortcopy_doctor.collect.check import _temporary_folder_full
from ortcopy_doctor.model.errors import ModelError


@pytest.fixture()
def tiny_tmp(tmp_path: Path) -> Iterator[Path]:
    folder = tmp_path / f"tiny-{uuid.uuid4().hex[:8]}"
    folder.mkdir()
    mounted = subprocess.run(["mount", "-t", "tmpfs", "-o", "size=256k", "tmpfs", str(folder)], capture_output=True,
                             text=True, check=False)
    if mounted.returncode != 0:
        pytest.skip(f"cannot mount a 256 KB tmpfs here ({mounted.stderr.strip() or 'mount failed'}): needs root")
    try:
        yield folder
    finally:
        subprocess.run(["umount", str(folder)], check=False)


def _heavy_model(path: Path) -> None:
    """One MatMul with 400 KB of weights: more than the tmpfs holds."""
    w = numpy_helper.from_array(np.random.default_rng(0).standard_normal((320, 320)).astype(np.float32), "w")
    graph = helper.make_graph([helper.make_node("MatMul", ["x", "w"], ["y"], name="mm")], "heavy",
                              [helper.make_tensor_value_info("x", TensorProto.FLOAT, [1, 320])],
                              [helper.make_tensor_value_info("y", TensorProto.FLOAT, [1, 320])], [w])
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17)])
    model.ir_version = IR_VERSION
    onnx.save(model, str(path))


def test_a_full_temporary_folder_exits_3_and_says_what_to_do(tiny_tmp, tmp_path):
    model = tmp_path / "heavy.onnx"
    _heavy_model(model)
    env = child_env(TMPDIR=str(tiny_tmp))
    result = subprocess.run([sys.executable, "-m", "ortcopy_doctor", "check", str(model), "--provider", "cpu",
                             "--no-html", "-q"], env=env, capture_output=True, text=True, timeout=300, check=False)
    assert result.returncode == 3
    assert result.stderr.startswith(f"error: onnxruntime ran out of room in the temporary folder {tiny_tmp} (")
    assert ("writing its optimized copy of the model (the model's weights: 409.6 KB): free space there or set TMPDIR "
            "to a folder with room (it said: ") in result.stderr
    assert result.stderr.count("\n") == 1
    # the session's folder is removed (`import onnxruntime` writes .ses; the GPU machine's CUDA libraries write
    # a mat-debug-PID.log there)
    left = sorted(n for n in os.listdir(tiny_tmp) if not re.fullmatch(r"mat-debug-\d+\.log", n))
    assert left in ([], [".ses"])


def test_an_empty_profile_in_a_full_folder_is_the_folders(tiny_tmp):
    (tiny_tmp / "filler").write_bytes(b"\0" * (200 * 1024))
    (tiny_tmp / "session").mkdir()
    error = ModelError("profile /x/profile.json is not readable JSON (Expecting value: line 1 column 1 (char 0))")
    problem = _temporary_folder_full(error, tiny_tmp / "session", 100_000, profile=True)
    assert problem is not None and problem.exit_code == 3
    assert problem.message.startswith(f"onnxruntime ran out of room in the temporary folder {tiny_tmp} (")
    assert "writing its profile (the model's weights: 100.0 KB)" in problem.message


def test_a_session_error_not_about_writing_keeps_its_own_meaning(tiny_tmp):
    (tiny_tmp / "session").mkdir()
    error = ModelError("onnxruntime rejects m.onnx as invalid: the graph is not acyclic")
    assert _temporary_folder_full(error, tiny_tmp / "session", 100_000) is None


def test_a_folder_with_room_keeps_the_error(tmp_path):
    (tmp_path / "session").mkdir()
    error = ModelError("onnxruntime refused m.onnx during session creation: Protobuf serialization failed.")
    assert _temporary_folder_full(error, tmp_path / "session", 100_000) is None
