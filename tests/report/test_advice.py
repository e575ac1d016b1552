"""Binding advice: state pairing, generated code flavors, CUDA-graph readiness, promised transfers, the A/B verdicts.

CPU-runnable tests use the GPU evidence recorded on the H200 (tests/fixtures/gpu) and synthetic measurements.
The replay tests at the end read tests/fixtures/binding_ab/*.json.gz, written on the GPU by
tools/record_binding_ab.py (format described there; recorded again on the H200 for issue 36, with the generated
code as it is now and every code block run next to plain run() in check), and skip while none are recorded.
"""

from __future__ import annotations

import copy
import msgspec
import gzip
import importlib.util
import json
import re
from pathlib import Path

import numpy as np
import pytest

from fixture_loader import recorded, recorded_report
from ortcopy_doctor.model import codec
from ortcopy_doctor.render.html import render_html
from ortcopy_doctor.render.text import render_text
from ortcopy_doctor.report.advice import binding_view
from ortcopy_doctor.report.variants import bind_transfers, compare, cuda_graph_blockers, is_all_cpu, promised_transfers
from ortcopy_doctor.analysis.copies import find_copies
from ortcopy_doctor.analysis.binding import (
    DEVICE,
    BindingEntry,
    FLAVORS,
    find_state_pairs,
    make_plan,
    render_code,
    render_cuda_graph_code,
)
from ortcopy_doctor.model.evidence import BindingMeasurement, PhaseTiming, PinnedTiming, VariantTiming
from ortcopy_doctor.report.core import analyse
from transfer_checks import census_totals
from render_helpers import REPO, TESTS, program

GPU_MODELS = ["conv_net", "cpu_op_between", "data_dependent_shape", "sequence_output", "map_output", "if_on_device",
              "cpu_only_inputs", "stateful", "shape_subgraph", "demo"]
BINDING_FIXTURES = TESTS / "fixtures" / "binding_ab"


# --- state carried between runs ----------------------------------------------------------------------------------


def _candidates(inputs, outputs, **kwargs):
    return [(c.input, c.output, str(c.basis)) for c in find_state_pairs(
        [(n, "float32", s) for n, s in inputs], [(n, "float32", s) for n, s in outputs], **kwargs)]


def _pairs(inputs, outputs, **kwargs):
    """The pairs the code carries: every basis but a guess."""
    return [(i, o) for i, o, basis in _candidates(inputs, outputs, **kwargs) if basis != "guess"]


@pytest.mark.parametrize("inp, out", [
    ("state", "state_out"),
    ("state", "stateN"),  # Silero VAD
    ("state_in", "state_out"),
    ("state1", "state1_out"),
    ("past.0.key", "present.0.key"),
    ("past_key_values.0.value", "present.0.value"),
    ("cache_in", "cache_out"),
    ("memory", "new_memory"),
])
def test_state_names_of_exporters_pair_by_convention(inp, out):
    assert _candidates([(inp, ["b", 4])], [(out, ["b", 4]), ("logits", ["b", 4])]) == [(inp, out, "convention")]


@pytest.mark.parametrize("inp, out", [
    ("image_in", "image_out"),  # a one-node Sigmoid: pairing it made call 2 return sigmoid(sigmoid(x))
    ("in_0", "out_0"),
    ("foo_in", "foo_out"),
    ("hidden_in", "hidden_out"),  # "hidden", "h", "c" pair only through a recurrent node
    ("h_0", "h_n"),
    ("c0", "cn"),
    ("hidden_states", "hidden_states_out"),  # a transformer block's activations
])
def test_names_alike_without_a_state_word_are_only_a_guess(inp, out):
    assert _candidates([(inp, ["b", 4])], [(out, ["b", 4])]) == [(inp, out, "guess")]
    assert _pairs([(inp, ["b", 4])], [(out, ["b", 4])]) == []


def test_a_guess_needs_the_same_shape_a_convention_agreeing_dims():
    assert _candidates([("image_in", [1, 4])], [("image_out", ["n", 4])]) == []
    # an exporter names the state output's dims anew (Silero VAD: stateN is [AddstateN_dim_0, batch, AddstateN_dim_2])
    assert _pairs([("state", [2, "batch", 128])], [("stateN", ["d0", "batch", "d2"])]) == [("state", "stateN")]
    assert _pairs([("state", [2, "batch", 128])], [("stateN", [2, "batch", 64])]) == []


def test_recurrent_node_links_pair_whatever_the_names():
    recurrent = {("h", "hn"), ("c", "cn")}
    assert _candidates([("h", [1, 1, 128]), ("c", [1, 1, 128])], [("hn", [1, "d", 128]), ("cn", [1, "d", 128])],
                       recurrent=recurrent) == [("h", "hn", "recurrent_node"), ("c", "cn", "recurrent_node")]


def test_given_state_pairs_as_the_user_says():
    assert _candidates([("image_in", [2, 4])], [("image_out", [2, 4])], given={"image_in": "image_out"}) == [
        ("image_in", "image_out", "given")]
    assert _candidates([("a", [2, 4])], [("z", [2, 4])], given={"a": "z"}) == [("a", "z", "given")]


def test_state_pairing_needs_agreeing_shape_and_equal_dtype():
    assert _pairs([("state", ["b", 64])], [("state_out", ["b", 32])]) == []
    assert _pairs([("state", ["b", 64])], [("state_out", ["b", 64, 1])]) == []
    assert find_state_pairs([("state", "float32", [2, 64])], [("state_out", "float16", [2, 64])]) == []


def test_unrelated_names_do_not_pair():
    assert _candidates([("x", [2, 4])], [("y", [2, 4])]) == []
    assert _candidates([("image", [2, 4])], [("image_features", [2, 4])]) == []
    # Same name on both sides is a pass-through, not state.
    assert _candidates([("state", [2, 4])], [("state", [2, 4])]) == []


def test_each_output_pairs_with_one_input():
    pairs = _pairs([("past.0.key", ["b", 8]), ("past.0.value", ["b", 8])],
                   [("present.0.key", ["b", 8]), ("present.0.value", ["b", 8])])
    assert pairs == [("past.0.key", "present.0.key"), ("past.0.value", "present.0.value")]


