"""Exit codes and the one-line errors every command reports.

Every user-facing failure is a :class:`HarnessError`; ``cli.main`` prints ``err.line()`` to stderr
and exits with ``err.exit_code`` — never a traceback.
"""

from __future__ import annotations

from enum import IntEnum
from pathlib import Path


class ExitCode(IntEnum):
    OK = 0
    FINDINGS = 1  # the command ran and found problems (unproved nodes, cycles, a rejected change)
    USAGE = 2  # bad arguments or bad input (missing file, malformed blueprint, no Lean for `check`)
    CANNOT_CERTIFY = 3  # the gate could not decide (no Lean, timeout, crash): nothing was accepted


class HarnessError(Exception):
    exit_code: ExitCode = ExitCode.USAGE

    def __init__(self, message: str) -> None:
        super().__init__(message)
        self.message = message

    def line(self) -> str:
        return self.message


class InputError(HarnessError):
    """Bad input located in a file: rendered as ``FILE:LINE:COL: message``.

    ``line`` is 1-based, ``col`` is 0-based (Lean's convention for message positions).
    """

    exit_code = ExitCode.USAGE

    def __init__(self, path: str | Path | None, line: int, col: int, message: str) -> None:
        super().__init__(message)
        self.path = str(path) if path is not None else "<input>"
        self.lineno = line
        self.col = col

    def line(self) -> str:  # type: ignore[override]
        return f"{self.path}:{self.lineno}:{self.col}: {self.message}"


class UsageError(HarnessError):
    exit_code = ExitCode.USAGE


class CannotCertify(HarnessError):
    exit_code = ExitCode.CANNOT_CERTIFY
