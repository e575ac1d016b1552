"""`run` names a session that runs on the CPU although the program's onnxruntime has a device provider (issue 33,
part 4, without the replay on the other provider): where the program created it, why, and what to change."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import onnx
import onnxruntime as ort

import models
from ortcopy_doctor.watch.observations import WatchObservations
from ortcopy_doctor.watch.pipeline import PipelineObservations, SessionRecord, analyse_pipeline
from render_helpers import child_env

CUDA = "CUDAExecutionProvider"
CPU = "CPUExecutionProvider"


def _report(requested, active, available, failures=None, status=None):
    record = SessionRecord(label="vad.onnx", model="/models/vad.onnx",
                           observations=WatchObservations(active_providers=active, requested_providers=requested),
                           created_at="/app/vad.py:__init__:40", available_providers=available,
                           provider_failures=failures or {})
    return analyse_pipeline(PipelineObservations(sessions=[record], device_status={CUDA: ""} if status is None
                                                 else status))


def test_a_session_created_without_providers_on_a_cuda_build_is_named_with_its_site_and_fix():
    report = _report([], [CPU], ["TensorrtExecutionProvider", CUDA, CPU])
    [finding] = report.providers
    assert finding.line == ("session vad.onnx (created at /app/vad.py:__init__:40) runs on the CPU although CUDA is "
                            "available: no `providers` given, so onnxruntime chose the CPU")
    assert finding.fix == ("create it with providers=['CUDAExecutionProvider', 'CPUExecutionProvider'] at "
                           "/app/vad.py:__init__:40; whether CUDA is faster for this model at the program's shapes is "
                           "not measured by run: `ortcopy-doctor check /models/vad.onnx --provider cuda,cpu` measures "
                           "the copies it would make")
    assert report.verdict.startswith(finding.line + "; ")


def test_a_device_provider_that_did_not_load_is_named_with_ort_s_reason():
    report = _report([CUDA, CPU], [CPU], [CUDA, CPU], {CUDA: "libcublasLt.so.13: cannot open shared object file"})
    assert [f.cause for f in report.providers] == [
        "CUDAExecutionProvider was requested and did not load (libcublasLt.so.13: cannot open shared object file)"]


def test_providers_that_name_no_device_are_the_cause():
    report = _report([CPU], [CPU], [CUDA, CPU])
    assert [f.cause for f in report.providers] == ["`providers` names no device provider (CPUExecutionProvider)"]


def test_no_finding_where_the_device_provider_does_not_load_here_and_was_not_requested():
    # onnxruntime-gpu lists CUDA on a machine without a GPU; run tried it after the program
    report = _report([], [CPU], [CUDA, CPU], status={CUDA: "libcudart.so.13: cannot open shared object file"})
    assert report.providers == []
    assert report.notes == ["CUDA is in this onnxruntime build but does not load here (libcudart.so.13: cannot open "
                            "shared object file): the sessions on the CPU could not have used it"]
    assert _report([], [CPU], [CUDA, CPU], status={}).providers == []  # not tried (older observations)


def test_no_finding_where_the_build_has_no_device_provider_or_the_session_uses_it():
    assert _report([], [CPU], ["AzureExecutionProvider", CPU]).providers == []
    assert _report([CUDA, CPU], [CUDA, CPU], [CUDA, CPU]).providers == []


def test_the_program_s_creation_site_and_its_onnxruntime_s_providers_are_recorded(tmp_path):
    onnx.save(models.conv_net(), str(tmp_path / "model.onnx"))
    (tmp_path / "prog.py").write_text(
        "import numpy as np\nimport onnxruntime as ort\n\n\ndef load():\n"
        "    return ort.InferenceSession('model.onnx', providers=['CPUExecutionProvider'])\n\n\n"
        "s = load()\ns.run(None, {'image': np.zeros((1, 3, 32, 32), np.float32)})\n", encoding="utf-8")
    proc = subprocess.run([sys.executable, "-m", "ortcopy_doctor", "run", "--json", "r.json", "--no-html", "-q", "--",
                           "python", "prog.py"], cwd=tmp_path, env=child_env(), capture_output=True, text=True,
                          timeout=300, check=False, stdin=subprocess.DEVNULL)
    assert proc.returncode == 0, proc.stderr
    data = json.loads((tmp_path / "r.json").read_text(encoding="utf-8"))
    [record] = data["observations"]["sessions"]
    assert (record["created_at"], record["available_providers"], record["provider_failures"]) == (
        f"{tmp_path / 'prog.py'}:load:6", ort.get_available_providers(), {})
    # CUDA is listed by this machine's onnxruntime but does not load: tried after the program, no finding
    assert (data["providers"], set(data["observations"]["device_status"])) == (
        [], {"CUDAExecutionProvider"} & set(ort.get_available_providers()))


def test_older_observations_without_the_creation_fields_still_load():
    import gzip

    from ortcopy_doctor.watch.pipeline import load_pipeline_observations
    from render_helpers import TESTS

    with gzip.open(TESTS / "fixtures" / "pipelines" / "streaming_state.json.gz", "rt", encoding="utf-8") as f:
        recorded = json.load(f)["report"]["observations"]  # recorded on the H200 before these fields existed
    assert "created_at" not in recorded["sessions"][0]
    obs = load_pipeline_observations(recorded)
    assert (obs.sessions[0].created_at, obs.sessions[0].available_providers, analyse_pipeline(obs).providers) == (
        "", [], [])


def test_on_the_h200_a_session_created_without_providers_is_named():
    # recorded: tests/fixtures/providers/README.md (onnxruntime-gpu 1.31.1 ran it on the CPU, and CUDA loads there)
    import gzip

    from ortcopy_doctor.watch.pipeline import load_pipeline_observations
    from render_helpers import TESTS

    with gzip.open(TESTS / "fixtures" / "providers" / "noproviders_h200.json.gz", "rt", encoding="utf-8") as f:
        recorded = json.load(f)
    obs = load_pipeline_observations(recorded["observations"])
    assert (obs.ort_version, obs.device_status, obs.sessions[0].observations.active_providers) == (
        "1.31.1", {CUDA: ""}, [CPU])
    report = analyse_pipeline(obs)
    assert [f.line for f in report.providers] == [
        "session cell.onnx (created at /work/main/examples/_noproviders.py:<module>:7) runs on the CPU although CUDA "
        "is available: no `providers` given, so onnxruntime chose the CPU"]
    assert report.verdict.startswith(report.providers[0].line + "; 593.9 KB cross PCIe per iteration of cell.onnx "
                                     "(predicted for the device")
