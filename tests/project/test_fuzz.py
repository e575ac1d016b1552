"""Fuzzed model files and fuzzed ``--inputs`` through the real CLI.

The rule for every case: exit 0/1 with the JSON and HTML reports written, or exit 2/3 with exactly one
``error:`` line and no report file left behind; never a traceback or exit 4; the model file unchanged.

Randomness is seeded, so every run fuzzes the same bytes. The cases run as subprocesses, two at a time,
in one module-scoped fixture; each case is then its own test.
"""

from __future__ import annotations

import concurrent.futures
import hashlib
import io
import json
import os
import subprocess
import sys
import zipfile
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np
import onnx
import pytest
from onnx import TensorProto, helper, numpy_helper

import models
from render_helpers import REPO

FAST = ["--timed-runs", "1", "--runs", "1", "--warmup", "0"]
SEED = 20260407


@dataclass
class Case:
    id: str
    files: dict[str, bytes]  # written into the case folder
    args: list[str]  # after "check model.onnx"
    model: str = "model.onnx"
    expect: tuple[int, ...] = (0, 1, 2, 3)  # allowed exit codes (the contract allows all four)
    fragments: tuple[str, ...] = ()  # expected in the error line, when refused
    result: dict = field(default_factory=dict)


def _bytes(model: onnx.ModelProto) -> bytes:
    return model.SerializeToString()


def _npz(**arrays: np.ndarray) -> bytes:
    buf = io.BytesIO()
    np.savez(buf, **arrays)
    return buf.getvalue()


# --- model fuzz -------------------------------------------------------------------------------------------


