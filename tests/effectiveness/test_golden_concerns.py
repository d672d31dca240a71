"""One golden case per SQL concern of effectiveness/v1 (files 000-090).

Each ``golden/<case>/`` holds ``events.jsonl`` (a small hand-written input) and one
``<table>.csv`` per table it checks: the expected rows of that table after
``build_event_tables(con, ["events.jsonl"])``, projected to the CSV's columns and
compared as a multiset (numbers by value; an empty cell is null; lists as JSON).
Every expected row was worked out by hand from spec effectiveness.md §1-§4; the
reasoning for the less obvious rows is in ``golden/<case>/README.md``.
"""

from __future__ import annotations

import functools
import os
from pathlib import Path
from typing import Any

import duckdb
import pytest

GOLDEN = Path(__file__).resolve().parent / "golden"
CASES = sorted(p for p in GOLDEN.iterdir() if (p / "events.jsonl").is_file())


def _checks() -> list[tuple[Path, Path]]:
    out = []
    for case in CASES:
        for csv_path in sorted(case.glob("*.csv")):
            out.append((case, csv_path))
    return out


def test_every_concern_has_a_golden_case() -> None:
    tables = {csv.stem for _, csv in _checks()}
    # The tables the issue names, one concern each (SQL files 000-090).
    assert {
        "accepted",
        "row_issues",
        "run_status",
        "edges",
        "edge_warnings",
        "verdicts",
        "findings",
        "fix_attribution",
        "fix_warnings",
        "archetype_costs",
        "finding_flags",
        "run_scores",
        "history_records",
    } <= tables


@functools.cache
def _built(case: Path, build: Any) -> duckdb.DuckDBPyConnection:
    """Each case is scored once for all its CSVs (from its own folder, so that `_file`
    and `source` read "events.jsonl")."""
    cwd = os.getcwd()
    os.chdir(case)
    try:
        con: duckdb.DuckDBPyConnection = build(["events.jsonl"])
    finally:
        os.chdir(cwd)
    return con


@pytest.mark.parametrize(
    ("case", "expected"), _checks(), ids=[f"{c.name}/{e.stem}" for c, e in _checks()]
)
def test_golden_table(case: Path, expected: Path, h: Any) -> None:
    con = _built(case, h.build)
    h.compare_table(con, expected.stem, expected)


def test_history_records_columns_in_spec_order(h: Any) -> None:
    """history_records has exactly the fields of spec §4, in that order (ts included)."""
    case = GOLDEN / "history_records"
    con = _built(case, h.build)
    assert con.sql("SELECT * FROM history_records").columns == h.RECORD_FIELDS
    header, _ = h.read_expected(case / "history_records.csv")
    assert header == [c for c in h.RECORD_FIELDS if c != "events_sha256"]
    ts = {r[0] for r in con.sql("SELECT ts FROM history_records").fetchall()}
    assert ts == {h.SCORED_AT}
