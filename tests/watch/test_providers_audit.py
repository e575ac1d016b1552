"""`run` names a session that runs on the CPU although the program's onnxruntime has a device provider (issue 33,
part 4): where the program created it, why, what the replay on both providers measured, and what to change."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import onnx
import onnxruntime as ort

import models
from ortcopy_doctor.model.replay import ProviderTiming, SessionReplay, ShapeComparison
from ortcopy_doctor.watch.observations import WatchObservations
from ortcopy_doctor.report.pipeline import PipelineObservations, SessionRecord, analyse_pipeline
from render_helpers import child_env

CUDA = "CUDAExecutionProvider"
CPU = "CPUExecutionProvider"


def _report(requested, active, available, failures=None, status=None, replays=()):
    record = SessionRecord(label="vad.onnx", model="/models/vad.onnx",
                           observations=WatchObservations(active_providers=active, requested_providers=requested),
                           created_at="/app/vad.py:__init__:40", available_providers=available,
                           provider_failures=failures or {})
    return analyse_pipeline(PipelineObservations(sessions=[record], device_status={CUDA: ""} if status is None
                                                 else status, replays=list(replays)))


def _replay(used, other, used_ms, other_ms, low, high):
    def timing(provider, ms):
        return ProviderTiming(provider=provider, first_ms=ms * 3, median_ms=ms, samples_ms=[ms])

    ratio = used_ms / other_ms
    return SessionReplay(session="vad.onnx", used=used, other=other, threads="the program's session options",
                         shapes=[ShapeComparison(shape="1x576, 2x1x128, scalar", program_calls=125,
                                                 used=timing(used, used_ms), other=timing(other, other_ms),
                                                 ratio=ratio, ratio_low=low, ratio_high=high)])


def test_a_cpu_session_the_replay_measured_faster_on_cuda_is_told_to_ask_for_cuda():
    report = _report([], [CPU], [CUDA, CPU], replays=[_replay(CPU, CUDA, 8.0, 2.0, 3.8, 4.2)])
    [finding] = report.providers
    assert finding.faster == CUDA
    assert finding.fix == ("create it with providers=['CUDAExecutionProvider', 'CPUExecutionProvider'] at "
                           "/app/vad.py:__init__:40: the replay measured CUDA faster at every input signature of the "
                           "program")
    assert finding.line.endswith("no `providers` given, so onnxruntime chose the CPU; replayed on both, CUDA is "
                                 "faster at the program's inputs")


def test_a_cpu_session_the_replay_measured_faster_on_the_cpu_is_told_to_stay():
    report = _report([], [CPU], [CUDA, CPU], replays=[_replay(CPU, CUDA, 0.1, 0.4, 0.2, 0.3)])
    [finding] = report.providers
    assert finding.faster == CPU
    assert finding.fix.startswith("keep it on the CPU: the replay measured the CPU faster at every input signature")
    assert finding.line.endswith("replayed on both, CPU is faster at the program's inputs: keep it on the CPU")


def test_the_replay_is_in_the_report_and_its_words():
    replay = _replay(CPU, CUDA, 0.1, 0.4, 0.2, 0.3)
    report = _report([], [CPU], [CUDA, CPU], replays=[replay])
    assert report.replays == [replay]
    assert replay.summary() == (
        "session vad.onnx (ran on CPU) replayed on CPU and CUDA with the program's inputs, the program's session "
        "options: at 1x576, 2x1x128, scalar (125 call(s) in the program): CPU 0.1 ms, CUDA 0.4 ms per call: CPU "
        "4.00x faster (95% CI 3.33–5.00)")


def test_a_cuda_session_the_replay_measured_slower_than_the_cpu_is_a_finding():
    report = _report([CUDA, CPU], [CUDA, CPU], [CUDA, CPU], replays=[_replay(CUDA, CPU, 0.4, 0.1, 3.5, 4.5)])
    [finding] = report.providers
    assert finding.on_device and finding.faster == CPU
    assert finding.line.startswith("session vad.onnx (created at /app/vad.py:__init__:40) runs on CUDA, and the CPU "
                                   "is faster for it at the program's inputs: ")
    assert finding.fix.startswith("create it with providers=['CPUExecutionProvider'] at /app/vad.py:__init__:40")


def test_a_session_created_without_providers_on_a_cuda_build_is_named_with_its_site_and_fix():
    report = _report([], [CPU], ["TensorrtExecutionProvider", CUDA, CPU])
    [finding] = report.providers
    assert finding.line == ("session vad.onnx (created at /app/vad.py:__init__:40) runs on the CPU although CUDA is "
                            "available: no `providers` given, so onnxruntime chose the CPU")
    assert finding.fix == ("create it with providers=['CUDAExecutionProvider', 'CPUExecutionProvider'] at "
                           "/app/vad.py:__init__:40; whether CUDA is faster for this model at the program's shapes is "
                           "not measured (the replay after the program did not run: no device provider loaded there, or "
                           "--no-replay): `ortcopy-doctor check /models/vad.onnx --provider cuda,cpu` measures the "
                           "copies it would make")
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

    from ortcopy_doctor.report.pipeline import load_pipeline_observations
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

    from ortcopy_doctor.report.pipeline import load_pipeline_observations
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
