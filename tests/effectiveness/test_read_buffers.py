"""How large read_json's buffers are, and what happens to a line longer than one.

DuckDB's JSON reader cuts a file into buffers of twice ``maximum_object_size``, one per
task: with the line limit's 64 MiB, one file of 10k runs (86 MB) was a single buffer,
parsed by a single thread. A read made beside the pre-scan (optimistic) now asks for
``sources.READ_OBJECT_BYTES`` (32 MiB: buffers of 64 MiB), and a line longer than a
buffer fails it; the file is then read again with buffers sized by the longest line the
pre-scan measured; should that read still meet a longer line (appended since the scan),
it is made once more with buffers for the line limit, as every read was before. Nothing
of the file may be lost or misnumbered on the way.

The tests lower READ_OBJECT_BYTES to DuckDB's own default and floor (16 MiB: a smaller
value is raised to it), so that a line longer than a buffer is 33 MB, not 65 MB beyond
the default line limit.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from runscore.engine import db, sources, sqlpack
from runscore.engine.packs import effectiveness

MIB = 1 << 20


#: DuckDB's default maximum_object_size, and the least it takes.
DUCKDB_FLOOR = 16 * MIB


@pytest.fixture
def object_sizes(monkeypatch: pytest.MonkeyPatch) -> list[int]:
    """The maximum_object_size of every read of input files the engine executes."""
    monkeypatch.setattr(sources, "READ_OBJECT_BYTES", DUCKDB_FLOOR)
    seen: list[int] = []
    real = sqlpack.execute

    def spy(con: Any, sql: Any, params: Any = None, *a: Any, **k: Any) -> Any:
        if isinstance(params, dict) and "max_object_size" in params and "files" in params:
            if any(str(p).endswith(".jsonl") for p in params["files"]):
                seen.append(int(params["max_object_size"]))
        return real(con, sql, params, *a, **k)

    monkeypatch.setattr(sqlpack, "execute", spy)
    return seen


def _run_lines(run_id: str, note: str = "") -> list[str]:
    data: dict[str, Any] = {"archetype": "guardian", "verdict": "approved", "findings": []}
    if note:
        data["note"] = note
    return [
        json.dumps({"run_id": run_id, "seq": 1, "type": "run.start"}),
        json.dumps(
            {
                "run_id": run_id,
                "seq": 2,
                "parent": [1],
                "type": "review.verdict",
                "agent": "guardian",
                "data": data,
            }
        ),
        json.dumps({"run_id": run_id, "seq": 3, "parent": [2], "type": "run.complete"}),
    ]


def _corpus(path: Path, runs: int, long_at: int | None, long_bytes: int) -> None:
    """``runs`` runs in one file (large enough for the streaming read); the verdict of
    run ``long_at`` carries a note that makes its line ``long_bytes`` long or more."""
    pad = "x" * (2 * MIB)  # every file over SMALL_FILE_BYTES: read as one large file
    with path.open("w") as f:
        for i in range(runs):
            note = "y" * long_bytes if i == long_at else (pad if i == 0 else "")
            f.write("\n".join(_run_lines(f"r{i:03d}", note)) + "\n")


def test_a_line_longer_than_a_buffer_is_read_again_not_lost(
    tmp_path: Path, object_sizes: list[int]
) -> None:
    src = tmp_path / "events.jsonl"
    long_bytes = 2 * sources.READ_OBJECT_BYTES + MIB  # longer than one buffer
    _corpus(src, 50, 37, long_bytes)
    lines = src.read_bytes().split(b"\n")
    assert max(map(len, lines)) > 2 * sources.READ_OBJECT_BYTES
    res = effectiveness.extract([str(src)], str(tmp_path / "h.jsonl"))
    assert res.skipped_lines == [] and res.warnings == [] and res.unreadable == []
    hist = [json.loads(x) for x in (tmp_path / "h.jsonl").read_text().splitlines()]
    assert [r["run_id"] for r in hist] == [f"r{i:03d}" for i in range(50)]
    # First beside the pre-scan with DuckDB's default, which fails on the long line;
    # then again with buffers that hold the longest line the pre-scan measured.
    assert object_sizes[0] == sources.READ_OBJECT_BYTES
    assert len(object_sizes) == 2
    longest = max(map(len, lines))
    assert 2 * object_sizes[1] > longest + 1
    assert object_sizes[1] <= sources.max_line_limit() + 1024


def test_usual_lines_are_read_once_with_the_default_buffers(
    tmp_path: Path, object_sizes: list[int]
) -> None:
    src = tmp_path / "events.jsonl"
    _corpus(src, 50, None, 0)
    res = effectiveness.extract([str(src)], str(tmp_path / "h.jsonl"))
    assert res.skipped_lines == []
    # read once; its buffers no larger than the file needs (no line is longer than its
    # file): they count against the memory limit. A larger file: READ_OBJECT_BYTES (the
    # test above).
    size = src.stat().st_size
    assert size < sources.READ_OBJECT_BYTES
    assert object_sizes == [size + 1024]
    assert len((tmp_path / "h.jsonl").read_text().splitlines()) == 50


def test_a_long_line_keeps_its_place_and_the_lines_after_it_theirs(
    tmp_path: Path, object_sizes: list[int]
) -> None:
    """Line numbers after the long line are still exact: a later line that is not an
    event is reported at its own line."""
    src = tmp_path / "events.jsonl"
    _corpus(src, 20, 5, 2 * sources.READ_OBJECT_BYTES + MIB)
    with src.open("a") as f:
        f.write('{"seq": 1, "type": "run.start"}\n')  # no run_id: line 61
    res = effectiveness.extract([str(src)], str(tmp_path / "h.jsonl"))
    assert [(i.line, i.reason) for i in res.skipped_lines] == [(61, "missing run_id")]
    assert len(object_sizes) == 2


def test_a_line_grown_since_the_scan_is_read_with_the_line_limit(
    tmp_path: Path, object_sizes: list[int]
) -> None:
    """A line appended after the pre-scan measured the file is longer than the buffers
    sized by that measure: the read is made again with buffers for the line limit, as
    before this size was chosen, not given up."""
    src = tmp_path / "events.jsonl"
    _corpus(src, 20, 5, 2 * sources.READ_OBJECT_BYTES + MIB)
    f = sources.SourceFile(path=str(src), display="events.jsonl")
    sources.prescan(f)
    assert f.clean and f.long_line > 2 * sources.READ_OBJECT_BYTES
    f.long_line = 0  # what the scan would have said before the long line was appended
    con = db.connect()
    try:
        res = sources.read_jsonl(con, [f], "ev", effectiveness.EVENT_COLUMNS)
        got = con.sql("SELECT count(*), max(_line), max(length(data::VARCHAR)) FROM ev").fetchall()
    finally:
        con.close()
    assert res.skipped == [] and res.unreadable == []
    assert got[0][:2] == (60, 60) and got[0][2] > 2 * sources.READ_OBJECT_BYTES
    limit = sources.max_line_limit() + 1024
    assert object_sizes == [sources.READ_OBJECT_BYTES, limit]
