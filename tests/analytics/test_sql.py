"""`runscore sql`: read-only ad-hoc SQL over the documented views."""

from __future__ import annotations

import decimal
import json
import os
import stat
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path

import duckdb
import pyarrow as pa
import pyarrow.parquet as pq
import pytest

HERE = Path(__file__).resolve().parent
HISTORY = str(HERE / "data" / "history.jsonl")


@pytest.mark.parametrize(
    "query",
    [
        "COPY (SELECT * FROM history) TO '{out}'",
        "ATTACH '{out}' AS o",
        "INSTALL httpfs",
        "LOAD httpfs",
        "PRAGMA enable_profiling",
        "SET threads = 1",
        "RESET threads",
        "CALL pragma_version()",
        "CHECKPOINT",
        "EXPORT DATABASE '{out}'",
        "CREATE TABLE t AS SELECT 1",
        "INSERT INTO history SELECT * FROM history",
        "DELETE FROM history",
        "DROP TABLE history",
        "EXPLAIN SELECT 1",
        "SELECT 1; SELECT 2",
        "SELECT 1; COPY (SELECT 1) TO '{out}'",
        "PIVOT (SELECT 1 AS a) ON a",
        "USE memory",
        "DETACH o",
        "BEGIN",
    ],
)
def test_refuses_anything_but_one_select(run_cli, tmp_path: Path, query: str) -> None:
    out = tmp_path / "written"
    r = run_cli("sql", query.format(out=out), "--history", HISTORY)
    assert r.exit_code == 2, r.stdout
    assert r.stdout == ""
    assert r.stderr.startswith("error: ")
    assert not out.exists()


_REFUSED = "error: refused: runscore sql is read-only and runs only SELECT queries (got {}) (see 'cli sql --help')\n"


@pytest.mark.parametrize(
    ("query", "got"),
    [
        # a statement type DuckDB's Python enum does not know: a traceback, exit 1
        ("UPDATE EXTENSIONS", "UPDATE EXTENSIONS"),
        ("update extensions (httpfs)", "UPDATE EXTENSIONS"),
        # DuckDB's type of an INSTALL is LOAD: "got LOAD" to a query that loads nothing
        ("INSTALL httpfs", "INSTALL"),
        ("force /* x */ install httpfs", "FORCE INSTALL"),
        ("LOAD httpfs", "LOAD"),
        ("DELETE FROM history", "DELETE"),
        # "got MULTI" named no statement the user wrote, and not what would run
        (
            "PIVOT history ON archetype USING count(*)",
            "a PIVOT whose ON has no IN list, which DuckDB runs as a CREATE TYPE and then "
            "its SELECT; name the values: ON col IN ('a', 'b')",
        ),
    ],
)
def test_a_refused_statement_is_named_as_written(run_cli, query: str, got: str) -> None:
    r = run_cli("sql", query, "--history", HISTORY)
    assert (r.exit_code, r.stdout, r.stderr) == (2, "", _REFUSED.format(got))


@pytest.mark.parametrize(
    "query",
    [
        "SELECT * FROM read_csv('{passwd}')",
        "WITH x AS (SELECT 1) SELECT * FROM read_text('{passwd}')",
        "SELECT * FROM query('SET enable_external_access = true')",
    ],
)
def test_selects_cannot_touch_files(run_cli, tmp_path: Path, query: str) -> None:
    passwd = tmp_path / "secret.csv"
    passwd.write_text("a,b\n1,2\n")
    r = run_cli(
        "sql", query.format(passwd=passwd, out=tmp_path / "x.parquet"), "--history", HISTORY
    )
    assert r.exit_code == 2
    assert r.stdout == ""
    assert "1,2" not in r.stderr


def test_select_over_history_views(run_cli) -> None:
    r = run_cli(
        "sql",
        "SELECT archetype, count(*) AS n FROM history_current "
        "WHERE scoring_version = 'effectiveness/v1' GROUP BY ALL ORDER BY archetype",
        "--history",
        HISTORY,
        "--format",
        "json",
    )
    assert r.exit_code == 1  # the fixed history has three skipped lines
    assert json.loads(r.stdout) == [
        {"archetype": "evil|`name`\n<b>", "n": 1},
        {"archetype": "guardian", "n": 12},
        {"archetype": "prüfer-🦉", "n": 2},
        {"archetype": "sage", "n": 10},
        {"archetype": "skeptic", "n": 3},
        {"archetype": "trickster", "n": 10},
    ]
    assert len(r.stderr.splitlines()) == 3


def test_views_agree_with_report(run_cli) -> None:
    sql = json.loads(
        run_cli(
            "sql",
            "SELECT archetype, avg_composite, model FROM archetype_aggregates ORDER BY 1",
            "--history",
            HISTORY,
            "--format",
            "json",
        ).stdout
    )
    rep = json.loads(run_cli("report", "--history", HISTORY, "--format", "json").stdout)
    assert sql == [{k: x[k] for k in ("archetype", "avg_composite", "model")} for x in rep]
    runs = json.loads(
        run_cli(
            "sql",
            "SELECT recency, run_id, in_window, trend_half FROM archetype_runs "
            "WHERE archetype = 'guardian' ORDER BY recency LIMIT 3",
            "--history",
            HISTORY,
            "--format",
            "json",
        ).stdout
    )
    assert runs == [
        {"recency": 1, "run_id": "run-12", "in_window": True, "trend_half": "last"},
        {"recency": 2, "run_id": "run-11", "in_window": True, "trend_half": "last"},
        {"recency": 3, "run_id": "run-10", "in_window": True, "trend_half": "last"},
    ]


def test_legacy_version_views(run_cli) -> None:
    r = run_cli(
        "sql",
        "SELECT DISTINCT scoring_version FROM archetype_runs",
        "--history",
        HISTORY,
        "--sql-version",
        "archeflow-legacy",
        "--format",
        "csv",
    )
    assert r.stdout == "scoring_version\narcheflow-legacy\n"


def test_event_views(run_cli, fixtures: Path) -> None:
    events = str(fixtures / "effectiveness" / "archeflow-fixture" / "events.jsonl")
    r = run_cli(
        "sql",
        "SELECT archetype, composite_score, findings_contradicted FROM run_scores "
        "ORDER BY archetype",
        "--events",
        events,
        "--history",
        HISTORY,
        "--format",
        "json",
    )
    assert json.loads(r.stdout) == [
        {"archetype": "guardian", "composite_score": 0.5625, "findings_contradicted": 1},
        {"archetype": "sage", "composite_score": 0.1875, "findings_contradicted": 0},
    ]
    r = run_cli(
        "sql",
        "SELECT count(*) AS n FROM fix_attribution",
        "--events",
        events,
        "--history",
        HISTORY,
        "--format",
        "csv",
    )
    assert r.stdout == "n\n1\n"
    r = run_cli("sql", "SELECT count(*) FROM verdicts", "--history", HISTORY)
    assert r.exit_code == 2 and "the event views need --events PATH" in r.stderr


def _two_runs(folder: Path) -> Path:
    """Two runs: r1 completed at 12:06+02:00 (10:06 UTC) with a guardian of 1500 tokens
    and a sage with none, r2 at 10:30Z: as text, r2's time sorts before r1's."""

    def run(run_id: str, done: str, tokens: int) -> str:
        ev = [
            {"seq": 1, "parent": [], "type": "run.start", "data": {}},
            {
                "seq": 2,
                "parent": [1],
                "type": "agent.complete",
                "data": {"archetype": "guardian", "tokens": tokens, "cost_usd": 0.004},
            },
            {
                "seq": 3,
                "parent": [2],
                "type": "review.verdict",
                "data": {"archetype": "guardian", "verdict": "approved", "findings": []},
            },
            {
                "seq": 4,
                "parent": [2],
                "type": "review.verdict",
                "data": {"archetype": "sage", "verdict": "approved", "findings": []},
            },
            {"seq": 5, "parent": [3, 4], "type": "run.complete", "data": {}, "ts": done},
        ]
        return "".join(
            json.dumps({"ts": "2026-04-03T09:00:00Z", "run_id": run_id, **e}) + "\n" for e in ev
        )

    folder.mkdir()
    (folder / "r1.jsonl").write_text(run("r1", "2026-04-03T12:06:00+02:00", 1500))
    (folder / "r2.jsonl").write_text(run("r2", "2026-04-03T10:30:00Z", 2000))
    return folder


