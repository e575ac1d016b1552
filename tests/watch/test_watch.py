"""Watch mode (ortcopy_doctor.watch): live on CPU, analysis over recorded H200 censuses, replay of recorded watches,
and (`pytest -m gpu`) the same scenarios live on a GPU."""

from __future__ import annotations

import collections
import gzip
import importlib.util
import sys
import json
from pathlib import Path

import numpy as np
import onnx
import onnxruntime as ort
import pytest

import models
from fixture_loader import recorded
from ortcopy_doctor.model import codec
from ortcopy_doctor import instrumented_session, pytest_watch
from ortcopy_doctor import watch
from ortcopy_doctor.model.census import Census, TransferRecord
from ortcopy_doctor.model.evidence import RuntimeNode
from ortcopy_doctor.render.watch import render_watch_text
from ortcopy_doctor.analysis.watch import analyse_watch
from ortcopy_doctor.watch.observations import (
    FEED,
    FETCH,
    MEMCPY_NODE,
    PLACEMENT_HOST_ONLY,
    PLACEMENT_PREDICTED,
    PLACEMENT_SESSION,
    CallObservation,
    TensorUse,
    WatchObservations,
    load_observations,
)
from ortcopy_doctor.watch.placement import placement_from_nodes
from render_helpers import REPO, TESTS

ROOT = REPO
WATCH_FIXTURES = TESTS / "fixtures" / "watch"
CPU_ONLY = ["CPUExecutionProvider"]
CUDA_REQUESTED = ["CUDAExecutionProvider", "CPUExecutionProvider"]


def _cuda_active(path: Path) -> bool:
    return "CUDAExecutionProvider" in ort.InferenceSession(str(path), providers=CUDA_REQUESTED).get_providers()


@pytest.fixture
def model_path(tmp_path):
    def make(name: str) -> Path:
        path = tmp_path / f"{name}.onnx"
        onnx.save(models.ALL[name](), str(path))
        return path

    return make


def _x(shape=(2, 64)):
    return np.random.default_rng(0).standard_normal(shape).astype(np.float32)


# --- live on CPU --------------------------------------------------------------------------------------------------------


def test_cpu_session_records_every_call_and_has_no_host_transfers(model_path):
    session = ort.InferenceSession(str(model_path("stateful")), providers=CPU_ONLY)
    x, state = _x((2, 32)), np.zeros((2, 64), np.float32)
    with watch(session, predict_for=None) as w:
        y, state_out = session.run(None, {"x": x, "state": state})
        session.run_with_ort_values(["y"], {"x": ort.OrtValue.ortvalue_from_numpy(x),
                                            "state": ort.OrtValue.ortvalue_from_numpy(state_out)})
        binding = session.io_binding()
        binding.bind_cpu_input("x", x)
        binding.bind_ortvalue_input("state", ort.OrtValue.ortvalue_from_numpy(state))
        binding.bind_output("y")
        binding.bind_output("state_out", "cpu")
        session.run_with_iobinding(binding)
    report = w.report
    assert [c.method for c in report.calls] == ["run", "run_with_ort_values", "run_with_iobinding"]
    run, values, bound = report.calls
    assert [(t.name, t.via, t.device, t.bytes) for t in run.inputs] == [("x", "numpy", "cpu", 256), ("state", "numpy", "cpu", 512)]
    assert [(t.name, t.via, t.device, t.bytes) for t in run.outputs] == [("y", "returned", "cpu", 64), ("state_out", "returned", "cpu", 512)]
    assert [(t.name, t.via, t.device) for t in values.inputs] == [("x", "ortvalue", "cpu"), ("state", "ortvalue", "cpu")]
    assert [t.name for t in values.outputs] == ["y"]
    assert [(t.name, t.via) for t in bound.inputs] == [("x", "bind_cpu_input"), ("state", "bind_ortvalue_input")]
    assert [(t.name, t.via, t.device) for t in bound.outputs] == [("y", "bind_output", "cpu"), ("state_out", "bind_output", "cpu")]
    assert report.placement_source == PLACEMENT_HOST_ONLY
    assert report.transfers() == [] and report.predicted is None
    assert all(t.needed_on == "host" for c in report.calls for t in c.inputs + c.outputs)
    assert any("CPU only" in o for o in report.observed)
    assert w.observations.census_note.startswith("not taken: no device provider")
    report.assert_no_host_transfers()  # a CPU session moves nothing between host and device
    assert "3 call(s)" in render_watch_text(report)
    assert json.loads(report.to_json())["calls"][0]["method"] == "run"


