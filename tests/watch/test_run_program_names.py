"""The hand-off code `ortcopy-doctor run` prints uses the program's own names where the recorder saw them at the
call sites (issue 33): the variable or ``self`` attribute that holds each session, the variables a dict literal
feeds and the variables the outputs are unpacked into; today's names (``sess_<model>``, each tensor's ONNX name)
elsewhere, on any clash, and for observations recorded before the names were (the committed fixtures). The code
so named is still run next to plain run() after the program (watch/handoff_check.py) and offered.

The programs run as `run` runs them (an interpreter of their own), on the CPU EP: round trips are predicted for
CUDA from each model, and the code is checked on CPU OrtValues.
"""

from __future__ import annotations

import gzip
import json
from pathlib import Path

import onnx
from onnx import TensorProto, helper

from ortcopy_doctor.model.pipeline import PipelineReport, load_pipeline_observations
from ortcopy_doctor.report.pipeline import analyse_pipeline
from ortcopy_doctor.watch.program import run_program
from render_helpers import TESTS

CHECKED = ("hand-off code: 1 of 1 block(s) run as printed next to plain run() after the program on CPU OrtValues "
           "('cpu' for 'cuda'; no GPU here), with other inputs each call: the same outputs")


def _save(path: Path, nodes: list, inputs: list[str], outputs: list[str]) -> str:
    graph = helper.make_graph(nodes, path.stem,
                              [helper.make_tensor_value_info(n, TensorProto.FLOAT, [2, 3]) for n in inputs],
                              [helper.make_tensor_value_info(n, TensorProto.FLOAT, [2, 3]) for n in outputs])
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17)])
    model.ir_version = 8
    onnx.save(model, str(path))
    return str(path)


def _models(tmp_path: Path) -> dict[str, str]:
    """det.onnx: image -> (features = Relu(image), aux = Neg(image)); cls.onnx: (features, other) -> logits;
    cell.onnx: (x, h_in) -> (y = x + h_in, h_out = Sigmoid(y))."""
    return {
        "det": _save(tmp_path / "det.onnx", [helper.make_node("Relu", ["image"], ["features"]),
                                             helper.make_node("Neg", ["image"], ["aux"])], ["image"],
                     ["features", "aux"]),
        "cls": _save(tmp_path / "cls.onnx", [helper.make_node("Add", ["features", "other"], ["logits"])],
                     ["features", "other"], ["logits"]),
        "cell": _save(tmp_path / "cell.onnx", [helper.make_node("Add", ["x", "h_in"], ["y"]),
                                               helper.make_node("Sigmoid", ["y"], ["h_out"])], ["x", "h_in"],
                      ["y", "h_out"]),
    }


def _run(tmp_path: Path, program: str, *command: str) -> PipelineReport:
    script = tmp_path / "prog.py"
    script.write_text(program.format(**_models(tmp_path)))
    report, code = run_program(["python", *command, str(script)] if command else ["python", str(script)])
    assert code == 0
    return report


_LOCALS = """
import numpy as np
import onnxruntime as ort
det = ort.InferenceSession({det!r}, providers=["CPUExecutionProvider"])
cls = ort.InferenceSession({cls!r}, providers=["CPUExecutionProvider"])
rng = np.random.default_rng(0)
for _ in range(3):
    image = rng.standard_normal((2, 3)).astype(np.float32)
    feat, aux = det.run(None, {{"image": image}})
    scaled = aux * 2
    (logits,) = cls.run(None, {{"features": feat, "other": scaled}})
"""

_ATTRIBUTES = """
import numpy as np
import onnxruntime as ort


class Pipeline:
    def __init__(self):
        self.det = ort.InferenceSession({det!r}, providers=["CPUExecutionProvider"])
        self.cls_session = ort.InferenceSession({cls!r}, providers=["CPUExecutionProvider"])

    def __call__(self, image):
        feat = self.det.run(["features"], {{"image": image}})[0]
        (logits,) = self.cls_session.run(
            None,
            {{"features": feat, "other": image * 2}},
        )
        return logits


pipe = Pipeline()
rng = np.random.default_rng(0)
for _ in range(3):
    pipe(rng.standard_normal((2, 3)).astype(np.float32))
"""

_STATE = """
import numpy as np
import onnxruntime as ort
cell = ort.InferenceSession({cell!r}, providers=["CPUExecutionProvider"])
hidden = np.full((2, 3), 0.5, np.float32)
for i in range(4):
    step = np.full((2, 3), i + 1.0, np.float32)
    y, hidden = cell.run(None, {{"x": step, "h_in": hidden}})
"""

_WRAPPER = """
import numpy as np
import onnxruntime as ort


class Stage:
    def __init__(self, path):
        self.session = ort.InferenceSession(path, providers=["CPUExecutionProvider"])

    def __call__(self, feeds):
        return self.session.run(None, feeds)


det, cls = Stage({det!r}), Stage({cls!r})
rng = np.random.default_rng(0)
for _ in range(3):
    feat, aux = det({{"image": rng.standard_normal((2, 3)).astype(np.float32)}})
    cls({{"features": feat, "other": aux}})
"""

_SHARED_ARRAY = """
import numpy as np
import onnxruntime as ort
det = ort.InferenceSession({det!r}, providers=["CPUExecutionProvider"])
cls = ort.InferenceSession({cls!r}, providers=["CPUExecutionProvider"])
rng = np.random.default_rng(0)
for _ in range(3):
    x = rng.standard_normal((2, 3)).astype(np.float32)
    feat, aux = det.run(None, {{"image": x}})
    cls.run(None, {{"features": feat, "other": x}})
"""


