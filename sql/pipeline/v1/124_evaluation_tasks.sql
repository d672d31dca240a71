-- pipeline/v1 · 124 the evaluation's tasks, listed (spec pipeline.md §2 terminal
-- state, §6 output; the engine's PipelineResult.tasks, the report's task table)
-- Reads: pl_task_report (070). Produces (SELECT): its every column, one row per task;
--   by pipeline (pl_pipeline_order, 000), then by task id (pl_task_order, 000: natural
--   order, p2 before p10). Loaded by name, never run in a range.
SELECT * FROM pl_task_report
ORDER BY pl_pipeline_order(pipeline_id), pl_task_order(task_id)
