"""The settings every engine connection gets (runscore.engine.db)."""

from __future__ import annotations

import threading
from pathlib import Path
from typing import Any

import duckdb
import pytest
from runscore.engine import db, sqlpack
from runscore.engine.errors import NothingReadable, UsageError
from runscore.engine.packs import effectiveness, effectiveness_history

HISTORY = str(Path(__file__).resolve().parent / "analytics" / "data" / "history.jsonl")
HISTORY_RECORDS = 42  # of its 45 lines, 3 are rejected (lines 6, 10 and 45)

RUN = (
    '{"run_id":"r1","seq":1,"type":"run.start"}\n'
    '{"run_id":"r1","seq":2,"parent":[1],"type":"review.verdict","agent":"guardian",'
    '"data":{"archetype":"guardian","verdict":"approved","findings":[]}}\n'
    '{"run_id":"r1","seq":3,"parent":[2],"type":"run.complete"}\n'
)


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


def test_statements_are_split_by_the_connection_given(monkeypatch: pytest.MonkeyPatch) -> None:
    # duckdb.extract_statements (the module's) opens DuckDB's default database on first
    # use: a second database in every command, ~0.03 s of a ~1 s incremental extract.
    def refuse(*_: object, **__: object) -> None:
        raise AssertionError("the module-level parser opens DuckDB's default database")

    monkeypatch.setattr(duckdb, "extract_statements", refuse)
    con = db.connect()
    sqlpack.execute(
        con, "CREATE TEMP TABLE t AS SELECT 1 AS x; INSERT INTO t VALUES ($v)", {"v": 2}
    )
    assert con.execute("SELECT list(x ORDER BY x) FROM t").fetchall() == [([1, 2],)]
    # `runscore sql` checks the query with the parser of the connection it reads with.
    got = effectiveness_history.run_sql("SELECT count(*) AS n FROM history", HISTORY)
    assert got.table.column("n").to_pylist() == [HISTORY_RECORDS]
    with pytest.raises(UsageError, match="read-only"):
        effectiveness_history.run_sql("DROP TABLE history", HISTORY)


def _connections(monkeypatch: pytest.MonkeyPatch) -> list[duckdb.DuckDBPyConnection]:
    """Every connection ``db.connect`` opens from now on, in order."""
    opened: list[duckdb.DuckDBPyConnection] = []
    real = db.connect

    def spy(*a: Any, **k: Any) -> duckdb.DuckDBPyConnection:
        opened.append(real(*a, **k))
        return opened[-1]

    monkeypatch.setattr(db, "connect", spy)
    return opened


def _closed(con: duckdb.DuckDBPyConnection) -> bool:
    try:
        con.execute("SELECT 1")
    except duckdb.ConnectionException:
        return True
    return False


def test_extract_opens_its_connection_only_when_something_is_read(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    log = tmp_path / "runs" / "a.jsonl"
    log.parent.mkdir()
    log.write_text(RUN)
    hist = str(tmp_path / "h.jsonl")
    opened = _connections(monkeypatch)
    first = effectiveness.extract([str(log.parent)], hist)
    assert first.runs_scored == 1 and len(opened) == 1
    # Nothing new (the nightly's usual night): no connection at all.
    again = effectiveness.extract([str(log.parent)], hist)
    assert again.files_unchanged == 1 and again.records_written == 0
    assert len(opened) == 1
    # A file the manifest does not know: opened ahead, and used.
    (log.parent / "b.jsonl").write_text(RUN.replace("r1", "r2"))
    third = effectiveness.extract([str(log.parent)], hist)
    assert third.runs_scored == 1 and len(opened) == 2 and not _closed(opened[1])
    assert not [t for t in threading.enumerate() if t.name == "runscore-connect"]


def test_a_connection_opened_ahead_and_not_used_is_closed(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # No manifest: every file will be read, so the connection is opened from the start.
    # Then the only input proves to be the history itself: nothing to read.
    hist = tmp_path / "h.jsonl"
    hist.write_text("")
    opened = _connections(monkeypatch)
    with pytest.raises(NothingReadable, match="it is the history this extract writes to"):
        effectiveness.extract([str(hist)], str(hist))
    assert len(opened) == 1 and _closed(opened[0])
    assert not [t for t in threading.enumerate() if t.name == "runscore-connect"]


def test_a_connection_that_fails_to_open_ahead_fails_the_extract(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # The error is the caller's, raised on its thread, as when it connected itself.
    log = tmp_path / "a.jsonl"
    log.write_text(RUN)
    monkeypatch.setenv("RUNSCORE_MEMORY_LIMIT", "not a size")
    with pytest.raises(UsageError, match='RUNSCORE_MEMORY_LIMIT="not a size" is not a memory'):
        effectiveness.extract([str(log)], str(tmp_path / "h.jsonl"))
    assert not (tmp_path / "h.jsonl").exists()


def test_a_cursor_keeps_the_connections_own_settings() -> None:
    # A DuckDB cursor starts from the defaults of the per-connection settings: scoring on
    # two connections must not see another time zone (history readers set UTC) or a
    # progress bar on stdout.
    con = db.connect()
    con.execute("SET TimeZone = 'Asia/Tokyo'")
    plain = con.cursor()
    assert _setting(plain, "TimeZone") != "Asia/Tokyo"  # why db.cursor exists
    cur = db.cursor(con)
    assert _setting(cur, "TimeZone") == "Asia/Tokyo"
    assert _setting(cur, "enable_progress_bar") == "False"
    assert cur.sql("SELECT TIMESTAMPTZ '2026-01-01 00:00:00+00'::VARCHAR").fetchall() == [
        ("2026-01-01 09:00:00+09",)
    ]
