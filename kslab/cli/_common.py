"""What every subcommand shares: the one-line error and the exit codes it maps to."""

from __future__ import annotations

__all__ = ["FAILED", "USAGE", "CliError"]

USAGE = 2  # the user asked for something that cannot be: wrong target, missing file, bad option
FAILED = 1  # the command started and failed while running


class CliError(Exception):
    """A one-line message for the user (no traceback) and the exit code to end with."""

    def __init__(self, message: str, code: int = USAGE) -> None:
        super().__init__(message)
        self.code = code
