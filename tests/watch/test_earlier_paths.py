"""run's analysis moved out of watch/ (issue 33, part 1: watch/ is a collector): the pipeline analysis is
report/pipeline.py's, what each watched call copied analysis/watch.py's; the earlier import paths still give the same
objects."""

from __future__ import annotations

import importlib


def test_the_earlier_pipeline_path_gives_the_same_names():
    earlier = importlib.import_module("ortcopy_doctor.watch.pipeline")
    now = importlib.import_module("ortcopy_doctor.report.pipeline")
    assert earlier.__all__ == now.__all__
    assert all(getattr(earlier, name) is getattr(now, name) for name in now.__all__)


def test_the_earlier_watch_analysis_path_gives_analyse_watch():
    earlier = importlib.import_module("ortcopy_doctor.watch.analysis")
    assert earlier.analyse_watch is importlib.import_module("ortcopy_doctor.analysis.watch").analyse_watch


def test_watch_holds_no_analysis_of_its_own():
    """watch/'s modules are the recorder, the program's interpreter, the replay and the code check: the two that
    held analysis are re-exports of one import line each."""
    import ast
    from pathlib import Path

    folder = Path(importlib.import_module("ortcopy_doctor.watch").__file__).parent
    for name in ("pipeline.py", "analysis.py"):
        body = ast.parse((folder / name).read_text()).body
        kinds = {type(node).__name__ for node in body[1:]}  # after the docstring
        assert kinds <= {"ImportFrom", "Assign"}, (name, kinds)