def test_patches_are_restored_also_when_the_block_raises(model_path):
    session = ort.InferenceSession(str(model_path("cpu_op_between")), providers=CPU_ONLY)
    originals = {name: ort.IOBinding.__dict__[name] for name in ("bind_cpu_input", "bind_output", "bind_ortvalue_input")}
    with pytest.raises(RuntimeError, match="user error"):
        with watch(session) as w:
            assert "run" in session.__dict__ and ort.IOBinding.bind_cpu_input is not originals["bind_cpu_input"]
            with pytest.raises(Exception):
                session.run(None, {"x": np.ones((2, 3), np.float32)})  # wrong shape: ORT raises, the call is recorded
            raise RuntimeError("user error")
    assert not {"run", "run_with_iobinding", "run_with_ort_values"} & set(session.__dict__)
    assert all(ort.IOBinding.__dict__[name] is fn for name, fn in originals.items())
    assert len(w.calls) == 1 and w.calls[0].error
    session.run(None, {"x": _x()})  # unwatched again
    assert len(w.calls) == 1


def test_cuda_requested_without_gpu_observes_nothing_and_predicts_the_copies(model_path):
    path = model_path("cpu_op_between")
    if _cuda_active(path):
        pytest.skip("CUDA is active here: this test is about a machine without a GPU")
    session = instrumented_session(path, providers=CUDA_REQUESTED)
    x = _x()
    with watch(session) as w:
        session.run(None, {"x": x})
        binding = session.io_binding()
        binding.bind_cpu_input("x", x)
        binding.bind_output("y")
        session.run_with_iobinding(binding)
        session.run_with_iobinding(binding)  # x was copied when bound: the second run reuses it
    report = w.report
    assert report.placement_source == PLACEMENT_HOST_ONLY and report.transfers() == []
    report.assert_no_host_transfers()
    assert any("CUDAExecutionProvider was requested but is not active" in n for n in report.notes)
    assert "nothing to trace" in w.observations.census_note
    predicted = report.predicted
    assert predicted is not None and predicted.placement_source == PLACEMENT_PREDICTED
    first, second, third = predicted.calls
    assert [(t.kind, t.tensor, t.phase) for t in first.user_transfers] == [(FEED, "x", "run"), (FETCH, "y", "run")]
    assert [(t.kind, t.tensor, t.phase) for t in second.user_transfers] == [(FEED, "x", "bind"), (FETCH, "y", "run")]
    assert [(t.kind, t.tensor) for t in third.user_transfers] == [(FETCH, "y")]
    assert first.inputs_from_host == ["x"] and first.outputs_to_host == ["y"]
    assert sorted((t.kind, t.direction, t.tensor) for t in first.model_transfers) == [
        (MEMCPY_NODE, "device_to_host", "h1"), (MEMCPY_NODE, "host_to_device", "h2")]
    assert "bind_output('y', 'cuda')" in second.fixes[-1]
    with pytest.raises(AssertionError) as failure:
        report.assert_no_host_transfers(predicted=True)
    message = str(failure.value)
    assert "5 host<->device transfer(s)" in message and "predicted for CUDA" in message
    assert "call 0: feed H2D 'x' 512 B [prediction]" in message
    assert "call 1: feed H2D 'x' 512 B in bind [prediction]" in message
    assert "call 2: fetch D2H 'y' 256 B [prediction]" in message
    assert "fix: binding.bind_output('y', 'cuda')" in message
    assert "not counted: 6 transfer(s) of the model itself" in message
    report.assert_no_host_transfers(except_inputs=["x"], except_outputs=["y"], predicted=True)