def test_recorded_stateful_model_keeps_state_on_the_device_and_swaps(tmp_path):
    report = recorded_report("stateful", tmp_path)
    plan = report.binding
    assert plan.state_pairs == [("state", "state_out")]
    state, state_out = plan.entry("state", "input"), plan.entry("state_out", "output")
    assert (state.place, state_out.place, state_out.preallocate) == (DEVICE, DEVICE, True)
    assert "swapped" in state.reason and "swapped" in state_out.reason
    code = plan.code
    compile(code, "<stateful>", "exec")
    assert "    state_on_device, state_out_on_device = state_out_on_device, state_on_device" in code
    assert "    binding.bind_ortvalue_input('state', state_on_device)" in code
    assert "    binding.bind_ortvalue_output('state_out', state_out_on_device)" in code
    # The other flavors swap too.
    for flavor in ("torch", "cupy"):
        assert "state, state_out = state_out, state" in render_code(report.evidence, plan, flavor)


def test_models_without_state_get_no_pairs(tmp_path):
    for name in GPU_MODELS:
        if name != "stateful":
            assert recorded_report(name, tmp_path).binding.state_pairs == [], name


def test_state_pair_is_null_in_the_json_when_absent(tmp_path):
    """Every field is written, at its default too (the codec writes each struct whole): a reader finds each key."""
    report = recorded_report("conv_net", tmp_path)
    assert report.evidence.binding_measurement is not None  # recorded with the measurement on
    data = json.loads(report.to_json())
    assert [e["state_pair"] for e in data["binding"]["entries"]] == [None] * len(data["binding"]["entries"])
    assert data["evidence"]["binding_measurement"]["status"] == "measured"
    data = json.loads(analyse(msgspec.structs.replace(report.evidence, binding_measurement=None)).to_json())
    assert data["evidence"]["binding_measurement"] is None
    data = json.loads(recorded_report("stateful", tmp_path).to_json())
    assert {e["name"]: e.get("state_pair") for e in data["binding"]["entries"]} == {
        "x": None, "state": "state_out", "y": None, "state_out": "state"}


# --- generated code --------------------------------------------------------------------------------------------


@pytest.mark.parametrize("name", GPU_MODELS)
@pytest.mark.parametrize("flavor", FLAVORS)
@pytest.mark.parametrize("dlpack", [True, False])
def test_every_code_flavor_compiles(tmp_path, name, flavor, dlpack):
    report = recorded_report(name, tmp_path)
    code = render_code(report.evidence, report.binding, flavor, dlpack=dlpack)
    compile(code, f"<{name} {flavor}>", "exec")
    assert "def infer():" in code
    # Each input's binding says why, as a comment: after it, or above it where the two do not fit in 88 characters.
    lines = code.splitlines()
    for k, line in enumerate(lines):
        if line.startswith("binding.bind_") and "input" in line.split("(")[0]:
            assert "  # " in line or lines[k - 1].startswith("# "), line


@pytest.mark.parametrize("name", GPU_MODELS)
def test_cuda_graph_code_compiles(tmp_path, name):
    report = recorded_report(name, tmp_path)
    code = render_cuda_graph_code(report.evidence, report.binding)
    compile(code, f"<{name} graph>", "exec")
    assert "'enable_cuda_graph': '1'" in code


def test_torch_flavor_binds_through_dlpack_or_data_ptr(tmp_path):
    report = recorded_report("demo", tmp_path)
    with_dlpack = render_code(report.evidence, report.binding, "torch", dlpack=True)
    assert "binding.bind_ortvalue_input('features', ort.OrtValue.from_dlpack(features))" in with_dlpack
    raw = render_code(report.evidence, report.binding, "torch", dlpack=False)
    assert ("binding.bind_input(\n"
            "    'features', 'cuda', 0, np.float32, tuple(features.shape), features.data_ptr()\n"
            ")" in raw)
    # Pre-allocated output written in place; the data-dependent one viewed through DLPack.
    assert "scores = torch.empty((BATCH, 128), dtype=torch.float32, device='cuda:0')" in raw
    assert "'active_indices': torch.from_dlpack(values[1])," in raw
    cupy = render_code(report.evidence, report.binding, "cupy")
    assert ("binding.bind_input(\n"
            "    'features', 'cuda', 0, np.float32, tuple(features.shape), features.data.ptr\n"
            ")" in cupy)
    assert "'active_indices': cp.from_dlpack(values[1])," in cupy


def test_torch_flavor_follows_the_onnxruntime_of_the_evidence_not_the_installed_one(tmp_path):
    """conv_net was recorded with onnxruntime-gpu 1.31.1, which has OrtValue.from_dlpack: its torch code uses it,
    whichever onnxruntime (or none) renders it (tests/project/test_layers.py renders it with onnxruntime blocked)."""
    report = recorded_report("conv_net", tmp_path)
    assert report.evidence.environment.ort_version == "1.31.1"
    code = render_code(report.evidence, report.binding, "torch")
    assert "ort.OrtValue.from_dlpack(image)" in code


def test_host_inputs_stay_numpy_in_tensor_flavors(tmp_path):
    report = recorded_report("cpu_only_inputs", tmp_path)
    code = render_code(report.evidence, report.binding, "torch")
    assert "binding.bind_cpu_input('target_shape', target_shape)" in code
    assert "binding.bind_cpu_input('bits', bits)" in code


def test_unknown_flavor_is_refused(tmp_path):
    report = recorded_report("conv_net", tmp_path)
    with pytest.raises(ValueError, match="unknown code flavor"):
        render_code(report.evidence, report.binding, "jax")


def test_names_with_escape_sequences_and_bidi_overrides_print_as_escapes_in_every_flavor(tmp_path):
    """A comment holding ESC or U+202E ("Trojan Source") once reached the printed code as it was."""
    from render_helpers import fixture_report_dict, renamed, write_report_json

    from ortcopy_doctor.report.core import load_report

    hostile = "mm\x1b[2J\u202eevil"
    evidence = renamed(fixture_report_dict("demo")["evidence"], {"encoder_matmul": hostile})
    report = load_report(write_report_json(evidence, tmp_path / "hostile.json"))
    for code in [render_code(report.evidence, report.binding, f) for f in FLAVORS] + [
            render_cuda_graph_code(report.evidence, report.binding)]:
        assert all(line.isprintable() for line in code.splitlines())
    assert "MatMul 'mm\\u001b[2J\\u202eevil'" in render_code(report.evidence, report.binding)


