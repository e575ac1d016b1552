"""The evidence session's temporary folder (ortcopy_doctor.collect.scratch): named after its process, and removed
by the next check where its process ended without removing it (an abort, SIGKILL)."""

from __future__ import annotations

import os
import subprocess
import sys
import tempfile
from pathlib import Path

import pytest

from ortcopy_doctor.collect.scratch import _pid_namespace, remove_stale, session_folder


def _dead_pid() -> int:
    child = subprocess.Popen([sys.executable, "-c", "pass"])
    child.wait()
    return child.pid


def test_only_folders_of_processes_that_ended_in_this_namespace_are_removed(tmp_path):
    namespace = _pid_namespace()
    dead, alive = _dead_pid(), os.getpid()
    (tmp_path / f"ortcopy-doctor-{dead}-{namespace}-abcdefgh").mkdir()
    (tmp_path / f"ortcopy-doctor-{dead}-{namespace}-abcdefgh" / "optimized.onnx").write_bytes(b"x")
    kept = [f"ortcopy-doctor-{alive}-{namespace}-abcdefgh",  # its process runs
            f"ortcopy-doctor-{dead}-{namespace + 1}-abcdefgh",  # another pid namespace: that pid is another process
            f"ortcopy-doctor-{dead}-{namespace}-abc",  # not a name a check makes
            "ortcopy-doctor-x1y2z3w4"]  # a check's of before issue 38 (its process unknown)
    for name in kept:
        (tmp_path / name).mkdir()
    target = tmp_path / "elsewhere"
    target.mkdir()
    (target / "keep").write_bytes(b"x")
    link = f"ortcopy-doctor-{dead}-{namespace}-linkxxxx"
    (tmp_path / link).symlink_to(target)  # a link named like a folder to remove: neither it nor its target
    assert remove_stale(tmp_path, namespace) == [f"ortcopy-doctor-{dead}-{namespace}-abcdefgh"]
    assert sorted(p.name for p in tmp_path.iterdir()) == sorted([*kept, "elsewhere", link])
    assert (target / "keep").exists()


def test_the_folder_is_named_after_its_process_and_removed_on_memory_error(tmp_path, monkeypatch):
    monkeypatch.setattr(tempfile, "tempdir", str(tmp_path))
    with pytest.raises(MemoryError):
        with session_folder() as folder:
            assert folder.parent == tmp_path
            assert folder.name.startswith(f"ortcopy-doctor-{os.getpid()}-{_pid_namespace()}-")
            (folder / "profile.json").write_text("[]")
            raise MemoryError
    assert list(Path(tmp_path).iterdir()) == []
