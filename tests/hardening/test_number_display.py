"""How numbers are shown: unknown is not zero, and a nonzero value is never shown as zero.

One rule for every human format (``sql``'s table and markdown, every report template, the
sentences the SQL writes into reports): the usual decimals (``0.56``, ``$0.0042``); a
nonzero value that would round to 0 keeps three significant digits (``3.5e-05``, ``0.004``)
or, for dollars, is a bound (``<$0.0001``); from 1e15 on, three significant digits
(``1e+308``, not 309 of them); zero unsigned; null, NaN and infinities ``—``. JSON and CSV
keep every digit.
"""

from __future__ import annotations

import csv
import decimal
import io
import json
import math
from importlib import resources
from pathlib import Path
from typing import Any

import duckdb
import pytest
from runscore.cli.output import fmt_num, fmt_pct, fmt_vs
from runscore.cli.render import env as render_env
from runscore.cli.render import usd
from runscore.engine import sqlpack


@pytest.mark.parametrize(
    ("value", "digits", "shown"),
    [
        (0.56, 2, "0.56"),  # ordinary values as before
        (1.5, 4, "1.5000"),
        (12345678.9, 4, "12345678.9000"),
        (1500.0, 0, "1500"),
        (999999999999999.0, 0, "999999999999999"),
        (12, 2, "12"),
        (2**70, 2, "1180591620717411303424"),  # an integer is exact
        (0.0, 2, "0.00"),
        (-0.0, 2, "0.00"),  # not "-0.00"
        (3.5e-05, 4, "3.5e-05"),  # was "0.0000"
        (-1e-05, 4, "-1e-05"),  # was "-0.0000"
        (0.004, 2, "0.004"),  # was "0.00"
        (0.4, 0, "0.4"),  # was "0"
        (1e-310, 4, "1e-310"),
        (1e15, 2, "1e+15"),  # was "1000000000000000.00"
        (1e300, 2, "1e+300"),
        (-1.5e308, 0, "-1.5e+308"),
        (None, 2, "—"),
        (math.nan, 2, "—"),
        (math.inf, 2, "—"),
        (True, 2, "yes"),
    ],
)
def test_fmt_num_never_shows_a_nonzero_value_as_zero(value: Any, digits: int, shown: str) -> None:
    assert fmt_num(value, digits) == shown


@pytest.mark.parametrize(
    ("value", "shown"),
    [
        (decimal.Decimal("0E-10"), "0.0000000000"),  # was "0E-10"
        (decimal.Decimal("1E+3"), "1000"),  # was "1E+3"
        (decimal.Decimal("-1E-7"), "-0.0000001"),  # was "-1E-7"
        (decimal.Decimal("NaN"), "—"),  # was "NaN"
        (decimal.Decimal("-Infinity"), "—"),  # was "-Infinity"
        # a Decimal keeps the sign of a zero, a float's is dropped (-0.0 is "0.00")
        (decimal.Decimal("-0.00"), "0.00"),  # was "-0.00"
        (decimal.Decimal("-0"), "0"),  # was "-0"
        (decimal.Decimal("-0E-10"), "0.0000000000"),  # was "-0.0000000000"
        (decimal.Decimal("-0.001").quantize(decimal.Decimal("0.01")), "0.00"),  # was "-0.00"
    ],
)
def test_the_num_filter_writes_a_decimal_in_fixed_point(value: Any, shown: str) -> None:
    assert fmt_num(value) == shown
    assert render_env().from_string("{{ v|num }}").render(v=value) == shown


def test_a_decimal_zero_is_unsigned_in_every_human_table() -> None:
    from runscore.cli.output import to_csv, to_json, to_markdown, to_table

    rows = [{"d": decimal.Decimal("-0.00"), "x": -0.0}]
    assert to_markdown(rows) == "| d | x |\n|---|---|\n| 0.00 | 0.0000 |\n"  # was "-0.00"
    assert to_table(rows).splitlines()[-1].split() == ["0.00", "0.0000"]  # was "-0.00"
    # JSON and CSV are data: the values as they are
    assert json.loads(to_json(rows)) == [{"d": 0, "x": 0}]
    assert to_csv(rows) == "d,x\n-0.00,-0.0\n"


