"""The history's idempotency keys, read ahead of the lock while runs are scored.

``extract`` reads the keys (run, archetype, version, events hash) of the history on a
worker thread while it scores, before it takes the history lock. They are taken under
the lock only if the history is still the file that was read, of the same size and
mtime; otherwise the history is read again there. These tests pin both sides.
"""

from __future__ import annotations

import json
import os
from pathlib import Path

import duckdb
import pytest
from runscore.engine import db, history_tools
from runscore.engine.packs import effectiveness, effectiveness_cache, effectiveness_history


def _line(run: str, archetype: str = "guardian", sha: str = "a" * 64) -> str:
    rec = {"run_id": run, "archetype": archetype, "scoring_version": "v1", "events_sha256": sha}
    return json.dumps(rec) + "\n"


def _keys(hist: Path, *, change: str | None = None) -> list[tuple[str, ...]]:
    """The keys ``_existing_keys`` loads, given keys read ahead and then ``change``."""
    con = db.connect()
    ahead = effectiveness._KeysAhead(con, str(hist))
    ahead._thread.join()  # read before the change, as a slow lock would let happen
    if change == "append":
        with open(hist, "a", encoding="utf-8") as f:
            f.write(_line("r-late"))
    elif change == "replace":  # same size, another file: what `history repair` does
        tmp = hist.with_suffix(".tmp")
        tmp.write_text(hist.read_text().replace("r-one", "r-new"))
        os.replace(tmp, hist)
    effectiveness._existing_keys(con, str(hist), ahead)
    rows = con.execute("SELECT * FROM _existing ORDER BY ALL").fetchall()
    # Taken or not, the keys read ahead do not stay behind in the database.
    left = "SELECT count(*) FROM duckdb_tables() WHERE table_name = '_rs_keys_ahead'"
    assert con.execute(left).fetchall() == [(0,)]
    con.close()
    return [tuple(r) for r in rows]


def test_keys_read_ahead_are_taken_while_the_history_is_unchanged(tmp_path: Path) -> None:
    hist = tmp_path / "h.jsonl"
    hist.write_text(_line("r-one") + _line("r-one", "skeptic") + "not json\n")
    direct = db.connect()
    effectiveness._existing_keys(direct, str(hist))
    want = [tuple(r) for r in direct.execute("SELECT * FROM _existing ORDER BY ALL").fetchall()]
    assert [k[:2] for k in want] == [("r-one", "guardian"), ("r-one", "skeptic")]
    assert _keys(hist) == want


def test_a_line_appended_after_the_read_ahead_is_still_a_key(tmp_path: Path) -> None:
    # Another extract appended between the read and this one's lock: its run must not
    # be written twice.
    hist = tmp_path / "h.jsonl"
    hist.write_text(_line("r-one"))
    assert [k[0] for k in _keys(hist, change="append")] == ["r-late", "r-one"]


def test_a_history_replaced_after_the_read_ahead_is_read_again(tmp_path: Path) -> None:
    hist = tmp_path / "h.jsonl"
    hist.write_text(_line("r-one"))
    assert [k[0] for k in _keys(hist, change="replace")] == ["r-new"]


