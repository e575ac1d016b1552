"""The promises of docs/guarantees.md under hostile input (issue 13), one class of attack per section.

Every refusal is exit 2 (3 for a full disk) with exactly one ``error:`` line on stderr, no traceback, no output file
and no temporary file left, and every input unchanged. The CLI runs as a real subprocess; signals are real signals,
sent once the process shows it reached the point under test (a file it creates), never after a sleep.
"""

from __future__ import annotations

import hashlib
import io
import json
import keyword
import msgspec
import os
import signal
import stat
import subprocess
import sys
import threading
import tracemalloc
import zipfile
from collections.abc import Callable
from pathlib import Path

import numpy as np
import onnx
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from onnx import TensorProto, helper, numpy_helper

import models
from ortcopy_doctor.model import codec
from fixture_loader import recorded
from render_helpers import REPO, child_env
from signal_helpers import default_signals

# Property tests: the same examples on every run (derandomized), nothing written to a .hypothesis folder.
PROPERTY = settings(database=None, deadline=None, derandomize=True)
FAST = ["--provider", "cpu", "--timed-runs", "1", "--runs", "1", "--warmup", "0", "--fail-on", "never"]


def cli(args: list[str], cwd: Path, *, umask: int | None = None, timeout: float = 120,
        env_extra: dict[str, str] | None = None,
        preexec: Callable[[], None] | None = None) -> subprocess.CompletedProcess[str]:
    env = dict(os.environ)
    env["PYTHONPATH"] = os.pathsep.join([str(REPO)] + ([env["PYTHONPATH"]] if env.get("PYTHONPATH") else []))
    for name in ("COLUMNS", "LINES", "FORCE_COLOR", "TTY_COMPATIBLE", "TTY_INTERACTIVE", "ORTCOPY_DOCTOR_DEBUG",
                 "ORTCOPY_DOCTOR_MEMORY_BUDGET"):
        env.pop(name, None)
    env.update(env_extra or {})

    def setup() -> None:
        if umask is not None:
            os.umask(umask)
        if preexec is not None:
            preexec()

    return subprocess.run([sys.executable, "-m", "ortcopy_doctor", *args], cwd=cwd, env=env, capture_output=True,
                          text=True, timeout=timeout, check=False, stdin=subprocess.DEVNULL,
                          preexec_fn=setup if umask is not None or preexec is not None else None)


def assert_one_error(result: subprocess.CompletedProcess[str], code: int = 2, *fragments: str) -> str:
    output = result.stdout + result.stderr
    assert "Traceback" not in output, output[-3000:]
    assert result.returncode == code, (result.returncode, output[-3000:])
    lines = result.stderr.splitlines()
    assert len(lines) == 1, result.stderr[-3000:]
    assert lines[0].startswith("error: "), lines[0]
    assert "internal error" not in lines[0], lines[0]
    for fragment in fragments:
        assert fragment in lines[0], (fragment, lines[0])
    return lines[0]


