"""Writing output files as one set: every path checked up front, all written or none.

``OutputSet`` is what the CLI uses for ``--html``, ``--json``, ``--sarif`` and ``--trace``:

* ``add_input`` and ``add_stdin`` register what the command reads, before any output is added or opened: a path
  (taken literally: a file named ``-`` is a file), and the file or pipe behind fd 0 where the command reads stdin
  (``report -``), identified by device and inode (``os.fstat(0)``), so that ``/dev/stdin``, ``/proc/self/fd/0``
  and any symlink or hard link to that file resolve to it.
* ``add`` checks a path before any work: its folder exists and is a folder (for a symlink, its target's folder),
  it can be written, its name is not too long, it is not a directory, and it is not (by real path or by inode) one
  of the inputs (the model, its external data, ``--inputs``, the JSON that ``report``/``diff`` read, stdin's file)
  nor another output, nor the pipe this command's stdin is. ``-`` is stdout where the flag allows it.
* ``stage`` renders one output: a regular file goes to a temporary file beside its target, so a full disk
  shows up before anything is replaced; a device, FIFO or stdout keeps the text in memory.
* ``commit`` writes them all at the end: non-regular targets first, written directly (``/dev/null`` is never
  replaced by a file), then the regular files renamed into place (with the mode the user's umask gives), then
  stdout. Only the renames (and stdout where it is a regular file) run with SIGINT/SIGTERM/SIGHUP held back:
  nothing there waits. A FIFO is opened non-blocking, and where it has no reader yet, its reader is awaited for
  ``FIFO_WAIT_S`` seconds at most (``ORTCOPY_DOCTOR_FIFO_WAIT``), with signals delivered: Ctrl-C ends the wait, and
  no reader in time is one ``error:`` line (exit 3). A write into a FIFO, a terminal or a pipe on stdout, which
  waits for its reader, is interruptible too. ``discard`` (also on any exception) removes the temporary files, so
  a failure or a signal before the renames leaves no file output and no temporary file behind.
"""

from __future__ import annotations

import msgspec
import errno
import math
import os
import select
import signal
import stat
import sys
import tempfile
import time
from msgspec import field
from pathlib import Path
from typing import NamedTuple, Optional

from ortcopy_doctor.model.errors import EnvironmentProblem, UsageError

STDOUT = "-"
_PATH_MAX = 4096
_TMP_PREFIX = ".ortcopy-"  # short, so a temporary name fits wherever the final name fits
FIFO_WAIT_S = 60.0  # how long a FIFO output's reader is awaited at most (ORTCOPY_DOCTOR_FIFO_WAIT overrides it)
FIFO_WAIT_ENV = "ORTCOPY_DOCTOR_FIFO_WAIT"
_FIFO_POLL_S = 0.05

_Identity = tuple[Optional[str], Optional[tuple[int, int]]]  # (real path, (device, inode) where the file exists)


class _Input(NamedTuple):
    """A file the command reads: ``shown`` as the user named it (empty for stdin)."""

    what: str
    shown: str
    identity: _Identity


def _umask_mode() -> int:
    mask = os.umask(0)
    os.umask(mask)
    return 0o666 & ~mask


def _identity(path: str) -> tuple[str, Optional[tuple[int, int]]]:
    """(real path, (device, inode) where the file exists): ``/dev/stdin`` and ``/proc/self/fd/0`` are stdin's file
    (or pipe), as the system opens them."""
    real = os.path.realpath(path)
    try:
        st = os.stat(path)
    except (OSError, ValueError):
        return real, None
    return real, (st.st_dev, st.st_ino)


def _name_max(folder: str) -> int:
    try:
        return int(os.pathconf(folder, "PC_NAME_MAX"))
    except (OSError, ValueError):
        return 255


class _Output(msgspec.Struct):
    flag: str
    shown: str  # the path as the user gave it
    target: str  # where it is committed: the real path of a regular file, the given path of a device or FIFO
    kind: str  # "file", "direct" (device, FIFO: written in place) or "stdout"
    identity: _Identity
    text: str | None = None  # staged text of a direct/stdout output
    tmp: str | None = None  # staged temporary file of a regular output