def test_event_views_type_what_they_share_with_the_history_as_it_does(
    run_cli, tmp_path: Path
) -> None:
    # run_status.run_ts was the run.complete text (sorted as text: r2 first) and
    # run_scores.tokens a double (1500.0), where history has TIMESTAMPTZ and BIGINT.
    events = str(_two_runs(tmp_path / "ev"))
    none = str(tmp_path / "no-history.jsonl")
    r = run_cli(
        "sql",
        "SELECT s.run_id, s.run_ts, typeof(s.run_ts) AS t1, c.archetype, c.tokens, "
        "typeof(c.tokens) AS t2 FROM run_status s JOIN run_scores c USING (run_id) "
        "ORDER BY s.run_ts, c.archetype",
        "--events",
        events,
        "--history",
        none,
        "--format",
        "csv",
    )
    assert r.exit_code == 0, r.stderr
    assert r.stdout == (
        "run_id,run_ts,t1,archetype,tokens,t2\n"
        "r1,2026-04-03T10:06:00+00:00,TIMESTAMP WITH TIME ZONE,guardian,1500,BIGINT\n"
        "r1,2026-04-03T10:06:00+00:00,TIMESTAMP WITH TIME ZONE,sage,,BIGINT\n"
        "r2,2026-04-03T10:30:00+00:00,TIMESTAMP WITH TIME ZONE,guardian,2000,BIGINT\n"
        "r2,2026-04-03T10:30:00+00:00,TIMESTAMP WITH TIME ZONE,sage,,BIGINT\n"
    )
    # export writes the same tables: Parquet a reader takes as the history's types
    out = tmp_path / "x.parquet"
    r = run_cli("export", "--to", str(out), "--events", events, "--history", none)
    assert r.exit_code == 0, r.stderr
    scores = pq.read_table(tmp_path / "x.run_scores.parquet")
    status = pq.read_table(tmp_path / "x.run_status.parquet")
    assert str(scores.schema.field("tokens").type) == "int64"
    assert str(status.schema.field("run_ts").type) == "timestamp[us, tz=UTC]"
    assert sorted(scores.column("tokens").to_pylist(), key=str) == [1500, 2000, None, None]


def test_schema_lists_views(run_cli, fixtures: Path) -> None:
    events = str(fixtures / "effectiveness" / "archeflow-fixture" / "events.jsonl")
    r = run_cli("sql", "--schema", "--history", HISTORY, "--format", "json")
    rows = json.loads(r.stdout)
    views = list(dict.fromkeys(x["view"] for x in rows))
    assert views == [
        "history",
        "history_current",
        "archetype_runs",
        "archetype_aggregates",
        "report",
    ]
    hist_cols = [x["column"] for x in rows if x["view"] == "history"]
    assert hist_cols[:22] == [
        "ts",
        "run_id",
        "archetype",
        "signal_to_noise",
        "fix_rate",
        "cost_efficiency",
        "accuracy",
        "cycle_impact",
        "composite_score",
        "tokens",
        "cost_usd",
        "model",
        "findings_total",
        "findings_useful",
        "fixes_applied",
        "scoring_version",
        "run_ts",
        "cost_basis",
        "cost_efficiency_norm",
        "findings_contradicted",
        "events_sha256",
        "source",
    ]
    assert hist_cols[22:] == ["history_file", "history_line"]
    r = run_cli("sql", "--schema", "--events", events, "--history", HISTORY, "--format", "json")
    views = list(dict.fromkeys(x["view"] for x in json.loads(r.stdout)))
    assert views[5:] == [
        "events",
        "verdicts",
        "findings",
        "fixes",
        "fix_attribution",
        "run_scores",
        "run_status",
    ]


def test_output_formats(run_cli, tmp_path: Path) -> None:
    q = "SELECT 'a|b' AS name, 1.5 AS x, NULL AS y"
    assert (
        run_cli("sql", q, "--history", HISTORY, "--format", "csv").stdout == "name,x,y\na|b,1.5,\n"
    )
    md = run_cli("sql", q, "--history", HISTORY, "--format", "markdown").stdout
    assert md.splitlines()[2] == "| a\\|b | 1.5 | — |"
    out = tmp_path / "r.parquet"
    r = run_cli(
        "sql",
        "SELECT run_id, composite_score FROM history ORDER BY ALL",
        "--history",
        HISTORY,
        "--format",
        "parquet",
        "--output",
        str(out),
    )
    assert r.stdout == ""
    n = duckdb.sql("SELECT count(*) FROM read_parquet($p)", params={"p": str(out)}).fetchall()
    assert n == [(42,)]
    r = run_cli("sql", q, "--history", HISTORY, "--format", "parquet")
    assert r.exit_code == 2 and "needs --output" in r.stderr
    txt = tmp_path / "r.json"
    run_cli("sql", q, "--history", HISTORY, "--format", "json", "--output", str(txt))
    assert json.loads(txt.read_text()) == [{"name": "a|b", "x": 1.5, "y": None}]


def test_usage_errors(run_cli) -> None:
    assert run_cli("sql", "--history", HISTORY).exit_code == 2
    r = run_cli("sql", "SELEC 1", "--history", HISTORY)
    assert r.exit_code == 2 and "does not parse" in r.stderr
    r = run_cli("sql", "SELECT nope FROM history", "--history", HISTORY)
    assert r.exit_code == 2 and r.stderr.startswith("error: query failed:")
    assert run_cli("sql", "SELECT 1", "--schema").exit_code == 2


def test_a_missing_history_is_said_not_silently_empty(run_cli, tmp_path: Path) -> None:
    # A mistyped --history answered every query with no rows and nothing on stderr.
    missing = tmp_path / "effectivness.jsonl"
    r = run_cli("sql", "SELECT count(*) AS n FROM history", "--history", str(missing))
    assert r.exit_code == 0
    assert r.stdout.splitlines()[-1].strip() == "0"
    assert r.stderr == f"no history at {missing}: its views are empty\n"
    r = run_cli("sql", "SELECT count(*) AS n FROM history", "--history", HISTORY)
    assert "no history" not in r.stderr
    # The path is written as every message writes one: a tab in it was written as it is,
    # so the note named a file with a blank where the name has a tab.
    r = run_cli("sql", "SELECT count(*) AS n FROM history", "--history", "no\tsuch.jsonl")
    assert (r.exit_code, r.stderr) == (0, 'no history at "no\\tsuch.jsonl": its views are empty\n')


