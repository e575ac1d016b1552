"""SARIF locations that a code-scanning UI can trust: the model's artifactLocation.uri is a valid URI reference
(each path segment percent-encoded; a model outside the base folder, however spelled, an absolute file URI), and
predicted Memcpy-node findings, whose nodes all share their op type as name, are told apart by the tensor copied
(fingerprint and logical location). See docs/json-format.md, SARIF."""

from __future__ import annotations

import msgspec
import hashlib
from pathlib import Path
from urllib.parse import unquote, urlsplit

import numpy as np
import onnx
import pytest
from onnx import TensorProto, helper, numpy_helper

import models
from ortcopy_doctor.render.sarif import artifact_location, sarif_log
from render_helpers import load_fixture
from schema_helpers import assert_valid_sarif, run_cli

ODD = "sp ace/d#ir%20x/mö del?.onnx"
ODD_ENCODED = "sp%20ace/d%23ir%2520x/m%C3%B6%20del%3F.onnx"
FINGERPRINT = "ortcopyDoctorFinding/v1"


def two_cpu_ops() -> onnx.ModelProto:
    """MatMul -> Celu -> MatMul -> Celu -> MatMul: Celu has no CUDA kernel, so a CUDA prediction has two
    MemcpyToHost (h1, h3) and two MemcpyFromHost (h2, h4) nodes."""
    rng = np.random.default_rng(3)

    def weights(name: str, shape: tuple[int, int]) -> onnx.TensorProto:
        return numpy_helper.from_array((rng.standard_normal(shape) * 0.1).astype(np.float32), name)

    nodes = [
        helper.make_node("MatMul", ["x", "w1"], ["h1"], name="matmul1"),
        helper.make_node("Celu", ["h1"], ["h2"], name="celu1", alpha=1.0),
        helper.make_node("MatMul", ["h2", "w2"], ["h3"], name="matmul2"),
        helper.make_node("Celu", ["h3"], ["h4"], name="celu2", alpha=1.0),
        helper.make_node("MatMul", ["h4", "w3"], ["y"], name="matmul3"),
    ]
    graph = helper.make_graph(
        nodes, "two_cpu_ops",
        [helper.make_tensor_value_info("x", TensorProto.FLOAT, ["batch", 16])],
        [helper.make_tensor_value_info("y", TensorProto.FLOAT, ["batch", 8])],
        [weights("w1", (16, 32)), weights("w2", (32, 32)), weights("w3", (32, 8))])
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17)], producer_name="ortcopy-doctor-tests")
    model.ir_version = models.IR_VERSION
    return model


def memcpy_results(log: dict) -> list[dict]:
    return [r for r in log["runs"][0]["results"] if r["properties"]["slug"] == "memcpy-node"]


# --- artifactLocation.uri ------------------------------------------------------------------------------------------


