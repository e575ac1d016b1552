"""collect.environment.GpuListing: ``nvidia-smi -L`` runs in the background while a check reads the model and
creates its session, and is read before the first run. A fake nvidia-smi on PATH stands in for the real one (this
machine has none; the H200 machine lists its GPU through the same code in tests/project/test_gpu.py)."""

from __future__ import annotations

import os
import stat
import time
from pathlib import Path

import onnx
import pytest
from onnx import TensorProto, helper

import ortcopy_doctor.collect.check as check_module
from models import conv_net
from ortcopy_doctor.collect.check import collect
from ortcopy_doctor.collect.environment import GpuListing, gpus
from ortcopy_doctor.collect.session import CheckOptions
from ortcopy_doctor.model.errors import DoctorError

LISTED = "GPU 0: NVIDIA H200 (UUID: GPU-0a1b)\nGPU 1: NVIDIA H200 (UUID: GPU-2c3d)\nNot a GPU line\n"


def _fake_nvidia_smi(folder: Path, monkeypatch: pytest.MonkeyPatch, body: str) -> Path:
    """An executable ``nvidia-smi`` in ``folder``, first on PATH; ``body`` is its shell script."""
    exe = folder / "nvidia-smi"
    exe.write_text("#!/bin/sh\n" + body, encoding="utf-8")
    exe.chmod(exe.stat().st_mode | stat.S_IXUSR)
    monkeypatch.setenv("PATH", f"{folder}{os.pathsep}{os.environ.get('PATH', '')}")
    return exe


def _gone(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return True
    return False


def test_the_listing_gives_the_gpu_lines_without_their_uuid(tmp_path, monkeypatch):
    _fake_nvidia_smi(tmp_path, monkeypatch, f"printf '{LISTED}'\n")
    with GpuListing() as listing:
        assert listing.result() == ["GPU 0: NVIDIA H200", "GPU 1: NVIDIA H200"]
        assert listing.result() == ["GPU 0: NVIDIA H200", "GPU 1: NVIDIA H200"]  # read once, kept
    assert gpus() == ["GPU 0: NVIDIA H200", "GPU 1: NVIDIA H200"]


def test_without_nvidia_smi_nothing_is_started_and_nothing_listed(tmp_path, monkeypatch):
    monkeypatch.setenv("PATH", str(tmp_path))
    listing = GpuListing()
    assert listing._process is None
    assert listing.result() == []


def test_a_failing_nvidia_smi_lists_nothing(tmp_path, monkeypatch):
    _fake_nvidia_smi(tmp_path, monkeypatch, "echo 'NVIDIA-SMI has failed' >&2\nexit 9\n")
    assert GpuListing().result() == []


def test_a_listing_past_its_timeout_is_stopped_and_reaped(tmp_path, monkeypatch):
    _fake_nvidia_smi(tmp_path, monkeypatch, f"echo $$ > {tmp_path}/pid\nexec sleep 30\n")
    listing = GpuListing()
    while not (tmp_path / "pid").is_file() or not (tmp_path / "pid").read_text().strip():
        time.sleep(0.01)
    pid = int((tmp_path / "pid").read_text())
    assert listing.result(timeout=0.2) == []
    assert _gone(pid)


def test_closing_an_unread_listing_stops_it(tmp_path, monkeypatch):
    _fake_nvidia_smi(tmp_path, monkeypatch, f"echo $$ > {tmp_path}/pid\nexec sleep 30\n")
    with GpuListing() as listing:
        while not (tmp_path / "pid").is_file() or not (tmp_path / "pid").read_text().strip():
            time.sleep(0.01)
        pid = int((tmp_path / "pid").read_text())
    assert _gone(pid)
    assert listing.result() == []


def test_a_check_reads_the_listing_before_its_first_run(tmp_path, monkeypatch):
    # the fake takes 0.3 s and writes when it ends; the check's first run must come after that
    _fake_nvidia_smi(tmp_path, monkeypatch, f"sleep 0.3\nprintf '{LISTED}'\npython3 -c 'import time; "
                     f"print(time.time())' > {tmp_path}/ended\n")
    first_run: list[float] = []
    real_run = check_module._run

    def run(*args, **kwargs):
        if not first_run:
            first_run.append(time.time())
        return real_run(*args, **kwargs)

    monkeypatch.setattr(check_module, "_run", run)
    model = tmp_path / "conv.onnx"
    onnx.save(conv_net(), str(model))
    evidence = collect(model, CheckOptions(providers=["CPUExecutionProvider"], measure_binding=False))
    assert evidence.environment.gpus == ["GPU 0: NVIDIA H200", "GPU 1: NVIDIA H200"]
    assert float((tmp_path / "ended").read_text()) <= first_run[0]


def test_a_check_whose_session_fails_still_records_the_gpus(tmp_path, monkeypatch):
    _fake_nvidia_smi(tmp_path, monkeypatch, f"printf '{LISTED}'\n")
    graph = helper.make_graph([helper.make_node("Nope", ["x"], ["y"], domain="com.example.nope")], "g",
                              [helper.make_tensor_value_info("x", TensorProto.FLOAT, [1])],
                              [helper.make_tensor_value_info("y", TensorProto.FLOAT, [1])])
    model = tmp_path / "nope.onnx"
    onnx.save(helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17),
                                                      helper.make_opsetid("com.example.nope", 1)]), str(model))
    with pytest.raises(DoctorError) as raised:
        collect(model, CheckOptions(providers=["CPUExecutionProvider"]))
    assert raised.value.partial_evidence.environment.gpus == ["GPU 0: NVIDIA H200", "GPU 1: NVIDIA H200"]


