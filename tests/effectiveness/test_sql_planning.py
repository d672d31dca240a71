"""What the extract's SQL costs DuckDB to plan, before any row is read.

DuckDB plans a macro's call as the macro's whole text with the argument written in at
each place the macro names it: a call whose argument is another macro's call is planned
as that text as many times over. ``run_ts_ok(rs_iso_text(...))`` wrote common/v1's ISO
reader (eight regular expressions, its week and ordinal dates) seven times into one
statement: ~80 ms of CPU in every extract, as much for one run as for 10k
(benchmarks/RESULTS.md, "Forty-second pass"). The reader is applied once, and the
macros over its result take a column.
"""

from __future__ import annotations

import re

import pytest
from runscore.engine import sqlpack


def _statements(name: str, strings: bool = True) -> list[str]:
    """The statements of ``name``, without comments (and, if ``strings``, string literals)."""
    text = sqlpack._strip_comments(sqlpack.load("effectiveness", "v1", name).text, strings)
    return [s for s in text.split(";") if s.strip()]


def _calls(stmt: str, macro: str) -> list[str]:
    """The argument text of each call of ``macro`` in ``stmt`` (to its closing bracket)."""
    out = []
    for m in re.finditer(rf"\b{macro}\s*\(", stmt):
        depth, i = 1, m.end()
        while depth:
            depth += {"(": 1, ")": -1}.get(stmt[i], 0)
            i += 1
        out.append(stmt[m.end() : i - 1].strip())
    return out


def test_run_status_reads_each_runs_time_with_the_iso_reader_once() -> None:
    stmts = _statements("015_run_status.sql")
    uses = [c for s in stmts for c in _calls(s, "rs_iso_text")]
    assert uses == ["ts"]
    queries = [s for s in stmts if not re.match(r"\s*CREATE OR REPLACE MACRO", s, re.I)]
    for macro in ("run_ts_ok", "run_ts_utc", "run_ts_at"):
        args = {c for s in queries for c in _calls(s, macro)}
        assert args <= {"u"}, (macro, args)
    # the runs' last run.complete is looked for in the events once
    assert sum(s.count("'run.complete'") for s in _statements("015_run_status.sql", False)) == 1


@pytest.mark.parametrize("version", ["v1", "archeflow-legacy"])
def test_history_reader_casts_each_time_once_outside_any_coalesce(version: str) -> None:
    # 100_history.sql (the careful reader: a history with a bad line, and every
    # archeflow-legacy report) read a time as coalesce(_h_time_cast(s), <wide reading>),
    # where DuckDB shares none of the cast's three uses of its text, and took ts so three
    # times per line (the checks, then ts and run_ts). The cast is a column of its own,
    # made once per field, the wide reading a step after it, as in 100_history_fast.sql.
    text = sqlpack._strip_comments(sqlpack.load("effectiveness", version, "100_history").text, True)
    stmts = [s for s in text.split(";") if s.strip()]
    queries = [s for s in stmts if not re.match(r"\s*CREATE OR REPLACE (TEMP )?MACRO", s, re.I)]
    casts = sorted(c for s in queries for c in _calls(s, "_h_time_cast"))
    assert casts == ["_h_text(run_ts)", "_h_text(ts)"]
    for s in stmts:
        for args in _calls(s, "coalesce"):
            assert "_h_time_cast" not in args, args