def test_the_recorder_keeps_the_names_at_the_call_sites(tmp_path):
    report = _run(tmp_path, _LOCALS)
    assert report.observations is not None
    assert [(s.label, s.variables, s.input_variables, s.output_variables) for s in report.observations.sessions] == [
        ("det.onnx", ["det"], {"image": "image"}, {"features": "feat", "aux": "aux"}),
        ("cls.onnx", ["cls"], {"features": "feat", "other": "scaled"}, {"logits": "logits"})]


def test_code_between_sessions_held_by_variables_uses_their_names(tmp_path):
    (pipeline,) = _run(tmp_path, _LOCALS).pipelines
    for line in ("det_binding = det.io_binding()  # create once, reuse for every call",
                 "cls_binding = cls.io_binding()",
                 "det_binding.bind_cpu_input('image', image)",
                 "det.run_with_iobinding(det_binding)",
                 "feat, aux = det_binding.get_outputs()  # OrtValues, in bind order",
                 "cls_binding.bind_ortvalue_input('features', feat)  # no copy",
                 "cls_binding.bind_cpu_input('other', scaled)",
                 "cls.run_with_iobinding(cls_binding)",
                 "logits, = cls_binding.copy_outputs_to_cpu()  # numpy arrays, in bind order"):
        assert line in pipeline.code.splitlines()
    assert "sess_" not in pipeline.code
    assert pipeline.code_check == CHECKED
    assert pipeline.round_trips[0].code.startswith(pipeline.code.split("\n\n# with torch")[0])


def test_code_between_sessions_held_by_self_uses_the_attributes(tmp_path):
    report = _run(tmp_path, _ATTRIBUTES)
    (pipeline,) = report.pipelines
    for line in ("det_binding = self.det.io_binding()  # create once, reuse for every call",
                 "cls_session_binding = self.cls_session.io_binding()",
                 "self.det.run_with_iobinding(det_binding)",
                 "cls_session_binding.bind_ortvalue_input('features', feat)  # no copy",
                 "self.cls_session.run_with_iobinding(cls_session_binding)"):
        assert line in pipeline.code.splitlines()
    assert pipeline.code_check == CHECKED
    assert report.observations is not None
    # the pipeline's block is the one round trip's own: checked once
    assert [(c.block, c.status) for c in report.observations.code_checks] == [
        ("handoff:det.onnx->cls.onnx (features->features)", "matched")]


def test_state_code_uses_the_session_and_the_initial_state_by_the_programs_names(tmp_path):
    (pipeline,) = _run(tmp_path, _STATE).pipelines
    lines = pipeline.code.splitlines()
    assert "    ort.OrtValue.ortvalue_from_numpy(hidden, device, 0)," in lines
    assert "    binding = cell.io_binding()" in lines
    assert "    cell.run_with_iobinding(binding)" in lines
    assert pipeline.code_check == CHECKED


def test_one_name_for_every_session_gives_todays_names(tmp_path):
    """A wrapper that holds each session as ``self.session`` and feeds a dict it was given: the name tells the
    sessions apart nowhere, and no feed is a literal: ``sess_<model>`` and the ONNX names."""
    report = _run(tmp_path, _WRAPPER)
    assert report.observations is not None
    assert [s.variables for s in report.observations.sessions] == [["self.session"], ["self.session"]]
    (pipeline,) = report.pipelines
    assert "sess_det_binding = sess_det.io_binding()  # create once, reuse for every call" in pipeline.code
    assert "sess_det_binding.bind_cpu_input('image', image)" in pipeline.code
    assert pipeline.code_check == CHECKED


def test_an_array_name_taken_in_the_block_falls_back_to_the_onnx_name(tmp_path):
    (pipeline,) = _run(tmp_path, _SHARED_ARRAY).pipelines
    assert "det_binding.bind_cpu_input('image', x)  # or bind_ortvalue_input with a device OrtValue" in pipeline.code
    assert "cls_binding.bind_cpu_input('other', other)\n" in pipeline.code  # `x` is the producer's input's already
    assert pipeline.code_check == CHECKED


def test_a_program_without_source_names_its_sessions_from_the_frame(tmp_path):
    """``python -c``: no source line to read; the session's variable comes from the frame alone, the arrays keep
    their ONNX names."""
    models = _models(tmp_path)
    report, code = run_program(["python", "-c", _LOCALS.format(**models)])
    assert code == 0
    assert report.observations is not None
    assert [(s.variables, s.input_variables) for s in report.observations.sessions] == [(["det"], {}), (["cls"], {})]
    (pipeline,) = report.pipelines
    assert "det_binding.bind_cpu_input('image', image)" in pipeline.code
    assert "cls_binding.bind_cpu_input('other', other)" in pipeline.code
    assert pipeline.code_check == CHECKED


def test_observations_recorded_without_names_keep_todays_names():
    with gzip.open(TESTS / "fixtures" / "pipelines" / "detect_crop_classify.json.gz", "rt", encoding="utf-8") as f:
        observations = json.load(f)["report"]["observations"]
    assert all("variables" not in s for s in observations["sessions"])
    obs = load_pipeline_observations(observations)
    assert [(s.variables, s.input_variables, s.output_variables) for s in obs.sessions] == [([], {}, {})] * 2
    code = analyse_pipeline(obs).pipelines[0].code
    assert "sess_det_binding = sess_det.io_binding()  # create once, reuse for every call" in code
    assert "sess_cls.run_with_iobinding(sess_cls_binding)" in code
