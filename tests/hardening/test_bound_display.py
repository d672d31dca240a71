"""A value shown beside the bound it was judged against never reads as that bound.

Reports put numbers next to the thresholds that decided something: a CI width "exceeds
max_ci_width", an overlap "is below min_stratum_overlap", a composite beside its grade, an
activation rate in a tip that fires only under 100%. Rounded to the usual decimals they
could read as the bound itself or as on its other side ("0.300 exceeds max_ci_width
0.300", "50% ... below 50%", "90.00" beside a B+, "activation is 100.0%"). Such a value
keeps the decimals it needs, up to 6 (every comparison rounds to 6 decimals), and one
rule serves Python (``decimals_apart``) and the SQL (``routes_dec_vs``, ``plugin_dec_vs``).
"""

from __future__ import annotations

import random
from importlib import resources
from typing import Any

import duckdb
import pytest
from runscore.cli.output import decimals_apart, fmt_pct, fmt_vs
from runscore.cli.render import env
from runscore.engine import sqlpack
from runscore.engine.packs import routes


def _macros(pack: str, *files: str) -> duckdb.DuckDBPyConnection:
    con = duckdb.connect()
    for f in files:
        con.execute(resources.files("runscore").joinpath(f"sql/{pack}/v1/{f}").read_text())
    return con


def _routes() -> duckdb.DuckDBPyConnection:
    con = duckdb.connect()
    # 004 writes names in sentences through common/v1's rs_shown, which the pack makes first
    sqlpack.run_common(con, routes.COMMON_VERSION)
    con.execute(
        resources.files("runscore").joinpath("sql/routes/v1/004_interval_macros.sql").read_text()
    )
    return con


def _one(con: duckdb.DuckDBPyConnection, sql: str, *params: Any) -> Any:
    return con.execute(sql, list(params)).fetchall()[0][0]


@pytest.mark.parametrize(
    ("x", "b", "digits", "apart"),
    [
        (0.3004, 0.3, 3, 4),  # "0.300" vs "0.300": a fourth decimal tells them apart
        (0.35, 0.3, 3, 3),  # apart already
        (49.6, 50.0, 0, 1),
        (89.996, 90.0, 2, 3),
        (30.4, 30, 0, 1),
        (30.6, 30, 0, 0),  # "31" is not "30"
        (0.1 + 1e-7, 0.1, 3, 3),  # equal at 6 decimals: judged equal, so the usual decimals
        (0.1000006, 0.1, 2, 6),  # "0.100001": apart at the sixth
    ],
)
def test_decimals_apart_is_one_rule_in_python_and_sql(
    x: float, b: float, digits: int, apart: int
) -> None:
    assert decimals_apart(x, b, digits) == apart
    assert _one(_routes(), "SELECT routes_dec_vs(?::DOUBLE, ?::DOUBLE, ?)", x, b, digits) == apart
    plugin = _macros("plugin", "000_macros.sql")
    assert _one(plugin, "SELECT plugin_dec_vs(?::DOUBLE, ?::DOUBLE, ?)", x, b, digits) == apart


def test_decimals_apart_agrees_with_the_sql_on_values_near_their_bounds() -> None:
    rng = random.Random(7)
    cases = []
    for _ in range(300):
        b = round(rng.uniform(0, 100), rng.choice([0, 1, 2, 3]))
        x = b + rng.choice([-1, 1]) * 10 ** -rng.uniform(1, 7)
        cases.append((x, b, rng.choice([0, 1, 2, 3])))
    con, plugin = _routes(), _macros("plugin", "000_macros.sql")
    con.execute("CREATE TABLE c (i INTEGER, x DOUBLE, b DOUBLE, d INTEGER)")
    con.executemany("INSERT INTO c VALUES (?, ?, ?, ?)", [(i, *c) for i, c in enumerate(cases)])
    got = [r[0] for r in con.execute("SELECT routes_dec_vs(x, b, d) FROM c ORDER BY i").fetchall()]
    assert got == [decimals_apart(*c) for c in cases]
    plugin_got = [
        _one(plugin, "SELECT plugin_dec_vs(?::DOUBLE, ?::DOUBLE, ?)", *c) for c in cases[:50]
    ]
    assert plugin_got == got[:50]
    # and the texts at those decimals differ whenever the two differ at 6 decimals
    for (x, b, _), k in zip(cases, got, strict=True):
        if round(x, 6) != round(b, 6):
            assert f"{x:.{k}f}" != f"{b:.{k}f}"


@pytest.mark.parametrize(
    ("share", "shown"),
    [
        (0.996, "99.6%"),  # was "100%": a rate under 1 read as every episode
        (0.9999999, "99.99999%"),
        (1.0, "100%"),
        (0.5, "50%"),
        (1 / 3, "33%"),  # away from 100% the usual rounding stays
        (0.994999, "99%"),
        (3e-05, "0.003%"),  # a nonzero share is never "0%" (as before)
        (0.0, "0%"),
        (-0.996, "-99.6%"),
    ],
)
def test_a_share_under_one_is_never_shown_as_100_percent(share: float, shown: str) -> None:
    assert fmt_pct(share) == shown
    # the routes report's own percentages (its template) and the sentences its SQL writes
    assert env().from_string("{{ x | pct }}").render(x=share) == shown
    assert _one(_routes(), "SELECT routes_pct(?::DOUBLE)", share) == shown