@pytest.mark.parametrize(
    ("value", "shown"),
    [
        (None, "unknown"),
        (0.0, "$0.0000"),
        (-0.0, "$0.0000"),
        (0.0042, "$0.0042"),
        (-0.0042, "-$0.0042"),
        (1.62, "$1.6200"),
        (3.5e-05, "<$0.0001"),  # was "$0.0000"
        (-1e-05, ">-$0.0001"),  # was "$0.0000"
        (1e300, "$1e+300"),  # was 301 digits
        (-1e300, "-$1e+300"),
    ],
)
def test_usd_never_shows_a_nonzero_amount_as_zero(value: Any, shown: str) -> None:
    assert usd(value) == shown


def _routes_macros() -> duckdb.DuckDBPyConnection:
    con = duckdb.connect()
    # 004 writes names in sentences through common/v1's rs_shown, which the pack makes first
    sqlpack.run_common(con, "v1")
    sql = resources.files("runscore").joinpath("sql/routes/v1/004_interval_macros.sql")
    con.execute(sql.read_text())
    return con


@pytest.mark.parametrize(
    ("value", "signed", "pct", "dollars"),
    [
        (None, "unknown", "unknown", "unknown"),
        (0.0, "0.000", "0%", "$0.0000"),
        (-0.0, "0.000", "0%", "$0.0000"),
        (0.05, "+0.050", "5%", "$0.0500"),
        (-0.123, "-0.123", "-12%", "-$0.1230"),
        (0.0004, "+0.0004", "0.04%", "$0.0004"),  # was "0.000", "0%"
        (-0.0004, "-0.0004", "-0.04%", "-$0.0004"),
        (3e-05, "+3e-05", "0.003%", "<$0.0001"),  # was "$0.0000"
        (-3e-05, "-3e-05", "-0.003%", ">-$0.0001"),
        (1e300, "+1e+300", "1e+302%", "$1e+300"),
    ],
)
def test_the_routes_sentences_write_numbers_by_the_same_rule(
    value: Any, signed: str, pct: str, dollars: str
) -> None:
    # The headlines and reasons the routes SQL writes into the report said "0.000" and
    # "$0.0000" of a nonzero effect or saving, where the report's own cells now do not.
    con = _routes_macros()
    got = con.execute(
        "SELECT routes_signed(?::DOUBLE), routes_pct(?::DOUBLE), routes_usd(?::DOUBLE)",
        [value, value, value],
    ).fetchall()
    assert got == [(signed, pct, dollars)]


SQL_VALUES = (
    "SELECT 3.5e-05::DOUBLE AS c, 1.5::DOUBLE AS d, NULL::DOUBLE AS n, -0.0::DOUBLE AS z, "
    "-1e-05::DOUBLE AS nz, 1e300::DOUBLE AS h, 12345678.9::DOUBLE AS b"
)


def test_sql_table_and_markdown_keep_small_values_nonzero(run_cli: Any, tmp_path: Path) -> None:
    # A cost of 3.5e-05 showed as 0.0000 (and -1e-05 as -0.0000), like a known cost of
    # nothing; 1e300 as 301 digits; null as a blank cell in `table` but "—" in markdown.
    none = str(tmp_path / "no-history.jsonl")
    r = run_cli("sql", SQL_VALUES, "--history", none, "--format", "table")
    assert r.exit_code == 0, r.stderr
    assert r.stdout.splitlines()[2].split() == [
        "3.5e-05",
        "1.5000",
        "—",
        "0.0000",
        "-1e-05",
        "1e+300",
        "12345678.9000",
    ]
    r = run_cli("sql", SQL_VALUES, "--history", none, "--format", "markdown")
    assert r.exit_code == 0, r.stderr
    assert r.stdout.splitlines()[2] == (
        "| 3.5e-05 | 1.5000 | — | 0.0000 | -1e-05 | 1e+300 | 12345678.9000 |"
    )
    # data formats keep every digit
    r = run_cli("sql", SQL_VALUES, "--history", none, "--format", "json")
    assert json.loads(r.stdout) == [
        {"c": 3.5e-05, "d": 1.5, "n": None, "z": -0.0, "nz": -1e-05, "h": 1e300, "b": 12345678.9}
    ]
    r = run_cli("sql", SQL_VALUES, "--history", none, "--format", "csv")
    assert r.stdout.splitlines()[1] == "3.5e-05,1.5,,-0.0,-1e-05,1e+300,12345678.9"


DESC = "Use when testing the blending of evidence layers in this pack, for testing."


def _skill(tmp_path: Path) -> Path:
    root = tmp_path / "skills"
    (root / "base").mkdir(parents=True)
    (root / "base" / "SKILL.md").write_text(
        f"---\nname: base\ndescription: {DESC}\n---\n## Usage\nIt returns text.\n"
    )
    return root


