"""A model whose file name is not valid UTF-8 (bytes the file system encoding does not decode): onnxruntime opens
models only by UTF-8 paths, so `check` refuses it with one line and exit 2, and `--static` (which reads it with
onnx) reports it with the name's undecodable bytes written as \\xNN."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import onnx
import pytest
from models import conv_net
from render_helpers import child_env

pytestmark = pytest.mark.skipif(sys.platform != "linux", reason="Linux file names are bytes; others are not")


@pytest.fixture()
def model(tmp_path: Path) -> bytes:
    path = os.fsencode(tmp_path) + b"/bad\xff.onnx"
    with open(path, "wb") as f:
        f.write(conv_net().SerializeToString())
    return path


def _doctor(*argv: str | bytes) -> subprocess.CompletedProcess[str]:
    env = child_env()
    return subprocess.run([sys.executable, "-m", "ortcopy_doctor", *argv], env=env, capture_output=True, text=True,
                          timeout=300, check=False)


def test_check_refuses_the_name_with_one_line(model):
    result = _doctor("check", model, "--provider", "cpu", "--no-html")
    assert result.returncode == 2
    shown = os.fsdecode(model).replace("\udcff", "\\xff")  # the byte as \xff, as --static writes it
    assert result.stderr == (f"error: the path '{shown}' is not valid UTF-8, and onnxruntime opens a model only by a "
                             "UTF-8 path: rename the file (or its folder); --static still predicts it\n")


def test_static_writes_the_name_with_its_byte_escaped(model, tmp_path):
    out = tmp_path / "r.json"
    result = _doctor("check", model, "--static", "--no-html", "--json", str(out), "--fail-on", "never")
    assert (result.returncode, result.stderr) == (0, "")
    assert json.loads(out.read_text(encoding="utf-8"))["evidence"]["model"]["path"] == f"{tmp_path}/bad\\xff.onnx"


def test_the_model_file_is_untouched(model, tmp_path):
    _doctor("check", model, "--static", "--no-html", "--fail-on", "never")
    with open(model, "rb") as f:
        assert onnx.load_from_string(f.read()) == conv_net()