class OutputSet(msgspec.Struct, frozen=True):
    """The outputs of one command; see the module docstring."""

    inputs: list[_Input] = field(default_factory=list)  # each file the command reads
    outputs: list[_Output] = field(default_factory=list)

    def add_input(self, what: str, path: Path | str | None) -> None:
        """Record a file the command reads (None: none), so that no output may overwrite it. The path is taken as
        it is: ``-`` is a file of that name here; stdin is ``add_stdin``."""
        if path is not None:
            self._add_input(_Input(what, str(path), _identity(str(path))))

    def add_stdin(self, what: str) -> None:
        """Record that the command reads stdin (``report -``; ``what``: "the evidence JSON, read from stdin"): the
        regular file or pipe behind fd 0 (by device and inode) is then an input, which no output may be, whatever
        path names it (``/dev/stdin``, the file's own name, a symlink or hard link to it). A terminal or
        ``/dev/null`` holds nothing to lose: not recorded."""
        identity = _stdin_identity()
        if identity is not None:
            self._add_input(_Input(what, "", identity))

    def _add_input(self, item: _Input) -> None:
        self.inputs.append(item)
        for out in self.outputs:  # an input named after outputs were added (external data)
            self._check_not_input(out, item)

    def add(self, flag: str, path: Path | str | None, stdout_ok: bool = False) -> None:
        """Check one output path (None: not asked for); raises ``UsageError`` with the flag to change."""
        if path is None:
            return
        shown = str(path)
        if shown == STDOUT:
            if not stdout_ok:
                raise UsageError(f"{flag} cannot write to stdout ('-'): give a file path")
            if any(o.kind == "stdout" for o in self.outputs):
                raise UsageError(f"{flag} -: another output already goes to stdout; give one of them a file path")
            self.outputs.append(_Output(flag, "stdout", STDOUT, "stdout", ("-", None)))
            return
        if not shown or "\0" in shown:
            raise UsageError(f"{flag} {shown!r} is not a file path: give a file path")
        if len(os.fsencode(shown)) >= _PATH_MAX:
            raise UsageError(f"{flag}: the path is longer than {_PATH_MAX} bytes: choose a shorter path")
        identity = _identity(shown)
        real = identity[0]
        try:
            st: os.stat_result | None = os.stat(shown)
        except FileNotFoundError:
            st = None
        except OSError as exc:
            st = None
            if exc.errno in (errno.ENOTDIR,):
                parent = os.path.dirname(shown) or "."
                if os.path.isdir(parent) and os.path.islink(shown):  # name the link's target's folder
                    raise UsageError(f"{flag} {shown} is a symbolic link to {real}, whose folder "
                                     f"{os.path.dirname(real)} is not a folder: choose another path") from None
                raise UsageError(f"{flag} {shown}: {parent} is not a folder: choose another path") from None
            if exc.errno == errno.ENAMETOOLONG:
                raise UsageError(f"{flag} {shown}: the file name is too long: choose a shorter name") from None
            if exc.errno == errno.ELOOP:
                raise UsageError(f"{flag} {shown}: too many levels of symbolic links: choose another path") from None
            if exc.errno != errno.EACCES:
                raise UsageError(f"{flag} {shown} cannot be used ({exc.strerror}): choose another path") from None
        if st is not None and stat.S_ISDIR(st.st_mode):
            raise UsageError(f"{flag} {shown} is a directory: give a file path")
        if st is not None and stat.S_ISSOCK(st.st_mode):
            raise UsageError(f"{flag} {shown} is a socket: give a file path")
        if st is not None and _is_stdout(st):
            # /dev/stdout, /proc/self/fd/1 or the very file stdout is redirected to: written through stdout
            # (renaming over it or writing it by a second handle would clobber what else is printed there)
            if any(o.kind == "stdout" for o in self.outputs):
                raise UsageError(f"{flag} {shown}: another output already goes to stdout; give one of them a file path")
            self.outputs.append(_Output(flag, shown, STDOUT, "stdout", identity))
            return
        if st is not None and not stat.S_ISREG(st.st_mode):
            # a device (/dev/null, /dev/stdout) or a FIFO: written in place, never replaced
            if not os.access(shown, os.W_OK):
                raise UsageError(f"{flag} {shown} cannot be written (permission denied): choose another path")
            if stat.S_ISFIFO(st.st_mode):
                fifo_wait_s()  # a bad ORTCOPY_DOCTOR_FIFO_WAIT is refused now, before any work
            out = _Output(flag, shown, shown, "direct", identity)
        else:
            parent = os.path.dirname(real) or "."
            name = os.path.basename(real)
            shown_parent = os.path.dirname(shown) or "."
            if not os.path.isdir(shown_parent) and not os.path.lexists(shown_parent):
                raise UsageError(f"{flag} {shown}: folder {shown_parent} does not exist: create it or choose another path")
            if not os.path.isdir(parent):
                # where a symbolic link leads (the file itself is one, or its folder is): the folder that is missing
                # or no folder is the link's target's, so that is the one to name
                fix = "does not exist: create it or" if not os.path.lexists(parent) else "is not a folder:"
                if os.path.isdir(shown_parent) and os.path.islink(shown):
                    raise UsageError(f"{flag} {shown} is a symbolic link to {real}, whose folder {parent} {fix} "
                                     "choose another path")
                if os.path.islink(shown_parent):
                    raise UsageError(f"{flag} {shown}: folder {shown_parent} is a symbolic link to {parent}, which "
                                     f"{fix} choose another path")
            if not os.path.lexists(parent):
                raise UsageError(f"{flag} {shown}: folder {shown_parent} does not exist: create it or choose another path")
            if not os.path.isdir(parent) or not os.path.isdir(shown_parent):
                # (the second: "a/missing/../x" resolves on paper, but the system cannot open it)
                raise UsageError(f"{flag} {shown}: {shown_parent} is not a folder: choose another path")
            if os.path.isdir(real):
                raise UsageError(f"{flag} {shown} is a directory: give a file path")
            if len(os.fsencode(name)) > _name_max(parent):
                raise UsageError(f"{flag} {shown}: the file name is too long ({len(os.fsencode(name))} bytes): "
                                 "choose a shorter name")
            if not os.access(parent, os.W_OK | os.X_OK) or (st is not None and not os.access(real, os.W_OK)):
                raise UsageError(f"{flag} {shown} cannot be written (permission denied): choose another path")
            out = _Output(flag, shown, real, "file", identity)
        for item in self.inputs:
            self._check_not_input(out, item)
        if st is not None and stat.S_ISFIFO(st.st_mode) and out.identity[1] == _fd_identity(0):
            # stdin's own pipe, which this command does not read: once the pipe's buffer is full, the write would
            # wait for a reader that is this very process
            raise UsageError(f"{flag} {shown} is this command's stdin (a pipe), which it never reads: the write would "
                             "wait for itself; give a file path")
        for other in self.outputs:
            if other.kind == "stdout":
                continue
            if _same(out.identity, other.identity) and not (out.kind == other.kind == "direct" and _is_chardev(shown)):
                raise UsageError(f"{flag} {shown} is the same file as {other.flag} {other.shown}: "
                                 "give each output its own path")
        self.outputs.append(out)

    @staticmethod
    def _check_not_input(out: _Output, item: _Input) -> None:
        if out.identity[0] == STDOUT or (out.kind == "direct" and _is_chardev(out.target)):
            return  # stdout as `-`, or a device (/dev/null, a terminal): nothing there to overwrite
        if not _same(out.identity, item.identity):
            return
        if not item.shown:
            raise UsageError(f"{out.flag} {out.shown} is {item.what}, which would be overwritten: give the output "
                             "another path")
        raise UsageError(f"{out.flag} {out.shown} is {item.what} {item.shown}, which would be overwritten: "
                         "give the output another path")

    def asked(self, flag: str) -> bool:
        """Whether the output ``flag`` (e.g. ``--json``) was asked for."""
        return any(o.flag == flag for o in self.outputs)

    @property
    def uses_stdout(self) -> bool:
        """Whether an output goes to stdout (``-``)."""
        return any(o.kind == "stdout" for o in self.outputs)

    def stage(self, flag: str, text: str) -> None:
        """Render the output of ``flag``: regular files into a temporary file beside the target now."""
        for out in self.outputs:
            if out.flag != flag:
                continue
            if out.kind != "file":
                out.text = text
                continue
            self._drop_tmp(out)
            parent = os.path.dirname(out.target) or "."
            try:
                fd, tmp = tempfile.mkstemp(prefix=_TMP_PREFIX, suffix=".tmp", dir=parent)
            except OSError as exc:
                raise _write_error(out, exc) from None
            out.tmp = tmp
            try:
                with os.fdopen(fd, "w", encoding="utf-8") as f:
                    f.write(text)
                os.chmod(tmp, _umask_mode())
            except OSError as exc:
                self._drop_tmp(out)
                raise _write_error(out, exc) from None

    def commit(self) -> list[str]:
        """Write every staged output; returns the paths written, as given. Devices and FIFOs first (a FIFO's reader
        awaited for ``fifo_wait_s()`` at most), with signals delivered; then the renames with SIGINT, SIGTERM and
        SIGHUP held back until they are done (nothing there waits); then stdout (held back too where it is a
        regular file, delivered where it is a pipe or a terminal that may wait for its reader)."""
        staged = [o for o in self.outputs if o.tmp is not None or o.text is not None]
        try:
            for out in staged:  # devices and FIFOs first: they cannot be undone, and can fail (/dev/full)
                if out.kind == "direct" and out.text is not None:
                    _write_direct(out, out.text)
            to_stdout = [o for o in staged if o.kind == "stdout" and o.text is not None]
            stdout_waits = _stdout_may_wait()
            old = _hold_signals()
            try:
                for out in staged:
                    if out.kind == "file" and out.tmp is not None:
                        try:
                            os.replace(out.tmp, out.target)
                        except OSError as exc:
                            raise _write_error(out, exc) from None
                        out.tmp = None
                if not stdout_waits:
                    for out in to_stdout:
                        _write_stdout(out, out.text or "")
            finally:
                _release_signals(old)
            if stdout_waits:
                for out in to_stdout:
                    _write_stdout(out, out.text or "")
            return [o.shown for o in staged if o.kind != "stdout"]
        finally:
            old = _hold_signals()  # the temporary files go whole, even as a second signal arrives
            try:
                self.discard()
            finally:
                _release_signals(old)

    def discard(self) -> None:
        """Remove staged temporary files (idempotent)."""
        for out in self.outputs:
            self._drop_tmp(out)
            out.text = None

    @staticmethod
    def _drop_tmp(out: _Output) -> None:
        if out.tmp is not None:
            try:
                os.unlink(out.tmp)
            except OSError:
                pass
            out.tmp = None


