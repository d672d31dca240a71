"""Pipeline history: append-only, idempotent, locked; `--report` trends; typed views."""

from __future__ import annotations

import contextlib
import json
import os
import threading
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import duckdb
import pytest
from runscore.engine import history
from runscore.engine.packs import pipeline as engine

HIST = Path(".archeflow/memory/pipelines.jsonl")
DATE = "2026-03-07"


@pytest.fixture
def example(copy_fixture: Callable[[str], Path]) -> Path:
    return copy_fixture("pipeline")


def _score(run_cli: Any, *extra: str, date: str = DATE) -> Any:
    return run_cli(
        "pipeline",
        "in/pipeline/tasks.jsonl",
        "--plans",
        "in/pipeline/plans.jsonl",
        "--date",
        date,
        "--out",
        "out",
        *extra,
    )


def _records(path: Path = HIST) -> list[dict[str, Any]]:
    return [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines()]


def test_records_written_once_in_field_order(run_cli: Any, example: Path) -> None:
    res = _score(run_cli)
    assert "history .archeflow/memory/pipelines.jsonl: 4 new record(s)" in res.stderr
    recs = _records()
    assert [r["pipeline_id"] for r in recs] == [
        "p-blocked-then-completed",
        "p-composite-exactly-75",
        "p-composite-exactly-90",
        "p-excellent",
    ]  # p-blocked is not terminal: no score, no record
    assert all(list(r) == list(engine.HISTORY_FIELDS) for r in recs)
    assert {r["scoring_version"] for r in recs} == {"pipeline/v1"}
    ex = recs[3]
    assert (ex["verdict"], ex["composite_score"], ex["eval_date"]) == ("EXCELLENT", 100.0, DATE)
    assert (ex["started_at"], ex["finished_at"]) == ("2026-02-02T09:00:00Z", "2026-02-02T14:00:00Z")
    assert recs[1]["recommendations"] == ["D5", "D1", "D3"]
    before = HIST.read_bytes()
    # Same inputs, another day: nothing new.
    again = _score(run_cli, date="2026-04-01")
    assert "0 new record(s), 4 already recorded" in again.stderr
    assert HIST.read_bytes() == before


def test_changed_inputs_append_and_latest_wins(run_cli: Any, example: Path) -> None:
    _score(run_cli)
    tasks = example / "tasks.jsonl"
    lines = tasks.read_text().splitlines()
    first = json.loads(lines[0])
    first["metadata"]["deviations"] = ["d"] * 6  # p-excellent: D2 → 40, composite 88
    first["updatedAt"] = "2026-02-02T15:00:00Z"
    tasks.write_text("\n".join([*lines, json.dumps(first)]) + "\n")
    res = _score(run_cli)
    assert "1 new record(s), 3 already recorded" in res.stderr
    recs = _records()
    assert [r["pipeline_id"] for r in recs][-1] == "p-excellent"
    assert recs[-1]["composite_score"] == pytest.approx(88.0)
    assert recs[-1]["verdict"] == "GOOD"
    rep = run_cli("pipeline", "--report", "--format", "json")
    assert rep.exit_code == 0, rep.stderr
    total = [r for r in json.loads(rep.stdout) if r["is_total"]][0]
    # the current record per pipeline: p-excellent is now GOOD
    assert (total["pipelines"], total["excellent"], total["good"]) == (4, 0, 3)


def test_report_counts_and_averages(run_cli: Any, example: Path) -> None:
    _score(run_cli)
    res = run_cli("pipeline", "--report", "--format", "json")
    assert res.exit_code == 0, res.stderr
    rows = json.loads(res.stdout)
    # Periods follow when each pipeline finished: three in February, one in March.
    feb, mar, total = rows
    assert (feb["period_start"], feb["pipelines"]) == ("2026-02-01", 3)
    assert (feb["excellent"], feb["good"], feb["acceptable"], feb["needs_improvement"]) == (
        1,
        1,
        1,
        0,
    )
    assert feb["avg_composite"] == pytest.approx((100 + 90 + 75) / 3)
    assert feb["avg_task_completion"] == pytest.approx((100 + 100 + 70) / 3)
    assert feb["avg_test_pass_rate"] == pytest.approx((100 + 96 + 72) / 3)
    assert (mar["period_start"], mar["pipelines"], mar["good"]) == ("2026-03-01", 1, 1)
    assert mar["verified_share"] == 0.0
    assert total["is_total"] and total["period_start"] is None
    assert total["avg_composite"] == pytest.approx((100 + 90 + 75 + 78.5) / 4)
    assert total["avg_quality"] == pytest.approx((100 + 60 + 60 + 60) / 4)
    md = run_cli("pipeline", "--report")
    assert (
        "| 2026-02-01 | 3 | 1 | 1 | 1 | 0 | 100.00 | 90.00 | 100.00 | 89.33 | 80.00 | 73.33 | 88.33 |"
        in md.stdout
    )
    assert "| **All** | **4** |" in md.stdout
    week = json.loads(
        run_cli("pipeline", "--report", "--period", "week", "--format", "json").stdout
    )
    assert [r["period_start"] for r in week] == ["2026-02-02", "2026-02-23", None]


