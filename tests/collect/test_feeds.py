"""Input synthesis and overrides."""

from __future__ import annotations

import numpy as np
import pytest

from ortcopy_doctor.model.errors import UsageError
from ortcopy_doctor.model.evidence import AssumedDim, ValueInfo, describe_assumed_dims
from ortcopy_doctor.collect.feeds import build_feeds, parse_dims, parse_shapes, parse_values, unused_dims

IMAGE = ValueInfo("image", "tensor", "float32", ["batch", 3, 8, 8], "tensor(float)")
IDS = ValueInfo("ids", "tensor", "int64", ["batch", "seq"], "tensor(int64)")


def test_dims_resolve_symbols():
    arrays, feeds = build_feeds([IMAGE], dims={"batch": 4})
    assert arrays["image"].shape == (4, 3, 8, 8)
    assert (feeds[0].dtype, feeds[0].shape, feeds[0].bytes, feeds[0].source) == ("float32", [4, 3, 8, 8], 3072, "synthesized")


def test_shape_overrides_one_input():
    arrays, _ = build_feeds([IMAGE], shapes={"image": [2, 3, 8, 8]})
    assert arrays["image"].shape == (2, 3, 8, 8)


def test_integer_inputs_are_small_and_non_negative():
    arrays, _ = build_feeds([IDS], dims={"batch": 8, "seq": 64})
    assert arrays["ids"].dtype == np.int64
    assert arrays["ids"].min() >= 0 and arrays["ids"].max() <= 3


def test_synthesis_is_deterministic():
    a, _ = build_feeds([IMAGE], dims={"batch": 1})
    b, _ = build_feeds([IMAGE], dims={"batch": 1})
    assert np.array_equal(a["image"], b["image"])


def test_unresolved_symbol_names_input_and_flag():
    with pytest.raises(UsageError, match=r"input 'ids' dim 0 is the symbol 'batch': pass --dim batch=N"):
        build_feeds([IDS])


def test_shape_contradicting_a_fixed_dim_is_refused():
    with pytest.raises(UsageError, match="dim 1 is fixed to 3 by the model, got 4"):
        build_feeds([IMAGE], shapes={"image": [1, 4, 8, 8]})


def test_parse_dims_and_shapes():
    assert parse_dims(["batch=8", "seq=128"]) == {"batch": 8, "seq": 128}
    assert parse_shapes(["x=1x3x224x224", "s="]) == {"x": [1, 3, 224, 224], "s": []}
    with pytest.raises(UsageError, match="SYMBOL=N"):
        parse_dims(["batch"])
    with pytest.raises(UsageError, match="NAME=AxBxC"):
        parse_shapes(["x=1,3"])


def test_inputs_file_values_are_used(tmp_path):
    path = tmp_path / "in.npz"
    np.savez(path, ids=np.arange(6, dtype=np.int64).reshape(2, 3))
    arrays, feeds = build_feeds([IDS], inputs_file=path)
    assert arrays["ids"].tolist() == [[0, 1, 2], [3, 4, 5]]
    assert feeds[0].source == "file"


def test_absurd_size_is_refused_before_allocating():
    with pytest.raises(UsageError, match="lower the --dim or --shape values"):
        build_feeds([IMAGE], dims={"batch": 10**9})


# --- dynamic dims taken as 1, --value ---------------------------------------------------------------------------

MASK = ValueInfo("mask", "tensor", "bool", ["batch", -1, None], "tensor(bool)")
RATE = ValueInfo("sample_rate", "tensor", "int64", [], "tensor(int64)")
RATE_1 = ValueInfo("sr", "tensor", "int32", ["n"], "tensor(int32)")


