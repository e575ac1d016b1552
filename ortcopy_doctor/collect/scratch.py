"""The evidence session's temporary folder (ORT's optimized model, with a copy of the weights, and its profile):
removed as the check ends, and, where a process ended without removing it, by the next check.

Python removes the folder on every exit it sees: an error, ``MemoryError``, Ctrl-C, SIGTERM and SIGHUP (turned into
exceptions by ``cli.interrupts``). It sees no SIGKILL (the kernel's OOM killer sends one) and no abort: onnxruntime
aborts the process (SIGABRT, exit 134) where an allocation fails inside native code that cannot report it, as when
``ulimit -v`` runs out during a profiled run. From the command line the process the user started sees them
(cli/supervisor.py) and removes the folder (``remove_left_behind``). For what is left (that process killed too, a
check through the library), each folder is named after the process that made it
(``ortcopy-doctor-<pid>-<pid namespace>-<random>``), and every check removes, once its own is gone, the folders its
user owns in the same temporary directory whose process no longer runs in this pid namespace.
"""

from __future__ import annotations

import contextlib
import os
import re
import shutil
import stat
import tempfile
from collections.abc import Iterator
from pathlib import Path

PREFIX = "ortcopy-doctor-"
# mkdtemp's random part: 8 of [a-z0-9_]
_NAME = re.compile(r"ortcopy-doctor-(\d+)-(\d+)-[a-z0-9_]{8}")


def _pid_namespace() -> int | None:
    """The inode of this process's pid namespace (the same pid means the same process only within one); None
    where /proc does not say (not Linux)."""
    try:
        return os.stat("/proc/self/ns/pid").st_ino
    except OSError:
        return None


@contextlib.contextmanager
def session_folder() -> Iterator[Path]:
    """A new temporary folder for the evidence session, removed when the block ends however it ends; then the
    folders of checks that ended without removing theirs (``remove_stale``)."""
    namespace = _pid_namespace()
    prefix = f"{PREFIX}{os.getpid()}-{namespace}-" if namespace is not None else PREFIX
    try:
        with tempfile.TemporaryDirectory(prefix=prefix) as tmp:
            yield Path(tmp)
    finally:
        if namespace is not None:
            remove_stale(Path(tempfile.gettempdir()), namespace)


def remove_stale(parent: Path, namespace: int) -> list[str]:
    """Remove the folders in ``parent`` that a check of this user in pid namespace ``namespace`` made and left
    behind: its process no longer runs. The names removed."""
    removed: list[str] = []
    uid = os.geteuid()
    try:
        entries = list(os.scandir(parent))
    except OSError:
        return removed
    for entry in entries:
        match = _NAME.fullmatch(entry.name)
        if match is None or int(match.group(2)) != namespace or _running(int(match.group(1))):
            continue
        try:
            info = entry.stat(follow_symlinks=False)
            if not stat.S_ISDIR(info.st_mode) or info.st_uid != uid:
                continue
            shutil.rmtree(entry.path)  # never follows a symbolic link inside (fd-based where the platform has it)
            removed.append(entry.name)
        except OSError:  # gone meanwhile, or not ours to remove
            continue
    return removed


def remove_left_behind() -> list[str]:
    """``remove_stale`` for this process's temporary directory and pid namespace (cli/supervisor.py, after its
    child was ended by a signal no Python code sees): the names removed."""
    namespace = _pid_namespace()
    return [] if namespace is None else remove_stale(Path(tempfile.gettempdir()), namespace)


def _running(pid: int) -> bool:
    if pid <= 0:
        return True  # not a process's: never removed
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except (PermissionError, OverflowError, OSError):
        return True  # another user's process (or not a valid pid): left alone
    try:  # a zombie has ended: only its parent has not collected its exit status yet (a container's PID 1 may never)
        with open(f"/proc/{pid}/stat", "rb") as f:
            return f.read().rpartition(b")")[2].split()[0] != b"Z"
    except (OSError, IndexError):
        return True


__all__ = ["PREFIX", "remove_left_behind", "remove_stale", "session_folder"]