def test_the_onnxruntime_package_is_read_from_its_build_record():
    import importlib.metadata

    from ortcopy_doctor.collect.environment import ort_package

    # onnxruntime-gpu 1.31 ships it; 1.20 writes none for an inference build (its metadata is read there, below)
    built = pytest.importorskip("onnxruntime.capi.build_and_package_info",
                                reason="this onnxruntime build has no build record")

    assert ort_package() == f"{built.package_name} {built.__version__}"
    # here the record names the distribution installed (what importlib.metadata found before)
    assert ort_package() == f"{built.package_name} {importlib.metadata.version(built.package_name)}"


def _no_build_record(monkeypatch, record=None):
    """onnxruntime without its build record (1.20), or with ``record`` in its place: importing
    ``onnxruntime.capi.build_and_package_info`` (already imported with onnxruntime) fails, or gives ``record``."""
    import sys

    import onnxruntime.capi

    if record is None:
        monkeypatch.delattr(onnxruntime.capi, "build_and_package_info", raising=False)
        monkeypatch.setitem(sys.modules, "onnxruntime.capi.build_and_package_info", None)
    else:
        monkeypatch.setattr(onnxruntime.capi, "build_and_package_info", record, raising=False)
        monkeypatch.setitem(sys.modules, "onnxruntime.capi.build_and_package_info", record)


def test_without_a_build_record_the_onnxruntime_package_is_read_beside_the_module(monkeypatch):
    import importlib.metadata

    from ortcopy_doctor.collect.environment import ORT_DISTRIBUTIONS, ort_package
    from ortcopy_doctor.knowledge import installed as installed_module

    installed = next(d for d in ORT_DISTRIBUTIONS if _installed(d))
    asked: list[str] = []
    beside = installed_module.distribution_beside

    def spy(package, distributions):
        asked.append(package)
        return beside(package, distributions)

    monkeypatch.setattr(installed_module, "distribution_beside", spy)
    _no_build_record(monkeypatch)
    assert ort_package() == f"{installed} {importlib.metadata.version(installed)}"
    assert asked == ["onnxruntime"]


def test_without_a_build_record_or_a_dist_info_the_package_comes_from_importlib_metadata(monkeypatch):
    import importlib.metadata

    from ortcopy_doctor.collect.environment import ORT_DISTRIBUTIONS, ort_package
    from ortcopy_doctor.knowledge import installed as installed_module

    installed = next(d for d in ORT_DISTRIBUTIONS if _installed(d))
    monkeypatch.setattr(installed_module, "distribution_beside", lambda *_: None)
    _no_build_record(monkeypatch)
    assert ort_package() == f"{installed} {importlib.metadata.version(installed)}"


def test_a_build_record_without_a_package_name_is_not_used(monkeypatch):
    import types

    from ortcopy_doctor.collect import environment
    from ortcopy_doctor.collect.environment import ort_package

    record = types.ModuleType("onnxruntime.capi.build_and_package_info")
    record.__version__ = "9.9.9"
    _no_build_record(monkeypatch, record)
    monkeypatch.setattr(environment, "distribution_version", lambda *_: ("onnxruntime-beside", "1.2.3"))
    assert ort_package() == "onnxruntime-beside 1.2.3"
    record.package_name = "onnxruntime-record"
    assert ort_package() == "onnxruntime-record 9.9.9"


def _installed(distribution: str) -> bool:
    import importlib.metadata

    try:
        importlib.metadata.version(distribution)
    except importlib.metadata.PackageNotFoundError:
        return False
    return True


def test_platform_name_is_what_platform_platform_says_here():
    import platform

    from ortcopy_doctor.collect.environment import platform_name

    assert platform_name() == platform.platform()


def test_platform_name_starts_no_child_process():
    """``platform.platform()`` runs ``uname -p`` on Linux; the environment's platform name does not (goal c)."""
    import subprocess
    import sys

    script = ("import sys\nstarted = []\n"
              "sys.addaudithook(lambda event, args: started.append(args[1]) if event == 'subprocess.Popen' else None)\n"
              "from ortcopy_doctor.collect.environment import platform_name\n"
              "platform_name()\nprint(started)\n")
    control = script.replace("from ortcopy_doctor.collect.environment import platform_name\nplatform_name()",
                             "import platform\nplatform.platform()")
    ours = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, check=True)
    theirs = subprocess.run([sys.executable, "-c", control], capture_output=True, text=True, check=True)
    assert ours.stdout == "[]\n"
    assert theirs.stdout == "[['uname', '-p']]\n"  # the child process the test would see
