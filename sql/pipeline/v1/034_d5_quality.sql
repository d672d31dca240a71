-- pipeline/v1 · 034 D5 quality signals (spec pipeline.md §3 D5)
-- Reads: pl_task, pl_quality_rule, pl_constant. Produces: pl_d5(pipeline_id,
--   lint_clean, lint_errors, format_clean, todos_open (task counts per signal),
--   signals (their sum), format_changed (tasks whose format ran and changed files: no
--   points, but an issue 050's sentence names), reporting_tasks (tasks giving a usable
--   quality signal, below; 0 = no quality signal, which 050 words differently),
--   score = quality_base + Σ points, clamped to [quality_min, quality_max]); a pl_issue warning per quality
--   field that cannot be read, and per check that ran without its outcome or gives one
--   without whether it ran (below).
-- `ran`/`changed` must be JSON booleans; `errors`/`unresolvedTodos` whole JSON numbers
-- >= 0 (finite); quality, lintFix and format objects. Any other value is no signal, and a
-- pl_issue warning names it (never silently ignored, never counted: 0.5 or 1e999 todos
-- are not a count).
CREATE OR REPLACE TEMP MACRO pl_quality_count(j) AS
    CASE WHEN json_type(j) IN ('BIGINT', 'UBIGINT', 'DOUBLE')
         THEN TRY_CAST(json_extract_string(j, '$') AS DOUBLE) END;

CREATE OR REPLACE TEMP MACRO pl_quality_count_ok(v) AS
    coalesce(isfinite(v) AND v >= 0 AND v = floor(v), false);

CREATE OR REPLACE TEMP TABLE pl_d5 AS
WITH q AS (
    SELECT pipeline_id,
           json_type(quality_json -> '$.lintFix.ran') = 'BOOLEAN' AS lint_ran_given,
           json_type(quality_json -> '$.format.ran') = 'BOOLEAN' AS format_ran_given,
           json_type(quality_json -> '$.lintFix.ran') = 'BOOLEAN'
               AND json_extract_string(quality_json, '$.lintFix.ran') = 'true' AS lint_ran,
           CASE WHEN pl_quality_count_ok(pl_quality_count(quality_json -> '$.lintFix.errors'))
                THEN pl_quality_count(quality_json -> '$.lintFix.errors') END AS lint_errors,
           json_type(quality_json -> '$.format.ran') = 'BOOLEAN'
               AND json_extract_string(quality_json, '$.format.ran') = 'true' AS format_ran,
           json_type(quality_json -> '$.format.changed') = 'BOOLEAN'
               AND json_extract_string(quality_json, '$.format.changed') = 'false'
               AS format_unchanged,
           json_type(quality_json -> '$.format.changed') = 'BOOLEAN'
               AND json_extract_string(quality_json, '$.format.changed') = 'true'
               AS format_changed,
           CASE WHEN pl_quality_count_ok(pl_quality_count(quality_json -> '$.unresolvedTodos'))
                THEN pl_quality_count(quality_json -> '$.unresolvedTodos') END AS todos
    FROM pl_task
), r AS (
    -- A task reports quality when it gives a usable signal: a check's `ran` as true or
    -- false, with the outcome if it ran, or a count of TODOs. Values warned of below as
    -- ignored (or a check that ran without its outcome) report nothing: a task giving only
    -- those counted as reporting, and the report said "reported by 1 of 2 tasks".
    SELECT q.*,
           coalesce(lint_ran_given AND (NOT lint_ran OR lint_errors IS NOT NULL), false)
           OR coalesce(format_ran_given AND (NOT format_ran OR format_unchanged
                                             OR format_changed), false)
           OR todos IS NOT NULL AS reporting
    FROM q
), c AS (
    SELECT pipeline_id,
           count(*) FILTER (WHERE lint_ran AND lint_errors = 0) AS lint_clean,
           count(*) FILTER (WHERE lint_ran AND lint_errors > 0) AS lint_errors,
           count(*) FILTER (WHERE format_ran AND format_unchanged) AS format_clean,
           count(*) FILTER (WHERE todos > 0) AS todos_open,
           count(*) FILTER (WHERE format_ran AND format_changed) AS format_changed,
           count(*) FILTER (WHERE reporting) AS reporting_tasks
    FROM r
    GROUP BY pipeline_id
), p AS (
    SELECT max(points) FILTER (WHERE signal = 'lint_clean') AS p_lint_clean,
           max(points) FILTER (WHERE signal = 'lint_errors') AS p_lint_errors,
           max(points) FILTER (WHERE signal = 'format_clean') AS p_format_clean,
           max(points) FILTER (WHERE signal = 'todos_open') AS p_todos_open
    FROM pl_quality_rule
), k AS (
    SELECT max(value) FILTER (WHERE name = 'quality_base') AS base,
           max(value) FILTER (WHERE name = 'quality_min') AS lo,
           max(value) FILTER (WHERE name = 'quality_max') AS hi
    FROM pl_constant
)
SELECT c.pipeline_id, c.lint_clean, c.lint_errors, c.format_clean, c.todos_open,
       c.lint_clean + c.lint_errors + c.format_clean + c.todos_open AS signals,
       c.format_changed, c.reporting_tasks,
       greatest(k.lo, least(k.hi,
           k.base + c.lint_clean * p.p_lint_clean + c.lint_errors * p.p_lint_errors
                  + c.format_clean * p.p_format_clean + c.todos_open * p.p_todos_open))
           AS score