def test_an_output_that_cannot_be_written_leaves_no_temp_file(
    run_cli, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    import os

    out = tmp_path / "result.json"
    out.write_text("old\n")

    def full_disk(src: str, dst: str) -> None:
        raise OSError(28, "No space left on device")

    monkeypatch.setattr(os, "replace", full_disk)  # the rename, after the temp file is written
    r = run_cli(
        "sql", "SELECT 1 AS x", "--history", HISTORY, "--format", "json", "--output", str(out)
    )
    assert r.exit_code == 2 and r.stdout == ""
    assert r.stderr == f"error: {out}: cannot write the result: No space left on device\n"
    assert sorted(p.name for p in tmp_path.iterdir()) == ["result.json"]
    assert out.read_text() == "old\n"
    missing = tmp_path / "no-such-folder" / "result.parquet"
    r = run_cli(
        "sql",
        "SELECT 1 AS x",
        "--history",
        HISTORY,
        "--format",
        "parquet",
        "--output",
        str(missing),
    )
    assert r.exit_code == 2 and r.stderr.startswith(f"error: {missing}: cannot write the result: ")


def _spy_on_fetches(monkeypatch: pytest.MonkeyPatch) -> list[str]:
    """The views ``run_sql`` fetches from now on, in order (the list fills as it runs)."""
    from runscore.engine.packs import effectiveness_history as eh

    fetched: list[str] = []
    real = eh._fetch_view

    def spy(con: duckdb.DuckDBPyConnection, name: str) -> object:
        fetched.append(name)
        return real(con, name)

    monkeypatch.setattr(eh, "_fetch_view", spy)
    return fetched


def test_a_query_fetches_only_the_views_it_names(monkeypatch: pytest.MonkeyPatch) -> None:
    # Each view of a big history is a scan and a sort by line (~0.1-0.45 s at 1M lines):
    # a query over history_current does not pay for history or archetype_runs.
    from runscore.engine.packs import effectiveness_history as eh

    fetched = _spy_on_fetches(monkeypatch)
    res = eh.run_sql('SELECT count(*) AS n FROM "History_Current"', HISTORY)
    assert fetched == ["history_current"]
    fetched.clear()
    both = eh.run_sql(
        "SELECT (SELECT count(*) FROM history) - (SELECT count(*) FROM history_current) AS d",
        HISTORY,
    )
    assert fetched == ["history", "history_current"]
    assert res.table.column("n").to_pylist()[0] > 0 and both.table.num_rows == 1
    # naming none of them (exploring): every view is there
    fetched.clear()
    shown = eh.run_sql("SHOW TABLES", HISTORY).table.column(0).to_pylist()
    assert sorted(shown) == sorted(eh.HISTORY_VIEWS) == sorted(fetched)
    # 'history' inside a longer word is not a name
    assert eh._named_views("SELECT 1 FROM history_current", list(eh.HISTORY_VIEWS)) == {
        "history_current"
    }
    assert eh._named_views("SELECT 'prehistory'", list(eh.HISTORY_VIEWS)) is None


@pytest.mark.parametrize(
    ("query", "expected"),
    [
        (
            "SELECT table_name FROM information_schema.tables "
            "WHERE table_name <> 'report' ORDER BY 1",
            ["archetype_aggregates", "archetype_runs", "history", "history_current"],
        ),
        (
            "SELECT view_name FROM duckdb_views() WHERE view_name LIKE 'history%' ORDER BY 1",
            ["history", "history_current"],
        ),
        (
            "SELECT DISTINCT table_name FROM information_schema.columns "
            "WHERE column_name = 'recency' OR table_name = 'report' ORDER BY 1",
            ["archetype_runs", "report"],
        ),
        (
            "SELECT table_name FROM information_schema.tables t "
            "WHERE (SELECT count(*) FROM history) > 0 AND table_name LIKE 'arch%' ORDER BY 1",
            ["archetype_aggregates", "archetype_runs"],
        ),
        (
            "SELECT name FROM (SHOW TABLES) WHERE name NOT IN ('history', 'report') ORDER BY 1",
            ["archetype_aggregates", "archetype_runs", "history_current"],
        ),
        (
            "FROM (DESCRIBE) SELECT name WHERE name <> 'history' ORDER BY 1",
            ["archetype_aggregates", "archetype_runs", "history_current", "report"],
        ),
    ],
)
def test_discovery_queries_see_every_view(
    monkeypatch: pytest.MonkeyPatch, query: str, expected: list[str]
) -> None:
    # Only the views a query names were registered (for speed), so a catalog query that
    # named one of them, even to exclude it, saw that one alone: "which views are there
    # besides report?" answered none. A query that reads the catalog now has them all;
    # one that does not still fetches only what it names.
    from runscore.engine.packs import effectiveness_history as eh

    fetched = _spy_on_fetches(monkeypatch)
    assert eh.run_sql(query, HISTORY).table.column(0).to_pylist() == expected
    assert sorted(fetched) == sorted(eh.HISTORY_VIEWS)
    fetched.clear()
    eh.run_sql("SELECT count(*) FROM report WHERE model <> 'tables'", HISTORY)
    assert fetched == ["report"]


def test_the_views_are_read_only(run_cli) -> None:
    # Registered Arrow data, not tables: nothing can be written to them even past the
    # statement check (which refuses INSERT/UPDATE/DELETE before they run).
    from runscore.engine.packs import effectiveness_history as eh

    tables, _, _ = eh._gather(HISTORY, None, None)
    q = eh._query_connection(tables)
    with pytest.raises(duckdb.Error):
        q.execute("INSERT INTO history SELECT * FROM history")
    with pytest.raises(duckdb.Error):
        q.execute("CREATE TABLE x AS SELECT * FROM read_json('/etc/passwd')")


def test_columns_of_the_same_name_are_all_kept(run_cli, tmp_path: Path) -> None:
    # A self-join (`SELECT a.archetype, b.archetype ...`) gives two columns named alike:
    # every format dropped the first one (and its values) without a word, and the Parquet
    # file could not be read back. Each is kept, renamed as DuckDB's own
    # CREATE TABLE AS does: x, x_1, x_2 (a suffix already taken is skipped).
    q = "SELECT 'a' AS x, 'b' AS x, 'c' AS x_1, NULL AS x"
    none = str(tmp_path / "no-history.jsonl")  # the views are empty; the query needs none
    r = run_cli("sql", q, "--history", none, "--format", "csv")
    assert r.exit_code == 0
    assert r.stdout == "x,x_1,x_1_1,x_2\na,b,c,\n"
    r = run_cli("sql", q, "--history", none, "--format", "json")
    assert json.loads(r.stdout) == [{"x": "a", "x_1": "b", "x_1_1": "c", "x_2": None}]
    table = run_cli("sql", q, "--history", none, "--format", "table").stdout
    assert table.split() == [
        "x", "x_1", "x_1_1", "x_2", "-", "---", "-----", "---", "a", "b", "c", "—"
    ]  # fmt: skip
    md = run_cli("sql", q, "--history", none, "--format", "markdown").stdout
    assert md.splitlines()[0] == "| x | x_1 | x_1_1 | x_2 |"
    assert md.splitlines()[2] == "| a | b | c | — |"
    out = tmp_path / "r.parquet"
    r = run_cli("sql", q, "--history", none, "--format", "parquet", "--output", str(out))
    assert r.exit_code == 0
    got = duckdb.sql("SELECT * FROM read_parquet($p)", params={"p": str(out)})
    assert got.columns == ["x", "x_1", "x_1_1", "x_2"]
    assert got.fetchall() == [("a", "b", "c", None)]


def test_dates_beyond_python_s_range_are_written_not_a_traceback(run_cli, tmp_path: Path) -> None:
    # DuckDB takes years 10000+ and before 1 (a run.complete `ts` of "10000-01-01T00:00:00Z"
    # reaches the history as run_ts); Python's datetime does not, and every format of
    # `runscore sql` ended in a traceback (OverflowError: date value out of range, exit 1).
    # A TIMESTAMP_NS with nanoseconds failed the same way (ValueError). They are written
    # in the ISO form the other values of the column have.
    q = (
        "SELECT TIMESTAMPTZ '10000-01-01 00:00:00Z' AS t, DATE '-0001-03-01' AS d, "
        "TIMESTAMP '12345-06-07 08:09:10.5' AS n, TIMESTAMPTZ '2026-11-20 10:08:00Z' AS ok, "
        "TIMESTAMP_NS '2026-01-01 00:00:00.123456789' AS ns "
        "UNION ALL SELECT NULL, DATE '2026-01-02', NULL, NULL, NULL"
    )
    none = str(tmp_path / "no-history.jsonl")
    r = run_cli("sql", q, "--history", none, "--format", "json")
    assert r.exit_code == 0, r.stderr
    assert json.loads(r.stdout) == [
        {
            "t": "10000-01-01T00:00:00+00:00",
            "d": "-0001-03-01",
            "n": "12345-06-07T08:09:10.500000",
            "ok": "2026-11-20T10:08:00+00:00",
            "ns": "2026-01-01T00:00:00.123456789",
        },
        {"t": None, "d": "2026-01-02", "n": None, "ok": None, "ns": None},
    ]
    r = run_cli("sql", q, "--history", none, "--format", "csv")
    assert r.exit_code == 0, r.stderr
    assert r.stdout.splitlines() == [
        "t,d,n,ok,ns",
        "10000-01-01T00:00:00+00:00,-0001-03-01,12345-06-07T08:09:10.500000,"
        "2026-11-20T10:08:00+00:00,2026-01-01T00:00:00.123456789",
        ",2026-01-02,,,",
    ]
    for fmt in ("markdown", "table"):
        r = run_cli("sql", q, "--history", none, "--format", fmt)
        assert r.exit_code == 0 and "10000-01-01T00:00:00+00:00" in r.stdout


def test_a_hugeint_keeps_every_digit_in_json(run_cli, tmp_path: Path) -> None:
    # sum() over a BIGINT column is a HUGEINT, which reaches the writer as a Decimal: in
    # JSON one past 2**53 became a float (9007199254740992.0), where CSV, markdown and a
    # BIGINT of the same value keep 9007199254740993.
    q = "SELECT 9007199254740993::HUGEINT AS h, 9007199254740993::BIGINT AS b, 1.5 AS d"
    none = str(tmp_path / "no-history.jsonl")
    r = run_cli("sql", q, "--history", none, "--format", "json")
    assert r.exit_code == 0, r.stderr
    assert '"h": 9007199254740993,' in r.stdout
    assert json.loads(r.stdout) == [{"h": 9007199254740993, "b": 9007199254740993, "d": 1.5}]
    r = run_cli("sql", q, "--history", none, "--format", "csv")
    assert r.stdout == "h,b,d\n9007199254740993,9007199254740993,1.5\n"


@pytest.mark.parametrize("fmt", ["json", "csv", "table", "markdown"])
def test_columns_with_the_same_name_are_all_written(run_cli, fmt: str) -> None:
    # A superseded line beside its current one: both columns are named ts. Every writer
    # made a row a mapping by name, so the first ts (and run_id) vanished without a word.
    q = (
        "SELECT h.run_id, c.run_id, h.ts, c.ts, 1 AS ts_1 FROM history h "
        "JOIN history_current c USING (run_id, archetype, scoring_version) "
        "WHERE h.history_line <> c.history_line ORDER BY h.history_line LIMIT 1"
    )
    r = run_cli("sql", q, "--history", HISTORY, "--format", fmt)
    assert r.exit_code == 1  # the golden history has skipped lines
    # named as DuckDB's CREATE TABLE AS names them: the explicit ts_1 takes a suffix too
    assert (
        "columns with the same name renamed: run_id (column 2) → run_id_1, "
        "ts (column 4) → ts_1, ts_1 (column 5) → ts_1_1" in r.stderr
    )
    if fmt == "json":
        (row,) = json.loads(r.stdout)
        assert list(row) == ["run_id", "run_id_1", "ts", "ts_1", "ts_1_1"]
        assert row["run_id"] == row["run_id_1"] and row["ts"] < row["ts_1"]
        assert row["ts_1_1"] == 1
    else:
        header = r.stdout.splitlines()[0]
        for name in ("run_id", "run_id_1", "ts", "ts_1", "ts_1_1"):
            assert name in header.replace("|", " ").replace(",", " ").split()


@pytest.mark.parametrize("args", [["SELECT * FROM report"], ["--schema"]])
def test_sql_version_all_is_refused_not_narrowed(run_cli, args: list[str]) -> None:
    # It was taken as the default version: `report` then held the newest version's rows
    # only, while the user had asked for every version, and nothing said so.
    r = run_cli("sql", *args, "--history", HISTORY, "--sql-version", "all")
    assert r.exit_code == 2
    assert r.stdout == ""
    assert r.stderr == (
        "error: sql works on one scoring version (history and history_current hold every "
        "version's lines); --sql-version all is for report (see 'cli sql --help')\n"
    )


def test_output_never_overwrites_the_history(run_cli, tmp_path: Path) -> None:
    # --output the history itself (or a link to it) replaced the append-only history with
    # the query's result, exit 0.
    hist = tmp_path / "h.jsonl"
    hist.write_bytes(Path(HISTORY).read_bytes())
    (tmp_path / "link.jsonl").symlink_to(hist)
    for out in ("h.jsonl", "link.jsonl", str(hist)):
        r = run_cli(
            "sql", "SELECT 1 AS x", "--history", str(hist), "--format", "csv", "--output", out
        )
        assert r.exit_code == 2
        assert r.stderr == (
            f"error: {out}: that is the history {hist} the query reads; choose another --output "
            "(see 'cli sql --help')\n"
        )
        assert hist.read_bytes() == Path(HISTORY).read_bytes()
    r = run_cli(
        "sql", "SELECT 1 AS x", "--history", str(hist), "--format", "csv", "--output", "out.csv"
    )
    assert (tmp_path / "out.csv").read_text() == "x\n1\n"


@pytest.mark.parametrize(
    ("events", "out"),
    [
        ("logs/run.jsonl", "logs/run.jsonl"),
        ("logs", "logs/run.jsonl"),
        ("logs/*.jsonl", "logs/run.jsonl"),
        ("logs/run.jsonl", "hard.jsonl"),
    ],
)
def test_output_never_overwrites_an_events_input(
    run_cli, tmp_path: Path, fixtures: Path, events: str, out: str
) -> None:
    # --output one of the --events run logs (the file itself, one a folder or glob
    # given holds, a hard link to it) replaced the run log with the query's result, exit 0:
    # the run's events were gone.
    log = fixtures / "effectiveness" / "archeflow-fixture" / "events.jsonl"
    (tmp_path / "logs").mkdir()
    run = tmp_path / "logs" / "run.jsonl"
    run.write_bytes(log.read_bytes())
    os.link(run, tmp_path / "hard.jsonl")
    r = run_cli(
        "sql", "SELECT 1 AS x", "--history", "none.jsonl", "--events", events, "--output", out
    )
    assert (r.exit_code, r.stdout, r.stderr) == (
        2,
        "",
        f"error: {out}: that is the run log logs/run.jsonl the query reads (--events); "
        "choose another --output (see 'cli sql --help')\n",
    )
    assert run.read_bytes() == log.read_bytes()
    r = run_cli(
        "sql", "SELECT 1 AS x", "--history", "none.jsonl", "--events", events, "--output", "x.csv"
    )
    assert (r.exit_code, (tmp_path / "x.csv").read_text()) == (0, "x\n1\n")


@pytest.mark.parametrize("fmt", ["csv", "parquet"])
@pytest.mark.parametrize("link", [False, True])
def test_output_a_fifo_or_device_is_written_into_not_replaced(
    run_cli, drain: Callable[[int], bytes], tmp_path: Path, fmt: str, link: bool
) -> None:
    # --output a FIFO or a device (/dev/null; a shell's >(gzip > r.gz), a link
    # /dev/fd/63 to a pipe) was written as a temporary file renamed over it: the node (or
    # the link) was replaced by a regular file holding the result, and the reader got
    # nothing (as a user who may not write in /dev: "cannot write the result"). It is
    # written into, as a shell's > writes into it.
    fifo = tmp_path / "p"
    os.mkfifo(fifo)
    out = fifo
    if link:
        out = tmp_path / "fd"
        out.symlink_to(fifo)
    reader = os.open(fifo, os.O_RDONLY | os.O_NONBLOCK)  # so the write does not wait
    try:
        r = run_cli(
            "sql", "SELECT 1 AS x", "--history", "none.jsonl", "--format", fmt, "--output", str(out)
        )
        got = drain(reader)
    finally:
        os.close(reader)
    assert (r.exit_code, r.stdout) == (0, ""), r.stderr
    assert stat.S_ISFIFO(os.lstat(fifo).st_mode)
    assert out.is_symlink() == link
    if fmt == "csv":
        assert got == b"x\n1\n"
    else:
        assert pq.read_table(pa.BufferReader(got)).to_pylist() == [{"x": 1}]
    assert sorted(p.name for p in tmp_path.iterdir()) == sorted({"p", out.name})


def test_output_an_open_descriptor_is_written_into(tmp_path: Path) -> None:
    # --output /dev/fd/N (/dev/stdout) of a regular file: the temporary file was made in
    # /dev/fd to be renamed over it (as root, /dev/stdout was replaced by a regular file);
    # it is written into, as a shell's > writes into it.
    target = tmp_path / "into.csv"
    with open(target, "wb") as f:
        r = subprocess.run(
            [sys.executable, "-m", "runscore", "sql", "SELECT 1 AS x", "--history", "none.jsonl"]
            + ["--format", "csv", "--output", f"/dev/fd/{f.fileno()}"],
            cwd=tmp_path,
            pass_fds=[f.fileno()],
            capture_output=True,
            text=True,
        )
    assert (r.returncode, r.stdout) == (0, ""), r.stderr
    assert target.read_text() == "x\n1\n"


def test_output_never_replaces_a_file_kept_beside_the_history(run_cli, tmp_path: Path) -> None:
    # --output h.jsonl.lock replaced the history's lock file (exit 0): an extract holding
    # the old one and a second one locking the new one then appended at the same time. So
    # with the manifest, the cache, the nightly journal, the pipeline history beside it
    # and their locks.
    hist = tmp_path / "h.jsonl"
    hist.write_bytes(Path(HISTORY).read_bytes())
    beside = {
        "h.jsonl.lock": b"",
        "h.jsonl.manifest.json": b'{"files": {}}',
        "h.jsonl.cache.duckdb": b"cache",
        "pipelines.jsonl": b"",
        "pipelines.jsonl.lock": b"",
        # the nightly job's journal: replaced, an interrupted job's runs were said by none
        "h.jsonl.nightly.journal": b'{"kind": "runscore-nightly-journal-v1", "jobs": []}\n',
    }
    for name, data in beside.items():
        (tmp_path / name).write_bytes(data)
    for name in [*beside, "h.jsonl.nightly.lock"]:
        r = run_cli(
            "sql", "SELECT 1 AS x", "--history", str(hist), "--format", "csv", "--output", name
        )
        assert (r.exit_code, r.stdout) == (2, "")
        assert r.stderr == (
            f"error: {name}: runscore keeps that file beside the history {hist} (a lock, the "
            "extract manifest, the cache, the nightly journal or the pipeline history): writing "
            "the result there "
            "would replace it; choose another --output (see 'cli sql --help')\n"
        )
    assert {n: (tmp_path / n).read_bytes() for n in beside} == beside
    assert not (tmp_path / "h.jsonl.nightly.lock").exists()


def test_a_parquet_output_that_fails_leaves_the_old_file(run_cli, tmp_path: Path) -> None:
    # Written beside the target and renamed, as the text formats are: a failed write (here
    # a type Parquet has no form for) is exit 2 in one line, and the last result stays.
    out = tmp_path / "r.parquet"
    out.write_bytes(b"last result")
    r = run_cli(
        "sql", "SELECT INTERVAL 1 DAY AS i", "--history", HISTORY,
        "--format", "parquet", "--output", str(out),
    )  # fmt: skip
    assert (r.exit_code, r.stdout) == (2, "")
    assert r.stderr.splitlines()[-1] == (
        f"error: {out}: cannot write the result as Parquet: Unhandled type for Arrow to "
        "Parquet schema conversion: month_day_nano_interval (see 'cli sql --help')"
    )
    assert out.read_bytes() == b"last result"
    assert sorted(p.name for p in tmp_path.iterdir()) == ["r.parquet"]
    ok = run_cli(
        "sql", "SELECT 1 AS n", "--history", HISTORY, "--format", "parquet", "--output", str(out)
    )
    assert ok.exit_code == 1  # the fixed history's skipped lines
    assert pq.read_table(out).to_pylist() == [{"n": 1}]
    assert sorted(p.name for p in tmp_path.iterdir()) == ["r.parquet"]


#: One row of every DuckDB type whose text differed between the formats, and a row of
#: their nulls (empties where a type has one).
_EVERY_TYPE = (
    "SELECT true AS b, [1, 2] AS l, {'a': 1, 'b': 'x'} AS s, MAP {'k': 1} AS m, "
    "[{'t': TIMESTAMPTZ '2026-11-20 10:08:00Z', 'x': '\\xff'::BLOB, 'i': INTERVAL 90 MINUTE, "
    "'f': 'nan'::DOUBLE}] AS n, TIMESTAMPTZ '2026-11-20 10:08:00Z' AS tz, "
    "TIMESTAMP '2026-11-20 10:08:00.5' AS ts, DATE '2026-11-20' AS d, TIME '10:08:00' AS t, "
    "'x'::BLOB AS bl, INTERVAL '1 month 2 days 3 hours' AS iv, "
    "INTERVAL '-14 months 0.25 seconds' AS ivn, 'nan'::DOUBLE AS nan "
    "UNION ALL SELECT false, [], {'a': NULL, 'b': NULL}, NULL, NULL, NULL, NULL, NULL, NULL, "
    "''::BLOB, INTERVAL 0 SECOND, NULL, NULL"
)
_N = '[{"t": "2026-11-20T10:08:00+00:00", "x": "ff", "i": "PT1H30M", "f": null}]'


def test_every_format_writes_one_text_form_per_type(run_cli, tmp_path: Path) -> None:
    # markdown and table wrote Python's repr (True, {'a': 1}, b'x', MonthDayNano(...)),
    # CSV and markdown a timestamp with a space, JSON an INTERVAL as [months, days, ns]:
    # the same value read differently per format. Now one form per type, JSON's text.
    none = str(tmp_path / "no-history.jsonl")
    r = run_cli("sql", _EVERY_TYPE, "--history", none, "--format", "json")
    assert r.exit_code == 0, r.stderr
    assert json.loads(r.stdout) == [
        {
            "b": True,
            "l": [1, 2],
            "s": {"a": 1, "b": "x"},
            "m": {"k": 1},
            "n": json.loads(_N),
            "tz": "2026-11-20T10:08:00+00:00",
            "ts": "2026-11-20T10:08:00.500000",
            "d": "2026-11-20",
            "t": "10:08:00",
            "bl": "78",
            "iv": "P1M2DT3H",
            "ivn": "P-1Y-2MT0.25S",
            "nan": None,
        },
        {
            "b": False,
            "l": [],
            "s": {"a": None, "b": None},
            "m": None,
            "n": None,
            "tz": None,
            "ts": None,
            "d": None,
            "t": None,
            "bl": "",
            "iv": "PT0S",
            "ivn": None,
            "nan": None,
        },
    ]
    csv_text = (
        "b,l,s,m,n,tz,ts,d,t,bl,iv,ivn,nan\n"
        'true,"[1, 2]","{""a"": 1, ""b"": ""x""}","{""k"": 1}",'
        + '"' + _N.replace('"', '""') + '",'
        "2026-11-20T10:08:00+00:00,2026-11-20T10:08:00.500000,2026-11-20,10:08:00,78,"
        "P1M2DT3H,P-1Y-2MT0.25S,\n"
        'false,[],"{""a"": null, ""b"": null}",,,,,,,,PT0S,,\n'
    )  # fmt: skip
    md_text = (
        "| b | l | s | m | n | tz | ts | d | t | bl | iv | ivn | nan |\n"
        "|---|---|---|---|---|---|---|---|---|---|---|---|---|\n"
        '| true | [1, 2] | {"a": 1, "b": "x"} | {"k": 1} | ' + _N + " | "
        "2026-11-20T10:08:00+00:00 | 2026-11-20T10:08:00.500000 | 2026-11-20 | 10:08:00 | 78 | "
        "P1M2DT3H | P-1Y-2MT0.25S | — |\n"
        '| false | [] | {"a": null, "b": null} | — | — | — | — | — | — |  | PT0S | — | — |\n'
    )  # fmt: skip
    # null is "—" in table as in markdown; the empty BLOB is empty
    table_cells = [
        ["b", "l", "s", "m", "n", "tz", "ts", "d", "t", "bl", "iv", "ivn", "nan"],
        [
            "true", "[1, 2]", '{"a": 1, "b": "x"}', '{"k": 1}', _N,
            "2026-11-20T10:08:00+00:00", "2026-11-20T10:08:00.500000", "2026-11-20",
            "10:08:00", "78", "P1M2DT3H", "P-1Y-2MT0.25S", "—",
        ],
        ["false", "[]", '{"a": null, "b": null}', "—", "—", "—", "—", "—", "—", "", "PT0S", "—", "—"],
    ]  # fmt: skip
    widths = [max(len(row[i]) for row in table_cells) for i in range(13)]
    # a column of numbers (nan: NaN and null, both "—") is aligned right, its head too
    lines = [
        "  ".join(
            c.rjust(w) if i == 12 else c.ljust(w)
            for i, (c, w) in enumerate(zip(row, widths, strict=True))
        ).rstrip()
        for row in table_cells
    ]
    lines.insert(1, "  ".join("-" * w for w in widths))
    expected = {"csv": csv_text, "markdown": md_text, "table": "\n".join(lines) + "\n"}
    for fmt, want in expected.items():
        r = run_cli("sql", _EVERY_TYPE, "--history", none, "--format", fmt)
        assert (r.exit_code, r.stdout) == (0, want), fmt
        out = tmp_path / f"r.{fmt}"
        r = run_cli("sql", _EVERY_TYPE, "--history", none, "--format", fmt, "--output", str(out))
        assert (r.exit_code, r.stdout, out.read_text(encoding="utf-8")) == (0, "", want), fmt


#: Infinities at the top of a row and inside JSON text (a list, a struct, a map's value;
#: a map's key is named), beside a NaN and a number.
_INFINITIES = (
    "SELECT 'inf'::DOUBLE AS a, '-inf'::FLOAT AS b, 'nan'::DOUBLE AS c, 1.5 AS d, "
    "['inf'::DOUBLE, 1] AS l, MAP {'-inf'::DOUBLE: 'inf'::DOUBLE} AS m"
)


def test_an_infinity_is_inf_where_the_format_can_write_it_and_said_where_it_is_null(
    run_cli, tmp_path: Path
) -> None:
    # Every format wrote +/-infinity as null (an empty CSV cell, "—"), which reads as
    # unknown, and said nothing. CSV, markdown and table write it as DuckDB does (inf,
    # -inf; CSV readers take it back as the number); JSON, which has no infinity, and the
    # JSON text of a list or map value write null, and stderr says where, column by column.
    none = str(tmp_path / "no-history.jsonl")
    note = "column {}: {} infinite value{} written as null (JSON has no infinity; --format parquet keeps it)\n"
    head = f"no history at {none}: its views are empty\n"
    nested = note.format('"l"', 1, "") + note.format('"m"', 1, "")
    expected = {
        "csv": (
            'a,b,c,d,l,m\ninf,-inf,,1.5,"[null, 1.0]","{""-Infinity"": null}"\n',
            head + nested,
        ),
        "markdown": (
            "| a | b | c | d | l | m |\n|---|---|---|---|---|---|\n"
            '| inf | -inf | — | 1.5 | [null, 1.0] | {"-Infinity": null} |\n',
            head + nested,
        ),
        "table": (
            "  a     b  c    d  l            m\n"
            "---  ----  -  ---  -----------  -------------------\n"
            'inf  -inf  —  1.5  [null, 1.0]  {"-Infinity": null}\n',
            head + nested,
        ),
        "json": (
            '[\n  {\n    "a": null,\n    "b": null,\n    "c": null,\n    "d": 1.5,\n'
            '    "l": [\n      null,\n      1.0\n    ],\n    "m": {\n      "-Infinity": null\n'
            "    }\n  }\n]\n",
            head + note.format('"a"', 1, "") + note.format('"b"', 1, "") + nested,
        ),
    }
    for fmt, (out, err) in expected.items():
        r = run_cli("sql", _INFINITIES, "--history", none, "--format", fmt)
        assert (r.exit_code, r.stdout, r.stderr) == (0, out, err), fmt
    r = run_cli("sql", "SELECT 'inf'::DOUBLE AS a", "--history", none, "--format", "csv")
    assert float(r.stdout.splitlines()[1]) == float("inf")
    out_file = tmp_path / "r.parquet"
    r = run_cli(
        "sql", _INFINITIES, "--history", none, "--format", "parquet", "--output", str(out_file)
    )
    assert (r.exit_code, r.stderr) == (0, head)
    assert pq.read_table(out_file).column("a").to_pylist() == [float("inf")]


def test_markdown_writes_a_line_break_in_a_value_as_br(run_cli, tmp_path: Path) -> None:
    # A line break in a cell was a space ("a b" for "a\nb", a blank cell for "\n" alone):
    # the value changed without a word. It is <br> (GitHub renders the break; a value's
    # own "<br>" is "&lt;br>"). A CR is written escaped, so a value holding one is quoted
    # whole, as a message quotes it ("a\r\nb": a\x0d<br>b read as the text \x0d); table
    # writes a line break escaped too, so there a value holding one is quoted ("a\nb").
    none = str(tmp_path / "no-history.jsonl")
    q = (
        "SELECT 'a' || chr(10) || 'b' AS \"x\ny\", chr(10) AS lf, "
        "'a' || chr(13) || chr(10) || 'b' AS crlf, '<br>' AS br, 'x' || chr(10) || '# y' AS h"
    )
    r = run_cli("sql", q, "--history", none, "--format", "markdown")
    assert (r.exit_code, r.stdout) == (
        0,
        "| x<br>y | lf | crlf | br | h |\n"
        "|---|---|---|---|---|\n"
        '| a<br>b | <br> | "a\\\\r\\\\nb" | &lt;br> | x<br># y |\n',
    )
    r = run_cli("sql", q, "--history", none, "--format", "table")
    assert r.stdout.splitlines()[0] == '"x\\ny"  lf    crlf      br    h'
    assert r.stdout.splitlines()[2] == '"a\\nb"  "\\n"  "a\\r\\nb"  <br>  "x\\n# y"'


def test_output_into_a_folder_not_made_yet(run_cli, tmp_path: Path) -> None:
    # As `export --to` and `pipeline --out` make theirs; it was exit 2, "No such file".
    out = tmp_path / "new" / "sub" / "r.csv"
    r = run_cli(
        "sql", "SELECT 1 AS n", "--history", HISTORY, "--format", "csv", "--output", str(out)
    )
    assert r.exit_code == 1, r.stderr  # the fixed history's skipped lines
    assert out.read_text() == "n\n1\n"
    (tmp_path / "afile").write_text("")
    bad = tmp_path / "afile" / "r.csv"
    r = run_cli("sql", "SELECT 1 AS n", "--history", HISTORY, "--output", str(bad))
    assert (r.exit_code, r.stdout) == (2, "")
    assert r.stderr.splitlines()[-1] == (
        f"error: {bad}: cannot write the result: {tmp_path / 'afile'} is not a folder"
    )


def test_markdown_cell_keeps_an_entity_as_text(run_cli, tmp_path: Path) -> None:
    # `&` was written as is next to `<` written as `&lt;`: a value "&lt;b&gt;" was read by
    # any markdown viewer as "<b>", a value "a &amp; b" as "a & b". `&` is now `&amp;`.
    none = str(tmp_path / "no-history.jsonl")
    q = "SELECT '&lt;b&gt;' AS x, 'a &amp; b <i>' AS y"
    r = run_cli("sql", q, "--history", none, "--format", "markdown")
    assert (r.exit_code, r.stdout) == (
        0,
        "| x | y |\n|---|---|\n| &amp;lt;b&amp;gt; | a &amp;amp; b &lt;i> |\n",
    )


_VIEWS = "views: history, history_current, archetype_runs, archetype_aggregates, report"


@pytest.mark.parametrize(
    ("query", "message"),
    [
        # DuckDB's suggestion ("Did you mean "history_current"?", or a system catalog the
        # session does not offer, "pg_description") was a second line, before the hint
        (
            "SELECT * FROM nosuch",
            f"query failed: Catalog Error: Table with name nosuch does not exist! ({_VIEWS})",
        ),
        (
            "SELECT count(*) FROM verdicts",
            "query failed: Catalog Error: Table with name verdicts does not exist! "
            f"({_VIEWS}; the event views need --events PATH)",
        ),
        # the default --pipelines is not there: the views were missing without a word why
        (
            "SELECT count(*) FROM pipeline_history_current",
            "query failed: Catalog Error: Table with name pipeline_history_current does not "
            f"exist! ({_VIEWS}; the pipeline views need a pipeline history: none at "
            ".archeflow/memory/pipelines.jsonl (--pipelines FILE))",
        ),
        # a function's suggestion is DuckDB's to make
        (
            "SELECT avgg(runs) FROM report",
            "query failed: Catalog Error: Scalar Function with name avgg does not exist! "
            'Did you mean "avg"?',
        ),
        # the query and a caret under it were two more lines
        ("SELEC 1", 'SQL does not parse: Parser Error: syntax error at or near "SELEC"'),
        (
            "SELECT nope FROM archetype_aggregates",
            'query failed: Binder Error: Referenced column "nope" not found in FROM clause! '
            'Candidate bindings: "model", "avg_composite", "scoring_version", '
            '"avg_cost_efficiency"',
        ),
    ],
)
def test_a_failed_query_is_said_in_one_line(run_cli, query: str, message: str) -> None:
    r = run_cli("sql", query, "--history", HISTORY)
    assert r.exit_code == 2 and r.stdout == ""
    assert r.stderr == f"error: {message} (see 'cli sql --help')\n"


def _project(fixtures: Path, tmp_path: Path) -> Path:
    """A project whose .archeflow/events holds one run log (the ArcheFlow fixture's)."""
    ev = tmp_path / ".archeflow" / "events"
    ev.mkdir(parents=True)
    src = fixtures / "effectiveness" / "archeflow-fixture" / "events.jsonl"
    (ev / "run1.jsonl").write_bytes(src.read_bytes())
    return src


@pytest.mark.parametrize("command", ["sql", "export"])
def test_the_events_of_a_project_leave_its_history_out(
    run_cli, fixtures: Path, tmp_path: Path, command: str
) -> None:
    # `--events .archeflow` found .archeflow/memory/effectiveness.jsonl and read it as a
    # run log: "missing type" for each of its lines, exit 1, on a clean project. It is left
    # out with a note, as `extract .archeflow` leaves it out.
    src = _project(fixtures, tmp_path)
    assert run_cli("extract", ".archeflow").exit_code == 0  # the default history, below it
    hist = ".archeflow/memory/effectiveness.jsonl"
    assert (tmp_path / hist).is_file()
    if command == "sql":
        r = run_cli("sql", "SELECT count(*) AS n FROM events", "--events", ".archeflow",
                    "--format", "json")  # fmt: skip
        assert json.loads(r.stdout) == [{"n": len(src.read_text().splitlines())}]
    else:
        r = run_cli("export", "--to", "out.parquet", "--events", ".archeflow")
        events = pq.read_table(tmp_path / "out.events.parquet")
        assert events.num_rows == len(src.read_text().splitlines())
    assert r.exit_code == 0, r.stderr
    assert "missing type" not in r.stderr
    assert f"{hist}: not read: it is the history this command reads" in r.stderr.splitlines()


@pytest.mark.parametrize("command", ["sql", "extract"])
def test_the_pipeline_history_of_a_project_is_not_read_as_a_run_log(
    run_cli, fixtures: Path, tmp_path: Path, command: str
) -> None:
    # `runscore pipeline` keeps .archeflow/memory/pipelines.jsonl (and its lock) beside the
    # effectiveness history: `sql --events .archeflow` and `extract .archeflow` read its
    # records as events ("missing run_id" on each line) and exited 1 on a clean project.
    src = _project(fixtures, tmp_path)
    assert run_cli("extract", ".archeflow").exit_code == 0
    tasks = fixtures / "pipeline" / "tasks.jsonl"
    p = run_cli("pipeline", str(tasks), "--out", "pout")
    assert "4 new record(s)" in p.stderr  # (exit 1: the example has a bad line on purpose)
    pipelines = ".archeflow/memory/pipelines.jsonl"
    assert (tmp_path / pipelines).is_file() and (tmp_path / (pipelines + ".lock")).is_file()
    if command == "sql":
        r = run_cli("sql", "SELECT count(*) AS n FROM events", "--events", ".archeflow",
                    "--format", "json")  # fmt: skip
        assert json.loads(r.stdout) == [{"n": len(src.read_text().splitlines())}]
    else:
        r = run_cli("extract", ".archeflow", "--format", "json")
        # (a folder is searched for *.jsonl: the locks and the manifest are not found)
        assert json.loads(r.stdout)["excluded"] == [
            {"file": ".archeflow/memory/effectiveness.jsonl",
             "reason": "not read: it is the history this extract writes to"},
            {"file": pipelines, "reason": "not read: it is runscore's pipeline history"},
        ]  # fmt: skip
    assert r.exit_code == 0, r.stderr
    assert "missing run_id" not in r.stderr
    assert f"{pipelines}: not read: it is runscore's pipeline history" in r.stderr.splitlines()


def _sql(run_cli, tmp_path: Path, query: str, fmt: str) -> str:
    r = run_cli("sql", query, "--history", str(tmp_path / "no-history.jsonl"), "--format", fmt)
    assert r.exit_code == 0, r.stderr
    return str(r.stdout)


_DECIMALS = (
    "SELECT 0.10::DECIMAL(10,2) AS d, 1e-5::DECIMAL(18,8) AS e, "
    "12345678901234567890.1234567890::DECIMAL(38,10) AS f, 0::DECIMAL(38,10) AS z, "
    "-1.00::DECIMAL(3,2) AS i, [1.50::DECIMAL(3,2)] AS l, {'p': 0.10::DECIMAL(3,2)} AS s"
)


def test_a_decimal_keeps_its_digits_in_every_format(run_cli, tmp_path: Path) -> None:
    # CSV and markdown kept the scale (0.10) while JSON wrote a float (0.1, 1e-05; past a
    # double's 17 digits not even the value: 1.2345678901234567e+19), an integral one an
    # integer (-1); inside a list or struct every format wrote the float (1.5). A zero of
    # scale 10 was 0E-10. Now the exact digits everywhere, a number in JSON.
    want = {
        "d": "0.10",
        "e": "0.00001000",
        "f": "12345678901234567890.1234567890",
        "z": "0.0000000000",
        "i": "-1.00",
    }
    out = _sql(run_cli, tmp_path, _DECIMALS, "json")
    assert out == (
        "[\n  {\n"
        + "".join(f'    "{k}": {v},\n' for k, v in want.items())
        + '    "l": [\n      1.50\n    ],\n    "s": {\n      "p": 0.10\n    }\n  }\n]\n'
    )
    (row,) = json.loads(out, parse_float=decimal.Decimal)
    assert row["f"] == decimal.Decimal("12345678901234567890.1234567890")
    cells = [*want.values(), "[1.50]", '{"p": 0.10}']
    assert _sql(run_cli, tmp_path, _DECIMALS, "csv") == (
        "d,e,f,z,i,l,s\n" + ",".join(cells[:6]) + ',"{""p"": 0.10}"\n'
    )
    md = _sql(run_cli, tmp_path, _DECIMALS, "markdown")
    assert md.splitlines()[2] == "| " + " | ".join(cells) + " |"
    table = _sql(run_cli, tmp_path, _DECIMALS, "table")
    assert table.splitlines()[2].split() == [*cells[:6], '{"p":', "0.10}"]


_MAPS = (
    "SELECT MAP {'k': 1, 'j': NULL} AS m, MAP {2: 'b', 1: 'a'} AS i, "
    "MAP {'a': MAP {'b': [1]}} AS n, MAP {}::MAP(VARCHAR, INTEGER) AS e, "
    "[MAP {DATE '2026-11-20': true}] AS l, MAP {1.5::DOUBLE: 1, 'nan'::DOUBLE: 2, "
    "'-inf'::DOUBLE: 3} AS f, MAP {[1, 2]: 'x'} AS k "
    "UNION ALL SELECT NULL, NULL, NULL, NULL, NULL, NULL, NULL"
)


def test_a_map_is_one_json_object_in_every_format(run_cli, tmp_path: Path) -> None:
    # A MAP was a list of [key, value] pairs in every format ([["k", 1]]), where the
    # README says maps are a JSON object, as a struct is. Now an object whose members are
    # named by their key's text (a NaN or infinite key as JSON's writers name it), in
    # the map's order; a value null, a map in a map an object, an empty map {}.
    m = '{"k": 1, "j": null}'
    i = '{"2": "b", "1": "a"}'
    n = '{"a": {"b": [1]}}'
    lst = '[{"2026-11-20": true}]'
    f = '{"1.5": 1, "NaN": 2, "-Infinity": 3}'
    k = '{"[1, 2]": "x"}'
    out = _sql(run_cli, tmp_path, _MAPS, "json")
    assert json.loads(out) == [
        {
            "m": {"k": 1, "j": None},
            "i": {"2": "b", "1": "a"},
            "n": {"a": {"b": [1]}},
            "e": {},
            "l": [{"2026-11-20": True}],
            "f": {"1.5": 1, "NaN": 2, "-Infinity": 3},
            "k": {"[1, 2]": "x"},
        },
        dict.fromkeys("minelfk"),
    ]
    assert '"i": {\n      "2": "b",\n      "1": "a"\n    },' in out  # the map's order
    cells = [m, i, n, "{}", lst, f, k]
    csv_cells = ['"' + c.replace('"', '""') + '"' if '"' in c else c for c in cells]
    assert _sql(run_cli, tmp_path, _MAPS, "csv") == (
        "m,i,n,e,l,f,k\n" + ",".join(csv_cells) + "\n,,,,,,\n"
    )
    md = _sql(run_cli, tmp_path, _MAPS, "markdown").splitlines()
    assert md[2:] == ["| " + " | ".join(cells) + " |", "| — | — | — | — | — | — | — |"]
    table = _sql(run_cli, tmp_path, _MAPS, "table").splitlines()
    assert [c for c in cells if c not in table[2]] == []
    assert table[3].split() == ["—"] * 7


_TIMES = (
    "SELECT TIME_NS '10:08:00.123456789' AS t, [TIMESTAMP_NS '2026-11-20 10:08:00.000000001'] "
    "AS l, {'d': DATE '10000-01-01', 'z': TIMESTAMPTZ '2026-11-20 10:08:00Z'} AS s, "
    "MAP {'k': [TIME_NS '00:00:00.5']} AS m"
)


def test_times_python_cannot_hold_are_written_inside_lists_and_structs(
    run_cli, tmp_path: Path
) -> None:
    # A TIME_NS with nanoseconds, and a date or time beyond Python's anywhere but a
    # column of its own (in a list, a struct, a map), ended every format in a traceback
    # (ValueError: Nanosecond resolution temporal type ... is not safely convertible).
    # Written as their column's other values are, in the ISO form.
    want = {
        "t": "10:08:00.123456789",
        "l": ["2026-11-20T10:08:00.000000001"],
        "s": {"d": "10000-01-01", "z": "2026-11-20T10:08:00+00:00"},
        "m": {"k": ["00:00:00.500000"]},
    }
    assert json.loads(_sql(run_cli, tmp_path, _TIMES, "json")) == [want]
    assert _sql(run_cli, tmp_path, _TIMES, "csv").splitlines()[1] == (
        '10:08:00.123456789,"[""2026-11-20T10:08:00.000000001""]",'
        '"{""d"": ""10000-01-01"", ""z"": ""2026-11-20T10:08:00+00:00""}",'
        '"{""k"": [""00:00:00.500000""]}"'
    )
    for fmt in ("markdown", "table"):
        assert "10:08:00.123456789" in _sql(run_cli, tmp_path, _TIMES, fmt)


def test_a_float_reads_as_duckdb_writes_it(run_cli, tmp_path: Path) -> None:
    # A FLOAT (float32) was written as the double it widens to: 0.1 as 0.10000000149011612
    # in JSON and CSV, where DuckDB shows 0.1. Now the shortest digits that read back as
    # that float32; markdown and table round it as any float.
    q = "SELECT 0.1::FLOAT AS f, [3.4028235e38::FLOAT, 1e-45::FLOAT, 'nan'::FLOAT] AS l"
    assert json.loads(_sql(run_cli, tmp_path, q, "json")) == [
        {"f": 0.1, "l": [3.4028235e38, 1e-45, None]}
    ]
    assert _sql(run_cli, tmp_path, q, "csv") == 'f,l\n0.1,"[3.4028235e+38, 1e-45, null]"\n'
    assert _sql(run_cli, tmp_path, q, "markdown").splitlines()[2].startswith("| 0.1000 |")


_NOT_ARROW = (
    "SELECT 340282366920938463463374607431768211455::UHUGEINT AS u, "
    "170141183460469231731687303715884105728::UHUGEINT AS u2, "
    "'01:02:03+05:30'::TIMETZ AS tz, '0101'::BIT AS b, "
    "'-123456789012345678901234567890123456789012345'::BIGNUM AS n, "
    "[{'x': '23:59:59-08'::TIMETZ}] AS l, MAP {1::UHUGEINT: '1'::BIT} AS m, 1 AS u"
)


def test_types_arrow_does_not_carry_are_written_as_duckdb_writes_them(
    run_cli, tmp_path: Path
) -> None:
    # DuckDB hands these to Arrow in a form that is not their value: a UHUGEINT from
    # 2**127 on became a negative number (-1 for the largest), a TIMETZ lost its offset,
    # a BIT and a BIGNUM were written as the hex of their storage bytes ("04f5" for
    # 0101). Now DuckDB's text of them, in every format and in Parquet.
    row = {
        "u": "340282366920938463463374607431768211455",
        "u2": "170141183460469231731687303715884105728",
        "tz": "01:02:03+05:30",
        "b": "0101",
        "n": "-123456789012345678901234567890123456789012345",
        "l": [{"x": "23:59:59-08"}],
        "m": {"1": "1"},
        "u_1": 1,
    }
    assert json.loads(_sql(run_cli, tmp_path, _NOT_ARROW, "json")) == [row]
    assert _sql(run_cli, tmp_path, _NOT_ARROW, "csv").splitlines()[1] == (
        ",".join(v for v in list(row.values())[:5])
        + ',"[{""x"": ""23:59:59-08""}]","{""1"": ""1""}",1'
    )
    out = tmp_path / "r.parquet"
    r = run_cli(
        "sql",
        _NOT_ARROW,
        "--history",
        str(tmp_path / "no-history.jsonl"),
        "--format",
        "parquet",
        "--output",
        str(out),
    )
    assert r.exit_code == 0, r.stderr
    got = pq.read_table(out).to_pylist()
    assert got == [{**row, "m": [("1", "1")]}]


_VARIANT = (
    "SELECT 1::VARIANT AS i, 'x'::VARIANT AS s, [1, 2]::VARIANT AS l, "
    "[NULL::VARIANT, 1.50::DECIMAL(3,2)::VARIANT] AS n, NULL::VARIANT AS z"
)


def test_a_variant_is_written_as_its_value_not_its_encoding(run_cli, tmp_path: Path) -> None:
    # A VARIANT (duckdb_settings().typed_value, any ::VARIANT) goes to Arrow as its
    # binary encoding: every format wrote {"metadata": "010000", "value": "1401000000"}
    # for 1, and Parquet a struct of two blobs that DuckDB reads back as such. Now
    # DuckDB's text of its value, as the other types Arrow does not carry.
    row = {"i": "1", "s": "x", "l": "[1, 2]", "n": [None, "1.50"], "z": None}
    assert json.loads(_sql(run_cli, tmp_path, _VARIANT, "json")) == [row]
    assert (
        _sql(run_cli, tmp_path, _VARIANT, "csv") == 'i,s,l,n,z\n1,x,"[1, 2]","[null, ""1.50""]",\n'
    )
    out = tmp_path / "r.parquet"
    r = run_cli("sql", _VARIANT, "--history", str(tmp_path / "none.jsonl"), "--output", str(out))
    assert r.exit_code == 0, r.stderr
    assert pq.read_table(out).to_pylist() == [row]


#: Each type the tests above are about (DECIMAL, MAP, FLOAT, TIME_NS, TIMETZ, BIT,
#: UHUGEINT), nested too, and their nulls, in one query.
_GOLDEN_TYPES = (
    "SELECT 0.10::DECIMAL(10,2) AS dec, 12345678901234567890.1234567890::DECIMAL(38,10) "
    "AS dec_wide, 0::DECIMAL(38,10) AS dec_zero, 9007199254740993::HUGEINT AS huge, "
    "0.1::FLOAT AS real, MAP {'k': 1.50, 'j': NULL} AS map, "
    "MAP {2: MAP {'x': [1.5::DECIMAL(3,1)]}} AS map_nested, "
    "[{'p': 0.10::DECIMAL(4,2), 't': TIMESTAMP_NS '2026-11-20 10:08:00.000000001'}] AS nested, "
    "TIME_NS '10:08:00.123456789' AS time_ns, '01:02:03+05:30'::TIMETZ AS timetz, "
    "'0101'::BIT AS bit, 340282366920938463463374607431768211455::UHUGEINT AS uhuge "
    "UNION ALL SELECT -0.5, NULL, NULL, NULL, 'nan'::FLOAT, MAP {'': NULL}, NULL, [], NULL, NULL, "
    "NULL, 0::UHUGEINT"
)


@pytest.mark.parametrize("fmt", ["json", "csv", "markdown", "table"])
def test_sql_types_golden(run_cli, golden, tmp_path: Path, fmt: str) -> None:
    out = _sql(run_cli, tmp_path, _GOLDEN_TYPES, fmt)
    golden(f"sql-types.{ {'markdown': 'md', 'table': 'txt'}.get(fmt, fmt) }", out)


_NO_HISTORY = "no history at none.jsonl: its views are empty\n"
#: In process, click names the program after the group: cli.
_CONTRADICTS = (
    "error: --format {fmt} contradicts --output {out}: a {suffix} file is written as {named} "
    "(leave --format out, or name the file otherwise) (see 'cli sql --help')\n"
)


@pytest.mark.parametrize(
    ("output", "fmt", "written"),
    [
        # suffix only: the format it names (was the text table, in a file named .parquet)
        ("r.parquet", None, "parquet"),
        ("R.PARQUET", None, "parquet"),
        ("r.json", None, '[\n  {\n    "a": 1\n  }\n]\n'),
        ("r.csv", None, "a\n1\n"),
        ("r.md", None, "| a |\n|---|\n| 1 |\n"),
        ("r.markdown", None, "| a |\n|---|\n| 1 |\n"),
        # suffix and a --format that agrees
        ("r.parquet", "parquet", "parquet"),
        ("r.csv", "csv", "a\n1\n"),
        # a suffix that names no format: --format, else table, as before
        ("r.txt", None, "a\n-\n1\n"),
        ("r", None, "a\n-\n1\n"),
        ("r.txt", "csv", "a\n1\n"),
        ("r.pq", "parquet", "parquet"),
    ],
)
def test_output_is_written_in_the_format_its_suffix_names(
    run_cli, tmp_path: Path, output: str, fmt: str | None, written: str
) -> None:
    args = ["--format", fmt] if fmt else []
    r = run_cli("sql", "SELECT 1 AS a", "--history", "none.jsonl", "--output", output, *args)
    assert (r.exit_code, r.stdout, r.stderr) == (0, "", _NO_HISTORY)
    assert [p.name for p in tmp_path.iterdir()] == [output]
    if written == "parquet":
        assert pq.read_table(tmp_path / output).to_pylist() == [{"a": 1}]
    else:
        assert (tmp_path / output).read_text() == written


@pytest.mark.parametrize(
    ("output", "fmt", "named"),
    [
        ("r.parquet", "table", "parquet"),
        ("r.parquet", "csv", "parquet"),
        ("r.json", "csv", "json"),
        ("r.csv", "parquet", "csv"),
        ("r.MD", "json", "markdown"),
    ],
)
def test_a_format_that_contradicts_the_outputs_suffix_is_refused(
    run_cli, tmp_path: Path, output: str, fmt: str, named: str
) -> None:
    # Said before the history is read, nothing written: `--format table --output r.parquet`
    # wrote text into a file that says it is Parquet.
    (tmp_path / "torn.jsonl").write_text('{"torn": \n')
    r = run_cli("sql", "SELECT 1", "--history", "torn.jsonl", "--output", output, "--format", fmt)
    suffix = output[output.index(".") :]
    want = _CONTRADICTS.format(fmt=fmt, out=output, suffix=suffix, named=named)
    assert (r.exit_code, r.stdout, r.stderr) == (2, "", want)
    assert [p.name for p in tmp_path.iterdir()] == ["torn.jsonl"]


def test_output_dash_takes_the_format_given_or_table(run_cli, tmp_path: Path) -> None:
    # `-` is standard output: no suffix, so --format or the default table, as without it.
    r = run_cli("sql", "SELECT 1 AS a", "--history", "none.jsonl", "--output", "-")
    assert (r.exit_code, r.stdout, r.stderr) == (0, "a\n-\n1\n", _NO_HISTORY)
    r = run_cli(
        "sql", "SELECT 1 AS a", "--history", "none.jsonl", "--output", "-", "--format", "csv"
    )
    assert (r.exit_code, r.stdout, r.stderr) == (0, "a\n1\n", _NO_HISTORY)
    assert list(tmp_path.iterdir()) == []


@pytest.mark.parametrize("output", ["r.duckdb", "r.db", "R.DuckDB"])
def test_a_database_output_without_format_is_refused_naming_export(
    run_cli, tmp_path: Path, output: str
) -> None:
    # `--output r.duckdb` wrote the text table into it (exit 0), a file no DuckDB opens.
    # Said before the history is read, nothing written (a database already there kept).
    (tmp_path / "torn.jsonl").write_text('{"torn": \n')
    (tmp_path / output).write_bytes(b"kept")
    r = run_cli("sql", "SELECT 1", "--history", "torn.jsonl", "--output", output)
    suffix = output[output.index(".") :]
    want = (
        f"error: --output {output}: a {suffix} file is a DuckDB database, which sql does not "
        "write: `runscore export --to FILE.duckdb` writes the history (and --events' tables) "
        "as one; give --format to write this result in that format (see 'cli sql --help')\n"
    )
    assert (r.exit_code, r.stdout, r.stderr) == (2, "", want)
    assert sorted(p.name for p in tmp_path.iterdir()) == sorted(["torn.jsonl", output])
    assert (tmp_path / output).read_bytes() == b"kept"


def test_a_database_output_with_format_is_written_as_given(run_cli, tmp_path: Path) -> None:
    # --format said it: the name is the user's choice, as any other suffix is.
    r = run_cli(
        "sql", "SELECT 1 AS a", "--history", "none.jsonl", "--output", "r.db", "--format", "csv"
    )
    assert (r.exit_code, r.stdout, r.stderr) == (0, "", _NO_HISTORY)
    assert (tmp_path / "r.db").read_text() == "a\n1\n"


#: Everything a session's catalog can list that a user could query or call.
_SESSION_CATALOG = (
    "SELECT 'table' AS kind, table_name AS name FROM duckdb_tables() "
    "UNION ALL SELECT 'view', view_name FROM duckdb_views() WHERE NOT internal "
    "UNION ALL SELECT 'macro', function_name FROM duckdb_functions() WHERE NOT internal "
    "UNION ALL SELECT 'sequence', sequence_name FROM duckdb_sequences() "
    "UNION ALL SELECT 'type', type_name FROM duckdb_types() WHERE NOT internal "
    "ORDER BY ALL"
)


@pytest.mark.parametrize("version", ["effectiveness/v1", "archeflow-legacy"])
def test_a_session_holds_the_documented_views_and_nothing_else(
    run_cli, fixtures: Path, version: str
) -> None:
    # The connection that scores holds runscore's own tables (archeflow-legacy 145's
    # unknown_costs, the history reader's _hf_typed, the run_ts_warnings of the event
    # views) and macros (rs_iso_text): a query must see the views `sql --help` lists and
    # README names, with every input given, and nothing of those.
    from runscore.engine.packs import effectiveness_history as eh
    from runscore.engine.packs import pipeline

    tasks = fixtures / "pipeline"
    made = run_cli("pipeline", str(tasks / "tasks.jsonl"), "--plans", str(tasks / "plans.jsonl"),
                   "--date", "2026-03-07", "--out", "out", "--history", "p.jsonl")  # fmt: skip
    assert made.exit_code == 1, made.stderr  # tasks.jsonl:22 is rejected
    events = str(fixtures / "effectiveness" / "archeflow-fixture" / "events.jsonl")
    r = run_cli("sql", _SESSION_CATALOG, "--history", HISTORY, "--events", events,
                "--pipelines", "p.jsonl", "--sql-version", version, "--format", "json")  # fmt: skip
    assert r.exit_code == 1, r.stderr  # the fixed history's skipped lines
    documented = [*eh.HISTORY_VIEWS, *eh.EVENT_VIEWS, *pipeline.HISTORY_VIEWS]
    assert json.loads(r.stdout) == [{"kind": "view", "name": n} for n in sorted(documented)]
    readme = (HERE.parents[1] / "README.md").read_text(encoding="utf-8")
    help_text = run_cli("sql", "--help").stdout
    assert [n for n in documented if f"`{n}`" not in readme] == []
    assert [n for n in documented if f"\n    {n}: " not in help_text] == []
