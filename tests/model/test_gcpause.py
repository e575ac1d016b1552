"""model.gcpause: the cyclic garbage collector is off inside a paused step and as it was after it, also after an
exception and when steps nest; the steps that use it leave it on."""

from __future__ import annotations

import gc

import pytest

from ortcopy_doctor.model.gcpause import gc_paused, without_cyclic_gc


@pytest.fixture(autouse=True)
def collector_on():
    gc.enable()
    yield
    gc.enable()


@without_cyclic_gc
def _state() -> bool:
    return gc.isenabled()


def test_the_collector_is_off_inside_and_back_on_after():
    assert (_state(), gc.isenabled()) == (False, True)


def test_a_collector_that_was_off_stays_off():
    gc.disable()
    assert (_state(), gc.isenabled()) == (False, False)


def test_the_collector_comes_back_after_an_exception():
    @without_cyclic_gc
    def fails() -> None:
        raise ValueError("x")

    with pytest.raises(ValueError):
        fails()
    assert gc.isenabled()


def test_a_nested_step_leaves_the_outer_one_paused():
    with gc_paused():
        inner = _state()
        after_inner = gc.isenabled()
    assert (inner, after_inner, gc.isenabled()) == (False, False, True)


def test_analyse_leaves_the_collector_on(tmp_path):
    from render_helpers import load_fixture

    from ortcopy_doctor.render.html import render_html
    from ortcopy_doctor.report.core import analyse

    report = load_fixture("cpu_op_between", tmp_path)
    analyse(report.evidence)
    render_html(report)
    report.to_json()
    assert gc.isenabled()
