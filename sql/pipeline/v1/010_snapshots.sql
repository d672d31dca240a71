-- pipeline/v1 · 010 task snapshots: identify, type, reject (spec pipeline.md §1)
-- Reads: pl_raw_tasks (sources.read_jsonl: _file, _line, _ord and the raw JSON
--   columns pipelineId, id, taskId, status, createdAt, updatedAt, metadata); macros
--   pl_status_of, pl_trim_ws (008).
-- Produces:
--   pl_snapshot_all  one row per input line: identifiers, typed fields, `reject`
--                    (NULL for a usable line, else the reason)
--   pl_snapshot      the usable lines (grain: one line = one snapshot of a task)
--   pl_issue         diagnostics table (severity, file, line, pipeline_id, reason);
--                    created here, later files add warnings to it
-- Statuses are read by 008's pl_status_of, the one rule of how a status is matched.
-- Identifiers: pipelineId (else metadata.pipelineId), id (else taskId); a string,
-- trimmed by pl_trim_ws (" p1" is the pipeline "p1"), or an integer, which is its text:
-- every output names an id by its text (report file, the JSON's pipelineId: string, history key), so
-- the task 1 and the task "1" are one task, as "1" and " 1" are (trackers number their
-- tasks). A line without one, with an empty one, or with another JSON kind is rejected.
-- A line giving both spellings of an id with different values uses the first, with a
-- warning (id_conflict; kept out of pl_snapshot).
-- "Trimmed"/"empty" here means ASCII whitespace (tabs, newlines too), not only spaces.
-- Timestamps are TRY_CAST to TIMESTAMPTZ; an unparsable or out-of-range value is
-- treated as missing (011 reports it). Before the cast, the ISO-8601 forms DuckDB's
-- cast refuses are written in the one it takes (pl_iso_text): a comma as the decimal
-- sign, lowercase t/z (RFC 3339), the basic format (20260202T110000Z). The cast keeps
-- microseconds (it truncates), so updated_sub_us keeps updatedAt's next three digits
-- for 012 to tell apart two snapshots in the same microsecond (RFC3339Nano times).
-- (common/v1 010's rule, which routes/v1 reads its times by too)
CREATE OR REPLACE TEMP MACRO pl_iso_text(s) AS rs_iso_text(s);
-- A time outside the years 1-9999 (DuckDB's cast takes 10000-01-01 and -0001-03-01; no
-- reader of the reports can) is out of range: missing, as an unparsable one is.
CREATE OR REPLACE TEMP MACRO pl_ts(s) AS
    CASE WHEN TRY_CAST(s AS TIMESTAMPTZ) >= TIMESTAMPTZ '0001-01-01 00:00:00+00'
              AND TRY_CAST(s AS TIMESTAMPTZ) < TIMESTAMPTZ '10000-01-01 00:00:00+00'
         THEN TRY_CAST(s AS TIMESTAMPTZ) END;
-- Digits 7-9 of a timestamp's fraction (nanoseconds within its microsecond), 0 if none.
CREATE OR REPLACE TEMP MACRO pl_sub_us(s) AS
    coalesce(TRY_CAST(rpad(substr(regexp_extract(replace(s, ',', '.'),
                                                 '[Tt ]\d{2}:?\d{2}:?\d{2}\.(\d+)', 1),
                                  7, 3), 3, '0') AS INTEGER), 0);
CREATE OR REPLACE TEMP TABLE pl_snapshot_all AS
WITH src AS (
    SELECT r.*,
           CASE WHEN coalesce(json_type(r.pipelineId), 'NULL') <> 'NULL' THEN r.pipelineId
                ELSE r.metadata -> '$.pipelineId' END AS pid_j,
           CASE WHEN coalesce(json_type(r.id), 'NULL') <> 'NULL' THEN r.id
                ELSE r.taskId END AS tid_j,
           CASE WHEN coalesce(json_type(r.pipelineId), 'NULL') <> 'NULL' THEN 'pipelineId'
                ELSE 'metadata.pipelineId' END AS pid_field,
           CASE WHEN coalesce(json_type(r.id), 'NULL') <> 'NULL' THEN 'id'
                ELSE 'taskId' END AS tid_field
    FROM pl_raw_tasks r
), ids AS (
    SELECT s.*,
           CASE WHEN json_type(pid_j) IN ('VARCHAR', 'BIGINT', 'UBIGINT')
                THEN nullif(pl_trim_ws(json_extract_string(pid_j, '$')), '') END AS pipeline_id,
           CASE WHEN json_type(tid_j) IN ('VARCHAR', 'BIGINT', 'UBIGINT')
                THEN nullif(pl_trim_ws(json_extract_string(tid_j, '$')), '') END AS task_id,
           CASE
               WHEN coalesce(json_type(pid_j), 'NULL') = 'NULL'
                   THEN 'no pipeline id (pipelineId or metadata.pipelineId)'
               WHEN json_type(pid_j) NOT IN ('VARCHAR', 'BIGINT', 'UBIGINT')
                   THEN pid_field || ' is ' || pl_json_kind(pid_j) || ', not a string or integer'
               WHEN pl_trim_ws(json_extract_string(pid_j, '$')) = ''
                   THEN pid_field || ' is empty'
           END AS pid_problem,
           CASE
               WHEN coalesce(json_type(tid_j), 'NULL') = 'NULL'
                   THEN 'no task id (id or taskId)'
               WHEN json_type(tid_j) NOT IN ('VARCHAR', 'BIGINT', 'UBIGINT')
                   THEN tid_field || ' is ' || pl_json_kind(tid_j) || ', not a string or integer'
               WHEN pl_trim_ws(json_extract_string(tid_j, '$')) = ''
                   THEN tid_field || ' is empty'
           END AS tid_problem,
           pl_status_of(status) AS status_norm,
           CASE WHEN json_type(createdAt) = 'VARCHAR'
                THEN pl_ts(pl_iso_text(json_extract_string(createdAt, '$')))
           END AS created_try,
           CASE WHEN json_type(updatedAt) = 'VARCHAR'
                THEN pl_ts(pl_iso_text(json_extract_string(updatedAt, '$')))
           END AS updated_try,
           CASE WHEN json_type(metadata -> '$.completedAt') = 'VARCHAR'
                THEN pl_ts(pl_iso_text(json_extract_string(metadata, '$.completedAt')))
           END AS completed_try,
           CASE WHEN json_type(updatedAt) = 'VARCHAR'
                THEN pl_sub_us(json_extract_string(updatedAt, '$')) END AS updated_sub_us
    FROM src s
)
SELECT _file, _line, _ord,
       pipeline_id, task_id,
       nullif(concat_ws('; ', pid_problem, tid_problem), '') AS reject,
       -- A line that gives both spellings of an id with different values: the first is
       -- used (top level, then metadata; id, then taskId), with a warning below, since the
       -- task may be filed under the wrong pipeline (or be another task) without a word.
       concat_ws('; ',
           CASE WHEN pid_field = 'pipelineId'
                     AND coalesce(json_type(metadata -> '$.pipelineId'), 'NULL') <> 'NULL'
                     AND pipeline_id IS DISTINCT FROM
                         CASE WHEN json_type(metadata -> '$.pipelineId')
                                   IN ('VARCHAR', 'BIGINT', 'UBIGINT')
                              THEN nullif(pl_trim_ws(json_extract_string(
                                       metadata -> '$.pipelineId', '$')), '') END
                THEN 'pipelineId ' || rs_quote(pipelineId) || ' and metadata.pipelineId '
                     || rs_quote(metadata -> '$.pipelineId')
                     || ' disagree; pipelineId is used' END,
           CASE WHEN tid_field = 'id'
                     AND coalesce(json_type(taskId), 'NULL') <> 'NULL'
                     AND task_id IS DISTINCT FROM
                         CASE WHEN json_type(taskId) IN ('VARCHAR', 'BIGINT', 'UBIGINT')
                              THEN nullif(pl_trim_ws(json_extract_string(taskId, '$')), '') END
                THEN 'id ' || rs_quote(id) || ' and taskId ' || rs_quote(taskId)
                     || ' disagree; id is used' END
       ) AS id_conflict,
       status AS status_json,
       status_norm AS status,
       createdAt AS created_json,
       updatedAt AS updated_json,
       metadata -> '$.completedAt' AS completed_json,
       -- A valid timestamp is finite and inside the years Python and ISO-8601 can print.
       CASE WHEN isfinite(created_try) AND year(created_try) BETWEEN 1 AND 9999
            THEN created_try END AS created_at,
       CASE WHEN isfinite(updated_try) AND year(updated_try) BETWEEN 1 AND 9999
            THEN updated_try END AS updated_at,
       CASE WHEN isfinite(completed_try) AND year(completed_try) BETWEEN 1 AND 9999
            THEN completed_try END AS completed_at,
       CASE WHEN isfinite(updated_try) AND year(updated_try) BETWEEN 1 AND 9999
            THEN updated_sub_us END AS updated_sub_us,
       metadata
FROM ids;

CREATE OR REPLACE TEMP TABLE pl_snapshot AS
SELECT * EXCLUDE (reject, id_conflict) FROM pl_snapshot_all WHERE reject IS NULL;

CREATE OR REPLACE TEMP TABLE pl_issue (
    severity VARCHAR,   -- 'error' = the line was rejected; 'warning' = used, with a caveat
    file VARCHAR,
    line BIGINT,
    pipeline_id VARCHAR,
    reason VARCHAR
);

INSERT INTO pl_issue
SELECT 'error', _file, _line, pipeline_id, reject
FROM pl_snapshot_all
WHERE reject IS NOT NULL
UNION ALL
SELECT 'warning', _file, _line, pipeline_id, id_conflict
FROM pl_snapshot_all
WHERE reject IS NULL AND id_conflict <> '';
