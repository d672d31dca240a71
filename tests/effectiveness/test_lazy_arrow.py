"""An extract of a few small files needs no pyarrow, and its records are still Arrow.

Importing pyarrow was ~0.03 s of a ~0.7 s incremental extract of 100 new run files
(and more at exit). Small batches and tables go to DuckDB as lists bound as parameters
(``sources.LIST_BIND_*``), and ``ExtractResult.records`` is read as Arrow only when asked
for, from a table the extract leaves in its database.
"""

from __future__ import annotations

import datetime as dt
import gc
import json
import shutil
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
from runscore.engine import db, sources
from runscore.engine.packs import effectiveness


def test_a_small_extract_from_the_cli_imports_no_pyarrow(h: Any, tmp_path: Path) -> None:
    logs = tmp_path / "logs"
    logs.mkdir()
    for i in range(3):
        (logs / f"run-{i}.jsonl").write_text(h.review_run(f"r{i}"))
    hist = tmp_path / "h.jsonl"
    code = (
        "import sys\n"
        "from runscore.cli.main import cli\n"
        "def extract():\n"
        f"    argv = ['extract', {str(logs)!r}, '--history', {str(hist)!r}]\n"
        "    try:\n"
        "        cli.main(argv, prog_name='runscore')\n"
        "    except SystemExit as e:\n"
        "        assert e.code == 0, e.code\n"
        "extract()\n"
        f"open({str(logs / 'run-3.jsonl')!r}, 'w').write(open({str(logs / 'run-0.jsonl')!r})"
        ".read().replace('r0', 'r3'))\n"
        "extract()  # incremental: one new file\n"
        "print('pyarrow' in sys.modules)\n"
    )
    out = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, check=True
    ).stdout
    assert out == "False\n"
    runs = [json.loads(line)["run_id"] for line in hist.read_text().splitlines()]
    assert runs == ["r0", "r1", "r2", "r3"]


def test_records_are_read_when_asked_from_what_the_extract_left(h: Any, tmp_path: Path) -> None:
    logs = tmp_path / "logs"
    logs.mkdir()
    for i in range(3):
        (logs / f"run-{i}.jsonl").write_text(h.review_run(f"r{i}"))
    at = "2026-01-01T00:00:00Z"
    res = effectiveness.extract([str(logs)], str(tmp_path / "h.jsonl"), scored_at=at)
    cur = res._records_at
    assert cur is not None
    gc.collect()  # the extract's connection is gone: the cursor keeps only its table
    kept = cur.sql("SELECT table_name, temporary FROM duckdb_tables()").fetchall()
    assert kept == [("_rs_records", False)]
    records = res.records
    assert res._records_at is None and res.records is records
    with pytest.raises(Exception, match="closed"):
        cur.sql("SELECT 1").fetchall()
    expected = effectiveness.score_runs([str(logs)], scored_at=at)
    # the records as the history line writes them; score_runs types the times as its views
    times = ["ts", "run_ts"]
    assert records.drop_columns(times).equals(expected.drop_columns(times))
    for name in times:
        written = [t and dt.datetime.fromisoformat(t) for t in records.column(name).to_pylist()]
        assert written == expected.column(name).to_pylist()
    assert records.column("run_id").to_pylist() == ["r0", "r1", "r2"]


@pytest.mark.parametrize("via", ["lists", "arrow"])
def test_a_table_from_python_is_the_same_either_way(
    via: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    if via == "arrow":
        monkeypatch.setattr(sources, "LIST_BIND_ROWS", -1)
    con = db.connect()
    columns: dict[str, tuple[str, Any]] = {
        "key": ("INTEGER", [3, -1, 2**31 - 1]),
        "_file": ("VARCHAR", ["a b", None, "é\x00z"]),
        "first_rowid": ("BIGINT", range(2**40, 2**40 + 3)),
    }
    sources.load_table(con, "t", columns)
    assert con.sql("SELECT * FROM t").fetchall() == [
        (3, "a b", 2**40),
        (-1, None, 2**40 + 1),
        (2**31 - 1, "é\x00z", 2**40 + 2),
    ]
    types = [(r[0], r[1]) for r in con.sql("DESCRIBE t").fetchall()]
    assert types == [("key", "INTEGER"), ("_file", "VARCHAR"), ("first_rowid", "BIGINT")]
    sources.load_table(con, "t", {"k": ("INTEGER", []), "l": ("BIGINT", [])})
    assert con.sql("SELECT * FROM t").fetchall() == []
    assert [r[1] for r in con.sql("DESCRIBE t").fetchall()] == ["INTEGER", "BIGINT"]
    with pytest.raises(Exception, match="bad column"):
        sources.load_table(con, "t", {"k": ("DOUBLE", [1.0])})
    with pytest.raises(Exception, match="bad column"):
        sources.load_table(con, "t", {'k" INTEGER, x': ("INTEGER", [1])})


def test_one_path_given_as_a_string_is_one_path(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """``score_runs("r.jsonl")`` / ``extract("r.jsonl", ...)``: a str is a Sequence[str] of
    its characters, each taken as a path: "." read the whole current folder (and an
    absolute path's "/" the whole disk) and the letters were reported as missing files."""
    fixture = Path(__file__).resolve().parents[1] / "fixtures" / "effectiveness"
    shutil.copy(fixture / "archeflow-fixture" / "events.jsonl", tmp_path / "r.jsonl")
    other = '{"run_id":"other","seq":1,"type":"review.verdict","agent":"sage"}\n'
    (tmp_path / "other.jsonl").write_text(
        other + '{"run_id":"other","seq":2,"type":"run.complete"}\n'
    )
    monkeypatch.chdir(tmp_path)
    rows = effectiveness.score_runs("r.jsonl").to_pylist()
    assert sorted((r["run_id"], r["archetype"], r["source"]) for r in rows) == [
        ("score-run", "guardian", "r.jsonl"),
        ("score-run", "sage", "r.jsonl"),
    ]
    res = effectiveness.extract("r.jsonl", "h.jsonl")
    assert (res.unreadable, res.skipped_lines, res.files_read) == ([], [], 1)
    assert (res.runs_scored, res.records_written) == (1, 2)


def test_run_sql_events_given_as_one_string(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """``run_sql(q, events="r.jsonl")``: one path, not one path per character."""
    from runscore.engine.packs import effectiveness_history as eh

    fixture = Path(__file__).resolve().parents[1] / "fixtures" / "effectiveness"
    shutil.copy(fixture / "archeflow-fixture" / "events.jsonl", tmp_path / "r.jsonl")
    (tmp_path / "other.jsonl").write_text('{"run_id":"other","seq":1,"type":"run.start"}\n')
    monkeypatch.chdir(tmp_path)
    res = eh.run_sql(
        "SELECT run_id, count(*) AS n FROM events GROUP BY run_id", "h.jsonl", events="r.jsonl"
    )
    assert res.table.to_pylist() == [{"run_id": "score-run", "n": 8}]
    assert res.issues == []
