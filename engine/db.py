"""DuckDB connections, configured once for every pack."""

from __future__ import annotations

import os

import duckdb


def connect(database: str = ":memory:", *, read_only: bool = False) -> duckdb.DuckDBPyConnection:
    """A fresh DuckDB connection with the settings every pack relies on.

    ``preserve_insertion_order`` stays on: line numbers of fast-path reads are
    derived from the order rows are inserted (see ``sources``).
    """
    config: dict[str, str | bool | int | float | list[str]] = {
        "preserve_insertion_order": True,
    }
    threads = os.environ.get("RUNSCORE_THREADS")
    if threads:
        config["threads"] = int(threads)
    mem = os.environ.get("RUNSCORE_MEMORY_LIMIT")
    if mem:
        config["memory_limit"] = mem
    con = duckdb.connect(database, read_only=read_only, config=config)
    # Progress bars would write to the terminal behind the CLI's back (stdout is data).
    con.execute("SET enable_progress_bar = false")
    return con