def test_binding_made_before_the_watch(model_path):
    session = ort.InferenceSession(str(model_path("stateful")), providers=CPU_ONLY)
    binding = session.io_binding()
    if not hasattr(binding, "_bound_inputs"):
        pytest.skip(f"onnxruntime {ort.__version__}'s IOBinding keeps no record of what it bound (1.27 and older; "
                    "1.30 keeps it): a binding made before the watch cannot be seen")
    binding.bind_cpu_input("x", _x((2, 32)))
    binding.bind_ortvalue_input("state", ort.OrtValue.ortvalue_from_numpy(np.zeros((2, 64), np.float32)))
    binding.bind_output("y")
    binding.bind_output("state_out")
    with watch(session, predict_for="CUDAExecutionProvider") as w:
        session.run_with_iobinding(binding)
    call = w.report.calls[0]
    assert [(t.name, t.via, t.device) for t in call.inputs] == [("x", "bound_before_watch", ""),
                                                                ("state", "bound_before_watch", "cpu")]
    assert [(t.name, t.device) for t in call.outputs] == [("y", "cpu"), ("state_out", "cpu")]
    assert "bound before the watch" in call.discrepancies[0]
    # Inputs bound earlier were copied (if at all) at bind time: the predicted call shows only the fetches.
    assert [(t.kind, t.tensor) for t in w.report.predicted.calls[0].user_transfers] == [(FETCH, "y"), (FETCH, "state_out")]


class ScriptedTracer:
    """A tracer with CuptiTracer's contract whose records are scripted: one list per traced call, in order."""

    backend = "scripted"

    def __init__(self, script):
        self.census = Census(backend="scripted")
        self._script = script

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.census = Census(backend="scripted", records=[
            TransferRecord(d, n, "pageable", "device", i, i + 1, i)
            for i, (d, n) in enumerate(self._script.pop(0) if self._script else [])])


def test_census_plumbing_with_a_scripted_tracer(model_path, monkeypatch):
    """Each bind_* and each call gets its own tracer; bind-time records go to the next run of that binding."""
    session = ort.InferenceSession(str(model_path("cpu_op_between")), providers=CPU_ONLY)
    monkeypatch.setattr(session, "get_providers", lambda: ["CUDAExecutionProvider", "CPUExecutionProvider"])
    script = [
        [("host_to_device", 512)],  # bind_cpu_input x
        [],  # bind_output y
        [("device_to_host", 1024), ("host_to_device", 1024), ("device_to_host", 256)],  # run_with_iobinding
        [("host_to_device", 512), ("device_to_host", 1024), ("host_to_device", 1024), ("device_to_host", 256)],  # run
    ]
    factory = lambda: ScriptedTracer(script)  # noqa: E731
    factory.backend = "scripted"
    x = _x()
    with watch(session, census=factory) as w:
        binding = session.io_binding()
        binding.bind_cpu_input("x", x)
        binding.bind_output("y")
        session.run_with_iobinding(binding)
        session.run(None, {"x": x})
    report = w.report
    assert report.placement_source == PLACEMENT_PREDICTED  # no assignment info on a plain session
    assert any("placement is predicted" in n for n in report.not_observed)
    bound, plain = report.calls
    assert [(t.kind, t.tensor, t.phase, t.bytes, t.basis) for t in bound.transfers] == [
        (FEED, "x", "bind", 512, "census"), (FETCH, "y", "run", 256, "census"),
        (MEMCPY_NODE, "h2", "run", 1024, "census"), (MEMCPY_NODE, "h1", "run", 1024, "census")]
    assert bound.census == {"host_to_device": [2, 1536], "device_to_host": [2, 1280]}
    assert [(t.kind, t.tensor) for t in plain.user_transfers] == [(FEED, "x"), (FETCH, "y")]
    assert not bound.discrepancies and not plain.discrepancies
    assert script == []


# --- analysis over censuses recorded on the H200 (tests/fixtures/gpu) ------------------------------------------------------


def _recorded_placement(name: str):
    evidence = recorded(name)["report"]["evidence"]
    nodes = [RuntimeNode(**n) for n in evidence["nodes"]]
    return placement_from_nodes(nodes, [i["name"] for i in evidence["model"]["inputs"]],
                                [o["name"] for o in evidence["model"]["outputs"]], evidence["model"]["opsets"],
                                source=PLACEMENT_SESSION, provider="CUDAExecutionProvider")


def _observations(name: str, census_key: str, inputs, outputs, method: str) -> WatchObservations:
    records = [TransferRecord(**r) for r in recorded(name)[census_key]["records"]]
    call = CallObservation(index=0, method=method, inputs=inputs, outputs=outputs, traced=True, records=records)
    return WatchObservations(active_providers=CUDA_REQUESTED, placement=_recorded_placement(name),
                             census_backend="cupti-python", calls=[call])


def _multiset(records) -> collections.Counter:
    return collections.Counter((r.direction, r.bytes) for r in records if r.direction in ("host_to_device", "device_to_host"))


