"""The pytest plugin: a fixture that watches a session fixture and fails the test on its own host transfers."""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from typing import Any

from ortcopy_doctor.watch.recorder import Watch, watch


def pytest_watch(session_fixture: str = "session", *, except_inputs: Sequence[str] = (),
                 except_outputs: Sequence[str] = (), **watch_options: Any) -> Any:
    """A pytest fixture that watches the session fixture named ``session_fixture`` for the whole test and fails
    it (at teardown) when the test's calls made host<->device transfers of their own.

    In a conftest.py: ``watched = pytest_watch("session", except_outputs=["logits"])``; a test that asks for
    ``watched`` is audited; ``watched.report`` is there for finer assertions.
    """
    import pytest

    @pytest.fixture
    def _watched(request: Any) -> Iterator[Watch]:
        session = request.getfixturevalue(session_fixture)
        with watch(session, **watch_options) as w:
            yield w
        w.report.assert_no_host_transfers(except_inputs=except_inputs, except_outputs=except_outputs)

    return _watched
