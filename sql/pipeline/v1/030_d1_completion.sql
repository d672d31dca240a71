-- pipeline/v1 · 030 D1 task completion (spec pipeline.md §3 D1)
-- Reads: pl_state, pl_completion_bucket. Produces: pl_d1(pipeline_id,
--   completion_rate = completed / total × 100, score = the bucket of the rate
--   rounded to 6 decimals).
CREATE OR REPLACE TEMP TABLE pl_d1 AS
WITH r AS (
    SELECT pipeline_id, completed * 100.0 / task_count AS completion_rate
    FROM pl_state
)
SELECT r.pipeline_id, r.completion_rate,
       (SELECT b.score FROM pl_completion_bucket b
        WHERE pl_cmp(r.completion_rate) >= b.min_rate
        ORDER BY b.min_rate DESC LIMIT 1) AS score
FROM r;