def test_no_history_and_custom_path(run_cli: Any, example: Path) -> None:
    _score(run_cli, "--no-history")
    assert not HIST.exists()
    _score(run_cli, "--history", "h/p.jsonl")
    assert len(_records(Path("h/p.jsonl"))) == 4
    assert run_cli("pipeline", "--report").exit_code == 3  # default history absent
    assert run_cli("pipeline", "--report", "--history", "h/p.jsonl").exit_code == 0


def test_torn_and_bad_history_lines(run_cli: Any, example: Path) -> None:
    _score(run_cli)
    with HIST.open("a", encoding="utf-8") as f:
        f.write('{"pipeline_id": "x", "scoring_version": "pipeline/v1"}\n{"ts": "2026-')
    # A torn last line is closed off before the next append, never glued to it.
    tasks = example / "tasks.jsonl"
    tasks.write_text(tasks.read_text().replace("did a0", "did a0 again"))
    _score(run_cli)
    lines = HIST.read_text().splitlines()
    assert lines[-2] == '{"ts": "2026-'
    assert json.loads(lines[-1])["pipeline_id"] == "p-excellent"
    rep = run_cli("pipeline", "--report", "--format", "json")
    assert rep.exit_code == 1
    assert ".archeflow/memory/pipelines.jsonl:5: history line has no parsable ts" in rep.stderr
    assert ".archeflow/memory/pipelines.jsonl:6: not JSON" in rep.stderr
    total = [r for r in json.loads(rep.stdout) if r["is_total"]][0]
    assert total["pipelines"] == 4


def test_a_history_line_that_gives_a_field_twice_is_skipped_not_taken(
    run_cli: Any, example: Path
) -> None:
    # The history's readers took the first of the two values (DuckDB's), where Python and
    # JavaScript take the last: which was meant cannot be known. The report, the sql
    # views and the idempotency check read such a line now as a line that is not JSON:
    # skipped (listed by the report), and its record, not taken as there, written again.
    _score(run_cli)
    lines = HIST.read_text(encoding="utf-8").splitlines()
    assert [json.loads(x)["pipeline_id"] for x in lines[2:]] == [
        "p-composite-exactly-90",
        "p-excellent",
    ]
    lines[2] = lines[2][:-1] + ',"pipeline_id":"p-other"}'
    lines[3] = lines[3][:-1] + ',"verdict":"NEEDS_IMPROVEMENT"}'
    HIST.write_text("".join(x + "\n" for x in lines), encoding="utf-8")
    skipped = (
        ".archeflow/memory/pipelines.jsonl:3: duplicate key pipeline_id\n"
        ".archeflow/memory/pipelines.jsonl:4: duplicate key verdict\n"
    )

    rep = run_cli("pipeline", "--report", "--format", "json")
    assert (rep.exit_code, rep.stderr) == (1, skipped)
    total = [r for r in json.loads(rep.stdout) if r["is_total"]][0]
    assert (total["pipelines"], total["excellent"], total["needs_improvement"]) == (2, 0, 0)
    tables, errors = engine.history_tables(str(HIST))
    assert [(d.line, d.reason) for d in errors] == [
        (3, "duplicate key pipeline_id"),
        (4, "duplicate key verdict"),
    ]
    assert [r["history_line"] for r in tables["pipeline_history"].to_pylist()] == [1, 2]

    res = _score(run_cli)  # the two records, not held by a line a reader takes, again
    assert "history .archeflow/memory/pipelines.jsonl: 2 new record(s), 2 already recorded" in (
        res.stderr
    )
    assert HIST.read_text(encoding="utf-8").splitlines()[:4] == lines  # nothing rewritten
    assert [r["pipeline_id"] for r in _records()[4:]] == [
        "p-composite-exactly-90",
        "p-excellent",
    ]
    rep = run_cli("pipeline", "--report", "--format", "json")
    assert (rep.exit_code, rep.stderr) == (1, skipped)
    total = [r for r in json.loads(rep.stdout) if r["is_total"]][0]
    assert (total["pipelines"], total["excellent"], total["needs_improvement"]) == (4, 1, 0)


