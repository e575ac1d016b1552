"""A session without an active device provider gets no binding code of its own.

Code written for an all-host placement binds every tensor in host memory and says so in its comments, which is not
where a CUDA session places them. So the plan of such a session has entries (where each tensor is now) and a reason,
and no code; where CUDA was requested and did not load, the report shows the code of the placement predicted for
it instead, marked as predicted.
"""

from __future__ import annotations

import onnx
import pytest
from markupsafe import escape

import models
from ortcopy_doctor.api import check
from ortcopy_doctor.collect.session import CheckOptions
from ortcopy_doctor.render.html import render_html


@pytest.fixture(scope="module")
def model_path(tmp_path_factory):
    path = tmp_path_factory.mktemp("not_applicable") / "cpu_op_between.onnx"
    onnx.save(models.cpu_op_between(), str(path))
    return path


@pytest.fixture(scope="module")
def cpu_report(model_path):
    return check(model_path, CheckOptions(providers=["CPUExecutionProvider"], measure_binding=False))


@pytest.fixture(scope="module")
def failed_cuda_report(model_path):
    return check(model_path, CheckOptions(measure_binding=False))


def test_a_cpu_session_plan_has_no_code(cpu_report):
    assert (cpu_report.binding.applicable, cpu_report.binding.code) == (False, "")


def test_a_cpu_session_plan_says_no_device_was_requested(cpu_report):
    assert cpu_report.binding.reason == (
        "no device provider was requested (the session runs on CPUExecutionProvider): every tensor lives in host "
        "memory, so there is nothing to bind on a device; check with the CUDA provider (the default) for binding code")


def test_a_cpu_session_plan_keeps_where_each_tensor_is(cpu_report):
    assert [(e.role, e.name, e.place) for e in cpu_report.binding.entries] == [
        ("input", "x", "host"), ("output", "y", "host")]


def test_a_cpu_session_html_has_no_code_block(cpu_report):
    page = render_html(cpu_report)
    assert ('id="binding-code"' in page, 'id="copy-code"' in page) == (False, False)


def test_a_cpu_session_html_says_why(cpu_report):
    assert (f'<p id="binding-not-applicable"><b>Not applicable to this session:</b> '
            f'{escape(cpu_report.binding.reason)}</p>') in render_html(cpu_report)


@pytest.mark.no_cuda
def test_a_failed_cuda_session_plan_has_no_code(failed_cuda_report):
    assert (failed_cuda_report.binding.applicable, failed_cuda_report.binding.code) == (False, "")


@pytest.mark.no_cuda
def test_a_failed_cuda_session_plan_points_to_the_prediction(failed_cuda_report):
    assert failed_cuda_report.binding.reason == (
        "CUDAExecutionProvider was requested but is not active: every tensor lives in host memory, so there is "
        "nothing to bind on a device until the provider loads; the binding code shown is for the placement "
        "predicted for CUDAExecutionProvider (`prediction.binding` in the JSON), not run or measured here")


@pytest.mark.no_cuda
def test_a_failed_cuda_session_prediction_binds_on_the_device(failed_cuda_report):
    plan = failed_cuda_report.prediction.binding
    assert (plan.applicable, [(e.name, e.place) for e in plan.entries]) == (True, [("x", "device"), ("y", "device")])


@pytest.mark.no_cuda
def test_a_failed_cuda_session_html_shows_the_predicted_code(failed_cuda_report):
    page = render_html(failed_cuda_report)
    assert f'<pre><code id="binding-code">{escape(failed_cuda_report.prediction.binding.code)}</code></pre>' in page


@pytest.mark.no_cuda
def test_a_failed_cuda_session_html_marks_the_code_predicted(failed_cuda_report):
    page = render_html(failed_cuda_report)
    assert ('<p id="binding-code-note"><b>Predicted: this code binds for the placement static analysis predicts for '
            'the requested provider; it was not measured here.</b></p>') in page
    # ... and it ran, as printed with 'cpu' for 'cuda', next to plain run() (collect/code_check.py)
    assert ('<p class="muted" id="binding-code-check">checked on CPU OrtValues (&#39;cpu&#39; for &#39;cuda&#39;; no '
            'GPU here): run as printed for 4 calls with different inputs, the same outputs as plain run()</p>') in page


@pytest.mark.no_cuda
def test_a_failed_cuda_session_html_table_shows_the_predicted_entries(failed_cuda_report):
    page = render_html(failed_cuda_report)
    table = page[page.index('<h2 id="binding">'):page.index('id="binding-code"')]
    assert (table.count("<td>device</td>"), table.count("<td>host</td>")) == (2, 0)


@pytest.mark.no_cuda
def test_a_failed_cuda_session_html_states_the_reason_once_then_refers_back(model_path):
    """Issue 36: a CPU machine's first screen states the missing CUDA once; the HTML's verdict states ORT's reason,
    the headline under it refers back to it (a default check: the headline says why binding was not measured)."""
    import re

    report = check(model_path)
    page = render_html(report)
    reason = report.evidence.session.ep_failure.splitlines()[0]
    top = page[:page.index('<h2')]  # the verdict, the headline and the summary, before the first section
    assert top.count(escape(reason)) == 1
    headline = re.search(r'<p class="headline" id="headline"><b>(.*?)</b></p>', page).group(1)
    assert "(reason above)" in headline and escape(reason) not in headline