def test_names_with_newlines_inject_no_code_in_any_flavor(tmp_path):
    from render_helpers import fixture_report_dict, renamed, write_report_json

    from ortcopy_doctor.report.core import load_report

    hostile = 'mm\nimport os; os.system("echo injected")  #'
    evidence = renamed(fixture_report_dict("demo")["evidence"], {"encoder_matmul": hostile, "features": hostile + "x"})
    report = load_report(write_report_json(evidence, tmp_path / "hostile.json"))
    for code in [render_code(report.evidence, report.binding, f) for f in FLAVORS] + [
            render_cuda_graph_code(report.evidence, report.binding)]:
        compile(code, "<hostile>", "exec")
        assert not any(line.lstrip().startswith("import os") for line in code.splitlines())



KV_LAYERS = 24
LONG_OUTPUT = "model/decoder/final_projection/logits_out"  # a layer path: 41 characters


def _kv_cache_report(tmp_path):
    """A GPT-2-style KV cache of 24 layers (``past_key_values.N.key``/``value`` -> ``present.N.key``/``value``,
    each the past plus ``x``) and an output named by a 41-character layer path, checked on the CPU and made to look
    like a CUDA run (every node on CUDA, as a CUDA check of it would place them)."""
    import onnx
    from onnx import TensorProto, helper

    from ortcopy_doctor import check

    def value(name):
        return helper.make_tensor_value_info(name, TensorProto.FLOAT, [2, 3])

    nodes = [helper.make_node("Relu", ["x"], ["logits"]), helper.make_node("Neg", ["x"], [LONG_OUTPUT])]
    inputs, outputs = [value("x")], [value("logits"), value(LONG_OUTPUT)]
    for layer in range(KV_LAYERS):
        for part in ("key", "value"):
            past, present = f"past_key_values.{layer}.{part}", f"present.{layer}.{part}"
            nodes.append(helper.make_node("Add", [past, "x"], [present]))
            inputs.append(value(past))
            outputs.append(value(present))
    model = helper.make_model(helper.make_graph(nodes, "kv", inputs, outputs),
                              opset_imports=[helper.make_opsetid("", 17)])
    model.ir_version = 8
    path = tmp_path / "kv.onnx"
    onnx.save(model, str(path))
    report = check(path, timed_runs=1)
    cuda = ["CUDAExecutionProvider", "CPUExecutionProvider"]
    evidence = msgspec.structs.replace(
        report.evidence, session=msgspec.structs.replace(report.evidence.session, active_providers=cuda),
        nodes=[msgspec.structs.replace(n, provider=cuda[0]) for n in report.evidence.nodes])
    return evidence, path


def test_many_state_pairs_and_long_names_lay_out_within_88_characters(tmp_path):
    """The lines that hold no ONNX name fit in 88 characters: with 24 layers of KV cache the one ``global``
    statement ran to thousands of characters and each swap to ~120; an output named by a 41-character layer path
    made a 95-character ``<variable>_on_device = ort.OrtValue.ortvalue_from_shape_and_type(``."""
    from ortcopy_doctor.analysis.binding import make_plan

    evidence, _ = _kv_cache_report(tmp_path)
    plan = make_plan(evidence)
    assert len(plan.state_pairs) == 2 * KV_LAYERS
    codes = {flavor: render_code(evidence, plan, flavor) for flavor in FLAVORS}
    codes["cuda_graph"] = render_cuda_graph_code(evidence, plan)
    for flavor, code in codes.items():
        compile(code, flavor, "exec")
        long = [line for line in code.splitlines() if len(line) > 88 and not line.startswith("MODEL = ")]
        assert long == [], (flavor, long[:3])  # (the model's path, tmp_path here, is a string that stays whole)
    assert "    global past_key_values_0_key_on_device, present_0_key_on_device\n" in codes["onnxruntime"]
    assert "    global past_key_values_0_key, present_0_key\n" in codes["torch"]


def test_many_state_pairs_swap_as_run_does(tmp_path):
    """The onnxruntime flavor of the 24-layer KV cache (several ``global`` statements, swaps broken over lines), run
    on CPU OrtValues for four calls: each call's outputs are plain run()'s, the state fed back each time."""
    import onnxruntime as ort

    from ortcopy_doctor.analysis.binding import code_names, make_plan
    from ortcopy_doctor.collect.code_check import quiet as _quiet, split_code

    evidence, path = _kv_cache_report(tmp_path)
    plan = msgspec.structs.replace(make_plan(evidence), device_type="cpu")
    setup, rest = split_code(render_code(evidence, plan))
    namespace: dict = {"__name__": "kv_code"}
    session = ort.InferenceSession(str(path), providers=["CPUExecutionProvider"])
    names = [o.name for o in session.get_outputs()]
    with _quiet():
        exec(compile(setup, "<kv setup>", "exec"), namespace)  # noqa: S102 - generated code under test
        # on the CPU an OrtValue made from an array shares its buffer, which the swapped state writes into
        feeds = {name: np.array(namespace[var]) for name, var in code_names(plan).inputs.items()}
        exec(compile(rest, "<kv infer>", "exec"), namespace)  # noqa: S102 - generated code under test (1st call)
    for call in range(4):
        got = namespace["outputs"] if call == 0 else namespace["infer"]()  # a state is read before the next call
        expected = dict(zip(names, session.run(None, feeds)))
        assert len(got) == len(names)
        for name, value in zip(names, got):
            assert np.array_equal(value.numpy(), expected[name]), (call, name)
        feeds.update({i: expected[o] for i, o in plan.state_pairs})


# --- CUDA-graph readiness --------------------------------------------------------------------------------------


def _blockers(tmp_path, name):
    report = recorded_report(name, tmp_path)
    return [(b.kind, b.subject) for b in cuda_graph_blockers(report.evidence, report.binding, report.copies)]


def test_all_cuda_models_are_graph_ready(tmp_path):
    assert _blockers(tmp_path, "conv_net") == []
    assert _blockers(tmp_path, "stateful") == []


def test_demo_lists_every_blocker_at_once(tmp_path):
    assert _blockers(tmp_path, "demo") == [
        ("memcpy_node", "Memcpy_token_0"),
        ("memcpy_node", "Memcpy"),
        ("cpu_node", "celu_activation"),
        ("in_kernel_transfer", "find_active"),
        ("data_dependent_shape", "active_indices"),
    ]


