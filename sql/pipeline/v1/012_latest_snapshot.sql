-- pipeline/v1 · 012 latest snapshot per task (spec pipeline.md §1)
-- Reads: pl_snapshot, pl_status. Produces: pl_task, one row per (pipeline_id, task_id):
-- the winning snapshot and the metadata fields later files score.
-- Winner: the latest updatedAt (to the nanosecond: updated_sub_us, 010); ties, or no
-- (parsable) updatedAt, are decided by the later line (_ord, the global input order). A
-- snapshot without an updatedAt is as recent as the latest dated snapshot of its task
-- before it in that order (`recency`; none before it: older than any dated one), so
-- against those the later line, itself, wins, as the spec's "no updatedAt: the later line"
-- says, while a line dated later than all before it still wins by its time. (A dated
-- snapshot beat every undated one: a task exported as pending at 09:00, then as completed
-- without a time, stayed pending.)
-- Columns: _file, _line (of the winning line), pipeline_id, task_id, status,
--   terminal (false for unknown/missing status), snapshots (lines seen for the
--   task), created_at, updated_at, completed_at, summary, files_modified,
--   deviations_json, test_result_json, quality_json, snapshot_text (canonical
--   text of the winning snapshot; 110 hashes it for history idempotency); and a pl_issue
--   warning per winning snapshot whose metadata.summary is not a string or whose
--   metadata.filesModified is not an array (neither is carried into the report: said, as
--   a testResult or deviations of another kind is, not shown as if none were given), and
--   one per winning snapshot whose filesModified has items that are not strings (left out).
CREATE OR REPLACE TEMP TABLE pl_task AS
WITH dated AS (
    SELECT s.*,
           CASE WHEN s.updated_at IS NOT NULL
                THEN {'t': s.updated_at, 'ns': s.updated_sub_us} END AS own_time
    FROM pl_snapshot s
), carried AS (
    SELECT d.*,
           coalesce(own_time,
                    max(own_time) OVER (PARTITION BY pipeline_id, task_id ORDER BY _ord
                                        ROWS BETWEEN UNBOUNDED PRECEDING AND CURRENT ROW))
               AS recency
    FROM dated d
), ranked AS (
    SELECT c.*,
           row_number() OVER w AS rn,
           count(*) OVER (PARTITION BY pipeline_id, task_id) AS snapshots
    FROM carried c
    WINDOW w AS (PARTITION BY pipeline_id, task_id
                 ORDER BY recency DESC NULLS LAST, _ord DESC)
)
SELECT r._file, r._line, r._ord,
       r.pipeline_id, r.task_id, r.status,
       coalesce(st.terminal, false) AS terminal,
       r.snapshots,
       r.created_at, r.updated_at, r.completed_at,
       CASE WHEN json_type(r.metadata -> '$.summary') = 'VARCHAR'
            THEN json_extract_string(r.metadata, '$.summary') END AS summary,
       -- A JSON null item names no file: dropped (it was shown as "None"); so does an
       -- empty or blank one (it was shown as "a.py, "), and an item that is not a string
       -- (1, {"a": 2} were listed as their JSON text as if files; warned of below).
       CASE WHEN json_type(r.metadata -> '$.filesModified') = 'ARRAY'
            THEN list_transform(
                     list_filter(json_extract(r.metadata, '$.filesModified[*]'),
                                 lambda f: json_type(f) = 'VARCHAR'
                                           AND trim(json_extract_string(f, '$')) <> ''),
                     lambda f: json_extract_string(f, '$')) END AS files_modified,
       r.metadata -> '$.deviations' AS deviations_json,
       r.metadata -> '$.testResult' AS test_result_json,
       r.metadata -> '$.quality' AS quality_json,
       concat_ws(chr(31), r.task_id, coalesce(r.status_json::VARCHAR, ''),
                 coalesce(r.created_json::VARCHAR, ''), coalesce(r.updated_json::VARCHAR, ''),
                 coalesce(r.metadata::VARCHAR, '')) AS snapshot_text
FROM ranked r
LEFT JOIN pl_status st ON st.status = r.status
WHERE r.rn = 1;

INSERT INTO pl_issue
SELECT 'warning', _file, _line, pipeline_id, 'task ' || rs_quote(to_json(task_id)) || ': ' || problem
FROM (
    SELECT _file, _line, pipeline_id, task_id,
           'metadata.summary is ' || pl_json_kind(j) || ', not a string; ignored' AS problem
    FROM (SELECT t.*, s.metadata -> '$.summary' AS j
          FROM pl_task t JOIN pl_snapshot s USING (_ord))
    WHERE coalesce(json_type(j), 'NULL') NOT IN ('NULL', 'VARCHAR')
    UNION ALL
    SELECT _file, _line, pipeline_id, task_id,
           'metadata.filesModified is ' || pl_json_kind(j) || ', not an array; ignored'
    FROM (SELECT t.*, s.metadata -> '$.filesModified' AS j
          FROM pl_task t JOIN pl_snapshot s USING (_ord))
    WHERE coalesce(json_type(j), 'NULL') NOT IN ('NULL', 'ARRAY')
    UNION ALL
    -- One warning per task, however many such items (their kinds named once each).
    SELECT _file, _line, pipeline_id, task_id,
           'metadata.filesModified has ' || len(odd)
           || CASE WHEN len(odd) = 1 THEN ' item that is not a string ('
                   ELSE ' items that are not strings (' END
           || array_to_string(list_sort(list_distinct(odd)), ', ') || '); left out'
    FROM (SELECT t.*,
                 list_transform(
                     list_filter(json_extract(s.metadata, '$.filesModified[*]'),
                                 lambda f: coalesce(json_type(f), 'NULL')
                                           NOT IN ('NULL', 'VARCHAR')),
                     lambda f: pl_json_kind(f)) AS odd
          FROM pl_task t JOIN pl_snapshot s USING (_ord)
          WHERE json_type(s.metadata -> '$.filesModified') = 'ARRAY')
    WHERE len(odd) > 0
);
