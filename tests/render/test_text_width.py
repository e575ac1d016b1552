"""`render_text`'s width: a number of columns it can lay the report out in, or a clear error."""

from __future__ import annotations

import pytest

from ortcopy_doctor.model.errors import UsageError
from ortcopy_doctor.render.text import render_text
from render_helpers import load_fixture


@pytest.mark.parametrize("width", [0, -5, 19, "80", 80.0, True])
def test_a_width_that_is_no_number_of_columns_is_refused(tmp_path, width):
    """A width of 0 or below once gave an empty string, silently."""
    with pytest.raises(UsageError, match=r"^render_text\(width=.*\): give the number of columns, 20 or more$"):
        render_text(load_fixture("demo", tmp_path), width=width)


def test_the_narrowest_width_lays_the_report_out(tmp_path):
    text = render_text(load_fixture("demo", tmp_path), width=20)
    assert text.startswith("6 host↔device copies\n") and max(len(line) for line in text.splitlines()) <= 20
