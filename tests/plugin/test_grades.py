"""Letter grades of a 0–100 value (spec plugin-eval.md §5), at their cut-offs.

The grades are a table (``plugin_grade_cut``), which the ``plugin_grade`` macro reads and
the reports use to write a score beside its grade apart from the cut-offs: these pin
that the table is the spec's list and that the macro grades by it, comparisons at 6
decimals (spec README)."""

from __future__ import annotations

from importlib import resources
from types import SimpleNamespace
from typing import Any

import duckdb
import pytest
from runscore.cli.plugin import render_report

SPEC = [
    ("A+", 97), ("A", 93), ("A-", 90), ("B+", 87), ("B", 83), ("B-", 80),
    ("C+", 77), ("C", 73), ("C-", 70), ("D+", 67), ("D", 63), ("D-", 60),
]  # fmt: skip


@pytest.fixture(scope="module")
def con() -> duckdb.DuckDBPyConnection:
    c = duckdb.connect()
    for f in ("000_macros.sql", "010_policy.sql"):
        c.execute(resources.files("runscore").joinpath(f"sql/plugin/v1/{f}").read_text())
    return c


def test_the_cut_offs_are_the_specs(con: duckdb.DuckDBPyConnection) -> None:
    rows = con.execute("SELECT grade, min_score FROM plugin_grade_cut").fetchall()
    assert rows == [(g, float(m)) for g, m in SPEC]


@pytest.mark.parametrize(
    ("value", "grade"),
    [
        (100.0, "A+"),
        (97.0, "A+"),
        (96.9999996, "A+"),  # 97.000000 at 6 decimals
        (96.9999994, "A"),
        (90.0, "A-"),
        (89.996, "B+"),
        (60.0, "D-"),
        (59.9999994, "F"),
        (0.0, "F"),
        (-5.0, "F"),
        (None, None),
    ]
    + [(float(m), g) for g, m in SPEC]
    + [(m - 0.001, SPEC[i + 1][0] if i + 1 < len(SPEC) else "F") for i, (_, m) in enumerate(SPEC)],
)
def test_a_value_gets_the_grade_of_the_first_cut_off_it_reaches(
    con: duckdb.DuckDBPyConnection, value: Any, grade: str | None
) -> None:
    assert con.execute("SELECT plugin_grade(?::DOUBLE)", [value]).fetchall() == [(grade,)]


def test_grades_over_many_rows_in_one_query(con: duckdb.DuckDBPyConnection) -> None:
    # the macro reads the table in a subquery: over a column of values too
    got = con.execute(
        "SELECT list(plugin_grade(v) ORDER BY v) FROM (VALUES (59.0), (60.0), (89.996), (97.0)) t(v)"
    ).fetchall()[0][0]
    assert got == ["F", "D-", "B+", "A+"]


@pytest.mark.parametrize(
    ("judged", "shown", "grade"),
    [
        (0.8999999, "0.90", "A-"),  # 0.900000 at 6 decimals: was graded B+ beside "0.90"
        (0.8999994, "0.899999", "B+"),  # under 0.90 at 6 decimals, and written so
        (0.9, "0.90", "A-"),
    ],
)
def test_a_dimension_is_graded_as_its_score_is_written(
    tmp_path: Any, kit: SimpleNamespace, judged: float, shown: str, grade: str
) -> None:
    # Only judges feed scope_calibration: its score is the judge's. It was graded on
    # score × 100 at 6 decimals (8 of the score), while the report compares and writes the
    # score at 6 decimals of its own scale (spec README).
    skill = {"text": "---\nname: g\ndescription: Use when grading dimensions.\n---\n"}
    judge = [{"skill": "g", "judge": "j", "scores": {"scope_calibration": judged}}]
    by_skill, result = kit.score(tmp_path, {"g": skill}, judge=judge)
    assert by_skill["g"]["dimensions"]["scope_calibration"]["grade"] == grade
    assert f"| scope_calibration | 0.12 | {shown} | {grade} |" in render_report(result)
