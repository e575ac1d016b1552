"""Static prediction (no session, no GPU) against what ORT 1.31.1 did on the H200 for the same models."""

from __future__ import annotations

import onnx
import pytest

import models
from fixture_loader import recorded_report
from ortcopy_doctor import check
from ortcopy_doctor.collect.demo_model import DEMO_DIMS, build_demo_model

CASES = {name: (build, {"batch": 2}) for name, build in models.ALL.items()}
CASES["demo"] = (build_demo_model, DEMO_DIMS)


def _predicted(tmp_path, name):
    build, dims = CASES[name]
    path = tmp_path / f"{name}.onnx"
    onnx.save(build(), str(path))
    options = {"dims": dict(dims), "static": True}
    if name == "cpu_only_inputs":
        options["dims"].update({"rows": 4, "cols": 8})
    return check(path, **options)


@pytest.mark.parametrize("name", sorted(CASES))
def test_predicted_copies_are_the_measured_copies(tmp_path, name):
    predicted = _predicted(tmp_path, name)
    measured = recorded_report(name, tmp_path)
    assert predicted.evidence.mode == "static"
    assert [(c.kind, c.direction, c.tensor) for c in predicted.copies] == \
        [(c.kind, c.direction, c.tensor) for c in measured.copies]


@pytest.mark.parametrize("name", sorted(CASES))
def test_predicted_sizes_match_where_the_model_fixes_them(tmp_path, name):
    predicted = _predicted(tmp_path, name)
    measured = recorded_report(name, tmp_path)
    pairs = [(p.bytes_per_run, m.bytes_per_run) for p, m in zip(predicted.copies, measured.copies)
             if p.bytes_per_run is not None]
    assert all(p == m for p, m in pairs)


@pytest.mark.parametrize("name", sorted(CASES))
def test_predicted_placement_of_each_measured_node(tmp_path, name):
    predicted = {n.name: n.provider for n in _predicted(tmp_path, name).evidence.nodes}
    measured = recorded_report(name, tmp_path)
    compared = 0
    for node in measured.evidence.nodes:
        if node.name in predicted:  # fused nodes (e.g. MatMulAddFusion) have new names
            assert predicted[node.name] == node.provider, node.name
            compared += 1
    assert compared >= 1
