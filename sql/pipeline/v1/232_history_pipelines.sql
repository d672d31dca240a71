-- pipeline/v1 · 232 the history report's pipelines, listed (spec effectiveness.md §4
-- reader rule, pipeline.md §3 dimensions; HistoryReport.pipelines)
-- Reads: pl_hist (200: the current line per pipeline). Produces (SELECT): pipeline_id,
--   period_ts, finish_unknown, verdict, the five dimension scores, composite_score and
--   verified, one row per pipeline, in the order pipelines are listed
--   (pl_pipeline_order, 000): by id alone, as every listing of pipelines; sorted by
--   period first, a pipeline was found only by knowing when it finished. One row per
--   pipeline, so its period never decides between two rows. Loaded by name, never run
--   in a range.
SELECT pipeline_id, period_ts, finish_unknown, verdict, d1 AS task_completion_score,
       d2 AS deviation_score, d3 AS test_score, d4 AS time_efficiency,
       d5 AS quality_score, composite AS composite_score, verified
FROM pl_hist
ORDER BY pl_pipeline_order(pipeline_id)