FROM c CROSS JOIN p CROSS JOIN k;

INSERT INTO pl_issue
WITH f AS (
    SELECT k._file, k._line, k.pipeline_id, k.task_id, f.name, f.expect,
           k.quality_json -> f.path AS j
    FROM pl_task k
    CROSS JOIN (VALUES
        ('', '$', 'object'),
        ('.lintFix', '$.lintFix', 'object'),
        ('.format', '$.format', 'object'),
        ('.lintFix.ran', '$.lintFix.ran', 'boolean'),
        ('.lintFix.errors', '$.lintFix.errors', 'count'),
        ('.format.ran', '$.format.ran', 'boolean'),
        ('.format.changed', '$.format.changed', 'boolean'),
        ('.unresolvedTodos', '$.unresolvedTodos', 'count')
    ) AS f(name, path, expect)
    WHERE coalesce(json_type(k.quality_json), 'NULL') <> 'NULL'
)
SELECT 'warning', _file, _line, pipeline_id,
       'task ' || rs_quote(to_json(task_id)) || ': metadata.quality' || name
       || CASE
              WHEN expect = 'object' THEN ' is ' || pl_json_kind(j) || ', not an object'
              WHEN expect = 'boolean' THEN ' is ' || pl_json_kind(j) || ', not true or false'
              WHEN pl_json_kind(j) <> 'number' THEN ' is ' || pl_json_kind(j) || ', not a number'
              ELSE ' ' || rs_quote(j) || ' is not a whole number >= 0'
          END || '; ignored'
FROM f
WHERE coalesce(json_type(j), 'NULL') <> 'NULL'
  AND CASE expect
          WHEN 'object' THEN json_type(j) <> 'OBJECT'
          WHEN 'boolean' THEN json_type(j) <> 'BOOLEAN'
          ELSE NOT pl_quality_count_ok(pl_quality_count(j))
      END;

-- A check that ran with its outcome missing (lintFix.ran true, errors absent or null; format.ran
-- true, changed absent or null), or an outcome without whether the check ran (errors given, ran
-- absent or null), is no signal (spec-silent: which points it would earn is not known), and a
-- warning says so: the task reports quality, yet scores as if it did not.
INSERT INTO pl_issue
WITH f AS (
    SELECT k._file, k._line, k.pipeline_id, k.task_id, c.obj, c.field, c.what,
           json_type(k.quality_json -> ('$.' || c.obj)) AS obj_t,
           coalesce(json_type(k.quality_json -> ('$.' || c.obj || '.ran')), 'NULL') AS ran_t,
           json_extract_string(k.quality_json, '$.' || c.obj || '.ran') AS ran_s,
           coalesce(json_type(k.quality_json -> ('$.' || c.obj || '.' || c.field)), 'NULL')
               AS field_t
    FROM pl_task k
    CROSS JOIN (VALUES ('lintFix', 'errors', 'lint'), ('format', 'changed', 'format'))
        AS c(obj, field, what)
    WHERE json_type(k.quality_json) = 'OBJECT'
)
SELECT 'warning', _file, _line, pipeline_id,
       'task ' || rs_quote(to_json(task_id)) || ': metadata.quality.' || obj
       || CASE WHEN ran_t = 'BOOLEAN'
               THEN '.ran is true but ' || obj || '.' || field || ' is absent; no ' || what
                    || ' signal counted'
               ELSE '.' || field || ' is given but ' || obj || '.ran is absent; ignored' END
FROM f
WHERE obj_t = 'OBJECT'
  AND ((ran_t = 'BOOLEAN' AND ran_s = 'true' AND field_t = 'NULL')
       OR (ran_t = 'NULL' AND field_t <> 'NULL'));