def sha(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


def listing(root: Path) -> set[str]:
    return {str(p.relative_to(root)) for p in root.rglob("*")}


@pytest.fixture
def work(tmp_path: Path) -> Path:
    onnx.save(models.cpu_op_between(), str(tmp_path / "model.onnx"))  # x: float32 [batch, 64]
    return tmp_path


def write_report_json(path: Path) -> None:
    path.write_text(json.dumps(recorded("cpu_op_between")["report"]), encoding="utf-8")


# --- 1. outputs never overwrite inputs ----------------------------------------------------------------------------


@pytest.mark.parametrize("args", [
    ["-o", "model.onnx"],
    ["--json", "sub/../model.onnx"],
    ["--sarif", "model.onnx"],
    ["--trace", "./model.onnx"],
    ["--json", "link.onnx"],  # a symlink to the model
])
def test_output_onto_the_model_is_refused(work, args):
    (work / "sub").mkdir()
    (work / "link.onnx").symlink_to(work / "model.onnx")
    before = sha(work / "model.onnx")
    result = cli(["check", "model.onnx", "--dim", "batch=2", *args, *FAST], work)
    assert_one_error(result, 2, "would be overwritten")
    assert sha(work / "model.onnx") == before


def test_output_onto_the_model_through_a_symlinked_model_is_refused(work):
    (work / "link.onnx").symlink_to(work / "model.onnx")
    before = sha(work / "model.onnx")
    result = cli(["check", "link.onnx", "--dim", "batch=2", "--json", "model.onnx", *FAST], work)
    assert_one_error(result, 2, "would be overwritten")
    assert sha(work / "model.onnx") == before


def test_output_onto_the_external_data_is_refused(tmp_path):
    model = models.cpu_op_between()
    onnx.save(model, str(tmp_path / "ext.onnx"), save_as_external_data=True, all_tensors_to_one_file=True,
              location="ext.onnx.data", size_threshold=0)
    before = sha(tmp_path / "ext.onnx.data")
    result = cli(["check", "ext.onnx", "--dim", "batch=2", "--json", "ext.onnx.data", *FAST], tmp_path)
    assert_one_error(result, 2, "external data")
    assert sha(tmp_path / "ext.onnx.data") == before


def test_output_onto_the_inputs_file_is_refused(work):
    buf = io.BytesIO()
    np.savez(buf, x=np.ones((2, 64), np.float32))
    (work / "in.npz").write_bytes(buf.getvalue())
    result = cli(["check", "model.onnx", "--inputs", "in.npz", "--json", "in.npz", *FAST], work)
    assert_one_error(result, 2, "--inputs")
    assert (work / "in.npz").read_bytes() == buf.getvalue()


def test_report_output_onto_its_own_input_is_refused(tmp_path):
    write_report_json(tmp_path / "run.json")
    before = sha(tmp_path / "run.json")
    result = cli(["report", "run.json", "-o", "run.json"], tmp_path)
    assert_one_error(result, 2, "would be overwritten")
    assert sha(tmp_path / "run.json") == before


def test_diff_output_onto_an_input_is_refused(tmp_path):
    write_report_json(tmp_path / "a.json")
    write_report_json(tmp_path / "b.json")
    before = sha(tmp_path / "a.json")
    result = cli(["diff", "a.json", "b.json", "--html", "a.json"], tmp_path)
    assert_one_error(result, 2, "would be overwritten")
    assert sha(tmp_path / "a.json") == before


def test_two_outputs_on_one_path_are_refused(work):
    result = cli(["check", "model.onnx", "--dim", "batch=2", "--json", "out", "-o", "./out", *FAST], work)
    assert_one_error(result, 2, "same file")
    assert not (work / "out").exists()


SEGMENTS = st.sampled_from(["sub", "..", ".", "dlink", "file", "new"])
LEAVES = st.sampled_from(["model.onnx", "link.onnx", "out.json", "sub", "dlink", "file", "-"])


@settings(PROPERTY, max_examples=150, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(segments=st.lists(SEGMENTS, max_size=4), leaf=LEAVES, stdout_ok=st.booleans())
def test_any_output_path_is_accepted_only_when_it_is_safe(tmp_path, segments, leaf, stdout_ok):
    """Paths made of folders, files, .., and symlinks to the model and to a folder: an output is refused with a
    UsageError (never another exception) exactly when it is the model, a folder, or under a non-folder."""
    from ortcopy_doctor.model.errors import UsageError
    from ortcopy_doctor.render.output import OutputSet

    root = tmp_path / "root"
    if not root.exists():
        (root / "sub").mkdir(parents=True)
        (root / "model.onnx").write_bytes(b"model")
        (root / "file").write_text("a file")
        (root / "link.onnx").symlink_to(root / "model.onnx")
        (root / "dlink").symlink_to(root / "sub")
    path = "-" if leaf == "-" else str(root.joinpath(*segments, leaf))
    outputs = OutputSet()
    outputs.add_input("the model", root / "model.onnx")
    try:
        outputs.add("--json", path, stdout_ok=stdout_ok)
    except UsageError as exc:
        assert "\n" not in exc.message
        refused = True
    else:
        refused = False
    if path == "-":
        assert refused == (not stdout_ok)
        return
    real = os.path.realpath(path)
    parent_ok = os.path.isdir(os.path.dirname(path))  # as the system resolves it
    expected_ok = parent_ok and real != str((root / "model.onnx").resolve()) and not os.path.isdir(real)
    assert refused == (not expected_ok), (path, real)


@settings(PROPERTY)
@given(st.text(max_size=30))
def test_any_dim_text_is_a_size_or_a_usage_error(text):
    from ortcopy_doctor.model.errors import UsageError
    from ortcopy_doctor.collect.feeds import MAX_DIM, parse_dims, parse_shapes

    for parse in (parse_dims, parse_shapes):
        try:
            parsed = parse([text])
        except UsageError:
            continue
        for value in parsed.values():
            for dim in (value if isinstance(value, list) else [value]):
                assert 0 <= dim <= MAX_DIM


@settings(PROPERTY)
@given(st.lists(st.integers(min_value=0, max_value=1 << 40), max_size=6),
       st.sampled_from(["float32", "int8", "bool", "float16", "str", "int64"]))
def test_any_shape_is_bounded_in_bytes_before_allocation(shape, dtype):
    from ortcopy_doctor.model.errors import UsageError
    from ortcopy_doctor.collect.feeds import MAX_INPUT_BYTES, check_input_size

    try:
        nbytes = check_input_size("x", shape, dtype)
    except UsageError as exc:
        assert "lower" in exc.message
    else:
        assert nbytes <= MAX_INPUT_BYTES


# --- 2. device files and FIFOs are written in place, never replaced -------------------------------------------------


def test_dev_null_output_stays_a_device(work):
    result = cli(["check", "model.onnx", "--dim", "batch=2", "-o", "/dev/null", "--json", "/dev/null", *FAST], work)
    assert result.returncode == 0, result.stderr
    assert stat.S_ISCHR(os.stat("/dev/null").st_mode)


def test_fifo_output_is_written_into_the_fifo(work):
    fifo = work / "pipe"
    os.mkfifo(fifo)
    received: list[bytes] = []
    reader = threading.Thread(target=lambda: received.append(fifo.read_bytes()), daemon=True)
    reader.start()
    result = cli(["check", "model.onnx", "--dim", "batch=2", "--no-html", "--json", "pipe", *FAST], work)
    reader.join(timeout=60)
    assert result.returncode == 0, result.stderr
    assert stat.S_ISFIFO(os.stat(fifo).st_mode)
    assert json.loads(received[0])["format"] == "ortcopy-doctor-report"


def test_dash_writes_the_json_to_stdout_alone(work):
    result = cli(["check", "model.onnx", "--dim", "batch=2", "--no-html", "--json", "-", *FAST], work)
    assert result.returncode == 0, result.stderr
    assert json.loads(result.stdout)["format"] == "ortcopy-doctor-report"
    assert not (work / "-").exists()


def test_dev_stdout_output_goes_through_stdout(work):
    result = cli(["check", "model.onnx", "--dim", "batch=2", "--no-html", "--json", "/dev/stdout", *FAST], work)
    assert result.returncode == 0, result.stderr
    assert json.loads(result.stdout)["format"] == "ortcopy-doctor-report"  # the terminal report went to stderr
    assert os.path.islink("/dev/stdout")


def test_dev_full_is_a_clean_environment_error_and_leaves_no_other_output(work):
    result = cli(["check", "model.onnx", "--dim", "batch=2", "--html", "r.html", "--json", "r.json",
                  "--sarif", "/dev/full", *FAST], work)
    assert_one_error(result, 3, "--sarif /dev/full")
    assert listing(work) == {"model.onnx"}


# --- 3. bounded memory and time ------------------------------------------------------------------------------------


def _lying_initializer_model() -> onnx.ModelProto:
    """226 bytes: an initializer that declares 2**26 floats and stores 4 bytes."""
    t = numpy_helper.from_array(np.zeros(1, np.float32), "w")
    del t.dims[:]
    t.dims.extend([1 << 26])
    nodes = [helper.make_node("Add", ["x", "w"], ["y"], name="add")]
    return models._model(nodes, [helper.make_tensor_value_info("x", TensorProto.FLOAT, [1 << 26])],
                         [helper.make_tensor_value_info("y", TensorProto.FLOAT, [1 << 26])], [t])


def test_lying_initializer_is_refused_before_shape_inference(tmp_path):
    onnx.save(_lying_initializer_model(), str(tmp_path / "m.onnx"))
    result = cli(["check", "m.onnx", "--static", "--no-html"], tmp_path)
    assert_one_error(result, 2, "'w'", "declares")


def test_truncated_external_data_is_refused(tmp_path):
    onnx.save(models.cpu_op_between(), str(tmp_path / "ext.onnx"), save_as_external_data=True,
              all_tensors_to_one_file=True, location="ext.data", size_threshold=0)
    data = (tmp_path / "ext.data").read_bytes()
    (tmp_path / "ext.data").write_bytes(data[: len(data) // 2])
    result = cli(["check", "ext.onnx", "--static", "--no-html"], tmp_path)
    assert_one_error(result, 2, "truncated")


@pytest.mark.parametrize("model", ["/dev/zero", "fifo.onnx"])
def test_model_that_is_not_a_regular_file_is_refused(tmp_path, model):
    os.mkfifo(tmp_path / "fifo.onnx")
    result = cli(["check", model, "--static", "--no-html"], tmp_path, timeout=60)
    assert_one_error(result, 2, "not a regular file")


def _npz_with_member(name: str, shape: tuple[int, ...]) -> bytes:
    """An .npz member whose header declares ``shape`` of float32 but holds 16 bytes: a bomb's header."""
    header = io.BytesIO()
    np.lib.format.write_array_header_1_0(header, {"descr": "<f4", "fortran_order": False, "shape": shape})
    buf = io.BytesIO()
    with zipfile.ZipFile(buf, "w", zipfile.ZIP_DEFLATED) as z:
        z.writestr(f"{name}.npy", header.getvalue() + bytes(16))
    return buf.getvalue()


def test_npz_names_are_checked_before_any_data_is_read(work):
    (work / "in.npz").write_bytes(_npz_with_member("bogus", (1 << 33,)))
    result = cli(["check", "model.onnx", "--inputs", "in.npz", *FAST], work)
    assert_one_error(result, 2, "'bogus', which is not an input")


def test_npz_member_declaring_too_many_bytes_is_refused_from_its_header(work):
    (work / "in.npz").write_bytes(_npz_with_member("x", (1 << 31, 64)))
    result = cli(["check", "model.onnx", "--inputs", "in.npz", *FAST], work)
    assert_one_error(result, 2, "'x'", "GiB limit")


def test_synthesized_input_bound_is_in_bytes():
    from ortcopy_doctor.model.errors import UsageError
    from ortcopy_doctor.model.evidence import ValueInfo
    from ortcopy_doctor.collect.feeds import build_feeds

    x = ValueInfo(name="x", kind="tensor", elem_type="float32", shape=["batch"], type_string="tensor(float)")
    with pytest.raises(UsageError, match="GiB limit"):
        build_feeds([x], dims={"batch": (1 << 30) + 1})  # 2**30 elements, 4 GiB + 4 bytes


def test_synthesized_float32_input_needs_no_float64_copy():
    from ortcopy_doctor.model.evidence import ValueInfo
    from ortcopy_doctor.collect.feeds import synthesize

    x = ValueInfo(name="x", kind="tensor", elem_type="float32", shape=[1 << 22], type_string="tensor(float)")
    tracemalloc.start()
    try:
        array = synthesize(x, [1 << 22], np.random.default_rng(0))
        _, peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    assert array.dtype == np.float32
    assert peak < 1.5 * array.nbytes  # not 3x (float64 draw, then a float32 copy)
    assert np.array_equal(array, np.random.default_rng(0).standard_normal(1 << 22).astype(np.float32))


def test_static_allocates_no_inputs(tmp_path):
    from ortcopy_doctor.collect.check import collect
    from ortcopy_doctor.collect.session import CheckOptions

    onnx.save(models.cpu_op_between(), str(tmp_path / "m.onnx"))
    tracemalloc.start()
    try:
        evidence = collect(tmp_path / "m.onnx", CheckOptions(static=True, dims={"batch": 1 << 20}))
        _, peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    assert [f.bytes for f in evidence.feeds] == [(1 << 20) * 64 * 4]  # 256 MiB described ...
    assert peak < 64 << 20  # ... and never allocated


# --- 4. terminal injection ------------------------------------------------------------------------------------------


CONTROL = st.characters(codec="utf-8", categories=("Cc",)) | st.sampled_from(["\u202e", "\u2028", "\x9b", "\x1b"])


@settings(PROPERTY)
@given(st.lists(st.text(max_size=5) | CONTROL, min_size=1, max_size=8).map("".join))
def test_safe_text_holds_no_control_character(text):
    from ortcopy_doctor.render.terminal import safe

    out = safe(text)
    assert "\n" not in out and "\r" not in out and "\x1b" not in out
    assert not any(ord(c) < 0x20 or 0x7F <= ord(c) <= 0x9F or c in "\u202e\u2028" for c in out)


@settings(PROPERTY, max_examples=40)
@given(st.lists(st.text(max_size=6) | CONTROL, min_size=1, max_size=6).map("".join))
def test_terminal_report_escapes_any_name(name):
    """The terminal report of a recorded run whose tensor, node and finding texts are replaced by ``name``."""
    import tempfile

    from fixture_loader import recorded_report
    from ortcopy_doctor.render.text import render_text

    with tempfile.TemporaryDirectory() as tmp:
        report = recorded_report("cpu_op_between", Path(tmp))
    report = msgspec.structs.replace(
        report, copies=[msgspec.structs.replace(c, tensor=name, node=name) for c in report.copies],
        findings=[msgspec.structs.replace(f, location=name, message=name, fix=name) for f in report.findings])
    text = render_text(report)
    assert not any((ord(c) < 0x20 and c != "\n") or 0x7F <= ord(c) <= 0x9F or c in "\u202e\u2028" for c in text)


def _escape_names_model() -> onnx.ModelProto:
    osc52 = "\x1b]52;c;ZXZpbA==\x07"
    nodes = [helper.make_node("Celu", [f"in{osc52}"], ["out\nerror: forged"], name=f"celu\x1b[2J", alpha=1.0)]
    return models._model(nodes, [helper.make_tensor_value_info(f"in{osc52}", TensorProto.FLOAT, ["b\nerror: x", 4])],
                         [helper.make_tensor_value_info("out\nerror: forged", TensorProto.FLOAT, ["b\nerror: x", 4])])


def test_names_with_escape_sequences_reach_the_terminal_escaped(tmp_path):
    onnx.save(_escape_names_model(), str(tmp_path / "m.onnx"))
    result = cli(["check", "m.onnx", "--static", "--no-html", "--fail-on", "never"], tmp_path)
    assert result.returncode == 0, result.stderr
    assert "\x1b" not in result.stdout + result.stderr
    assert "\\x1b]52" in result.stdout
    assert not any(line.startswith("error: forged") for line in result.stdout.splitlines())


def test_an_error_naming_a_newline_is_one_line(tmp_path):
    onnx.save(_escape_names_model(), str(tmp_path / "m.onnx"))
    result = cli(["check", "m.onnx", "--no-html", "--strict-shapes", *FAST], tmp_path)  # the dim names the symbol
    line = assert_one_error(result, 2, "--dim")
    assert "\x1b" not in line


# --- 5. user input is never an internal error -----------------------------------------------------------------------


def _nested(depth: int) -> str:
    return "[" * depth + "]" * depth


@pytest.mark.parametrize("case", ["huge-dim", "huge-shape", "huge-byte-limit", "parent-is-file", "name-too-long", "not-a-library",
                                  "bad-npz-member", "format-version-string", "wrong-field-type", "deep-nesting"])
def test_user_input_is_exit_2_not_internal(work, case):
    (work / "file").write_text("x")
    (work / "lib.so").write_text("not a shared library")
    bad = io.BytesIO()
    with zipfile.ZipFile(bad, "w") as z:
        z.writestr("x", b"raw bytes, not an array")  # a member np.load returns as bytes
    (work / "bad.npz").write_bytes(bad.getvalue())
    report = recorded("cpu_op_between")["report"]
    (work / "v.json").write_text(json.dumps({**report, "evidence": {**report["evidence"], "format_version": "1"}}))
    (work / "t.json").write_text(json.dumps({**report, "evidence": {**report["evidence"], "timings": "x"}}))
    (work / "deep.json").write_text(_nested(100_000))
    args = {
        "huge-dim": ["check", "model.onnx", "--dim", "batch=99999999999999999999", *FAST],
        "huge-shape": ["check", "model.onnx", "--shape", "x=99999999999999999999x64", *FAST],
        "huge-byte-limit": ["check", "model.onnx", "--dim", "batch=2", "--max-transfer-bytes", "9" * 400 + "GB", *FAST],
        "parent-is-file": ["check", "model.onnx", "--dim", "batch=2", "-o", "file/out.html", *FAST],
        "name-too-long": ["check", "model.onnx", "--dim", "batch=2", "--json", "n" * 300 + ".json", *FAST],
        "not-a-library": ["check", "model.onnx", "--dim", "batch=2", "--custom-op-library", "lib.so", *FAST],
        "bad-npz-member": ["check", "model.onnx", "--inputs", "bad.npz", *FAST],
        "format-version-string": ["report", "v.json", "--json", "o.json"],
        "wrong-field-type": ["report", "t.json", "--json", "o.json"],
        "deep-nesting": ["diff", "deep.json", "v.json"],
    }[case]
    before = listing(work)
    assert_one_error(cli(args, work), 2)
    assert listing(work) == before


# --- 6. custom-op libraries load from the path given ----------------------------------------------------------------


def test_custom_op_library_with_dot_slash_loads_that_file(work):
    # named like a system library: "./libm.so.6" must load this (invalid) file, not the system's libm
    (work / "libm.so.6").write_bytes(b"not a library")
    result = cli(["check", "model.onnx", "--dim", "batch=2", "--custom-op-library", "./libm.so.6", *FAST], work)
    assert_one_error(result, 2, "--custom-op-library", "file too short")


# --- 7. generated code is valid Python for any ONNX name ------------------------------------------------------------


RESERVED = {"np", "ort", "torch", "cp", "numpy", "onnxruntime", "cupy", "session", "binding", "rng", "outputs"}


def _render_all(names: list[str]) -> tuple[list[str], list[str]]:
    """The code of every flavor for the recorded stateful model, its four inputs and outputs renamed."""
    from ortcopy_doctor.analysis.binding import FLAVORS, BindingPlan, code_names, render_code, render_cuda_graph_code
    from ortcopy_doctor.model.evidence import Evidence

    base = recorded("stateful")["report"]
    evidence = codec.convert(base["evidence"], Evidence)
    plan = codec.convert(base["binding"], BindingPlan)
    evidence = msgspec.structs.replace(evidence, feeds=[])
    for i, name in zip(range(len(plan.entries)), names):
        plan.entries[i] = msgspec.structs.replace(plan.entries[i], name=name, state_pair=None)
    codes = [render_code(evidence, plan, flavor) for flavor in FLAVORS] + [render_cuda_graph_code(evidence, plan)]
    got = code_names(plan)
    return codes, [*got.inputs.values(), *got.outputs.values()]


@settings(PROPERTY, max_examples=60)
@given(st.lists(st.text(min_size=1, max_size=12), min_size=4, max_size=4))
def test_generated_code_compiles_for_any_names(names):
    codes, variables = _render_all(names)
    for code in codes:
        compile(code, "<generated>", "exec")
    assert len(set(variables)) == len(variables)
    for var in variables:
        assert var.isascii() and var.isidentifier() and not keyword.iskeyword(var), var
        assert var not in RESERVED, var


def test_superscript_and_fullwidth_names_compile_without_shadowing_numpy():
    codes, variables = _render_all(["x²", "ｎｐ", "np", "ｏｒｔ"])
    for code in codes:
        compile(code, "<generated>", "exec")
    assert not RESERVED & set(variables)


# --- 8. signals -------------------------------------------------------------------------------------------------------


def _start_long_check(work: Path, preexec: Callable[[], None] = default_signals) -> tuple[subprocess.Popen[str], Path]:
    tmp = work / "tmp"
    tmp.mkdir()
    env = dict(os.environ, TMPDIR=str(tmp))
    env["PYTHONPATH"] = os.pathsep.join([str(REPO)] + ([env["PYTHONPATH"]] if env.get("PYTHONPATH") else []))
    env.pop("ORTCOPY_DOCTOR_DEBUG", None)
    proc = subprocess.Popen([sys.executable, "-m", "ortcopy_doctor", "check", "model.onnx", "--dim", "batch=2",
                             "--provider", "cpu", "--warmup", "0", "--runs", "1000", "--timed-runs", "1000000",
                             "--no-html"],
                            cwd=work, env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                            stdin=subprocess.DEVNULL, preexec_fn=preexec)  # default_signals: (signal_helpers.py)
    return proc, tmp


def _wait_for_session(proc: subprocess.Popen[str], tmp: Path) -> None:
    """Until ORT saved its optimized model (with the copied weights) into the temporary folder."""
    while not any(tmp.glob("ortcopy-doctor-*/optimized.onnx*")):
        assert proc.poll() is None, proc.communicate()
        threading.Event().wait(0.05)  # poll interval only; nothing asserts on time


@pytest.mark.parametrize("signum, code, line", [
    (signal.SIGINT, 130, "error: interrupted"),
    (signal.SIGTERM, 143, "error: terminated by SIGTERM"),
    (signal.SIGHUP, 129, "error: terminated by SIGHUP"),
])
def test_signal_mid_run_gives_one_line_and_removes_the_temporary_folder(work, signum, code, line):
    proc, tmp = _start_long_check(work)
    try:
        _wait_for_session(proc, tmp)
        proc.send_signal(signum)
        try:
            stdout, stderr = proc.communicate(timeout=120)
        except subprocess.TimeoutExpired:  # what it said, to tell why (see the finalizer test below)
            proc.kill()
            stdout, stderr = proc.communicate()
            pytest.fail(f"still running 120 s after {signum.name}; stderr: {stderr[-3000:]!r}; stdout: "
                        f"{stdout[-1000:]!r}")
    finally:
        if proc.poll() is None:
            proc.kill()
    assert proc.returncode == code, stderr
    assert stderr.splitlines() == [line], stderr[-3000:]
    assert stdout == ""
    assert list(tmp.glob("ortcopy-doctor-*")) == []  # (a ".ses" file some library keeps in TMPDIR is not ours)


_FINALIZER = """
import os, signal, sys, threading, time
from ortcopy_doctor.cli import interrupts
interrupts.install()
class Slow:
    def __del__(self):  # the signal arrives while this runs: its exception is "ignored" by Python
        end = time.monotonic() + 1.0
        while time.monotonic() < end:
            pass
threading.Timer(0.2, os.kill, (os.getpid(), signal.SIG{name})).start()
try:
    slow = Slow(); del slow
    end = time.monotonic() + 20
    while time.monotonic() < end:
        pass
    print("went on")
except (interrupts.Terminated, KeyboardInterrupt) as exc:
    print("unwound", type(exc).__name__)
"""


@pytest.mark.parametrize("name, raised", [("TERM", "Terminated"), ("INT", "KeyboardInterrupt")])
def test_a_signal_during_a_finalizer_still_unwinds(tmp_path, name, raised):
    # once under `make test`'s load a SIGHUP left a check running: raised inside a __del__, the signal's exception
    # was dropped ("Exception ignored in ...") and the signals stayed ignored
    result = subprocess.run([sys.executable, "-c", _FINALIZER.replace("{name}", name)], cwd=tmp_path,
                            env=child_env(), capture_output=True, text=True, timeout=120, preexec_fn=default_signals)
    assert (result.returncode, result.stdout, result.stderr) == (0, f"unwound {raised}\n", "")


def test_ctrl_c_while_the_modules_load_is_one_line(tmp_path):
    code = ("import os, signal, sys; sys.argv[0] = '-m'; import ortcopy_doctor.cli.interrupts as i; i.install_startup(); "
            "os.kill(os.getpid(), signal.SIGINT); import ortcopy_doctor.cli.app")
    env = child_env()
    result = subprocess.run([sys.executable, "-c", code], cwd=tmp_path, env=env, capture_output=True, text=True,
                            timeout=120, check=False, preexec_fn=default_signals)
    assert result.returncode == 130
    assert result.stderr == "error: interrupted\n"


def test_ctrl_c_during_argument_parsing_is_one_line(tmp_path):
    """A real SIGINT delivered while click parses the options (from an option callback): click turns it into a
    silent exit 130; main() still prints the one line."""
    code = (
        "import os, signal, typer; from ortcopy_doctor.cli import app as cli\n"
        "def interrupt(value):\n    os.kill(os.getpid(), signal.SIGINT)\n    return value\n"
        "@cli.app.command('parse-probe')\n"
        "def probe(x: str = typer.Option('a', callback=interrupt)) -> None:\n    pass\n"
        "cli.main(['parse-probe', '--x', 'b'])\n"
    )
    env = child_env()
    result = subprocess.run([sys.executable, "-c", code], cwd=tmp_path, env=env, capture_output=True, text=True,
                            timeout=120, check=False, preexec_fn=default_signals)
    assert result.returncode == 130, result.stderr
    assert result.stderr == "error: interrupted\n"


# --- 9. argument errors are one line ---------------------------------------------------------------------------------


@pytest.mark.parametrize("args, fragment", [
    (["check"], "Missing argument"),
    (["check", "m.onnx", "--bogus"], "--bogus"),
    (["check", "m.onnx", "--runs", "0"], "--runs"),
    (["check", "m.onnx", "--fail-on", "bogus"], "--fail-on"),
    (["report"], "Missing argument"),
])
def test_argument_error_is_one_line_with_the_fix(tmp_path, args, fragment):
    result = cli(args, tmp_path)
    line = assert_one_error(result, 2, fragment, "--help")
    assert "╭" not in line and "│" not in line


def test_help_still_works(tmp_path):
    result = cli(["check", "--help"], tmp_path)
    assert result.returncode == 0
    assert "--fail-on" in result.stdout


# --- 10. outputs as a set -------------------------------------------------------------------------------------------


def test_a_failing_later_output_leaves_no_earlier_one(work):
    result = cli(["check", "model.onnx", "--dim", "batch=2", "--json", "a.json", "--html", "a.html",
                  "--trace", "/dev/full", *FAST], work)
    assert_one_error(result, 3)
    assert listing(work) == {"model.onnx"}


def test_output_files_get_the_umask_mode(work):
    result = cli(["check", "model.onnx", "--dim", "batch=2", "--json", "a.json", "-o", "a.html", *FAST], work,
                 umask=0o022)
    assert result.returncode == 0, result.stderr
    assert stat.S_IMODE(os.stat(work / "a.json").st_mode) == 0o644
    assert stat.S_IMODE(os.stat(work / "a.html").st_mode) == 0o644


def test_environment_failure_writes_only_the_partial_json(tmp_path):
    from ortcopy_doctor.cli import app as cli_module
    from ortcopy_doctor.model.errors import EnvironmentProblem
    from ortcopy_doctor.model.evidence import Evidence

    exc = EnvironmentProblem("the device ran out of memory")
    exc.partial_evidence = msgspec.structs.replace(
        codec.convert(recorded("cpu_op_between")["report"]["evidence"], Evidence), failure=exc.message)
    outputs = cli_module._outputs([], [("--json", tmp_path / "p.json"), ("--html", tmp_path / "p.html"),
                                       ("--sarif", tmp_path / "p.sarif")])
    cli_module._keep_partial_evidence(exc, outputs)
    assert sorted(p.name for p in tmp_path.iterdir()) == ["p.json"]
    assert json.loads((tmp_path / "p.json").read_text())["verdict"].startswith("Incomplete")


def test_demo_does_not_replace_another_demo_onnx(tmp_path):
    (tmp_path / "out").mkdir()
    (tmp_path / "out" / "demo.onnx").write_bytes(b"my own model")
    result = cli(["demo", "-o", "out/demo.html", "--provider", "cpu"], tmp_path)
    assert_one_error(result, 2, "demo.onnx")
    assert (tmp_path / "out" / "demo.onnx").read_bytes() == b"my own model"
    assert not (tmp_path / "out" / "demo.html").exists()


# --- 11. bounded memory (issue 38) ---------------------------------------------------------------------------------
# The budget is set low (ORTCOPY_DOCTOR_MEMORY_BUDGET) or the child's address space capped (ulimit -v), so no test
# needs the memory it is about. The child runs on one CPU, so the estimate of a profile event (collect/budget.py:
# 7,168 bytes and 64 per intra-op thread) is the same on every machine.

BUDGET = "ORTCOPY_DOCTOR_MEMORY_BUDGET"


def _one_cpu() -> None:
    os.sched_setaffinity(0, {min(os.sched_getaffinity(0))})


def _address_space(limit: int) -> Callable[[], None]:
    """``preexec_fn``: ``ulimit -v limit`` (and no core file), so that an allocation past it fails at once."""
    import resource

    def preexec() -> None:
        resource.setrlimit(resource.RLIMIT_AS, (limit, limit))
        resource.setrlimit(resource.RLIMIT_CORE, (0, 0))

    return preexec


def _no_core() -> None:
    import resource

    default_signals()
    resource.setrlimit(resource.RLIMIT_CORE, (0, 0))


CHAIN_EACH = ("each run of chain.onnx's 1,000 nodes records 1,002 profile events (about 7.2 MB of memory), and the "
              "memory budget of 25.0 MB (ORTCOPY_DOCTOR_MEMORY_BUDGET=25MB) holds 3,456 events")


def test_profiled_runs_beyond_the_memory_budget_are_lowered_with_a_note(tmp_path):
    # --runs 1000 of a 10,000-Relu model took 30 GB, and --runs 50 1.67 GB: now the runs are lowered to what fits
    onnx.save(models.relu_chain(1000), str(tmp_path / "chain.onnx"))
    result = cli(["check", "chain.onnx", "--provider", "cpu", "--warmup", "0", "--runs", "50", "--timed-runs", "1",
                  "--no-html", "--json", "r.json", "--fail-on", "never"], tmp_path, env_extra={BUDGET: "25MB"},
                 preexec=_one_cpu)
    assert result.returncode == 0, result.stderr[-3000:]
    note = f"--runs 50 lowered to 3: 50 profiled runs would record 50,108 events: {CHAIN_EACH}"
    assert result.stderr.splitlines() == [f"note: {note}"]
    evidence = json.loads((tmp_path / "r.json").read_text(encoding="utf-8"))["evidence"]
    assert evidence["timings"]["profiled_runs"] == 3
    assert [r["warmup"] for r in evidence["run_events"]] == [False, False, False]
    assert note in evidence["notes"]


def test_a_profile_that_does_not_fit_one_run_is_refused(tmp_path):
    onnx.save(models.relu_chain(1000), str(tmp_path / "chain.onnx"))
    (tmp_path / "tmp").mkdir()
    result = cli(["check", "chain.onnx", "--provider", "cpu", "--warmup", "5", "--runs", "3", "--json", "r.json"],
                 tmp_path, env_extra={BUDGET: "25MB", "TMPDIR": str(tmp_path / "tmp")}, preexec=_one_cpu)
    assert assert_one_error(result, 2) == (
        f"error: profiling 3 profiled runs after 5 warm-up runs would record 8,024 events: {CHAIN_EACH}: lower "
        "--warmup (to 2 with --runs 1)")
    assert sorted(p.name for p in tmp_path.iterdir()) == ["chain.onnx", "tmp"]  # no report
    assert list((tmp_path / "tmp").glob("ortcopy-doctor-*")) == []


def test_a_budget_that_is_no_size_is_refused(work):
    result = cli(["check", "model.onnx", "--dim", "batch=2", *FAST], work, env_extra={BUDGET: "lots"})
    assert assert_one_error(result, 2) == (
        "error: ORTCOPY_DOCTOR_MEMORY_BUDGET='lots' is not a byte count: give e.g. 2000000000, 2GB, 512MB or 4GiB")


def test_inputs_together_beyond_the_budget_are_refused_before_any_is_allocated(tmp_path):
    # 8 inputs of 4 GiB less 4 bytes, each under the per-input limit, ended in exit 4 (MemoryError). The child's
    # address space is capped below one of them, so a check that allocated them would fail at once.
    onnx.save(models.many_inputs(8), str(tmp_path / "m.onnx"))
    result = cli(["check", "m.onnx", "--dim", f"n={(1 << 30) - 1}", *FAST], tmp_path, env_extra={BUDGET: "16GiB"},
                 preexec=_address_space(3 << 30))
    shown = ", ".join(f"'x{i}' 4.3 GB" for i in range(8))
    assert assert_one_error(result, 2) == (
        f"error: the inputs would take 34.4 GB together ({shown}), more than the memory budget of 17.2 GB "
        "(ORTCOPY_DOCTOR_MEMORY_BUDGET=16GiB): lower the --dim or --shape values")


def test_inputs_file_arrays_count_toward_the_budget_before_they_are_read(tmp_path):
    onnx.save(models.many_inputs(2), str(tmp_path / "m.onnx"))
    (tmp_path / "in.npz").write_bytes(_npz_with_member("x0", (1 << 29,)))  # a 2 GiB header, 16 bytes of data
    result = cli(["check", "m.onnx", "--inputs", "in.npz", "--dim", f"n={1 << 28}", *FAST], tmp_path,
                 env_extra={BUDGET: "2GiB"}, preexec=_address_space(3 << 30))
    assert assert_one_error(result, 2) == (
        "error: the inputs would take 3.2 GB together ('x0' 2.1 GB, 'x1' 1.1 GB), more than the memory budget of "
        "2.1 GB (ORTCOPY_DOCTOR_MEMORY_BUDGET=2GiB): lower the --dim or --shape values or pass smaller arrays in "
        "--inputs")


def test_the_budget_follows_the_address_space_limit(tmp_path):
    # no ORTCOPY_DOCTOR_MEMORY_BUDGET: under ulimit -v 4 GiB an input of 4 GiB is refused, not a MemoryError
    onnx.save(models.many_inputs(1), str(tmp_path / "m.onnx"))
    result = cli(["check", "m.onnx", "--dim", f"n={(1 << 30) - 1}", *FAST], tmp_path,
                 preexec=_address_space(4 << 30))
    assert_one_error(result, 2, "error: the inputs would take 4.3 GB together ('x0' 4.3 GB), more than the memory "
                                "budget of ", ": lower the --dim or --shape values")


def test_memory_error_is_one_line_with_exit_3(tmp_path):
    # the budget let through (set high), the address space not: numpy's MemoryError was exit 4, "internal error"
    onnx.save(models.many_inputs(1), str(tmp_path / "m.onnx"))
    result = cli(["check", "m.onnx", "--dim", f"n={(1 << 30) - 1}", *FAST], tmp_path, env_extra={BUDGET: "1TB"},
                 preexec=_address_space(4 << 30))
    line = assert_one_error(result, 3, "error: out of memory (Unable to allocate 4.00 GiB for an array with shape "
                                       "(1073741823,) and data type float32): free memory, or lower what the command "
                                       "holds (check: --runs, the --dim/--shape values, --inputs; "
                                       "ORTCOPY_DOCTOR_MEMORY_BUDGET bounds what check plans for, "
                                       "docs/guarantees.md)")
    assert line.endswith("docs/guarantees.md)")


_MEMORY_ERROR_IN_SESSION = """
import sys
from ortcopy_doctor.collect import check
def parse_profile(path, *args, **kwargs):  # as the profile is read, the folder beside it
    assert path.parent.is_dir() and path.parent.name.startswith("ortcopy-doctor-")
    raise MemoryError()
check.parse_profile = parse_profile
from ortcopy_doctor.cli.app import main
main(sys.argv[1:])
"""


def test_memory_error_during_the_session_removes_the_temporary_folder(work):
    # a MemoryError Python raises cannot be made on purpose at that moment without the memory: put in its place
    tmp = work / "tmp"
    tmp.mkdir()
    result = subprocess.run([sys.executable, "-c", _MEMORY_ERROR_IN_SESSION, "check", "model.onnx", "--dim",
                             "batch=2", *FAST], cwd=work, env=child_env(TMPDIR=str(tmp)), capture_output=True,
                            text=True, timeout=120, check=False, stdin=subprocess.DEVNULL)
    assert assert_one_error(result, 3) == (
        "error: out of memory: free memory, or lower what the command holds (check: --runs, the --dim/--shape "
        "values, --inputs; ORTCOPY_DOCTOR_MEMORY_BUDGET bounds what check plans for, docs/guarantees.md)")
    assert list(tmp.glob("ortcopy-doctor-*")) == []  # (a ".ses" file some library keeps in TMPDIR is not ours)


def test_a_folder_an_aborted_check_left_is_removed_by_the_next(work):
    # The process the user started aborted, and its check child died with it (cli/supervisor.py): nothing is left
    # to remove the folder, named after the child, and the next check removes it; a folder of a process that still
    # runs stays (an abort of the check child itself: tests/project/test_supervised_check.py)
    proc, tmp = _start_long_check(work, _no_core)
    try:
        _wait_for_session(proc, tmp)
        proc.send_signal(signal.SIGABRT)
        proc.communicate(timeout=120)
    finally:
        if proc.poll() is None:
            proc.kill()
    assert proc.returncode == -signal.SIGABRT
    [left] = tmp.glob("ortcopy-doctor-*")
    namespace = os.stat("/proc/self/ns/pid").st_ino  # the same pid is the same process only in one pid namespace
    alive = tmp / f"ortcopy-doctor-{os.getpid()}-{namespace}-abcdefgh"  # this test's own process: alive
    alive.mkdir()
    result = cli(["check", "model.onnx", "--dim", "batch=2", *FAST], work, env_extra={"TMPDIR": str(tmp)})
    assert result.returncode == 0, result.stderr
    assert not left.exists()
    assert sorted(p.name for p in tmp.glob("ortcopy-doctor-*")) == [alive.name]
