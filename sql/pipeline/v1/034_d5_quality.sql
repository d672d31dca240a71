-- pipeline/v1 · 034 D5 quality signals (spec pipeline.md §3 D5)
-- Reads: pl_task, pl_quality_rule, pl_constant. Produces: pl_d5(pipeline_id,
--   lint_clean, lint_errors, format_clean, todos_open (task counts per signal),
--   signals (their sum), reporting_tasks (tasks whose metadata.quality carries
--   lintFix, format or unresolvedTodos at all, a JSON null counting as absent;
--   0 = no quality signal, which 050 words differently), score = quality_base +
--   Σ points, clamped to [quality_min, quality_max]).
-- `ran`/`changed` must be JSON booleans; `errors`/`unresolvedTodos` JSON numbers.
CREATE OR REPLACE TEMP TABLE pl_d5 AS
WITH q AS (
    SELECT pipeline_id,
           json_type(quality_json) = 'OBJECT'
               AND (coalesce(json_type(quality_json -> '$.lintFix'), 'NULL') <> 'NULL'
                    OR coalesce(json_type(quality_json -> '$.format'), 'NULL') <> 'NULL'
                    OR coalesce(json_type(quality_json -> '$.unresolvedTodos'), 'NULL') <> 'NULL')
               AS reporting,
           json_type(quality_json -> '$.lintFix.ran') = 'BOOLEAN'
               AND json_extract_string(quality_json, '$.lintFix.ran') = 'true' AS lint_ran,
           CASE WHEN json_type(quality_json -> '$.lintFix.errors')
                     IN ('BIGINT', 'UBIGINT', 'DOUBLE')
                THEN TRY_CAST(json_extract_string(quality_json, '$.lintFix.errors') AS DOUBLE)
           END AS lint_errors,
           json_type(quality_json -> '$.format.ran') = 'BOOLEAN'
               AND json_extract_string(quality_json, '$.format.ran') = 'true' AS format_ran,
           json_type(quality_json -> '$.format.changed') = 'BOOLEAN'
               AND json_extract_string(quality_json, '$.format.changed') = 'false'
               AS format_unchanged,
           CASE WHEN json_type(quality_json -> '$.unresolvedTodos')
                     IN ('BIGINT', 'UBIGINT', 'DOUBLE')
                THEN TRY_CAST(json_extract_string(quality_json, '$.unresolvedTodos') AS DOUBLE)
           END AS todos
    FROM pl_task
), c AS (
    SELECT pipeline_id,
           count(*) FILTER (WHERE lint_ran AND lint_errors = 0) AS lint_clean,
           count(*) FILTER (WHERE lint_ran AND lint_errors > 0) AS lint_errors,
           count(*) FILTER (WHERE format_ran AND format_unchanged) AS format_clean,
           count(*) FILTER (WHERE todos > 0) AS todos_open,
           count(*) FILTER (WHERE reporting) AS reporting_tasks
    FROM q
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
       c.reporting_tasks,
       greatest(k.lo, least(k.hi,
           k.base + c.lint_clean * p.p_lint_clean + c.lint_errors * p.p_lint_errors
                  + c.format_clean * p.p_format_clean + c.todos_open * p.p_todos_open))
           AS score
FROM c CROSS JOIN p CROSS JOIN k;