def test_unsized_dims_are_taken_as_1_and_recorded():
    assumed: list[AssumedDim] = []
    arrays, feeds = build_feeds([IDS, MASK], dims={"seq": 5}, assumed=assumed)
    assert arrays["ids"].shape == (1, 5) and arrays["mask"].shape == (1, 1, 1)
    assert assumed == [
        AssumedDim("ids", 0, "batch", 1, "--dim batch=N"),
        AssumedDim("mask", 0, "batch", 1, "--dim batch=N"),
        AssumedDim("mask", 1, "-1", 1, "--shape mask=AxBxC"),
        AssumedDim("mask", 2, "", 1, "--shape mask=AxBxC"),
    ]


def test_assumed_dims_described_one_line_per_symbol_then_per_unnamed_dim():
    assumed: list[AssumedDim] = []
    build_feeds([IDS, MASK], dims={"seq": 5}, assumed=assumed)
    assert describe_assumed_dims(assumed) == [
        "dim 'batch' (input 'ids' axis 0, 'mask' axis 0) assumed 1: set it with --dim batch=N",
        "input 'mask' axis 1 (declared -1) assumed 1: set it with --shape mask=AxBxC",
        "input 'mask' axis 2 (no size or name) assumed 1: set it with --shape mask=AxBxC",
    ]


def test_non_positive_literal_dim_is_refused_when_strict():
    with pytest.raises(UsageError, match=r"input 'mask' dim 1 is declared as -1 in the model, which is not a size"):
        build_feeds([MASK], dims={"batch": 1})


def test_sized_dims_are_not_recorded_as_assumed():
    assumed: list[AssumedDim] = []
    build_feeds([IDS], dims={"batch": 2, "seq": 3}, assumed=assumed)
    assert assumed == []


def test_value_gives_a_scalar_input_in_the_model_dtype():
    arrays, feeds = build_feeds([RATE], values={"sample_rate": "16000"})
    assert (arrays["sample_rate"].dtype, arrays["sample_rate"].shape, arrays["sample_rate"].item()) == (
        np.dtype("int64"), (), 16000)
    assert (feeds[0].source, feeds[0].bytes) == ("value", 8)


def test_value_fills_a_one_element_input_with_a_dynamic_dim():
    arrays, _ = build_feeds([RATE_1], values={"sr": "8000"}, assumed=[])
    assert (arrays["sr"].dtype, arrays["sr"].tolist()) == (np.dtype("int32"), [8000])


def test_value_that_is_not_of_the_model_dtype_is_refused():
    with pytest.raises(UsageError, match=r"--value sample_rate=16k: input 'sample_rate' is int64 in the model, "
                                         r"and '16k' is not a valid int64 value"):
        build_feeds([RATE], values={"sample_rate": "16k"})


def test_value_for_an_input_of_many_elements_is_refused():
    with pytest.raises(UsageError, match=r"--value image=1: input 'image' has shape \[batch, 3, 8, 8\], more than "
                                         r"one element: pass it with --inputs FILE.npz"):
        build_feeds([IMAGE], values={"image": "1"})


def test_value_naming_no_input_is_refused():
    with pytest.raises(UsageError, match=r"--value names 'rate', which is not an input of the model"):
        build_feeds([RATE], values={"rate": "1"})


def test_parse_values():
    assert parse_values(["sr=16000", "flag = true"]) == {"sr": "16000", "flag": "true"}
    with pytest.raises(UsageError, match=r"--value 'sr' is not NAME=V"):
        parse_values(["sr"])


def test_a_dim_symbol_may_hold_an_equals_sign():
    """The size follows the last '=': the flag the refusal for such a symbol names (`--dim bat=ch=N`) works."""
    assert parse_dims(["bat=ch=2"]) == {"bat=ch": 2}
    assert parse_shapes(["in=put=2x3"]) == {"in=put": [2, 3]}


@pytest.mark.parametrize("parse, values, message", [
    (parse_dims, ["batch=2", "batch=5"], "--dim batch is given twice, with two values: give it once"),
    (parse_shapes, ["x=1x2", "x=2x2"], "--shape x is given twice, with two values: give it once"),
    (parse_values, ["sr=1", "sr=2"], "--value sr is given twice, with two values: give it once"),
])
def test_a_flag_given_twice_with_two_values_is_refused(parse, values, message):
    with pytest.raises(UsageError) as exc:
        parse(values)
    assert str(exc.value) == message