def test_plugin_rank_table_shows_an_unknown_elo_as_a_dash(run_cli: Any, tmp_path: Path) -> None:
    # With no matchups the Elo is unknown: markdown said "—", `table` a blank cell (which
    # also shifted every later column when read by eye or split on spaces).
    r = run_cli("plugin", "rank", str(_skill(tmp_path)), "--format", "table")
    assert r.exit_code == 0, r.stderr
    head, _, row = r.stdout.splitlines()
    cells = dict(zip(head.split(), row.split(), strict=True))
    assert (cells["elo"], cells["elo_ci_low"], cells["elo_ci_high"]) == ("—", "—", "—")
    assert (cells["rank"], cells["skill"], cells["depth"]) == ("1", "base", "quick")
    r = run_cli("plugin", "rank", str(_skill(tmp_path / "b")), "--format", "csv")
    (rec,) = csv.DictReader(io.StringIO(r.stdout))
    assert rec["elo"] == ""  # CSV is data: null stays an empty cell


def test_plugin_report_writes_huge_token_counts_readably(run_cli: Any, tmp_path: Path) -> None:
    # A median of 1e308 tokens was 309 digits (three times on one line), and the tip said
    # "cap 8000.0": a raw double where the report writes whole tokens.
    mc = tmp_path / "mc.jsonl"
    run = {"skill": "base", "activated": True, "quality_score": 0.8, "errored": False}
    mc.write_text("".join(json.dumps(run | {"tokens": 1e308}) + "\n" for _ in range(2)))
    r = run_cli("plugin", "score", str(_skill(tmp_path)), "--mc", str(mc), "--no-history")
    assert r.exit_code == 0, r.stderr
    lines = r.stdout.splitlines()
    assert (
        "- Tokens (2 runs): median 1e+308, IQR 0 (Q1 1e+308, Q3 1e+308), outliers 0; "
        "efficiency 0.00"
    ) in lines
    assert (
        "3. **token_efficiency** (score 0.44, weight 0.06): median run uses 1e+308 tokens "
        "(cap 8000): trim what the model reads"
    ) in lines


def test_plugin_tip_numbers_use_the_report_rule() -> None:
    # The tips' numbers are written in SQL (plugin_num_text): the same text as fmt_num.
    con = duckdb.connect()
    sql = resources.files("runscore").joinpath("sql/plugin/v1/000_macros.sql")
    con.execute(sql.read_text())
    cases = [(1500.0, 0), (8000.0, 0), (1e308, 0), (0.3, 0), (-0.0, 1), (0.04, 1), (33.333, 1)]
    got = [con.execute("SELECT plugin_num_text(?::DOUBLE, ?)", c).fetchall()[0][0] for c in cases]
    assert got == ["1500", "8000", "1e+308", "0.3", "0.0", "0.04", "33.3"]
    assert got == [fmt_num(v, d) for v, d in cases]
    assert con.execute("SELECT plugin_num_text(NULL::DOUBLE, 1)").fetchall() == [(None,)]


#: README's rounding for reading: (value, how a score, a share and dollars read it).
HALF_TO_EVEN = {
    "0.125 reads `0.12`": (0.125, "0.12"),
    "0.375 `0.38`": (0.375, "0.38"),
    "a share of 0.625 `62%`": (0.625, "62%"),
    "of 0.875 `88%`": (0.875, "88%"),
    "$0.03125 `$0.0312`": (0.03125, "$0.0312"),
    "0.675 is 0.67500000000000004… and reads `0.68`": (0.675, "0.68"),
}