def test_an_unknown_share_is_a_dash() -> None:
    assert [fmt_pct(v) for v in (None, float("nan"), float("inf"))] == ["—"] * 3


@pytest.mark.parametrize(
    ("score", "shown"),
    [
        (89.996, "89.996"),  # was "90.00" beside EXCELLENT's bar (above 90)
        (90.004, "90.004"),  # above 90: "90.00" read as not above it
        (75.004, "75.004"),  # GOOD's bar
        (79.9951, "80.00"),  # no pipeline cut-off at 80: the usual rounding
        (89.9999996, "90.00"),  # 90 at the comparisons' precision: judged as 90, shown so
        (90.0, "90.00"),
        (72.56508749466497, "72.57"),  # away from a cut-off: as before
        (100.0, "100.00"),
        (99.999, "99.999"),  # the scale's end: "100.00" read as a perfect score
    ],
)
def test_a_pipeline_score_never_reads_as_a_cut_off_it_is_not(score: float, shown: str) -> None:
    from runscore.engine.packs import pipeline

    cuts = pipeline.score_cuts()
    assert fmt_vs(score, cuts["composite"]) == shown
    assert env().from_string("{{ x | vs(c) }}").render(x=score, c=cuts["composite"]) == shown


def test_the_pipeline_cut_offs_are_its_sql_policy_tables() -> None:
    from runscore.engine.packs import pipeline

    # 006 (verdict bars: 90, 75, 60; pass rate above 90), 002 (D1 buckets: 100, 90, 75, 60,
    # 0), 007 (recommendations on a score: D1 < 80, D3 < 80 — D3's score is the pass
    # rate —, D4 < 70, D5 < 70), each with the scale's ends
    assert pipeline.score_cuts() == {
        "composite": [0.0, 60.0, 75.0, 90.0, 100.0],
        "completion": [0.0, 60.0, 75.0, 90.0, 100.0],
        "pass_rate": [0.0, 80.0, 90.0, 100.0],
        "share": [0.0, 100.0],
        "dimension": {
            "D1": [0.0, 80.0, 100.0],
            "D2": [0.0, 100.0],
            "D3": [0.0, 80.0, 100.0],
            "D4": [0.0, 70.0, 100.0],
            "D5": [0.0, 70.0, 100.0],
        },
    }


def test_a_value_beside_no_cut_off_keeps_the_unknown_and_integers_as_num_does() -> None:
    assert [fmt_vs(v, [90.0]) for v in (None, float("nan"), 85, True)] == ["—", "—", "85", "yes"]


@pytest.mark.parametrize(
    ("sql", "params", "text"),
    [
        # 080/085: a CI width over max_ci_width
        (
            "'width ' || routes_num_vs($1, $2, 3) || ' exceeds max_ci_width ' "
            "|| routes_num_vs($2, $1, 3)",
            [0.3004, 0.3],
            "width 0.3004 exceeds max_ci_width 0.3000",
        ),
        (
            "'width ' || routes_num_vs($1, $2, 3) || ' exceeds max_ci_width ' "
            "|| routes_num_vs($2, $1, 3)",
            [0.41, 0.25],
            "width 0.410 exceeds max_ci_width 0.250",  # as before when apart
        ),
        # 080: an overlap under min_stratum_overlap
        (
            "routes_pct_vs($1, $2) || ' is below ' || routes_pct_vs($2, $1)",
            [0.496, 0.5],
            "49.6% is below 50.0%",
        ),
        # 080/085: a lower (upper) bound against -tolerance
        (
            "'lower bound ' || routes_signed_vs($1, -$2) || ' below -tolerance -' "
            "|| routes_num_vs($2, -$1, 3)",
            [-0.1004, 0.1],
            "lower bound -0.1004 below -tolerance -0.1000",
        ),
        (
            "'lower bound ' || routes_signed_vs($1, -$2) || ' ≥ -tolerance -' "
            "|| routes_num_vs($2, -$1, 3)",
            [-0.05, 0.1],
            "lower bound -0.050 ≥ -tolerance -0.100",
        ),
        # 080/085/090: an age over freshness_days, whole days counted up (an age over 30
        # never reads "30 days", nor one judged 30 "31 days")
        (
            "routes_age_days($1) || ' old (freshness_days ' || CAST($2 AS BIGINT) || ')'",
            [30.4, 30.0],
            "31 days old (freshness_days 30)",
        ),
        (
            "routes_age_days($1) || ' old (freshness_days ' || CAST($2 AS BIGINT) || ')'",
            [45.2, 30.0],
            "46 days old (freshness_days 30)",
        ),
        (
            "routes_age_days($1) || ' old (freshness_days ' || CAST($2 AS BIGINT) || ')'",
            [30.0000004, 30.0],
            "30 days old (freshness_days 30)",
        ),
    ],
)
def test_routes_reasons_never_read_as_their_bound(sql: str, params: list[Any], text: str) -> None:
    con = _routes()
    typed = sql.replace("$1", "$1::DOUBLE").replace("$2", "$2::DOUBLE")
    assert _one(con, f"SELECT {typed}", *params) == text


