"""The trend's exact bootstrap interval (135_trend.sql) against an independent oracle.

The oracle enumerates every resample index tuple (5^5 per half) in exact rational
arithmetic, so it shares neither the composition trick nor floating point with the SQL.
"""

from __future__ import annotations

import random
from collections import Counter
from fractions import Fraction
from itertools import product

import pytest
from runscore.engine.packs import effectiveness_history as eh

# Every resample of 5 indices, counted per multiset (plain ints: fast).
_MULTISETS = Counter(tuple(sorted(idx)) for idx in product(range(5), repeat=5))


def _boot_means(xs: list[float]) -> Counter[Fraction]:
    fx = [Fraction(x) for x in xs]
    out: Counter[Fraction] = Counter()
    for idx, n in _MULTISETS.items():
        out[sum((fx[i] for i in idx), Fraction(0)) / len(fx)] += n
    return out


def oracle(prior: list[float], last: list[float], level: float = 0.95) -> tuple[float, float]:
    a, b = _boot_means(last), _boot_means(prior)
    dist: Counter[Fraction] = Counter()
    for ma, wa in a.items():
        for mb, wb in b.items():
            dist[ma - mb] += wa * wb
    total = sum(dist.values())
    lo_at, hi_at = Fraction(1 - level) / 2 * total, Fraction(1 + level) / 2 * total
    cum, lo, hi = 0, None, None
    for d in sorted(dist):
        cum += dist[d]
        if lo is None and cum >= lo_at:
            lo = d
        if hi is None and cum >= hi_at:
            hi = d
    assert lo is not None and hi is not None
    return float(lo), float(hi)


def _cases() -> list[tuple[list[float], list[float]]]:
    rng = random.Random(20260403)
    cases = [
        ([0.60, 0.62, 0.58, 0.61, 0.59], [0.80, 0.82, 0.79, 0.81, 0.83]),
        ([0.55, 0.45, 0.65, 0.40, 0.60], [0.50, 0.35, 0.55, 0.30, 0.45]),
        ([0.5] * 5, [0.5] * 5),
        ([0.1, 0.9, 0.1, 0.9, 0.5], [0.2, 0.2, 0.2, 0.2, 0.9]),
    ]
    for _ in range(1):
        cases.append(
            ([round(rng.random(), 4) for _ in range(5)], [round(rng.random(), 4) for _ in range(5)])
        )
    return cases


def test_interval_matches_exhaustive_enumeration(write_history, make_series) -> None:
    cases = _cases()
    records = []
    for i, (prior, last) in enumerate(cases):
        records += make_series(f"case-{i}", prior + last)
    rows = {r["archetype"]: r for r in eh.report(write_history(records)).table.to_pylist()}
    for i, (prior, last) in enumerate(cases):
        row = rows[f"case-{i}"]
        lo, hi = oracle(prior, last)
        assert row["trend_delta_low"] == pytest.approx(lo, abs=1e-12), (prior, last)
        assert row["trend_delta_high"] == pytest.approx(hi, abs=1e-12), (prior, last)
        assert row["trend_delta"] == pytest.approx(sum(last) / 5 - sum(prior) / 5, abs=1e-12)
        assert row["trend_significant"] is (not (round(lo, 6) <= 0 <= round(hi, 6)))
    # constant halves: the interval is the point 0, which includes 0
    assert (rows["case-2"]["trend_delta_low"], rows["case-2"]["trend_delta_high"]) == (0.0, 0.0)
    assert rows["case-2"]["trend_significant"] is False
    assert rows["case-0"]["trend_significant"] is True


def test_interval_is_deterministic(write_history, make_series) -> None:
    p = write_history(make_series("guardian", [0.3, 0.7, 0.5, 0.2, 0.9, 0.4, 0.8, 0.6, 0.1, 0.95]))
    first = eh.report(p).table.to_pylist()
    assert eh.report(p).table.to_pylist() == first