def test_the_idempotency_check_says_which_history_lines_it_skipped(
    run_cli: Any, example: Path
) -> None:
    # It skipped them unsaid: a record such a line held was appended again, and why was
    # told nowhere. As `plugin score` says them: a warning each, the exit code unchanged
    # (the history is not the command's input: its own exit is the inputs').
    first = _score(run_cli)
    lines = HIST.read_text(encoding="utf-8").splitlines()
    lines[2] = lines[2][:-1] + ',"pipeline_id":"p-other"}'
    lines[3] = "{not json"
    HIST.write_text("".join(x + "\n" for x in lines), encoding="utf-8")
    res = _score(run_cli)
    assert res.exit_code == first.exit_code
    assert res.stderr.splitlines()[:-3] == first.stderr.splitlines()[:-1]
    assert res.stderr.splitlines()[-3:] == [
        "warning: .archeflow/memory/pipelines.jsonl:3: history line skipped: "
        "duplicate key pipeline_id",
        "warning: .archeflow/memory/pipelines.jsonl:4: history line skipped: not JSON: "
        "Expecting property name enclosed in double quotes: line 1 column 2 (char 1)",
        "history .archeflow/memory/pipelines.jsonl: 2 new record(s), 2 already recorded",
    ]
    appended = HIST.read_text(encoding="utf-8").splitlines()[4:]
    assert [json.loads(x)["pipeline_id"] for x in appended] == [
        "p-composite-exactly-90",
        "p-excellent",
    ]


def test_sql_says_which_pipeline_history_lines_its_views_leave_out(
    run_cli: Any, example: Path
) -> None:
    # `sql --pipelines` threw the list away: the views were short of the lines, unsaid,
    # exit 0. Said now as `sql --history` says its own: file:line: reason, exit 1.
    _score(run_cli)
    lines = HIST.read_text(encoding="utf-8").splitlines()
    lines[1] = lines[1][:-1] + ',"verdict":"EXCELLENT"}'
    lines[2] = json.dumps({**json.loads(lines[2]), "verdict": "GREAT"})
    HIST.write_text("".join(x + "\n" for x in lines), encoding="utf-8")
    res = run_cli(
        "sql",
        "SELECT pipeline_id FROM pipeline_history ORDER BY history_line",
        "--pipelines",
        str(HIST),
        "--format",
        "csv",
    )
    assert (res.exit_code, res.stdout, res.stderr) == (
        1,
        "pipeline_id\np-blocked-then-completed\np-excellent\n",
        ".archeflow/memory/pipelines.jsonl:2: duplicate key verdict\n"
        ".archeflow/memory/pipelines.jsonl:3: history line has no known verdict\n"
        "no history at .archeflow/memory/effectiveness.jsonl: its views are empty\n",
    )


def test_symlinked_history_is_refused(run_cli: Any, example: Path, tmp_path: Path) -> None:
    target = tmp_path / "elsewhere.jsonl"
    target.write_text("")
    HIST.parent.mkdir(parents=True)
    os.symlink(target, HIST)
    res = _score(run_cli)
    assert res.exit_code == 2
    assert "symlink" in res.stderr
    assert target.read_text() == ""


def _cr_lines(p: Path) -> None:
    p.write_bytes(b'{"a": 1}\r{"b": 2}\r')


def _gzip(p: Path) -> None:
    p.write_bytes(b"\x1f\x8b\x08\x00" + bytes(12))


def _symlink(p: Path) -> None:
    (p.parent / "elsewhere.jsonl").write_text("")
    os.symlink("elsewhere.jsonl", p)