def test_recorded_census_of_plain_run_is_named_cpu_op_between():
    obs = _observations("cpu_op_between", "census_plain_run", [TensorUse("x", "input", "numpy", "cpu", 512)],
                        [TensorUse("y", "output", "returned", "cpu", 256)], "run")
    report = analyse_watch(obs)
    call = report.calls[0]
    assert [(t.kind, t.tensor, t.direction) for t in call.user_transfers] == [
        (FEED, "x", "host_to_device"), (FETCH, "y", "device_to_host")]
    assert sorted((t.node, t.tensor, t.bytes) for t in call.model_transfers) == [("Memcpy", "h2", 1024),
                                                                                 ("Memcpy_token_0", "h1", 1024)]
    assert collections.Counter((t.direction, t.bytes) for t in call.transfers) == _multiset(obs.calls[0].records)
    with pytest.raises(AssertionError, match=r"(?s)2 host<->device transfer\(s\).*'x' 512 B.*'y' 256 B"):
        report.assert_no_host_transfers()
    report.assert_no_host_transfers(except_inputs=["x"], except_outputs=["y"])


def test_recorded_census_of_full_binding_leaves_only_the_models_copies():
    obs = _observations("cpu_op_between", "census_bound_run",
                        [TensorUse("x", "input", "bind_ortvalue_input", "cuda", 512)],
                        [TensorUse("y", "output", "bind_ortvalue_output", "cuda", 256)], "run_with_iobinding")
    report = analyse_watch(obs)
    assert report.calls[0].on_device == ["x", "y"]
    assert [t.kind for t in report.transfers()] == [MEMCPY_NODE, MEMCPY_NODE]
    report.assert_no_host_transfers()


def test_recorded_census_of_stateful_plain_and_bound_runs():
    plain = analyse_watch(_observations(
        "stateful", "census_plain_run",
        [TensorUse("x", "input", "numpy", "cpu", 256), TensorUse("state", "input", "numpy", "cpu", 512)],
        [TensorUse("y", "output", "returned", "cpu", 64), TensorUse("state_out", "output", "returned", "cpu", 512)], "run"))
    call = plain.calls[0]
    assert sorted((t.kind, t.tensor, t.bytes) for t in call.transfers) == [
        (FEED, "state", 512), (FEED, "x", 256), (FETCH, "state_out", 512), (FETCH, "y", 64)]
    assert call.census["device_to_device"] == [1, 512]  # seen, but not host<->device
    bound = analyse_watch(_observations(
        "stateful", "census_bound_run",
        [TensorUse("x", "input", "bind_ortvalue_input", "cuda", 256),
         TensorUse("state", "input", "bind_ortvalue_input", "cuda", 512)],
        [TensorUse("y", "output", "bind_ortvalue_output", "cuda", 64),
         TensorUse("state_out", "output", "bind_ortvalue_output", "cuda", 512)], "run_with_iobinding"))
    assert bound.transfers() == []
    bound.assert_no_host_transfers()


def test_observations_round_trip_through_json():
    obs = _observations("cpu_op_between", "census_plain_run", [TensorUse("x", "input", "numpy", "cpu", 512)],
                        [TensorUse("y", "output", "returned", "cpu", 256)], "run")
    again = load_observations(json.loads(json.dumps(codec.to_builtins(obs))))
    assert isinstance(again.calls[0].records[0], TransferRecord)
    assert analyse_watch(again).to_dict() == analyse_watch(obs).to_dict()
    with pytest.raises(ValueError):
        load_observations({"format": "something else"})


# --- the pytest helper ------------------------------------------------------------------------------------------------------


@pytest.fixture
def cpu_session(tmp_path):
    path = tmp_path / "stateful.onnx"
    onnx.save(models.stateful(), str(path))
    return ort.InferenceSession(str(path), providers=CPU_ONLY)


watched = pytest_watch("cpu_session", predict_for=None)


def test_pytest_watch_fixture_audits_the_test(cpu_session, watched):
    cpu_session.run(None, {"x": _x((2, 32)), "state": np.zeros((2, 64), np.float32)})
    assert len(watched.report.calls) == 1  # the fixture asserts no host transfers at teardown


# --- replay of watches recorded on the GPU (tools/record_watch.py) ------------------------------------------------------------