def test_a_flag_given_twice_with_one_value_is_taken():
    assert parse_dims(["batch=2", "batch=2"]) == {"batch": 2}


HALF = ValueInfo("x", "tensor", "float16", [2], "tensor(float16)")
HALF_1 = ValueInfo("h", "tensor", "float16", [], "tensor(float16)")


def test_a_float_value_beyond_its_dtype_is_refused_not_made_inf():
    with pytest.raises(UsageError) as exc:
        build_feeds([HALF_1], values={"h": "70000"})
    assert str(exc.value) == "--value h=70000: 70000 is out of the range of float16 (largest 65504): give a smaller value, or inf"


def test_inf_is_a_float_value():
    arrays, _ = build_feeds([HALF_1], values={"h": "-inf"})
    assert arrays["h"].item() == float("-inf")


def test_a_value_with_a_shape_is_checked_against_the_fixed_dims():
    with pytest.raises(UsageError) as exc:
        build_feeds([HALF], values={"x": "1"}, shapes={"x": [1]})
    assert str(exc.value) == "--shape x: dim 0 is fixed to 2 by the model, got 1"


def test_an_input_numpy_cannot_hold_points_to_static_not_to_an_npz():
    """--inputs cannot carry bfloat16 (np.savez writes |V2, refused): the message sends to what works."""
    brain = ValueInfo("b", "tensor", "bfloat16", [2], "tensor(bfloat16)")
    with pytest.raises(UsageError) as exc:
        build_feeds([brain])
    assert str(exc.value) == ("input 'b' has element type bfloat16, which cannot be synthesized: numpy has no bfloat16 "
                              "type, so an .npz cannot give it either; check this model with --static, which needs no "
                              "inputs")


def test_an_npz_for_an_input_of_no_element_type_is_not_told_to_astype_undefined(tmp_path):
    path = tmp_path / "in.npz"
    np.savez(path, x=np.zeros(2, np.float32))
    untyped = ValueInfo("x", "tensor", "undefined", [2], "tensor(undefined)")
    with pytest.raises(UsageError) as exc:
        build_feeds([untyped], inputs_file=path)
    assert str(exc.value) == ("--inputs 'x' has dtype float32, the model expects undefined: numpy has no undefined "
                              "type, so an .npz cannot give it either; check this model with --static, which needs no "
                              "inputs")


def test_a_dim_no_input_has_is_taken_without_effect():
    """One set of --dim flags serves every model a CI job checks: a model whose batch is fixed is not refused."""
    arrays, _ = build_feeds([IDS], dims={"batch": 2, "seq": 3, "channels": 3})
    assert arrays["ids"].shape == (2, 3)


def test_a_shape_contradicting_a_dim_is_refused():
    with pytest.raises(UsageError) as exc:
        build_feeds([IMAGE], dims={"batch": 2}, shapes={"image": [7, 3, 8, 8]})
    assert str(exc.value) == ("--shape image: dim 0 is the symbol 'batch', which --dim batch=2 sizes, got 7: give one "
                              "size")


@pytest.mark.parametrize("dtype, text, expected", [("float32", "3.4028235e+38", 3.4028234663852886e+38),
                                                   ("float16", "65519", 65504.0)])
def test_a_float_value_that_rounds_to_its_dtypes_largest_is_taken(dtype, text, expected):
    """numpy prints float32's largest as 3.4028235e+38, a hair above it: the value the model gets is the largest."""
    value = ValueInfo("h", "tensor", dtype, [], f"tensor({dtype})")
    arrays, _ = build_feeds([value], values={"h": text})
    assert arrays["h"].item() == expected


def test_a_float_value_beyond_every_float_is_refused_not_made_inf():
    with pytest.raises(UsageError, match=r"--value h=1e400: 1e400 is out of the range of float16"):
        build_feeds([HALF_1], values={"h": "1e400"})


# --- a --dim that sizes nothing, spelled like a symbol left unsized ---------------------------------------------

