-- pipeline/v1 · 033 D4 time efficiency (spec pipeline.md §3 D4)
-- Reads: pl_task, pl_estimate, pl_constant. Produces: pl_d4(pipeline_id,
--   started_at = earliest createdAt, finished_at = latest end, where a task's
--   end is its metadata.completedAt, else its updatedAt; actual_minutes,
--   estimate_minutes, score):
--   estimate and actual known:  min(estimate / actual, 1) × 100 (actual <= 0 → 100)
--   no estimate:                time_no_estimate_score (70)
--   estimate, actual unknown:   time_no_estimate_score, with a pl_issue warning
CREATE OR REPLACE TEMP TABLE pl_d4 AS
WITH span AS (
    SELECT pipeline_id,
           min(created_at) AS started_at,
           max(coalesce(completed_at, updated_at)) AS finished_at
    FROM pl_task
    GROUP BY pipeline_id
), d AS (
    SELECT s.pipeline_id, s.started_at, s.finished_at,
           epoch(s.finished_at - s.started_at) / 60.0 AS actual_minutes,
           e.estimate_minutes
    FROM span s
    LEFT JOIN pl_estimate e USING (pipeline_id)
)
SELECT d.*,
       CASE
           WHEN d.estimate_minutes IS NULL OR d.actual_minutes IS NULL
               THEN (SELECT value FROM pl_constant WHERE name = 'time_no_estimate_score')
           WHEN d.actual_minutes <= 0
               THEN (SELECT value FROM pl_constant WHERE name = 'time_max_score')
           ELSE least(d.estimate_minutes / d.actual_minutes, 1.0)
                * (SELECT value FROM pl_constant WHERE name = 'time_max_score')
       END AS score
FROM d;

INSERT INTO pl_issue
SELECT 'warning', NULL, NULL, pipeline_id,
       'pipeline has an estimate but no parsable createdAt and completedAt/updatedAt; '
       || 'time efficiency is neutral'
FROM pl_d4
WHERE estimate_minutes IS NOT NULL AND actual_minutes IS NULL;