@pytest.mark.parametrize(
    ("change", "why"),
    [
        (
            _cr_lines,
            "lines end in CR only (old Mac line ends): runscore reads JSONL, whose lines end "
            "in LF (convert it first, e.g. tr '\\r' '\\n')",
        ),
        (
            _gzip,
            "gzip-compressed: runscore appends only to a plain JSONL history (decompress it first)",
        ),
        (_symlink, "refusing to write through a symlink"),
    ],
    ids=["cr", "gzip", "symlink"],
)
def test_a_history_changed_before_the_lock_is_refused_before_any_report_is_written(
    run_cli: Any,
    example: Path,
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    change: Callable[[Path], None],
    why: str,
) -> None:
    # Checked before scoring, the history became one that cannot be appended to while the
    # command waited for its lock (made so here as the lock is taken). The reports were
    # written first thing under the lock, then the history refused (exit 2): a refused
    # command left its reports in --out.
    real = history.locked

    @contextlib.contextmanager
    def changed_then_locked(path: str, **kw: Any) -> Iterator[None]:
        change(Path(path))
        with real(path, **kw):
            yield

    monkeypatch.setattr(history, "locked", changed_then_locked)
    res = _score(run_cli, "--history", "h.jsonl")
    assert (res.exit_code, res.stdout) == (2, "")
    assert res.stderr.splitlines() == [
        "in/pipeline/tasks.jsonl:22: no task id (id or taskId)",
        'pipeline "p-blocked": not terminal ("bl1"); not scored',
        f"error: h.jsonl: {why} (see 'cli pipeline --help')",
    ]
    assert not (tmp_path / "out").exists()


def test_concurrent_appends_do_not_duplicate(tmp_path: Path, h: Any) -> None:
    t = h.write_jsonl(
        tmp_path / "t.jsonl", [r for i in range(5) for r in h.pipeline_tasks(f"p{i}", 1)]
    )
    result = engine.evaluate_pipelines([str(t)], eval_date=h.EVAL_DATE)
    path = str(tmp_path / "hist.jsonl")
    outcomes: list[engine.HistoryOutcome] = []
    threads = [
        threading.Thread(target=lambda: outcomes.append(engine.append_history(result, path)))
        for _ in range(4)
    ]
    for th in threads:
        th.start()
    for th in threads:
        th.join()
    lines = Path(path).read_text().splitlines()
    assert len(lines) == 5
    assert sorted(o.written for o in outcomes) == [0, 0, 0, 5]


def test_history_tables_for_sql(run_cli: Any, example: Path) -> None:
    _score(run_cli)
    tables, errors = engine.history_tables(str(HIST))
    assert errors == []
    assert set(tables) == set(engine.HISTORY_VIEWS)
    cur = tables["pipeline_history_current"].to_pylist()
    assert [r["pipeline_id"] for r in cur] == [
        "p-blocked-then-completed",
        "p-composite-exactly-75",
        "p-composite-exactly-90",
        "p-excellent",
    ]
    assert cur[1]["recommendations"] == ["D5", "D1", "D3"]
    assert cur[0]["history_line"] == 1
    assert tables["pipeline_history"].column_names[: len(engine.HISTORY_FIELDS)] == list(
        engine.HISTORY_FIELDS
    )


def test_history_that_is_a_directory_is_refused(
    run_cli: Any, example: Path, tmp_path: Path
) -> None:
    # Scoring: exit 3 ("nothing could be read") with a lock file made beside the folder;
    # --report: every *.jsonl below the folder was read as the history (exit 0).
    assert _score(run_cli, "--history", "hdir/sub/p.jsonl").exit_code == 1
    res = _score(run_cli, "--history", "hdir")
    assert res.exit_code == 2
    assert "error: hdir: the history is not a regular file" in res.stderr
    assert not (tmp_path / "hdir.lock").exists()
    rep = run_cli("pipeline", "--report", "--history", "hdir")
    assert rep.exit_code == 2
    assert "error: hdir: the history must be a file, not a directory" in rep.stderr
    assert rep.stdout == ""


def test_report_markdown_matches_golden_and_escapes_the_path(run_cli: Any, example: Path) -> None:
    # The history path is user text: "_h_" rendered as emphasis, "~~" as strike-through.
    hist = "_h_/p~~1~~.jsonl"
    assert _score(run_cli, "--history", hist).exit_code == 1  # tasks.jsonl:22 is rejected
    res = run_cli("pipeline", "--report", "--history", hist)
    assert res.exit_code == 0, res.stderr
    golden = Path(__file__).resolve().parent / "golden_markdown" / "trend.md"
    assert res.stdout == golden.read_text(encoding="utf-8")
    assert "From \\_h\\_/p\\~\\~1\\~\\~.jsonl: 4 pipelines" in res.stdout


