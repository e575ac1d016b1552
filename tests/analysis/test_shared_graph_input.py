"""A graph input read on the host (a CPU-fallback node) and on the device: ORT keeps it on the host and copies it
for the device readers with a MemcpyFromHost node; no feed copy (tests/fixtures/shared_input, recorded on the H200
with onnxruntime-gpu 1.31.1). The prediction once counted both a feed copy and a Memcpy node of unknown size."""

from __future__ import annotations

import gzip
import json

import onnx
import pytest

import models
from ortcopy_doctor.model import codec
from ortcopy_doctor import check
from ortcopy_doctor.model.evidence import Evidence
from ortcopy_doctor.report.core import analyse
from render_helpers import TESTS

FIXTURES = TESTS / "fixtures" / "shared_input"


def _recorded(name: str):
    with gzip.open(FIXTURES / name, "rt", encoding="utf-8") as f:
        data = json.load(f)
    assert data["evidence"]["environment"]["ort_version"] == "1.31.1"
    return analyse(codec.convert(data["evidence"], Evidence))


def _copies(report) -> list[tuple[str, str, str, int | None]]:
    return sorted((c.kind.value, c.direction.value, c.tensor, c.bytes_per_run) for c in report.copies)


MEASURED = [("fetch", "device_to_host", "y", 64), ("memcpy_node", "device_to_host", "a1", 64),
            ("memcpy_node", "device_to_host", "a2", 64), ("memcpy_node", "host_to_device", "b1", 64),
            ("memcpy_node", "host_to_device", "b2", 64), ("memcpy_node", "host_to_device", "x", 64)]


def test_the_h200_shows_a_memcpy_node_for_the_shared_input_and_no_feed_copy():
    report = _recorded("celu2_h200.json.gz")
    assert _copies(report) == MEASURED
    assert report.census is not None and report.census.unexplained == []


def test_the_prediction_recorded_on_the_h200_now_gives_the_measured_copies():
    assert _copies(_recorded("celu2_h200_static.json.gz")) == MEASURED


def test_a_static_check_here_predicts_the_measured_copies(tmp_path):
    path = tmp_path / "celu2.onnx"
    onnx.save(models.shared_input(), str(path))
    assert _copies(check(path, static=True)) == MEASURED


@pytest.mark.parametrize("name", ["celu2_h200.json.gz", "celu2_h200_static.json.gz"])
def test_the_binding_plan_keeps_the_shared_input_on_the_host(name):
    (entry,) = [e for e in _recorded(name).binding.entries if e.name == "x"]
    assert (entry.place.value, entry.reason) == (
        "host", "read only in host memory (by Celu 'c3'): binding it on the device would add a copy")
