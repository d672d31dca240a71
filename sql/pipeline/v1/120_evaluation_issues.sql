-- pipeline/v1 · 120 the evaluation's diagnostics, listed (spec pipeline.md §1 input,
-- §6 output; the engine's PipelineResult.errors and .warnings, the command's notes)
-- Reads: pl_issue (010, 011). Produces (SELECT): severity, file, line, reason,
--   pipeline_id and the id as a message quotes it (rs_quote, common/v1), in file and
--   line order (a note of a pipeline, which has no file, after them), then severity;
--   between notes of one line, in the order the pipelines are listed
--   (pl_pipeline_order, 000), then by reason. Loaded by name, never run in a range.
SELECT severity, file, line, reason, pipeline_id, rs_quote(to_json(pipeline_id))
FROM pl_issue
ORDER BY file NULLS LAST, line NULLS LAST, severity, pl_pipeline_order(pipeline_id), reason
