-- pipeline/v1 · 210 pipeline trends over time (for `runscore pipeline --report`;
-- spec pipeline.md §4 verdicts, §3 dimensions)
-- Reads: pl_hist, pl_verdict; $period ('day' | 'week' | 'month' | 'year').
-- Produces: pl_hist_trend, one row per period (oldest first) plus the grand total
--   (period NULL, is_total true, last): pipelines, how many of them have no finish
--   time (finish_unknown: unknown, or not parsable; 200 places each in the period of
--   its evaluation date, which the report says), a count per verdict, the share of
--   pipelines with a verified test pass rate, and the mean of each dimension score
--   (D1..D5) and of the composite. Weeks start on Monday (ISO).
CREATE OR REPLACE TEMP TABLE pl_hist_trend AS
WITH p AS (
    SELECT *, date_trunc($period::VARCHAR, period_ts)::DATE AS period_start FROM pl_hist
), g AS (
    SELECT period_start, false AS is_total, * EXCLUDE (period_start) FROM p
    UNION ALL
    SELECT NULL, true, * EXCLUDE (period_start) FROM p
)
SELECT period_start,
       is_total,
       count(*) AS pipelines,
       count(*) FILTER (WHERE finish_unknown) AS finish_unknown,
       count(*) FILTER (WHERE verdict = 'EXCELLENT') AS excellent,
       count(*) FILTER (WHERE verdict = 'GOOD') AS good,
       count(*) FILTER (WHERE verdict = 'ACCEPTABLE') AS acceptable,
       count(*) FILTER (WHERE verdict = 'NEEDS_IMPROVEMENT') AS needs_improvement,
       avg(CASE WHEN verified THEN 1.0 ELSE 0.0 END) AS verified_share,
       avg(d1) AS avg_task_completion,
       avg(d2) AS avg_deviation_score,
       avg(d3) AS avg_test_pass_rate,
       avg(d4) AS avg_time_efficiency,
       avg(d5) AS avg_quality,
       avg(composite) AS avg_composite
FROM g
GROUP BY period_start, is_total
ORDER BY is_total, period_start;