def _truncations(base: bytes, rng: np.random.Generator) -> list[Case]:
    offsets = sorted({1, 2, 7, len(base) // 3, len(base) // 2, len(base) - 1, *rng.integers(3, len(base) - 1, 2)})
    return [Case(f"truncated-at-{o}", {"model.onnx": base[:o]}, ["--provider", "cpu"]) for o in offsets]


def _bit_flips(base: bytes, rng: np.random.Generator, count: int, tag: str) -> list[Case]:
    cases = []
    for i in range(count):
        data = bytearray(base)
        for pos in rng.integers(0, len(data), size=int(rng.integers(1, 9))):
            data[pos] ^= 1 << int(rng.integers(0, 8))
        cases.append(Case(f"bit-flipped-{tag}-{i}", {"model.onnx": bytes(data)}, ["--provider", "cpu", "--dim", "batch=2"]))
    return cases


def _random_bytes(rng: np.random.Generator) -> list[Case]:
    cases = [Case(f"random-bytes-{n}", {"model.onnx": rng.bytes(n)}, ["--provider", "cpu"], expect=(2,))
             for n in (1, 97, 4096)]
    # a protobuf-looking prefix (field 1 varint = ir_version) followed by noise
    cases.append(Case("protobuf-prefix-then-noise", {"model.onnx": b"\x08\x07\x12\x04test" + rng.bytes(300)},
                      ["--provider", "cpu"], expect=(2,)))
    return cases


def _with_input_dim(value: int | str) -> onnx.ModelProto:
    model = models.cpu_op_between()
    dim = model.graph.input[0].type.tensor_type.shape.dim[0]
    if isinstance(value, int):
        dim.dim_value = value
    else:
        dim.dim_param = value
    return model


def _zero_size_initializer() -> onnx.ModelProto:
    nodes = [helper.make_node("Concat", ["x", "empty"], ["y"], name="concat", axis=0)]
    return models._model(
        nodes,
        [helper.make_tensor_value_info("x", TensorProto.FLOAT, [2, 4])],
        [helper.make_tensor_value_info("y", TensorProto.FLOAT, [2, 4])],
        [numpy_helper.from_array(np.zeros((0, 4), np.float32), "empty")],
    )


def _cycle() -> onnx.ModelProto:
    nodes = [
        helper.make_node("Add", ["x", "b"], ["a"], name="first"),
        helper.make_node("Relu", ["a"], ["b"], name="second"),
    ]
    return models._model(nodes, [helper.make_tensor_value_info("x", TensorProto.FLOAT, [4])],
                         [helper.make_tensor_value_info("b", TensorProto.FLOAT, [4])])


def _self_loop() -> onnx.ModelProto:
    nodes = [helper.make_node("Add", ["x", "y"], ["y"], name="self")]
    return models._model(nodes, [helper.make_tensor_value_info("x", TensorProto.FLOAT, [4])],
                         [helper.make_tensor_value_info("y", TensorProto.FLOAT, [4])])


def _duplicate_node_names() -> onnx.ModelProto:
    nodes = [
        helper.make_node("Relu", ["x"], ["a"], name="same"),
        helper.make_node("Neg", ["a"], ["y"], name="same"),
    ]
    return models._model(nodes, [helper.make_tensor_value_info("x", TensorProto.FLOAT, [4])],
                         [helper.make_tensor_value_info("y", TensorProto.FLOAT, [4])])


def _duplicate_tensor_names() -> onnx.ModelProto:
    nodes = [
        helper.make_node("Relu", ["x"], ["a"], name="relu"),
        helper.make_node("Neg", ["x"], ["a"], name="neg"),  # a second producer of "a"
    ]
    return models._model(nodes, [helper.make_tensor_value_info("x", TensorProto.FLOAT, [4])],
                         [helper.make_tensor_value_info("a", TensorProto.FLOAT, [4])])


def _duplicate_input_names() -> onnx.ModelProto:
    nodes = [helper.make_node("Relu", ["x"], ["y"], name="relu")]
    x = helper.make_tensor_value_info("x", TensorProto.FLOAT, [4])
    return models._model(nodes, [x, x], [helper.make_tensor_value_info("y", TensorProto.FLOAT, [4])])


def _empty_names() -> onnx.ModelProto:
    nodes = [helper.make_node("Relu", ["x"], ["a"]), helper.make_node("Neg", ["a"], ["y"])]
    return models._model(nodes, [helper.make_tensor_value_info("x", TensorProto.FLOAT, [4])],
                         [helper.make_tensor_value_info("y", TensorProto.FLOAT, [4])])


NASTY_NAMES = [
    "<script>alert('x')</script>",
    "a&b\"c'<d>",
    "[bold red]rich markup[/] {{ jinja }} {% raw %}",
    "ñ漢字🙂\u202eevil\u200b",
    "line\nbreak\ttab",
    "/slashes/and:colons (parens) [brackets]",
    "x" * 5000,
]


def _nasty_names() -> onnx.ModelProto:
    """Markup, template syntax, unicode, control characters and a very long name as node and tensor names
    (in a model with a CPU-only op between device ops, so the names reach copies and findings)."""
    n = NASTY_NAMES
    nodes = [
        helper.make_node("MatMul", [n[0], "w1"], [n[1]], name=n[2]),
        helper.make_node("Celu", [n[1]], [n[3]], name=n[4], alpha=1.0),
        helper.make_node("MatMul", [n[3], "w2"], [n[5]], name=n[6]),
    ]
    rng = np.random.default_rng(1)
    model = models._model(
        nodes,
        [helper.make_tensor_value_info(n[0], TensorProto.FLOAT, [n[2], 8])],
        [helper.make_tensor_value_info(n[5], TensorProto.FLOAT, [n[2], 4])],
        [numpy_helper.from_array(rng.standard_normal((8, 16)).astype(np.float32), "w1"),
         numpy_helper.from_array(rng.standard_normal((16, 4)).astype(np.float32), "w2")],
        name="<graph> & \"name\" 🙂",
    )
    model.producer_name = "<b>producer</b>"
    model.doc_string = "<img src=x onerror=alert(1)>"
    return model


def _undefined_type_input() -> onnx.ModelProto:
    nodes = [helper.make_node("Relu", ["x"], ["y"], name="relu")]
    x = helper.make_value_info("x", onnx.TypeProto())  # no type at all
    return models._model(nodes, [x], [helper.make_tensor_value_info("y", TensorProto.FLOAT, [4])])


def _huge_initializer_dims() -> onnx.ModelProto:
    """An initializer that declares 2**40 elements but carries 4 floats."""
    t = numpy_helper.from_array(np.zeros(4, np.float32), "w")
    del t.dims[:]
    t.dims.extend([1 << 20, 1 << 20])
    nodes = [helper.make_node("Add", ["x", "w"], ["y"], name="add")]
    return models._model(nodes, [helper.make_tensor_value_info("x", TensorProto.FLOAT, [4])],
                         [helper.make_tensor_value_info("y", TensorProto.FLOAT, [4])], [t])


def _lying_initializer(dims: list[int], dtype: int, stored: int, raw: bool, rng: np.random.Generator,
                       in_constant: bool = False) -> onnx.ModelProto:
    """A tensor whose dims declare far more elements than the ``stored`` ones it carries (raw bytes or a typed
    field), as an initializer or as a Constant's value: refused before shape inference allocates what it says."""
    np_dtype = helper.tensor_dtype_to_np_dtype(dtype)
    values = rng.integers(0, 3, stored).astype(np_dtype)
    t = helper.make_tensor("w", dtype, [stored], values.tobytes() if raw else values.tolist(), raw=raw)
    del t.dims[:]
    t.dims.extend(dims)
    x = helper.make_tensor_value_info("x", dtype, None)
    y = helper.make_tensor_value_info("y", dtype, None)
    if in_constant:
        nodes = [helper.make_node("Constant", [], ["w"], name="const", value=t),
                 helper.make_node("Add", ["x", "w"], ["y"], name="add")]
        return models._model(nodes, [x], [y])
    return models._model([helper.make_node("Add", ["x", "w"], ["y"], name="add")], [x], [y], [t])


def _lying_initializer_cases(rng: np.random.Generator) -> list[Case]:
    cases = []
    kinds = [(TensorProto.FLOAT, True), (TensorProto.FLOAT, False), (TensorProto.INT64, False),
             (TensorProto.INT8, True), (TensorProto.FLOAT16, False), (TensorProto.DOUBLE, True)]
    for i, (dtype, raw) in enumerate(kinds):
        stored = int(rng.integers(1, 5))
        dims = [int(d) for d in rng.integers(1 << 8, 1 << 14, size=int(rng.integers(2, 4)))]
        constant = i % 2 == 1
        model = _lying_initializer(dims, dtype, stored, raw, rng, in_constant=constant)
        mode, args = ("static", ["--static"]) if i < 3 else ("cpu", ["--provider", "cpu"])
        cases.append(Case(f"lying-{'constant' if constant else 'initializer'}-{i}-{mode}", {"model.onnx": _bytes(model)},
                          args, expect=(2,), fragments=("declares",)))
    return cases


def _nested_if_with_bad_subgraph() -> onnx.ModelProto:
    """An If whose branch reads a name no graph defines."""
    then_g = helper.make_graph([helper.make_node("Neg", ["nowhere"], ["t"], name="then_neg")], "then", [],
                               [helper.make_tensor_value_info("t", TensorProto.FLOAT, [4])])
    else_g = helper.make_graph([helper.make_node("Identity", ["x"], ["e"], name="else_id")], "else", [],
                               [helper.make_tensor_value_info("e", TensorProto.FLOAT, [4])])
    nodes = [helper.make_node("If", ["cond"], ["y"], name="if", then_branch=then_g, else_branch=else_g)]
    return models._model(nodes, [helper.make_tensor_value_info("cond", TensorProto.BOOL, []),
                                 helper.make_tensor_value_info("x", TensorProto.FLOAT, [4])],
                         [helper.make_tensor_value_info("y", TensorProto.FLOAT, [4])])


def model_cases() -> list[Case]:
    rng = np.random.default_rng(SEED)
    base = _bytes(models.cpu_op_between())
    conv = _bytes(models.conv_net())
    cases = _truncations(base, rng) + _bit_flips(base, rng, 6, "small") + _bit_flips(conv, rng, 3, "conv") + _random_bytes(rng)
    m = lambda model: {"model.onnx": _bytes(model)}  # noqa: E731
    cases += [
        Case("huge-declared-dim", m(_with_input_dim(10**12)), ["--provider", "cpu"], expect=(2, 3)),
        Case("huge-dim-via-flag", m(models.cpu_op_between()), ["--provider", "cpu", "--dim", "batch=99999999999"],
             expect=(2, 3)),
        Case("negative-declared-dim", m(_with_input_dim(-5)), ["--provider", "cpu", "--strict-shapes"], expect=(2,),
             fragments=("--shape",)),
        Case("negative-declared-dim-assumed-1", m(_with_input_dim(-5)), ["--provider", "cpu"], expect=(0, 1)),
        Case("negative-declared-dim-static", m(_with_input_dim(-5)), ["--static"], expect=(0, 1)),
        Case("negative-declared-dim-shape-flag", m(_with_input_dim(-1)), ["--provider", "cpu", "--shape", "x=2x64"]),
        Case("zero-size-input", m(_with_input_dim(0)), ["--provider", "cpu"], expect=(0, 1)),
        Case("zero-size-input-default-provider", m(_with_input_dim(0)), [], expect=(0, 1)),
        Case("zero-size-initializer", m(_zero_size_initializer()), ["--provider", "cpu"], expect=(0, 1)),
        Case("huge-initializer-dims", m(_huge_initializer_dims()), ["--provider", "cpu"], expect=(2,),
             fragments=("declares",)),
        Case("huge-initializer-dims-static", m(_huge_initializer_dims()), ["--static"], expect=(2,),
             fragments=("declares",)),
        Case("cycle", m(_cycle()), ["--provider", "cpu"], expect=(2,), fragments=("invalid", "acyclic")),
        Case("cycle-static", m(_cycle()), ["--static"], expect=(2,), fragments=("would reject", "acyclic")),
        Case("self-loop", m(_self_loop()), [], expect=(2,), fragments=("invalid", "acyclic")),
        Case("duplicate-node-names", m(_duplicate_node_names()), [], expect=(2,), fragments=("same node name",)),
        Case("duplicate-node-names-static", m(_duplicate_node_names()), ["--static"], expect=(0, 1)),
        Case("duplicate-tensor-names", m(_duplicate_tensor_names()), ["--provider", "cpu"], expect=(2,),
             fragments=("Duplicate definition",)),
        Case("duplicate-tensor-names-static", m(_duplicate_tensor_names()), ["--static"]),
        Case("duplicate-input-names", m(_duplicate_input_names()), ["--provider", "cpu"]),
        Case("empty-node-names", m(_empty_names()), [], expect=(0, 1)),
        Case("nasty-names-default-provider", m(_nasty_names()), ["--dim", f"{NASTY_NAMES[2]}=2"], expect=(0, 1)),
        Case("nasty-names-cpu", m(_nasty_names()), ["--provider", "cpu", "--dim", f"{NASTY_NAMES[2]}=2"],
             expect=(0, 1)),
        Case("nasty-names-static", m(_nasty_names()), ["--static"], expect=(0, 1)),
        Case("nasty-names-unresolved-dim", m(_nasty_names()), ["--provider", "cpu", "--strict-shapes"], expect=(2,)),
        Case("nasty-names-dim-assumed-1", m(_nasty_names()), ["--provider", "cpu"], expect=(0, 1)),
        Case("untyped-input", m(_undefined_type_input()), ["--provider", "cpu"]),
        Case("if-branch-reads-undefined-name", m(_nested_if_with_bad_subgraph()), []),
    ]
    cases += _lying_initializer_cases(rng)
    return cases


# --- --inputs fuzz ----------------------------------------------------------------------------------------


def inputs_cases() -> list[Case]:
    rng = np.random.default_rng(SEED + 1)
    model = {"model.onnx": _bytes(models.cpu_op_between())}  # x: float32 [batch, 64]
    good = rng.standard_normal((2, 64)).astype(np.float32)
    valid_npz = _npz(x=good)
    corrupt = bytearray(valid_npz)
    for pos in rng.integers(0, len(corrupt), 16):
        corrupt[pos] ^= 0xFF
    zip_object = io.BytesIO()
    with zipfile.ZipFile(zip_object, "w") as z:  # an object array, stored the way np.savez stores one
        buf = io.BytesIO()
        np.save(buf, np.array([{"a": 1}, None], dtype=object), allow_pickle=True)
        z.writestr("x.npy", buf.getvalue())
    npy = io.BytesIO()
    np.save(npy, good)

    def c(case_id: str, data: bytes, *extra: str, expect: tuple[int, ...] = (2,), fragments: tuple[str, ...] = ()
          ) -> Case:
        return Case(f"inputs-{case_id}", {**model, "inputs.npz": data}, ["--provider", "cpu", "--inputs", "inputs.npz",
                                                                          *extra], expect=expect, fragments=fragments)

    return [
        c("valid", valid_npz, expect=(0, 1)),
        c("valid-default-provider", valid_npz, expect=(0, 1)),
        c("wrong-dtype", _npz(x=good.astype(np.float64)), fragments=("dtype",)),
        c("int-for-float", _npz(x=np.ones((2, 64), np.int64)), fragments=("dtype",)),
        c("string-for-float", _npz(x=np.full((2, 64), "a")), fragments=("dtype",)),
        c("wrong-rank", _npz(x=good.reshape(128)), fragments=("shape",)),
        c("wrong-fixed-dim", _npz(x=rng.standard_normal((2, 63)).astype(np.float32)), fragments=("dim 1",)),
        c("zero-size", _npz(x=np.zeros((0, 64), np.float32)), expect=(0, 1)),
        c("nan-and-inf", _npz(x=np.full((2, 64), np.nan, np.float32)), expect=(0, 1)),
        c("extra-name", _npz(x=good, not_an_input=good), fragments=("not_an_input",)),
        c("only-extra-name", _npz(y=good), fragments=("'y'",)),
        c("empty-npz", _npz(), expect=(0, 1)),  # x is synthesized, its batch dim taken as 1
        c("empty-npz-strict-shapes", _npz(), "--strict-shapes"),  # x then needs --dim batch
        c("corrupt-npz", bytes(corrupt)),
        c("truncated-npz", valid_npz[: len(valid_npz) // 2]),
        c("random-bytes", rng.bytes(512)),
        c("object-array", zip_object.getvalue()),
        c("npy-not-npz", npy.getvalue()),
        c("scalar-for-tensor", _npz(x=np.float32(1.0)), fragments=("shape",)),
        Case("inputs-is-a-directory", {**model, "inputs.npz/placeholder": b""},
             ["--provider", "cpu", "--inputs", "inputs.npz"], expect=(2,)),
        Case("inputs-missing", model, ["--provider", "cpu", "--inputs", "nope.npz"], expect=(2,)),
    ]


ALL_CASES = model_cases() + inputs_cases()


# --- running ----------------------------------------------------------------------------------------------


def _listing(root: Path) -> set[str]:
    return {str(p.relative_to(root)) for p in root.rglob("*")}


def _run_case(case: Case, root: Path) -> dict:
    folder = root / case.id
    folder.mkdir(parents=True)
    for name, data in case.files.items():
        (folder / name).parent.mkdir(parents=True, exist_ok=True)
        (folder / name).write_bytes(data)
    model = folder / case.model
    before_sha = hashlib.sha256(model.read_bytes()).hexdigest() if model.is_file() else None
    before = _listing(folder)
    env = dict(os.environ)
    env["PYTHONPATH"] = os.pathsep.join([str(REPO)] + ([env["PYTHONPATH"]] if env.get("PYTHONPATH") else []))
    for name in ("COLUMNS", "LINES", "FORCE_COLOR", "TTY_COMPATIBLE", "TTY_INTERACTIVE", "ORTCOPY_DOCTOR_DEBUG"):
        env.pop(name, None)
    env.setdefault("OMP_NUM_THREADS", "1")
    try:
        proc = subprocess.run(
            [sys.executable, "-m", "ortcopy_doctor", "check", case.model, *case.args, "--html", "report.html",
             "--json", "report.json", *FAST],
            cwd=folder, env=env, capture_output=True, text=True, timeout=120, check=False, stdin=subprocess.DEVNULL)
    except subprocess.TimeoutExpired:
        return {"code": None, "stdout": "", "stderr": "timed out after 120 s"}
    return {
        "code": proc.returncode,
        "stdout": proc.stdout,
        "stderr": proc.stderr,
        "model_unchanged": before_sha is None or hashlib.sha256(model.read_bytes()).hexdigest() == before_sha,
        "new_files": sorted(_listing(folder) - before),
        "json_ok": _json_ok(folder / "report.json"),
        "html": (folder / "report.html").read_text(encoding="utf-8") if (folder / "report.html").is_file() else "",
    }


def _json_ok(path: Path) -> bool:
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return False
    from ortcopy_doctor.model.schema import validation_errors

    return data.get("format") == "ortcopy-doctor-report" and bool(data.get("verdict")) and not validation_errors(data)


@pytest.fixture(scope="module")
def results(tmp_path_factory) -> dict[str, dict]:
    root = tmp_path_factory.mktemp("fuzz")
    with concurrent.futures.ThreadPoolExecutor(max_workers=2) as pool:
        futures = {case.id: pool.submit(_run_case, case, root) for case in ALL_CASES}
        return {case_id: fut.result() for case_id, fut in futures.items()}


def test_case_ids_are_unique():
    ids = [c.id for c in ALL_CASES]
    assert len(ids) == len(set(ids))


@pytest.mark.parametrize("case", ALL_CASES, ids=[c.id for c in ALL_CASES])
def test_fuzzed(case: Case, results: dict[str, dict]) -> None:
    r = results[case.id]
    output = r["stdout"] + r["stderr"]
    assert r["code"] is not None, "hang: " + r["stderr"]
    assert "Traceback" not in output, output[-3000:]
    assert r["code"] in (0, 1, 2, 3), (r["code"], output[-3000:])
    assert r["code"] in case.expect, (r["code"], output[-2000:])
    assert r["model_unchanged"]
    if r["code"] in (0, 1):
        assert r["json_ok"], output[-2000:]
        assert set(r["new_files"]) == {"report.html", "report.json"}, r["new_files"]
        for raw in ("<script>alert('x')</script>", "<img src=x onerror", "<b>producer</b>"):
            assert raw not in r["html"], raw  # names from the model are escaped
    else:
        lines = r["stderr"].splitlines()
        assert len(lines) == 1, r["stderr"][-3000:]
        assert lines[0].startswith("error: "), lines[0]
        assert "internal error" not in lines[0]
        assert r["stdout"] == ""
        assert r["new_files"] == [], r["new_files"]  # no report, temporary or .ortcopy.html file left behind
        for fragment in case.fragments:
            assert fragment in lines[0], (fragment, lines[0])
        if "invalid" in case.fragments:  # a readable file with a bad graph is not called truncated
            assert "truncated" not in lines[0], lines[0]


# --- profile files --------------------------------------------------------------------------------------------


def _profile_events(rng: np.random.Generator, count: int) -> list[dict]:
    names = ["matmul1", "a\"b", "back\\slash", "ünï 🙂", "x_kernel_time", "/m/Conv", "Memcpy_token_0", "op_name"]
    events: list[dict] = []
    ts = 0
    for run in range(3):
        start = ts
        for _ in range(count):
            kind = rng.integers(0, 10)
            name = names[rng.integers(0, len(names))]
            ts += int(rng.integers(0, 5))
            if kind == 0:
                events.append({"cat": "Node", "name": f"{name}_fence_before", "ts": ts, "dur": 0, "args": {}})
                continue
            args: dict = {}
            if rng.integers(0, 4):
                args["op_name"] = ["MatMul", "Relu", "Memcpy\"X", "Conv"][rng.integers(0, 4)]
            if rng.integers(0, 4):
                args["provider"] = "CUDAExecutionProvider"
            if rng.integers(0, 3):
                args["output_type_shape"] = [{"float": [int(d) for d in rng.integers(0, 9, rng.integers(0, 4))]}]
            if rng.integers(0, 3):
                args["input_type_shape"] = [{"int64": [4]}, {"float": [2, 3]}][: rng.integers(0, 3)]
            if rng.integers(0, 3):
                args["output_size"] = str(rng.integers(0, 10_000))
            if rng.integers(0, 2):
                args["thread_scheduling_stats"] = {"main_thread": {"thread_pool_name": "p", "block_size": []}}
            keys = list(args)
            rng.shuffle(keys)
            events.append({"cat": "Node", "pid": 1, "tid": 1, "dur": int(rng.integers(0, 50)), "ts": ts, "ph": "X",
                           "name": f"{name}_kernel_time", "args": {k: args[k] for k in keys}})
        events.append({"cat": "Session", "pid": 1, "tid": 1, "dur": ts - start + 1, "ts": start, "ph": "X",
                       "name": "model_run", "args": {}})
        ts += 10
    order = rng.permutation(len(events))
    return [events[i] for i in order]


def _ort_style(event: dict, rng: np.random.Generator) -> str:
    """One event in ORT's spacing ('"key" :value') or json.dumps' own, at random."""
    if rng.integers(0, 2):
        return json.dumps(event, ensure_ascii=bool(rng.integers(0, 2)))
    head = ",".join(f'"{k}" :{json.dumps(v, ensure_ascii=False)}' for k, v in event.items() if k != "args")
    args = ",".join(f'"{k}" : {json.dumps(v)}' for k, v in event.get("args", {}).items())
    return "{" + head + ',"args" : {' + args + "}}"


@pytest.mark.parametrize("seed", range(6))
def test_profile_fast_path_matches_json(tmp_path, seed):
    """parse_profile streams ORT's one-event-per-line layout with a fast reader: on fuzzed events (escapes,
    unicode, missing fields, shuffled args, both spacings) it gives exactly what the plain JSON path gives."""
    from ortcopy_doctor.analysis.profile import _Reducer, load_events, parse_events, parse_profile

    rng = np.random.default_rng(SEED + 100 + seed)
    events = _profile_events(rng, 40)
    lines = [_ort_style(e, rng) for e in events]
    reducer = _Reducer()
    assert all(reducer.add_line(line) for line in lines)  # the fast reader takes every line (no fallback)
    path = tmp_path / "profile.json"
    path.write_text("[\n" + ",\n".join(lines) + "\n]\n", encoding="utf-8")
    assert parse_profile(path, 1) == parse_events(load_events(path), 1)
    one_line = tmp_path / "one_line.json"  # not one event per line: the whole-file path
    one_line.write_text(json.dumps(events), encoding="utf-8")
    assert parse_profile(one_line, 1) == parse_events(events, 1)
