-- pipeline/v1 · 122 the evaluation's dimension scores, listed (spec pipeline.md §3
-- dimensions, §6 output; the engine's PipelineResult.dimensions)
-- Reads: pl_dim_score (040). Produces (SELECT): pipeline_id, ord, code, label,
--   score, weight, weighted; by pipeline (pl_pipeline_order, 000), then in the
--   dimensions' order (001's ord, D1 first). Loaded by name, never run in a range.
SELECT pipeline_id, ord, code, label, score, weight, weighted
FROM pl_dim_score
ORDER BY pl_pipeline_order(pipeline_id), ord