def test_readiness_blockers_of_the_recorded_models(tmp_path):
    assert _blockers(tmp_path, "cpu_op_between") == [("memcpy_node", "Memcpy_token_0"), ("memcpy_node", "Memcpy"),
                                                     ("cpu_node", "celu")]
    assert _blockers(tmp_path, "if_on_device") == [("memcpy_node", "Memcpy"), ("control_flow", "branch")]
    assert _blockers(tmp_path, "data_dependent_shape") == [("in_kernel_transfer", "nonzero"),
                                                           ("data_dependent_shape", "indices")]
    assert _blockers(tmp_path, "map_output") == [("memcpy_node", "Memcpy"), ("cpu_node", "zipmap"),
                                                 ("unbound_output", "labels")]
    assert _blockers(tmp_path, "sequence_output") == [("memcpy_node", "Memcpy"), ("cpu_node", "split_to_sequence"),
                                                      ("unbound_output", "parts")]
    # 'y' is [rows, cols]: its size comes from target_shape's values, known only at run time.
    assert _blockers(tmp_path, "cpu_only_inputs") == [
        ("cpu_node", "bitshift"), ("data_dependent_shape", "y"), ("unbound_input", "target_shape"),
        ("unbound_input", "bits"), ("unbound_input", "amount")]
    # ORT's CPU-preferred shape nodes block capture too (they run on CPU).
    kinds = {k for k, _ in _blockers(tmp_path, "shape_subgraph")}
    assert kinds == {"cpu_node", "data_dependent_shape"}  # y is [doubled_batch, 16]


def test_no_device_is_one_blocker(tmp_path):
    report = recorded_report("conv_net", tmp_path)
    evidence = msgspec.structs.replace(report.evidence, session=msgspec.structs.replace(
        report.evidence.session, active_providers=["CPUExecutionProvider"]))
    plan = make_plan(evidence)
    assert [b.kind for b in cuda_graph_blockers(evidence, plan, report.copies)] == ["no_device"]


# --- promised transfers against the recorded CUPTI census -------------------------------------------------------


@pytest.mark.parametrize("name", GPU_MODELS)
def test_plain_promise_is_the_census_of_plain_run(tmp_path, name):
    report = recorded_report(name, tmp_path)
    promised = promised_transfers(report.evidence, report.binding, report.copies, "plain")
    assert promised == census_totals(recorded(name)["census_plain_run"])


@pytest.mark.parametrize("name", [m for m in GPU_MODELS if m not in ("map_output", "stateful")])
def test_plan_promise_is_the_census_of_the_bound_run(tmp_path, name):
    # stateful: recorded before the state swap existed; its bound census is checked by the binding replay.
    report = recorded_report(name, tmp_path)
    promised = promised_transfers(report.evidence, report.binding, report.copies, "plan")
    assert promised == census_totals(recorded(name)["census_bound_run"])


def test_everything_bound_adds_copies_where_tensors_live_on_host(tmp_path):
    report = recorded_report("cpu_only_inputs", tmp_path)
    all_device = promised_transfers(report.evidence, report.binding, report.copies, "all_device")
    plan = promised_transfers(report.evidence, report.binding, report.copies, "plan")
    assert plan == {}
    assert bind_transfers(report.evidence, report.binding, "plan") == {}
    # 'shifted' is produced on the host: bound on CUDA, ORT copies it up in every run. target_shape (16 B), bits and
    # amount (32 B each) are read on the host: bound on CUDA, ORT copies them back when they are bound (CUPTI saw
    # no device→host copy in the run itself, tests/fixtures/binding), and the everything-bound code binds them again
    # before each call, so that new data written into their device buffers reaches the CPU nodes: in every call.
    assert all_device == {"host_to_device": (1, 32), "device_to_host": (3, 80)}
    assert bind_transfers(report.evidence, report.binding, "all_device") == {"device_to_host": (3, 80)}


def test_state_rebound_in_every_call_pays_its_bind_copy_per_call(tmp_path):
    # A state input that a CPU node also reads: the swap rebinds it inside infer(), so its copy back to host
    # recurs in every call of the plan (synthetic: the recorded stateful model reads its state on the device).
    report = recorded_report("stateful", tmp_path)
    evidence = copy.deepcopy(report.evidence)
    gemm = next(n for n in evidence.nodes if "state" in n.inputs)
    reader = msgspec.structs.replace(gemm, name="state_reader", op_type="Shape", provider="CPUExecutionProvider",
                                 inputs=["state"], outputs=["state_shape"])
    evidence.nodes.append(reader)
    plan = make_plan(evidence)
    assert plan.state_pairs == [("state", "state_out")]
    nbytes = next(f.bytes for f in evidence.feeds if f.name == "state")
    assert bind_transfers(evidence, plan, "plan") == {"device_to_host": (1, nbytes)}
    assert promised_transfers(evidence, plan, find_copies(evidence), "plan") == {"device_to_host": (1, nbytes)}
    assert promised_transfers(evidence, plan, find_copies(evidence), "cuda_graph") == {}


def test_cuda_graph_promises_nothing_where_ready(tmp_path):
    report = recorded_report("conv_net", tmp_path)
    assert promised_transfers(report.evidence, report.binding, report.copies, "cuda_graph") == {}


# --- verdicts on synthetic measurements ------------------------------------------------------------------------


_SEEDS = {"plain": 1, "plan": 2, "all_device": 3, "cuda_graph": 4}


def _samples(variant, median, iqr, n=51):
    """n samples whose median is exactly ``median`` and whose quartiles are median ± iqr, in a seeded order."""
    from statistics import NormalDist

    sigma = iqr / NormalDist().inv_cdf(0.75)
    values = [median + sigma * NormalDist().inv_cdf((i + 0.5) / n) for i in range(n)]
    np.random.default_rng(_SEEDS[variant]).shuffle(values)
    return values


def _v(variant, median, iqr=0.01, ran=True, h2d=0, d2h=0, spread=0.02, skipped="", samples=True):
    return VariantTiming(variant=variant, label=variant, ran=ran, skipped_reason=skipped, runs=51 if samples else 50,
                         median_ms=median if ran else None,
                         p10_ms=median - spread if ran else None, p25_ms=median - iqr if ran else None,
                         p75_ms=median + iqr if ran else None, p90_ms=median + spread if ran else None,
                         h2d_count=h2d, h2d_bytes=100 * h2d, d2h_count=d2h, d2h_bytes=100 * d2h, transfer_source="census",
                         samples_ms=_samples(variant, median, iqr) if ran and samples else None)