def test_the_report_says_which_pipelines_it_placed_by_evaluation_date(
    run_cli: Any, example: Path
) -> None:
    # A pipeline whose tasks give no completedAt or updatedAt has no finish time: the report
    # counted it in its evaluation date's period while saying "Periods follow when a
    # pipeline finished", and its JSON rows did not tell it from the others.
    undated = [
        {"pipelineId": "p-undated", "id": "t1", "status": "completed"},
        {"pipelineId": "p-undated", "id": "t2", "status": "completed"},
    ]
    Path("in/pipeline/undated.jsonl").write_text("".join(json.dumps(t) + "\n" for t in undated))
    assert _score(run_cli, "in/pipeline/undated.jsonl", date="2026-04-05").exit_code == 1
    assert _records()[-1]["pipeline_id"] == "p-undated"
    assert _records()[-1]["finished_at"] is None
    rep = run_cli("pipeline", "--report", "--format", "json")
    assert rep.exit_code == 0, rep.stderr
    rows = json.loads(rep.stdout)
    assert [(r["period_start"], r["pipelines"], r["finish_unknown"]) for r in rows] == [
        ("2026-02-01", 3, 0),
        ("2026-03-01", 1, 0),
        ("2026-04-01", 1, 1),
        (None, 5, 1),
    ]
    md = run_cli("pipeline", "--report").stdout.splitlines()
    assert md[2] == (
        "From .archeflow/memory/pipelines.jsonl: 5 pipelines (the current record of each). "
        "Periods follow when a pipeline finished; one whose finish time is unknown is counted "
        "in the period of its evaluation date (finish unknown: 1 in 2026-04-01)."
    )
    # The rows the trend counts say it of each pipeline.
    rep_api = engine.history_report(str(HIST))
    assert [
        (r["pipeline_id"], r["finish_unknown"])
        for r in rep_api.pipelines.to_pylist()
        if r["finish_unknown"]
    ] == [("p-undated", True)]


def test_a_record_whose_history_line_the_report_skips_is_written_again(
    run_cli: Any, example: Path
) -> None:
    # The idempotency check read three key fields of any line, while the report skips a
    # line with no parsable ts or an unknown verdict: such a pipeline was "already
    # recorded" and missing from every report. It now reads the lines as the report does.
    first = _score(run_cli)
    lines = HIST.read_text(encoding="utf-8").splitlines()
    three, four = json.loads(lines[2]), json.loads(lines[3])
    three["ts"] = "yesterday"
    four["verdict"] = "SPLENDID"
    lines[2], lines[3] = json.dumps(three), json.dumps(four)
    HIST.write_text("".join(x + "\n" for x in lines), encoding="utf-8")
    res = _score(run_cli)
    assert res.exit_code == first.exit_code
    assert res.stderr.splitlines()[-3:] == [
        "warning: .archeflow/memory/pipelines.jsonl:3: history line skipped: no parsable ts",
        "warning: .archeflow/memory/pipelines.jsonl:4: history line skipped: no known verdict",
        "history .archeflow/memory/pipelines.jsonl: 2 new record(s), 2 already recorded",
    ]
    after = HIST.read_text(encoding="utf-8").splitlines()
    assert after[:4] == lines  # nothing rewritten
    assert [json.loads(x)["pipeline_id"] for x in after[4:]] == [
        "p-composite-exactly-90",
        "p-excellent",
    ]
    rep = run_cli("pipeline", "--report", "--format", "json")
    total = [r for r in json.loads(rep.stdout) if r["is_total"]][0]
    assert total["pipelines"] == 4
    # A third run finds every record in a line the report reads: nothing new.
    again = _score(run_cli)
    assert again.stderr.splitlines()[-1] == (
        "history .archeflow/memory/pipelines.jsonl: 0 new record(s), 4 already recorded"
    )


def test_a_report_of_no_records_is_a_markdown_document_too(
    run_cli: Any, example: Path, tmp_path: Path
) -> None:
    # `--report` in markdown wrote nothing on stdout (exit 0) of a history with no record
    # of its scoring version, where JSON wrote `[]` and CSV its header: an empty stdout is
    # what "nothing could be read" (exit 3) looks like. It is a report saying so.
    hist = tmp_path / "p.jsonl"
    hist.write_text("")
    note = "p.jsonl: no pipeline/v1 pipeline records\n"
    r = run_cli("pipeline", "--report", "--history", "p.jsonl")
    assert (r.exit_code, r.stdout, r.stderr) == (
        0,
        "# Pipeline trends (pipeline/v1, per month)\n\n"
        "From p.jsonl: no pipeline/v1 pipeline records.\n",
        note,
    )
    # a history holding records of another scoring version only: the same report
    assert _score(run_cli, "--history", "h.jsonl").exit_code == 1
    lines = (tmp_path / "h.jsonl").read_text(encoding="utf-8").splitlines()
    hist.write_text(
        "".join(
            json.dumps({**json.loads(x), "scoring_version": "pipeline/v0"}) + "\n" for x in lines
        )
    )
    r = run_cli("pipeline", "--report", "--history", "p.jsonl", "--period", "week")
    assert (r.exit_code, r.stdout, r.stderr) == (
        0,
        "# Pipeline trends (pipeline/v1, per week)\n\n"
        "From p.jsonl: no pipeline/v1 pipeline records.\n",
        note,
    )


