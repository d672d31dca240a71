"""How many threads DuckDB runs an extract on.

An incremental extract that reads only a few small files runs DuckDB on one thread
(``effectiveness.SMALL_READ_*``); anything else keeps DuckDB's default, and a count the
user set with ``RUNSCORE_THREADS`` always wins. The counts are read on the extract's own
connection while it scores.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import duckdb
import pytest
from runscore.engine.packs import effectiveness


@pytest.fixture
def default_threads() -> int:
    n = int(duckdb.connect().sql("SELECT current_setting('threads')").fetchall()[0][0])
    if n < 2:
        pytest.skip("DuckDB runs one thread by default here: nothing to tell apart")
    return n


@pytest.fixture
def logs(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """An empty folder of run logs; no thread count from the environment."""
    monkeypatch.delenv("RUNSCORE_THREADS", raising=False)
    folder = tmp_path / "logs"
    folder.mkdir()
    return folder


def _threads_seen(monkeypatch: pytest.MonkeyPatch) -> list[int]:
    seen: list[int] = []
    real = effectiveness.build_event_tables

    def spy(con: duckdb.DuckDBPyConnection, *args: Any, **kwargs: Any) -> Any:
        seen.append(int(con.sql("SELECT current_setting('threads')").fetchall()[0][0]))
        return real(con, *args, **kwargs)

    monkeypatch.setattr(effectiveness, "build_event_tables", spy)
    return seen


def test_a_small_incremental_read_runs_on_one_thread(
    h: Any, tmp_path: Path, logs: Path, monkeypatch: pytest.MonkeyPatch, default_threads: int
) -> None:
    (logs / "a.jsonl").write_text(h.review_run("r-a"))
    hist = str(tmp_path / "h.jsonl")
    seen = _threads_seen(monkeypatch)
    effectiveness.extract([str(logs)], hist)  # fresh: every file read
    (logs / "b.jsonl").write_text(h.review_run("r-b"))
    res = effectiveness.extract([str(logs)], hist)
    assert (res.files_read, res.files_unchanged, res.records_written) == (1, 1, 1)
    assert seen == [default_threads, 1]


def test_a_large_incremental_read_keeps_the_default(
    h: Any, tmp_path: Path, logs: Path, monkeypatch: pytest.MonkeyPatch, default_threads: int
) -> None:
    (logs / "a.jsonl").write_text(h.review_run("r-a"))
    hist = str(tmp_path / "h.jsonl")
    effectiveness.extract([str(logs)], hist)
    (logs / "b.jsonl").write_text(h.review_run("r-b"))
    size = (logs / "b.jsonl").stat().st_size
    seen = _threads_seen(monkeypatch)
    monkeypatch.setattr(effectiveness, "SMALL_READ_BYTES", size - 1)
    effectiveness.extract([str(logs)], hist)
    (logs / "c.jsonl").write_text(h.review_run("r-c"))
    monkeypatch.setattr(effectiveness, "SMALL_READ_BYTES", 1 << 30)
    monkeypatch.setattr(effectiveness, "SMALL_READ_FILES", 0)
    effectiveness.extract([str(logs)], hist)
    assert seen == [default_threads, default_threads]


def test_a_read_that_grows_past_the_limit_gets_the_default_back(
    h: Any, tmp_path: Path, logs: Path, monkeypatch: pytest.MonkeyPatch, default_threads: int
) -> None:
    # A run that spans files: its other file, unchanged, is read again with the new one.
    lines = h.review_run("r-a").splitlines(keepends=True)
    (logs / "a1.jsonl").write_text("".join(lines[:2]))
    hist = str(tmp_path / "h.jsonl")
    effectiveness.extract([str(logs)], hist)
    (logs / "a2.jsonl").write_text(lines[2])
    monkeypatch.setattr(effectiveness, "SMALL_READ_BYTES", (logs / "a2.jsonl").stat().st_size + 1)
    seen = _threads_seen(monkeypatch)
    res = effectiveness.extract([str(logs)], hist)
    assert (res.files_read, res.files_unchanged, res.runs_scored) == (2, 0, 1)
    assert seen == [1, default_threads]


def test_the_users_thread_count_wins(
    h: Any, tmp_path: Path, logs: Path, monkeypatch: pytest.MonkeyPatch, default_threads: int
) -> None:
    monkeypatch.setenv("RUNSCORE_THREADS", str(default_threads + 1))
    (logs / "a.jsonl").write_text(h.review_run("r-a"))
    hist = str(tmp_path / "h.jsonl")
    seen = _threads_seen(monkeypatch)
    effectiveness.extract([str(logs)], hist)
    (logs / "b.jsonl").write_text(h.review_run("r-b"))
    effectiveness.extract([str(logs)], hist)
    assert seen == [default_threads + 1, default_threads + 1]
