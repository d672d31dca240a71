-- pipeline/v1 · 013 plans: estimated duration per pipeline (spec pipeline.md §1, §3 D4)
-- Reads: pl_raw_plans (sources.read_jsonl: _file, _line, _ord, pipelineId,
--   estimatedDurationMinutes, estimatedDurationMs as raw JSON).
-- Produces: pl_estimate(pipeline_id, estimate_minutes, _file, _line), one row per
--   pipeline with a valid estimate (the later line wins when a pipeline is
--   planned twice, and each earlier line with another estimate is a warning that
--   names the line used); rows in pl_issue: 'error' for a line without a pipeline id
--   (a string, trimmed, or an integer: as task ids in 010) or with an estimate that is not a
--   number >= 0, 'warning' for a plan line that carries no estimate at all, for one
--   whose two estimates disagree (the minutes are used), and for one whose pipeline has
--   no usable task snapshot (pl_task, 012).
-- estimatedDurationMinutes is preferred; estimatedDurationMs is divided by 60000.
-- An estimate of 0 is scored (D4, 033): the spec's min(estimate / actual, 1) divides by the
-- actual, never by the estimate, so a pipeline planned to take no time scores 0 once it
-- took any (100 when it took none). A negative one is refused: no duration is below 0.
CREATE OR REPLACE TEMP TABLE pl_plan_all AS
WITH p AS (
    SELECT _file, _line, _ord,
           CASE WHEN json_type(pipelineId) IN ('VARCHAR', 'BIGINT', 'UBIGINT')
                THEN nullif(pl_trim_ws(json_extract_string(pipelineId, '$')), '')
           END AS pipeline_id,
           pipelineId AS pid_j,
           estimatedDurationMinutes AS min_j,
           estimatedDurationMs AS ms_j,
           CASE WHEN json_type(estimatedDurationMinutes) IN ('BIGINT', 'UBIGINT', 'DOUBLE')
                THEN TRY_CAST(json_extract_string(estimatedDurationMinutes, '$') AS DOUBLE)
           END AS minutes,
           CASE WHEN json_type(estimatedDurationMs) IN ('BIGINT', 'UBIGINT', 'DOUBLE')
                THEN TRY_CAST(json_extract_string(estimatedDurationMs, '$') AS DOUBLE) / 60000.0
           END AS ms_minutes
    FROM pl_raw_plans
)
SELECT _file, _line, _ord, pipeline_id,
       CASE WHEN coalesce(json_type(min_j), 'NULL') <> 'NULL' THEN minutes
            ELSE ms_minutes END AS estimate_minutes,
       CASE
           WHEN coalesce(json_type(pid_j), 'NULL') = 'NULL' THEN 'plan has no pipelineId'
           WHEN json_type(pid_j) NOT IN ('VARCHAR', 'BIGINT', 'UBIGINT')
               THEN 'plan pipelineId is ' || pl_json_kind(pid_j) || ', not a string or integer'
           WHEN pipeline_id IS NULL THEN 'plan pipelineId is empty'
           WHEN coalesce(json_type(min_j), 'NULL') <> 'NULL'
                AND NOT coalesce(minutes >= 0 AND isfinite(minutes), false)
               THEN 'estimatedDurationMinutes ' || rs_quote(min_j)
                    || ' is not a number >= 0'
           WHEN coalesce(json_type(min_j), 'NULL') = 'NULL'
                AND coalesce(json_type(ms_j), 'NULL') <> 'NULL'
                AND NOT coalesce(ms_minutes >= 0 AND isfinite(ms_minutes), false)
               THEN 'estimatedDurationMs ' || rs_quote(ms_j)
                    || ' is not a number >= 0'
       END AS reject,
       coalesce(json_type(min_j), 'NULL') = 'NULL'
           AND coalesce(json_type(ms_j), 'NULL') = 'NULL' AS no_estimate,
       min_j, ms_j, ms_minutes
FROM p;

INSERT INTO pl_issue
SELECT 'error', _file, _line, pipeline_id, reject
FROM pl_plan_all WHERE reject IS NOT NULL
UNION ALL
SELECT 'warning', _file, _line, pipeline_id,
       'plan has no estimatedDurationMinutes or estimatedDurationMs; ignored'
FROM pl_plan_all WHERE reject IS NULL AND no_estimate
UNION ALL
-- Both estimates on one line that do not give the same duration (an estimatedDurationMs
-- that is not a number >= 0 included): estimatedDurationMinutes is used and the other
-- was dropped without a word, as an earlier plan line's estimate was before its warning
-- below. Agreeing ones (30 and 1800000) lose nothing and are not reported.
SELECT 'warning', _file, _line, pipeline_id,
       'plan gives estimatedDurationMinutes ' || rs_quote(min_j)
       || ' and estimatedDurationMs ' || rs_quote(ms_j)
       || ', which disagree; estimatedDurationMinutes is used'
FROM pl_plan_all
WHERE reject IS NULL
  AND coalesce(json_type(min_j), 'NULL') <> 'NULL'
  AND coalesce(json_type(ms_j), 'NULL') <> 'NULL'
  AND NOT coalesce(pl_cmp(ms_minutes) = pl_cmp(estimate_minutes), false)
UNION ALL
-- Most often a typo in the id: the pipeline meant got no estimate (neutral D4).
SELECT 'warning', _file, _line, pipeline_id,
       'plan for pipeline ' || rs_quote(to_json(pipeline_id))
       || ', which has no usable task snapshot; ignored'
FROM pl_plan_all
WHERE reject IS NULL AND NOT no_estimate
  AND pipeline_id NOT IN (SELECT pipeline_id FROM pl_task);

CREATE OR REPLACE TEMP TABLE pl_estimate AS
SELECT pipeline_id, estimate_minutes, _file, _line
FROM pl_plan_all
WHERE reject IS NULL AND NOT no_estimate
QUALIFY row_number() OVER (PARTITION BY pipeline_id ORDER BY _ord DESC) = 1;

-- A pipeline planned again with another estimate (a re-plan appended, two planners):
-- the earlier estimate is dropped, which the user should hear of, not guess from D4.
-- The same estimate given twice loses nothing and is not reported.
INSERT INTO pl_issue
SELECT 'warning', a._file, a._line, a.pipeline_id,
       'plan for pipeline ' || rs_quote(to_json(a.pipeline_id))
       || ' is given again with another estimate at ' || rs_path(e._file) || ':' || e._line
       || ', which is used; this one is ignored'
FROM pl_plan_all a JOIN pl_estimate e USING (pipeline_id)
-- a different estimate is never the line used; a pipeline without a snapshot is
-- warned of above already
WHERE a.reject IS NULL AND NOT a.no_estimate
  AND a.estimate_minutes <> e.estimate_minutes
  AND a.pipeline_id IN (SELECT pipeline_id FROM pl_task);