@pytest.mark.parametrize(
    ("change", "why"),
    [
        (
            _cr_lines,
            "lines end in CR only (old Mac line ends): runscore reads JSONL, whose lines end "
            "in LF (convert it first, e.g. tr '\\r' '\\n')",
        ),
        (_gzip, "gzip-compressed: runscore reads plain JSONL (decompress it first)"),
    ],
    ids=["cr", "gzip"],
)
def test_an_unreadable_history_is_nothing_read_with_its_problems(
    tmp_path: Path, change: Callable[[Path], None], why: str
) -> None:
    # A history that could not be read at all raised NothingReadable with no `problems`
    # (every other such error lists them there, and the nightly job's run log takes each
    # input's problem from there, not from the text): its one problem is now in both.
    hist = tmp_path / "p.jsonl"
    change(hist)
    for call in (engine.history_report, engine.history_tables):
        with pytest.raises(engine.NothingReadable) as e:
            call(str(hist))
        assert str(e.value) == f"the pipeline history could not be read:\n  {hist}: {why}"
        assert e.value.problems == [(str(hist), 0, why)], call


def test_a_history_whose_every_line_is_skipped_is_nothing_read(
    run_cli: Any, tmp_path: Path
) -> None:
    # `--report` wrote `[]` (a header-only CSV) of it and exited 1, where input whose every
    # line is rejected is exit 3 with nothing on stdout (README, exit codes). An empty
    # history is still a report of no records.
    hist = tmp_path / "p.jsonl"
    hist.write_text("")
    r = run_cli("pipeline", "--report", "--history", "p.jsonl", "--format", "json")
    assert (r.exit_code, r.stdout, r.stderr) == (
        0,
        "[]\n",
        "p.jsonl: no pipeline/v1 pipeline records\n",
    )
    hist.write_text('\n{"pipeline_id": "x", "scoring_version": "pipeline/v1"}\n{"ts": 1')
    error = (
        "error: no line of the pipeline history p.jsonl could be read:\n"
        "  p.jsonl:2: history line has no parsable ts\n"
        "  p.jsonl:3: torn last line (no newline at the end; a writer was interrupted or is "
        "still writing): not JSON: Expecting ',' delimiter: line 1 column 9 (char 8)\n"
    )
    for fmt in ("markdown", "json", "csv"):
        r = run_cli("pipeline", "--report", "--history", "p.jsonl", "--format", fmt)
        assert (r.exit_code, r.stdout, r.stderr) == (3, "", error), fmt
    # `sql`: a query of its views reads nothing; one of the other views is answered
    r = run_cli(
        "sql", "SELECT count(*) AS n FROM pipeline_history_current", "--pipelines", "p.jsonl"
    )
    assert (r.exit_code, r.stdout, r.stderr) == (3, "", error)
    r = run_cli(
        "sql", "SELECT count(*) AS n FROM history", "--pipelines", "p.jsonl", "--format", "csv"
    )
    assert (r.exit_code, r.stdout) == (1, "n\n0\n")
    assert r.stderr == (  # in line order (the reader's lines came before the others')
        "p.jsonl:2: history line has no parsable ts\n"
        "p.jsonl:3: torn last line (no newline at the end; a writer was interrupted or is "
        "still writing): not JSON: Expecting ',' delimiter: line 1 column 9 (char 8)\n"
        "no history at .archeflow/memory/effectiveness.jsonl: its views are empty\n"
    )


