-- pipeline/v1 · 233 the pipeline_history view's rows, listed (spec README "history ...
-- plus Parquet/DuckDB export"; history_views' pipeline_history)
-- Reads: pl_history_all (220). Produces (SELECT): its every column but _ord, one row
--   per usable history line, in the history's line order (_ord). Loaded by name, never
--   run in a range.
SELECT * EXCLUDE (_ord) FROM pl_history_all ORDER BY _ord
