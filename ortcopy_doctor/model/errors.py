"""Exit codes and the errors that map to them.

Every error the tool raises on purpose is a ``DoctorError`` with a one-line message that says what
is wrong and what to do; the CLI prints it and exits with its code, never with a traceback.
"""

from __future__ import annotations

import enum


class ExitCode(enum.IntEnum):
    """Documented exit codes of ``ortcopy-doctor``."""

    CLEAN = 0  # no finding at or above the --fail-on threshold
    FINDINGS = 1  # findings at or above the --fail-on threshold
    USAGE = 2  # bad arguments, or a model / inputs file that cannot be used
    ENVIRONMENT = 3  # onnxruntime cannot run here (session creation failed, out of memory, ...)
    INTERNAL = 4  # a bug in ortcopy-doctor: please report it
    INTERRUPTED = 130  # Ctrl-C (SIGINT); SIGTERM and SIGHUP give 128 + the signal number (143, 129)


class DoctorError(Exception):
    """An error with a one-line, actionable message and an exit code."""

    exit_code: ExitCode = ExitCode.USAGE

    def __init__(self, message: str) -> None:
        super().__init__(message)
        self.message = message
        # Evidence gathered before the failure (an ortcopy_doctor.model.evidence.Evidence), where there is some.
        self.partial_evidence: object | None = None


class UsageError(DoctorError):
    """A bad argument or option."""

    exit_code = ExitCode.USAGE


class ModelError(DoctorError):
    """The model file (or its external data, or an inputs file) cannot be used."""

    exit_code = ExitCode.USAGE


class EnvironmentProblem(DoctorError):
    """ONNX Runtime could not create a session or run on this machine."""

    exit_code = ExitCode.ENVIRONMENT