def test_relative_uri_percent_encodes_each_segment(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    assert artifact_location(ODD, tmp_path) == {"uri": ODD_ENCODED, "uriBaseId": "%SRCROOT%"}


def test_relative_uri_splits_back_to_the_whole_path(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    parts = urlsplit(artifact_location(ODD, tmp_path)["uri"])
    assert (parts.scheme, parts.netloc, parts.query, parts.fragment) == ("", "", "", "")
    assert unquote(parts.path) == ODD


def test_absolute_path_under_base_is_relative_and_encoded():
    assert artifact_location(f"/repo/{ODD}", Path("/repo")) == {"uri": ODD_ENCODED, "uriBaseId": "%SRCROOT%"}


def test_absolute_path_outside_base_is_an_encoded_file_uri():
    location = artifact_location(f"/elsewhere/{ODD}", Path("/repo"))
    assert location == {"uri": f"file:///elsewhere/{ODD_ENCODED}"}
    parts = urlsplit(location["uri"])
    assert (parts.scheme, parts.netloc, parts.query, parts.fragment) == ("file", "", "", "")
    assert unquote(parts.path) == f"/elsewhere/{ODD}"


def test_colon_in_the_first_segment_is_encoded(tmp_path, monkeypatch):
    """A relative reference whose first segment holds ':' would read as a scheme (RFC 3986 §4.2)."""
    monkeypatch.chdir(tmp_path)
    assert artifact_location("c:model.onnx", tmp_path) == {"uri": "c%3Amodel.onnx", "uriBaseId": "%SRCROOT%"}


def test_ordinary_paths_keep_their_uri(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    assert artifact_location("models/m-1_v2.0~x.onnx", tmp_path) == {"uri": "models/m-1_v2.0~x.onnx",
                                                                       "uriBaseId": "%SRCROOT%"}
    assert artifact_location("models/m.onnx", None) == {"uri": "models/m.onnx", "uriBaseId": "%SRCROOT%"}


def test_relative_path_is_normalised(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    assert artifact_location("./models/../m.onnx", tmp_path) == {"uri": "m.onnx", "uriBaseId": "%SRCROOT%"}


def test_relative_path_outside_base_is_a_file_uri(tmp_path, monkeypatch):
    (tmp_path / "work").mkdir()
    monkeypatch.chdir(tmp_path / "work")
    expected = {"uri": (tmp_path / "other" / "m.onnx").as_uri()}
    assert artifact_location("../other/m.onnx", tmp_path / "work") == expected
    assert artifact_location(str(tmp_path / "other" / "m.onnx"), tmp_path / "work") == expected


def test_relative_path_leading_out_without_base_is_a_file_uri(tmp_path, monkeypatch):
    (tmp_path / "work").mkdir()
    monkeypatch.chdir(tmp_path / "work")
    assert artifact_location("../other/m.onnx", None) == {"uri": (tmp_path / "other" / "m.onnx").as_uri()}


def test_cli_check_of_a_model_up_the_tree_writes_a_file_uri(tmp_path):
    (tmp_path / "work").mkdir()
    (tmp_path / "other").mkdir()
    onnx.save(models.cpu_op_between(), str(tmp_path / "other" / "m.onnx"))
    result = run_cli(["check", "../other/m.onnx", "--static", "--sarif", "out.sarif", "--no-html", "--quiet"],
                     tmp_path / "work")
    assert result.returncode == 0, result.stdout + result.stderr
    log = assert_valid_sarif(tmp_path / "work" / "out.sarif")
    expected = {"uri": (tmp_path / "other" / "m.onnx").resolve().as_uri()}
    assert log["runs"][0]["artifacts"][0]["location"] == expected
    assert [r["locations"][0]["physicalLocation"]["artifactLocation"] for r in log["runs"][0]["results"]] == [
        expected] * 5


def test_cli_check_of_an_oddly_named_model_writes_an_encoded_uri(tmp_path):
    model = tmp_path / ODD
    model.parent.mkdir(parents=True)
    onnx.save(models.cpu_op_between(), str(model))
    result = run_cli(["check", ODD, "--static", "--sarif", "out.sarif", "--no-html", "--quiet"], tmp_path)
    assert result.returncode == 0, result.stdout + result.stderr
    log = assert_valid_sarif(tmp_path / "out.sarif")
    assert log["runs"][0]["artifacts"][0]["location"] == {"uri": ODD_ENCODED, "uriBaseId": "%SRCROOT%"}


# --- Memcpy-node fingerprints and logical locations ----------------------------------------------------------------


@pytest.fixture(scope="module")
def static_two_cpu_ops(tmp_path_factory):
    from ortcopy_doctor.api import check

    path = tmp_path_factory.mktemp("two") / "m.onnx"
    onnx.save(two_cpu_ops(), str(path))
    report = check(path, dims={"batch": 2}, static=True)
    return report, assert_valid_sarif(sarif_log(report, base=path.parent))


def test_predicted_memcpy_findings_have_distinct_fingerprints(static_two_cpu_ops):
    _, log = static_two_cpu_ops
    fingerprints = [r["partialFingerprints"][FINGERPRINT] for r in memcpy_results(log)]
    assert len(fingerprints) == 4
    assert len(set(fingerprints)) == 4


def test_predicted_memcpy_fingerprint_hashes_the_tensor(static_two_cpu_ops):
    report, log = static_two_cpu_ops
    first = memcpy_results(log)[0]
    key = "\0".join([report.evidence.model.sha256, "OCD003", "MemcpyToHost", "", "h1"])
    assert first["partialFingerprints"][FINGERPRINT] == hashlib.sha256(key.encode("utf-8")).hexdigest()[:32]


def test_predicted_memcpy_logical_locations_name_the_tensor(static_two_cpu_ops):
    _, log = static_two_cpu_ops
    names = [[(loc["name"], loc["kind"]) for loc in r["locations"][0]["logicalLocations"]]
             for r in memcpy_results(log)]
    assert names == [
        [("MemcpyToHost(h1)", "function"), ("h1", "variable")],
        [("MemcpyToHost(h3)", "function"), ("h3", "variable")],
        [("MemcpyFromHost(h2)", "function"), ("h2", "variable")],
        [("MemcpyFromHost(h4)", "function"), ("h4", "variable")],
    ]


def test_other_predicted_findings_keep_their_fingerprint(static_two_cpu_ops):
    report, log = static_two_cpu_ops
    sha = report.evidence.model.sha256
    by_location = {r["locations"][0]["logicalLocations"][0]["name"]: r["partialFingerprints"][FINGERPRINT]
                   for r in log["runs"][0]["results"] if r["properties"]["slug"] != "memcpy-node"}
    expected = {loc: hashlib.sha256("\0".join([sha, rule, loc, ""]).encode("utf-8")).hexdigest()[:32]
                for rule, loc in (("OCD002", "celu1"), ("OCD002", "celu2"), ("OCD004", "x"), ("OCD005", "y"))}
    assert by_location == expected


@pytest.mark.no_cuda
def test_memcpy_findings_predicted_for_cuda_have_distinct_fingerprints(tmp_path):
    """A CPU session where CUDA was requested: the prediction's Memcpy-node results are four alerts, not two."""
    from ortcopy_doctor.api import check

    onnx.save(two_cpu_ops(), str(tmp_path / "m.onnx"))
    report = check(tmp_path / "m.onnx", dims={"batch": 2}, warmup_runs=1, profiled_runs=1, timed_runs=2)
    if report.prediction is None:
        pytest.skip("CUDA is active here: no prediction")
    results = memcpy_results(assert_valid_sarif(sarif_log(report, base=tmp_path)))
    assert [r["locations"][0]["logicalLocations"][0]["name"] for r in results] == [
        "MemcpyToHost(h1)", "MemcpyToHost(h3)", "MemcpyFromHost(h2)", "MemcpyFromHost(h4)"]
    assert len({r["partialFingerprints"][FINGERPRINT] for r in results}) == 4


def test_measured_memcpy_findings_keep_ort_names_and_fingerprints(tmp_path):
    report = load_fixture("cpu_op_between", tmp_path)
    log = sarif_log(report, base=Path(report.evidence.model.path).parent)
    results = memcpy_results(log)
    assert [r["locations"][0]["logicalLocations"][0]["name"] for r in results] == ["Memcpy_token_0", "Memcpy"]
    sha = report.evidence.model.sha256
    assert [r["partialFingerprints"][FINGERPRINT] for r in results] == [
        hashlib.sha256("\0".join([sha, "OCD003", name, ""]).encode("utf-8")).hexdigest()[:32]
        for name in ("Memcpy_token_0", "Memcpy")]


def test_measured_memcpy_findings_without_a_node_name_are_told_apart_by_tensor(tmp_path):
    """A Memcpy node the log names but the profile did not show has no name: the tensor tells two apart."""
    report = load_fixture("cpu_op_between", tmp_path)
    memcpy = next(f for f in report.findings if f.slug == "memcpy-node")
    unnamed = [msgspec.structs.replace(memcpy, location="", details={**memcpy.details, "tensor": t}) for t in ("a", "b")]
    log = sarif_log(msgspec.structs.replace(report, findings=unnamed), base=None)
    results = log["runs"][0]["results"]
    op = "MemcpyToHost" if memcpy.details["direction"] == "device_to_host" else "MemcpyFromHost"
    assert [r["locations"][0]["logicalLocations"][0]["name"] for r in results] == [f"{op}(a)", f"{op}(b)"]
    assert len({r["partialFingerprints"][FINGERPRINT] for r in results}) == 2
