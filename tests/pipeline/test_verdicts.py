"""Composite and verdict per spec pipeline.md §3–§4 (strict > on values rounded to 6 decimals)."""

from __future__ import annotations

from typing import Any

import pytest
from runscore.engine import db, sqlpack
from runscore.engine.packs import pipeline as engine

LINT_CLEAN = {"lintFix": {"ran": True, "errors": 0}}


def _pipeline(
    h: Any, pid: str, completed: int, failed: int, results: list[str], lint: bool = False
) -> list[dict[str, Any]]:
    rows = h.pipeline_tasks(pid, completed, failed)
    for k, r in enumerate(results):
        rows[k].setdefault("metadata", {})["testResult"] = r
    if lint:
        for r in rows:
            r.setdefault("metadata", {})["quality"] = LINT_CLEAN
    return rows


# pid → (completed, failed, testResults, lint clean + estimate, composite, verdict)
# D4 is 70 without an estimate, 100 with one (all tasks share one timestamp: actual 0).
CASES: dict[str, tuple[int, int, list[str], bool, float, str]] = {
    # 30 + 20 + 0.25·96 + 7 + 9 = 90 exactly → not > 90
    "exactly-90": (5, 0, ["PASS 24/25"], False, 90.0, "GOOD"),
    # D3 = 96.04 → 90.01
    "above-90": (5, 0, ["PASS 2401/2500"], False, 90.01, "EXCELLENT"),
    # D3 = 96.016 → 90.004: EXCELLENT, and its markdown must not say "90.00"
    "just-above-90": (5, 0, ["PASS 12002/12500"], False, 90.004, "EXCELLENT"),
    # 21 + 20 + 0.25·72 + 7 + 9 = 75 exactly
    "exactly-75": (3, 1, ["PASS 18/25"], False, 75.0, "ACCEPTABLE"),
    "above-75": (3, 1, ["PASS 1801/2500"], False, 75.01, "GOOD"),
    # 15 + 20 + 0.25·36 + 7 + 9 = 60 exactly
    "exactly-60": (3, 2, ["PASS 9/25"], False, 60.0, "NEEDS_IMPROVEMENT"),
    "above-60": (3, 2, ["PASS 901/2500"], False, 60.01, "ACCEPTABLE"),
    # composite 97.5 but the verified pass rate is exactly 90, not > 90 → GOOD
    "rate-exactly-90": (5, 0, ["PASS 9/10"], True, 97.5, "GOOD"),
    "rate-above-90": (5, 0, ["PASS 181/200"], True, 97.625, "EXCELLENT"),
    # unverified (neutral 50) can reach at most 87.5 in v1
    "unverified-best": (5, 0, [], True, 87.5, "GOOD"),
    "all-failed": (0, 3, ["FAIL 0/9"], False, 6 + 20 + 0 + 7 + 9, "NEEDS_IMPROVEMENT"),
}


@pytest.fixture(scope="module")
def batch(h: Any, tmp_path_factory: pytest.TempPathFactory) -> engine.PipelineResult:
    rows: list[dict[str, Any]] = []
    plans = []
    for pid, (completed, failed, results, lint, _, _) in CASES.items():
        rows += _pipeline(h, pid, completed, failed, results, lint)
        if lint:
            plans.append({"pipelineId": pid, "estimatedDurationMinutes": 60})
    d = tmp_path_factory.mktemp("verdicts")
    t = h.write_jsonl(d / "tasks.jsonl", rows)
    p = h.write_jsonl(d / "plans.jsonl", plans)
    return engine.evaluate_pipelines([str(t)], [str(p)], eval_date=h.EVAL_DATE)


@pytest.mark.parametrize("pid", list(CASES))
def test_composite_and_verdict(batch: Any, h: Any, pid: str) -> None:
    *_, composite, verdict = CASES[pid]
    row = h.row_of(batch, pid)
    assert row["composite_score"] == pytest.approx(composite, abs=1e-9)
    assert row["verdict"] == verdict
    assert batch.documents[pid]["verdict"] == verdict


def test_excellent_withheld_flag(batch: Any, h: Any) -> None:
    withheld = {pid for pid in CASES if h.row_of(batch, pid)["excellent_withheld"]}
    assert withheld == {"rate-exactly-90"}