def test_a_dim_spelled_like_an_unsized_symbol_is_named_on_the_assumed_dim():
    assumed: list[AssumedDim] = []
    build_feeds([IDS], dims={"bacth": 8, "seq": 5}, assumed=assumed)
    assert assumed == [AssumedDim("ids", 0, "batch", 1, "--dim batch=N", near="bacth")]


def test_the_assumed_dim_line_asks_whether_the_dim_given_is_a_typo():
    assumed: list[AssumedDim] = []
    build_feeds([IDS], dims={"bacth": 8, "seq": 5}, assumed=assumed)
    assert describe_assumed_dims(assumed) == [
        "dim 'batch' (input 'ids' axis 0) assumed 1: set it with --dim batch=N "
        "(--dim bacth=... was given, which sizes no dim of the model: a typo?)"]


def test_strict_shapes_names_the_dim_given_that_looks_like_a_typo():
    with pytest.raises(UsageError) as exc:
        build_feeds([IDS], dims={"Batch": 8, "seq": 5})
    assert exc.value.message == ("input 'ids' dim 0 is the symbol 'batch': pass --dim batch=N (or --shape ids=AxBxC); "
                                 "the --dim Batch=... given sizes no dim of the model: a typo?")


def test_a_dim_that_sizes_another_input_is_no_typo():
    # 'seq' sizes ids; 'seq2' is left unsized: 'seq' is a symbol of the model, not a misspelling of 'seq2'
    two = ValueInfo("two", "tensor", "int64", ["seq2"], "tensor(int64)")
    assumed: list[AssumedDim] = []
    build_feeds([IDS, two], dims={"batch": 1, "seq": 5}, assumed=assumed)
    assert assumed == [AssumedDim("two", 0, "seq2", 1, "--dim seq2=N")]


def test_a_dim_unlike_every_unsized_symbol_is_not_named():
    assumed: list[AssumedDim] = []
    build_feeds([IDS], dims={"height": 8, "seq": 5}, assumed=assumed)
    assert assumed == [AssumedDim("ids", 0, "batch", 1, "--dim batch=N")]


def test_a_name_inside_a_dim_expression_counts_as_used():
    past = ValueInfo("kv", "tensor", "float", ["past + 1"], "tensor(float)")
    assert unused_dims([past], {"past": 3, "pats": 2}) == ["pats"]


def test_inputs_together_past_the_budget_are_refused_before_any_is_allocated():
    import tracemalloc

    from ortcopy_doctor.collect.budget import Budget

    inputs = [ValueInfo(f"x{i}", "tensor", "float32", ["n"], "tensor(float)") for i in range(3)]
    tracemalloc.start()
    try:
        with pytest.raises(UsageError) as error:
            build_feeds(inputs, dims={"n": 1 << 22}, budget=Budget(bytes=40_000_000, source="a test's"))
        _, peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    assert error.value.message == ("the inputs would take 50.3 MB together ('x0' 16.8 MB, 'x1' 16.8 MB, 'x2' 16.8 MB), "
                                   "more than the memory budget of 40.0 MB (a test's): lower the --dim or --shape "
                                   "values")
    assert peak < 1 << 20  # none of the 16.8 MB arrays was made


def test_inputs_within_the_budget_are_made_and_static_inputs_are_not_counted():
    from ortcopy_doctor.collect.budget import Budget

    inputs = [ValueInfo(f"x{i}", "tensor", "float32", ["n"], "tensor(float)") for i in range(3)]
    arrays, _ = build_feeds(inputs, dims={"n": 1000}, budget=Budget(bytes=12_000, source="a test's"))
    assert [a.nbytes for a in arrays.values()] == [4000, 4000, 4000]
    _, feeds = build_feeds(inputs, dims={"n": 1 << 22}, make_arrays=False, budget=Budget(bytes=1, source="a test's"))
    assert [f.bytes for f in feeds] == [1 << 24] * 3  # described, never allocated: nothing to bound
