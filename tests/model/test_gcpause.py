"""model.gcpause: the cyclic garbage collector is off inside a paused step and as it was after it, also after an
exception and when steps nest; the steps that use it leave it on. The ``ortcopy-doctor`` command collects with its
own thresholds, the library and a program that ``run`` watches with the ones they had."""

from __future__ import annotations

import gc
import os
import subprocess
import sys

import pytest

from render_helpers import child_env
from ortcopy_doctor.model.gcpause import (
    COMMAND_THRESHOLDS,
    default_thresholds,
    gc_paused,
    without_cyclic_gc,
)


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


# --- the command's collection thresholds (for_the_command, default_thresholds) ---------------------------------

def _thresholds_in(code: str, *argv: str) -> str:
    """What a fresh Python prints running ``code`` (with the checkout first on the path)."""
    env = child_env()
    result = subprocess.run([sys.executable, *argv, "-c", code] if argv else [sys.executable, "-c", code],
                            capture_output=True, text=True, env=env, timeout=120)
    assert result.returncode == 0, result.stderr
    return result.stdout.strip()


def test_importing_the_library_leaves_the_thresholds_as_they_were():
    assert _thresholds_in("import gc; before = gc.get_threshold(); import ortcopy_doctor.api, ortcopy_doctor.cli.app;"
                          " print(gc.get_threshold() == before)") == "True"


def test_the_command_collects_with_its_own_thresholds(tmp_path):
    # `python -m ortcopy_doctor` with `--version`, the command's own process, prints nothing of its thresholds:
    # a sitecustomize of this test prints them at exit.
    (tmp_path / "sitecustomize.py").write_text(
        "import atexit, gc, os\n"
        "atexit.register(lambda: os.write(1, repr(gc.get_threshold()).encode()))\n")
    env = child_env(tmp_path)
    result = subprocess.run([sys.executable, "-m", "ortcopy_doctor", "--version"], capture_output=True, text=True,
                            env=env, timeout=120)
    assert result.returncode == 0, result.stderr
    assert result.stdout.endswith(repr(COMMAND_THRESHOLDS))


def test_the_console_script_collects_with_its_own_thresholds(tmp_path):
    # the `ortcopy-doctor` script pip writes (cli/app.py sets them as it loads, __main__.py for `python -m`)
    (tmp_path / "sitecustomize.py").write_text(
        "import atexit, gc, os\n"
        "atexit.register(lambda: os.write(1, repr(gc.get_threshold()).encode()))\n")
    (tmp_path / "ortcopy-doctor").write_text(
        "import sys\nfrom ortcopy_doctor.cli.app import main\nif __name__ == '__main__':\n    sys.exit(main())\n")
    env = child_env(tmp_path)
    result = subprocess.run([sys.executable, str(tmp_path / "ortcopy-doctor"), "--version"], capture_output=True,
                            text=True, env=env, timeout=120)
    assert result.returncode == 0, result.stderr
    assert result.stdout.endswith(repr(COMMAND_THRESHOLDS))


def test_default_thresholds_gives_back_those_found_before_the_command():
    code = ("import gc; gc.set_threshold(500, 5, 5)\n"
            "from ortcopy_doctor.model.gcpause import for_the_command, default_thresholds\n"
            "for_the_command(); inside = None\n"
            "with default_thresholds(): inside = gc.get_threshold()\n"
            "print(inside, gc.get_threshold())")
    assert _thresholds_in(code) == f"(500, 5, 5) {COMMAND_THRESHOLDS}"


def test_default_thresholds_without_the_command_changes_nothing():
    before = gc.get_threshold()
    with default_thresholds():
        assert gc.get_threshold() == before
    assert gc.get_threshold() == before


def test_the_command_freezes_what_a_paused_step_built():
    # the young collection over everything a step built (124 ms after `report` re-read a 10k-node JSON) never runs
    code = ("import gc\n"
            "from ortcopy_doctor.model.gcpause import for_the_command, gc_paused\n"
            "for_the_command(); gc.collect(); before = gc.get_freeze_count()\n"
            "with gc_paused(): built = [[i] for i in range(50_000)]\n"
            "print(gc.get_freeze_count() - before >= 50_000, gc.get_count()[0] < 1_000, gc.isenabled())")
    assert _thresholds_in(code) == "True True True"


def test_the_library_never_freezes():
    before = gc.get_freeze_count()
    with gc_paused():
        built = [[i] for i in range(10_000)]
    assert gc.get_freeze_count() == before
    assert len(built) == 10_000


@pytest.mark.skipif(gc.get_freeze_count() != 0, reason="objects are frozen in this process (Python 3.12 freezes "
                    "some at start-up): the library leaves them frozen, see the next test")
def test_the_library_leaves_what_a_step_built_to_the_oldest_generation():
    # not walked by the next young collection (80 ms after a 10k-node load_report), and nothing stays frozen
    with gc_paused():
        built = [[i] for i in range(50_000)]
    assert (gc.get_freeze_count(), gc.isenabled()) == (0, True)
    assert any(o is built for o in gc.get_objects(generation=2))


def test_the_library_does_not_unfreeze_what_the_process_froze():
    code = ("import gc\n"
            "from ortcopy_doctor.model.gcpause import gc_paused\n"
            "kept = [[i] for i in range(1_000)]; gc.freeze(); frozen = gc.get_freeze_count()\n"
            "with gc_paused(): built = [[i] for i in range(50_000)]\n"
            "print(gc.get_freeze_count() == frozen, any(o is built for o in gc.get_objects(generation=2)))")
    assert _thresholds_in(code) == "True False"


def test_a_watched_program_is_not_frozen_by_a_step_inside_it():
    code = ("import gc\n"
            "from ortcopy_doctor.model.gcpause import default_thresholds, for_the_command, gc_paused\n"
            "for_the_command(); gc.collect()\n"
            "start = gc.get_freeze_count()  # 375 at start-up on Python 3.12, 0 on 3.11 and 3.13\n"
            "with default_thresholds():\n"
            "    program = [[i] for i in range(10_000)]\n"
            "    with gc_paused(): step = [[i] for i in range(10_000)]\n"
            "inside = gc.get_freeze_count() - start\n"
            "with gc_paused(): after = [[i] for i in range(10_000)]\n"
            "print(inside, gc.get_freeze_count() - start >= 30_000)")
    assert _thresholds_in(code) == "0 True"


def test_another_module_run_with_dash_m_that_imports_the_library_is_not_the_command(tmp_path):
    # while Python starts `python -m other`, sys.argv is ['-m'] as for `python -m ortcopy_doctor`: only the
    # command's own module gets the command's thresholds and freezing
    (tmp_path / "otherpkg").mkdir()
    (tmp_path / "otherpkg" / "__init__.py").write_text("import ortcopy_doctor\n", encoding="utf-8")
    (tmp_path / "otherpkg" / "__main__.py").write_text(
        "import gc\nfrom ortcopy_doctor.model import gcpause\n"
        "print(gc.get_threshold() == gcpause.COMMAND_THRESHOLDS, gcpause._freeze_after_steps)\n", encoding="utf-8")
    env = child_env(tmp_path)
    result = subprocess.run([sys.executable, "-m", "otherpkg"], capture_output=True, text=True, env=env, timeout=120)
    assert result.returncode == 0, result.stderr
    assert result.stdout.strip() == "False False"
