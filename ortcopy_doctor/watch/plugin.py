"""The pytest plugin: a fixture that watches a session fixture and fails the test on its own host transfers."""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from typing import Any

from ortcopy_doctor.watch.recorder import Watch, watch


def watch_fixture(session_fixture: str = "session", *, except_inputs: Sequence[str] = (),
                  except_outputs: Sequence[str] = (), **watch_options: Any) -> Any:
    """A pytest fixture that watches the session fixture named ``session_fixture`` for the whole test and fails
    it (at teardown) when the test's calls made host<->device transfers of their own.

    In a conftest.py: ``from ortcopy_doctor import watch_fixture`` and ``watched = watch_fixture("session",
    except_outputs=["logits"])``; a test that asks for ``watched`` is audited; ``watched.report`` is there for finer
    assertions. (Its first name, ``pytest_watch``, still works, but not imported by that name into a conftest.py:
    pytest takes every ``pytest_*`` name there for a hook and stops with "unknown hook".)
    """
    import pytest

    @pytest.fixture
    def _watched(request: Any) -> Iterator[Watch]:
        session = request.getfixturevalue(session_fixture)
        with watch(session, **watch_options) as w:
            yield w
        w.report.assert_no_host_transfers(except_inputs=except_inputs, except_outputs=except_outputs)

    return _watched


pytest_watch = watch_fixture  # the first name; see watch_fixture's docstring