_HELD = {signal.SIGINT, signal.SIGTERM, signal.SIGHUP}


def _hold_signals() -> set[int | signal.Signals] | None:
    """Hold SIGINT, SIGTERM and SIGHUP back (only around steps that never wait); the mask before, to restore."""
    return signal.pthread_sigmask(signal.SIG_BLOCK, _HELD) if hasattr(signal, "pthread_sigmask") else None


def _release_signals(old: set[int | signal.Signals] | None) -> None:
    """Restore the mask ``_hold_signals`` returned: a signal held back is delivered now."""
    if old is not None:
        signal.pthread_sigmask(signal.SIG_SETMASK, old)


def fifo_wait_s() -> float:
    """Seconds a FIFO output's reader is awaited at most: ``ORTCOPY_DOCTOR_FIFO_WAIT``, else ``FIFO_WAIT_S``."""
    text = os.environ.get(FIFO_WAIT_ENV, "").strip()
    if not text:
        return FIFO_WAIT_S
    try:
        value = float(text)
    except ValueError:
        value = math.nan
    if not (math.isfinite(value) and 0 <= value <= 86_400):
        raise UsageError(f"{FIFO_WAIT_ENV}={text}: give the seconds to wait for a FIFO output's reader, from 0 to "
                         f"86400 (default {FIFO_WAIT_S:g})")
    return value


