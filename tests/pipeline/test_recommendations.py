"""Recommendations per spec pipeline.md §5: triggers, order by score (ties D1..D5), sentences."""

from __future__ import annotations

from typing import Any

import pytest
from runscore.engine.packs import pipeline as engine

LINT_CLEAN = {"lintFix": {"ran": True, "errors": 0}}
T0 = "2026-02-02T09:00:00Z"


def _clean(h: Any, pid: str, n: int = 4, **first: Any) -> list[dict[str, Any]]:
    """n completed tasks, lint clean, passing tests: D1 D2 D3 D5 all 100."""
    rows = [
        h.task(
            pid,
            f"t{k}",
            created=T0,
            updated=T0,
            completed_at=T0,
            quality=LINT_CLEAN,
            testResult="PASS 10/10",
        )
        for k in range(n)
    ]
    rows[0]["metadata"].update(first)
    return rows


@pytest.fixture(scope="module")
def batch(h: Any, tmp_path_factory: pytest.TempPathFactory) -> engine.PipelineResult:
    rows: list[dict[str, Any]] = []
    # D1 50 (3 of 5), D3 50 verified (PASS 1/2 + nothing else), D5 60: tie D1/D3 at 50.
    tie = h.pipeline_tasks("tie", 3, 2)
    tie[0].setdefault("metadata", {})["testResult"] = "PASS 1/2"
    rows += tie
    rows += _clean(h, "dev-5", deviations=list(range(5)))  # 5 → no recommendation
    rows += _clean(h, "dev-6", deviations=list(range(6)))  # 6 → D2 (score 40)
    # D4: estimate 30 min, actual 60 → 50 (< 70); estimate 42, actual 60 → 70 (not < 70)
    for pid in ("slow", "d4-exactly-70"):
        rows += [
            h.task(
                pid,
                "a",
                created=T0,
                updated=T0,
                completed_at=T0,
                quality=LINT_CLEAN,
                testResult="PASS 1/1",
            ),
            h.task(
                pid,
                "b",
                created=T0,
                updated="2026-02-02T10:00:00Z",
                completed_at="2026-02-02T10:00:00Z",
                quality=LINT_CLEAN,
                testResult="PASS 1/1",
            ),
        ]
    rows += _clean(h, "perfect")
    # D5 with signals below 70: lint errors on both tasks → 50
    rows += [
        h.task(
            "lint-errors",
            f"t{k}",
            quality={"lintFix": {"ran": True, "errors": 2}},
            testResult="PASS 1/1",
        )
        for k in range(2)
    ]
    # D1 exactly 80-bucket edge: 9 of 10 → D1 85, not < 80
    rows += [
        h.task(
            "d1-85",
            f"t{k}",
            "completed" if k else "failed",
            quality=LINT_CLEAN,
            testResult="PASS 1/1",
        )
        for k in range(10)
    ]
    plans = [
        {"pipelineId": "slow", "estimatedDurationMinutes": 30},
        {"pipelineId": "d4-exactly-70", "estimatedDurationMinutes": 42},
    ]
    d = tmp_path_factory.mktemp("recs")
    t = h.write_jsonl(d / "tasks.jsonl", rows)
    p = h.write_jsonl(d / "plans.jsonl", plans)
    return engine.evaluate_pipelines([str(t)], [str(p)], eval_date=h.EVAL_DATE)


def _recs(batch: Any, pid: str) -> list[tuple[str, float]]:
    return [(r["code"], r["score"]) for r in batch.rows_for(batch.recommendations, pid)]


@pytest.mark.parametrize(
    ("pid", "expected"),
    [
        ("tie", [("D1", 50), ("D3", 50), ("D5", 60)]),
        ("dev-5", []),
        ("dev-6", [("D2", 40)]),
        ("slow", [("D4", 50)]),
        ("d4-exactly-70", []),
        ("perfect", []),
        ("lint-errors", [("D5", 50)]),
        ("d1-85", []),
    ],
)
def test_triggers_and_order(
    batch: Any, h: Any, pid: str, expected: list[tuple[str, float]]
) -> None:
    assert _recs(batch, pid) == expected
    assert h.row_of(batch, pid)["recommendations"] == [c for c, _ in expected]
    ranks = [r["rank"] for r in batch.rows_for(batch.recommendations, pid)]
    assert ranks == list(range(1, len(expected) + 1))


