"""`diff` of two checks: how their inputs differ comes first; the CUDA predictions of CPU-machine checks are compared
as measured copies are (a predicted regression fails --fail-on-regression); a copy of unknown size is counted apart,
never as 0 B."""

from __future__ import annotations

import onnx
import pytest

import models
from ortcopy_doctor import check
from ortcopy_doctor.model.diff import ADDED, Delta
from ortcopy_doctor.render.diff import render_diff_html, render_diff_text
from ortcopy_doctor.report.diff import diff_reports
from schema_helpers import run_cli

RUNS = {"warmup_runs": 0, "profiled_runs": 1, "timed_runs": 1}


def _without_cpu_op() -> onnx.ModelProto:
    """cpu_op_between with Relu for its Celu: every node has a CUDA kernel, no Memcpy node is predicted."""
    model = models.cpu_op_between()
    celu = model.graph.node[1]
    celu.op_type = "Relu"
    del celu.attribute[:]
    return model


def _saved(tmp_path, name: str, model: onnx.ModelProto):
    path = tmp_path / f"{name}.onnx"
    onnx.save(model, str(path))
    return path


def test_inputs_of_other_shapes_are_said_first(tmp_path):
    path = _saved(tmp_path, "m", models.cpu_op_between())
    a = check(path, providers=["cpu"], dims={"batch": 2}, **RUNS)
    b = check(path, providers=["cpu"], dims={"batch": 8}, **RUNS)
    d = diff_reports(a, b, "a.json", "b.json")
    assert d.inputs == ["x 2x64 → 8x64"]
    lines = render_diff_text(d).splitlines()
    assert lines[1:3] == ["Inputs differ: x 2x64 → 8x64. What follows compares runs at different inputs.",
                          "No new transfers or findings."]
    assert ('<div class="verdict bad" id="inputs-differ">Inputs differ: x 2x64 → 8x64. What follows compares runs at '
            'different inputs.</div>') in render_diff_html(d)


def test_a_dim_taken_as_1_against_one_given(tmp_path):
    path = _saved(tmp_path, "m", models.cpu_op_between())
    a = check(path, providers=["cpu"], **RUNS)  # batch taken as 1
    b = check(path, providers=["cpu"], dims={"batch": 1}, **RUNS)
    assert diff_reports(a, b).inputs == ["dims taken as 1 (no --dim): batch=1 → none"]


def test_the_same_inputs_say_nothing(tmp_path):
    path = _saved(tmp_path, "m", models.cpu_op_between())
    a = check(path, providers=["cpu"], dims={"batch": 2}, **RUNS)
    d = diff_reports(a, a)
    assert d.inputs == []
    assert render_diff_text(d).splitlines()[1] == "No new transfers or findings."


@pytest.mark.no_cuda  # the predictions exist where CUDA does not load
def test_a_predicted_memcpy_node_is_a_regression(tmp_path):
    a = check(_saved(tmp_path, "a", _without_cpu_op()), dims={"batch": 2}, **RUNS)
    b = check(_saved(tmp_path, "b", models.cpu_op_between()), dims={"batch": 2}, **RUNS)
    assert a.copies == [] and b.copies == []  # CPU sessions: the copies are in the predictions
    d = diff_reports(a, b, "a.json", "b.json")
    assert d.predicted is not None and d.predicted.provider == "CUDAExecutionProvider"
    added = [(c.key, c.after.bytes_per_run) for c in d.predicted.copies if c.status == ADDED]
    assert added == [(("memcpy_node", "device_to_host", "h1"), 1024), (("memcpy_node", "host_to_device", "h2"), 1024)]
    assert {c.after.rule for c in d.predicted.findings if c.status == ADDED} == {"OCD002", "OCD003"}
    assert len(d.regressions) == 5  # 2 copies, 3 findings (a fallback and two Memcpy nodes)
    text = render_diff_text(d)
    assert ("Regression: 0 transfer(s) and 0 finding(s) added; predicted for CUDAExecutionProvider: 2 transfer(s) "
            "and 3 finding(s) added.") in text
    assert "host↔device bytes per run (predicted): 768 B → 2.8 KB (+2.0 KB, +266.7%)" in text
    assert "host↔device copies per run (predicted): 2 → 4 (+2, +100.0%)" in text
    assert "\nPredicted transfers per run, CUDAExecutionProvider (2 added, 0 removed, 0 changed, 2 unchanged):\n" in text
    assert "  + Memcpy node device→host h1, 1.0 KB per run (node MemcpyToHost)\n" in text
    html = render_diff_html(d)
    assert 'id="predicted-copies-diff"' in html and 'id="predicted-findings-diff"' in html
    for name, report in (("a", a), ("b", b)):
        (tmp_path / f"{name}.json").write_text(report.to_json(), encoding="utf-8")
    assert run_cli(["diff", "a.json", "b.json", "--fail-on-regression"], tmp_path).returncode == 1
    assert run_cli(["diff", "b.json", "a.json", "--fail-on-regression"], tmp_path).returncode == 0


@pytest.mark.no_cuda
def test_only_one_prediction_is_said_not_compared(tmp_path):
    path = _saved(tmp_path, "m", models.cpu_op_between())
    a = check(path, providers=["cpu"], dims={"batch": 2}, **RUNS)  # CPU asked for: no prediction
    b = check(path, dims={"batch": 2}, **RUNS)
    d = diff_reports(a, b)
    assert d.predicted is None
    assert d.predicted_note == ("Predicted transfers: only b has a prediction (for CUDAExecutionProvider, which did "
                                "not load there); a measured its session: not compared")
    assert d.predicted_note in render_diff_text(d)


def test_a_copy_of_unknown_size_is_counted_apart(tmp_path):
    path = _saved(tmp_path, "m", models.data_dependent_shape())  # NonZero: the fetch's size depends on the data
    a = check(path, static=True, dims={"batch": 2})
    b = check(path, static=True, dims={"batch": 4})
    d = diff_reports(a, b)
    (size,) = [x for x in d.deltas if x.unit == "bytes"]
    assert (size.before_unknown, size.after_unknown) == (1, 1)
    # the feed (2048 B → 4096 B) and NonZero's 4 B count are known; the fetch of the indices is not
    assert size.text() == ("2.1 KB + 1 of unknown size → 4.1 KB + 1 of unknown size (known sizes: +2.0 KB, +99.8%; "
                           "of unknown size: 1 → 1)")
    assert "    fetch copy device→host indices, unknown size\n" in render_diff_text(d, show_unchanged=True)


def test_delta_text_of_unknown_sizes():
    assert Delta("b", 0, 0, "bytes", 1, 1).text() == ("1 of unknown size → 1 of unknown size (known sizes: no change; "
                                                      "of unknown size: 1 → 1)")
    assert Delta("b", 12, 12, "bytes", 0, 1).text() == ("12 B → 12 B + 1 of unknown size (known sizes: no change; "
                                                        "of unknown size: 0 → 1)")
    assert Delta("b", 12, 12, "bytes").text() == "12 B → 12 B (no change)"
