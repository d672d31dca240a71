-- pipeline/v1 · 031 D2 deviations (spec pipeline.md §3 D2)
-- Reads: pl_task, pl_deviation_bucket. Produces: pl_d2(pipeline_id,
--   deviation_count = Σ items of metadata.deviations over the tasks' latest
--   snapshots, score = the bucket of the count); and a pl_issue warning per
--   task whose metadata.deviations is present but not an array (not counted).
CREATE OR REPLACE TEMP TABLE pl_d2 AS
WITH c AS (
    SELECT pipeline_id,
           coalesce(sum(CASE WHEN json_type(deviations_json) = 'ARRAY'
                             THEN json_array_length(deviations_json) END), 0)::BIGINT
               AS deviation_count
    FROM pl_task
    GROUP BY pipeline_id
)
SELECT c.pipeline_id, c.deviation_count, b.score
FROM c
JOIN pl_deviation_bucket b
  ON c.deviation_count >= b.min_count
 AND (b.max_count IS NULL OR c.deviation_count <= b.max_count);

INSERT INTO pl_issue
SELECT 'warning', _file, _line, pipeline_id,
       'task ' || rs_quote(to_json(task_id)) || ': metadata.deviations is ' || pl_json_kind(deviations_json)
       || ', not an array; not counted'
FROM pl_task
WHERE coalesce(json_type(deviations_json), 'NULL') NOT IN ('NULL', 'ARRAY');
