"""A number in a recommendation, or beside one, never reads as the threshold that fired it.

Spec pipeline.md §5 fires D3's recommendation under a test pass rate of 80 and D4's under
a time efficiency of 70 (on values rounded to 6 decimals). A pass rate of 79.996 written
with two decimals read "80.00%" in a sentence that says the tests are failing, and
"score 80.00" beside it (README, Commands: "A number shown beside the bound it was judged
against keeps the decimals ... that keep it from reading as that bound"). The sentences are
written by the SQL (050's ``pl_num_vs``), the report around them by the templates
(``vs`` with ``score_cuts()["dimension"]``): one rule, ``decimals_apart``.
"""

from __future__ import annotations

import datetime as dt
import json
import random
import re
from typing import Any

import pytest
from runscore.cli.output import fmt_vs
from runscore.engine import db, sqlpack
from runscore.engine.packs import pipeline as engine

NEAR = "near-bounds"  # pass rate 79.996, time efficiency 69.996: both fire, both read so
JUDGED = "judged-80"  # pass rate 79.9999996: 80 at 6 decimals, so D3 does not fire


def _task(pid: str, result: str) -> dict[str, Any]:
    return {
        "pipelineId": pid,
        "id": f"{pid}-t",
        "status": "completed",
        "createdAt": "2026-01-01T09:00:00Z",
        "updatedAt": "2026-01-01T10:40:00Z",  # 100 min
        "metadata": {"testResult": result},
    }


@pytest.fixture(scope="module")
def batch(tmp_path_factory: pytest.TempPathFactory) -> engine.PipelineResult:
    d = tmp_path_factory.mktemp("bounds")
    tasks, plans = d / "tasks.jsonl", d / "plans.jsonl"
    rows = [_task(NEAR, "PASS 19999/25000"), _task(JUDGED, "PASS 199999999/250000000")]
    tasks.write_text("".join(json.dumps(r) + "\n" for r in rows), encoding="utf-8")
    # 69.996 min estimated for 100 min taken: time efficiency 69.996
    plans.write_text(
        json.dumps({"pipelineId": NEAR, "estimatedDurationMinutes": 69.996}) + "\n",
        encoding="utf-8",
    )
    return engine.evaluate_pipelines([str(tasks)], [str(plans)], eval_date=dt.date(2026, 5, 1))


def _recs(batch: engine.PipelineResult, pid: str) -> dict[str, dict[str, Any]]:
    return {r["code"]: r for r in batch.rows_for(batch.recommendations, pid)}


def test_a_sentence_never_reads_as_the_threshold_that_fired_it(batch: Any) -> None:
    recs = _recs(batch, NEAR)
    assert recs["D3"]["score"] == pytest.approx(79.996)
    assert recs["D3"]["sentence"].startswith("Tests are failing (19999 of 25000 passed, 79.996%): ")
    assert recs["D4"]["score"] == pytest.approx(69.996)
    assert "(time efficiency 69.996): the run went over its estimate" in recs["D4"]["sentence"]
    # the JSON report carries the same sentences
    doc = json.dumps(batch.documents[NEAR])
    assert "79.996%" in doc and "time efficiency 69.996" in doc and "80.00" not in doc


def test_a_value_judged_equal_to_the_threshold_does_not_fire_and_reads_so(batch: Any) -> None:
    assert "D3" not in _recs(batch, JUDGED)
    from runscore.cli.pipeline import render_pipeline_markdown

    md = render_pipeline_markdown(batch, JUDGED)
    assert "- Tests: 199999999 of 250000000 passed (80.00 %, from 1 task result)" in md


def test_the_report_writes_the_scores_beside_their_thresholds_apart(batch: Any) -> None:
    from runscore.cli.pipeline import render_pipeline_markdown, render_summary_markdown

    md = render_pipeline_markdown(batch, NEAR)
    assert "- Tests: 19999 of 25000 passed (79.996 %, from 1 task result)" in md
    assert "| Test pass rate | 79.996 | 0.25 |" in md
    assert "| Time efficiency | 69.996 | 0.10 |" in md
    assert "**Test pass rate** (score 79.996): Tests are failing" in md
    assert "**Time efficiency** (score 69.996): The pipeline took 100.00 min" in md
    summary = render_summary_markdown(batch)
    row = next(line for line in summary.splitlines() if line.startswith(f"| {NEAR} |"))
    assert "| 79.996 | 69.996 |" in row


def _num_vs() -> Any:
    """050's macros alone (the file's table needs a whole evaluation), with the
    comparisons' rounding they use (pl_cmp, 006)."""
    con = db.connect()
    for name in ("006_verdicts", "050_recommendations"):
        text = sqlpack.load("pipeline", "v1", name).text
        for st in con.extract_statements(text):
            if re.search(r"^CREATE OR REPLACE TEMP MACRO ", st.query, re.M):
                con.execute(st)
    return con


def test_the_sql_writes_a_value_beside_its_bounds_as_the_reports_do() -> None:
    con = _num_vs()
    rng = random.Random(11)
    cases = []
    for _ in range(300):
        b = round(rng.uniform(0, 100), rng.choice([0, 1, 2]))
        x = b + rng.choice([-1, 1]) * 10 ** -rng.uniform(1, 8)
        cases.append((x, [b, 0.0, 100.0]))
    cases += [(0.0, [80.0]), (3e-05, [80.0]), (79.996, []), (None, [80.0]), (1e300, [80.0])]
    for x, bounds in cases:
        got = con.execute("SELECT pl_num_vs(?::DOUBLE, ?::DOUBLE[], 2)", [x, bounds]).fetchall()[0][
            0
        ]
        assert got == (None if x is None else fmt_vs(x, bounds)), (x, bounds)


def test_the_dimension_cut_offs_are_the_recommendation_thresholds() -> None:
    # 007: D1 < 80, D3 < 80, D4 < 70, D5 < 70 on the score; D2 on a count, not its score
    assert engine.score_cuts()["dimension"] == {
        "D1": [0.0, 80.0, 100.0],
        "D2": [0.0, 100.0],
        "D3": [0.0, 80.0, 100.0],
        "D4": [0.0, 70.0, 100.0],
        "D5": [0.0, 70.0, 100.0],
    }