def _open_direct(out: _Output) -> int:
    """Open a device or FIFO output for writing, never waiting with signals held back. A FIFO is opened
    non-blocking: with no reader yet (ENXIO), the open is tried again every 50 ms until one comes or
    ``fifo_wait_s()`` has passed (an ``EnvironmentProblem`` then); a signal ends the wait as anywhere else."""
    flags = os.O_WRONLY | os.O_TRUNC | os.O_NONBLOCK | getattr(os, "O_NOCTTY", 0) | getattr(os, "O_CLOEXEC", 0)
    wait = 0.0
    deadline: float | None = None
    while True:
        try:
            fd = os.open(out.target, flags)
        except OSError as exc:
            if exc.errno != errno.ENXIO or not _is_fifo(out.target):
                raise _write_error(out, exc) from None
            now = time.monotonic()
            if deadline is None:
                wait = fifo_wait_s()
                deadline = now + wait
            if now >= deadline:
                raise EnvironmentProblem(
                    f"{out.flag} {out.shown}: no program opened this FIFO for reading within {wait:g} s: start its "
                    f"reader first (or set {FIFO_WAIT_ENV}=SECONDS to wait longer), or give a file path") from None
            time.sleep(min(_FIFO_POLL_S, max(deadline - now, 0.0)))
            continue
        try:
            os.set_blocking(fd, True)  # its reader reads at its own pace: each write waits for room
        except OSError:
            os.close(fd)
            raise
        return fd


