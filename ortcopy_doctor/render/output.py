"""Writing output files as one set: every path checked up front, all written or none.

``OutputSet`` is what the CLI uses for ``--html``, ``--json``, ``--sarif`` and ``--trace``:

* ``add`` checks a path before any work: its folder exists and is a folder, it can be written, its name is not
  too long, it is not a directory, and it is not (by real path or by inode) one of the inputs (the model, its
  external data, ``--inputs``, the JSON that ``report``/``diff`` read) nor another output. ``-`` is stdout where
  the flag allows it.
* ``stage`` renders one output: a regular file goes to a temporary file beside its target, so a full disk
  shows up before anything is replaced; a device, FIFO or stdout keeps the text in memory.
* ``commit`` writes them all at the end: non-regular targets first, written directly (``/dev/null`` is never
  replaced by a file), then the regular files renamed into place (with the mode the user's umask gives), then
  stdout. ``discard`` (also on any exception) removes the temporary files, so a failure or Ctrl-C before the
  commit leaves no output and no temporary file behind.
"""

from __future__ import annotations

import errno
import os
import signal
import stat
import sys
import tempfile
from dataclasses import field
from pathlib import Path

from ortcopy_doctor.model.errors import EnvironmentProblem, UsageError
from ortcopy_doctor.model.records import frozen, mutable

STDOUT = "-"
_PATH_MAX = 4096
_TMP_PREFIX = ".ortcopy-"  # short, so a temporary name fits wherever the final name fits


def _umask_mode() -> int:
    mask = os.umask(0)
    os.umask(mask)
    return 0o666 & ~mask


def _identity(path: str) -> tuple[str, tuple[int, int] | None]:
    """(real path, (device, inode) where the file exists)."""
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


@mutable
class _Output:
    flag: str
    shown: str  # the path as the user gave it
    target: str  # where it is committed: the real path of a regular file, the given path of a device or FIFO
    kind: str  # "file", "direct" (device, FIFO: written in place) or "stdout"
    identity: tuple[str, tuple[int, int] | None]
    text: str | None = None  # staged text of a direct/stdout output
    tmp: str | None = None  # staged temporary file of a regular output


@frozen
class OutputSet:
    """The outputs of one command; see the module docstring."""

    inputs: list[tuple[str, Path]] = field(default_factory=list)  # (what, path) of each file the command reads
    outputs: list[_Output] = field(default_factory=list)

    def add_input(self, what: str, path: Path | str | None) -> None:
        """Record a file the command reads (None or ``-``: none), so that no output may overwrite it."""
        if path is not None and str(path) != STDOUT:
            self.inputs.append((what, Path(path)))
            for out in self.outputs:  # an input named after outputs were added (external data)
                self._check_not_input(out, what, Path(path))

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
            out = _Output(flag, shown, shown, "direct", identity)
        else:
            parent = os.path.dirname(real) or "."
            name = os.path.basename(real)
            shown_parent = os.path.dirname(shown) or "."
            if not os.path.lexists(parent) or (not os.path.isdir(shown_parent) and not os.path.lexists(shown_parent)):
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
        for what, input_path in self.inputs:
            self._check_not_input(out, what, input_path)
        for other in self.outputs:
            if other.kind == "stdout":
                continue
            if _same(out.identity, other.identity) and not (out.kind == other.kind == "direct" and _is_chardev(shown)):
                raise UsageError(f"{flag} {shown} is the same file as {other.flag} {other.shown}: "
                                 "give each output its own path")
        self.outputs.append(out)

    @staticmethod
    def _check_not_input(out: _Output, what: str, input_path: Path) -> None:
        if out.kind == "stdout":
            return
        if _same(out.identity, _identity(str(input_path))):
            raise UsageError(f"{out.flag} {out.shown} is {what} {input_path}, which would be overwritten: "
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
        """Write every staged output; returns the paths written, as given. Signals wait until it is done."""
        blocked = {signal.SIGINT, signal.SIGTERM, signal.SIGHUP}
        old = signal.pthread_sigmask(signal.SIG_BLOCK, blocked) if hasattr(signal, "pthread_sigmask") else None
        try:
            staged = [o for o in self.outputs if o.tmp is not None or o.text is not None]
            for out in staged:  # devices and FIFOs first: they cannot be undone, and can fail (/dev/full)
                if out.kind == "direct" and out.text is not None:
                    try:
                        with open(out.target, "w", encoding="utf-8") as f:
                            f.write(out.text)
                    except OSError as exc:
                        raise _write_error(out, exc) from None
            for out in staged:
                if out.kind == "file" and out.tmp is not None:
                    try:
                        os.replace(out.tmp, out.target)
                    except OSError as exc:
                        raise _write_error(out, exc) from None
                    out.tmp = None
            for out in staged:
                if out.kind == "stdout" and out.text is not None:
                    try:
                        sys.stdout.write(out.text)
                        sys.stdout.flush()
                    except OSError as exc:
                        raise _write_error(out, exc) from None
            return [o.shown for o in staged if o.kind != "stdout"]
        finally:
            self.discard()
            if old is not None:
                signal.pthread_sigmask(signal.SIG_SETMASK, old)

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


def _is_stdout(st: os.stat_result) -> bool:
    """``st`` is stdout's file, where that is a regular file or a pipe (a terminal or /dev/null is written directly)."""
    if not (stat.S_ISREG(st.st_mode) or stat.S_ISFIFO(st.st_mode)):
        return False
    try:
        out = os.fstat(sys.stdout.fileno())
    except (OSError, ValueError, AttributeError):
        return False
    return (out.st_dev, out.st_ino) == (st.st_dev, st.st_ino)


def _same(a: tuple[str, tuple[int, int] | None], b: tuple[str, tuple[int, int] | None]) -> bool:
    return a[0] == b[0] or (a[1] is not None and a[1] == b[1])


def _is_chardev(path: str) -> bool:
    try:
        return stat.S_ISCHR(os.stat(path).st_mode)
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
