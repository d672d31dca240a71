-- pipeline/v1 · 110 the pipeline history record (.archeflow/memory/pipelines.jsonl;
-- spec README "scoring_version", effectiveness.md §4 history rules)
-- Reads: pl_pipeline; $ts (when it was scored, UTC ISO-8601), $evaluated_at,
--   $eval_date (YYYY-MM-DD), $scoring_version. Produces (SELECT): one record per
--   scored pipeline (appended in pl_pipeline_order, 000: the order of the lines one run
--   adds, never a field of a record), columns in record order; not_terminal pipelines are not
--   recorded (they have no score). Idempotency key: (pipeline_id,
--   scoring_version, inputs_sha256); readers take, per (pipeline_id,
--   scoring_version), the line with the latest ts (ties: the later line).
SELECT $ts::VARCHAR AS ts,
       pipeline_id,
       $scoring_version::VARCHAR AS scoring_version,
       inputs_sha256,
       $evaluated_at::VARCHAR AS evaluated_at,
       $eval_date::VARCHAR AS eval_date,
       strftime(started_at, '%Y-%m-%dT%H:%M:%SZ') AS started_at,
       strftime(finished_at, '%Y-%m-%dT%H:%M:%SZ') AS finished_at,
       task_count, completed, failed, cancelled,
       completion_rate, task_completion_score,
       deviation_count, deviation_score,
       tests_passed, tests_total, test_pass_rate, test_pass_rate_verified, test_score,
       actual_minutes, estimated_minutes, time_efficiency,
       quality_score,
       composite_score, verdict, recommendations,
       sources
FROM pl_pipeline
WHERE status = 'scored'
ORDER BY pl_pipeline_order(pipeline_id);
