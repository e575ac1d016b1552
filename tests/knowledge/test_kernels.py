"""The kernel table (tools/gen_kernel_table.py -> ortcopy_doctor/knowledge/data/kernels.json) and its lookups."""

from __future__ import annotations

import importlib.util
import json

import pytest

from ortcopy_doctor.knowledge.kernels import KernelTable
from render_helpers import REPO

CUDA = "CUDAExecutionProvider"
CPU = "CPUExecutionProvider"


@pytest.fixture(scope="module")
def table() -> KernelTable:
    return KernelTable.load()


def _gen_module():
    spec = importlib.util.spec_from_file_location("gen_kernel_table", REPO / "tools" / "gen_kernel_table.py")
    assert spec and spec.loader
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod


# --- the table as parsed ---------------------------------------------------------------------


def test_source_records_commit(table: KernelTable) -> None:
    assert table.source["commit"] == "001d12d2623fd411ce0f83d05abb5e82304a3389"
    assert table.source["file"] == "tools/data/ort/OperatorKernels.md"


def test_every_op_decodes_as_the_json_says(table: KernelTable) -> None:
    """An op's registrations are decoded when first asked for: each op of the file gives what its JSON holds."""
    data = json.loads((REPO / "ortcopy_doctor" / "knowledge" / "data" / "kernels.json").read_text(encoding="utf-8"))
    decoded = {
        (provider, domain, op): [[r.since, r.until, {k: list(v) for k, v in r.types.items()},
                                  [list(p) for p in r.inputs], [list(p) for p in r.outputs]]
                                 for r in table.registrations(provider, domain, op)]
        for provider, domains in data["providers"].items() for domain, ops in domains.items() for op in ops
    }
    assert decoded == {
        (provider, domain, op): [[r["since"], r["until"], r["types"], r["inputs"], r["outputs"]] for r in regs]
        for provider, domains in data["providers"].items() for domain, ops in domains.items()
        for op, regs in ops.items()
    }


def test_registrations_are_a_copy(table: KernelTable) -> None:
    """What ``registrations`` returns is the caller's: emptying it leaves the table's as it was."""
    table.registrations(CUDA, "", "MatMul").clear()
    assert table.registrations(CUDA, "", "MatMul")


def test_providers(table: KernelTable) -> None:
    assert table.providers == [CPU, CUDA]


def test_celu_has_no_cuda_kernel(table: KernelTable) -> None:
    assert not table.has_op(CUDA, "", "Celu")
    assert table.has_op(CPU, "", "Celu")


def test_matmul_has_cuda_kernel(table: KernelTable) -> None:
    assert table.has_op(CUDA, "ai.onnx", "MatMul")


def test_domain_empty_and_ai_onnx_are_the_same(table: KernelTable) -> None:
    assert table.registrations(CUDA, "", "Add") == table.registrations(CUDA, "ai.onnx", "Add")


def test_opset_ranges_parsed(table: KernelTable) -> None:
    ranges = [(r.since, r.until) for r in table.registrations(CUDA, "", "Add")]
    assert ranges == [(14, None), (13, 13), (7, 12)]


def test_types_converted_to_numpy_names(table: KernelTable) -> None:
    conv = table.registrations(CPU, "", "Conv")[0]
    assert conv.types == {"T": ("float32",)}
    abs13 = table.registrations(CPU, "", "Abs")[0]
    assert abs13.types["T"][:2] == ("float64", "float32")


def test_parameters_kept(table: KernelTable) -> None:
    reg = table.registrations(CUDA, "", "Reshape")[0]
    assert reg.inputs == (("data", "T"), ("shape", "int64"))
    assert reg.outputs == (("reshaped", "T"),)


def test_non_tensor_types_keep_ort_spelling(table: KernelTable) -> None:
    zipmap = table.registrations(CPU, "ai.onnx.ml", "ZipMap")[0]
    assert zipmap.types["T"] == ("seq(map(int64,tensor(float)))", "seq(map(string,tensor(float)))")


def test_or_signature_picked_by_constraints(table: KernelTable) -> None:
    # BatchNormalization-14 uses T and U; its row's parameter cell lists three signatures
    bn14 = next(r for r in table.registrations(CPU, "", "BatchNormalization") if r.since == 14)
    assert [t for _, t in bn14.inputs] == ["T", "T", "T", "U", "U"]


def test_generated_file_is_up_to_date() -> None:
    gen = _gen_module()
    doc = gen.build((REPO / gen.DEFAULT_SOURCE).resolve(), gen.DEFAULT_SOURCE)
    assert gen.dumps(doc) == (REPO / gen.DEFAULT_OUT).read_text(encoding="utf-8")


