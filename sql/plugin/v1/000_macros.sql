-- plugin/v1 · 000 macros                                   spec: plugin-eval.md §3, §5, README
-- Reads:    nothing.
-- Produces: macros used by every later file:
--           plugin_fsum(xs DOUBLE[]) → DOUBLE: Python ≥ 3.12 `sum()` of floats, bit for bit
--             (Neumaier-compensated, the compensation added once at the end when it is
--             non-zero and finite). PluginEval sums its weighted sub-scores, blend weights and
--             dimension contributions with `sum()`, so its last bits depend on this algorithm;
--             plain `a + b + …` (left to right) is used wherever it adds with `+=`.
--           plugin_clamp01(x) → x limited to [0, 1]; NULL stays NULL (DuckDB's greatest and
--             least skip NULLs, so on their own they made an unknown x read as 1).
--           plugin_cmp(x) → x rounded to 6 decimals: every score-vs-threshold comparison uses
--             it (spec README "Conventions for all numbers"), by the reports' rule: the
--             nearest, an exact tie to the even digit, from the double as stored (the value
--             printed at 6 decimals, read back; README "Rounding for reading"). DuckDB's
--             round() sends a tie away from zero: 0.0078125, an exact double, is 0.007813
--             there and 0.007812 printed, so a value was judged as one number and printed
--             beside its verdict as another.
--           plugin_num_text(x, d) → x as text the way the reports write numbers
--             (runscore.cli.output.fmt_float): d decimals, but a nonzero x that would read
--             as 0 and an |x| ≥ 1e15 in three significant digits (0.04, 1e+308); zero
--             unsigned; NULL stays NULL. For numbers put into a tip's sentence.
--           plugin_dec_vs(x, b, d) → the fewest decimals from d (up to 6) at which x and b
--             read differently (d when even 6 do not): a number in a tip beside the bound it
--             was judged against never reads as that bound (an activation rate under 1 is
--             never "100.0%"). runscore.cli.output.decimals_apart is the same rule.
CREATE OR REPLACE TEMP MACRO plugin_fsum_state(xs) AS
    list_reduce(
        xs,
        lambda acc, x: {
            's': acc.s + x,
            'c': acc.c + CASE WHEN abs(acc.s) >= abs(x)
                              THEN (acc.s - (acc.s + x)) + x
                              ELSE (x - (acc.s + x)) + acc.s END
        },
        {'s': 0.0::DOUBLE, 'c': 0.0::DOUBLE}
    );

CREATE OR REPLACE TEMP MACRO plugin_fsum(xs) AS
    list_transform(
        [plugin_fsum_state(xs)],
        lambda r: CASE WHEN r.c <> 0 AND isfinite(r.c) THEN r.s + r.c ELSE r.s END
    )[1];

CREATE OR REPLACE TEMP MACRO plugin_clamp01(x) AS
    CASE WHEN x IS NOT NULL THEN greatest(0.0::DOUBLE, least(1.0::DOUBLE, x)) END;

CREATE OR REPLACE TEMP MACRO plugin_cmp(x) AS CAST(format('{:.6f}', x::DOUBLE) AS DOUBLE);

CREATE OR REPLACE TEMP MACRO plugin_dec_vs(x, b, d) AS
    coalesce(list_filter(range(d, 7),
                         lambda k: format('{:.{}f}', x::DOUBLE, k) <> format('{:.{}f}', b::DOUBLE, k))[1],
             d);

CREATE OR REPLACE TEMP MACRO plugin_num_text(x, d) AS
    CASE WHEN x IS NULL THEN NULL
         WHEN x = 0 THEN format('{:.{}f}', 0.0::DOUBLE, d)
         WHEN abs(x) >= 1e15 OR NOT regexp_matches(format('{:.{}f}', x, d), '[1-9]')
             THEN format('{:.3g}', x)
         ELSE format('{:.{}f}', x, d) END;
