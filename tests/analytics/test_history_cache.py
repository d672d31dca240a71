"""The history cache (effectiveness_cache): a read from it is a read of the file.

Every test compares what ``load_history`` builds with the cache (cold: it writes one;
warm: it reads one; tail: it reads one and types the lines appended since) against a
read with the cache off, table for table, and checks which reader answered. Then the
cases where the cache must not be believed: changed bytes, a shorter file, a foreign or
broken cache file, another runscore/DuckDB/SQL.
"""

from __future__ import annotations

import json
import os
import stat
from pathlib import Path
from typing import Any

import duckdb
import pytest
from click.testing import CliRunner
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from runscore.cli.main import cli
from runscore.engine import filedigest, sources
from runscore.engine.errors import UsageError
from runscore.engine.packs import effectiveness_cache as ec
from runscore.engine.packs import effectiveness_history as eh

from .test_history_fast_path import _base, _line, _record, snapshot

TABLES = ("history", "history_current")


def _read(path: Path, monkeypatch: pytest.MonkeyPatch, **env: str) -> dict[str, Any]:
    with monkeypatch.context() as m:
        for k, v in env.items():
            m.setenv(k, v)
        con = eh.connect()
        out = snapshot(con, eh.load_history(con, path))
        con.close()
    return out


def _cached(path: Path, monkeypatch: pytest.MonkeyPatch, min_lines: int = 0) -> dict[str, Any]:
    return _read(path, monkeypatch, RUNSCORE_HISTORY_CACHE_MIN_LINES=str(min_lines))


def _uncached(path: Path, monkeypatch: pytest.MonkeyPatch) -> dict[str, Any]:
    return _read(path, monkeypatch, RUNSCORE_HISTORY_CACHE="off")


def _assert_same(a: dict[str, Any], b: dict[str, Any]) -> None:
    for k in ("versions", "issues", *TABLES):
        assert a[k] == b[k], k


def _debug_log(monkeypatch: pytest.MonkeyPatch) -> list[str]:
    """The cache module's debug messages, from now on."""
    seen: list[str] = []
    monkeypatch.setattr(ec.log, "debug", lambda msg, *a: seen.append(msg % a))
    return seen


def _write(path: Path, records: list[dict[str, Any]], extra: str = "") -> None:
    path.write_text("".join(json.dumps(r) + "\n" for r in records) + extra, encoding="utf-8")


def _append(path: Path, text: str) -> None:
    with open(path, "a", encoding="utf-8") as f:
        f.write(text)


def _cache(path: Path) -> Path:
    return Path(ec.cache_path(str(path)))


BAD = (
    "not json\n"
    + json.dumps({"run_id": "x"})  # missing fields
    + "\n"
    + json.dumps(_base(77, tokens="12"))  # wrong kind: the careful path
    + "\n"
)