def _write_direct(out: _Output, text: str) -> None:
    """Write ``text`` into a device or FIFO in place (signals delivered: a reader that does not read is no hang)."""
    fd = _open_direct(out)
    try:
        _write_all(fd, text.encode("utf-8"))
    except OSError as exc:
        raise _write_error(out, exc) from None
    finally:
        os.close(fd)


def _write_all(fd: int, data: bytes) -> None:
    """Write ``data`` to ``fd`` unbuffered: a signal in the middle of a write that waits for the reader leaves
    nothing in a buffer that closing the file or the exit would wait to write again (with the signals ignored by
    then)."""
    view = memoryview(data)
    while view:
        try:
            view = view[os.write(fd, view):]
        except BlockingIOError:  # a descriptor another process made non-blocking (stdout): wait for room
            select.select([], [fd], [])


def _stdout_may_wait() -> bool:
    """Whether a write to stdout may wait for a reader: anything but a regular file or a memory device
    (``/dev/null``, ``/dev/full``); True where it cannot be told."""
    try:
        st = os.fstat(sys.stdout.fileno())
    except (AttributeError, OSError, ValueError):
        return True
    return not (stat.S_ISREG(st.st_mode) or (stat.S_ISCHR(st.st_mode) and os.major(st.st_rdev) == 1))


def _write_stdout(out: _Output, text: str) -> None:
    """Write ``text`` to stdout, straight to its descriptor (what Python buffered there flushed first; see
    ``_write_all``)."""
    stream = sys.stdout
    try:
        try:
            fd = stream.fileno()
        except (AttributeError, OSError, ValueError):  # a test's capture, with no descriptor
            stream.write(text)
            stream.flush()
            return
        stream.flush()
        _write_all(fd, text.encode(getattr(stream, "encoding", None) or "utf-8",
                                   getattr(stream, "errors", None) or "strict"))
    except OSError as exc:
        raise _write_error(out, exc) from None


def _fd_identity(fd: int) -> tuple[int, int] | None:
    """(device, inode) of what descriptor ``fd`` is open on, None where it is closed."""
    try:
        st = os.fstat(fd)
    except OSError:
        return None
    return st.st_dev, st.st_ino


def _stdin_identity() -> _Identity | None:
    """stdin's regular file or pipe as an input's identity; None for a terminal, ``/dev/null`` or a closed stdin."""
    try:
        st = os.fstat(0)
    except OSError:
        return None
    if not (stat.S_ISREG(st.st_mode) or stat.S_ISFIFO(st.st_mode)):
        return None
    return None, (st.st_dev, st.st_ino)


def _is_stdout(st: os.stat_result) -> bool:
    """``st`` is stdout's file, where that is a regular file or a pipe (a terminal or /dev/null is written directly)."""
    if not (stat.S_ISREG(st.st_mode) or stat.S_ISFIFO(st.st_mode)):
        return False
    try:
        out = os.fstat(sys.stdout.fileno())
    except (OSError, ValueError, AttributeError):
        return False
    return (out.st_dev, out.st_ino) == (st.st_dev, st.st_ino)


def _same(a: _Identity, b: _Identity) -> bool:
    return (a[0] is not None and a[0] == b[0]) or (a[1] is not None and a[1] == b[1])


def _is_chardev(path: str) -> bool:
    try:
        return stat.S_ISCHR(os.stat(path).st_mode)
    except OSError:
        return False


def _is_fifo(path: str) -> bool:
    try:
        return stat.S_ISFIFO(os.stat(path).st_mode)
    except OSError:
        return False


def _write_error(out: _Output, exc: OSError) -> Exception:
    reason = exc.strerror or type(exc).__name__
    if exc.errno in (errno.ENOSPC, errno.EDQUOT, errno.EIO):
        # the path was fine; the machine could not take the data: an environment error (exit 3)
        return EnvironmentProblem(f"{out.flag} {out.shown} could not be written ({reason}): free space or choose "
                                  "another path; no output was left half-written")
    return UsageError(f"{out.flag} {out.shown} could not be written ({reason}): choose another path")


def check_writable(path: Path, flag: str) -> None:
    """Fail before any work if ``path`` cannot be written, with the flag to change."""
    OutputSet().add(flag, path)


def write_atomic(path: Path, text: str) -> None:
    """Write one file whole or not at all (a temporary file renamed into place; a device written directly)."""
    outputs = OutputSet()
    outputs.add("output", path)
    try:
        outputs.stage("output", text)
        outputs.commit()
    finally:
        outputs.discard()


__all__ = ["STDOUT", "OutputSet", "check_writable", "write_atomic"]