def test_sentences_carry_the_numbers(batch: Any) -> None:
    def sentence(pid: str, code: str) -> str:
        return next(
            r["sentence"] for r in batch.rows_for(batch.recommendations, pid) if r["code"] == code
        )

    assert sentence("tie", "D1").startswith(
        "Only 3 of 5 tasks completed (60.00%; 2 failed, 0 cancelled)"
    )
    assert "investigate the failed and cancelled tasks" in sentence("tie", "D1")
    assert sentence("tie", "D3").startswith("Tests are failing (1 of 2 passed, 50.00%)")
    assert "red-green TDD" in sentence("tie", "D3")
    assert sentence("tie", "D5").startswith("No task reported lint or format results")
    assert sentence("dev-6", "D2").startswith("6 deviations from the plan point to scope creep")
    assert sentence("slow", "D4").startswith(
        "The pipeline took 60.00 min against an estimate of 30.00 min (time efficiency 50.00)"
    )
    assert sentence("lint-errors", "D5").startswith("Quality signals scored 50.00 of 100 (base 60)")
    # The JSON report carries the same sentences, in rank order.
    assert batch.documents["tie"]["recommendations"] == [
        sentence("tie", c) for c in ("D1", "D3", "D5")
    ]


def test_unverified_sentence_differs_from_failing(evaluate: Any, h: Any) -> None:
    res = evaluate([h.task("p", "a")])
    [d3] = [r for r in res.rows_for(res.recommendations, "p") if r["code"] == "D3"]
    assert d3["sentence"].startswith("No task reported a parsable test result")


def test_sentences_never_show_a_nonzero_rate_as_zero(h: Any, evaluate: Any) -> None:
    # The sentences wrote every number "%.2f": 1 test of 1,000,000 passed read "0.00%",
    # as if none had.
    rows = h.pipeline_tasks("p", 4)
    rows[0].setdefault("metadata", {})["testResult"] = "PASS 1/1000000"
    result = evaluate(rows)
    (d3,) = [r for r in result.rows_for(result.recommendations, "p") if r["code"] == "D3"]
    assert d3["sentence"].startswith("Tests are failing (1 of 1000000 passed, 0.0001%): ")
    assert d3["score"] == 1e-4  # D3 is the pass rate itself


def test_the_quality_sentence_says_what_was_found(evaluate: Any, h: Any) -> None:
    """D5's sentence said "lint and format issues reached completion" whatever lowered the
    score: a pipeline whose one problem was an unresolved TODO, one whose formatter changed
    files, and one that reported only a TODO count of 0 (no issue at all, only no clean
    check) were all told of lint and format issues. Each now says what its tasks reported."""
    rows = [
        h.task("todo", "a", quality={"unresolvedTodos": 2}),
        h.task("todo", "b"),
        *[h.task("lint", f"t{k}", quality={"lintFix": {"ran": True, "errors": 3}}) for k in "ab"],
        h.task("all", "a", quality={"lintFix": {"ran": True, "errors": 1}, "unresolvedTodos": 1}),
        h.task("all", "b", quality={"format": {"ran": True, "changed": True}}),
        h.task("format", "a", quality={"format": {"ran": True, "changed": True}}),
        h.task("clean-todos", "a", quality={"unresolvedTodos": 0}),
        h.task("few-clean", "a", quality={"format": {"ran": True, "changed": False}}),
        h.task("few-clean", "b", quality={"lintFix": {"ran": False}}),
    ]
    res = evaluate(rows)
    gate = "add a blocking lint gate that catches these before a task can complete."
    clean = (
        "add a blocking lint and format gate before a task can complete, so every task is checked."
    )
    found = {
        pid: [r["sentence"] for r in res.rows_for(res.recommendations, pid) if r["code"] == "D5"]
        for pid in ("todo", "lint", "all", "format", "clean-todos", "few-clean")
    }
    assert found == {
        "todo": [
            "Quality signals scored 50.00 of 100 (base 60): 1 task left unresolved TODOs; " + gate
        ],
        "lint": [
            "Quality signals scored 50.00 of 100 (base 60): 2 tasks reported lint errors; " + gate
        ],
        "all": [
            "Quality signals scored 45.00 of 100 (base 60): 1 task reported lint errors, "
            "1 task left unresolved TODOs and the formatter changed files in 1 task; " + gate
        ],
        "format": [
            "Quality signals scored 60.00 of 100 (base 60): the formatter changed files in "
            "1 task; " + gate
        ],
        "clean-todos": [
            "Quality signals scored 60.00 of 100 (base 60): no task reported an issue, but "
            "too few clean checks raise it (a clean lint run in 0 of 1 tasks, an unchanged "
            "format in 0); " + clean
        ],
        "few-clean": [
            "Quality signals scored 65.00 of 100 (base 60): no task reported an issue, but "
            "too few clean checks raise it (a clean lint run in 0 of 2 tasks, an unchanged "
            "format in 1); " + clean
        ],
    }
