-- effectiveness/v1 · 135 trend and its uncertainty              spec: effectiveness.md §5
-- Reads:    archetype_recent (125: the newest runs of each archetype), windows (115), the
--           macro _agg_mean (130: a mean that a sum overflowing a double does not make inf),
--           the macro eff_cmp_round (110: the comparisons' rounding).
-- Produces: archetype_trends — one row per archetype: trend_delta (mean composite of the
--           last trend_runs runs − mean of the trend_runs before them; NULL with fewer than
--           2·trend_runs runs, and NULL when the difference overflows a double), trend
--           ('insufficient_data' | 'improving' | 'declining' | 'stable', on the delta
--           rounded to delta_decimals against ±trend_margin), trend_delta_low / trend_delta_high (the interval_level exact
--           bootstrap percentile interval of the delta; a bound that overflows is NULL) and
--           trend_significant (false when that interval, rounded to delta_decimals,
--           includes 0, judged on the bounds before an overflowing one is made NULL; NULL
--           with fewer than 2·trend_runs runs).
-- Overflow: two means of opposite sign near the largest double (a hand-edited line can
-- hold ±1e308) differ by more than a double holds, and the delta was ±infinity: a number
-- no output can write (JSON has none). As value_per_dollar (130), a value beyond a double
-- is unknown, NULL, not clamped to the largest double (a made-up delta). Its sign is
-- known, and §5 names the trend by it ("improving if delta > 0.05"): the trend is judged
-- on the difference itself, ±infinity included (its significance is NULL when the
-- bootstrap's means are: unknown, not judged).
-- The bootstrap is exact, not sampled, so it needs no seed and is the same on every
-- machine: resampling n values with replacement can only produce the multisets of the
-- n values, i.e. the compositions of n into n parts (126 for n = 5), each with
-- multinomial probability n!/(c1!…cn!)/n^n. Each half is resampled independently; the
-- delta distribution is the product of the two (126 × 126 weighted points). Its
-- quantiles are read off the cumulative integer weights (no rounding in the weights).
-- Caveat, documented for users: with 5 values per half a percentile bootstrap interval
-- is narrow (it under-covers); "not significant" is the meaningful flag, not the reverse.
CREATE OR REPLACE TEMP TABLE archetype_trends AS
WITH RECURSIVE comp(k, remaining, counts) AS (
    SELECT 0, w.trend_runs, []::INTEGER[] FROM windows w
    UNION ALL
    SELECT c.k + 1, c.remaining - r.n, list_append(c.counts, r.n::INTEGER)
    FROM comp c, windows w, range(0, w.trend_runs + 1) AS r(n)
    WHERE c.k < w.trend_runs AND r.n <= c.remaining
      AND (c.k < w.trend_runs - 1 OR r.n = c.remaining)
), compositions AS (
    SELECT counts::DOUBLE[] AS counts,
           CAST(factorial(w.trend_runs)
                // list_reduce(list_transform(counts, lambda x: factorial(x)),
                              lambda a, b: a * b) AS BIGINT) AS weight
    FROM comp, windows w
    WHERE k = w.trend_runs
), halves AS (
    SELECT a.archetype,
           list(a.composite_score ORDER BY a.recency DESC) FILTER (WHERE a.trend_half = 'last')
               AS last_xs,
           list(a.composite_score ORDER BY a.recency DESC) FILTER (WHERE a.trend_half = 'prior')
               AS prior_xs
    FROM archetype_recent a
    GROUP BY a.archetype
), differences AS (
    SELECT h.archetype, h.last_xs, h.prior_xs,
           CASE WHEN len(h.last_xs) = w.trend_runs AND len(h.prior_xs) = w.trend_runs
                THEN _agg_mean(list_reduce(h.last_xs, lambda a, b: a + b),
                               list_sum(list_transform(h.last_xs, lambda x: x / 1048576)),
                               w.trend_runs)
                     - _agg_mean(list_reduce(h.prior_xs, lambda a, b: a + b),
                                 list_sum(list_transform(h.prior_xs, lambda x: x / 1048576)),
                                 w.trend_runs)
           END AS raw_delta
    FROM halves h, windows w
), observed AS (
    SELECT d.archetype, d.last_xs, d.prior_xs, d.raw_delta,
           CASE WHEN isfinite(d.raw_delta) THEN d.raw_delta END AS trend_delta
    FROM differences d
), boot_last AS (
    SELECT o.archetype,
           _agg_mean(list_dot_product(c.counts, o.last_xs),
                     list_dot_product(c.counts, list_transform(o.last_xs, lambda x: x / 1048576)),
                     w.trend_runs) AS m,
           c.weight
    FROM observed o, compositions c, windows w
    WHERE o.trend_delta IS NOT NULL
), boot_prior AS (
    SELECT o.archetype,
           _agg_mean(list_dot_product(c.counts, o.prior_xs),
                     list_dot_product(c.counts, list_transform(o.prior_xs, lambda x: x / 1048576)),
                     w.trend_runs) AS m,
           c.weight
    FROM observed o, compositions c, windows w
    WHERE o.trend_delta IS NOT NULL
), dist AS (
    SELECT l.archetype, l.m - p.m AS d, l.weight * p.weight AS wt
    FROM boot_last l JOIN boot_prior p USING (archetype)
), cumulative AS (
    SELECT archetype, d,
           sum(wt) OVER (PARTITION BY archetype ORDER BY d
                         ROWS BETWEEN UNBOUNDED PRECEDING AND CURRENT ROW) AS cw,
           sum(wt) OVER (PARTITION BY archetype) AS tw
    FROM dist
), bounds AS (
    SELECT c.archetype,
           min(c.d) FILTER (WHERE c.cw >= c.tw * (1 - w.interval_level) / 2) AS lo,
           min(c.d) FILTER (WHERE c.cw >= c.tw * (1 + w.interval_level) / 2) AS hi
    FROM cumulative c, windows w
    GROUP BY c.archetype
)
SELECT o.archetype,
       o.trend_delta,
       CASE WHEN o.raw_delta IS NULL THEN 'insufficient_data'
            WHEN eff_cmp_round(o.raw_delta, w.delta_decimals) > w.trend_margin THEN 'improving'
            WHEN eff_cmp_round(o.raw_delta, w.delta_decimals) < -w.trend_margin THEN 'declining'
            ELSE 'stable' END AS trend,
       CASE WHEN isfinite(b.lo) THEN b.lo END AS trend_delta_low,
       CASE WHEN isfinite(b.hi) THEN b.hi END AS trend_delta_high,
       CASE WHEN o.raw_delta IS NOT NULL
            THEN NOT (eff_cmp_round(b.lo, w.delta_decimals) <= 0
                      AND eff_cmp_round(b.hi, w.delta_decimals) >= 0)
       END AS trend_significant
FROM observed o
CROSS JOIN windows w
LEFT JOIN bounds b USING (archetype)
ORDER BY o.archetype;
