-- pipeline/v1 · 231 the history report's trend, listed (spec pipeline.md §4 verdicts,
-- §3 dimensions; HistoryReport.trend, `pipeline --report`'s rows)
-- Reads: pl_hist_trend (210). Produces (SELECT): its every column, one row per period,
--   oldest first, the grand total (is_total) last. Loaded by name, never run in a range.
SELECT * FROM pl_hist_trend ORDER BY is_total, period_start
