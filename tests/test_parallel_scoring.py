"""SQL files run on several connections (sqlpack.plan / run_range(workers=...)).

The plan is derived from the SQL text; these tests check what it derives for the
effectiveness extract, the rules it follows on small made-up files, and that scoring on
two connections gives exactly what scoring file by file gives.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import duckdb
import pytest
from runscore.engine import db, sqlpack
from runscore.engine.errors import SqlPackError
from runscore.engine.packs import effectiveness

HERE = Path(__file__).resolve().parent
GOLDEN = HERE / "effectiveness" / "golden"
FIXTURE = HERE / "fixtures" / "effectiveness" / "archeflow-fixture" / "events.jsonl"


def _f(name: str, text: str) -> sqlpack.SqlFile:
    return sqlpack.SqlFile("t", "v1", name, text)


def _waits(files: tuple[sqlpack.SqlFile, ...]) -> dict[str, list[str]] | None:
    after = sqlpack.plan(files)
    if after is None:
        return None
    return {
        f.name[:3]: sorted(files[i].name[:3] for i in a) for f, a in zip(files, after, strict=True)
    }


def test_the_extract_plan_is_what_its_sql_reads_and_writes() -> None:
    files = tuple(f for f in sqlpack.files("effectiveness", "v1") if 1 <= int(f.name[:3]) <= 99)
    # Worked out from each file's Reads/Produces header: 020, 030 and 050 read only the
    # events (010, a view over 001's); 015's run status is read by 080 and 090 only; the
    # fix walk (040) needs the verdicts (030), not the findings (035); 070 reads nothing;
    # 090 gathers the warnings of 015, 020, 040 and 050, and finds the ignored cycle,
    # findings and met values in the events (010) itself; its warning's text says
    # "findings", a word the plan takes for 035's table (a wait, never a race: 090 waits
    # for 080, which waits for 035, all the same).
    assert _waits(files) == {
        "001": [],
        "010": ["001"],
        "015": ["001", "010"],
        "020": ["001", "010"],
        "030": ["001", "010"],
        "035": ["030"],
        "040": ["001", "010", "020", "030"],
        "050": ["001", "010"],
        "060": ["030", "035", "040"],
        "070": [],
        "080": ["001", "010", "015", "030", "035", "040", "050", "060", "070"],
        "090": ["001", "010", "015", "020", "035", "040", "050", "080"],
    }


def test_a_range_with_a_temp_object_runs_file_by_file() -> None:
    legacy = tuple(sqlpack.files("effectiveness", "archeflow-legacy"))
    assert sqlpack.plan(legacy) is None
    files = (
        _f("010_a.sql", "CREATE TABLE a AS SELECT 1 AS x;"),
        _f("020_b.sql", "CREATE OR REPLACE TEMP TABLE b AS SELECT 2 AS x;"),
    )
    assert sqlpack.plan(files) is None
    # ... but a comment or a string saying so does not count
    files = (
        _f("010_a.sql", "-- not CREATE TEMP TABLE\nCREATE TABLE a AS SELECT 1 AS x;"),
        _f("020_b.sql", "CREATE TABLE b AS SELECT 'CREATE TEMP TABLE' AS x;"),
    )
    assert _waits(files) == {"010": [], "020": []}


@pytest.mark.parametrize(
    "text",
    [
        "SET threads = 1; CREATE TABLE b AS SELECT 1 AS x;",  # one connection's state
        "PRAGMA enable_profiling;",
        "CREATE INDEX i ON a (x);",  # not a write the plan names
        'CREATE TABLE "b" AS SELECT 1 AS x;',  # a quoted name: the plan would miss it
        "COPY a TO 'out.csv';",
    ],
)
def test_a_statement_the_plan_cannot_account_for_gives_no_plan(text: str) -> None:
    files = (_f("010_a.sql", "CREATE TABLE a AS SELECT 1 AS x;"), _f("020_b.sql", text))
    assert sqlpack.plan(files) is None
    # a string or a comment holding such words changes nothing
    quiet = _f(
        "020_b.sql", f"-- {text}\nCREATE TABLE b AS SELECT '{text.replace(chr(39), '')}' AS c;"
    )
    assert sqlpack.plan((files[0], quiet)) is not None


def test_plan_rules_on_small_files() -> None:
    files = (
        _f("010_t.sql", "CREATE TABLE t AS SELECT 1 AS x;"),
        # a view over t: reading v reads t
        _f("020_v.sql", "CREATE VIEW v AS SELECT x FROM t;"),
        # independent of everything above; "t" only in a comment
        _f("030_u.sql", "-- not from t\nCREATE TABLE u AS SELECT 3 AS x;"),
        # reads v, so t too
        _f("040_r.sql", "CREATE TABLE r AS SELECT * FROM v;"),
        # replaces t: must wait for whoever reads it, through the view too (040)
        _f("050_w.sql", "CREATE OR REPLACE TABLE t AS SELECT 5 AS x;"),
        # a string literal holding "--" does not hide the u after it
        _f("060_s.sql", "CREATE TABLE s AS SELECT '--' AS c, x FROM u;"),
        # INSERT and DROP write too
        _f("070_i.sql", "INSERT INTO u SELECT 7; DROP TABLE s;"),
        # r is a table: what 040 read to make it (v, so t) is not read again
        _f("080_m.sql", "CREATE TABLE m AS SELECT x FROM r;"),
        # a macro is read through like a view
        _f("090_f.sql", "CREATE MACRO f() AS TABLE SELECT * FROM u;"),
        _f("100_g.sql", "CREATE TABLE g AS SELECT * FROM f();"),
    )
    assert _waits(files) == {
        "010": [],
        "020": ["010"],
        "030": [],
        "040": ["010", "020"],
        "050": ["010", "020", "040"],
        "060": ["030"],
        "070": ["030", "060"],
        "080": ["040"],
        "090": ["030", "070"],
        "100": ["030", "070", "090"],
    }


def _run(files: tuple[sqlpack.SqlFile, ...], workers: int) -> duckdb.DuckDBPyConnection:
    con = db.connect()
    after = sqlpack.plan(files)
    assert after is not None
    sqlpack._run_planned(con, files, after, {"p": 5}, workers)
    return con


def test_planned_files_give_what_file_by_file_gives() -> None:
    files = (
        _f("010_t.sql", "CREATE TABLE t AS SELECT range AS x FROM range(1000);"),
        _f("020_a.sql", "CREATE TABLE a AS SELECT sum(x) AS s FROM t;"),
        _f("030_b.sql", "CREATE TABLE b AS SELECT count(*) * $p AS n FROM t;"),
        _f("040_c.sql", "CREATE TABLE c AS SELECT s, n FROM a, b;"),
    )
    con = _run(files, 2)
    assert con.sql("SELECT * FROM c").fetchall() == [(499500, 5000)]


def test_every_connection_of_a_plan_has_the_common_macros() -> None:
    # The common macros are TEMP, made on the caller's connection only: a file calling
    # rs_quote on the plan's other connection failed there ("rs_quote does not exist"),
    # which is why the extract's messages did not quote. run_range's `common` makes them
    # on every connection it opens.
    # Three files that wait for none: the plan's three connections each run one (a
    # connection goes back to the end of the queue the files take them from).
    files = tuple(
        _f(f"0{i}0_{n}.sql", f"CREATE TABLE {n} AS SELECT rs_quote(to_json({v})) AS q;")
        for i, (n, v) in enumerate([("a", "'a' || chr(8238)"), ("b", "chr(10)"), ("c", "1.5")], 1)
    )
    con = db.connect()
    sqlpack.run_common(con, "v1")
    cursors: list[duckdb.DuckDBPyConnection] = []
    real = db.cursor

    def cursor(c: duckdb.DuckDBPyConnection) -> duckdb.DuckDBPyConnection:
        cursors.append(real(c))
        return cursors[-1]

    with pytest.MonkeyPatch.context() as mp:
        mp.setattr(db, "cursor", cursor)
        mp.setattr(sqlpack, "range_files", lambda *a: files)
        sqlpack.run_range(con, "t", "v1", 10, 30, workers=3, common="v1")
    assert len(cursors) == 2  # two more connections than the caller's ran the files
    got = con.sql("SELECT * FROM a UNION ALL SELECT * FROM b UNION ALL SELECT * FROM c")
    assert got.fetchall() == [('"a\\u202e"',), ('"\\n"',), ("1.5",)]


def test_the_first_failed_file_is_raised_and_what_waits_for_it_never_runs() -> None:
    files = (
        _f("010_t.sql", "CREATE TABLE t AS SELECT 1 AS x;"),
        _f("020_bad.sql", "CREATE TABLE bad AS SELECT no_such_column FROM t;"),
        _f("030_ok.sql", "CREATE TABLE ok AS SELECT 3 AS x;"),
        _f("040_after.sql", "CREATE TABLE after AS SELECT * FROM bad;"),
        # bad2 reads t too: a file that waits for nothing could start, and fail, while 010
        # still ran, and then 020 never started (nothing starts after a failure). Which
        # files ran would depend on timing; of those that ran, the first fails the plan.
        _f("050_bad2.sql", "CREATE TABLE bad2 AS SELECT * FROM nowhere, t;"),
    )
    con = db.connect()
    after = sqlpack.plan(files)
    assert after is not None
    with pytest.raises(SqlPackError, match=r"t/v1/020_bad\.sql: .*no_such_column"):
        sqlpack._run_planned(con, files, after, None, 2)
    tables = {r[0] for r in con.sql("SELECT table_name FROM duckdb_tables()").fetchall()}
    assert "after" not in tables and "t" in tables


class _BusyOnClose:
    """A cursor whose close says what DuckDB says of one a thread still runs a query on."""

    def __init__(self, cursor: duckdb.DuckDBPyConnection) -> None:
        self._cursor = cursor

    def __getattr__(self, name: str) -> Any:
        return getattr(self._cursor, name)

    def close(self) -> None:
        self._cursor.close()
        raise duckdb.ResourceInUseException("Connection Error: connection is busy")


def test_a_ctrl_c_is_not_replaced_by_a_busy_cursor(monkeypatch: pytest.MonkeyPatch) -> None:
    # A Ctrl-C that cut the pool's wait for its threads short left a thread on its cursor:
    # closing it raised ResourceInUseException in place of the KeyboardInterrupt, and
    # nightly read that as a broken input (exit 1, a traceback) instead of exit 130.
    import concurrent.futures

    def ctrl_c(*args: Any, **kwargs: Any) -> Any:
        raise KeyboardInterrupt

    files = (
        _f("010_a.sql", "CREATE TABLE a AS SELECT 1 AS x;"),
        _f("020_b.sql", "CREATE TABLE b AS SELECT 2 AS x;"),
    )
    monkeypatch.setattr(db, "cursor", lambda con: _BusyOnClose(con.cursor()))
    after = sqlpack.plan(files)
    assert after is not None
    # Without an error on its way out, a cursor that cannot be closed is an error.
    with pytest.raises(duckdb.ResourceInUseException):
        sqlpack._run_planned(db.connect(), files, after, None, 2)
    monkeypatch.setattr(concurrent.futures, "wait", ctrl_c)
    with pytest.raises(KeyboardInterrupt):
        sqlpack._run_planned(db.connect(), files, after, None, 2)


def _corpus(tmp_path: Path) -> list[str]:
    """Every golden case's events, the ArcheFlow fixture, and runs with what the readers
    treat specially: a bad line, an exact and a conflicting duplicate, a source-less fix."""
    paths = [str(p) for p in sorted(GOLDEN.glob("*/events.jsonl"))] + [str(FIXTURE)]
    lines = []
    for r in range(40):
        rid = f"gen-{r}"
        lines += [
            {"run_id": rid, "seq": 1, "type": "run.start"},
            {
                "run_id": rid,
                "seq": 2,
                "parent": 1,
                "type": "review.verdict",
                "agent": "guardian",
                "data": {
                    "archetype": "guardian",
                    "verdict": "changes_requested",
                    "findings": [{"severity": "bug", "location": f"a.py:{r}"}],
                    "tokens": 100 + r,
                    "model": "m",
                },
            },
            {"run_id": rid, "seq": 3, "parent": 2, "type": "fix.applied", "data": {}},
            {"run_id": rid, "seq": 4, "parent": 3, "type": "run.complete"},
        ]
    lines.append(lines[1])  # an exact duplicate: one event
    lines.append({**lines[5], "agent": "sage"})  # a conflicting one: gen-1 is invalid
    text = "\n".join(json.dumps(x) for x in lines) + "\n{not json\n"
    gen = tmp_path / "gen.jsonl"
    gen.write_text(text)
    return [*paths, str(gen)]


_TABLES = (
    "events",
    "run_status",
    "edges",
    "verdicts",
    "findings",
    "fix_attribution",
    "finding_flags",
    "archetype_costs",
    "run_scores",
    "history_records",
    "event_warnings",
    "row_issues",
)


def _tables(paths: list[str], workers: int, monkeypatch: pytest.MonkeyPatch) -> dict[str, Any]:
    calls: list[int] = []
    real = sqlpack._run_planned

    def spy(*args: Any, **kwargs: Any) -> None:
        calls.append(args[-1])
        real(*args, **kwargs)

    monkeypatch.setattr(effectiveness, "SCORE_WORKERS", workers)
    monkeypatch.setattr(sqlpack, "_run_planned", spy)
    con = db.connect()
    db.set_threads(con, 2)
    effectiveness.build_event_tables(con, paths, scored_at="2026-05-01T00:00:00Z")
    assert calls == ([workers] if workers > 1 else [])
    return {t: con.sql(f"SELECT * FROM {t} ORDER BY ALL").fetchall() for t in _TABLES}


def test_scoring_on_two_connections_equals_scoring_on_one(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    paths = _corpus(tmp_path)
    one = _tables(paths, 1, monkeypatch)
    two = _tables(paths, 2, monkeypatch)
    assert one == two
    assert len(one["history_records"]) > 40 and one["row_issues"]
    statuses = {r[0]: r[1] for r in one["run_status"]}
    assert statuses["gen-0"] == "scored" and statuses["gen-1"] == "invalid"


def test_one_duckdb_thread_scores_on_one_connection(monkeypatch: pytest.MonkeyPatch) -> None:
    # A small incremental read runs DuckDB on one thread (effectiveness._small_read):
    # a second connection would only compete with it.
    con = db.connect()
    db.set_threads(con, 1)
    assert effectiveness._score_workers(con, "v1", 1, 99) == 1
    db.set_threads(con, 2)
    assert effectiveness._score_workers(con, "v1", 1, 99) == effectiveness.SCORE_WORKERS
    assert effectiveness._score_workers(con, "archeflow-legacy", 0, 99) == 1


def test_a_big_read_scores_on_one_connection(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # Past SCORE_ONE_CONNECTION_ROWS events, one connection: two statements at once
    # each need their memory, and each has row groups enough for both cores anyway.
    paths = _corpus(tmp_path)
    two = _tables(paths, 2, monkeypatch)
    monkeypatch.setattr(effectiveness, "SCORE_ONE_CONNECTION_ROWS", 1)
    calls: list[int] = []
    monkeypatch.setattr(sqlpack, "_run_planned", lambda *a, **k: calls.append(a[-1]))
    con = db.connect()
    db.set_threads(con, 2)
    effectiveness.build_event_tables(con, paths, scored_at="2026-05-01T00:00:00Z")
    assert calls == []  # file by file, on the one connection
    one = {t: con.sql(f"SELECT * FROM {t} ORDER BY ALL").fetchall() for t in _TABLES}
    assert one == two


def _scored(paths: list[str]) -> tuple[dict[str, Any], set[str]]:
    con = db.connect()
    effectiveness.build_event_tables(con, paths, scored_at="2026-05-01T00:00:00Z")
    tables = {t: con.sql(f"SELECT * FROM {t} ORDER BY ALL").fetchall() for t in _TABLES}
    return tables, {r[0] for r in con.sql("SELECT table_name FROM duckdb_tables()").fetchall()}


def test_a_small_read_scores_from_a_copy_of_the_events_view(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # Up to EVENTS_COPY_ROWS events, 015-090 read a table copied from 010's view (each
    # statement would bind and plan the view's joins again); past it, the view itself.
    paths = _corpus(tmp_path)
    copied, made = _scored(paths)
    assert "_events_copy" in made
    monkeypatch.setattr(effectiveness, "EVENTS_COPY_ROWS", 10)
    viewed, made = _scored(paths)
    assert "_events_copy" not in made
    assert copied == viewed
    assert len(copied["events"]) > 300 and len(copied["history_records"]) > 40


def test_an_extract_leaves_only_its_records_in_the_main_schema(tmp_path: Path) -> None:
    paths = _corpus(tmp_path)
    res = effectiveness.extract(paths, str(tmp_path / "h.jsonl"), scored_at="2026-05-01T00:00:00Z")
    cur = res._records_at
    assert cur is not None
    left = cur.sql(
        "SELECT table_name FROM duckdb_tables() UNION ALL SELECT view_name FROM duckdb_views() "
        "WHERE NOT internal"
    ).fetchall()
    assert left == [("_rs_records",)]
    assert res.records.num_rows > 40


def test_a_failed_extract_raises_its_own_error_not_the_cleanups(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    real = sqlpack.execute

    def failing(con: duckdb.DuckDBPyConnection, sql: Any, params: Any = None) -> Any:
        if isinstance(sql, sqlpack.SqlFile) and sql.name.startswith("040"):
            raise SqlPackError("effectiveness/v1/040_fix_attribution.sql: stopped")
        return real(con, sql, params)

    monkeypatch.setattr(sqlpack, "execute", failing)
    # The cleanup fails too (as on a connection an interrupt left refusing statements).
    monkeypatch.setattr(effectiveness, "_SHARED_OBJECTS_SQL", "SELECT * FROM no_such_table")
    with pytest.raises(SqlPackError, match="040_fix_attribution.sql: stopped"):
        effectiveness.extract(_corpus(tmp_path), str(tmp_path / "h.jsonl"))
    assert not (tmp_path / "h.jsonl").exists()