def test_the_activation_tip_never_says_100_percent_of_a_rate_under_one() -> None:
    con = _macros("plugin", "000_macros.sql")
    shown = [
        _one(
            con,
            "SELECT plugin_num_text(?::DOUBLE * 100, plugin_dec_vs(?::DOUBLE * 100, 100, 1))",
            r,
            r,
        )
        for r in (0.9996, 0.95, 0.5, 0.0001)
    ]
    assert shown == ["99.96", "95.0", "50.0", "0.01"]
    tips = resources.files("runscore").joinpath("sql/plugin/v1/520_tips.sql").read_text()
    assert "plugin_dec_vs(activation_rate * 100, 100, 1)" in tips


@pytest.mark.parametrize(
    ("value", "bounds", "shown"),
    [
        (0.6996, [0.70, 0.40], "0.6996"),  # was "0.70" beside "optimize"
        (0.7004, [0.70, 0.40], "0.7004"),
        (0.70, [0.70, 0.40], "0.70"),  # on the cut-off: judged as it, shown as it
        (0.6999996, [0.70], "0.70"),  # 0.700000 at 6 decimals: judged equal
        (0.6996, [0.40, 0.50], "0.70"),  # no cut-off there: the usual rounding
        (0.0501, [0.05, -0.05], "0.0501"),
        (-0.0499, [0.05, -0.05], "-0.0499"),
        (None, [0.70], "—"),
    ],
)
def test_a_value_beside_its_cut_offs_reads_apart_from_them(
    value: Any, bounds: list[float], shown: str
) -> None:
    assert fmt_vs(value, bounds) == shown
    assert env().from_string("{{ x | vs(b) }}").render(x=value, b=bounds) == shown


@pytest.mark.parametrize(
    ("effect", "low", "high", "tolerance", "shown"),
    [
        (0.01, -0.03, 0.05, 0.05, "+0.010 [-0.030, +0.050]"),
        # a lower bound just under -tolerance (not non-inferior) never reads as it
        (0.01, -0.0500049, 0.07, 0.05, "+0.010 [-0.050005, +0.070]"),
        # -0.050000 at the comparisons' 6 decimals: judged non-inferior, shown as the bound
        (0.01, -0.0500004, 0.07, 0.05, "+0.010 [-0.050, +0.070]"),
        # a lower bound just over 0 (candidate better) never reads as 0 (as before: a
        # nonzero value that would read as 0 keeps three significant digits)
        (0.02, 0.0004, 0.04, 0.05, "+0.020 [+0.0004, +0.040]"),
        (-0.02, -0.04, -0.0004, 0.05, "-0.020 [-0.040, -0.0004]"),  # upper bound under 0
        (0.0, 0.0, 0.0, 0.05, "0.000 [0.000, 0.000]"),  # zero has no sign
        (0.01, -0.03, 0.05, None, "+0.010 [-0.030, +0.050]"),  # no tolerance known
        (None, None, None, 0.05, "—"),
    ],
)
def test_routes_effect_and_interval_read_apart_from_their_bounds(
    effect: Any, low: Any, high: Any, tolerance: Any, shown: str
) -> None:
    # the routes report's own macros (routes.md.j2 imports them from this template)
    macros = env().get_template("routes_macros.md.j2").module
    assert str(macros.ci(effect, low, high, tolerance)) == shown  # type: ignore[attr-defined]
    assert str(macros.signed(0.0004)) == "+0.0004"  # type: ignore[attr-defined]
    assert str(macros.signed(-0.0004, [0.0])) == "-0.0004"  # type: ignore[attr-defined]


def test_a_share_of_verified_pipelines_under_all_never_reads_as_100() -> None:
    # 19,999 of 20,000 pipelines with verified tests: 99.995 % read "100.00" (all of them)
    row = {
        "period_start": "2026-11-01",
        "pipelines": 20000,
        "finish_unknown": 0,
        "excellent": 1,
        "good": 2,
        "acceptable": 3,
        "needs_improvement": 4,
        "verified_share": 19999 / 20000,
        "avg_task_completion": 90.0,
        "avg_deviation_score": 80.0,
        "avg_test_pass_rate": 70.0,
        "avg_time_efficiency": 60.0,
        "avg_quality": 50.0,
        "avg_composite": 75.0,
    }
    from runscore.engine.packs import pipeline

    text = (
        env()
        .get_template("pipeline_report.md.j2")
        .render(
            rows=[row],
            total=row,
            path="p.jsonl",
            period="month",
            scoring_version="pipeline/v1",
            cuts=pipeline.score_cuts(),
        )
    )
    cells = [ln.split(" | ")[6] for ln in text.splitlines() if ln.startswith("| 2026-11-01")]
    assert cells == ["99.995"]
    assert "| 100.00 |" not in text
