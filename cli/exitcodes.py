"""Process exit codes (documented in the README; tests assert them)."""

from __future__ import annotations

from enum import IntEnum


class ExitCode(IntEnum):
    OK = 0  #: everything readable was processed
    PARTIAL = 1  #: some input was rejected; the rest was processed
    USAGE = 2  #: bad arguments, invalid team file, refused SQL
    NOTHING_READABLE = 3  #: no input could be read at all
    LOCKED = 4  #: another process (runscore, or flock(1), say) holds a lock we need
    OUT_OF_MEMORY = 5  #: DuckDB ran out of memory (its limit, or room to spill)
    INTERRUPTED = 130  #: stopped by Ctrl-C (SIGINT), as shells report it: 128 + 2
