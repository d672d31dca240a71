"""A history with lines but not one the reader takes is nothing read (README exit 3: stdout
empty in every command and format, no `[]` or header-only CSV that reads as "read, and no
rows"), as input whose every line is rejected is in `extract`, `pipeline` and `routes`.
An empty history (no lines, or blank ones only) is read, and has no rows.

These commands printed `[]`, a header-only CSV, an empty markdown report or "no scored
runs yet" for such a history, and exited 1 ("the rest was processed")."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from runscore.engine.packs import effectiveness_cache as ec
from runscore.engine.packs import effectiveness_history as eh

from .conftest import record

GOOD = record("r1", "sage", 0.5, "2026-01-01T00:00:00Z")
#: Every kind of line the reader skips, and a blank line (not listed: no line at all).
BAD = (
    "not json\n"
    + json.dumps({"run_id": "x"})
    + "\n\n"
    + json.dumps({**GOOD, "composite_score": "0.5"})
    + "\n"
    + json.dumps(GOOD)[:-1]
    + ', "run_id": "r2"}\n{"ts": "2026'
)
LISTED = [
    "  h.jsonl:1: not JSON: Expecting value: line 1 column 1 (char 0)",
    "  h.jsonl:2: history line skipped: missing archetype; missing ts; missing composite_score",
    "  h.jsonl:4: history line skipped: composite_score is not a number",
    "  h.jsonl:5: history line skipped: duplicate key run_id",
    "  h.jsonl:6: torn last line (no newline at the end; a writer was interrupted or is still "
    "writing): not JSON: Unterminated string starting at: line 1 column 8 (char 7)",
]
ERROR = "error: no line of the history h.jsonl could be read:\n" + "".join(x + "\n" for x in LISTED)

COMMANDS: dict[str, tuple[str, ...]] = {
    "report": ("report",),
    "report-json": ("report", "--format", "json"),
    "report-csv": ("report", "--format", "csv"),
    "report-all-versions": ("report", "--sql-version", "all"),
    "recommend": ("recommend", "team.yaml"),
    "recommend-json": ("recommend", "team.yaml", "--format", "json"),
    "recommend-csv": ("recommend", "team.yaml", "--format", "csv"),
    "summary": ("summary",),
    "summary-json": ("summary", "--format", "json"),
    "summary-team": ("summary", "--team", "team.yaml"),
    "sql-history": ("sql", "SELECT count(*) AS n FROM history"),
    "sql-report-json": ("sql", "from Report", "--format", "json"),
    "sql-output": ("sql", "SELECT * FROM history_current", "--format", "csv", "--output", "o.csv"),
    "export-parquet": ("export", "--to", "x.parquet"),
    "export-duckdb": ("export", "--to", "x.duckdb"),
}


@pytest.fixture
def team(tmp_path: Path) -> None:
    (tmp_path / "team.yaml").write_text("check: [sage]\n")


@pytest.mark.parametrize("name", list(COMMANDS))
def test_a_history_whose_every_line_is_skipped_is_nothing_read(
    run_cli: Any, tmp_path: Path, team: None, name: str
) -> None:
    (tmp_path / "h.jsonl").write_text(BAD)
    r = run_cli(*COMMANDS[name], "--history", "h.jsonl")
    assert (r.exit_code, r.stdout, r.stderr) == (3, "", ERROR)
    assert sorted(p.name for p in tmp_path.iterdir()) == ["h.jsonl", "team.yaml"]  # no output


@pytest.mark.parametrize("text", ["", "\n\n"])
def test_an_empty_history_is_read_and_one_bad_line_more_is_nothing_read(
    run_cli: Any, tmp_path: Path, team: None, text: str
) -> None:
    hist = tmp_path / "h.jsonl"
    hist.write_text(text)
    expected = {
        ("report", "--format", "json"): "[]\n",
        ("summary",): "Archetype effectiveness: no scored runs yet.\n",
        ("summary", "--format", "json"): "[]\n",
        ("sql", "SELECT count(*) AS n FROM history", "--format", "csv"): "n\n0\n",
        ("export", "--to", "x.parquet"): "x.parquet\n",
    }
    for args, out in expected.items():
        r = run_cli(*args, "--history", "h.jsonl")
        assert (r.exit_code, r.stdout) == (0, out), args
        assert r.stderr == ("exported history: 0 rows\n" if args[0] == "export" else ""), args
    r = run_cli("report", "--format", "csv", "--history", "h.jsonl")
    assert (r.exit_code, r.stdout.count("\n")) == (0, 1)  # the header alone
    r = run_cli("recommend", "team.yaml", "--format", "json", "--history", "h.jsonl")
    assert r.exit_code == 0
    assert [(x["archetype"], x["action"]) for x in json.loads(r.stdout)] == [("sage", "no_data")]

    with hist.open("a") as f:
        f.write("not json\n")
    n = text.count("\n") + 1
    for args in expected:
        r = run_cli(*args, "--history", "h.jsonl")
        assert (r.exit_code, r.stdout, r.stderr) == (
            3,
            "",
            "error: no line of the history h.jsonl could be read:\n"
            f"  h.jsonl:{n}: not JSON: Expecting value: line 1 column 1 (char 0)\n",
        ), args


def test_history_check_still_lists_the_lines_and_exits_1(run_cli: Any, tmp_path: Path) -> None:
    # A checker: listing the bad lines is its output, not a failure to read.
    (tmp_path / "h.jsonl").write_text(BAD)
    r = run_cli("history", "check", "h.jsonl")
    assert (r.exit_code, r.stdout) == (1, "")
    assert r.stderr.splitlines() == [x[2:] for x in LISTED] + [
        "h.jsonl: 6 line(s), 0 usable (none); 5 bad, 0 duplicate"
    ]
    assert run_cli("report", "--history", "h.jsonl").exit_code == 3


def test_a_query_that_reads_no_history_view_is_answered(
    run_cli: Any, tmp_path: Path, fixtures: Path
) -> None:
    # Only a query of the history's views reads the history: one of nothing, of the
    # catalog or of the event views alone is answered, the skipped lines said (exit 1).
    (tmp_path / "h.jsonl").write_text(BAD)
    events = str(fixtures / "effectiveness" / "archeflow-fixture" / "events.jsonl")
    listed = "".join(x[2:] + "\n" for x in LISTED)
    for query in (
        "SELECT 1 AS one",
        "SELECT count(*) AS one FROM information_schema.tables WHERE table_name = 'history'",
    ):
        r = run_cli("sql", query, "--history", "h.jsonl", "--format", "csv")
        assert (r.exit_code, r.stdout, r.stderr) == (1, "one\n1\n", listed), query
    r = run_cli(
        "sql", "SELECT count(DISTINCT run_id) AS runs FROM events",
        "--events", events, "--history", "h.jsonl", "--format", "csv",
    )  # fmt: skip
    assert (r.exit_code, r.stdout, r.stderr) == (1, "runs\n1\n", listed)
    r = run_cli(
        "sql", "SELECT count(*) FROM events JOIN history USING (run_id)",
        "--events", events, "--history", "h.jsonl",
    )  # fmt: skip
    assert (r.exit_code, r.stdout, r.stderr) == (3, "", ERROR)
    # export with --events has the events to write: the history's lines are listed
    r = run_cli("export", "--to", "x.parquet", "--events", events, "--history", "h.jsonl")
    # as they were read, before what was then written
    assert r.exit_code == 1 and r.stderr.startswith(listed)
    assert r.stderr[len(listed) :].startswith("exported history: 0 rows, ")


def test_the_cached_read_says_what_the_uncached_one_does(
    run_cli: Any, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    hist = tmp_path / "h.jsonl"
    hist.write_text(BAD + "\n")  # a torn last line is never cached: closed here
    torn = "torn last line (no newline at the end; a writer was interrupted or is still writing): "
    listed = ERROR.replace(torn, "")
    monkeypatch.setenv("RUNSCORE_HISTORY_CACHE", "off")
    off = run_cli("report", "--history", "h.jsonl")
    assert (off.exit_code, off.stdout, off.stderr) == (3, "", listed)
    assert not Path(ec.cache_path(str(hist))).exists()

    monkeypatch.setenv("RUNSCORE_HISTORY_CACHE", "on")
    monkeypatch.setenv("RUNSCORE_HISTORY_CACHE_MIN_LINES", "1")
    cold = run_cli("report", "--history", "h.jsonl")  # writes the cache
    assert Path(ec.cache_path(str(hist))).is_file()
    con = eh.connect()
    assert eh.load_history(con, hist).reader == "cache"
    con.close()
    warm = run_cli("report", "--history", "h.jsonl")
    assert [(r.exit_code, r.stdout, r.stderr) for r in (cold, warm)] == [(3, "", listed)] * 2

    with hist.open("a") as f:  # a bad line after the cached ones: still nothing read
        f.write("[1]\n")
    monkeypatch.setenv("RUNSCORE_HISTORY_CACHE_MIN_LINES", "100")  # the cache is not rewritten
    con = eh.connect()
    assert eh.load_history(con, hist).reader == "cache+careful"
    con.close()
    tail = run_cli("report", "--history", "h.jsonl")
    assert (tail.exit_code, tail.stdout) == (3, "")
    assert tail.stderr == listed + "  h.jsonl:7: not a JSON object (an array)\n"

    with hist.open("a") as f:  # one good line: the rest is processed
        f.write(json.dumps(GOOD) + "\n")
    r = run_cli("report", "--format", "json", "--history", "h.jsonl")
    assert r.exit_code == 1 and [x["runs"] for x in json.loads(r.stdout)] == [1]


SAMPLE_LOG = (
    Path(__file__).resolve().parents[2] / "examples/project/.archeflow/events/run-2026-11-01.jsonl"
)


@pytest.mark.parametrize(
    ("content", "reason"),
    [("", "empty (no events)"), ("\n \n", "only blank lines (no events)")],
)
def test_sql_events_that_hold_no_line_are_said_as_extract_says_them(
    run_cli: Any, tmp_path: Path, content: str, reason: str
) -> None:
    # `sql --events empty.jsonl` answered a query of the event views with no rows, exit 0,
    # and said nothing on stderr (extract: "nothing could be read: FILE: empty (no
    # events)", exit 3); beside other logs, or to a query of no event view, the file was
    # not said either.
    (tmp_path / "e.jsonl").write_text(content)
    (tmp_path / "log.jsonl").write_bytes(SAMPLE_LOG.read_bytes())
    query = "SELECT count(*) AS n FROM events"
    for args, stdin in [(["--events", "e.jsonl"], None), (["--events", "-"], content)]:
        r = run_cli("sql", query, "--history", "none.jsonl", *args, input=stdin)
        where = "<stdin>" if stdin is not None else "e.jsonl"
        assert (r.exit_code, r.stdout) == (3, "")
        assert r.stderr == f"error: nothing could be read:\n  {where}: {reason}\n"
    r = run_cli("sql", "SELECT 1 AS x", "--history", "none.jsonl", "--events", "e.jsonl")
    assert (r.exit_code, r.stdout) == (0, "x\n-\n1\n")
    assert r.stderr == f"no history at none.jsonl: its views are empty\ne.jsonl: {reason}\n"
    r = run_cli(
        "sql", query, "--history", "none.jsonl", "--events", "log.jsonl", "--events", "e.jsonl"
    )
    assert (r.exit_code, r.stdout) == (0, " n\n--\n31\n")
    assert r.stderr == f"no history at none.jsonl: its views are empty\ne.jsonl: {reason}\n"


#: What `sql` and `export` say of an empty log and a log of no event (_empty_and_bad_logs).
NOTHING_READ_FROM_EMPTY_AND_BAD = [
    "error: nothing could be read:",
    "  e.jsonl: empty (no events)",
    "  bad.jsonl:1: not JSON: Expecting value: line 1 column 1 (char 0)",
    "  bad.jsonl:2: missing type",
]


def _empty_and_bad_logs(folder: Path) -> None:
    """An empty log, one whose lines are not JSON or no event, and a folder of no log."""
    (folder / "bad.jsonl").write_text('not json\n{"run_id": "r"}\n')
    (folder / "e.jsonl").write_text("")
    (folder / "logs").mkdir()


def test_sql_events_of_which_no_line_is_an_event_is_nothing_read(
    run_cli: Any, tmp_path: Path
) -> None:
    # Every line rejected: the event views answered with no rows (exit 1), where extract
    # says nothing could be read (exit 3); a folder of no log answered silently (exit 0).
    _empty_and_bad_logs(tmp_path)
    query = "SELECT count(*) AS n FROM verdicts"
    r = run_cli(
        "sql", query, "--history", "none.jsonl", "--events", "e.jsonl", "--events", "bad.jsonl"
    )
    assert (r.exit_code, r.stdout) == (3, "")
    assert r.stderr.splitlines() == NOTHING_READ_FROM_EMPTY_AND_BAD
    r = run_cli("sql", query, "--history", "none.jsonl", "--events", "logs")
    assert (r.exit_code, r.stdout, r.stderr.splitlines()) == (3, "", ["error: no input files"])


def test_sql_events_folder_of_no_log_is_said_to_a_query_of_no_event_view(
    run_cli: Any, tmp_path: Path
) -> None:
    # A query that names no event view over a folder of no log was answered without a
    # word (exit 0): said as `extract` says it, the exit code the query's.
    (tmp_path / "logs").mkdir()
    (tmp_path / "more logs").mkdir()
    args = ("sql", "SELECT 1 AS a", "--history", "none.jsonl")
    r = run_cli(*args, "--events", "logs")
    assert (r.exit_code, r.stdout, r.stderr.splitlines()) == (
        0,
        "a\n-\n1\n",
        [
            "no history at none.jsonl: its views are empty",
            "logs: no input files: the event views are empty",
        ],
    )
    r = run_cli(*args, "--events", "logs", "--events", "more logs")
    assert (r.exit_code, r.stderr.splitlines()[-2:]) == (
        0,
        [
            "logs: no input files: the event views are empty",
            "more logs: no input files: the event views are empty",
        ],
    )
    # A file that does not exist is rejected input, as among extract's inputs (exit 1).
    r = run_cli(*args, "--events", "gone.jsonl")
    assert (r.exit_code, r.stdout, r.stderr.splitlines()) == (
        1,
        "a\n-\n1\n",
        ["gone.jsonl: no such file or directory", "no history at none.jsonl: its views are empty"],
    )


@pytest.mark.parametrize("target", ["x.parquet", "x.duckdb"])
def test_export_events_of_which_no_line_is_an_event_is_nothing_read(
    run_cli: Any, tmp_path: Path, target: str
) -> None:
    # `export --events` asks for the event tables: with no event in its input it wrote the
    # history and empty event tables, exit 0, where `sql` over the event views exits 3.
    # Now exit 3 with nothing written: an earlier export at --to (and the event files
    # beside it) stays as it was, not replaced or removed.
    (tmp_path / "h.jsonl").write_text(json.dumps(GOOD) + "\n")
    _empty_and_bad_logs(tmp_path)
    old = {target: "old export\n", "x.events.parquet": "old events\n"}
    for name, text in old.items():
        (tmp_path / name).write_text(text)
    before = sorted(p.name for p in tmp_path.iterdir())
    export = ("export", "--to", target, "--history", "h.jsonl")
    r = run_cli(*export, "--events", "e.jsonl", "--events", "bad.jsonl")
    assert (r.exit_code, r.stdout) == (3, "")
    assert r.stderr.splitlines() == NOTHING_READ_FROM_EMPTY_AND_BAD
    r = run_cli(*export, "--events", "-", input="")
    assert (r.exit_code, r.stdout, r.stderr) == (
        3,
        "",
        "error: nothing could be read:\n  <stdin>: empty (no events)\n",
    )
    r = run_cli(*export, "--events", "logs")
    assert (r.exit_code, r.stdout, r.stderr) == (3, "", "error: no input files\n")
    assert sorted(p.name for p in tmp_path.iterdir()) == before
    assert {n: (tmp_path / n).read_text() for n in old} == old
    # An empty file beside a log of events is said, and the rest exported (exit 0).
    (tmp_path / "log.jsonl").write_bytes(SAMPLE_LOG.read_bytes())
    r = run_cli(*export, "--events", "log.jsonl", "--events", "e.jsonl")
    assert (r.exit_code, r.stderr.splitlines()[-2]) == (0, "e.jsonl: empty (no events)")
    assert r.stderr.splitlines()[-1].startswith("exported history: 1 row, ")
