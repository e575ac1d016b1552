"""`diff` and the HTML name what a static prediction's session ran on: none; it predicted for a provider."""

from __future__ import annotations

import onnx

import models
from ortcopy_doctor import check
from ortcopy_doctor.model.format import active_providers
from ortcopy_doctor.render.html import render_html
from ortcopy_doctor.report.diff import diff_reports


def test_a_static_prediction_is_not_said_to_have_active_providers(tmp_path):
    onnx.save(models.cpu_op_between(), str(tmp_path / "m.onnx"))
    static = check(tmp_path / "m.onnx", static=True, dims={"batch": 2})
    measured = check(tmp_path / "m.onnx", providers=["cpu"], dims={"batch": 2}, warmup_runs=0, profiled_runs=1,
                     timed_runs=1)
    assert active_providers(static.evidence) == "no session: predicted for CUDAExecutionProvider"
    assert active_providers(measured.evidence) == "CPUExecutionProvider"
    rows = {row[0]: row[1:] for row in diff_reports(static, measured).environment}
    assert rows["providers active"] == ("no session: predicted for CUDAExecutionProvider", "CPUExecutionProvider")
    page_text = render_html(static).replace("<wbr>", "")  # where a long name may wrap (render/html.py: breakable)
    assert "no session: predicted for CUDAExecutionProvider" in page_text
