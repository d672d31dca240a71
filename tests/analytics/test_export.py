"""`runscore export`: Parquet and DuckDB files that other tools open directly."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import duckdb
import polars as pl
import pytest

HERE = Path(__file__).resolve().parent
HISTORY = str(HERE / "data" / "history.jsonl")


#: The event tables `export --events` writes, in its order.
EVENT_TABLES = [
    "events",
    "verdicts",
    "findings",
    "fixes",
    "fix_attribution",
    "run_scores",
    "run_status",
]


def _rows(con: duckdb.DuckDBPyConnection, sql: str, **params: object) -> list[tuple]:
    return con.execute(sql, params).fetchall()


def test_parquet_duckdb_round_trip(run_cli, tmp_path: Path) -> None:
    pq_path, db_path = tmp_path / "h.parquet", tmp_path / "h.duckdb"
    r = run_cli("export", "--to", str(pq_path), "--history", HISTORY)
    assert r.exit_code == 1  # the fixed history has skipped lines; the rest is exported
    assert r.stdout == f"{pq_path}\n"
    # the skipped lines as they were read, then what was written
    assert r.stderr.splitlines()[-1] == "exported history: 42 rows"
    assert len(r.stderr.splitlines()) > 1
    assert run_cli("export", "--to", str(db_path), "--history", HISTORY).exit_code == 1

    con = duckdb.connect()
    con.execute("SET TimeZone = 'UTC'")
    con.execute("ATTACH $p AS exp (READ_ONLY)", {"p": str(db_path)})
    from_parquet = _rows(
        con, "SELECT * FROM read_parquet($p) ORDER BY history_line", p=str(pq_path)
    )
    from_duckdb = _rows(con, "SELECT * FROM exp.history ORDER BY history_line")
    assert len(from_parquet) == 42 and from_parquet == from_duckdb
    # Parquet → DuckDB → the same rows again
    con.execute("CREATE TABLE again AS SELECT * FROM read_parquet($p)", {"p": str(pq_path)})
    assert _rows(con, "SELECT * FROM again ORDER BY history_line") == from_duckdb
    types = dict(
        _rows(
            con,
            "SELECT column_name, data_type FROM information_schema.columns "
            "WHERE table_catalog = 'exp' AND table_name = 'history'",
        )
    )
    assert (types["ts"], types["run_ts"], types["composite_score"], types["tokens"]) == (
        "TIMESTAMP WITH TIME ZONE",
        "TIMESTAMP WITH TIME ZONE",
        "DOUBLE",
        "BIGINT",
    )
    assert _rows(con, "SELECT count(*) FROM exp.history_current") == [(40,)]  # 2 re-scored lines

    # The same lines as `runscore sql` sees, and what Polars reads.
    sql = json.loads(
        run_cli(
            "sql",
            "SELECT run_id, archetype, composite_score FROM history",
            "--history",
            HISTORY,
            "--format",
            "json",
        ).stdout
    )
    df = pl.read_parquet(pq_path)
    assert df.select("run_id", "archetype", "composite_score").to_dicts() == sql
    assert df.schema["ts"] == pl.Datetime("us", "UTC")
    assert df.filter(pl.col("archetype") == "prüfer-🦉").height == 2


def test_export_with_events(run_cli, tmp_path: Path, fixtures: Path) -> None:
    events = str(fixtures / "effectiveness" / "archeflow-fixture" / "events.jsonl")
    target = tmp_path / "out" / "all.parquet"
    r = run_cli("export", "--to", str(target), "--history", HISTORY, "--events", events)
    names = EVENT_TABLES
    assert r.stdout.splitlines() == [str(target)] + [
        str(tmp_path / "out" / f"all.{n}.parquet") for n in names
    ]
    scores = pl.read_parquet(tmp_path / "out" / "all.run_scores.parquet").sort("archetype")
    assert scores["composite_score"].to_list() == [0.5625, 0.1875]
    db_path = tmp_path / "all.duckdb"
    run_cli("export", "--to", str(db_path), "--history", HISTORY, "--events", events)
    con = duckdb.connect(str(db_path), read_only=True)
    tables = sorted(x[0] for x in con.execute("SHOW TABLES").fetchall())
    assert tables == sorted(["history", "history_current", *names])
    assert con.execute("SELECT count(*) FROM events").fetchall() == [(8,)]


@pytest.mark.parametrize("to", ["e.duckdb", "x.parquet"])
def test_export_never_overwrites_an_events_input(
    run_cli, tmp_path: Path, fixtures: Path, to: str
) -> None:
    # --to one of the --events files (or FILE.parquet whose FILE.events.parquet is one)
    # replaced that run log with the export, exit 0.
    log = fixtures / "effectiveness" / "archeflow-fixture" / "events.jsonl"
    given = "x.events.parquet" if to == "x.parquet" else to
    (tmp_path / given).write_bytes(log.read_bytes())
    r = run_cli("export", "--to", to, "--history", "none.jsonl", "--events", given)
    assert (r.exit_code, r.stdout, r.stderr) == (
        2,
        "",
        f"error: {given}: that is the run log {given} the export reads (--events); "
        "choose another --to (see 'cli export --help')\n",
    )
    assert (tmp_path / given).read_bytes() == log.read_bytes()
    assert sorted(p.name for p in tmp_path.iterdir()) == [given]


def test_a_parquet_export_without_events_removes_an_earlier_exports_event_files(
    run_cli, tmp_path: Path, fixtures: Path
) -> None:
    # FILE.<table>.parquet beside FILE.parquet reads as part of the export: left from an
    # earlier `export --events`, it described other events than the history beside it.
    events = str(fixtures / "effectiveness" / "archeflow-fixture" / "events.jsonl")
    target = tmp_path / "all.parquet"
    run_cli("export", "--to", str(target), "--history", HISTORY, "--events", events)
    assert (tmp_path / "all.run_scores.parquet").is_file()
    (tmp_path / "all.notes.parquet").write_text("not ours")  # not a name export writes
    r = run_cli("export", "--to", str(target), "--history", HISTORY)
    assert r.exit_code == 1  # the fixed history's skipped lines
    assert r.stdout == f"{target}\n"
    removed = [ln for ln in r.stderr.splitlines() if "removed" in ln]
    assert removed == [
        f"{tmp_path / f'all.{n}.parquet'}: removed: an earlier export's event table "
        "(this export has no --events)"
        for n in EVENT_TABLES
    ]
    assert sorted(p.name for p in tmp_path.iterdir()) == ["all.notes.parquet", "all.parquet"]
    assert pl.read_parquet(target).height == 42


def test_export_events_without_history(run_cli, tmp_path: Path, fixtures: Path) -> None:
    events = str(fixtures / "effectiveness" / "archeflow-fixture" / "events.jsonl")
    db_path = tmp_path / "e.duckdb"
    r = run_cli(
        "export",
        "--to",
        str(db_path),
        "--history",
        str(tmp_path / "none.jsonl"),
        "--events",
        events,
    )
    assert r.exit_code == 0
    con = duckdb.connect(str(db_path), read_only=True)
    assert con.execute("SELECT count(*) FROM history").fetchall() == [(0,)]
    # Exit 0 with an empty history table: said on stderr, as `sql` says its empty views,
    # so a mistyped --history is not taken for a history of no records. Said first, as it
    # was found (it came after the `exported` line that says what was written last).
    none = tmp_path / "none.jsonl"
    assert r.stderr.splitlines() == [
        f"no effectiveness history at {none}; run `runscore extract` first",
        "exported history: 0 rows, history_current: 0 rows, events: 8 rows, verdicts: 2 rows, "
        "findings: 2 rows, fixes: 1 row, fix_attribution: 1 row, run_scores: 2 rows, "
        "run_status: 1 row",
    ]
    r = run_cli(
        "export", "--to", str(tmp_path / "e.parquet"), "--history", str(none), "--events", events
    )
    assert r.exit_code == 0
    assert r.stderr.splitlines()[:1] == [
        f"no effectiveness history at {none}; run `runscore extract` first"
    ]
    assert r.stderr.splitlines()[1].startswith("exported history: 0 rows, ")
    assert pl.read_parquet(tmp_path / "e.parquet").height == 0


def test_export_errors(run_cli, tmp_path: Path) -> None:
    r = run_cli("export", "--to", str(tmp_path / "h.csv"), "--history", HISTORY)
    assert r.exit_code == 2 and "FILE.parquet or FILE.duckdb" in r.stderr
    elsewhere = tmp_path / "elsewhere.parquet"
    link = tmp_path / "link.parquet"
    os.symlink(elsewhere, link)
    r = run_cli("export", "--to", str(link), "--history", HISTORY)
    assert r.exit_code == 2 and "symlink" in r.stderr
    assert not elsewhere.exists()


def test_export_replaces_atomically(run_cli, tmp_path: Path) -> None:
    target = tmp_path / "h.duckdb"
    target.write_text("not a database")
    run_cli("export", "--to", str(target), "--history", HISTORY)
    con = duckdb.connect(str(target), read_only=True)
    assert con.execute("SELECT count(*) FROM history").fetchall() == [(42,)]
    assert sorted(p.name for p in tmp_path.iterdir()) == ["h.duckdb"]


def test_export_to_a_place_it_cannot_write_is_a_usage_error(run_cli, tmp_path: Path) -> None:
    # exit 2 with the path the user gave (not the temporary name beside it), never a
    # traceback; nothing is left behind
    afile = tmp_path / "afile"
    afile.write_text("")
    for target in (afile / "h.parquet", afile / "h.duckdb"):
        r = run_cli("export", "--to", str(target), "--history", HISTORY)
        assert (r.exit_code, r.stdout) == (2, "")
        assert r.stderr == f"error: {target}: cannot write the export: {afile} is not a folder\n"
    # /proc takes no new files, not even from root (this suite runs on Linux)
    proc = Path("/proc/runscore-export-test.parquet")
    r = run_cli("export", "--to", str(proc), "--history", HISTORY)
    assert (r.exit_code, r.stdout) == (2, "")
    assert r.stderr == f"error: {proc}: cannot write the export: No such file or directory\n"
    assert sorted(p.name for p in tmp_path.iterdir()) == ["afile"]


@pytest.mark.parametrize("name", ["h.parquet", "h.duckdb"])
def test_a_write_that_fails_midway_names_the_export_not_its_temporary_file(
    tmp_path: Path, name: str
) -> None:
    # A file size limit (RLIMIT_FSIZE) fails a write past it with EFBIG, "File too large",
    # as a full disk fails one with ENOSPC: the export is written, then stopped midway. The
    # DuckDB file's error named the temporary file beside the export, a name the user
    # never gave; it says what failed, of the export's own path. Nothing is left behind.
    target = tmp_path / "out" / name
    code = (
        "import resource, signal, sys\n"
        "signal.signal(signal.SIGXFSZ, signal.SIG_IGN)\n"
        "resource.setrlimit(resource.RLIMIT_FSIZE, (4096, 4096))\n"
        "from runscore.cli.main import main\n"
        f"sys.argv = ['runscore', 'export', '--to', {str(target)!r}, '--history', {HISTORY!r}]\n"
        "main()\n"
    )
    r = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=False)
    assert r.returncode == 2, r.stderr
    assert r.stderr.splitlines()[-1] == f"error: {target}: cannot write the export: File too large"
    assert list((tmp_path / "out").iterdir()) == []


def test_a_failure_without_the_os_words_names_the_export_not_its_temporary_file() -> None:
    from runscore.engine.packs.effectiveness_history import _write_failure

    e = duckdb.IOException('IO Error: Could not write file "/d/.h.duckdb.tmp-77": odd')
    assert _write_failure(e) == 'IO Error: Could not write file "/d/h.duckdb": odd'
    full = duckdb.IOException(f'IO Error: Could not write file "/d/.x.tmp-7": {os.strerror(28)}')
    assert _write_failure(full) == "No space left on device"


def test_an_export_gets_the_mode_any_new_file_gets(run_cli, tmp_path: Path) -> None:
    # The temporary file it is written as must not leave its private 0600 behind.
    umask = os.umask(0o022)
    try:
        for name in ("h.parquet", "h.duckdb"):
            r = run_cli("export", "--to", str(tmp_path / name), "--history", HISTORY)
            assert r.exit_code == 1, r.stderr  # the fixed history's skipped lines
            assert (tmp_path / name).stat().st_mode & 0o777 == 0o644, name
    finally:
        os.umask(umask)


def test_export_streams_in_batches_and_keeps_every_row_in_line_order(
    tmp_path: Path, fixtures: Path, monkeypatch
) -> None:
    # Each view goes out batch by batch (one Parquet row group each), never as a whole
    # Arrow copy; with batches of 10 rows, 42 history lines take 5 row groups, and every
    # row arrives once, in line order, as the read-only views show them.
    import pyarrow.parquet as pq
    from runscore.engine.packs import effectiveness_history as eh

    monkeypatch.setattr(eh, "_EXPORT_BATCH_ROWS", 10)
    events = [str(fixtures / "effectiveness" / "archeflow-fixture" / "events.jsonl")]
    pq_res = eh.export(tmp_path / "h.parquet", HISTORY, events)
    db_res = eh.export(tmp_path / "h.duckdb", HISTORY, events)
    assert pq_res.rows["history"] == db_res.rows["history"] == 42
    assert db_res.rows["history_current"] == 40
    assert pq.ParquetFile(tmp_path / "h.parquet").metadata.num_row_groups == 5

    con = duckdb.connect()
    con.execute("SET TimeZone = 'UTC'")
    con.execute("ATTACH $p AS exp (READ_ONLY)", {"p": str(tmp_path / "h.duckdb")})
    want = eh.run_sql("SELECT * FROM history ORDER BY history_line", HISTORY).table
    assert con.read_parquet(str(tmp_path / "h.parquet")).to_arrow_table().equals(want)
    assert con.sql("SELECT * FROM exp.history").to_arrow_table().equals(want)
    for name in eh.EVENT_VIEWS:
        n = pq_res.rows[name]
        assert n == db_res.rows[name] > 0, name
        path = str(tmp_path / f"h.{name}.parquet")
        assert _rows(con, "SELECT count(*) FROM read_parquet($p)", p=path) == [(n,)]
        assert _rows(con, f'SELECT count(*) FROM exp."{name}"') == [(n,)]