def test_small_differences_print_in_microseconds():
    from ortcopy_doctor.report.variants import fmt_delta

    assert fmt_delta(0.0008) == "+0.8 µs"
    assert fmt_delta(-0.1, signed=False) == "0.100 ms"


@pytest.mark.parametrize("samples", [True, False], ids=["samples", "summary"])
def test_compare_uses_the_interval_of_the_median_ratio(samples):
    assert compare(_v("plain", 1.0, samples=samples), _v("plan", 0.8, samples=samples)).verdict == "faster"
    assert compare(_v("plain", 1.0, samples=samples), _v("plan", 1.3, samples=samples)).verdict == "slower"
    assert compare(_v("plain", 1.0, samples=samples), _v("plan", 1.001, samples=samples)).verdict == "within_noise"
    assert compare(_v("plain", 1.0), _v("plan", 0.0, ran=False, skipped="x")).verdict == "not_compared"
    assert compare(None, _v("plan", 1.0)).verdict == "not_compared"


def test_overlapping_quartiles_can_still_be_measurably_faster():
    # The old rule (IQRs overlap: within noise) missed real gains; the interval of the median ratio does not.
    plain, plan = _v("plain", 1.0, iqr=0.1), _v("plan", 0.9, iqr=0.1)
    assert plan.p75_ms > plain.p25_ms  # the quartile ranges overlap
    result = compare(plain, plan)
    assert result.verdict == "faster"
    assert result.ci.low > 1.0 and "x faster (95% CI " in result.text


def test_compare_text_gives_the_speed_up_with_its_interval():
    result = compare(_v("plain", 0.30), _v("plan", 0.20))
    ci = result.ci
    assert result.text == f"0.200 ms vs 0.300 ms (-0.100 ms; 1.50x faster (95% CI {ci.low:.2f}–{ci.high:.2f}))"
    approx = compare(_v("plain", 0.30, samples=False), _v("plan", 0.20, samples=False))
    assert approx.ci.method == "summary" and "approximate: no raw samples recorded" in approx.text


def _with_measurement(report, variants, **extra):
    evidence = msgspec.structs.replace(copy.deepcopy(report.evidence), binding_measurement=BindingMeasurement(
        status="measured", runs=50, warmup_runs=3, transfer_source="census", variants=variants, **extra))
    return analyse(evidence)


def test_faster_plan_is_reported_with_numbers(tmp_path):
    report = _with_measurement(recorded_report("conv_net", tmp_path), [
        _v("plain", 0.30, h2d=1, d2h=1), _v("plan", 0.20), _v("all_device", 0.20), _v("cuda_graph", 0.12)],
        phases=[PhaseTiming("upload", "numpy → device", 50, 0.05, 0.04, 0.06, 24576)],
        pinned=PinnedTiming("torch.empty(..., pin_memory=True)", 24576, 50, 0.040, 0.015, 0.004))
    view = binding_view(report)
    assert view.one_line == ("Binding measured (50 runs, median): plain 0.300 ms, plan 0.200 ms, all on device 0.200 ms, "
                             "CUDA graph 0.120 ms; recommended: CUDA graph, 2.50x faster.")
    assert view.conclusions[0].startswith("The plan is faster than plain run(): 0.200 ms vs 0.300 ms")
    assert view.warnings == []
    assert view.graph_ready and "measured with enable_cuda_graph=1" in view.graph_text
    assert view.graph_text.endswith("; recommended (its code under Binding code).")
    assert view.graph_code == ""  # shown once, as the report's first code block
    assert view.recommended == "cuda_graph"
    assert view.recommended_code == render_cuda_graph_code(report.evidence, report.binding)
    assert view.phase_rows[-1][0] == "whole call, CUDA graph (recommended)"
    assert "2.7×" in view.pinned
    assert [row["h2d"] for row in view.ab_rows] == ["1 (100 B)", "0", "0", "0"]


def test_slower_plan_is_said_not_hidden(tmp_path):
    report = _with_measurement(recorded_report("conv_net", tmp_path), [_v("plain", 0.20), _v("plan", 0.30)])
    view = binding_view(report)
    assert "plan SLOWER by 0.100 ms beyond noise" in view.one_line
    assert "keep plain run(): no variant measurably faster" in view.one_line
    assert "slower than plain run() beyond the noise" in view.conclusions[0]
    assert "Keep plain run()" in view.conclusions[0]
    assert view.recommended == "plain" and view.recommended_code == ""


def test_overlapping_spread_warns_that_it_cannot_conclude(tmp_path):
    report = _with_measurement(recorded_report("conv_net", tmp_path),
                               [_v("plain", 0.200, iqr=0.05), _v("plan", 0.210, iqr=0.05)])
    view = binding_view(report)
    assert view.one_line.endswith("; keep plain run(): no variant measurably faster.")
    assert any(w.startswith("Within noise after 50 runs (the 95% interval of the speed-up includes 1") for w in view.warnings)
    assert view.recommendation.startswith("Recommended: keep plain run() (no change): no variant is measurably faster")


def test_noisy_variant_is_flagged(tmp_path):
    report = _with_measurement(recorded_report("conv_net", tmp_path),
                               [_v("plain", 0.2, spread=0.3), _v("plan", 0.1)])
    assert any("timings are noisy" in w for w in binding_view(report).warnings)


def _all_cpu(report):
    evidence = copy.deepcopy(report.evidence)
    return msgspec.structs.replace(evidence, nodes=[msgspec.structs.replace(node, provider="CPUExecutionProvider")
                                                for node in evidence.nodes])


def test_all_cpu_model_is_advised_not_to_bind_with_the_measured_reason(tmp_path):
    base = recorded_report("cpu_only_inputs", tmp_path)
    evidence = _all_cpu(base)
    assert is_all_cpu(evidence)
    evidence = msgspec.structs.replace(evidence, binding_measurement=BindingMeasurement(status="measured", runs=50, variants=[
        _v("plain", 0.050), _v("plan", 0.052), _v("all_device", 0.120, h2d=1, d2h=3),
        _v("cuda_graph", 0, ran=False, skipped="blockers")]))
    view = binding_view(analyse(evidence))
    assert view.all_cpu
    assert view.all_cpu_advice.startswith("Do not bind on CUDA: every compute node runs on CPU (BitShift, Reshape, Relu)")
    assert "Measured: everything bound on CUDA took 0.120 ms vs 0.050 ms (+0.070 ms; 2.40x slower (95% CI" in view.all_cpu_advice
    assert "with 4 more host↔device transfer(s) per run" in view.all_cpu_advice
    # The plan (every tensor on the host here) is not measurably faster: plain run() stays.
    assert view.one_line.endswith("; do not bind on CUDA (all nodes on CPU).")
    assert view.all_cpu_advice.endswith("Use plain run() (or a CPU-only session).")
    assert not view.graph_ready


