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


def test_tables_replaced_again_and_again_do_not_pile_up_without_checkpoints() -> None:
    # Without checkpoints nothing compresses or vacuums; a dropped or replaced table must
    # still give its memory back at once (the nightly job scores project after project).
    con = db.connect()
    used = []
    for _ in range(8):
        con.execute(
            "CREATE OR REPLACE TEMP TABLE t AS "
            "SELECT range AS r, md5(range::VARCHAR) AS m FROM range(300000)"
        )
        con.execute("CREATE OR REPLACE TEMP TABLE u AS SELECT m, count(*) AS n FROM t GROUP BY m")
        con.execute("DROP TABLE u")
        ((b,),) = con.execute("SELECT sum(memory_usage_bytes) FROM duckdb_memory()").fetchall()
        used.append(int(b))
    con.close()
    assert used[0] > 10 * 2**20  # the table is really there (~20 MB)
    assert used[-1] <= used[0] * 1.1, used