def test_rounding_for_reading_goes_half_to_even_as_the_readme_says(
    run_cli: Any, tmp_path: Path
) -> None:
    # The README pinned no rule for a value exactly halfway (62.5% read "62%"); every
    # place that rounds for reading must follow the one it now states, Python's and SQL's.
    readme = (Path(__file__).resolve().parents[2] / "README.md").read_text(encoding="utf-8")
    readme = " ".join(readme.split())  # as it reads, whatever its line breaks
    assert "round half to even" in readme
    for said in HALF_TO_EVEN:
        assert said in readme, said
    python = {
        v: usd(v) if shown.startswith("$") else fmt_pct(v) if "%" in shown else fmt_num(v)
        for v, shown in HALF_TO_EVEN.values()
    }
    assert python == {v: shown for v, shown in HALF_TO_EVEN.values()}
    # The SQL that writes numbers into reports: the routes sentences, the plugin tips, the
    # pipeline recommendations (their macros alone; the pipeline's sits in its rules file).
    con = _routes_macros()
    con.execute(resources.files("runscore").joinpath("sql/plugin/v1/000_macros.sql").read_text())
    pipeline_sql = (
        resources.files("runscore").joinpath("sql/pipeline/v1/050_recommendations.sql").read_text()
    )
    start = pipeline_sql.index("CREATE OR REPLACE TEMP MACRO pl_num_text")
    con.execute(pipeline_sql[start : pipeline_sql.index(";", start)])
    got = con.execute(
        "SELECT routes_pct(0.625::DOUBLE), routes_pct(0.875::DOUBLE), routes_usd(0.03125::DOUBLE), "
        "plugin_num_text(62.5::DOUBLE, 0), pl_num_text(0.125::DOUBLE, 2), "
        "pl_num_text(0.375::DOUBLE, 2), pl_num_text(0.675::DOUBLE, 2)"
    ).fetchall()
    assert got == [("62%", "88%", "$0.0312", "62", "0.12", "0.38", "0.68")]
    # sql's table and markdown: four decimals
    res = run_cli("sql", "SELECT 0.03125::DOUBLE AS a, 0.09375::DOUBLE AS b", "--format", "table")
    assert res.stdout == "     a       b\n------  ------\n0.0312  0.0938\n"


#: Doubles exactly halfway at 6 decimals (an odd multiple of 1/128 is the only kind: x·10^6
#: is then an integer and a half), with what they read as: the even digit.
EXACT_TIES = {
    0.0078125: 0.007812,
    0.0234375: 0.023438,
    -0.0078125: -0.007812,
    0.6953125: 0.695312,
    0.7109375: 0.710938,
    90.0078125: 90.007812,
    -1.0546875: -1.054688,
}


def test_comparisons_round_exact_ties_as_the_reports_print_them() -> None:
    # Every comparison with a threshold rounds to 6 decimals; the reports print a value
    # beside its verdict with up to 6 (README), to the even digit on an exact tie. The
    # comparisons used DuckDB's round(), which sends a tie away from zero: 0.0078125 was
    # judged as 0.007813 (above a bound of 0.007812) and printed as 0.007812. Each pack's
    # comparison rounding, and the reports' test of "reads as its bound", now agree.
    files = {
        "routes_cmp(x)": "sql/routes/v1/004_interval_macros.sql",
        "plugin_cmp(x)": "sql/plugin/v1/000_macros.sql",
        "pl_cmp(x)": "sql/pipeline/v1/006_verdicts.sql",
        "eff_cmp_round(x, 6)": "sql/effectiveness/v1/110_thresholds.sql",
    }
    for call, path in [
        *files.items(),
        ("eff_cmp_round(x, 6)", files["eff_cmp_round(x, 6)"].replace("v1", "archeflow-legacy")),
    ]:
        con = duckdb.connect()
        sqlpack.run_common(con, "v1")  # what each pack makes before its own macros
        con.execute(resources.files("runscore").joinpath(path).read_text())
        got = {
            x: con.execute(f"SELECT {call} FROM (SELECT ?::DOUBLE AS x)", [x]).fetchall()[0][0]
            for x in EXACT_TIES
        }
        assert got == EXACT_TIES, (call, path)
        # not a tie: the nearest; unknown stays unknown
        assert con.execute(
            f"SELECT {call} FROM (VALUES (0.69999949::DOUBLE), (0.6999995000001::DOUBLE), "
            "(NULL::DOUBLE)) t(x)"
        ).fetchall() == [(0.699999,), (0.7,), (None,)]
    # the reports' own test of a value against its bound (fmt_vs): equal at 6 decimals
    assert fmt_vs(0.0078125, [0.007812], 4) == "0.0078"
    assert fmt_vs(0.0078125, [0.007813], 4) == "0.007812"
    # the pipeline's, in SQL
    sql = resources.files("runscore").joinpath("sql/pipeline/v1/050_recommendations.sql")
    text = sql.read_text()
    con = duckdb.connect()
    con.execute(
        resources.files("runscore").joinpath("sql/pipeline/v1/006_verdicts.sql").read_text()
    )
    for name in ("pl_num_text", "pl_num_vs"):
        start = text.index(f"CREATE OR REPLACE TEMP MACRO {name}")
        con.execute(text[start : text.index(";", start)])
    assert con.execute(
        "SELECT pl_num_vs(0.0078125::DOUBLE, [0.007812::DOUBLE], 4), "
        "pl_num_vs(0.0078125::DOUBLE, [0.007813::DOUBLE], 4)"
    ).fetchall() == [("0.0078", "0.007812")]