def test_cold_warm_and_appended_reads_equal_a_read_without_cache(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    p = tmp_path / "h.jsonl"
    _write(p, [_base(i) for i in range(30)])
    _append(p, BAD)
    _append(p, "".join(json.dumps(_base(i)) + "\n" for i in range(30, 40)))

    cold = _cached(p, monkeypatch)
    assert cold["reader"] == "careful" and _cache(p).is_file()
    warm = _cached(p, monkeypatch)
    assert warm["reader"] == "cache"
    _assert_same(cold, _uncached(p, monkeypatch))
    _assert_same(warm, cold)
    assert [i["line"] for i in warm["issues"]] == [31, 32, 33]

    # New lines: one supersedes a covered line (a later ts), one loses to it (an earlier
    # ts), one ties it exactly (the later line wins), a new key, and a bad line.
    _append(
        p,
        json.dumps(_base(1, ts="2027-01-01T00:00:00Z", composite_score=0.9))
        + "\n"
        + json.dumps(_base(2, ts="2020-01-01T00:00:00Z", composite_score=0.8))
        + "\n"
        + json.dumps(_base(3))
        + "\n"
        + json.dumps(_base(500, run_id="run-new"))
        + "\n{oops\n",
    )
    appended = _cached(p, monkeypatch, min_lines=1000)  # too few new lines to rewrite
    assert appended["reader"] == "cache+careful"
    _assert_same(appended, _uncached(p, monkeypatch))
    assert appended["issues"][-1]["line"] == 48
    assert _cached(p, monkeypatch, min_lines=1000)["reader"] == "cache+careful"

    rewritten = _cached(p, monkeypatch, min_lines=1)  # enough: the cache now covers them
    assert rewritten["reader"] == "cache+careful"
    again = _cached(p, monkeypatch, min_lines=1)
    assert again["reader"] == "cache"
    _assert_same(again, _uncached(p, monkeypatch))


def test_a_clean_tail_is_typed_by_the_fast_reader(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    p = tmp_path / "h.jsonl"
    _write(p, [_base(i) for i in range(20)])
    assert _cached(p, monkeypatch)["reader"] == "fast"
    _append(p, "".join(json.dumps(_base(i, ts="2027-02-01T00:00:00Z")) + "\n" for i in range(5)))
    got = _cached(p, monkeypatch, min_lines=100)
    assert got["reader"] == "cache+fast"
    _assert_same(got, _uncached(p, monkeypatch))


def test_a_torn_last_line_is_never_cached(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    p = tmp_path / "h.jsonl"
    _write(p, [_base(i) for i in range(10)], extra='{"ts": "2026')
    _cached(p, monkeypatch)
    assert not _cache(p).exists()  # the file does not end with a newline
    _write(p, [_base(i) for i in range(10)])
    _cached(p, monkeypatch)
    _append(p, '{"ts": "2026')  # torn after the cache was written: read as new, each time
    for _ in range(2):
        got = _cached(p, monkeypatch, min_lines=1)
        assert got["reader"] == "cache+careful"
        _assert_same(got, _uncached(p, monkeypatch))
        assert got["issues"][-1]["line"] == 11
        # named torn by the tail's reader too (its own last line, before the offset)
        assert str(got["issues"][-1]["reason"]).startswith(sources.TORN_LAST_LINE + ": not JSON")


@pytest.mark.parametrize("change", ["same_size_edit", "edit_keep_mtime", "truncate", "replace"])
def test_a_changed_history_is_read_again(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, change: str
) -> None:
    p = tmp_path / "h.jsonl"
    _write(p, [_base(i) for i in range(20)])
    _cached(p, monkeypatch)
    assert _cached(p, monkeypatch)["reader"] == "cache"
    text = p.read_text(encoding="utf-8")
    st0 = os.stat(p)
    if change in ("same_size_edit", "edit_keep_mtime"):
        p.write_text(text.replace('"composite_score": 0.3', '"composite_score": 0.7'))
        assert os.stat(p).st_size == st0.st_size
        if change == "edit_keep_mtime":
            os.utime(p, ns=(st0.st_atime_ns, st0.st_mtime_ns))  # ctime still moves
    elif change == "truncate":
        p.write_text("".join(text.splitlines(keepends=True)[:5]), encoding="utf-8")
    else:
        q = tmp_path / "new.jsonl"
        _write(q, [_base(i, composite_score=0.25) for i in range(30)])
        os.replace(q, p)
    got = _cached(p, monkeypatch)
    assert not got["reader"].startswith("cache")
    _assert_same(got, _uncached(p, monkeypatch))


@pytest.mark.parametrize("piece", [None, 64, 1000])
def test_a_covered_byte_changed_is_caught_by_the_hash(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, piece: int | None
) -> None:
    # A grown file is never trusted by its identity, even an old one (the racy margin
    # is off here): the covered bytes are hashed, and an edit among them is caught.
    # Small pieces: the covered bytes are hashed on several threads, edit in a middle one.
    if piece is not None:
        monkeypatch.setattr(filedigest.PiecewiseSha256, "PIECE", piece)
    monkeypatch.setattr(ec, "_RACY_NS", 0)
    p = tmp_path / "h.jsonl"
    _write(p, [_base(i) for i in range(20)])
    _cached(p, monkeypatch)
    _append(p, BAD)
    grown = _cached(p, monkeypatch, min_lines=1000)  # hashed, and the same: used
    assert grown["reader"] == "cache+careful"
    _assert_same(grown, _uncached(p, monkeypatch))
    text = p.read_text(encoding="utf-8")
    p.write_text(text.replace('"composite_score": 0.3', '"composite_score": 0.6'))
    got = _cached(p, monkeypatch, min_lines=1000)
    assert not got["reader"].startswith("cache")
    _assert_same(got, _uncached(p, monkeypatch))


def test_an_untouched_old_file_is_trusted_without_hashing(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    p = tmp_path / "h.jsonl"
    _write(p, [_base(i) for i in range(20)])
    monkeypatch.setattr(ec, "_RACY_NS", 0)  # as if the file were older than the read
    _cached(p, monkeypatch)

    def no_hash(*a: Any) -> None:
        raise AssertionError("hashed an untouched file")

    with monkeypatch.context() as m:
        m.setattr(ec, "_hash_prefix", no_hash)
        assert _cached(p, monkeypatch)["reader"] == "cache"
        _append(p, json.dumps(_base(99)) + "\n")  # changed: must hash now
        with pytest.raises(AssertionError, match="hashed"):
            _cached(p, monkeypatch, min_lines=1000)
    got = _cached(p, monkeypatch, min_lines=1000)
    assert got["reader"] == "cache+fast"
    _assert_same(got, _uncached(p, monkeypatch))


def test_a_just_written_file_is_hashed_even_if_untouched(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # Its ctime is within the racy margin of the read that filled the cache.
    p = tmp_path / "h.jsonl"
    _write(p, [_base(i) for i in range(20)])
    _cached(p, monkeypatch)
    calls: list[int] = []
    real = ec._hash_prefix

    def counting(path: str, size: int) -> Any:
        calls.append(size)
        return real(path, size)

    monkeypatch.setattr(ec, "_hash_prefix", counting)
    assert _cached(p, monkeypatch)["reader"] == "cache"
    assert calls == [p.stat().st_size]


@pytest.mark.parametrize(
    "damage",
    ["garbage", "empty", "foreign_key", "no_meta", "sqlite", "meta_types", "no_lines", "no_issues"],
)
def test_a_broken_or_foreign_cache_is_ignored_and_replaced(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, damage: str
) -> None:
    import duckdb

    p = tmp_path / "h.jsonl"
    _write(p, [_base(i) for i in range(20)])
    c = _cache(p)
    if damage == "garbage":
        c.write_bytes(b"this is not a database" * 100)
    elif damage == "empty":
        c.write_bytes(b"")
    elif damage == "sqlite":
        import sqlite3

        db = sqlite3.connect(c)
        db.execute("CREATE TABLE meta (format, key, size, sha256, lines)")
        db.commit()
        db.close()
    else:
        _cached(p, monkeypatch)
        con = duckdb.connect(str(c))
        if damage == "foreign_key":
            con.execute("UPDATE meta SET key = 'made by another runscore'")
        elif damage == "meta_types":
            con.execute("ALTER TABLE meta ALTER size TYPE VARCHAR")
        elif damage == "no_lines":
            con.execute("DROP TABLE lines")
        elif damage == "no_issues":
            con.execute("DROP TABLE issues")
        else:
            con.execute("DROP TABLE meta")
        con.close()
    log = _debug_log(monkeypatch)
    got = _cached(p, monkeypatch)
    assert not got["reader"].startswith("cache")
    _assert_same(got, _uncached(p, monkeypatch))
    # Read as a DuckDB file or not at all: DuckDB, left to guess, takes a SQLite header
    # for its sqlite extension and tries to download it.
    assert not any("extension" in m for m in log), log
    assert _cached(p, monkeypatch)["reader"] == "cache"  # written afresh


def test_another_typing_sql_or_version_makes_the_cache_stale(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    p = tmp_path / "h.jsonl"
    _write(p, [_base(i) for i in range(20)])
    _cached(p, monkeypatch)
    key = ec.cache_key("v1")
    with monkeypatch.context() as m:
        m.setattr(ec, "CACHE_FORMAT", ec.CACHE_FORMAT + 1)
        assert ec.cache_key("v1") != key
        assert not _cached(p, monkeypatch)["reader"].startswith("cache")
    # The common macros the typing calls (rs_iso_text reads every ts and run_ts) decide
    # what a cached line holds as much as the pack's own files do.
    from runscore.engine import sqlpack

    real_files = sqlpack.files

    def changed_common(pack: str, version: str) -> tuple[sqlpack.SqlFile, ...]:
        fs = real_files(pack, version)
        if pack != sqlpack.COMMON:
            return fs
        return (*fs[:-1], sqlpack.SqlFile(pack, version, fs[-1].name, fs[-1].text + "\n-- x"))

    with monkeypatch.context() as m:
        m.setattr(sqlpack, "files", changed_common)
        assert ec.cache_key("v1") != key


def test_off_min_lines_and_bad_settings(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    p = tmp_path / "h.jsonl"
    _write(p, [_base(i) for i in range(20)])
    _read(p, monkeypatch, RUNSCORE_HISTORY_CACHE="off", RUNSCORE_HISTORY_CACHE_MIN_LINES="0")
    assert not _cache(p).exists()
    _read(p, monkeypatch)  # default: 50,000 lines before a history is worth a cache
    assert not _cache(p).exists()
    _cached(p, monkeypatch, min_lines=20)
    assert _cache(p).exists()
    for k, v in (("RUNSCORE_HISTORY_CACHE", "maybe"), ("RUNSCORE_HISTORY_CACHE_MIN_LINES", "-1")):
        with monkeypatch.context() as m:
            m.setenv(k, v)
            with pytest.raises(UsageError, match=k):
                ec.settings()
            res = CliRunner().invoke(cli, ["report", "--history", str(p)])
            assert res.exit_code == 2, res.output
            assert k in res.output


def test_a_cache_that_cannot_be_written_is_not_an_error(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    p = tmp_path / "h.jsonl"
    _write(p, [_base(i) for i in range(20)])

    def refuse(*a: Any, **k: Any) -> Any:
        raise PermissionError("read-only directory")

    with monkeypatch.context() as m:
        m.setattr(ec.history, "temp_name", refuse)  # where the write makes its file
        got = _cached(p, monkeypatch)
    assert not _cache(p).exists()
    _assert_same(got, _uncached(p, monkeypatch))
    assert [f.name for f in tmp_path.iterdir()] == ["h.jsonl"]


def test_a_fifo_where_the_cache_belongs_is_left_as_it_is(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # It was replaced by the cache file without a word, where the extract manifest's FIFO
    # is left in place: not runscore's to replace. No cache then, as for a read-only folder.
    p = tmp_path / "h.jsonl"
    _write(p, [_base(i) for i in range(20)])
    os.mkfifo(_cache(p))
    seen = _debug_log(monkeypatch)
    for _ in range(2):
        _assert_same(_cached(p, monkeypatch), _uncached(p, monkeypatch))
    assert stat.S_ISFIFO(os.lstat(_cache(p)).st_mode)
    assert sorted(f.name for f in tmp_path.iterdir()) == ["h.jsonl", "h.jsonl.cache.duckdb"]
    assert seen == [f"{_cache(p)}: not cached: not a regular file"] * 2


def test_the_write_refuses_lines_past_the_covered_ones(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # A read that saw more lines than the bytes it hashed must not be cached: the
    # current line of a covered key could be one past the cover.
    p = tmp_path / "h.jsonl"
    _write(p, [_base(i) for i in range(20)])
    monkeypatch.setenv("RUNSCORE_HISTORY_CACHE", "off")
    con = eh.connect()
    eh.load_history(con, p)
    ec.write(con, str(p), "v1", [], size=10, sha256="0" * 64, lines=5, st=None, read_ns=0)
    assert not _cache(p).exists()
    assert [f.name for f in tmp_path.iterdir()] == ["h.jsonl"]  # no temp file left
    ec.write(con, str(p), "v1", [], size=p.stat().st_size, sha256="x", lines=20, st=None, read_ns=0)
    assert _cache(p).exists()


def test_report_sql_and_check_agree_through_the_cache(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from runscore.engine import history_tools

    p = tmp_path / "h.jsonl"
    _write(p, [_base(i) for i in range(40)] + [_base(3), _base(40, run_id="run-1")])
    _append(p, BAD)

    def everything() -> dict[str, Any]:
        out: dict[str, Any] = {"report": eh.report(p, version="all").table.to_pylist()}
        for view in eh.HISTORY_VIEWS:
            out[view] = eh.run_sql(f"SELECT * FROM {view} ORDER BY ALL", history=p).table
        chk = history_tools.check(str(p))
        out["check"] = (chk.lines, chk.usable, [i.as_dict() for i in chk.issues])
        return out

    monkeypatch.setenv("RUNSCORE_HISTORY_CACHE", "off")
    off = everything()
    monkeypatch.setenv("RUNSCORE_HISTORY_CACHE", "on")
    monkeypatch.setenv("RUNSCORE_HISTORY_CACHE_MIN_LINES", "0")
    everything()  # writes it
    assert _cache(p).exists()
    assert everything() == off


@settings(
    max_examples=60, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)
@given(
    records=st.lists(st.one_of(_record(True), _record(False)), min_size=2, max_size=16),
    cut=st.integers(min_value=1, max_value=15),
    junk=st.sampled_from(["", "not json\n", "\n", '{"run_id": "r1"}\n']),
)
def test_any_history_cached_then_grown_reads_as_without_cache(
    tmp_path_factory: pytest.TempPathFactory,
    monkeypatch: pytest.MonkeyPatch,
    records: list[dict[str, Any]],
    cut: int,
    junk: str,
) -> None:
    p = tmp_path_factory.mktemp("h") / "h.jsonl"
    cut = min(cut, len(records) - 1)
    head = "".join(_line(**r) + "\n" for r in records[:cut])
    tail = junk + "".join(_line(**r) + "\n" for r in records[cut:])
    p.write_text(head, encoding="utf-8")
    first = _cached(p, monkeypatch)
    _assert_same(first, _uncached(p, monkeypatch))
    _append(p, tail)
    grown = _cached(p, monkeypatch, min_lines=10**6)
    if _cache(p).exists():
        # Used unless the history more than doubled (then a full read is as cheap).
        doubled = len(tail.encode()) > len(head.encode())
        assert grown["reader"].startswith("cache+") != doubled
    _assert_same(grown, _uncached(p, monkeypatch))


def test_concurrent_readers_write_and_read_the_cache_safely(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # Several processes at once: each may write the cache (a new file renamed into place)
    # while others read the previous one; every one of them must print the same report.
    import subprocess
    import sys

    p = tmp_path / "h.jsonl"
    _write(p, [_base(i) for i in range(400)])
    env = {**os.environ, "RUNSCORE_HISTORY_CACHE_MIN_LINES": "1"}
    cmd = [sys.executable, "-m", "runscore.cli.main", "report", "--history", str(p)]
    cmd += ["--format", "json"]
    expected = CliRunner().invoke(
        cli,
        ["report", "--history", str(p), "--format", "json"],
        env={"RUNSCORE_HISTORY_CACHE": "off"},
    )
    assert expected.exit_code == 0
    for round_ in range(3):
        if round_ == 2:
            _append(p, "".join(json.dumps(_base(i, composite_score=0.9)) + "\n" for i in range(9)))
            expected = CliRunner().invoke(
                cli,
                ["report", "--history", str(p), "--format", "json"],
                env={"RUNSCORE_HISTORY_CACHE": "off"},
            )
        procs = [
            subprocess.Popen(cmd, env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE)
            for _ in range(4)
        ]
        for proc in procs:
            out, err = proc.communicate(timeout=120)
            assert proc.returncode == 0, err
            assert json.loads(out) == json.loads(expected.stdout)
    assert _cache(p).is_file()
    assert sorted(f.name for f in tmp_path.iterdir()) == ["h.jsonl", "h.jsonl.cache.duckdb"]


def test_sql_and_export_keep_file_order_after_new_lines(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    import pyarrow.parquet as pq

    monkeypatch.setenv("RUNSCORE_HISTORY_CACHE_MIN_LINES", "100000")
    p = tmp_path / "h.jsonl"
    _write(p, [_base(i) for i in range(3000)])
    _cached(p, monkeypatch, min_lines=1)
    _append(p, "".join(json.dumps(_base(i, ts="2027-01-01T00:00:00Z")) + "\n" for i in range(900)))
    assert _cached(p, monkeypatch, min_lines=100000)["reader"] == "cache+fast"
    for view in ("history", "history_current"):
        got = eh.run_sql(f"SELECT history_line FROM {view}", history=p).table.column(0)
        assert got.to_pylist() == sorted(got.to_pylist()), view
    out = tmp_path / "h.parquet"
    eh.export(out, history=p)
    lines = pq.read_table(out).column("history_line").to_pylist()
    assert len(lines) == 3900 and lines == sorted(lines)


def test_history_views_are_fetched_in_line_order_whatever_the_scan_order() -> None:
    # Over a cache plus new lines `history` is a union, which DuckDB may scan in any
    # order (seen on a 1M-line history); sql and export fetch it by history_line.
    import duckdb

    con = duckdb.connect()
    for view in ("history", "history_current"):
        con.execute(
            f"CREATE VIEW {view} AS SELECT * FROM range(50) t(history_line) "
            "ORDER BY history_line DESC"
        )
        assert eh._fetch_view(con, view).column(0).to_pylist() == list(range(50))


def test_a_version_without_the_cache_sql_reads_without_it(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # archeflow-legacy ships its own 100_history.sql but not the cache's files.
    assert ec.supported("v1") and not ec.supported("archeflow-legacy")
    p = tmp_path / "h.jsonl"
    _write(p, [_base(i) for i in range(20)])
    monkeypatch.setenv("RUNSCORE_HISTORY_CACHE_MIN_LINES", "0")
    con = eh.connect()
    load = eh.load_history(con, p, version="archeflow-legacy")
    assert load.reader == "careful" and load.lines == 20
    assert not _cache(p).exists()
    assert _cached(p, monkeypatch)["reader"] == "fast"  # v1 writes one ...
    con = eh.connect()
    load = eh.load_history(con, p, version="archeflow-legacy")  # ... legacy leaves it be
    assert load.reader == "careful" and load.lines == 20


def test_a_failure_while_checking_the_cache_means_a_full_read(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    p = tmp_path / "h.jsonl"
    _write(p, [_base(i) for i in range(20)])
    _cached(p, monkeypatch)
    _append(p, BAD)

    def vanished(path: str, size: int) -> Any:
        raise FileNotFoundError(path)

    with monkeypatch.context() as m:
        m.setattr(ec, "_hash_prefix", vanished)
        got = _cached(p, monkeypatch, min_lines=1000)
    assert not got["reader"].startswith("cache")
    _assert_same(got, _uncached(p, monkeypatch))


def test_the_written_cache_is_whole_in_its_file(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # In-memory connections never checkpoint on their own (runscore.engine.db); the
    # cache attached to one must still be complete in the file renamed into place,
    # with no WAL beside it holding part of it.
    p = tmp_path / "h.jsonl"
    _write(p, [_base(i) for i in range(300)])
    _append(p, BAD)
    assert _cached(p, monkeypatch)["reader"] == "careful"
    c = _cache(p)
    assert c.is_file()
    assert sorted(x.name for x in tmp_path.iterdir()) == sorted(["h.jsonl", c.name])
    con = duckdb.connect(str(c), read_only=True)
    try:
        assert con.execute("SELECT count(*) FROM lines").fetchall() == [(300,)]
        assert con.execute("SELECT count(*) FROM issues").fetchall() == [(3,)]
    finally:
        con.close()


def test_a_field_given_twice_is_skipped_with_and_without_the_cache(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from .test_history_fast_path import _twice

    p = tmp_path / "h.jsonl"
    _write(p, [_base(i) for i in range(10)])
    _append(p, _twice(_base(10, composite_score=0.9), "composite_score", 0.1) + "\n")
    cold = _cached(p, monkeypatch)
    assert cold["reader"] == "careful" and _cache(p).is_file()
    assert _cached(p, monkeypatch)["reader"] == "cache"
    # and in lines appended after the cache was written, which the fast reader types
    _append(
        p, json.dumps(_base(12)) + "\n" + _twice(_base(13), "ts", "2027-01-01T00:00:00Z") + "\n"
    )
    tail = _cached(p, monkeypatch, min_lines=100)
    assert tail["reader"] == "cache+careful"
    _assert_same(tail, _uncached(p, monkeypatch))
    assert [(i["line"], i["reason"]) for i in tail["issues"]] == [
        (11, "history line skipped: duplicate key composite_score"),
        (13, "history line skipped: duplicate key ts"),
    ]
    assert [r[-1] for r in tail["history"][2]] == [*range(1, 11), 12]
