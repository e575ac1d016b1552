"""The shape sets of a sweep: --dim and --shape lists, --shapes FILE, and what is refused."""

from __future__ import annotations

from pathlib import Path

import pytest

from ortcopy_doctor.collect.shape_sets import from_options
from ortcopy_doctor.model.errors import UsageError
from ortcopy_doctor.model.sweep import ShapeSet


def test_a_dim_list_gives_one_set_per_size_with_the_fixed_dims():
    assert from_options(["batch=1,8", "seq=16"], []) == [
        ShapeSet(label="batch=1", dims={"seq": 16, "batch": 1}, batch=1),
        ShapeSet(label="batch=8", dims={"seq": 16, "batch": 8}, batch=8),
    ]


def test_a_shape_list_gives_one_set_per_shape_with_its_leading_dim_as_batch():
    assert from_options([], ["x=1x3x640x640,2x3x960x544"]) == [
        ShapeSet(label="x=1x3x640x640", shapes={"x": [1, 3, 640, 640]}, batch=1),
        ShapeSet(label="x=2x3x960x544", shapes={"x": [2, 3, 960, 544]}, batch=2),
    ]


def test_no_list_gives_the_single_set():
    assert from_options(["batch=8"], []) == [ShapeSet(label="", dims={"batch": 8}, batch=8)]


def test_lists_for_two_symbols_are_refused():
    with pytest.raises(UsageError, match=r"^--dim 'seq=3,4': a list of values is allowed for one symbol only"):
        from_options(["batch=1,2", "seq=3,4"], [])


def test_a_dim_list_and_a_shape_list_are_refused():
    with pytest.raises(UsageError, match=r"^--dim and --shape both list several values"):
        from_options(["batch=1,2"], ["x=1x3,2x3"])


def test_a_list_with_a_repeated_value_is_refused():
    with pytest.raises(UsageError, match=r"give distinct values"):
        from_options(["batch=1,1"], [])


def test_a_shapes_file_skips_comments_and_blank_lines(tmp_path: Path):
    path = tmp_path / "shapes.txt"
    path.write_text("# sizes the service sees\nbatch=8  # peak\n\nx=1x3x640x640 y=1x4\n", encoding="utf-8")
    assert from_options(["seq=16"], [], path) == [
        ShapeSet(label="batch=8", dims={"seq": 16, "batch": 8}, batch=8),
        ShapeSet(label="x=1x3x640x640 y=1x4", dims={"seq": 16}, shapes={"x": [1, 3, 640, 640], "y": [1, 4]}, batch=1),
    ]


def test_a_bad_line_of_a_shapes_file_is_named(tmp_path: Path):
    path = tmp_path / "shapes.txt"
    path.write_text("batch=1\n# fine\nbatch=eight\n", encoding="utf-8")
    with pytest.raises(UsageError, match=r"^--shapes \S+shapes.txt: line 3: 'batch=eight' is not SYMBOL=N or NAME=AxBxC"):
        from_options([], [], path)


def test_a_shapes_file_with_a_list_on_the_command_line_is_refused(tmp_path: Path):
    path = tmp_path / "shapes.txt"
    path.write_text("batch=1\n", encoding="utf-8")
    with pytest.raises(UsageError, match=r"^--shapes FILE lists the shapes"):
        from_options(["batch=1,2"], [], path)
