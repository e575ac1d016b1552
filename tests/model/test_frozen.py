"""Value types are frozen ``msgspec.Struct``s (issues #15, #35): a field cannot be assigned, a changed copy comes
from ``msgspec.structs.replace``. What stays mutable is state filled while something runs, listed here with its
reason."""

from __future__ import annotations

import ast
import json

import msgspec

import onnx
import pytest

import models
from fixture_loader import recorded
from render_helpers import REPO
from ortcopy_doctor.api import check
from ortcopy_doctor.collect.session import CheckOptions
from ortcopy_doctor.model import codec
from ortcopy_doctor.model.evidence import Evidence, RuntimeNode

PACKAGE = REPO / "ortcopy_doctor"

# module path (under ortcopy_doctor/) and class -> why it is filled after it is built
MUTABLE = {
    ("model/watch.py", "WatchObservations"): "recorder state: filled while the watched calls run",
    ("model/watch.py", "CallObservation"): "recorder state: one watched call, completed when it returns",
    ("model/watch.py", "TensorUse"): "recorder state: how a tensor was bound, updated by later bind_* calls",
    ("model/pipeline.py", "PipelineObservations"): "recorder state: filled while the watched program runs",
    ("model/pipeline.py", "PipelineCall"): "recorder state: one call, completed when it returns",
    ("model/pipeline.py", "ValueInfo"): "recorder state: linked to the value that later feeds another session",
    ("watch/recorder.py", "_Instrumentation"): "recorder state of one instrumented session",
    ("watch/recorder.py", "_BindingState"): "recorder state of one IOBinding",
    ("watch/program.py", "_Produced"): "recorder state: an output, aliased when it is passed on",
    ("analysis/stats.py", "Sampler"): "the adaptive sampling loop: its samples and why it stopped",
    ("knowledge/prediction.py", "_NodeFacts"): "working state of the placement prediction, one node",
    ("render/svg.py", "_Box"): "working state of the graph layout (depth, row, x, y set by its passes)",
    ("render/output.py", "_Output"): "an output file being written (its temporary path, its text)",
    ("collect/code_check.py", "Block"): "a generated code block being run: its namespace, the inputs it read",
}


def _classes() -> dict[tuple[str, str], tuple[str, bool]]:
    """(module path, class) -> (how it is made: "struct" or "dataclass", frozen), for every ``msgspec.Struct`` of
    the package (a class whose bases name ``msgspec.Struct``) and every ``@dataclass``."""
    found = {}
    for path in sorted(PACKAGE.rglob("*.py")):
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if not isinstance(node, ast.ClassDef):
                continue
            key = (path.relative_to(PACKAGE).as_posix(), node.name)
            if any(ast.unparse(b) == "msgspec.Struct" for b in node.bases):
                found[key] = ("struct", _frozen(node.keywords))
            for deco in node.decorator_list:
                call = deco if isinstance(deco, ast.Call) else None
                if ast.unparse(call.func if call is not None else deco) in ("dataclass", "dataclasses.dataclass"):
                    found[key] = ("dataclass", call is not None and _frozen(call.keywords))
    return found


def _frozen(keywords: list[ast.keyword]) -> bool:
    return any(k.arg == "frozen" and isinstance(k.value, ast.Constant) and k.value.value is True for k in keywords)


def test_every_struct_is_frozen_but_the_listed_state():
    classes = _classes()
    assert set(MUTABLE) <= set(classes), set(MUTABLE) - set(classes)
    mutable = {key for key, (_, frozen) in classes.items() if not frozen}
    assert mutable == set(MUTABLE), f"mutable but not listed: {mutable - set(MUTABLE)}; listed but frozen: " \
                                    f"{set(MUTABLE) - mutable}"


def test_evidence_read_from_json_is_equal_and_frozen():
    evidence = codec.convert(recorded("conv_net")["report"]["evidence"], Evidence)
    again = codec.decode(codec.to_json_bytes(evidence), Evidence)
    assert again == evidence
    with pytest.raises(AttributeError, match="immutable"):
        again.nodes[0].provider = "CPUExecutionProvider"


def test_fields_absent_from_json_take_their_defaults():
    data = {"name": "n", "op_type": "Relu", "domain": "", "provider": "CPUExecutionProvider"}
    node, other = codec.convert(data, RuntimeNode), codec.convert(data, RuntimeNode)
    assert node == RuntimeNode("n", "Relu", "", "CPUExecutionProvider")
    assert node.inputs == [] and node.inputs is not other.inputs  # a default_factory list of its own


def test_a_required_field_absent_from_json_raises_naming_it():
    with pytest.raises(msgspec.ValidationError, match="missing required field `provider`"):
        codec.convert({"name": "n", "op_type": "Relu", "domain": ""}, RuntimeNode)


def test_check_overrides_leave_the_options_passed_unchanged(tmp_path):
    path = tmp_path / "m.onnx"
    onnx.save(models.conv_net(), str(path))
    options = CheckOptions(static=True, dims={"batch": 2})
    report = check(path, options, dims={"batch": 4})
    assert options.dims == {"batch": 2}
    assert [f.shape for f in report.evidence.feeds] == [[4, 3, 32, 32]]


def test_no_class_is_a_dataclass():
    """``msgspec.Struct``, not ``@dataclass``: a ``check`` loads ~70 of these classes, and ``@dataclass`` compiles
    six methods for each (0.4-1.8 ms a class on the 2-CPU machine; a Struct takes ~0.01 ms; issue 35)."""
    assert [key for key, (made, _) in _classes().items() if made == "dataclass"] == []
