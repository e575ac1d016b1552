"""Sizes the CPU run of a check measured size the CUDA prediction of the same check (analysis.copies.measured_sizes):
where CUDA is requested and does not load, `check` runs the model on CPU and predicts CUDA's copies; a tensor whose
size shape inference leaves unknown (a symbolic or data-dependent dim) has the size that run measured, at the same
inputs, instead of "unknown size"."""

from __future__ import annotations

import msgspec

import onnx
import pytest

import models
from ortcopy_doctor import check
from ortcopy_doctor.analysis.copies import MEASURED_SIZE_NOTE, measured_sizes
from ortcopy_doctor.report.core import analyse

pytestmark = pytest.mark.no_cuda  # where CUDA loads there is no prediction: the session itself is measured


def _checked(tmp_path, model: onnx.ModelProto, **options):
    onnx.save(model, str(tmp_path / "m.onnx"))
    report = check(tmp_path / "m.onnx", warmup_runs=0, profiled_runs=1, timed_runs=1, **options)
    assert report.prediction is not None
    return report


def test_an_output_of_symbolic_dims_is_sized_by_the_cpu_run(tmp_path):
    report = _checked(tmp_path, models.symbolic_output(), dims={"batch": 4})
    (fetch,) = [c for c in report.prediction.copies if c.kind == "fetch"]
    assert (fetch.tensor, fetch.bytes_per_run, fetch.shape, fetch.dtype) == ("y", 4 * 16 * 4, [4, 16], "float32")
    assert fetch.cause == ("'y' is produced on the device by Relu 'relu' (CUDA) and returned to the caller as "
                           "numpy" + MEASURED_SIZE_NOTE)
    assert report.prediction.verdict.startswith("2 host↔device copies per run (predicted) (512 B): ")


def test_a_memcpy_of_a_data_dependent_size_is_sized_by_the_cpu_run(tmp_path):
    report = _checked(tmp_path, models.data_dependent_memcpy())
    (memcpy,) = [c for c in report.prediction.copies if c.kind == "memcpy_node"]
    # [1, N]: the N non-zero elements of the synthesized x (a standard normal has no zero: all 8)
    assert (memcpy.tensor, memcpy.shape, memcpy.bytes_per_run) == ("positions", [1, 8], 8 * 4)
    assert memcpy.cause.endswith(MEASURED_SIZE_NOTE)


def test_sizes_of_other_inputs_are_not_used(tmp_path):
    report = _checked(tmp_path, models.symbolic_output(), dims={"batch": 4})
    measured = report.evidence
    other = msgspec.structs.replace(measured, feeds=[msgspec.structs.replace(f, shape=[8, 16], bytes=512)
                                                 for f in measured.feeds])
    assert measured_sizes(other, measured.predicted) == {}
    (fetch,) = [c for c in analyse(other).prediction.copies if c.kind == "fetch"]
    assert fetch.bytes_per_run is None  # the run was of other inputs: its size says nothing of these


def test_a_static_check_has_no_run_to_measure(tmp_path):
    onnx.save(models.symbolic_output(), str(tmp_path / "m.onnx"))
    report = check(tmp_path / "m.onnx", static=True, dims={"batch": 4})
    (fetch,) = [c for c in report.copies if c.kind == "fetch"]
    assert fetch.bytes_per_run is None and not fetch.cause.endswith(MEASURED_SIZE_NOTE)
