"""The recorder of `ortcopy-doctor run`, in this process: how values are traced between calls (download, bytes,
run_with_ort_values), `-m module`, and that every patch is undone."""

from __future__ import annotations

from pathlib import Path

import onnx
import onnxruntime as ort
import pytest
from onnx import TensorProto, helper

from ortcopy_doctor.model.errors import UsageError
from ortcopy_doctor.watch.program import parse_command, run_program


def _double(path: Path, name: str) -> str:
    """y = x * 2 on [4, 256] float32 (4 KB)."""
    graph = helper.make_graph([helper.make_node("Add", ["x", "x"], ["y"])], name,
                              [helper.make_tensor_value_info("x", TensorProto.FLOAT, [4, 256])],
                              [helper.make_tensor_value_info("y", TensorProto.FLOAT, [4, 256])])
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17)])
    model.ir_version = 8
    target = path / f"{name}.onnx"
    onnx.save(model, str(target))
    return str(target)


_PROGRAM = """
import numpy as np
import onnxruntime as ort
a = ort.InferenceSession({a!r}, providers=["CPUExecutionProvider"])
b = ort.InferenceSession({b!r}, providers=["CPUExecutionProvider"])
x = np.arange(1024, dtype=np.float32).reshape(4, 256) + 1
for _ in range(3):
{body}
"""


def _program(tmp_path: Path, body: str) -> list[str]:
    script = tmp_path / "prog.py"
    script.write_text(_PROGRAM.format(a=_double(tmp_path, "a"), b=_double(tmp_path, "b"), body=body))
    return ["python", str(script)]


def _trips(report) -> list[tuple]:
    return [(h.producer, h.output, h.consumer, h.input, h.how, h.calls, h.d2h_bytes_per_call) for h in report.round_trips]


def test_ortvalue_output_downloaded_with_numpy_and_fed_back_is_a_round_trip(tmp_path):
    body = ("    binding = a.io_binding()\n    binding.bind_cpu_input('x', x)\n    binding.bind_output('y', 'cpu')\n"
            "    a.run_with_iobinding(binding)\n    y = binding.get_outputs()[0].numpy()\n    b.run(None, {'x': y})")
    report, code = run_program(_program(tmp_path, body))
    assert code == 0
    assert _trips(report) == [("a.onnx", "y", "b.onnx", "x", "download", 3, 4096)]


def test_copy_outputs_to_cpu_is_traced_as_a_download(tmp_path):
    body = ("    binding = a.io_binding()\n    binding.bind_cpu_input('x', x)\n    binding.bind_output('y', 'cpu')\n"
            "    a.run_with_iobinding(binding)\n    (y,) = binding.copy_outputs_to_cpu()\n    b.run(None, {'x': y})")
    report, _ = run_program(_program(tmp_path, body))
    assert _trips(report) == [("a.onnx", "y", "b.onnx", "x", "download", 3, 4096)]


def test_run_with_ort_values_hand_off_is_kept_on_the_device(tmp_path):
    body = ("    (y,) = a.run_with_ort_values(None, {'x': ort.OrtValue.ortvalue_from_numpy(x)})\n"
            "    b.run_with_ort_values(None, {'x': y})")
    report, _ = run_program(_program(tmp_path, body))
    assert report.round_trips == []
    (pipeline,) = report.pipelines
    assert [(h.output, h.input, h.how, h.kind) for h in pipeline.on_device] == [("y", "x", "pointer", "device")]


def test_a_copy_with_equal_bytes_is_found_by_hash_and_a_changed_value_is_not(tmp_path):
    body = "    (y,) = a.run(None, {'x': x})\n    b.run(None, {'x': y.copy()})\n    b.run(None, {'x': y + 1})"
    report, _ = run_program(_program(tmp_path, body))
    assert _trips(report) == [("a.onnx", "y", "b.onnx", "x", "hash", 3, 4096)]
    uploads = [(e.session, e.tensor, e.calls) for e in report.pipelines[0].uploads]
    assert ("b.onnx", "x", 3) in uploads  # y + 1: computed on the host


def test_module_mode(tmp_path, monkeypatch):
    package = tmp_path / "servepkg"
    package.mkdir()
    (package / "__init__.py").write_text("")
    (package / "__main__.py").write_text(_PROGRAM.format(a=_double(tmp_path, "a"), b=_double(tmp_path, "b"),
                                                         body="    (y,) = a.run(None, {'x': x})\n    b.run(None, {'x': y})"))
    monkeypatch.chdir(tmp_path)
    report, code = run_program(["python", "-m", "servepkg"])
    assert code == 0
    assert _trips(report) == [("a.onnx", "y", "b.onnx", "x", "object", 3, 4096)]


def test_every_patch_is_undone(tmp_path):
    originals = (ort.InferenceSession.__init__, ort.IOBinding.bind_cpu_input, ort.IOBinding.bind_ortvalue_input,
                 ort.IOBinding.copy_outputs_to_cpu, ort.OrtValue.numpy)
    run_program(_program(tmp_path, "    a.run(None, {'x': x})"))
    assert (ort.InferenceSession.__init__, ort.IOBinding.bind_cpu_input, ort.IOBinding.bind_ortvalue_input,
            ort.IOBinding.copy_outputs_to_cpu, ort.OrtValue.numpy) == originals


def test_command_forms():
    here = str(Path(__file__))
    assert parse_command(["python", here, "a"]).argv == [here, "a"]
    assert parse_command([here]).script == here
    assert parse_command(["python3", "-u", "-m", "pkg.mod", "x"]).module == "pkg.mod"
    assert parse_command(["python", "-X", "dev", "-uB", "-c", "print(1)", "a"]).args == [
        "-X", "dev", "-uB", "-c", "print(1)", "a"]  # handed to python as they are
    assert parse_command(["python", "-Wignore", "-mpkg", "a"]).argv == ["pkg", "a"]


@pytest.mark.parametrize("option, why", [("-E", "ignores PYTHONPATH"), ("-I", "isolates it from PYTHONPATH"),
                                         ("-bS", "skips the site module")])
def test_python_options_that_would_hide_the_program_from_the_recorder_are_refused(option, why):
    with pytest.raises(UsageError, match=f"{why}, through which"):
        parse_command(["python", option, str(Path(__file__))])


def test_a_script_from_stdin_is_refused():
    with pytest.raises(UsageError, match="stdin"):
        parse_command(["python", "-"])


def test_another_interpreter_runs_in_a_child():
    here = str(Path(__file__))
    assert parse_command(["/opt/other/bin/python3.9", here]).interpreter == "/opt/other/bin/python3.9"
    assert parse_command(["python", here]).interpreter is None


def test_html_escapes_names_from_the_program(tmp_path):
    from ortcopy_doctor.render.pipeline import render_pipeline_html
    from ortcopy_doctor.report.pipeline import PipelineReport, SessionSummary

    report = PipelineReport(program=["python", "<script>.py"], exit_code=0, ended_by="exit", error="",
                            sessions=[SessionSummary("<img src=x>.onnx", "", ["CPUExecutionProvider"], 1, "host_only",
                                                     "not taken", 0)],
                            pipelines=[], observed=[], not_observed=[], notes=[])
    page = render_pipeline_html(report)
    assert "<img src=x>" not in page and "&lt;img src=x&gt;.onnx" in page
    assert "<script>" not in page