def test_all_cpu_advice_without_measurement(tmp_path):
    evidence = _all_cpu(recorded_report("conv_net", tmp_path))
    evidence = msgspec.structs.replace(evidence, binding_measurement=BindingMeasurement(
        status="off", reason="turned off (--no-measure-binding)"))
    view = binding_view(analyse(evidence))
    assert view.one_line == "Binding not measured: turned off (--no-measure-binding)"
    assert view.all_cpu_advice.startswith("Do not bind on the device")


def test_gpu_model_is_not_all_cpu(tmp_path):
    assert not is_all_cpu(recorded_report("demo", tmp_path).evidence)


def test_copy_guidance_names_what_remains(tmp_path):
    report = recorded_report("demo", tmp_path)
    report = msgspec.structs.replace(report, evidence=msgspec.structs.replace(
        report.evidence, binding_measurement=BindingMeasurement(status="off", reason="off")))
    view = binding_view(report)
    text = "\n".join(view.copy_guidance)
    assert "Binding removes the per-run round trips: 1 feed and 2 fetch copies" in text
    assert "cannot remove the 2 Memcpy node(s) (hidden, activated)" in text
    assert "in-kernel transfer(s) (find_active)" in text
    assert "'scores' (16.4 KB): on the device after the run" in text
    assert "copy_outputs_to_cpu()" in text
    stateful = recorded_report("stateful", tmp_path)
    stateful = msgspec.structs.replace(stateful, evidence=msgspec.structs.replace(
        stateful.evidence, binding_measurement=BindingMeasurement(status="off", reason="off")))
    assert any(line.startswith("'state_out': state for the next run's 'state'") for line in
               binding_view(stateful).copy_guidance)


def test_no_view_without_a_measurement_record(tmp_path):
    report = recorded_report("demo", tmp_path)
    assert binding_view(report) is not None  # recorded with the measurement on
    report = msgspec.structs.replace(report, evidence=msgspec.structs.replace(report.evidence, binding_measurement=None))
    assert binding_view(report) is None
    assert binding_view(analyse(report.evidence)) is None


def test_html_and_text_show_the_measurement(tmp_path):
    report = _with_measurement(recorded_report("stateful", tmp_path), [
        _v("plain", 0.30, h2d=2, d2h=2), _v("plan", 0.20), _v("all_device", 0.2), _v("cuda_graph", 0.1)],
        phases=[PhaseTiming("upload", "numpy → device", 50, 0.05, 0.04, 0.06, 768),
                PhaseTiming("inference", "run_with_iobinding", 50, 0.1, 0.09, 0.11),
                PhaseTiming("download", "copy_outputs_to_cpu()", 50, 0.03, 0.02, 0.04, 576)])
    html = render_html(report)
    for anchor in ('id="binding-measured"', 'id="binding-ab-table"', 'id="binding-phase-table"',
                   'id="binding-plan-code"', "CUDA-graph readiness", "Binding code with torch"):
        assert anchor in html, anchor
    text = render_text(report, width=400)
    lines = [line for line in text.splitlines() if line.startswith("Binding measured")]
    assert len(lines) == 1


# --- replay of the A/B runs recorded on the GPU (tools/record_binding_ab.py) ------------------------------------


def _binding_fixtures() -> list[Path]:
    return sorted(BINDING_FIXTURES.glob("*.json.gz")) if BINDING_FIXTURES.is_dir() else []


def _load(path: Path) -> dict:
    with gzip.open(path, "rt", encoding="utf-8") as f:
        return json.load(f)


@pytest.fixture(params=_binding_fixtures() or [None], ids=lambda p: p.name.split(".")[0] if p else "none")
def ab(request, tmp_path):
    if request.param is None:
        pytest.skip("no recorded GPU binding fixtures yet")
    data = _load(request.param)
    assert data["format"] == "ortcopy-doctor-binding-ab" and data["format_version"] in (1, 2)
    assert "error" not in data, data.get("error")
    from render_helpers import write_report_json

    from ortcopy_doctor.report.core import load_report

    report = load_report(write_report_json(data["report"], tmp_path / "report.json"))
    return data, report


