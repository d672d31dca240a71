"""Thresholds at their exact boundaries (spec §5, §6; README: compare at 6 decimals).

Each table of cases becomes one history with one archetype per case, scored by one
report call (a report costs a fraction of a second; one per case would not).
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pyarrow.parquet as pq
import pytest
from runscore.engine.errors import UsageError
from runscore.engine.packs import effectiveness_history as eh


def _report(
    write_history, make_series, cases: list[tuple[list[float], str | None]], **kw: Any
) -> list[dict[str, Any]]:
    records = []
    for i, (composites, model) in enumerate(cases):
        records += make_series(f"case-{i:02d}", composites, model=model)
    rows = {r["archetype"]: r for r in eh.report(write_history(records), **kw).table.to_pylist()}
    return [rows[f"case-{i:02d}"] for i in range(len(cases))]


RECOMMENDATION = [
    ([0.70], "keep"),
    ([0.7, 0.7, 0.7], "keep"),  # sum/3 = 0.6999999999999998: equal at 6 decimals
    ([0.6999996], "keep"),  # 0.700000 at 6 decimals
    ([0.6999994], "optimize"),  # 0.699999
    ([0.40], "optimize"),
    ([0.1, 0.2, 0.9], "optimize"),  # 0.4000000000000001 on the float path
    ([0.3999996], "optimize"),
    ([0.3999994], "consider_removing"),
    ([0.0], "consider_removing"),
]


def _sql_parquet(run_cli: Any, hist: Path, out: Path, query: str) -> list[dict[str, Any]]:
    """``query`` through ``runscore sql --format parquet`` (where a double is written as it
    is: no JSON null for infinity), read back."""
    r = run_cli("sql", query, "--history", str(hist), "--format", "parquet", "--output", str(out))
    assert r.exit_code == 0, r.stderr
    rows: list[dict[str, Any]] = pq.read_table(out).to_pylist()
    return rows


def test_recommendation_thresholds(write_history, make_series):
    rows = _report(write_history, make_series, [(c, None) for c, _ in RECOMMENDATION])
    for (composites, expected), row in zip(RECOMMENDATION, rows, strict=True):
        assert row["avg_composite"] == pytest.approx(sum(composites) / len(composites), abs=1e-15)
        assert row["recommendation"] == expected, composites


def test_float_noise_really_misses_the_threshold():
    # The float cases above only test something if the raw means miss the threshold.
    assert (0.7 + 0.7 + 0.7) / 3 < 0.70
    assert (0.1 + 0.2 + 0.9) / 3 > 0.40


SUGGESTION = [
    (0.70, "claude-haiku-4-5", "keep", None),
    (0.69, "claude-haiku-4-5", "none", None),
    (0.50, "claude-haiku-4-5", "none", None),  # < 0.50 is needed to upgrade
    (0.4999996, "claude-haiku-4-5", "none", None),  # 0.500000 at 6 decimals
    (0.4999994, "claude-haiku-4-5", "upgrade", "sonnet"),
    (0.49, "claude-haiku-4-5", "upgrade", "sonnet"),
    (0.70, "Claude-SONNET-4", "downgrade", "haiku"),  # substring, case-insensitive
    (0.50, "claude-sonnet-4", "none", None),
    (0.49, "claude-sonnet-4", "remove", None),
    (0.49, "claude-opus-4", "remove", None),
    (0.90, "claude-opus-4", "downgrade", "sonnet"),  # the next cheaper tier, not the cheapest
    (0.90, "gpt-4o", "none", None),  # matches no tier: unknown
    (0.10, None, "none", None),  # no model: unknown
]


def test_model_suggestion_thresholds(write_history, make_series):
    rows = _report(write_history, make_series, [([c], m) for c, m, _, _ in SUGGESTION])
    for (c, model, suggestion, target), row in zip(SUGGESTION, rows, strict=True):
        assert (row["suggestion"], row["suggested_model"]) == (suggestion, target), (c, model)


TREND = [
    (0.70, 0.75, "stable"),  # delta 0.050000000000000044: exactly +0.05 at 6 decimals
    (0.75, 0.70, "stable"),  # exactly -0.05
    (0.70, 0.750001, "improving"),
    (0.750001, 0.70, "declining"),
    (0.20, 0.2500004, "stable"),  # 0.0500004 → 0.050000
    (0.20, 0.2500006, "improving"),  # 0.0500006 → 0.050001
    (0.50, 0.50, "stable"),
]


def test_trend_margin_boundaries(write_history, make_series):
    rows = _report(write_history, make_series, [([p] * 5 + [q] * 5, None) for p, q, _ in TREND])
    for (prior, last, trend), row in zip(TREND, rows, strict=True):
        assert row["trend"] == trend, (prior, last, row["trend_delta"])


def test_exact_margin_delta_is_not_exact_in_floating_point():
    # Without the rounding to 6 decimals the first TREND case would be "improving".
    assert (0.75 * 5) / 5 - (0.70 * 5) / 5 > 0.05


def test_trend_needs_ten_runs_and_ignores_the_window(write_history, make_series):
    cases = [
        ([0.1] * 5 + [0.9] * 4, None),
        ([0.1] * 5 + [0.9] * 5, None),
        ([0.2] * 5 + [0.8] * 5, None),
    ]
    nine, ten, _ = _report(write_history, make_series, cases)
    assert (nine["trend"], nine["trend_delta"], nine["trend_significant"]) == (
        "insufficient_data",
        None,
        None,
    )
    assert ten["trend"] == "improving"
    # --window changes the averages only; the trend halves stay 5 and 5
    *_, small = _report(write_history, make_series, cases, window=3)
    assert small["avg_composite"] == pytest.approx(0.8)
    assert (small["runs_in_window"], small["window_runs"], small["trend"]) == (3, 3, "improving")


def test_a_window_too_large_is_refused_not_read_as_ten(write_history, make_series, run_cli):
    # The SQL read --window through TRY_CAST(... AS INTEGER) with 10 as the fallback: a
    # window of 2**31 or more ("all runs") silently averaged the last 10 runs instead, and
    # one of 1,000,000 to 2**31 - 1 failed in SQL (arg_max's n must be < 1000000). The
    # largest DuckDB takes is used as is; anything larger is a usage error.
    cases = [([0.1] * 5 + [0.9] * 7, None)]
    (big,) = _report(write_history, make_series, cases, window=999_999)
    assert (big["runs_in_window"], big["window_runs"]) == (12, 999_999)
    assert big["avg_composite"] == pytest.approx((0.5 + 6.3) / 12)
    for window in (0, 1_000_000, 2**31):
        # the API names its argument (window=), the CLI its option (test below)
        with pytest.raises(UsageError) as e:
            _report(write_history, make_series, cases, window=window)
        assert str(e.value) == (
            f"window must be a whole number of runs from 1 to 999999, not {window}"
        )


def test_a_window_that_is_no_whole_number_is_refused_by_the_api(write_history, make_series):
    # The API checked the range only: window=2.5 averaged the last 2 runs (the SQL cast
    # it to an INTEGER) and window=True the last one, where the CLI refuses "1.5"; a
    # window="3" stopped with Python's TypeError, not the UsageError the others get.
    cases = [([0.1] * 5 + [0.9] * 7, None)]
    for window, said in ((2.5, "2.5"), (3.0, "3.0"), (True, "true"), ("3", '"3"')):
        with pytest.raises(UsageError) as e:
            _report(write_history, make_series, cases, window=window)
        assert str(e.value) == (
            f"window must be a whole number of runs from 1 to 999999, not {said}"
        ), window
    # an integer of another type (numpy's, say) is a whole number: used as it is
    (row,) = _report(write_history, make_series, cases, window=_Index(3))
    assert (row["runs_in_window"], row["window_runs"]) == (3, 3)
    assert row["avg_composite"] == pytest.approx(0.9)


class _Index:
    """An integer that is not an int (as numpy.int64): it has __index__."""

    def __init__(self, v: int) -> None:
        self.v = v

    def __index__(self) -> int:
        return self.v


@pytest.mark.parametrize("command", [["report"], ["recommend", "team.yaml"], ["summary"]])
def test_every_window_out_of_range_is_said_in_one_message_naming_the_range(
    write_history, make_series, run_cli, command
):
    # 0 and -1 were click's "0 is not in the range x>=1.", 10**20 the engine's "--window
    # must be between 1 and 999999 runs" (once the history had been read), "abc" click's
    # "'abc' is not a valid integer range.": three wordings, one of them without the top.
    hist = write_history(make_series("case-00", [0.5] * 3))
    for bad in ("0", "-1", "1000000", str(10**20), "abc", "1.5", ""):
        r = run_cli(*command, "--history", str(hist), "--window", bad)
        assert (r.exit_code, r.stdout) == (2, ""), bad
        assert r.stderr == (
            f"error: Invalid value for '--window': \"{bad}\" is not a whole number of runs "
            f"from 1 to 999999 (see 'cli {command[0]} --help')\n"
        ), bad
    if command == ["report"]:  # the top of the range is taken
        assert run_cli("report", "--history", str(hist), "--window", "999999").exit_code == 0


RECOMMEND = [
    (0.70, "haiku", "keep"),
    (0.70, "sonnet", "downgrade"),
    (0.70, "mystery-model", "keep"),
    (0.6999996, "opus", "downgrade"),
    (0.6999994, "opus", "optimize"),
    (0.40, "haiku", "upgrade"),
    (0.40, "sonnet", "optimize"),
    (0.40, "mystery-model", "optimize"),
    (0.3999996, "sonnet", "optimize"),
    (0.3999994, "haiku", "remove"),
]


def test_recommend_thresholds(tmp_path: Path, write_history, make_series):
    records = []
    for i, (score, _, _) in enumerate(RECOMMEND):
        records += make_series(f"case-{i:02d}", [score])
    team = tmp_path / "team.yaml"
    team.write_text(
        "check: [" + ", ".join(f"case-{i:02d}" for i in range(len(RECOMMEND))) + "]\n"
        "model_overrides:\n"
        + "".join(f"  case-{i:02d}: {m}\n" for i, (_, m, _) in enumerate(RECOMMEND))
    )
    rows = eh.recommend(write_history(records), team).table.to_pylist()
    for (score, model, action), row in zip(RECOMMEND, rows, strict=True):
        assert (row["current_model"], row["model_source"], row["action"]) == (
            model,
            "model_overrides",
            action,
        ), score
        assert row["score"] == pytest.approx(score)


def test_means_of_huge_values_do_not_overflow(run_cli, write_history, make_series) -> None:
    # A hand-written history with scores and costs near the largest double: the sum of two
    # overflowed, so the mean was infinity, printed as null / "—" beside "keep", a flat
    # series was "improving" (inf − inf), and summary stopped with a traceback on "$inf".
    big = 1e308
    hist = write_history(
        make_series("flat", [big] * 10, cost=big) + make_series("two", [big, 0.5 * big])
    )
    rows = {r["archetype"]: r for r in eh.report(hist).table.to_pylist()}
    flat, two = rows["flat"], rows["two"]
    assert (flat["avg_composite"], flat["avg_cost_usd"], flat["avg_cost_efficiency"]) == (
        big,
        big,
        1 / big,
    )
    assert (flat["trend"], flat["trend_delta"], flat["trend_significant"]) == ("stable", 0.0, False)
    assert (flat["trend_delta_low"], flat["trend_delta_high"]) == (0.0, 0.0)
    assert (two["avg_composite"], two["recommendation"]) == (0.75 * big, "keep")
    # ordinary values keep the left-to-right sum (0.1 + 0.2 + 0.9 is not 1.2 / 3 exactly)
    (row,) = eh.report(
        write_history(make_series("x", [0.1, 0.2, 0.9]), "b.jsonl")
    ).table.to_pylist()
    assert row["avg_composite"] == (0.1 + 0.2 + 0.9) / 3
    r = run_cli("summary", "--history", str(hist))
    assert r.exit_code == 0, r.stderr
    # three significant digits past 1e15, as every report writes numbers: the score and
    # the cost were 309 digits each
    assert r.stdout.splitlines()[1:] == [
        "  flat: 1e+308   (keep)     — unknown, $1e+308/run avg",
        "  two:  7.5e+307 (keep)     — unknown, cost unknown",
    ]


def test_value_per_dollar_that_overflows_is_null_not_infinity(
    run_cli, tmp_path: Path, write_history, make_series
) -> None:
    # A valid but absurd cost (a subnormal 1e-310, or a score near the largest double over
    # a cost under $1) made avg_composite / avg_cost_usd infinity: the report table, the
    # views of `runscore sql` and its Parquet output held inf where §5 has no ratio.
    records = (
        make_series("tiny", [0.9, 0.9], cost=1e-310)
        + make_series("big", [1e308], cost=0.5)
        + make_series("ok", [0.9], cost=1e-300)
    )
    for rec in records:
        rec["cost_efficiency"] = 1.0  # 1 / cost would be Infinity, not JSON
    hist = write_history(records)
    rows = {r["archetype"]: r for r in eh.report(hist).table.to_pylist()}
    assert rows["tiny"]["avg_cost_usd"] == 1e-310
    assert [rows[a]["value_per_dollar"] for a in ("big", "ok", "tiny")] == [None, 0.9e300, None]
    assert _sql_parquet(
        run_cli,
        hist,
        tmp_path / "vpd.parquet",
        "SELECT archetype, a.value_per_dollar AS agg, r.value_per_dollar AS rep "
        "FROM archetype_aggregates a JOIN report r USING (archetype) ORDER BY archetype",
    ) == [
        {"archetype": "big", "agg": None, "rep": None},
        {"archetype": "ok", "agg": 0.9e300, "rep": 0.9e300},
        {"archetype": "tiny", "agg": None, "rep": None},
    ]


def test_a_trend_delta_that_overflows_is_unknown_not_infinity(
    run_cli, tmp_path: Path, write_history, make_series
) -> None:
    # Halves of opposite sign near the largest double: each mean is a double, their
    # difference is not. trend_delta was -inf/inf (the views of `runscore sql` and its
    # Parquet held it; JSON wrote null), and so was an interval bound past the largest
    # double. As value_per_dollar: unknown (NULL), never clamped. The sign is known, and
    # §5 names the trend by it: 'declining' / 'improving'; its bounds, so its significance,
    # are unknown.
    big = 1e308
    hist = write_history(
        make_series("down", [big] * 5 + [-big] * 5)
        + make_series("up", [-big] * 5 + [big] * 5)
        # delta 1.6e308 is a double; the bootstrap's last-all-big minus prior-all-(-big)
        # (2e308, weight 0.107 of the whole) is not: the upper bound is unknown
        + make_series("wide", [-big] * 4 + [0.0] + [big] * 4 + [0.0])
    )
    cols = ("trend", "trend_delta", "trend_delta_low", "trend_delta_high", "trend_significant")
    rows = {r["archetype"]: tuple(r[c] for c in cols) for r in eh.report(hist).table.to_pylist()}
    assert rows == {
        "down": ("declining", None, None, None, None),
        "up": ("improving", None, None, None, None),
        "wide": ("improving", 1.6e308, 1e308, None, True),
    }
    rows = _sql_parquet(
        run_cli,
        hist,
        tmp_path / "trend.parquet",
        "SELECT archetype, trend_delta, trend_delta_low, trend_delta_high FROM report "
        "ORDER BY archetype",
    )
    assert [tuple(d.values())[1:] for d in rows] == [
        (None, None, None),
        (None, None, None),
        (1.6e308, 1e308, None),
    ]
    report = run_cli("report", "--history", str(hist)).stdout
    assert "| up | 10 | 0.00 | 0.50 | 0.50 | — | 1.00 | improving | consider_removing |" in report
    assert "- wide: Δ 1.6e+308 [1e+308, —]" in report


def test_summary_never_shows_a_nonzero_cost_as_zero(run_cli, write_history, make_series) -> None:
    # Dollars print to 4 decimals (README), so a mean under $0.00005 printed "$0.00/run avg",
    # the same as a known cost of 0, and a negative one "$-0.00/run avg". A nonzero mean
    # that rounds to 0 now prints as a bound; a sign goes before the $, as report's
    # dollars do (and is not escaped as if it began a markdown list item).
    costs = {
        "a-zero": 0.0,
        "b-tiny": 0.00004,
        "c-subnormal": 1e-310,
        "d-half": 0.00005,  # 5.0000000000000002e-05: rounds up to 0.0001
        "e-small": 0.004,
        "f-negative": -0.004,
        "g-negative-tiny": -0.00001,
        "h-unknown": None,
    }
    records = []
    for name, cost in costs.items():
        records += make_series(name, [0.9], cost=cost)
    for rec in records:
        rec["cost_efficiency"] = None
    r = run_cli("summary", "--history", str(write_history(records)))
    assert r.exit_code == 0, r.stderr
    assert [line.rsplit(", ", 1)[1] for line in r.stdout.splitlines()[1:]] == [
        "$0.00/run avg",
        "<$0.0001/run avg",
        "<$0.0001/run avg",
        "$0.0001/run avg",
        "$0.004/run avg",
        "-$0.004/run avg",
        ">-$0.0001/run avg",
        "cost unknown",
    ]


def test_summary_says_for_how_many_runs_the_cost_is_known(run_cli, write_history, make_series):
    # summary's cost is the mean of the window's runs with a known cost (spec §5): with one
    # run of $0 and one of unknown cost it printed "$0.00/run avg", as of an archetype
    # that costs nothing on every run. It says how many runs the mean is of when not all
    # (and its JSON gives cost_runs, as report's does); a known cost of 0 stays $0.00.
    records = (
        make_series("a-half", [0.9, 0.9], cost=0.0)
        + make_series("b-all-zero", [0.9, 0.9], cost=0.0)
        + make_series("c-none", [0.9, 0.9])
        + make_series("d-two-of-three", [0.9, 0.9, 0.9], cost=0.006)
    )
    records[1]["cost_usd"] = None
    records[-1]["cost_usd"] = None
    for rec in records:
        rec["cost_efficiency"] = None
    hist = str(write_history(records))
    r = run_cli("summary", "--history", hist)
    assert r.exit_code == 0, r.stderr
    assert r.stdout == (
        "Archetype effectiveness (last 10 runs):\n"
        "  a-half:         0.90 (keep)     — unknown, $0.00/run avg (cost known for 1 of 2 runs)\n"
        "  b-all-zero:     0.90 (keep)     — unknown, $0.00/run avg\n"
        "  c-none:         0.90 (keep)     — unknown, cost unknown\n"
        "  d-two-of-three: 0.90 (keep)     — unknown, $0.006/run avg (cost known for 2 of 3 runs)\n"
    )
    r = run_cli("summary", "--history", hist, "--format", "json")
    assert r.exit_code == 0, r.stderr
    assert [
        (row["archetype"], row["avg_cost_usd"], row["cost_runs"], row["runs_in_window"])
        for row in json.loads(r.stdout)
    ] == [
        ("a-half", 0.0, 1, 2),
        ("b-all-zero", 0.0, 2, 2),
        ("c-none", None, 0, 2),
        ("d-two-of-three", 0.006, 2, 3),
    ]


def test_summary_text_prints_names_as_they_are(run_cli, write_history, make_series) -> None:
    # summary's text (spec §7) is plain text, yet its names went through the markdown
    # escape: "opus|" printed "opus\\|" and "<b>" "&lt;b&gt;". A name now prints as it is;
    # one holding a line break or a control character is quoted, as stderr's messages
    # quote a value, so a name cannot start a line that reads as another archetype's row or
    # steer the terminal, and its escapes cannot read as a name's own text (quoting.shown).
    # The markdown outputs keep escaping the same names.
    records = (
        make_series("opus|", [0.9], model="<b>*sonnet*</b> `x` [l](u)")
        + make_series("a\nevil: 0.99 (keep)", [0.5], model="m\x1b[31m\r\u2028")
        + make_series("# h & _i_", [0.3], model="claude-haiku")
    )
    hist = write_history(records)
    r = run_cli("summary", "--history", str(hist))
    assert r.exit_code == 0, r.stderr
    assert r.stdout.splitlines() == [
        "Archetype effectiveness (last 10 runs):",
        "  # h & _i_:              0.30 (consider_removing) — claude-haiku, cost unknown",
        '  "a\\nevil: 0.99 (keep)": 0.50 (optimize)          — "m\\u001B[31m\\r\\u2028", cost unknown',
        "  opus|:                  0.90 (keep)              — <b>*sonnet*</b> `x` [l](u), cost unknown",
    ]
    report = run_cli("report", "--history", str(hist)).stdout
    assert "| opus\\| | 1 | 0.90 |" in report
    assert "| \\# h &amp; \\_i\\_ | 1 | 0.30 |" in report
    assert "| a<br>evil: 0.99 (keep) | 1 | 0.50 |" in report  # a break, not a space
    assert "- opus\\| (&lt;b>\\*sonnet\\*&lt;/b> \\`x\\` \\[l\\](u), score 0.90)" in report


# ------------------------------------------------- a score beside its verdict, in markdown


def test_a_score_beside_its_verdict_never_reads_as_the_cut_off(
    tmp_path: Path, write_history, make_series, run_cli
) -> None:
    # 0.6996 is "optimize" (keep is from 0.70), and 0.0501 an improving trend (beyond
    # ±0.05): rounded to two decimals each read as the cut-off it missed or cleared
    hist = write_history(
        make_series("guardian", [0.6996] * 10, model="claude-haiku-4")
        + make_series("skeptic", [0.5] * 5 + [0.5501] * 5)
        + make_series("sage", [0.70] * 10)
    )
    report = run_cli("report", "--history", str(hist)).stdout
    assert "| guardian | 10 | 0.6996 |" in report and "| optimize |" in report
    assert "- guardian (claude-haiku-4, score 0.6996): " in report
    assert "| sage | 10 | 0.70 |" in report  # on the cut-off: as before
    assert "| skeptic | 10 | 0.53 |" in report  # away from every cut-off: as before
    assert "- skeptic: Δ 0.0501 [" in report
    rows = {r["archetype"]: r for r in eh.report(hist).table.to_pylist()}
    assert (rows["guardian"]["recommendation"], rows["skeptic"]["trend"]) == (
        "optimize",
        "improving",
    )
    summary = run_cli("summary", "--history", str(hist)).stdout
    assert "guardian: 0.6996 (optimize)" in " ".join(summary.split())
    team = tmp_path / "team.yaml"
    team.write_text("name: t\ncheck: [guardian]\n")
    rec = run_cli("recommend", str(team), "--history", str(hist)).stdout
    assert "| 0.6996 (10 runs) |" in rec
    # the cut-offs come from the version's SQL (110 thresholds, 115 windows)
    res = eh.report(hist)
    assert res.bounds["effectiveness/v1"] == {
        "score": [0.70, 0.40, 0.70, 0.50],
        "delta": [0.05, -0.05],
    }


def test_a_window_of_one_run_is_said_in_the_singular(run_cli, write_history, make_series, tmp_path):
    # --window 1 wrote "last 1 runs" in summary's header, report's and recommend's
    # headers, and recommend's note ("its last 1 runs ran on"): a window of one run is
    # "1 run"; of two, "2 runs", as before.
    hist = write_history(make_series("skeptic", [0.9, 0.8], model="claude-sonnet-4"))
    team = tmp_path / "team.yaml"
    team.write_text("name: t\ncheck: [skeptic]\n", encoding="utf-8")
    r = run_cli("summary", "--history", str(hist), "--window", "1")
    assert r.exit_code == 0, r.stderr
    assert r.stdout == (
        "Archetype effectiveness (last 1 run):\n"
        "  skeptic: 0.80 (keep)     — claude-sonnet-4, cost unknown\n"
    )
    r = run_cli("report", "--history", str(hist), "--window", "1")
    assert r.exit_code == 0, r.stderr
    assert r.stdout.splitlines()[2] == (
        "Scoring version effectiveness/v1 · averages over each archetype's last 1 run "
        "(by run time) · trend: mean of the last 5 runs − mean of the 5 before"
    )
    r = run_cli("recommend", str(team), "--history", str(hist), "--window", "1")
    assert r.exit_code == 0, r.stderr
    assert r.stdout.splitlines()[2] == (
        "Scoring version effectiveness/v1 · score = average composite over the "
        "archetype's last 1 run"
    )
    assert r.stderr == (
        "note: skeptic: the team leaves it to ArcheFlow's default, haiku (cheap); its last "
        "run ran on claude-sonnet-4 (standard): the score was earned there\n"
    )
    r = run_cli("summary", "--history", str(hist), "--window", "2")
    assert r.stdout.splitlines()[0] == "Archetype effectiveness (last 2 runs):"
