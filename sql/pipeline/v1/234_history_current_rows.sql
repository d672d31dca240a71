-- pipeline/v1 · 234 the pipeline_history_current view's rows, listed (spec README
-- "history ... plus Parquet/DuckDB export", effectiveness.md §4 reader rule;
-- history_views' pipeline_history_current)
-- Reads: pl_history_current (220). Produces (SELECT): its every column but _ord, one
--   row per (pipeline_id, scoring_version), by pipeline (pl_pipeline_order, 000), then
--   by scoring version. Loaded by name, never run in a range.
SELECT * EXCLUDE (_ord) FROM pl_history_current
ORDER BY pl_pipeline_order(pipeline_id), scoring_version
