"""Models from torch's dynamo exporter, checked on the H200 (tests/fixtures/dynamo): the measured reports re-analyse
to what CUPTI saw, and the static prediction made here gives the copies the CUDA session made."""

from __future__ import annotations

import gzip
import json
import tarfile

import pytest

from ortcopy_doctor.model import codec
from ortcopy_doctor import check
from ortcopy_doctor.model.evidence import Evidence
from ortcopy_doctor.report.core import analyse
from render_helpers import TESTS

FIXTURES = TESTS / "fixtures" / "dynamo"
SUMMARY = json.loads(gzip.decompress((FIXTURES / "summary.json.gz").read_bytes()))
SMALL = sorted(p.name[:-len(".onnx.gz")] for p in (FIXTURES / "models").glob("*.onnx.gz"))
# sizes the prediction cannot know: LSTM's sequence lengths (uploaded in the kernel), NonZero's outputs
SIZES_UNKNOWN_STATICALLY = {"lstm_state", "nonzero_mask"}


def _report(name: str):
    with tarfile.open(FIXTURES / "reports.tar.gz") as tar:
        data = json.loads(tar.extractfile(name).read())
    assert data["evidence"]["environment"]["ort_version"] == "1.31.1"
    return analyse(codec.convert(data["evidence"], Evidence))


def _copies(report) -> list[list]:
    return sorted([c.kind.value, c.direction.value, c.tensor, c.bytes_per_run] for c in report.copies)


@pytest.mark.parametrize("name", sorted(SUMMARY))
def test_the_measured_report_re_analyses_to_its_recorded_copies_all_explained(name):
    report = _report(f"{name}.cuda.json")
    assert report.evidence.session.active_providers[0] == "CUDAExecutionProvider"
    assert _copies(report) == SUMMARY[name]["cuda"]["copies"]
    assert report.census is not None and report.census.unexplained == []


@pytest.mark.parametrize("name", SMALL)
def test_the_static_prediction_here_gives_the_copies_the_h200_measured(tmp_path, name):
    path = tmp_path / f"{name}.onnx"
    path.write_bytes(gzip.decompress((FIXTURES / "models" / f"{name}.onnx.gz").read_bytes()))
    dims = json.loads((FIXTURES / "models" / f"{name}.json").read_text())["dims"]
    predicted, measured = _copies(check(path, static=True, dims=dims)), SUMMARY[name]["cuda"]["copies"]
    if name in SIZES_UNKNOWN_STATICALLY:
        predicted, measured = [c[:3] for c in predicted], [c[:3] for c in measured]
    assert predicted == measured


@pytest.mark.parametrize("name", sorted(set(SUMMARY) - {"fn_block", "local_function"}))
def test_the_static_prediction_recorded_there_gave_the_measured_copies(name):
    """The transformer models too (not committed); the two with local functions were recorded before the inlined
    names matched ORT's (the test above checks them)."""
    static, cuda = SUMMARY[name]["static"]["copies"], SUMMARY[name]["cuda"]["copies"]
    if name in SIZES_UNKNOWN_STATICALLY:
        static, cuda = [c[:3] for c in static], [c[:3] for c in cuda]
    assert static == cuda