def test_the_markdown_shows_a_composite_apart_from_the_bar_it_cleared(batch: Any) -> None:
    from runscore.cli.pipeline import render_pipeline_markdown

    # 90.004 is above EXCELLENT's 90; "90.00" read as not above it
    md = render_pipeline_markdown(batch, "just-above-90")
    assert "**Verdict: EXCELLENT** · composite score **90.004** / 100" in md
    assert "| **Composite** | | **1.00** | **90.004** |" in md
    md = render_pipeline_markdown(batch, "exactly-90")
    assert "**Verdict: GOOD** · composite score **90.00** / 100" in md
    # the bar the composite clears without the pass rate comes from the verdict table
    md = render_pipeline_markdown(batch, "rate-exactly-90")
    assert (
        "> The composite clears the EXCELLENT bar, but EXCELLENT also needs a verified test "
        "pass rate above 90 % (this pipeline: 90.00 %), so the verdict is GOOD."
    ) in md
    assert engine.best_verdict_pass_rate() == 90.0


@pytest.mark.parametrize(
    ("counts_unknown", "why"),
    [
        (False, "no task reported a parsable test result"),
        (True, "its test counts are too large to count"),
    ],
)
def test_a_withheld_excellent_says_the_pass_rate_is_unknown(
    batch: Any, monkeypatch: pytest.MonkeyPatch, counts_unknown: bool, why: str
) -> None:
    from runscore.cli.pipeline import render_pipeline_markdown

    # Not reachable from inputs in v1 (an unverified D3 is 50, the composite at most
    # 87.5), so the row says it. The note read "(this pipeline has none)": a pass rate
    # absent, where it is unknown (the tests may have run; no result could be read).
    rows_for = batch.rows_for

    def withheld(table: Any, pid: str) -> list[dict[str, Any]]:
        rows = rows_for(table, pid)
        if table is batch.pipelines:
            return [
                dict(r, excellent_withheld=True, test_counts_unknown=counts_unknown) for r in rows
            ]
        return rows

    monkeypatch.setattr(batch, "rows_for", withheld)
    md = render_pipeline_markdown(batch, "unverified-best")
    assert (
        "> The composite clears the EXCELLENT bar, but EXCELLENT also needs a verified test "
        f"pass rate above 90 % (this pipeline's is unknown: {why}), so the verdict is GOOD."
    ) in md


# --------------------------------------------------------------------------- SQL unit


def _verdict_sql(
    scores: dict[str, float], verified: bool, pass_rate: float | None
) -> tuple[float, str, bool]:
    """Run 040 alone on hand-made dimension tables (exercises values the inputs rarely hit)."""
    con = db.connect()
    sqlpack.run_common(con, engine.COMMON_VERSION)  # 009's pl_shown calls rs_show_unseen
    sqlpack.run_range(con, "pipeline", "v1", 0, 9)
    con.execute("CREATE TEMP TABLE pl_state AS SELECT 'p' AS pipeline_id, 'scored' AS status")
    for code in ("d1", "d2", "d4", "d5"):
        con.execute(
            f"CREATE TEMP TABLE pl_{code} AS SELECT 'p' AS pipeline_id, $s::DOUBLE AS score",
            {"s": scores[code]},
        )
    con.execute(
        "CREATE TEMP TABLE pl_d3 AS SELECT 'p' AS pipeline_id, $s::DOUBLE AS score, "
        "$v::BOOLEAN AS verified, $r::DOUBLE AS pass_rate",
        {"s": scores["d3"], "v": verified, "r": pass_rate},
    )
    sqlpack.execute(con, sqlpack.load("pipeline", "v1", "composite_verdict"))
    rows = con.execute("SELECT composite, verdict, excellent_withheld FROM pl_score").fetchall()
    c, v, w = rows[0]
    return c, v, w


def test_unverified_tests_never_excellent() -> None:
    # Not reachable from inputs in v1 (unverified D3 is 50), but the rule must hold.
    c, v, w = _verdict_sql({"d1": 100, "d2": 100, "d3": 100, "d4": 100, "d5": 100}, False, None)
    assert (c, v, w) == (100.0, "GOOD", True)


@pytest.mark.parametrize(
    ("d3", "verdict"),
    [
        (96 + 4e-14, "GOOD"),  # composite 90.00000000000001: rounds to 90, not > 90
        (96 + 4e-6, "EXCELLENT"),  # 90.000001 after rounding: > 90
        (96 - 4e-14, "GOOD"),
    ],
)
def test_threshold_compares_rounded_value(d3: float, verdict: str) -> None:
    c, v, _ = _verdict_sql({"d1": 100, "d2": 100, "d3": d3, "d4": 70, "d5": 60}, True, d3)
    assert c == pytest.approx(90.0, abs=1e-5)
    assert v == verdict
