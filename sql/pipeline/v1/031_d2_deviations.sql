-- pipeline/v1 · 031 D2 deviations (spec pipeline.md §3 D2)
-- Reads: pl_task, pl_deviation_bucket, pl_constant. Produces: pl_d2(pipeline_id,
--   deviations_known = Σ items of metadata.deviations over the tasks' latest snapshots,
--   deviation_count = the same, NULL (unknown) when a task's metadata.deviations is
--   present but not an array; score = the bucket of the count, or, the count unknown,
--   deviation_unknown_score (004), never above the bucket of deviations_known: the count
--   is at least that); and a pl_issue warning per such task.
-- Unknown is not zero (spec README): such a task's deviations were counted as none, so a
-- pipeline that reported them as text scored D2's best (100) and no scope-creep advice.
-- 050 triggers the scope-creep advice on deviations_known when the count is unknown: 12
-- items counted are more than 5 whatever the text beside them holds.
CREATE OR REPLACE TEMP TABLE pl_d2 AS
WITH c AS (
    SELECT pipeline_id,
           coalesce(sum(CASE WHEN json_type(deviations_json) = 'ARRAY'
                             THEN json_array_length(deviations_json) END), 0)::BIGINT
               AS deviations_known,
           bool_and(coalesce(json_type(deviations_json), 'NULL') IN ('NULL', 'ARRAY'))
               AS counted
    FROM pl_task
    GROUP BY pipeline_id
)
SELECT c.pipeline_id,
       CASE WHEN c.counted THEN c.deviations_known END AS deviation_count,
       c.deviations_known,
       CASE WHEN c.counted THEN b.score
            ELSE least(b.score, (SELECT value FROM pl_constant
                                 WHERE name = 'deviation_unknown_score')) END AS score
FROM c
JOIN pl_deviation_bucket b
  ON c.deviations_known >= b.min_count
 AND (b.max_count IS NULL OR c.deviations_known <= b.max_count);

INSERT INTO pl_issue
SELECT 'warning', _file, _line, pipeline_id,
       'task ' || rs_quote(to_json(task_id)) || ': metadata.deviations is ' || pl_json_kind(deviations_json)
       || ', not an array; the deviation count is unknown'
FROM pl_task
WHERE coalesce(json_type(deviations_json), 'NULL') NOT IN ('NULL', 'ARRAY');
