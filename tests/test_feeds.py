"""Input synthesis and overrides."""

from __future__ import annotations

import numpy as np
import pytest

from ortcopy_doctor.errors import UsageError
from ortcopy_doctor.evidence import ValueInfo
from ortcopy_doctor.feeds import build_feeds, parse_dims, parse_shapes

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
