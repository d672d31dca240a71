-- pipeline/v1 · 060 one row per pipeline: the result the engine returns (spec pipeline.md §2–§6)
-- Reads: pl_state, pl_d1..pl_d5, pl_score, pl_recommendation, pl_task, pl_estimate.
-- Produces: pl_pipeline (grain: pipeline; ordered by pl_pipeline_order, 000). Every score
-- column is NULL for a 'not_terminal' pipeline (no score is produced). Columns:
--   pipeline_id, status ('scored' | 'not_terminal'), task_count, completed,
--   failed, cancelled, non_terminal_task_ids,
--   completion_rate (raw %), task_completion_score (D1),
--   deviation_count (NULL when unknown: a task's metadata.deviations is not an array,
--   031), deviations_known (the items counted: the count, or what it is at least),
--   deviation_score (D2),
--   tests_passed, tests_total, test_results (parsable results counted),
--   test_pass_rate (raw %, NULL when unverified), test_pass_rate_verified,
--   test_score (D3: the rate, or 50 when unverified), test_counts_unknown (the
--   counts are too large to count: tests_passed, tests_total and the rate unknown),
--   started_at, finished_at, actual_minutes, estimated_minutes, time_efficiency (D4),
--   quality_score (D5), quality_reporting_tasks,
--   composite_score, verdict, excellent_withheld (composite above EXCELLENT's bar
--   but no verified pass rate above its bar), recommendations (D-codes in rank order),
--   inputs_sha256 (hash of the pipeline's winning snapshots and estimate: the
--   history idempotency key with pipeline_id and scoring_version), sources,
--   not_terminal_note (a 'not_terminal' pipeline's message, its ids quoted as rs_quote
--   (common/v1) quotes input values: an id holding a line break or a blank-looking
--   character forged or hid text; NULL when scored).
CREATE OR REPLACE TEMP TABLE pl_pipeline AS
WITH h AS (
    SELECT t.pipeline_id,
           sha256(t.pipeline_id || chr(30)
                  || string_agg(t.snapshot_text, chr(30) ORDER BY t.task_id)
                  || chr(30) || coalesce(any_value(e.estimate_minutes)::VARCHAR, ''))
               AS inputs_sha256
    FROM pl_task t
    LEFT JOIN pl_estimate e ON e.pipeline_id = t.pipeline_id
    GROUP BY t.pipeline_id
), recs AS (
    SELECT pipeline_id, list(code ORDER BY rank) AS codes
    FROM pl_recommendation
    GROUP BY pipeline_id
)
SELECT st.pipeline_id, st.status, st.task_count, st.completed, st.failed, st.cancelled,
       st.non_terminal_task_ids,
       CASE WHEN sc.pipeline_id IS NOT NULL THEN d1.completion_rate END AS completion_rate,
       CASE WHEN sc.pipeline_id IS NOT NULL THEN d1.score END AS task_completion_score,
       CASE WHEN sc.pipeline_id IS NOT NULL THEN d2.deviation_count END AS deviation_count,
       CASE WHEN sc.pipeline_id IS NOT NULL THEN d2.deviations_known END AS deviations_known,
       CASE WHEN sc.pipeline_id IS NOT NULL THEN d2.score END AS deviation_score,
       CASE WHEN sc.pipeline_id IS NOT NULL THEN d3.passed END AS tests_passed,
       CASE WHEN sc.pipeline_id IS NOT NULL THEN d3.total END AS tests_total,
       CASE WHEN sc.pipeline_id IS NOT NULL THEN d3.results END AS test_results,
       CASE WHEN sc.pipeline_id IS NOT NULL THEN d3.pass_rate END AS test_pass_rate,
       CASE WHEN sc.pipeline_id IS NOT NULL THEN d3.verified END AS test_pass_rate_verified,
       CASE WHEN sc.pipeline_id IS NOT NULL THEN d3.score END AS test_score,
       CASE WHEN sc.pipeline_id IS NOT NULL THEN d3.counts_unknown END AS test_counts_unknown,
       d4.started_at, d4.finished_at,
       CASE WHEN sc.pipeline_id IS NOT NULL THEN d4.actual_minutes END AS actual_minutes,
       d4.estimate_minutes AS estimated_minutes,
       CASE WHEN sc.pipeline_id IS NOT NULL THEN d4.score END AS time_efficiency,
       CASE WHEN sc.pipeline_id IS NOT NULL THEN d5.score END AS quality_score,
       CASE WHEN sc.pipeline_id IS NOT NULL THEN d5.reporting_tasks END
           AS quality_reporting_tasks,
       sc.composite AS composite_score,
       sc.verdict,
       sc.excellent_withheld,
       CASE WHEN sc.pipeline_id IS NOT NULL THEN coalesce(r.codes, []::VARCHAR[]) END
           AS recommendations,
       h.inputs_sha256,
       st.sources,
       CASE WHEN st.status = 'not_terminal'
            THEN 'pipeline ' || rs_quote(to_json(st.pipeline_id)) || ': not terminal ('
                 || array_to_string(list_transform(st.non_terminal_task_ids,
                                                   lambda x: rs_quote(to_json(x))), ', ')
                 || '); not scored'
       END AS not_terminal_note
FROM pl_state st
JOIN pl_d1 d1 USING (pipeline_id)
JOIN pl_d2 d2 USING (pipeline_id)
JOIN pl_d3 d3 USING (pipeline_id)
JOIN pl_d4 d4 USING (pipeline_id)
JOIN pl_d5 d5 USING (pipeline_id)
JOIN h USING (pipeline_id)
LEFT JOIN pl_score sc USING (pipeline_id)
LEFT JOIN recs r USING (pipeline_id)
ORDER BY pl_pipeline_order(st.pipeline_id);
