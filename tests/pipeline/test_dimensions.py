"""D1–D5 per spec pipeline.md §3: every bucket boundary, parsing and neutral values.

Expected values are worked out by hand from the spec tables, never copied from
output. The table-driven cases are scored together in ONE evaluation (one
pipeline per case), which is also how the pack is meant to run: many pipelines
in one pass, none influencing another.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from runscore.engine.errors import UsageError
from runscore.engine.packs import pipeline as engine

T0 = "2026-02-02T09:00:00Z"

# (completed, failed, cancelled) → (rate, D1)
D1_CASES = [
    ((1, 0, 0), 100.0, 100),  # rate = 100 → 100
    ((9, 1, 0), 90.0, 85),  # exactly 90 → 85
    ((8, 1, 0), 800 / 9, 70),  # 88.9: below 90 → 70
    ((3, 1, 0), 75.0, 70),  # exactly 75 → 70
    ((2, 1, 0), 200 / 3, 50),  # 66.7: below 75 → 50
    ((3, 2, 0), 60.0, 50),  # exactly 60 → 50
    ((1, 1, 0), 50.0, 20),  # below 60 → 20
    ((0, 1, 1), 0.0, 20),
    ((3, 0, 1), 75.0, 70),  # cancelled is not completed
    ((19, 0, 1), 95.0, 85),
]

# deviation count → D2
D2_CASES = [(0, 100), (1, 85), (2, 85), (3, 65), (5, 65), (6, 40), (10, 40), (11, 10), (40, 10)]

# testResult strings → (passed, total, D3, verified)
D3_CASES = [
    (["PASS 42/42"], 42, 42, 100.0, True),
    (["PASS 38/42", "FAIL 4/8"], 42, 50, 84.0, True),
    (["  pass 3 / 4  ", "Fail 1/4"], 4, 8, 50.0, True),  # verified 50, not the neutral 50
    (["PASS 18/25"], 18, 25, 72.0, True),
    (["PASS 9/10", "PASS 0/10"], 9, 20, 45.0, True),
    # The grammar's \s is whitespace as Python's re (even re.ASCII), JavaScript and PCRE read
    # it: a vertical tab is one. RE2's \s leaves it out, so these were refused (unverified, 50).
    (["PASS\v3/4", "\vFAIL\t1 /\f4\v"], 4, 8, 50.0, True),
    (["\x0bPASS 3/4\x0b"], 3, 4, 75.0, True),
    ([], None, None, 50.0, False),  # no result: neutral, unverified
]

# (plan, start, end) → (actual minutes, D4)
D4_CASES = [
    ({"estimatedDurationMinutes": 600}, T0, "2026-02-02T14:00:00Z", 300, 100),
    ({"estimatedDurationMinutes": 30}, T0, "2026-02-02T10:00:00Z", 60, 50),
    ({"estimatedDurationMinutes": 60}, T0, "2026-02-02T10:00:00Z", 60, 100),
    ({"estimatedDurationMinutes": 59.4}, T0, "2026-02-02T10:00:00Z", 60, 99),
    ({"estimatedDurationMs": 1_800_000}, T0, "2026-02-02T10:00:00Z", 60, 50),
    ({"estimatedDurationMinutes": 40}, T0, "2026-02-02T11:00:00Z", 120, 100 / 3),
    ({"estimatedDurationMinutes": 5}, T0, T0, 0, 100),  # actual <= 0 → 100
    # offsets are honoured: 10:00+01:00 is 09:00Z
    ({"estimatedDurationMinutes": 15}, "2026-02-02T10:00:00+01:00", "2026-02-02T09:30:00Z", 30, 50),
    (None, T0, "2026-02-02T19:00:00Z", 600, 70),  # no estimate → 70
    # An estimate of 0 was refused ("not a positive number") and scored neutral (70), but
    # the spec's formula divides by the actual, not the estimate: 0 / 60 → 0.
    ({"estimatedDurationMinutes": 0}, T0, "2026-02-02T10:00:00Z", 60, 0),
    ({"estimatedDurationMs": 0}, T0, T0, 0, 100),  # and actual <= 0 → 100, as any estimate
]

# metadata.quality per task (plus one task without) → (D5, tasks reporting quality)
D5_CASES = [
    ([], 60, 0),  # no signal at all → 60
    ([{"lintFix": {"ran": True, "errors": 0}}], 70, 1),
    ([{"lintFix": {"ran": True, "errors": 3}}], 55, 1),
    ([{"lintFix": {"ran": False, "errors": 0}}], 60, 1),  # did not run: no points
    # errors unknown: no points, and no signal reported (the report said "reported by 1 of
    # 2 tasks" for it, though its only signal was warned of as not counted)
    ([{"lintFix": {"ran": True}}], 60, 0),
    ([{"format": {"ran": True, "changed": False}}], 65, 1),
    ([{"format": {"ran": True, "changed": True}}], 60, 1),
    ([{"unresolvedTodos": 2}], 50, 1),
    ([{"unresolvedTodos": 0}], 60, 1),
    (
        [
            {
                "lintFix": {"ran": True, "errors": 0},
                "format": {"ran": True, "changed": False},
                "unresolvedTodos": 1,
            }
        ],
        65,
        1,
    ),
    ([{"lintFix": {"ran": True, "errors": 0}}] * 5, 100, 5),  # 110 → clamped to 100
    ([{"unresolvedTodos": 9, "lintFix": {"ran": True, "errors": 1}}] * 5, 0, 5),  # −15 → 0
    # JSON nulls are no signal: such a task does not count as reporting quality (it did,
    # and the D5 recommendation then said lint and format issues reached completion)
    ([{"lintFix": None, "format": None, "unresolvedTodos": None}], 60, 0),
    # values ignored with a warning are no signal either; a usable one beside them is
    ([{"lintFix": {"ran": "yes"}, "unresolvedTodos": -1}], 60, 0),
    ([{"format": {"ran": True, "changed": "no"}}, {"format": {"ran": False}}], 60, 1),
]


def _timed(h: Any, pid: str, start: str, end: str) -> list[dict[str, Any]]:
    return [
        h.task(pid, "a", created=start, updated=start, completed_at=start),
        h.task(pid, "b", created=start, updated=end, completed_at=end),
    ]


@pytest.fixture(scope="module")
def batch(h: Any, tmp_path_factory: pytest.TempPathFactory) -> engine.PipelineResult:
    rows: list[dict[str, Any]] = []
    plans: list[dict[str, Any]] = []
    for i, (counts, _, _) in enumerate(D1_CASES):
        rows += h.pipeline_tasks(f"d1-{i}", *counts)
    for i, (count, _) in enumerate(D2_CASES):
        first = count // 2  # split over two tasks: the count is over all tasks
        rows.append(h.task(f"d2-{i}", "a", deviations=[f"d{k}" for k in range(first)]))
        rows.append(h.task(f"d2-{i}", "b", deviations=[{"k": k} for k in range(count - first)]))
    for i, (results, *_) in enumerate(D3_CASES):
        rows += [h.task(f"d3-{i}", f"t{k}", testResult=r) for k, r in enumerate(results)]
        rows.append(h.task(f"d3-{i}", "no-tests"))
    for i, (plan, start, end, _, _) in enumerate(D4_CASES):
        rows += _timed(h, f"d4-{i}", start, end)
        if plan is not None:
            plans.append({"pipelineId": f"d4-{i}", **plan})
    for i, (qualities, _, _) in enumerate(D5_CASES):
        rows += [h.task(f"d5-{i}", f"t{k}", quality=q) for k, q in enumerate(qualities)]
        rows.append(h.task(f"d5-{i}", "plain"))
    d = tmp_path_factory.mktemp("dims")
    tasks = h.write_jsonl(d / "tasks.jsonl", rows)
    plan_file = h.write_jsonl(d / "plans.jsonl", plans)
    return engine.evaluate_pipelines([str(tasks)], [str(plan_file)], eval_date=h.EVAL_DATE)


def test_batch_is_clean(batch: engine.PipelineResult) -> None:
    # Clean but for the D5 case of a lint that ran with no error count (scored no points):
    # said, not silently no signal.
    assert batch.errors == []
    assert [(d.pipeline_id, d.reason) for d in batch.warnings] == [
        (
            "d5-4",
            'task "t0": metadata.quality.lintFix.ran is true but lintFix.errors is absent; '
            "no lint signal counted",
        ),
        ("d5-13", 'task "t0": metadata.quality.lintFix.ran is string, not true or false; ignored'),
        (
            "d5-13",
            'task "t0": metadata.quality.unresolvedTodos -1 is not a whole number >= 0; ignored',
        ),
        (
            "d5-14",
            'task "t0": metadata.quality.format.changed is string, not true or false; ignored',
        ),
    ]
    assert set(batch.pipelines.column("status").to_pylist()) == {"scored"}


@pytest.mark.parametrize(("i", "case"), list(enumerate(D1_CASES)), ids=str)
def test_d1_completion_buckets(batch: Any, h: Any, i: int, case: Any) -> None:
    counts, rate, score = case
    row = h.row_of(batch, f"d1-{i}")
    assert row["completion_rate"] == pytest.approx(rate)
    assert row["task_completion_score"] == score
    assert (row["completed"], row["failed"], row["cancelled"]) == counts


@pytest.mark.parametrize(("i", "case"), list(enumerate(D2_CASES)), ids=str)
def test_d2_deviation_buckets(batch: Any, h: Any, i: int, case: Any) -> None:
    count, score = case
    row = h.row_of(batch, f"d2-{i}")
    assert row["deviation_count"] == count
    assert row["deviation_score"] == score


@pytest.mark.parametrize(("i", "case"), list(enumerate(D3_CASES)), ids=str)
def test_d3_pass_rate(batch: Any, h: Any, i: int, case: Any) -> None:
    _, passed, total, score, verified = case
    row = h.row_of(batch, f"d3-{i}")
    assert row["test_score"] == pytest.approx(score)
    assert row["test_pass_rate_verified"] is verified
    assert row["test_pass_rate"] == (pytest.approx(score) if verified else None)
    assert (row["tests_passed"], row["tests_total"]) == (passed, total)


@pytest.mark.parametrize(("i", "case"), list(enumerate(D4_CASES)), ids=str)
def test_d4_time_efficiency(batch: Any, h: Any, i: int, case: Any) -> None:
    plan, _, _, actual, score = case
    row = h.row_of(batch, f"d4-{i}")
    assert row["actual_minutes"] == pytest.approx(actual)
    assert row["time_efficiency"] == pytest.approx(score)
    assert (row["estimated_minutes"] is None) is (plan is None)


@pytest.mark.parametrize(("i", "case"), list(enumerate(D5_CASES)), ids=str)
def test_d5_quality(batch: Any, h: Any, i: int, case: Any) -> None:
    _, score, reporting = case
    row = h.row_of(batch, f"d5-{i}")
    assert row["quality_score"] == score
    assert row["quality_reporting_tasks"] == reporting


# --------------------------------------------------------------------------- diagnostics


def test_d2_counts_only_latest_snapshot_and_reports_non_arrays(evaluate: Any, h: Any) -> None:
    rows = [
        h.task("p", "a", "in_progress", updated="2026-02-02T09:00:00Z", deviations=[1, 2, 3, 4]),
        h.task("p", "a", updated="2026-02-02T10:00:00Z", deviations=["kept"]),
        h.task("p", "b"),
        h.task("u", "a", deviations=["kept"]),
        h.task("u", "b", deviations="scope grew"),
        h.task("w", "a", deviations=list(range(12))),
        h.task("w", "b", deviations={"scope": "grew"}),
    ]
    res = evaluate(rows)
    row = h.row_of(res, "p")
    assert row["deviation_count"] == 1
    assert row["deviation_score"] == 85
    # Unknown is not zero: deviations given as text were counted as none (u: 1, D2 85, or
    # with no other item 100, D2's best). The count is unknown now and D2 neutral (50), as
    # D3 is for a pass rate no result gives; the JSON report leaves the count out.
    row = h.row_of(res, "u")
    assert (row["deviation_count"], row["deviation_score"]) == (None, 50)
    assert res.documents["u"]["scores"] == {
        "taskCompletionRate": 100.0,
        "deviationScore": 50.0,
        "testPassRate": 50.0,
        "timeEfficiency": 70.0,
        "qualityScore": 60.0,
    }
    assert res.history_records[1]["deviation_count"] is None
    # Never above what the items counted score: 12 of them are more than 10 (D2 10), and
    # more than 5, so the scope-creep advice stands, saying what is known.
    row = h.row_of(res, "w")
    assert (row["deviation_count"], row["deviation_score"]) == (None, 10)
    [d2] = [r for r in res.rows_for(res.recommendations, "w") if r["code"] == "D2"]
    assert d2["sentence"].startswith("At least 12 deviations from the plan point to scope creep")
    from runscore.cli.pipeline import render_pipeline_markdown, render_summary_markdown

    assert (
        "- Deviations from plan: unknown, at least 1 (a task's metadata.deviations is not an "
        "array: see the input notes); scored 50.00, neutral or, when lower, as the deviations "
        "counted score\n" in render_pipeline_markdown(res, "u")
    )
    assert "| u | scored | ACCEPTABLE | 68.50 | 2 | 100.00 | unknown |" in render_summary_markdown(
        res
    )
    assert [(d.line, d.reason) for d in res.warnings] == [
        (
            5,
            'task "b": metadata.deviations is string, not an array; the deviation count is unknown',
        ),
        (
            7,
            'task "b": metadata.deviations is object, not an array; the deviation count is unknown',
        ),
    ]


def test_d3_invalid_results_are_reported_never_counted(evaluate: Any, h: Any) -> None:
    bad = {
        "b1": "42/42",
        "b2": "PASSED 3/4",
        "b3": "PASS 3/4 extra",
        "b4": "PASS -1/4",
        "b5": "",
        "b6": "PASS 0/0",
        "b7": "PASS 5/4",
        "b8": 42,
        "b9": "PASS 99999999999999999999/5",
        "b10": "PASS 99999999999999999999/000",
    }
    rows = [h.task("p", "good", testResult="FAIL 3/4")]
    rows += [h.task("p", tid, testResult=v) for tid, v in bad.items()]
    res = evaluate(rows)
    row = h.row_of(res, "p")
    # Only the one valid result counts: 3 of 4.
    assert (row["tests_passed"], row["tests_total"]) == (3, 4)
    assert row["test_score"] == pytest.approx(75.0)
    assert row["test_pass_rate_verified"] is True
    assert res.errors == []
    assert [(d.line, d.reason) for d in res.warnings] == [
        (2, 'task "b1": testResult "42/42" is not "PASS n/m" or "FAIL n/m"; ignored'),
        (3, 'task "b2": testResult "PASSED 3/4" is not "PASS n/m" or "FAIL n/m"; ignored'),
        (4, 'task "b3": testResult "PASS 3/4 extra" is not "PASS n/m" or "FAIL n/m"; ignored'),
        (5, 'task "b4": testResult "PASS -1/4" is not "PASS n/m" or "FAIL n/m"; ignored'),
        (6, 'task "b5": testResult "" is not "PASS n/m" or "FAIL n/m"; ignored'),
        (7, 'task "b6": testResult "PASS 0/0" has a total of 0; ignored'),
        (8, 'task "b7": testResult "PASS 5/4" has more passed than total; ignored'),
        (9, 'task "b8": testResult is number, not a string; ignored'),
        # malformed at any size (a count too large to count is not: see below)
        (
            10,
            'task "b9": testResult "PASS 99999999999999999999/5" has more passed than total; ignored',
        ),
        (11, 'task "b10": testResult "PASS 99999999999999999999/000" has a total of 0; ignored'),
    ]
    assert {d.pipeline_id for d in res.warnings} == {"p"}
    assert all(str(d).startswith(f'{d.file}:{d.line}: task "b') for d in res.warnings)


def test_d5_quality_fields_of_the_wrong_kind_or_range_are_reported_never_counted(
    evaluate: Any, h: Any
) -> None:
    """A quality field that cannot be read (`ran: "true"`, `errors: "0"`, `errors: -3`,
    `unresolvedTodos: 0.5` or `1e999`, `lintFix: true`, `quality: "good"`) was ignored, or
    counted (0.5 and 1e999 todos/errors took points), without a word. Each is now warned with
    its file, line and task, and ignored, as a testResult that is not a string is."""
    rows = [
        h.task("p", "a", quality={"lintFix": {"ran": "true", "errors": "0"}}),
        h.task("p", "b", quality={"lintFix": {"ran": True, "errors": -3}}),
        h.task("p", "c", quality={"format": {"ran": 1, "changed": "false"}}),
        h.task("p", "d", quality={"unresolvedTodos": 0.5}),
        h.task("p", "e", quality={"lintFix": True, "format": [1]}),
        h.task("p", "f", quality="good"),
        h.task("p", "g", quality={"lintFix": {"ran": True, "errors": 0}, "unresolvedTodos": 0}),
        '{"pipelineId": "p", "id": "h", "status": "completed", "createdAt": '
        '"2026-02-02T09:00:00Z", "metadata": {"quality": {"lintFix": {"ran": true, '
        '"errors": 1e999}, "unresolvedTodos": 1e999}}}',
    ]
    res = evaluate(rows)
    row = h.row_of(res, "p")
    assert row["quality_score"] == 70  # only task g's clean lint counts: 60 + 10
    assert res.errors == []
    # in line order, then by reason (as every diagnostic is ordered)
    assert [(d.line, d.reason) for d in res.warnings] == [
        (1, 'task "a": metadata.quality.lintFix.errors is string, not a number; ignored'),
        (1, 'task "a": metadata.quality.lintFix.ran is string, not true or false; ignored'),
        (2, 'task "b": metadata.quality.lintFix.errors -3 is not a whole number >= 0; ignored'),
        (3, 'task "c": metadata.quality.format.changed is string, not true or false; ignored'),
        (3, 'task "c": metadata.quality.format.ran is number, not true or false; ignored'),
        (4, 'task "d": metadata.quality.unresolvedTodos 0.5 is not a whole number >= 0; ignored'),
        (5, 'task "e": metadata.quality.format is array, not an object; ignored'),
        (5, 'task "e": metadata.quality.lintFix is boolean, not an object; ignored'),
        (6, 'task "f": metadata.quality is string, not an object; ignored'),
        (8, 'task "h": metadata.quality.lintFix.errors 1e999 is not a whole number >= 0; ignored'),
        (8, 'task "h": metadata.quality.unresolvedTodos 1e999 is not a whole number >= 0; ignored'),
    ]


def test_d5_a_check_that_ran_without_its_outcome_is_warned(evaluate: Any, h: Any) -> None:
    """`lintFix: {ran: true}` with no `errors` (or `format: {ran: true}` with no `changed`, or
    an `errors` count with no `ran`) is no signal and scored none, without a word: the task
    reports quality yet scores as if it did not. Each is now warned with its file, line and
    task; a null counts as absent, and `ran: false` with no outcome is no check, so no
    warning."""
    rows = [
        h.task("p", "a", quality={"lintFix": {"ran": True}}),
        h.task(
            "p", "b", quality={"lintFix": {"ran": True, "errors": None}, "format": {"ran": True}}
        ),
        h.task(
            "p", "c", quality={"lintFix": {"errors": 0}, "format": {"ran": None, "changed": False}}
        ),
        h.task("p", "d", quality={"lintFix": {"ran": False}, "format": {"ran": False}}),
        h.task("p", "e", quality={"lintFix": {"ran": True, "errors": 0}}),
    ]
    res = evaluate(rows)
    assert h.row_of(res, "p")["quality_score"] == 70  # only task e's clean lint counts
    assert res.errors == []
    assert [(d.line, d.reason) for d in res.warnings] == [
        (1, "task \"a\": metadata.quality.lintFix.ran is true but lintFix.errors is absent; "
            "no lint signal counted"),
        (2, "task \"b\": metadata.quality.format.ran is true but format.changed is absent; "
            "no format signal counted"),
        (2, "task \"b\": metadata.quality.lintFix.ran is true but lintFix.errors is absent; "
            "no lint signal counted"),
        (3, "task \"c\": metadata.quality.format.changed is given but format.ran is absent; ignored"),
        (3, "task \"c\": metadata.quality.lintFix.errors is given but lintFix.ran is absent; ignored"),
    ]  # fmt: skip


def test_d3_counts_too_large_to_count_make_the_pass_rate_unknown(evaluate: Any, h: Any) -> None:
    """Two results of 9223372036854775807 tests each add up past the 64-bit counts the
    reports and the history hold: the counts showed unknown ("— of — passed") beside a
    pass rate of 100 % (EXCELLENT). A result past that alone was ignored, so the rate of
    the other tasks stood for the pipeline's ("FAIL 1/99999999999999999999" beside
    "PASS 5/5" read 100 %). Either way the pass rate is now unknown: not verified,
    scored neutral, with a warning and a recommendation that say why."""
    from runscore.cli.pipeline import render_pipeline_markdown

    big = "FAIL 1/99999999999999999999"
    rows = [
        h.task("sum", "a", testResult="PASS 9223372036854775807/9223372036854775807"),
        h.task("sum", "b", testResult="PASS 5/5"),
        h.task("big", "a", testResult=big),
        h.task("big", "b", testResult="PASS 5/5"),
        # the largest counts that fit, alone: counted
        h.task("max", "a", testResult="PASS 9223372036854775806/009223372036854775807"),
    ]
    res = evaluate(rows)
    for pid in ("sum", "big"):
        row = h.row_of(res, pid)
        assert (row["tests_passed"], row["tests_total"], row["test_pass_rate"]) == (
            None,
            None,
            None,
        )
        assert row["test_pass_rate_verified"] is False
        assert row["test_counts_unknown"] is True
        assert row["test_score"] == 50
        assert (row["composite_score"], row["verdict"]) == (78.5, "GOOD")
        d3 = [r for r in res.rows_for(res.recommendations, pid) if r["code"] == "D3"]
        assert [r["sentence"] for r in d3] == [
            "The test counts the tasks report are too large to count (past "
            "9223372036854775807), so the pass rate is unknown (neutral score 50.00): check "
            'what writes the "PASS n/m" results, and record the real counts for every task.'
        ]
        assert [t["test_result_counted"] for t in res.rows_for(res.tasks, pid)] == [False] * 2
        md = render_pipeline_markdown(res, pid)
        assert (
            "- Tests: unknown, their counts are too large to count (see the input notes; "
            "scored as neutral 50.00)\n"
        ) in md
    top = h.row_of(res, "max")
    assert (top["tests_passed"], top["tests_total"]) == (2**63 - 2, 2**63 - 1)
    assert (top["test_pass_rate_verified"], top["test_counts_unknown"]) == (True, False)
    assert top["test_pass_rate"] == pytest.approx(100.0)
    assert [t["test_result_counted"] for t in res.rows_for(res.tasks, "max")] == [True]
    assert res.errors == []
    assert [(d.location(), d.reason) for d in res.warnings] == [
        (
            f"{res.files[0].display}:3",
            f'task "a": testResult "{big}" has a count past 9223372036854775807, too large to '
            "count; the test pass rate is unknown",
        ),
        (
            'pipeline "sum"',
            "the test counts of its tasks add up past 9223372036854775807, too many to "
            "count; the test pass rate is unknown",
        ),
    ]
    assert [r["tests_passed"] for r in res.history_records] == [None, 2**63 - 2, None]


def test_the_reports_say_a_result_of_unknown_counts_is_not_ignored(evaluate: Any, h: Any) -> None:
    """A pipeline whose test counts are too large to count: each of its task rows said
    "(ignored)", the one too large and the ones whose counts read alike, and the summary's
    test pass column "unverified", as for a pipeline with no result. Each row now says what
    became of its result, and the summary "unknown"."""
    from runscore.cli.pipeline import render_pipeline_markdown, render_summary_markdown

    big = "FAIL 1/99999999999999999999"
    rows = [
        h.task("big", "a", testResult=big),
        h.task("big", "b", testResult="PASS 5/5"),
        h.task("big", "c", testResult="PASS 6/5"),
        h.task("sum", "a", testResult="PASS 9223372036854775807/9223372036854775807"),
        h.task("sum", "b", testResult="PASS 5/5"),
        h.task("none", "a"),
    ]
    res = evaluate(rows)
    assert [t["test_result_use"] for t in res.tasks.to_pylist()] == [
        "too_large",
        "rate_unknown",
        "ignored",
        None,
        "rate_unknown",
        "rate_unknown",
    ]
    cells = {
        pid: [
            line.split(" | ")[3]
            for line in render_pipeline_markdown(res, pid).split("## Tasks")[1].splitlines()
            if line.startswith("| ") and not line.startswith("| Task ")
        ]
        for pid in ("big", "sum")
    }
    assert cells == {
        "big": [
            f"{big} (too large to count)",
            "PASS 5/5 (pass rate unknown)",
            "PASS 6/5 (ignored)",
        ],
        "sum": [
            "PASS 9223372036854775807/9223372036854775807 (pass rate unknown)",
            "PASS 5/5 (pass rate unknown)",
        ],
    }
    summary = {
        line.split(" | ")[0][2:]: line.split(" | ")[7]
        for line in render_summary_markdown(res).splitlines()
        if line.startswith("| ") and not line.startswith("| Pipeline ")
    }
    assert summary == {"big": "unknown", "none": "unverified", "sum": "unknown"}


def test_d3_grammar_folds_ascii_case_only(evaluate: Any, h: Any) -> None:
    """The grammar is written in ASCII and matched case-insensitively, as Python's
    re.IGNORECASE | re.ASCII matches it. RE2's 'i' folds Unicode: PASS spelt with U+017F (a
    long s) was counted as a PASS while FAIL spelt with U+0130 (a dotted capital I) was
    refused; both are refused now, and ASCII case still folds."""
    rows = [
        h.task("p", "a", testResult="pAsS 1/2"),
        h.task("p", "b", testResult="PA\u017fS 3/4"),
        h.task("p", "c", testResult="FA\u0130L 3/4"),
        h.task("p", "d", testResult="fa\u0131l 3/4"),  # a dotless small i
    ]
    res = evaluate(rows)
    row = h.row_of(res, "p")
    assert (row["tests_passed"], row["tests_total"]) == (1, 2)
    assert [(d.line, d.reason) for d in res.warnings] == [
        (2, 'task "b": testResult "PA\u017fS 3/4" is not "PASS n/m" or "FAIL n/m"; ignored'),
        (3, 'task "c": testResult "FA\u0130L 3/4" is not "PASS n/m" or "FAIL n/m"; ignored'),
        (4, 'task "d": testResult "fa\u0131l 3/4" is not "PASS n/m" or "FAIL n/m"; ignored'),
    ]


def test_d3_only_invalid_results_is_unverified(evaluate: Any, h: Any) -> None:
    res = evaluate([h.task("p", "a", testResult="all green"), h.task("p", "b")])
    row = h.row_of(res, "p")
    assert row["test_score"] == 50
    assert row["test_pass_rate_verified"] is False
    assert row["test_pass_rate"] is None
    assert len(res.warnings) == 1


def test_d4_end_is_completed_at_else_updated_at(evaluate: Any, h: Any) -> None:
    rows = [
        h.task(
            "p",
            "a",
            created=T0,
            updated="2026-02-02T12:00:00Z",
            completed_at="2026-02-02T10:00:00Z",
        ),
        # no completedAt: its updatedAt (11:00) ends it
        h.task(
            "p", "b", "cancelled", created="2026-02-02T09:30:00Z", updated="2026-02-02T11:00:00Z"
        ),
    ]
    row = h.row_of(evaluate(rows, [{"pipelineId": "p", "estimatedDurationMinutes": 60}]), "p")
    assert row["actual_minutes"] == 120
    assert row["time_efficiency"] == 50


def test_d4_plans_later_line_wins_and_bad_lines_rejected(evaluate: Any, h: Any) -> None:
    plans = [
        {"pipelineId": "p", "estimatedDurationMinutes": 10},
        {"pipelineId": "p", "estimatedDurationMinutes": 120},  # wins
        {"pipelineId": "p", "estimatedDurationMinutes": "soon"},  # rejected
        {"pipelineId": "p", "estimatedDurationMs": -5},  # rejected
        {"estimatedDurationMinutes": 5},  # rejected: no pipeline
        {"pipelineId": "p"},  # warning: nothing to use
        {"pipelineId": "other", "estimatedDurationMinutes": 1},
    ]
    res = evaluate(_timed(h, "p", T0, "2026-02-02T13:00:00Z"), plans)
    row = h.row_of(res, "p")
    assert row["estimated_minutes"] == 120
    assert row["time_efficiency"] == 50
    assert [(d.line, d.reason) for d in res.errors] == [
        (3, 'estimatedDurationMinutes "soon" is not a number >= 0'),
        (4, "estimatedDurationMs -5 is not a number >= 0"),
        (5, "plan has no pipelineId"),
    ]
    assert [(d.line, d.severity) for d in res.warnings] == [
        (1, "warning"),  # its estimate (10) is replaced by line 2's
        (6, "warning"),
        (7, "warning"),
    ]


def test_d4_a_replaced_plan_is_warned_with_the_line_used(evaluate: Any, h: Any) -> None:
    # The later plan of a pipeline wins; an earlier one with another estimate was dropped
    # without a word, so a user who appended a re-plan (or ran two planners) could not
    # tell which estimate D4 used. The same estimate twice loses nothing: not reported.
    plans = [
        {"pipelineId": "p", "estimatedDurationMinutes": 10},
        {"pipelineId": "p", "estimatedDurationMs": 7200000},  # 120 minutes
        {"pipelineId": "p", "estimatedDurationMinutes": 120},  # wins; same as line 2
    ]
    res = evaluate(_timed(h, "p", T0, "2026-02-02T13:00:00Z"), plans)
    assert h.row_of(res, "p")["estimated_minutes"] == 120
    assert res.errors == []
    assert [(Path(str(d.file)).name, d.line, d.pipeline_id, d.reason) for d in res.warnings] == [
        (
            "plans.jsonl",
            1,
            "p",
            f'plan for pipeline "p" is given again with another estimate at '
            f"{res.warnings[0].file}:3, which is used; this one is ignored",
        )
    ]


def test_d4_a_plan_whose_two_estimates_disagree_is_warned(evaluate: Any, h: Any) -> None:
    # Spec §1 takes estimatedDurationMinutes "(or estimatedDurationMs)": with both on one
    # line the minutes are used, and a disagreeing estimatedDurationMs (even one that is no
    # positive number) was dropped without a word, the user left to guess which D4 used.
    plans = [
        {"pipelineId": "p", "estimatedDurationMinutes": 30, "estimatedDurationMs": 3600000},
        {"pipelineId": "q", "estimatedDurationMinutes": 60, "estimatedDurationMs": 3600000},
        {"pipelineId": "r", "estimatedDurationMinutes": 60, "estimatedDurationMs": "1h"},
        {"pipelineId": "s", "estimatedDurationMinutes": 60, "estimatedDurationMs": None},
    ]
    rows = [
        row
        for pid in "pqrs"
        for row in _timed(h, pid, T0, "2026-02-02T11:00:00Z")  # 120 minutes
    ]
    res = evaluate(rows, plans)
    assert [h.row_of(res, pid)["time_efficiency"] for pid in "pqrs"] == [25, 50, 50, 50]
    assert res.errors == []
    assert [(d.line, d.pipeline_id, d.reason) for d in res.warnings] == [
        (
            1,
            "p",
            "plan gives estimatedDurationMinutes 30 and estimatedDurationMs 3600000, "
            "which disagree; estimatedDurationMinutes is used",
        ),
        (
            3,
            "r",
            'plan gives estimatedDurationMinutes 60 and estimatedDurationMs "1h", '
            "which disagree; estimatedDurationMinutes is used",
        ),
    ]


def test_d4_a_plan_for_no_pipeline_is_reported(evaluate: Any, h: Any) -> None:
    # A plan whose pipeline has no usable task snapshot (a typo in the id, tasks not
    # exported, every line rejected) was dropped with no word: the user saw "no estimate"
    # (neutral D4) for the pipeline they meant and nothing about the plan.
    plans = [
        {"pipelineId": "p", "estimatedDurationMinutes": 120},
        {"pipelineId": "P", "estimatedDurationMinutes": 60},
        {"pipelineId": "gone", "estimatedDurationMs": 60000},
        {"pipelineId": "gone", "estimatedDurationMinutes": 5},
        {"pipelineId": "open", "estimatedDurationMinutes": 5},
    ]
    rows = _timed(h, "p", T0, "2026-02-02T13:00:00Z") + [
        h.task("open", "a", "in_progress"),
        {"pipelineId": "gone", "id": 1.5, "status": "completed"},
    ]
    res = evaluate(rows, plans)
    assert h.row_of(res, "p")["estimated_minutes"] == 120
    assert h.row_of(res, "open")["status"] == "not_terminal"
    assert [(d.line, d.reason) for d in res.errors] == [
        (4, "id is number, not a string or integer")
    ]
    said = "which has no usable task snapshot; ignored"
    assert [(Path(str(d.file)).name, d.line, d.pipeline_id, d.reason) for d in res.warnings] == [
        ("plans.jsonl", 2, "P", f'plan for pipeline "P", {said}'),
        ("plans.jsonl", 3, "gone", f'plan for pipeline "gone", {said}'),
        ("plans.jsonl", 4, "gone", f'plan for pipeline "gone", {said}'),
    ]


def test_d4_estimate_without_timestamps_is_neutral_and_warned(evaluate: Any, h: Any) -> None:
    rows = [h.task("p", "a", created=None, updated=None)]
    res = evaluate(rows, [{"pipelineId": "p", "estimatedDurationMinutes": 60}])
    row = h.row_of(res, "p")
    assert row["actual_minutes"] is None
    assert row["time_efficiency"] == 70
    assert [str(d) for d in res.warnings] == [
        'pipeline "p": pipeline has an estimate but no parsable createdAt and '
        "completedAt/updatedAt; time efficiency is neutral"
    ]


def test_d4_a_plans_file_that_is_not_there_is_a_usage_error(tmp_path: Path, h: Any) -> None:
    """``evaluate_pipelines(tasks, [MISSING])`` returned the missing file as rejected input and
    scored every pipeline with a neutral time efficiency (which ``append_history`` then
    recorded), where ``pipeline --plans MISSING`` is a usage error (exit 2). The API raises
    it too, naming the argument, before anything is read: tasks that are not there either
    are not said first. A glob that matches nothing is a pattern, not a name: said among
    the inputs, as the command says it."""
    t = h.write_jsonl(tmp_path / "tasks.jsonl", [h.task("p", "a")])
    p = h.write_jsonl(
        tmp_path / "plans.jsonl", [{"pipelineId": "p", "estimatedDurationMinutes": 60}]
    )
    nope = tmp_path / "nope.jsonl"
    for tasks, plans in (([t], [nope]), ([t], [p, nope]), ([tmp_path / "gone.jsonl"], nope)):
        with pytest.raises(UsageError) as e:
            engine.evaluate_pipelines(tasks, plans, eval_date=h.EVAL_DATE)
        assert (str(e.value), e.value.cli_message, e.value.params) == (
            f"plans {nope}: no such file",
            f"--plans {nope}: no such file",
            ("plans",),
        )
    res = engine.evaluate_pipelines([t], [str(tmp_path / "q*.jsonl")], eval_date=h.EVAL_DATE)
    assert [d.reason for d in res.errors] == ["no file matches this pattern"]
    assert h.row_of(res, "p")["time_efficiency"] == 70


def test_missing_plans_is_the_one_rule_of_a_plans_file_not_there(tmp_path: Path) -> None:
    """``missing_plans`` is the rule ``evaluate_pipelines`` and ``pipeline --plans`` both
    refuse by (each tested it apart): the names not there, in the order given; not ``-``
    (standard input), not a glob (a pattern), not a dangling symlink (a file there, said
    when read)."""
    (tmp_path / "p.jsonl").write_text("")
    (tmp_path / "dangling.jsonl").symlink_to(tmp_path / "gone")
    given = ["b.jsonl", "p.jsonl", "-", "q*.jsonl", "dangling.jsonl", "a.jsonl"]
    names = [str(tmp_path / n) if n != "-" else n for n in given]
    assert engine.missing_plans(names) == [str(tmp_path / "b.jsonl"), str(tmp_path / "a.jsonl")]
    assert engine.missing_plans([]) == []