def test_history_times_are_read_in_every_iso_8601_form_a_task_s_are(run_cli: Any) -> None:
    # 200 read a history line's ts and finished_at with DuckDB's cast alone: a line another
    # tool wrote with a week or ordinal date, the basic format, a decimal comma or a
    # lowercase t/z was skipped (`history line has no parsable ts`, exit 1), where the same
    # text in a task snapshot is read. It is read by the effectiveness history's rule now:
    # the plain cast first, then rs_iso_text (common/v1), years 1-9999.
    forms = {
        "week": ("2026-W06-1T10:00:00Z", "2026-W06-2T09:00:00Z", "2026-02-03"),
        "ordinal": ("2026-033T10:00:00Z", "2026-035T09:00:00Z", "2026-02-04"),
        "basic": ("20260202T100000Z", "20260205T090000Z", "2026-02-05"),
        "comma": ("2026-02-02T10:00:00,5Z", "2026-02-06T09:00:00,25Z", "2026-02-06"),
        "lower": ("2026-02-02t10:00:00z", "2026-02-07t09:00:00z", "2026-02-07"),
        "plain": ("2026-02-02T10:00:00Z", "2026-02-08T09:00:00Z", "2026-02-08"),
        # not times a record holds, which the plain cast took (the year 10000, 1970): skipped
        # now, as the effectiveness history skips them
        "far": ("10000-01-01T00:00:00Z", None, None),
        "epoch": ("epoch", None, None),
    }
    HIST.parent.mkdir(parents=True)
    HIST.write_text(
        "".join(
            json.dumps(
                {
                    "ts": ts,
                    "pipeline_id": pid,
                    "scoring_version": engine.SCORING_VERSION,
                    "eval_date": "2026-03-07",
                    "finished_at": fin,
                    "verdict": "GOOD",
                    "composite_score": 80.0,
                }
            )
            + "\n"
            for pid, (ts, fin, _) in forms.items()
        ),
        encoding="utf-8",
    )
    rep = run_cli("pipeline", "--report", "--period", "day", "--format", "json")
    assert rep.exit_code == 1
    assert rep.stderr.splitlines() == [
        ".archeflow/memory/pipelines.jsonl:7: history line has no parsable ts",
        ".archeflow/memory/pipelines.jsonl:8: history line has no parsable ts",
    ]
    days = [(r["period_start"], r["pipelines"]) for r in json.loads(rep.stdout)]
    assert days == [(day, 1) for _, _, day in list(forms.values())[:6]] + [(None, 6)]
    tables, _ = engine.history_tables(str(HIST))
    assert [
        (r["pipeline_id"], r["ts"].isoformat()) for r in tables["pipeline_history"].to_pylist()
    ] == [
        ("week", "2026-02-02T10:00:00+00:00"),
        ("ordinal", "2026-02-02T10:00:00+00:00"),
        ("basic", "2026-02-02T10:00:00+00:00"),
        ("comma", "2026-02-02T10:00:00.500000+00:00"),
        ("lower", "2026-02-02T10:00:00+00:00"),
        ("plain", "2026-02-02T10:00:00+00:00"),
    ]


def test_the_history_s_listings_are_in_natural_order(run_cli: Any, h: Any) -> None:
    """The evaluation listed pipeline ids naturally (p1, p2, p10), but the history's own
    listings sorted them as text: history_report's pipelines and the pipeline_history_current
    view (history_tables, `runscore sql`) put q10 before q2. Natural there too; the
    records are the ones written (the file keeps the append order)."""
    ids = ["q10", "p10", "q2", "p2", "p1"]
    natural = ["p1", "p2", "p10", "q2", "q10"]
    h.write_jsonl(Path("t.jsonl"), [h.task(pid, "t1") for pid in ids])
    res = run_cli("pipeline", "t.jsonl", "--date", DATE, "--out", "r")
    assert res.exit_code == 0, res.stderr
    before = HIST.read_bytes()
    assert [r["pipeline_id"] for r in _records()] == natural
    rep = engine.history_report(str(HIST))
    assert rep.pipelines.column("pipeline_id").to_pylist() == natural
    tables, errors = engine.history_tables(str(HIST))
    assert errors == []
    assert tables["pipeline_history_current"].column("pipeline_id").to_pylist() == natural
    assert tables["pipeline_history"].column("pipeline_id").to_pylist() == natural
    res = run_cli(
        "sql", "SELECT pipeline_id FROM pipeline_history_current", "--pipelines", str(HIST),
        "--format", "csv",
    )  # fmt: skip
    assert res.stdout.split()[1:] == natural, res.stderr
    assert HIST.read_bytes() == before


def test_history_report_lists_each_pipeline_in_pipeline_order_not_by_period(
    run_cli: Any, h: Any
) -> None:
    """history_report's pipelines were sorted by period first (every pipeline of January,
    then February ...): p10 finished in January came before p2 and p1, and a user looking
    for one pipeline had to know when it finished. They are listed as every other listing
    of pipelines is, by id in natural order (one row each, its current record)."""
    finished = {"p1": "2026-03-05", "p2": "2026-02-05", "p10": "2026-01-05", "q2": "2026-01-20"}
    h.write_jsonl(
        Path("t.jsonl"),
        [
            h.task(pid, "t1", created=f"{day}T09:00:00Z", updated=f"{day}T10:00:00Z")
            for pid, day in finished.items()
        ],
    )
    res = run_cli("pipeline", "t.jsonl", "--date", DATE, "--out", "r")
    assert res.exit_code == 0, res.stderr
    for period in engine.PERIODS:
        rep = engine.history_report(str(HIST), period=period)
        rows = rep.pipelines.to_pylist()
        assert [r["pipeline_id"] for r in rows] == ["p1", "p2", "p10", "q2"], period
        assert [r["period_ts"].date().isoformat() for r in rows] == [
            "2026-03-05",
            "2026-02-05",
            "2026-01-05",
            "2026-01-20",
        ]


