"""Engine exceptions. The CLI maps them to exit codes; the engine never exits."""

from __future__ import annotations


class RunscoreError(Exception):
    """Base class for errors a user can act on (printed without a traceback)."""


class UsageError(RunscoreError):
    """Bad arguments or an unusable input file given by the user (exit 2)."""


class NothingReadable(RunscoreError):
    """No input could be read at all (exit 3)."""


class LockTimeout(RunscoreError):
    """Another process holds a lock we need (exit 4)."""


class SqlPackError(RunscoreError):
    """A versioned SQL file is missing, malformed or failed to run."""


class HistoryError(RunscoreError):
    """The history store refused an operation (e.g. writing through a symlink)."""
