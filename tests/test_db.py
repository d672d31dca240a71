"""The settings every engine connection gets (runscore.engine.db)."""

from __future__ import annotations

from pathlib import Path

import duckdb
from runscore.engine import db


def _setting(con: duckdb.DuckDBPyConnection, name: str) -> str:
    (value,) = con.execute("SELECT current_setting($n)", {"n": name}).fetchall()[0]
    return str(value)


def test_in_memory_connections_never_checkpoint_on_their_own(tmp_path: Path) -> None:
    # Their tables live for one command: a checkpoint only compressed tables about to be
    # dropped (0.3 s of a 10k-run extract). A database file keeps DuckDB's default, so
    # what is written to a file is checkpointed as usual.
    mem = db.connect()
    assert _setting(mem, "checkpoint_threshold") == "931.3 GiB"  # 1 TB
    mem.close()
    f = db.connect(str(tmp_path / "x.duckdb"))
    assert _setting(f, "checkpoint_threshold") == "16.0 MiB"
    f.close()