def test_extract_writes_each_run_once_when_another_writer_appended_meanwhile(
    tmp_path: Path, fixtures: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # End to end: the keys are read while scoring; a writer appends the same run's
    # records before this extract takes the lock. The run is then already in the history.
    log = fixtures / "effectiveness" / "archeflow-fixture" / "events.jsonl"
    other = tmp_path / "other.jsonl"
    effectiveness.extract([str(log)], str(other))
    hist = tmp_path / "h.jsonl"
    hist.write_text(_line("r-earlier"))  # not empty: its keys are read ahead
    real = effectiveness._existing_keys
    read_ahead = []

    def late_writer(
        con: duckdb.DuckDBPyConnection, path: str, ahead: effectiveness._KeysAhead | None = None
    ) -> int:
        read_ahead.append(ahead is not None)
        if ahead is not None:
            ahead._thread.join()
        with open(path, "a", encoding="utf-8") as f:
            f.write(other.read_text())
        return real(con, path, ahead)

    monkeypatch.setattr(effectiveness, "_existing_keys", late_writer)
    got = effectiveness.extract([str(log)], str(hist), incremental=False)
    assert read_ahead == [True]
    assert got.records_written == 0 and got.already_scored
    assert hist.read_text() == _line("r-earlier") + other.read_text()


def _history_with_one_bad_line(tmp_path: Path, log: Path, bad: str) -> tuple[Path, str, int]:
    """A history of ``log``'s records in which the guardian's line is replaced by ``bad``
    (``{}`` in it stands for the line's own fields before its last brace); that line and
    its 0-based index."""
    hist = tmp_path / "h.jsonl"
    effectiveness.extract([str(log)], str(hist))
    lines = hist.read_text().splitlines(keepends=True)
    (at,) = [i for i, line in enumerate(lines) if json.loads(line)["archetype"] == "guardian"]
    lines[at] = bad.replace("{}", lines[at].rstrip("\n")[:-1]) + "\n"
    hist.write_text("".join(lines))
    return hist, lines[at], at


@pytest.mark.parametrize(
    "bad",
    [
        # a score of the wrong kind: report skips the line ("composite_score is not a number")
        '{}, "composite_score": "0.5"}',
        # a key given twice: report skips the line too
        '{}, "fix_rate": 0.5}',
    ],
    ids=["wrong-kind", "duplicate-key"],
)
@pytest.mark.parametrize("cached", [False, True], ids=["read", "cached"])
def test_a_run_whose_history_line_report_skips_is_scored_again(
    tmp_path: Path, fixtures: Path, bad: str, cached: bool, monkeypatch: pytest.MonkeyPatch
) -> None:
    # The key read is lenient (four fields of any line); report is not. A run whose only
    # line report skips was "already scored" and stayed out of every report.
    log = fixtures / "effectiveness" / "archeflow-fixture" / "events.jsonl"
    hist, bad_line, bad_at = _history_with_one_bad_line(tmp_path, log, bad)
    if cached:  # the lines typed by an earlier report, from its cache beside the history
        monkeypatch.setenv(effectiveness_cache.MIN_LINES_ENV, "1")
        effectiveness_history.report(str(hist))
        assert Path(str(hist) + ".cache.duckdb").exists()
    before = hist.read_text()
    # Dry run: says what a write would append.
    dry = effectiveness.extract([str(log)], str(hist), incremental=False, write=False)
    assert (dry.records_new, dry.already_scored) == (1, [])
    got = effectiveness.extract([str(log)], str(hist), incremental=False)
    assert (got.records_written, got.already_scored) == (1, [])
    after = hist.read_text()
    assert after.startswith(before)  # appended, nothing rewritten
    (added,) = after[len(before) :].splitlines()
    rec = json.loads(added)
    assert rec["archetype"] == "guardian"
    assert rec["events_sha256"] in bad_line  # the same events: only the line was bad
    # The report has the run's guardian again; the bad line is still listed as skipped.
    report = effectiveness_history.report(str(hist))
    rows = {r["archetype"]: r for r in report.table.to_pylist()}
    assert rows["guardian"]["runs"] == 1
    assert [i.line for i in report.issues] == [bad_at + 1]


def test_a_run_whose_history_lines_are_all_good_stays_already_scored(
    tmp_path: Path, fixtures: Path
) -> None:
    log = fixtures / "effectiveness" / "archeflow-fixture" / "events.jsonl"
    hist = tmp_path / "h.jsonl"
    first = effectiveness.extract([str(log)], str(hist))
    before = hist.read_text()
    got = effectiveness.extract([str(log)], str(hist), incremental=False)
    assert got.records_written == 0 and got.already_scored == ["score-run"]
    assert first.records_written == 2 and hist.read_text() == before


def test_a_run_whose_events_went_back_to_older_ones_is_scored_again(
    tmp_path: Path, fixtures: Path
) -> None:
    # Events A, then B (the exit condition no longer met), then A again (the file
    # restored): A's key was in the history, on lines B had superseded, so the run was
    # "already scored" and every report kept B's scores. §4: its events changed, so its
    # records are appended; the key of a current line still writes nothing.
    a = (fixtures / "effectiveness" / "archeflow-fixture" / "events.jsonl").read_text()
    b = a.replace('"met":true', '"met":false')
    assert b != a
    log = tmp_path / "run.jsonl"
    hist = tmp_path / "h.jsonl"

    def extract(text: str) -> tuple[int, list[str], dict[str, float]]:
        log.write_text(text)
        got = effectiveness.extract([str(log)], str(hist), incremental=False)
        rows = effectiveness_history.report(str(hist)).table.to_pylist()
        return (
            got.records_written,
            got.already_scored,
            {r["archetype"]: r["avg_composite"] for r in rows},
        )

    assert extract(a) == (2, [], {"guardian": 0.5625, "sage": 0.1875})
    assert extract(b) == (2, [], {"guardian": 0.4375, "sage": 0.1875})
    assert extract(a) == (2, [], {"guardian": 0.5625, "sage": 0.1875})
    assert extract(a) == (0, ["score-run"], {"guardian": 0.5625, "sage": 0.1875})
    # extract wrote no record twice: check finds the history whole
    check = history_tools.check(str(hist))
    assert (check.issues, check.duplicates, len(check.keep)) == ([], [], 6)
