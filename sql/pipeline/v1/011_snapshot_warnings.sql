-- pipeline/v1 · 011 snapshot field warnings (spec pipeline.md §1; brief: unparsable
-- timestamps are treated as missing and reported)
-- Reads: pl_snapshot, pl_status. Produces: rows in pl_issue (severity 'warning'),
-- one per usable line and problem: a timestamp that is present but not an
-- ISO-8601 string DuckDB can parse; a status that is missing or not a known
-- status (such a task is not terminal); a metadata that is not an object. Each names
-- its task as every task's warning does (`task "a": ...`; 012, 031-034).
INSERT INTO pl_issue
WITH ts AS (
    SELECT _file, _line, _ord, pipeline_id, task_id, 'createdAt' AS field, created_json AS j,
           created_at AS v
    FROM pl_snapshot
    UNION ALL
    SELECT _file, _line, _ord, pipeline_id, task_id, 'updatedAt', updated_json, updated_at
    FROM pl_snapshot
    UNION ALL
    SELECT _file, _line, _ord, pipeline_id, task_id, 'metadata.completedAt', completed_json,
           completed_at
    FROM pl_snapshot
)
SELECT 'warning', _file, _line, pipeline_id,
       'task ' || rs_quote(to_json(task_id)) || ': ' || field || ' ' || rs_quote(j)
       || ' is not an ISO-8601 timestamp; treated as missing'
FROM ts
WHERE coalesce(json_type(j), 'NULL') <> 'NULL' AND v IS NULL
UNION ALL
SELECT 'warning', _file, _line, pipeline_id,
       'task ' || rs_quote(to_json(task_id)) || ': ' ||
       CASE WHEN coalesce(json_type(s.status_json), 'NULL') = 'NULL'
                THEN 'no status; the task counts as not terminal'
            ELSE 'unknown status ' || rs_quote(s.status_json)
                 || '; the task counts as not terminal'
       END
FROM pl_snapshot s
WHERE s.status IS NULL OR s.status NOT IN (SELECT status FROM pl_status)
UNION ALL
SELECT 'warning', _file, _line, pipeline_id,
       'task ' || rs_quote(to_json(task_id)) || ': metadata is ' || pl_json_kind(metadata)
       || ', not an object; ignored'
FROM pl_snapshot
WHERE coalesce(json_type(metadata), 'NULL') NOT IN ('NULL', 'OBJECT');
