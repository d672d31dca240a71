-- pipeline/v1 · 123 the evaluation's recommendations, listed (spec pipeline.md §5
-- recommendations, §6 output; the engine's PipelineResult.recommendations)
-- Reads: pl_recommendation (050). Produces (SELECT): pipeline_id, rank, code, label,
--   score, sentence; by pipeline (pl_pipeline_order, 000), then by rank (050's: the
--   first to work on first). Loaded by name, never run in a range.
SELECT pipeline_id, rank, code, label, score, sentence
FROM pl_recommendation
ORDER BY pl_pipeline_order(pipeline_id), rank