# (model, scenario) -> (user transfers (kind, tensor), model transfers (kind, tensor)) the report must name.
EXPECTED = {
    ("cpu_op_between", "a_plain_run"): ([(FEED, "x"), (FETCH, "y")], [(MEMCPY_NODE, "h1"), (MEMCPY_NODE, "h2")]),
    ("cpu_op_between", "b_one_output_on_host"): ([(FETCH, "y")], [(MEMCPY_NODE, "h1"), (MEMCPY_NODE, "h2")]),
    ("cpu_op_between", "c_full_binding"): ([], [(MEMCPY_NODE, "h1"), (MEMCPY_NODE, "h2")]),
    ("cpu_op_between", "x_plain_session"): ([(FEED, "x"), (FETCH, "y")], [(MEMCPY_NODE, "h1"), (MEMCPY_NODE, "h2")]),
    ("cpu_op_between", "x_bind_cpu_input"): ([(FEED, "x")], [(MEMCPY_NODE, "h1"), (MEMCPY_NODE, "h2")]),
    ("stateful", "a_plain_run"): ([(FEED, "state"), (FEED, "x"), (FETCH, "state_out"), (FETCH, "y")], []),
    ("stateful", "b_one_output_on_host"): ([(FETCH, "y")], []),
    ("stateful", "c_full_binding"): ([], []),
    ("stateful", "x_plain_session"): ([(FEED, "state"), (FEED, "x"), (FETCH, "state_out"), (FETCH, "y")], []),
}


def _watch_fixtures() -> list[Path]:
    return sorted(WATCH_FIXTURES.glob("*.json.gz")) if WATCH_FIXTURES.is_dir() else []


def _load_fixture(path: Path) -> dict:
    with gzip.open(path, "rt", encoding="utf-8") as f:
        return json.load(f)


@pytest.fixture(scope="module")
def watch_fixtures() -> dict[tuple[str, str], dict]:
    paths = _watch_fixtures()
    if not paths:
        pytest.skip("no recorded GPU watch fixtures yet")
    return {(d["model"], d["scenario"]): d for d in map(_load_fixture, paths)}


@pytest.mark.parametrize("key", sorted(EXPECTED), ids=lambda k: f"{k[0]}.{k[1]}")
def test_replay_names_exactly_what_cupti_saw(watch_fixtures, key):
    if key not in watch_fixtures:
        pytest.skip(f"{key[0]}.{key[1]} was not recorded")
    fixture = watch_fixtures[key]
    assert fixture["ort_version"] and fixture["ground_truth"]["records"] is not None
    report = analyse_watch(load_observations(fixture["observations"]))
    assert [c.method for c in report.calls] == ([("run")] if "plain" in key[1] else ["run_with_iobinding"])
    truth = _multiset(TransferRecord(**r) for r in fixture["ground_truth"]["records"])
    named = collections.Counter((t.direction, t.bytes) for t in report.transfers())
    assert named == truth, f"the watch named {named}, CUPTI saw {truth}"
    assert all(t.basis == "census" for t in report.transfers())
    assert not any(c.discrepancies for c in report.calls)
    user, model = EXPECTED[key]
    assert sorted((t.kind, t.tensor) for t in report.host_transfers()) == sorted(user)
    assert sorted((t.kind, t.tensor) for t in report.model_transfers()) == sorted(model)
    expected_source = PLACEMENT_PREDICTED if key[1] == "x_plain_session" else PLACEMENT_SESSION
    assert report.placement_source == expected_source


@pytest.mark.parametrize("key", sorted(EXPECTED), ids=lambda k: f"{k[0]}.{k[1]}")
def test_replay_assertion_passes_only_for_the_full_binding(watch_fixtures, key):
    if key not in watch_fixtures:
        pytest.skip(f"{key[0]}.{key[1]} was not recorded")
    report = analyse_watch(load_observations(watch_fixtures[key]["observations"]))
    if key[1] == "c_full_binding":
        report.assert_no_host_transfers()
        return
    with pytest.raises(AssertionError) as failure:
        report.assert_no_host_transfers()
    for kind, tensor in EXPECTED[key][0]:
        assert f"{kind} " in str(failure.value) and f"'{tensor}'" in str(failure.value)
    assert "fix:" in str(failure.value)
    if key[1] == "b_one_output_on_host":
        report.assert_no_host_transfers(except_outputs=["y"])


# --- live on a GPU (pytest -m gpu) -----------------------------------------------------------------------------------------


