"""Exact statistics: beta quantiles / Clopper–Pearson (engine/stats.py, checked against
scipy), Wilson (SQL), and the SQL port of Python's float sum()."""

from __future__ import annotations

import math
import sys

import duckdb
import pytest
from hypothesis import given
from hypothesis import strategies as st
from runscore.engine import db, sqlpack, stats
from scipy import special
from scipy.stats import beta


def test_betainc_matches_scipy() -> None:
    for a in (0.5, 1.0, 2.5, 7.0, 40.0, 400.0, 3000.0):
        for b in (0.5, 1.0, 3.0, 12.0, 90.0, 900.0):
            for x in (1e-6, 0.01, 0.1, 0.3, 0.5, 0.7, 0.9, 0.99, 1 - 1e-6):
                want = float(special.betainc(a, b, x))
                got = stats.betainc(a, b, x)
                assert abs(got - want) <= 1e-12, (a, b, x)
                if 1e-250 < want < 0.5:  # the small tail keeps its relative precision
                    assert abs(got - want) <= 1e-9 * want, (a, b, x)


@pytest.mark.parametrize("n", [1, 2, 5, 10, 50, 100, 1000, 10000])
def test_clopper_pearson_matches_scipy(n: int) -> None:
    for k in sorted({0, 1, 2, n // 3, n // 2, n - 1, n} & set(range(n + 1))):
        lo, hi = stats.clopper_pearson(k, n, 0.95)
        want_lo = 0.0 if k == 0 else float(beta.ppf(0.025, k, n - k + 1))
        want_hi = 1.0 if k == n else float(beta.ppf(0.975, k + 1, n - k))
        assert lo == pytest.approx(want_lo, rel=1e-9, abs=1e-300)
        assert hi == pytest.approx(want_hi, rel=1e-9)


@pytest.mark.parametrize(
    ("k", "n", "lo", "hi"),
    [
        (0, 50, 0.0, 0.07112173646419777),  # 1 − 0.025^(1/50)
        (3, 100, 0.006229971538306489, 0.08517605297427962),
        (50, 50, 0.9288782635358022, 1.0),
    ],
)
def test_clopper_pearson_known_values(k: int, n: int, lo: float, hi: float) -> None:
    got = stats.clopper_pearson(k, n, 0.95)
    assert got == pytest.approx((lo, hi), rel=1e-12)


def test_clopper_pearson_zero_successes_closed_form() -> None:
    # With k = 0 the upper bound solves (1 − p)^n = α/2 exactly.
    for n in (1, 7, 50, 333):
        assert stats.clopper_pearson(0, n, 0.95)[1] == pytest.approx(
            1 - 0.025 ** (1 / n), rel=1e-12
        )


def test_beta_ppf_edges_and_errors() -> None:
    assert stats.beta_ppf(0.0, 2, 3) == 0.0
    assert stats.beta_ppf(1.0, 2, 3) == 1.0
    assert stats.betainc(2, 3, 0.0) == 0.0 and stats.betainc(2, 3, 1.0) == 1.0
    with pytest.raises(ValueError):
        stats.betainc(0, 1, 0.5)
    with pytest.raises(ValueError):
        stats.clopper_pearson(3, 2, 0.95)


# --------------------------------------------------------------------------- Python sum()


def py312_sum(xs: list[float]) -> float:
    """CPython >= 3.12 sum() of floats (Neumaier), as in Python/bltinmodule.c."""
    s, c = 0.0, 0.0
    for x in xs:
        t = s + x
        c += (s - t) + x if abs(s) >= abs(x) else (x - t) + s
        s = t
    return s + c if c and math.isfinite(c) else s


@pytest.fixture(scope="module")
def con() -> duckdb.DuckDBPyConnection:
    c = db.connect()
    sqlpack.execute(c, sqlpack.load("plugin", "v1", "macros"))
    return c


def sql_sum(con: duckdb.DuckDBPyConnection, xs: list[float]) -> float:
    return float(con.execute("SELECT plugin_fsum($xs::DOUBLE[])", {"xs": xs}).fetchall()[0][0])


def test_fsum_known_cases(con: duckdb.DuckDBPyConnection) -> None:
    assert sql_sum(con, []) == 0.0
    assert sql_sum(con, [0.1] * 10) == 1.0  # naive left-to-right gives 0.9999999999999999
    assert sql_sum(con, [1e100, 1.0, -1e100]) == 1.0
    # the static score of async-python-patterns: naive order ends in ...832, sum() in ...831
    terms = [
        0.6499999999999999 * 0.32,
        0.8 * 0.23,
        0.75 * 0.14,
        0.55 * 0.10,
        0.9154929577464789 * 0.09,
        0.5 * 0.06,
        1.0 * 0.06,
    ]
    assert sql_sum(con, terms) == 0.7243943661971831


@given(st.lists(st.floats(min_value=-1e6, max_value=1e6, allow_nan=False), max_size=12))
def test_fsum_is_python_sum(con: duckdb.DuckDBPyConnection, xs: list[float]) -> None:
    want = py312_sum(xs)
    if sys.version_info >= (3, 12):
        assert want == sum(xs)
    assert sql_sum(con, xs) == want