def test_a_large_history_read_by_two_threads_keeps_the_documented_order(
    run_cli: Any, monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    """README promises one order of `runscore sql`'s views: `pipeline_history_current`,
    read alone (WHERE, LIMIT), in pipeline id order (natural). It must hold where DuckDB
    reads with several threads, on a history of 200,000 lines (100,000 pipelines, each
    recorded twice, its later line current), not only on the few lines of the other
    tests; so must `history_report`'s listing."""
    monkeypatch.setenv("RUNSCORE_THREADS", "2")
    n = 100_000
    big = tmp_path / "big.jsonl"
    # Line i (0-based) records pipeline p{i * 7919 mod n}: every id once in each half, in
    # an order neither natural nor text; the second half's lines are later, so current.
    with duckdb.connect() as con:
        con.execute(
            f"""COPY (
                SELECT strftime(TIMESTAMP '2026-01-01' + to_seconds(i), '%Y-%m-%dT%H:%M:%SZ')
                           AS ts,
                       'p' || (i * 7919 % {n}) AS pipeline_id,
                       'pipeline/v1' AS scoring_version,
                       strftime(DATE '2026-01-01' + (i * 31 % 300)::INTEGER,
                                '%Y-%m-%dT09:00:00Z') AS finished_at,
                       78.5 AS composite_score, 'GOOD' AS verdict
                FROM range({2 * n}) r(i) ORDER BY i
            ) TO '{big}' (FORMAT JSON)"""
        )
    natural = [f"p{k}" for k in range(n)]
    for where, keep in (("", natural), (" WHERE history_line % 3 = 0", None)):
        res = run_cli(
            "sql", f"SELECT pipeline_id, history_line FROM pipeline_history_current{where}",
            "--pipelines", str(big), "--history", "none.jsonl", "--format", "csv",
        )  # fmt: skip
        assert res.exit_code == 0, res.stderr
        rows = [line.split(",") for line in res.stdout.splitlines()[1:]]
        ids = [pid for pid, _ in rows]
        if keep is not None:
            assert ids == keep
        else:
            assert len(ids) > n // 4
            assert ids == sorted(ids, key=lambda s: int(s[1:]))
        assert all(int(line) > n for _, line in rows)
    rep = engine.history_report(str(big))
    assert rep.pipelines.column("pipeline_id").to_pylist() == natural


def test_every_listing_is_ordered_by_its_sql() -> None:
    # The result tables' and the history's listings (pipelines, dimensions,
    # recommendations, tasks, diagnostics, the trend, the history views' rows) were Python
    # query strings, their ORDER BY beside the orchestration: each is one SELECT of
    # sql/pipeline/v1 now (120-124, 230-234), its order there, as every formula is.
    import inspect
    import re

    from runscore.engine import sqlpack

    source = inspect.getsource(engine)
    names = re.findall(r'_(?:listing|diagnostics)\(con, "(\w+)"\)', source)
    assert sorted(names) == sorted(
        [
            "evaluation_issues",
            "evaluation_pipelines",
            "evaluation_dimensions",
            "evaluation_recommendations",
            "evaluation_tasks",
            "history_issues",
            "history_trend_rows",
            "history_pipelines",
            "history_view_rows",
            "history_current_rows",
        ]
    )
    con = duckdb.connect()
    for name in names:
        f = sqlpack.load(engine.PACK, engine.VERSION, name)
        (statement,) = con.extract_statements(f.text)
        assert statement.type == duckdb.StatementType.SELECT, f.ref
        # Its last clause, outside any parenthesis: the rows' order, not a window's.
        code = "\n".join(x for x in f.text.splitlines() if not x.startswith("--"))
        at = code.rfind("ORDER BY")
        assert at > 0 and code[:at].count("(") == code[:at].count(")"), f.ref
    for listed in (engine.evaluate_pipelines, engine.history_report, engine.history_tables):
        assert "ORDER BY" not in inspect.getsource(listed), listed.__name__