def _record_watch_module():
    spec = importlib.util.spec_from_file_location("record_watch", ROOT / "tools" / "record_watch.py")
    module = importlib.util.module_from_spec(spec)
    # dataclasses look their module up in sys.modules while the class is created (seen on Python 3.12).
    sys.modules["record_watch"] = module
    spec.loader.exec_module(module)
    return module


@pytest.fixture(scope="module")
def gpu_ready(tmp_path_factory):
    if "CUDAExecutionProvider" not in ort.get_available_providers():
        pytest.skip("no CUDA EP in this onnxruntime")
    path = tmp_path_factory.mktemp("probe") / "m.onnx"
    onnx.save(models.stateful(), str(path))
    if not _cuda_active(path):
        pytest.skip("the CUDA EP does not load here")
    from ortcopy_doctor.collect.census import CuptiTracer

    try:
        with CuptiTracer():
            pass
    except Exception as exc:  # noqa: BLE001 - CuptiUnavailable, NotSupportedError without a driver
        from ortcopy_doctor.collect.census import _abandon

        _abandon(None)
        pytest.skip(f"CUPTI cannot trace here: {exc}")
    return _record_watch_module()


@pytest.mark.gpu
@pytest.mark.parametrize("key", sorted(EXPECTED), ids=lambda k: f"{k[0]}.{k[1]}")
def test_live_watch_matches_cupti(gpu_ready, tmp_path, key):
    scenario = next(s for s in gpu_ready.SCENARIOS if (s.model, s.name) == key)
    fixture = gpu_ready.run_scenario(scenario, tmp_path)
    report = analyse_watch(load_observations(fixture["observations"]))
    truth = _multiset(TransferRecord(**r) for r in fixture["ground_truth"]["records"])
    assert collections.Counter((t.direction, t.bytes) for t in report.transfers()) == truth
    assert sorted((t.kind, t.tensor) for t in report.host_transfers()) == sorted(EXPECTED[key][0])
    assert fixture["assert_passes"] == (key[1] == "c_full_binding")


# --- the documented test-suite example runs as printed ------------------------------------------------------------------


