"""Input handling per spec pipeline.md §1–§2: latest snapshot wins, statuses, ids, rejects."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from runscore.engine.errors import NothingReadable
from runscore.engine.packs import pipeline as engine


def test_latest_snapshot_wins(evaluate: Any, h: Any) -> None:
    rows = [
        # out of order: the later line is older → the earlier line wins
        h.task("order", "t", "completed", updated="2026-02-02T10:00:00Z"),
        h.task("order", "t", "in_progress", updated="2026-02-02T09:00:00Z"),
        # equal updatedAt: the later line wins
        h.task("tie", "t", "completed", updated="2026-02-02T10:00:00Z"),
        h.task("tie", "t", "failed", updated="2026-02-02T10:00:00Z"),
        # no updatedAt at all: the later line wins
        h.task("undated", "t", "completed", updated=None),
        h.task("undated", "t", "cancelled", updated=None),
        # a snapshot without updatedAt after a dated one: the later line wins (it won
        # nothing: a dated snapshot beat an undated one, whatever the line order)
        h.task("mixed", "t", "in_progress", updated="2026-02-02T10:00:00Z"),
        h.task("mixed", "t", "completed", updated=None),
        # an unparsable updatedAt counts as missing (and is reported)
        h.task("garbled", "t", "pending", updated="2026-02-02T10:00:00Z"),
        h.task("garbled", "t", "completed", updated="yesterday at noon"),
        # offsets: 10:30+02:00 is 08:30Z, older than 09:00Z
        h.task("tz", "t", "failed", updated="2026-02-02T09:00:00Z"),
        h.task("tz", "t", "completed", updated="2026-02-02T10:30:00+02:00"),
    ]
    res = evaluate(rows)
    outcome = {
        pid: (
            h.row_of(res, pid)["completed"],
            h.row_of(res, pid)["failed"],
            h.row_of(res, pid)["cancelled"],
            h.row_of(res, pid)["status"],
        )
        for pid in ("order", "tie", "undated", "mixed", "garbled", "tz")
    }
    assert outcome == {
        "order": (1, 0, 0, "scored"),
        "tie": (0, 1, 0, "scored"),
        "undated": (0, 0, 1, "scored"),
        "mixed": (1, 0, 0, "scored"),
        "garbled": (1, 0, 0, "scored"),
        "tz": (0, 1, 0, "scored"),
    }
    assert [(d.line, d.reason) for d in res.warnings] == [
        (
            10,
            'task "t": updatedAt "yesterday at noon" is not an ISO-8601 timestamp; '
            "treated as missing",
        )
    ]
    [t] = res.rows_for(res.tasks, "order")
    assert (t["snapshots"], t["source"].rsplit(":", 1)[1]) == (2, "1")


def test_snapshots_across_files(tmp_path: Path, h: Any) -> None:
    a = h.write_jsonl(
        tmp_path / "a.jsonl", [h.task("p", "t", "completed", updated="2026-02-02T11:00:00Z")]
    )
    b = h.write_jsonl(
        tmp_path / "sub" / "b.jsonl", [h.task("p", "t", "blocked", updated="2026-02-02T10:00:00Z")]
    )
    # b is read after a, but a's snapshot is newer.
    res = engine.evaluate_pipelines([str(a), str(tmp_path / "sub")], eval_date=h.EVAL_DATE)
    assert h.row_of(res, "p")["status"] == "scored"
    del b


def test_mixed_case_statuses_and_non_terminal(evaluate: Any, h: Any) -> None:
    rows = [
        h.task("cases", "a", "COMPLETED"),
        h.task("cases", "b", " Failed "),
        h.task("cases", "c", "Cancelled"),
        h.task("cases", "d", "completed"),
        h.task("open", "z", "Pending"),
        h.task("open", "y", "IN_PROGRESS"),
        h.task("open", "x", "completed"),
        h.task("open", "w", "Blocked"),
        h.task("odd", "a", "done"),
        {"pipelineId": "odd", "id": "b"},
        h.task("odd", "c", "completed"),
    ]
    res = evaluate(rows)
    cases = h.row_of(res, "cases")
    assert (cases["status"], cases["completed"], cases["failed"], cases["cancelled"]) == (
        "scored",
        2,
        1,
        1,
    )
    assert cases["completion_rate"] == 50.0
    open_ = h.row_of(res, "open")
    assert open_["status"] == "not_terminal"
    assert open_["non_terminal_task_ids"] == ["w", "y", "z"]
    assert open_["composite_score"] is None and open_["task_completion_score"] is None
    assert open_["verdict"] is None and open_["recommendations"] is None
    odd = h.row_of(res, "odd")
    assert (odd["status"], odd["non_terminal_task_ids"]) == ("not_terminal", ["a", "b"])
    assert [(d.line, d.reason) for d in res.warnings] == [
        (9, 'task "a": unknown status "done"; the task counts as not terminal'),
        (10, 'task "b": no status; the task counts as not terminal'),
    ]
    assert set(res.documents) == {"cases"}
    assert [r["pipeline_id"] for r in res.history_records] == ["cases"]


def test_blocked_then_completed_counts_as_completed(evaluate: Any, h: Any) -> None:
    rows = [
        h.task("p", "a", "blocked", updated="2026-02-02T09:00:00Z"),
        h.task("p", "a", "in_progress", updated="2026-02-02T09:30:00Z"),
        h.task("p", "a", "Completed", updated="2026-02-02T10:00:00Z"),
    ]
    row = h.row_of(evaluate(rows), "p")
    assert (row["status"], row["completed"], row["task_completion_score"]) == ("scored", 1, 100)


def test_alternative_id_fields_and_integer_ids(evaluate: Any, h: Any) -> None:
    rows = [
        {"taskId": "a", "status": "completed", "metadata": {"pipelineId": "meta"}},
        {"pipelineId": 7, "id": 1, "status": "completed"},
        {"pipelineId": 7, "taskId": 2, "status": "failed"},
    ]
    res = evaluate(rows)
    assert res.errors == []
    assert h.row_of(res, "meta")["task_count"] == 1
    assert (h.row_of(res, "7")["task_count"], h.row_of(res, "7")["completion_rate"]) == (2, 50.0)


def test_ids_are_trimmed(evaluate: Any, h: Any) -> None:
    # " p1" and "p1" were two pipelines (two reports, two history records), and "a " and
    # "a" two tasks of one: a padded id named another pipeline/task than its text.
    rows = [
        h.task("p1", "a", "failed", updated="2026-02-02T09:00:00Z"),
        h.task(" p1", "a ", "completed", updated="2026-02-02T10:00:00Z"),
        h.task("p1\t", "\nb", "completed"),
        {"taskId": " c", "status": "completed", "metadata": {"pipelineId": "\rp1 "}},
    ]
    res = evaluate(rows, [{"pipelineId": " p1 ", "estimatedDurationMinutes": 60}])
    assert res.errors == [] and res.warnings == []
    assert res.pipelines.column("pipeline_id").to_pylist() == ["p1"]
    row = h.row_of(res, "p1")
    assert (row["task_count"], row["completed"], row["failed"]) == (3, 3, 0)
    assert row["estimated_minutes"] == 60
    assert [t["task_id"] for t in res.rows_for(res.tasks, "p1")] == ["a", "b", "c"]
    assert list(res.documents) == ["p1"] and res.documents["p1"]["pipelineId"] == "p1"


def test_an_integer_id_is_its_text(evaluate: Any, h: Any) -> None:
    # Every output names an id by its text (report file, pipelineId: string, history
    # key): the task 1 and the task "1" are one task (the later snapshot wins), the
    # pipeline 7 and "7" one pipeline. Other kinds of JSON are no id.
    rows: list[Any] = [
        h.task("n", "1", "completed", updated="2026-02-02T09:00:00Z"),
        {"pipelineId": "n", "id": 1, "status": "failed", "updatedAt": "2026-02-02T10:00:00Z"},
        {"pipelineId": 7, "id": "a", "status": "completed"},
        {"id": "b", "status": "completed", "metadata": {"pipelineId": "7"}},
        {"pipelineId": "n", "id": 1.5, "status": "failed"},
        {"pipelineId": "n", "id": True, "status": "failed"},
    ]
    res = evaluate(rows, [{"pipelineId": 7, "estimatedDurationMinutes": 5}, {"pipelineId": 1.5}])
    assert [(d.line, d.reason) for d in res.errors] == [
        (5, "id is number, not a string or integer"),
        (6, "id is boolean, not a string or integer"),
        (2, "plan pipelineId is number, not a string or integer"),
    ]
    assert sorted(res.pipelines.column("pipeline_id").to_pylist()) == ["7", "n"]
    row = h.row_of(res, "n")
    assert (row["task_count"], row["completed"], row["failed"]) == (1, 0, 1)
    seven = h.row_of(res, "7")
    assert (seven["task_count"], seven["completed"], seven["estimated_minutes"]) == (2, 2, 5)


def test_bad_lines_are_reported_with_file_and_line(evaluate: Any, h: Any) -> None:
    rows: list[Any] = [
        h.task("p", "ok"),
        {"id": "x", "status": "completed"},
        {"pipelineId": {"nested": 1}, "id": "x"},
        {"pipelineId": "p", "id": ""},
        {"pipelineId": "  ", "id": ["a"]},
        "[1, 2]",
        "{not json",
        "",
        {"pipelineId": "p", "id": "ok2", "status": "completed", "metadata": "text"},
    ]
    res = evaluate(rows)
    assert [(d.line, d.reason) for d in res.errors] == [
        (2, "no pipeline id (pipelineId or metadata.pipelineId)"),
        (3, "pipelineId is object, not a string or integer"),
        (4, "id is empty"),
        (5, "pipelineId is empty; id is array, not a string or integer"),
        (6, "not a JSON object (an array)"),
        (
            7,
            "not JSON: Expecting property name enclosed in double quotes: line 1 column 2 (char 1)",
        ),
    ]
    assert all(d.file is not None and d.file.endswith("tasks.jsonl") for d in res.errors)
    assert [(d.line, d.reason) for d in res.warnings] == [
        (9, 'task "ok2": metadata is string, not an object; ignored')
    ]
    assert h.row_of(res, "p")["task_count"] == 2
    assert res.partial


def test_both_spellings_of_an_id_that_disagree_are_warned(evaluate: Any, h: Any) -> None:
    """Spec §1 accepts `metadata.pipelineId` for `pipelineId` and `taskId` for `id`; a line
    giving both with different values used the first and dropped the other without a word,
    so a task could be scored under another pipeline (or as another task) than its tracker
    meant. Equal values (`1` and `"1"`, as ids are text) are one id and are not said."""
    rows: list[Any] = [
        h.task("p", "a") | {"metadata": {"pipelineId": "q"}},
        h.task("p", "b") | {"taskId": "c"},
        h.task("p", "d") | {"taskId": 7, "metadata": {"pipelineId": {"x": 1}}},
        h.task("p", "7") | {"taskId": 7, "metadata": {"pipelineId": " p "}},
        h.task("p", "e") | {"taskId": None, "metadata": {"pipelineId": None}},
        {"metadata": {"pipelineId": "p"}, "taskId": "f", "status": "completed"},
    ]
    res = evaluate(rows)
    assert res.errors == []
    assert [(d.line, d.pipeline_id, d.reason) for d in res.warnings] == [
        (1, "p", 'pipelineId "p" and metadata.pipelineId "q" disagree; pipelineId is used'),
        (2, "p", 'id "b" and taskId "c" disagree; id is used'),
        (
            3,
            "p",
            'pipelineId "p" and metadata.pipelineId {"x":1} disagree; pipelineId is used; '
            'id "d" and taskId 7 disagree; id is used',
        ),
    ]
    assert h.row_of(res, "p")["task_count"] == 6
    assert [r["pipeline_id"] for r in res.pipelines.to_pylist()] == ["p"]


def test_a_key_given_twice_rejects_the_line(evaluate: Any, h: Any) -> None:
    """`{"status": "failed", ..., "status": "completed"}`: DuckDB took the first value,
    Python's json and JavaScript the last, so runscore and the user's own tool scored
    different tasks. A line that gives a key runscore reads twice, at any depth it reads,
    is now rejected with that key, as a line that is not an object is; a key it does not
    read may repeat."""
    head = '{"pipelineId": "p", "id": '
    rows: list[Any] = [
        h.task("p", "a", "failed", updated="2026-02-02T09:00:00Z"),
        # the later snapshot of a, but which status it gives cannot be known
        head + '"a", "status": "failed", "updatedAt": "2026-02-02T11:00:00Z", '
        '"status": "completed"}',
        head + '"b", "status": "completed", "metadata": {"testResult": "PASS 1/2", '
        '"testResult": "PASS 2/2"}}',
        head + '"c", "status": "completed", "metadata": {"quality": {"lintFix": '
        '{"ran": true, "errors": 3, "errors": 0}}}}',
        # an escaped key is the same key; two keys twice are named in the line's order
        head + '"d", "st\\u0061tus": "completed", "status": "failed", "id": "e"}',
        # keys runscore does not read, and objects it does not look into, may repeat
        head + '"f", "status": "completed", "note": 1, "note": 2, "metadata": {"x": 1, '
        '"x": 2, "deviations": [{"a": 1, "a": 2}], "quality": {"format": {"ran": true, '
        '"changed": false, "by": 1, "by": 2}}}}',
        # refused by the reader already: said once, for that
        head + '"g", "id": "h",}',
    ]
    plans = [
        '{"pipelineId": "p", "estimatedDurationMinutes": 60, "estimatedDurationMinutes": 1}',
        '{"pipelineId": "p", "estimatedDurationMs": 3600000}',
    ]
    res = evaluate(rows, plans)
    assert [(Path(d.file or "").name, d.line, d.reason) for d in res.errors] == [
        ("tasks.jsonl", 2, "duplicate key status"),
        ("tasks.jsonl", 3, "duplicate key metadata.testResult"),
        ("tasks.jsonl", 4, "duplicate key metadata.quality.lintFix.errors"),
        ("tasks.jsonl", 5, "duplicate keys id, status"),
        (
            "tasks.jsonl",
            7,
            "not JSON: Expecting property name enclosed in double quotes: "
            "line 1 column 42 (char 41)",
        ),
        ("plans.jsonl", 1, "duplicate key estimatedDurationMinutes"),
    ]
    assert all(d.pipeline_id is None for d in res.errors)
    row = h.row_of(res, "p")
    # a's earlier snapshot (failed) is its latest usable one; b, c, d, e are not tasks
    assert (row["task_count"], row["completed"], row["failed"]) == (2, 1, 1)
    assert row["test_pass_rate_verified"] is False
    assert row["quality_score"] == 65  # f's format ran unchanged: 60 + 5
    assert row["estimated_minutes"] == 60  # the plan's second line
    assert res.partial


@pytest.mark.parametrize(
    "content",
    ["", '{"id": "x"}\n{"pipelineId": "p"}\n'],
    ids=["empty", "all-rejected"],
)
def test_nothing_usable_raises(tmp_path: Path, h: Any, content: str) -> None:
    p = tmp_path / "tasks.jsonl"
    p.write_text(content, encoding="utf-8")
    with pytest.raises(NothingReadable):
        engine.evaluate_pipelines([str(p)], eval_date=h.EVAL_DATE)


def test_nothing_readable_raises(tmp_path: Path, h: Any) -> None:
    with pytest.raises(NothingReadable, match="no such file"):
        engine.evaluate_pipelines([str(tmp_path / "missing.jsonl")], eval_date=h.EVAL_DATE)


def test_nothing_usable_names_the_empty_inputs(tmp_path: Path, h: Any) -> None:
    # An empty folder or empty/blank files: the error ended in a colon and listed nothing,
    # so it named neither the path nor why nothing was read.
    d = tmp_path / "exports"
    d.mkdir()
    with pytest.raises(NothingReadable) as e:
        engine.evaluate_pipelines([str(d)], eval_date=h.EVAL_DATE)
    assert str(e.value) == (f"no task snapshot file could be read:\n  {d}: no *.jsonl file found")
    (tmp_path / "a.jsonl").write_text("", encoding="utf-8")
    (tmp_path / "b.jsonl").write_text("\n\n", encoding="utf-8")
    files = [str(tmp_path / "a.jsonl"), str(tmp_path / "b.jsonl")]
    with pytest.raises(NothingReadable) as e:
        engine.evaluate_pipelines(files, eval_date=h.EVAL_DATE)
    assert str(e.value) == (
        "no usable task snapshot in the input:\n"
        f"  {files[0]}: empty (no task snapshots)\n"
        f"  {files[1]}: only blank lines (no task snapshots)"
    )


def test_safe_pipeline_names() -> None:
    assert engine.safe_pipeline_name("p-excellent") == "p-excellent"
    assert engine.safe_pipeline_name("v1.2_x") == "v1.2_x"
    a = engine.safe_pipeline_name("a/b")
    b = engine.safe_pipeline_name("a:b")
    assert a.startswith("a_b-") and b.startswith("a_b-") and a != b
    evil = engine.safe_pipeline_name("../../etc/passwd")
    assert "/" not in evil and not evil.startswith(".")
    assert engine.safe_pipeline_name("").startswith("pipeline-")
    assert len(engine.safe_pipeline_name("x" * 500)) <= 80 + 9
    # 80 bytes, not characters: 80 of "中" are 240 bytes of a name that may have 255.
    cut = engine.safe_pipeline_name("中" * 500)
    assert cut == "中" * 26 + "-" + cut[-8:]
    assert engine.report_basename("a b", engine.parse_date("2026-03-07")).startswith(
        "pipeline-eval-a_b-"
    )


def test_every_iso_8601_spelling_counts_and_nanoseconds_decide(evaluate: Any, h: Any) -> None:
    # ISO 8601 allows a comma as the decimal sign and the basic format; RFC 3339 lowercase
    # t/z. DuckDB's cast refuses them (they were "treated as missing", and an older dated
    # snapshot won). It keeps microseconds only: two snapshots in the same microsecond
    # were a tie (the later line won) though their nanoseconds tell which is later.
    rows = [
        h.task("comma", "t", "completed", updated="2026-02-02T11:00:00,5Z"),
        h.task("comma", "t", "failed", updated="2026-02-02T10:00:00Z"),
        h.task("basic", "t", "completed", updated="20260202T110000Z"),
        h.task("basic", "t", "failed", updated="2026-02-02T10:00:00Z"),
        h.task("lower", "t", "completed", updated="2026-02-02t11:00:00z"),
        h.task("lower", "t", "failed", updated="2026-02-02T10:00:00Z"),
        h.task("basic-offset", "t", "completed", updated="20260202T120000.25+0100"),
        h.task("basic-offset", "t", "failed", updated="2026-02-02T11:00:00.2Z"),
        h.task("nanos", "t", "completed", updated="2026-02-02T10:00:00.123456789Z"),
        h.task("nanos", "t", "failed", updated="2026-02-02T10:00:00.123456700Z"),
        h.task("nanos-offset", "t", "failed", updated="2026-02-02T10:00:00.1234567Z"),
        h.task("nanos-offset", "t", "completed", updated="2026-02-02T12:00:00.1234568+02:00"),
    ]
    res = evaluate(rows)
    for pid in ("comma", "basic", "lower", "basic-offset", "nanos", "nanos-offset"):
        row = h.row_of(res, pid)
        assert (row["completed"], row["failed"]) == (1, 0), pid
    assert res.warnings == []


def test_iso_week_and_ordinal_dates_are_times(evaluate: Any, h: Any) -> None:
    """Spec §1 and README: timestamps are ISO-8601, whose complete dates are calendar,
    week (2026-W06-1, 2026W061) or ordinal (2026-033, 2026033) dates. The week and ordinal
    ones were refused ("is not an ISO-8601 timestamp; treated as missing"), so an older
    calendar-dated snapshot won. A week or day that its year does not have stays refused:
    2025 has 52 ISO weeks, 2026 has 53 and 365 days."""
    rows = [
        h.task("week", "t", "completed", updated="2026-W06-1T11:00:00Z"),
        h.task("week", "t", "failed", updated="2026-02-02T10:00:00Z"),
        h.task("week-basic", "t", "completed", updated="2026W061T110000Z"),
        h.task("week-basic", "t", "failed", updated="2026-02-02T10:00:00Z"),
        h.task("week-lower", "t", "completed", updated="2026-w06-1t11:00:00z"),
        h.task("week-lower", "t", "failed", updated="2026-02-02T10:00:00Z"),
        h.task("ordinal", "t", "completed", updated="2026-033T11:00:00+01:00"),
        h.task("ordinal", "t", "failed", updated="2026-02-02T09:59:59Z"),
        h.task("ordinal-basic", "t", "completed", updated="2026033T110000Z"),
        h.task("ordinal-basic", "t", "failed", updated="2026-02-02T10:00:00Z"),
        # durations across the forms: created Monday of week 6, done 90 minutes later
        h.task(
            "span",
            "t",
            created="2026-W06-1T09:00:00Z",
            updated=None,
            completed_at="2026-033T10:30:00Z",
        ),
        h.task("span-53", "t", created="2026-W53-7T23:00:00Z", updated="2027-004T00:30:00Z"),
        h.task("bad", "a", updated="2025-W53-1T10:00:00Z"),
        h.task("bad", "b", updated="2026-W06-8T10:00:00Z"),
        h.task("bad", "c", updated="2026-366T10:00:00Z"),
        h.task("bad", "d", updated="2026-W00-1T10:00:00Z"),
    ]
    res = evaluate(rows)
    for pid in ("week", "week-basic", "week-lower", "ordinal", "ordinal-basic"):
        row = h.row_of(res, pid)
        assert (row["completed"], row["failed"]) == (1, 0), pid
    assert h.row_of(res, "span")["actual_minutes"] == 90
    assert h.row_of(res, "span-53")["actual_minutes"] == 90
    assert [(d.line, d.reason) for d in res.warnings] == [
        (
            13,
            'task "a": updatedAt "2025-W53-1T10:00:00Z" is not an ISO-8601 timestamp; '
            "treated as missing",
        ),
        (
            14,
            'task "b": updatedAt "2026-W06-8T10:00:00Z" is not an ISO-8601 timestamp; '
            "treated as missing",
        ),
        (
            15,
            'task "c": updatedAt "2026-366T10:00:00Z" is not an ISO-8601 timestamp; '
            "treated as missing",
        ),
        (
            16,
            'task "d": updatedAt "2026-W00-1T10:00:00Z" is not an ISO-8601 timestamp; '
            "treated as missing",
        ),
    ]


def test_a_snapshot_without_a_time_is_as_recent_as_the_lines_before_it(
    evaluate: Any, h: Any
) -> None:
    """Spec §1: the latest updatedAt wins; "ties, or no updatedAt: the later line". A
    snapshot without a (parsable) updatedAt lost to every dated one, so a task exported as
    pending at 09:00 and then as completed without a time stayed pending, the pipeline not
    terminal. An undated snapshot is now as recent as the latest dated one before it in the
    file (the file order decides between them, as for a tie); a dated one still wins by its
    time, and one dated before that lost to it."""
    rows = [
        h.task("later", "t", "pending", updated="2026-02-02T09:00:00Z"),
        h.task("later", "t", "completed", updated=None),
        # undated first: the dated line after it is later in time and in the file
        h.task("first", "t", "pending", updated=None),
        h.task("first", "t", "completed", updated="2026-02-02T09:00:00Z"),
        # an undated line after 12:00 is as recent as 12:00, so a line dated 10:00 after
        # it (out of order, as it was older than 12:00 anyway) does not win
        h.task("carried", "t", "pending", updated="2026-02-02T12:00:00Z"),
        h.task("carried", "t", "completed", updated=None),
        h.task("carried", "t", "in_progress", updated="2026-02-02T10:00:00Z"),
        # a line dated after what came before wins over an undated one before it
        h.task("newer", "t", "pending", updated="2026-02-02T09:00:00Z"),
        h.task("newer", "t", "in_progress", updated=None),
        h.task("newer", "t", "failed", updated="2026-02-02T09:00:00.000001Z"),
    ]
    res = evaluate(rows)
    status = {
        pid: (h.row_of(res, pid)["status"], h.row_of(res, pid)["completed"])
        for pid in ("later", "first", "carried", "newer")
    }
    assert status == {
        "later": ("scored", 1),
        "first": ("scored", 1),
        "carried": ("scored", 1),
        "newer": ("scored", 0),
    }
    assert res.warnings == []


def test_a_summary_or_files_list_of_another_kind_is_said_not_dropped(evaluate: Any, h: Any) -> None:
    # `filesModified: "a.py"` (one file, not in a list) and a summary given as a number
    # showed as "—" in the report's task table with no word, as if the task gave none;
    # a testResult or deviations of another kind has always been warned of.
    rows = [
        h.task("p", "a", summary="done", filesModified=["x.py"]),
        h.task("p", "b", summary=7, filesModified="a.py"),
        h.task("p", "c", summary=None, filesModified=None),
        h.task("p", "d", summary=["s"], filesModified={"f": 1}),
    ]
    res = evaluate(rows)
    assert [(d.line, d.reason) for d in res.warnings] == [
        (2, 'task "b": metadata.filesModified is string, not an array; ignored'),
        (2, 'task "b": metadata.summary is number, not a string; ignored'),
        (4, 'task "d": metadata.filesModified is object, not an array; ignored'),
        (4, 'task "d": metadata.summary is array, not a string; ignored'),
    ]
    assert [(t["summary"], t["files_modified"]) for t in res.rows_for(res.tasks, "p")] == [
        ("done", ["x.py"]),
        (None, None),
        (None, None),
        (None, None),
    ]


def test_files_modified_items_that_are_not_strings_are_said_and_left_out(
    evaluate: Any, h: Any
) -> None:
    # `filesModified: [1, {"a": 2}]` was listed in the report as `1, {"a":2}`, as if it
    # named two files, with no word, where a filesModified that is not an array warns.
    rows = [
        h.task("p", "a", filesModified=["x.py", 1, {"a": 2}, None, 3]),
        h.task("p", "b", filesModified=[True]),
        h.task("p", "c", filesModified=["y.py", None, " "]),
    ]
    res = evaluate(rows)
    assert [(d.line, d.reason) for d in res.warnings] == [
        (
            1,
            'task "a": metadata.filesModified has 3 items that are not strings '
            "(number, object); left out",
        ),
        (2, 'task "b": metadata.filesModified has 1 item that is not a string (boolean); left out'),
    ]
    assert [t["files_modified"] for t in res.rows_for(res.tasks, "p")] == [
        ["x.py"],
        [],
        ["y.py"],
    ]


def test_a_status_with_blanks_around_it_is_that_status_one_with_others_is_unknown(
    evaluate: Any, h: Any
) -> None:
    # The spec lists the statuses case-insensitive, silent on blanks: trimmed as ids are
    # (ASCII whitespace), without a word; a blank inside one, or a no-break space around
    # it, leaves it unknown, said so (pipeline/v1 008's pl_status_of, the one rule).
    rows = [
        h.task("p", "a", "completed "),
        h.task("p", "b", "\tCancelled\n"),
        h.task("q", "a", "in progress"),
        h.task("q", "b", "completed\u00a0"),
    ]
    res = evaluate(rows)
    p = h.row_of(res, "p")
    assert (p["status"], p["completed"], p["cancelled"]) == ("scored", 1, 1)
    assert h.row_of(res, "q")["non_terminal_task_ids"] == ["a", "b"]
    assert [(d.line, d.reason) for d in res.warnings] == [
        (3, 'task "a": unknown status "in progress"; the task counts as not terminal'),
        (4, 'task "b": unknown status "completed\\u00a0"; the task counts as not terminal'),
    ]