def _record_tool():
    spec = importlib.util.spec_from_file_location(
        "record_binding_ab", REPO / "tools" / "record_binding_ab.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_replay_recorded_on_cuda(ab):
    data, report = ab
    assert report.evidence.session.active_providers[0] == "CUDAExecutionProvider"
    m = report.evidence.binding_measurement
    assert m is not None and m.status == "measured", m and m.reason


def _without_state_reasons(entries):
    """The entries with the reason of a state pair left out: recorded before a pair said its basis (StateBasis)."""
    return [{k: v for k, v in e.items() if not (e.get("state_pair") and k in ("reason", "state_basis"))}
            for e in entries]


def test_replay_plan_equals_the_recorded_plan(ab):
    data, report = ab
    now = json.loads(report.to_json())["binding"]["entries"]
    # recorded with the fields at their defaults left out: read as the codec reads them, then written whole
    recorded = codec.to_builtins(codec.convert(data["report"]["binding"]["entries"], list[BindingEntry]))
    assert _without_state_reasons(recorded) == _without_state_reasons(now)
    for e in now:
        if e.get("state_pair"):
            assert e["state_basis"] == "convention" and "(named as exporters name recurrent state)" in e["reason"]


# Recorded before the generated code of a stateful model returned the state buffer itself (2026-12-01 evening,
# knowledge/ort_versions.py): these fixtures ran that code without these lines.
STATE_RETURN_SINCE = "2026-12-01T20:30"
_STATE_RETURN_LINE = re.compile(r"^    outputs\[\d+\] = \w+_on_device\n", re.MULTILINE)


_STATE_RETURN_WORDS = (" The state returned is that buffer: what get_outputs() gave follows the rebinding in "
                       "onnxruntime up to 1.27 (1.30 keeps it).")


def _before_state_return(code: str) -> tuple[str, str]:
    """``program`` of the code as generated before the state return: without its ``outputs[i] = ...`` lines and
    the comment on them."""
    tree, words = program(_STATE_RETURN_LINE.sub("", code))
    return tree, words.replace(_STATE_RETURN_WORDS, "")


def test_replay_generated_code_equals_the_code_that_ran(ab):
    """The code printed here is the program that ran on the H200 (``program``: the same syntax tree and comments;
    it is laid out within 88 characters since those runs were recorded)."""
    data, report = ab
    runs = data["code_runs"]
    older = data["recorded_utc"] < STATE_RETURN_SINCE
    for flavor in FLAVORS:
        code = render_code(report.evidence, report.binding, flavor)
        assert (_before_state_return(code) if older else program(code)) == program(runs[flavor]["code"]), flavor
    if runs["cuda_graph"]["code"] is not None:
        assert program(render_cuda_graph_code(report.evidence, report.binding)) == program(runs["cuda_graph"]["code"])


@pytest.mark.parametrize("name", ["stateful"])
def test_the_state_return_is_in_the_code_recorded_with_raw_samples(name, tmp_path):
    """The stateful model recorded again with the state return (tests/fixtures/binding_ab): the code generated
    here is the program that ran there (laid out within 88 characters since), and it matched plain run()."""
    from render_helpers import write_report_json

    from ortcopy_doctor.report.core import load_report

    data = _load(TESTS / "fixtures" / "binding_ab" / f"{name}.json.gz")
    assert data["recorded_utc"] >= STATE_RETURN_SINCE
    report = load_report(write_report_json(data["report"], tmp_path / "report.json"))
    for flavor in FLAVORS:
        code = render_code(report.evidence, report.binding, flavor)
        assert program(code) == program(data["code_runs"][flavor]["code"]), flavor
        assert (data["code_runs"][flavor]["ran"], data["code_runs"][flavor]["outputs_match_plain"]) == (True, True)
    # the OrtValue flavor returns what get_outputs() gave, with the state replaced by its buffer; the torch and cupy
    # flavors return their own tensors
    assert _STATE_RETURN_LINE.search(data["code_runs"]["onnxruntime"]["code"])


def test_replay_generated_code_ran_as_printed_and_matched_plain_run(ab):
    data, _ = ab
    for flavor, run in data["code_runs"].items():
        if run["skipped"]:
            continue
        assert run["error"] == "", f"{flavor}: {run['error']}"
        assert run["ran"], flavor
        assert run["outputs_match_plain"] in (True, None), flavor


def test_replay_transfers_are_exactly_those_promised(ab):
    data, report = ab
    if data["census_plain_run"] is None:
        pytest.skip("recorded without CUPTI")
    assert census_totals(data["census_plain_run"]) == \
        promised_transfers(report.evidence, report.binding, report.copies, "plain")
    for flavor, run in data["code_runs"].items():
        if not run["ran"] or run["census_infer"] is None:
            continue
        variant = "plan" if flavor == "onnxruntime" else flavor
        assert census_totals(run["census_infer"]) == \
            promised_transfers(report.evidence, report.binding, report.copies, variant), flavor


def test_replay_measured_variant_transfers_are_the_promised_ones(ab):
    _, report = ab
    m = report.evidence.binding_measurement
    for v in m.variants:
        if not v.ran or v.transfer_source != "census":
            continue
        promised = promised_transfers(report.evidence, report.binding, report.copies, v.variant)
        assert (v.h2d_count, v.h2d_bytes) == promised.get("host_to_device", (0, 0)), v.variant
        assert (v.d2h_count, v.d2h_bytes) == promised.get("device_to_host", (0, 0)), v.variant


def test_replay_every_flavor_ran_as_printed_and_was_traced(ab):
    # Issue 4: the generated code runs as printed, in every flavor the GPU machine had (onnxruntime, torch, cupy).
    data, report = ab
    runs = data["code_runs"]
    for flavor in FLAVORS:
        run = runs[flavor]
        assert (run["ran"], run["skipped"], run["error"]) == (True, "", ""), (flavor, run["skipped"], run["error"])
        assert run["outputs_match_plain"] is True, flavor
        assert run["census_infer"] is not None, flavor
    blockers = cuda_graph_blockers(report.evidence, report.binding, report.copies)
    if blockers:
        assert not runs["cuda_graph"]["ran"]
        assert runs["cuda_graph"]["skipped"] == "; ".join(b.text() for b in blockers)
    else:
        assert runs["cuda_graph"]["ran"] and runs["cuda_graph"]["outputs_match_plain"] is True
        assert runs["cuda_graph"]["error"] == ""


def test_replay_every_measured_variant_was_counted_by_cupti(ab):
    # So that the strict comparison with the promise above is not vacuous.
    _, report = ab
    m = report.evidence.binding_measurement
    assert m.transfer_source == "census"
    assert all(v.transfer_source == "census" for v in m.variants if v.ran)
    assert {v.variant for v in m.variants if v.ran} >= {"plain", "plan"}


def test_replay_bind_time_copies_recur_where_the_code_binds_again(ab):
    # Inputs bound on CUDA but read on CPU: ORT copies them back when they are bound, not inside the run; the
    # everything-bound code binds them again before each call (else data written in place never reaches the CPU
    # node: other outputs than plain run() on the H200), so each call pays exactly those bind copies.
    _, report = ab
    everything = next(v for v in report.evidence.binding_measurement.variants if v.variant == "all_device")
    if not everything.ran:
        pytest.skip(everything.skipped_reason)
    outputs_on_host = [e for e in report.binding.outputs if e.place == "host"]
    unremovable_d2h = promised_transfers(report.evidence, report.binding, report.copies, "plan").get(
        "device_to_host", (0, 0))
    bound = bind_transfers(report.evidence, report.binding, "all_device").get("device_to_host", (0, 0))
    assert (everything.d2h_count, everything.d2h_bytes) == (unremovable_d2h[0] + bound[0],
                                                            unremovable_d2h[1] + bound[1])
    assert everything.h2d_count >= len(outputs_on_host)


def test_replay_bind_copies_are_those_promised_where_recorded(ab):
    # Fixtures recorded after tools/record_binding_ab.py traced the binds themselves (census_bind_all_device).
    data, report = ab
    if data.get("census_bind_all_device") is None:
        pytest.skip("recorded without a census of the binds")
    assert census_totals(data["census_bind_all_device"]) == bind_transfers(report.evidence, report.binding,
                                                                           "all_device")


def test_replay_plan_is_never_slower_than_plain_beyond_noise(ab):
    # Every recorded model, the all-CPU one included (its plan keeps everything on host, like plain run()).
    data, report = ab
    m = report.evidence.binding_measurement
    plain = next(v for v in m.variants if v.variant == "plain")
    plan = next(v for v in m.variants if v.variant == "plan")
    view = binding_view(report)
    result = compare(plain, plan)
    assert result.verdict in ("faster", "within_noise"), view.one_line
    # And the report says which, with the measured numbers and the interval.
    if result.verdict == "faster":
        assert view.conclusions[0] == f"The plan is faster than plain run(): {result.text}."
    else:
        assert view.conclusions[0].startswith("No difference between the plan and plain run() beyond the noise")
        assert any(w.startswith("Within noise after") for w in view.warnings)


def test_replay_a_slower_plan_would_be_reported(ab):
    # The rule behind the test above: the same record with the plan 30% slower says SLOWER and keeps plain run().
    _, report = ab
    evidence = copy.deepcopy(report.evidence)
    m = evidence.binding_measurement
    plain = next(v for v in m.variants if v.variant == "plain")
    plan = next(v for v in m.variants if v.variant == "plan")
    factor = 1.3 * plain.median_ms / plan.median_ms
    slower = {key: getattr(plan, key) * factor for key in ("median_ms", "p10_ms", "p25_ms", "p75_ms", "p90_ms")}
    if plan.samples_ms:
        slower["samples_ms"] = [x * factor for x in plan.samples_ms]
    # and no CUDA graph or everything-bound to win instead
    m.variants[:] = [msgspec.structs.replace(v, **slower) if v is plan
                     else msgspec.structs.replace(v, ran=False, samples_ms=None) if v.variant in ("cuda_graph", "all_device")
                     else v for v in m.variants]
    reanalysed = analyse(evidence)
    view = binding_view(reanalysed)
    assert any("slower than plain run() beyond the noise" in c for c in view.conclusions)
    if not is_all_cpu(evidence):
        assert "plan SLOWER by" in view.one_line
    assert view.recommended == "plain"


def test_replay_all_cpu_model_is_advised_not_to_bind(ab):
    data, report = ab
    if data["model"] != "all_cpu_ml":
        assert not is_all_cpu(report.evidence)
        assert binding_view(report).all_cpu_advice == ""
        return
    assert is_all_cpu(report.evidence)
    view = binding_view(report)
    assert view.all_cpu_advice.startswith("Do not bind on CUDA")
    m = report.evidence.binding_measurement
    plain = next(v for v in m.variants if v.variant == "plain")
    everything = next(v for v in m.variants if v.variant == "all_device")
    # The measured reason: slower beyond the noise, with more transfers per run, and the copy made at bind time.
    assert compare(plain, everything).verdict == "slower"
    assert f"Measured: everything bound on CUDA took {compare(plain, everything).text}" in view.all_cpu_advice
    assert (everything.h2d_count + everything.d2h_count) > (plain.h2d_count + plain.d2h_count)
    extra = everything.h2d_count + everything.d2h_count - plain.h2d_count - plain.d2h_count
    assert f"with {extra} more host↔device transfer(s) per run" in view.all_cpu_advice
    assert "plus 1 device→host copy (4.1 KB) each time the inputs are bound" in view.all_cpu_advice
    assert "; do not bind on CUDA (all nodes on CPU)" in view.one_line
    # The plan keeps every tensor on the host.
    assert {e.place for e in report.binding.entries} == {"host"}


def test_replay_covers_every_model():
    fixtures = _binding_fixtures()
    if not fixtures:
        pytest.skip("no recorded GPU binding fixtures yet")
    import models

    expected = set(models.ALL) | {"demo", "all_cpu_ml"}
    assert {p.name.split(".")[0] for p in fixtures} == expected
    assert all(_load(p)["format_version"] <= _record_tool().FORMAT_VERSION for p in fixtures)


# --- defects the code check found on the H200 (issue 36) -----------------------------------------------------------


def test_an_output_empty_in_the_profiled_run_is_not_preallocated(tmp_path):
    """fasterrcnn with -1 dims on the H200: its detections were empty in the profiled run, the plan pre-allocated
    them at [0, 4], and the torch and cupy code failed (an empty tensor has no address: "data_ptr != 0 was false").
    An output empty in the profiled run depends on the data: ORT allocates it."""
    evidence = copy.deepcopy(recorded_report("conv_net", tmp_path).evidence)
    evidence.model.outputs[0] = msgspec.structs.replace(evidence.model.outputs[0], shape=[-1, 10])
    evidence.node_events[:] = [msgspec.structs.replace(e, output_shapes=[{"float": [0, 10]}]) if e.name == "fc" else e
                               for e in evidence.node_events]
    (logits,) = make_plan(evidence).outputs
    assert (logits.place, logits.preallocate, logits.shape) == ("device", False, [None, 10])
    assert logits.reason == ("produced on the device, empty in the profiled run ([0, 10]): its size depends on the "
                             "data, so ORT allocates it on the device")
    assert "torch.empty" not in render_code(evidence, make_plan(evidence), "torch")


def test_device_inputs_a_cpu_node_reads_are_bound_again_before_each_call(tmp_path):
    """ORT copies a device input a CPU node reads to host as it is bound: data written into its buffer afterwards
    never reaches the CPU node. On the H200 the everything-bound code of two all-CPU ai.onnx.ml models gave other
    outputs than plain run() from call 2 (update_inplace after the bind). The code binds such inputs again in infer()."""
    from ortcopy_doctor.analysis.binding import all_device_plan

    report = recorded_report("cpu_only_inputs", tmp_path)
    everything = all_device_plan(report.evidence, report.binding)
    rebound = [e.name for e in everything.inputs if e.rebind]
    assert rebound == ["target_shape", "bits", "amount"]
    infer = everything.code[everything.code.index("def infer():"):]
    for name in rebound:
        assert (f"    # a CPU node reads it: ORT copies it to host as it is bound\n"
                f"    binding.bind_ortvalue_input({name!r}, {name}_on_device)\n") in infer
    # the plan keeps them on the host: nothing to bind again
    assert [e.name for e in report.binding.inputs if e.rebind] == []