def test_docs_test_suite_example_runs(tmp_path):
    import os
    import re
    import subprocess
    import sys

    text = (ROOT / "docs" / "api.md").read_text(encoding="utf-8")
    section = text.split("### Test-suite use: a complete example", 1)[1]
    code = re.search(r"```python\n(.*?)```", section, re.S).group(1)
    model = tmp_path / "model.onnx"
    onnx.save(models.cpu_op_between(), str(model))
    assert 'MODEL = "model.onnx"' in code
    (tmp_path / "test_serving.py").write_text(code.replace('MODEL = "model.onnx"', f"MODEL = {str(model)!r}"))
    env = dict(os.environ, PYTHONPATH=os.pathsep.join([str(ROOT), os.environ.get("PYTHONPATH", "")]))
    result = subprocess.run([sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", "test_serving.py"],
                            cwd=tmp_path, env=env, capture_output=True, text=True, timeout=300)
    assert result.returncode == 0, result.stdout[-3000:] + result.stderr[-2000:]
    assert "2 passed" in result.stdout


def test_session_placement_maps_fused_and_memcpy_nodes():
    from ortcopy_doctor.watch.placement import _session_placement

    cuda = "CUDAExecutionProvider"
    # The graph ORT ran, as the H200 recorded it (Memcpy nodes included), with an assignment that lacks them.
    evidence = recorded("cpu_op_between")["report"]["evidence"]
    graph = onnx.helper.make_model(onnx.helper.make_graph(
        [onnx.helper.make_node(n["op_type"], n["inputs"], n["outputs"], name=n["name"]) for n in evidence["nodes"]],
        "runtime", [onnx.helper.make_tensor_value_info("x", onnx.TensorProto.FLOAT, ["batch", 64])],
        [onnx.helper.make_tensor_value_info("y", onnx.TensorProto.FLOAT, ["batch", 32])]),
        opset_imports=[onnx.helper.make_opsetid("", 17)])
    assignment = {"matmul1": cuda, "celu": "CPUExecutionProvider", "matmul2": cuda}
    placement = _session_placement(None, None, graph, assignment, cuda, "1.31.1")
    assert placement.source == PLACEMENT_SESSION
    assert list(placement.inputs_on_device) == ["x"] and list(placement.outputs_on_device) == ["y"]
    assert [(s.node, s.direction, s.tensor) for s in placement.model_sites] == [
        ("Memcpy_token_0", "device_to_host", "h1"), ("Memcpy", "host_to_device", "h2")]
    # On the model file's graph: a fused node's name maps its original node; what was fused away is predicted.
    assignment = {"input_projection": cuda, "state_projection/MatMulAddFusion": cuda, "tanh": cuda, "readout": cuda}
    placement = _session_placement(None, models.stateful(), None, assignment, cuda, "1.31.1")
    assert sorted(placement.inputs_on_device) == ["state", "x"]
    assert sorted(placement.outputs_on_device) == ["state_out", "y"]
    assert "1 node(s) not in the assignment" in placement.detail


def test_session_placement_keeps_each_unnamed_node_on_its_own_provider():
    """Two unnamed nodes on two providers, in the form the H200 reported ml_tree_matmul's assignment: each looked
    up by op type and rank (collect/assignment.py), not both as "" (which put the CPU Relu on CUDA, so the input
    it reads on the host was listed as read on the device)."""
    from ortcopy_doctor.watch.placement import _session_placement

    cuda, cpu = "CUDAExecutionProvider", "CPUExecutionProvider"
    graph = onnx.helper.make_model(onnx.helper.make_graph(
        [onnx.helper.make_node("Relu", ["X"], ["a"]), onnx.helper.make_node("Neg", ["a"], ["Y"])], "g",
        [onnx.helper.make_tensor_value_info("X", onnx.TensorProto.FLOAT, [2])],
        [onnx.helper.make_tensor_value_info("Y", onnx.TensorProto.FLOAT, [2])]),
        opset_imports=[onnx.helper.make_opsetid("", 17)])
    assignment = {"": cuda, ("", "Relu", 0): cpu, ("", "Neg", 0): cuda}
    placement = _session_placement(None, None, graph, assignment, cuda, "1.31.1")
    assert (list(placement.inputs_on_host), list(placement.inputs_on_device)) == (["X"], [])
    assert list(placement.outputs_on_device) == ["Y"]


def test_placement_names_unnamed_nodes_as_the_profile_does():
    """An unnamed Relu -> Cosh -> Relu (tests/fixtures/rnn_names, unnamed_chain): the predicted placement's causes
    name the nodes as ORT's profile does on the H200 (Relu_0, Relu_2), not ''."""
    from ortcopy_doctor.watch.placement import predicted_placement

    sys.path.insert(0, str(REPO / "tools"))
    import record_rnn_names

    placement = predicted_placement(record_rnn_names.unnamed_chain(), "CUDAExecutionProvider", "1.31.1")
    assert (placement.inputs_on_device, placement.outputs_on_device) == ({"x": "Relu 'Relu_0' (CUDA)"},
                                                                         {"y": "Relu 'Relu_2' (CUDA)"})


def test_keyword_calls_are_recorded(model_path):
    session = ort.InferenceSession(str(model_path("cpu_op_between")), providers=CPU_ONLY)
    x = _x()
    with watch(session, predict_for=None) as w:
        session.run(output_names=None, input_feed={"x": x})
        session.run_with_ort_values(output_names=["y"], input_dict_ort_values={"x": ort.OrtValue.ortvalue_from_numpy(x)})
        binding = session.io_binding()
        binding.bind_cpu_input(name="x", arr_on_cpu=x)
        binding.bind_output(name="y", device_type="cpu")
        session.run_with_iobinding(iobinding=binding)
    assert [(c.method, [t.name for t in c.inputs], [t.name for t in c.outputs]) for c in w.report.calls] == [
        ("run", ["x"], ["y"]), ("run_with_ort_values", ["x"], ["y"]), ("run_with_iobinding", ["x"], ["y"])]


def test_profile_of_each_call(model_path):
    session = instrumented_session(model_path("cpu_op_between"), providers=CPU_ONLY)
    session.run(None, {"x": _x()})  # before the watch: not one of its calls
    with watch(session, profile=True) as w:
        session.run(None, {"x": _x()})
        session.run(None, {"x": _x()})
    assert [c.profile is not None for c in w.calls] == [True, True]
    assert w.observations.profile_note == ""
    with watch(session, profile=True) as again:  # the first watch ended profiling
        session.run(None, {"x": _x()})
    assert "ended" in again.observations.profile_note and again.calls[0].profile is None