def test_generated_file_is_compact() -> None:
    text = (REPO / "ortcopy_doctor" / "knowledge" / "data" / "kernels.json").read_text(encoding="utf-8")
    assert text.count("\n") == 1
    assert set(json.loads(text)) == {"source", "providers"}


def test_opset_cell_forms() -> None:
    gen = _gen_module()
    assert [gen.parse_opset(c) for c in ("13+", "[6, 12]", "13")] == [(13, None), (6, 12), (13, 13)]


def test_type_cell_with_nested_commas() -> None:
    gen = _gen_module()
    cell = "**T1** = map(int64,tensor(float)), tensor(double)<br/> **T2** = tensor(string), seq(tensor(float))"
    assert gen.parse_types(cell) == {
        "T1": ["map(int64,tensor(float))", "float64"],
        "T2": ["str", "seq(tensor(float))"],
    }


# --- lookups ---------------------------------------------------------------------------------


def test_lookup_ok(table: KernelTable) -> None:
    m = table.lookup(CUDA, "ai.onnx", "Add", 14, ["float32", "float32"])
    assert (m.found, m.reason, m.message) == (True, "ok", "")
    assert (m.registration.since, m.registration.until) == (14, None)


def test_lookup_no_op(table: KernelTable) -> None:
    m = table.lookup(CUDA, "", "Celu", 12, ["float32"])
    assert (m.found, m.reason) == (False, "no_op")
    assert m.message == "no CUDA kernel for Celu"


def test_lookup_no_opset_gives_nearest(table: KernelTable) -> None:
    m = table.lookup(CUDA, "", "Add", 6, ["float32", "float32"])
    assert (m.found, m.reason, m.nearest_opset) == (False, "no_opset", 7)
    assert m.message == "no CUDA kernel for opset 6 of Add (nearest: 7)"


def test_lookup_no_type_names_input_and_suggests_cast(table: KernelTable) -> None:
    # CUDA Conv-22 takes bfloat16, float64, float32, float16: not int64
    m = table.lookup(CUDA, "", "Conv", 22, ["int64", "int64", None])
    assert (m.found, m.reason) == (False, "no_type")
    assert (m.arg_kind, m.arg_index, m.arg_name, m.arg_type) == ("input", 0, "X", "int64")
    assert m.supported_types == ("float32", "float16", "bfloat16", "float64")
    assert m.suggested_cast == "float32"
    assert m.message == (
        "no CUDA kernel for input 0 type int64 of Conv (supported: float32, float16, bfloat16, float64); "
        "a Cast to float32 would help"
    )


def test_lookup_no_type_cast_stays_in_family(table: KernelTable) -> None:
    # CPU Relu-14 takes float64, float32, int32, int8: no float16
    m = table.lookup(CPU, "", "Relu", 14, ["float16"])
    assert m.reason == "no_type"
    assert m.suggested_cast == "float32"


def test_lookup_unknown_types_match(table: KernelTable) -> None:
    m = table.lookup(CUDA, "", "Conv", 22, [None, None, None])
    assert m.reason == "ok"


def test_lookup_variadic_inputs_use_last_formal(table: KernelTable) -> None:
    ok = table.lookup(CUDA, "", "Sum", 13, ["float32", "float32", "float32"])
    bad = table.lookup(CUDA, "", "Sum", 13, ["float32", "float32", "int64"])
    assert ok.reason == "ok"
    assert (bad.reason, bad.arg_index, bad.arg_name) == ("no_type", 2, "data_0")


def test_lookup_checks_outputs(table: KernelTable) -> None:
    # ZipMap's input is fixed to float by the schema; the kernel constrains its output type
    m = table.lookup(CPU, "ai.onnx.ml", "ZipMap", 1, ["float32"], ["seq(map(int64,tensor(float)))"])
    bad = table.lookup(CPU, "ai.onnx.ml", "ZipMap", 1, ["float32"], ["seq(map(int64,tensor(double)))"])
    assert m.reason == "ok"
    assert (bad.reason, bad.arg_kind, bad.arg_index, bad.suggested_cast) == ("no_type", "output", 0, None)


def test_kernel_source_is_vendored_in_the_repository() -> None:
    gen = _gen_module()
    source = (REPO / gen.DEFAULT_SOURCE).resolve()
    assert source.is_relative_to(REPO)
    assert source.is_file()
    assert gen.read_commit(source.parent / "SOURCE.md") == "001d12d2623fd411ce0f83d05abb5e82304a3389"
