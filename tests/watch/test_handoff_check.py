"""Hand-off code of `run` run as printed next to plain run() after the program (watch/handoff_check.py): a block
that gives other outputs is not offered, and the report says what happened."""

from __future__ import annotations

import msgspec
import hashlib
import json
import subprocess
import sys
from pathlib import Path

import pytest

from ortcopy_doctor.model import codec
from ortcopy_doctor.model.evidence import CodeCheck
from ortcopy_doctor.watch.handoff_check import _check, blocks_of
from ortcopy_doctor.report.pipeline import analyse_pipeline, load_pipeline_observations
from render_helpers import REPO, child_env

EXAMPLES = REPO / "examples"


@pytest.fixture(scope="module")
def streaming(tmp_path_factory):
    """The observations of examples/streaming_state.py run under `run` on the CPU (its models made there)."""
    folder = tmp_path_factory.mktemp("handoff")
    report = folder / "report.json"
    env = child_env(ORTCOPY_EXAMPLE_PROVIDERS="cpu", ORTCOPY_EXAMPLE_CACHE=str(folder))
    proc = subprocess.run([sys.executable, "-m", "ortcopy_doctor", "run", "--json", str(report), "--no-html", "--",
                           "python", str(EXAMPLES / "streaming_state.py"), "--iterations", "4"],
                          cwd=folder, env=env, capture_output=True, text=True, timeout=300)
    assert proc.returncode == 0, proc.stderr
    return load_pipeline_observations(json.loads(report.read_text())["observations"])


def test_state_code_that_reads_the_buffer_it_writes_gives_other_outputs(streaming):
    obs = msgspec.structs.replace(streaming, code_checks=[])
    (block,) = blocks_of(analyse_pipeline(obs), obs)
    broken = msgspec.structs.replace(block, code=block.code.replace("bind_ortvalue_input('h_in', state['h_in'][src])",
                                                                "bind_ortvalue_input('h_in', state['h_in'][dst])"))
    assert broken.code != block.code
    result = _check(broken, obs)
    assert (result.block, result.status, result.device, result.calls) == ("state:cell.onnx (h_in<-h_out)", "differs",
                                                                         "cpu", 4)
    assert result.detail.startswith("after 4 steps: state 'h_in' (from 'h_out'): values differ")


def test_a_block_that_gave_other_outputs_is_not_offered(streaming):
    obs = streaming
    report = analyse_pipeline(obs)
    (block,) = blocks_of(report, obs)
    assert report.pipelines[0].code == block.code
    obs.code_checks = [CodeCheck(block=block.block, status="differs", device="cuda", calls=4,
                                 detail="after 4 steps: state 'h_in' (from 'h_out'): values differ",
                                 code_sha256=hashlib.sha256(block.code.encode()).hexdigest())]
    try:
        again = analyse_pipeline(obs)
    finally:
        obs.code_checks = []
    (pipeline,) = again.pipelines
    assert pipeline.code == ""
    assert pipeline.code_check == ("hand-off code: state:cell.onnx (h_in<-h_out) gave other outputs, not offered: "
                                   "after 4 steps: state 'h_in' (from 'h_out'): values differ")
    assert [h.code for h in pipeline.state] == [""]


def test_a_model_file_gone_is_not_run_and_says_why(streaming, tmp_path):
    obs = load_pipeline_observations(json.loads(json.dumps(codec.to_builtins(streaming))))  # a copy
    obs.sessions[0] = msgspec.structs.replace(obs.sessions[0], model=str(tmp_path / "gone.onnx"))
    (block,) = blocks_of(analyse_pipeline(obs), obs)
    result = _check(block, obs)
    assert (result.status, result.detail) == ("not_run", f"the model file {tmp_path / 'gone.onnx'} is gone")
