-- pipeline/v1 · 230 the history's skipped lines, listed (spec effectiveness.md §4
-- reader rule; the errors of history_report and history_views)
-- Reads: pl_hist_issue (200). Produces (SELECT): severity, file, line, reason,
--   pipeline_id and the id as a message quotes it (rs_quote, common/v1), in file and
--   line order, then severity, then reason. Loaded by name, never run in a range.
SELECT severity, file, line, reason, pipeline_id, rs_quote(to_json(pipeline_id))
FROM pl_hist_issue
ORDER BY file NULLS LAST, line NULLS LAST, severity, reason
