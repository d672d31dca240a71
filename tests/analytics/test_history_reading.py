"""Reading the history: current lines, skipped lines with reasons, missing files."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from runscore.engine.packs import effectiveness_history as eh


def test_current_line_per_run_archetype_version(write_history, make_record) -> None:
    r = make_record
    hist = write_history(
        [
            r("run-1", "sage", 0.10, "2026-01-01T00:00:00Z", ts="2026-01-02T00:00:00Z"),
            r(
                "run-1", "sage", 0.20, "2026-01-01T00:00:00Z", ts="2026-01-03T00:00:00Z"
            ),  # latest ts
            r(
                "run-1", "sage", 0.30, "2026-01-01T00:00:00Z", ts="2026-01-01T12:00:00Z"
            ),  # older, later line
            r("run-2", "sage", 0.40, "2026-01-02T00:00:00Z", ts="2026-01-05T00:00:00Z"),
            r(
                "run-2", "sage", 0.50, "2026-01-02T00:00:00Z", ts="2026-01-05T00:00:00Z"
            ),  # tie: later line
            r(
                "run-2",
                "sage",
                0.90,
                "2026-01-02T00:00:00Z",
                ts="2026-01-09T00:00:00Z",
                version="effectiveness/v9",
            ),  # another version: its own current line
        ]
    )
    res = eh.run_sql(
        "SELECT run_id, scoring_version, composite_score FROM history_current ORDER BY ALL",
        hist,
    )
    assert res.table.to_pylist() == [
        {"run_id": "run-1", "scoring_version": "effectiveness/v1", "composite_score": 0.2},
        {"run_id": "run-2", "scoring_version": "effectiveness/v1", "composite_score": 0.5},
        {"run_id": "run-2", "scoring_version": "effectiveness/v9", "composite_score": 0.9},
    ]
    rep = eh.report(hist)
    assert rep.table.column("avg_composite").to_pylist() == [0.35]
    assert rep.notes == [
        f'{hist}: 1 line(s) of scoring version "effectiveness/v9" ignored '
        "(this runscore knows archeflow-legacy, effectiveness/v1)"
    ]


def test_window_follows_run_time_not_file_order(write_history, make_series) -> None:
    recs = make_series("guardian", [0.1] * 3 + [0.9] * 3)
    hist = write_history(list(reversed(recs)))  # newest runs first in the file
    (row,) = eh.report(hist, window=3).table.to_pylist()
    assert row["avg_composite"] == 0.9


#: Why a line with an empty run_id is skipped: spec §5 takes one current line per (run_id,
#: archetype), so "" would make every such run of an archetype one run, and all but its
#: latest line would be dropped without a word.
EMPTY_RUN_ID = (
    'run_id is empty (ArcheFlow\'s scorer writes "" for a run without a run.start event): '
    "which run it scored is unknown"
)


@pytest.mark.parametrize("cache", ["off", "on"])
def test_a_line_of_no_run_id_is_skipped_by_every_reader_saying_why(
    run_cli, tmp_path: Path, make_record, monkeypatch: pytest.MonkeyPatch, cache: str
) -> None:
    # ArcheFlow's scorer writes run_id "" for a run that had no run.start event. Such a
    # line cannot be placed in the (run, archetype) grain; it is skipped, never silently:
    # each reader names it (file:line: reason, the reason saying why) and exits 1, and the
    # other lines are read. It stays in the history (history check lists it).
    if cache == "on":
        monkeypatch.setenv("RUNSCORE_HISTORY_CACHE_MIN_LINES", "1")
    else:
        monkeypatch.setenv("RUNSCORE_HISTORY_CACHE", "off")
    lines = [
        make_record("r1", "guardian", 0.8, "2026-01-01T00:00:00Z", version=None, model="haiku"),
        make_record("", "guardian", 0.2, "2026-01-02T00:00:00Z", version=None, model="haiku"),
        make_record("", "sage", 0.6, "2026-01-03T00:00:00Z", version=None, model="sonnet"),
    ]
    hist = tmp_path / "h.jsonl"
    hist.write_text("".join(json.dumps(x) + "\n" for x in lines))
    (tmp_path / "team.yaml").write_text("check: [guardian, sage]\n")
    said = [f"{hist}:{n}: history line skipped: {EMPTY_RUN_ID}" for n in (2, 3)]
    for _ in range(2):  # the second read is the cache's, when there is one
        r = run_cli("report", "--history", str(hist), "--format", "json")
        assert (r.exit_code, r.stderr.splitlines()) == (1, said)
        assert [(x["archetype"], x["runs"]) for x in json.loads(r.stdout)] == [("guardian", 1)]
        r = run_cli("summary", "--history", str(hist))
        assert (r.exit_code, r.stderr.splitlines()) == (1, said)
        assert r.stdout.splitlines()[1:] == ["  guardian: 0.80 (keep)     — haiku, cost unknown"]
        r = run_cli("recommend", "team.yaml", "--history", str(hist), "--format", "json")
        assert (r.exit_code, r.stderr.splitlines()) == (1, said)
        assert [(x["archetype"], x["action"]) for x in json.loads(r.stdout)] == [
            ("guardian", "keep"),
            ("sage", "no_data"),
        ]
    r = run_cli("history", "check", str(hist))
    assert (r.exit_code, r.stderr.splitlines()[:2]) == (1, said)


def test_bad_lines_are_skipped_with_reasons(run_cli, tmp_path: Path, make_record) -> None:
    good = make_record("run-1", "guardian", 0.8, "2026-01-01T00:00:00Z")
    bad = [
        {**good, "run_id": ""},
        {**good, "archetype": 7},
        {k: v for k, v in good.items() if k != "archetype"},
        {**good, "ts": "yesterday"},
        {**good, "composite_score": None},
        {**good, "tokens": 1.5, "cycle_impact": "yes"},
        {**good, "scoring_version": 1},
    ]
    text = "\n".join(json.dumps(x) for x in [good, *bad]) + '\n[1, 2]\n\n{"ts": "2026'
    hist = tmp_path / "h.jsonl"
    hist.write_text(text)
    r = run_cli("report", "--history", str(hist), "--format", "json")
    assert r.exit_code == 1
    assert [x["runs"] for x in json.loads(r.stdout)] == [1]
    assert r.stderr.splitlines() == [
        f"{hist}:2: history line skipped: {EMPTY_RUN_ID}",
        f"{hist}:3: history line skipped: archetype is not a string",
        f"{hist}:4: history line skipped: missing archetype",
        f"{hist}:5: history line skipped: ts is not an ISO-8601 time",
        f"{hist}:6: history line skipped: missing composite_score",
        f"{hist}:7: history line skipped: cycle_impact is not a boolean; tokens is not an integer",
        f"{hist}:8: history line skipped: scoring_version is not a string",
        f"{hist}:9: not a JSON object (an array)",
        f"{hist}:11: torn last line (no newline at the end; a writer was interrupted or is still writing): not JSON: Unterminated string starting at: line 1 column 8 (char 7)",
    ]


def test_missing_history(run_cli, tmp_path: Path) -> None:
    missing = str(tmp_path / "nope.jsonl")
    r = run_cli("report", "--history", missing)
    assert r.exit_code == 3
    assert (
        r.stderr == f"error: no effectiveness history at {missing}; run `runscore extract` first\n"
    )
    r = run_cli("summary", "--history", missing)
    assert (r.exit_code, r.stdout) == (0, "Archetype effectiveness: no scored runs yet.\n")
    r = run_cli("sql", "SELECT count(*) AS n FROM history", "--history", missing, "--format", "csv")
    assert (r.exit_code, r.stdout) == (0, "n\n0\n")
    r = run_cli("export", "--to", str(tmp_path / "x.parquet"), "--history", missing)
    assert r.exit_code == 3


def test_history_must_be_a_file(run_cli, tmp_path: Path) -> None:
    r = run_cli("report", "--history", str(tmp_path))
    assert r.exit_code == 2 and "must be a file" in r.stderr


def test_default_history_path_is_cwd_relative(run_cli, tmp_path: Path, make_record) -> None:
    p = tmp_path / ".archeflow" / "memory" / "effectiveness.jsonl"
    p.parent.mkdir(parents=True)
    p.write_text(json.dumps(make_record("run-1", "sage", 0.8, "2026-01-01T00:00:00Z")) + "\n")
    r = run_cli("summary")
    assert r.exit_code == 0
    assert (
        r.stdout
        == "Archetype effectiveness (last 10 runs):\n  sage: 0.80 (keep)     — unknown, cost unknown\n"
    )


def test_bad_options(run_cli) -> None:
    assert run_cli("report", "--window", "0").exit_code == 2
    r = run_cli("report", "--sql-version", "v7")
    assert r.exit_code == 2 and r.stderr == (
        'error: unknown scoring version "v7" (have: archeflow-legacy, v1, all) '
        "(see 'cli report --help')\n"
    )
    # `all` is report's only: the commands that refuse it do not offer it
    for cmd in (("summary",), ("recommend", "t.yaml"), ("sql", "SELECT 1")):
        r = run_cli(*cmd, "--sql-version", "v7")
        assert r.exit_code == 2 and r.stderr == (
            'error: unknown scoring version "v7" (have: archeflow-legacy, v1) '
            f"(see 'cli {cmd[0]} --help')\n"
        ), cmd
    r = run_cli("recommend", "t.yaml", "--sql-version", "all")
    assert r.exit_code == 2


@pytest.mark.parametrize("garbage", [False, True])  # fast path; careful path (a bad line)
def test_times_a_history_line_cannot_hold_are_rejected(
    run_cli, tmp_path: Path, make_record, garbage: bool
) -> None:
    # DuckDB's cast takes 'infinity' (which superseded every later line of its run) and
    # years past 9999 (which `runscore sql` could not print: a traceback, exit 1).
    good = make_record("run-1", "guardian", 0.5, "2026-01-01T00:00:00Z")
    lines = [
        good,
        {**good, "ts": "infinity", "composite_score": 0.9},
        {**good, "run_id": "run-2", "ts": "10000-01-01", "composite_score": 0.1},
        {**good, "run_id": "run-3", "run_ts": "epoch", "composite_score": 0.1},
        {**good, "run_id": "run-4", "run_ts": "9999-12-31T23:00:00-05:00"},
    ]
    text = "".join(json.dumps(x) + "\n" for x in lines) + ("garbage\n" if garbage else "")
    hist = tmp_path / "h.jsonl"
    hist.write_text(text)
    r = run_cli("report", "--history", str(hist), "--format", "json")
    assert r.exit_code == 1
    (row,) = json.loads(r.stdout)
    assert (row["runs"], row["avg_composite"]) == (1, 0.5)
    assert r.stderr.splitlines()[:4] == [
        f"{hist}:2: history line skipped: ts is not an ISO-8601 time",
        f"{hist}:3: history line skipped: ts is not an ISO-8601 time",
        f"{hist}:4: history line skipped: run_ts is not an ISO-8601 time",
        f"{hist}:5: history line skipped: run_ts is not an ISO-8601 time",
    ]
    r = run_cli("sql", "SELECT run_id, ts FROM history", "--history", str(hist), "--format", "csv")
    assert r.exit_code == 1
    assert r.stdout == "run_id,ts\nrun-1,2026-01-01T00:00:00+00:00\n"
