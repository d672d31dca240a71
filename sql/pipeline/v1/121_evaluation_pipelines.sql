-- pipeline/v1 · 121 the evaluation's pipelines, listed (spec pipeline.md §6 output;
-- the engine's PipelineResult.pipelines)
-- Reads: pl_pipeline (060). Produces (SELECT): its every column, one row per
--   pipeline, in the order pipelines are listed (pl_pipeline_order, 000). Loaded by
--   name, never run in a range.
SELECT * FROM pl_pipeline ORDER BY pl_pipeline_order(pipeline_id)
