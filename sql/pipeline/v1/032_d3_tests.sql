-- pipeline/v1 · 032 D3 test pass rate (spec pipeline.md §3 D3)
-- Reads: pl_task, pl_test_pattern(), pl_constant. Produces:
--   pl_test_result  one row per task with a testResult: parsed passed/total, or
--                   `problem` (why it is ignored)
--   pl_d3           per pipeline: results (parsable, total > 0), passed, total,
--                   verified, pass_rate (Σ passed / Σ total × 100; NULL when
--                   unverified), score (pass_rate, or test_unverified_score)
--   pl_issue        a warning per ignored testResult: never silently counted
-- Ignored: not a string; not matching the grammar (case-insensitive); numbers too
-- large; total 0 (spec); passed > total (spec-silent: a rate above 100 % is
-- not a pass rate, so the result is treated as malformed).
CREATE OR REPLACE TEMP TABLE pl_test_result AS
WITH t AS (
    SELECT k._file, k._line, k.pipeline_id, k.task_id, k.test_result_json AS j,
           CASE WHEN json_type(k.test_result_json) = 'VARCHAR'
                THEN json_extract_string(k.test_result_json, '$') END AS s
    FROM pl_task k
    WHERE coalesce(json_type(k.test_result_json), 'NULL') <> 'NULL'
), m AS (
    SELECT t.*,
           s IS NOT NULL AND regexp_matches(s, pl_test_pattern(), 'i') AS matched,
           TRY_CAST(regexp_extract(s, pl_test_pattern(), 2, 'i') AS BIGINT) AS passed_h,
           TRY_CAST(regexp_extract(s, pl_test_pattern(), 3, 'i') AS BIGINT) AS total_h
    FROM t
)
SELECT _file, _line, pipeline_id, task_id, s AS test_result,
       CASE WHEN matched AND passed_h IS NOT NULL AND total_h > 0 AND passed_h <= total_h
            THEN passed_h END AS passed,
       CASE WHEN matched AND passed_h IS NOT NULL AND total_h > 0 AND passed_h <= total_h
            THEN total_h END AS total,
       CASE
           WHEN s IS NULL THEN 'testResult is ' || pl_json_kind(j) || ', not a string'
           WHEN NOT matched THEN 'testResult ' || left(j::VARCHAR, 80)
                || ' is not "PASS n/m" or "FAIL n/m"'
           WHEN passed_h IS NULL OR total_h IS NULL THEN 'testResult ' || left(j::VARCHAR, 80)
                || ' has numbers too large to count'
           WHEN total_h = 0 THEN 'testResult ' || left(j::VARCHAR, 80) || ' has a total of 0'
           WHEN passed_h > total_h THEN 'testResult ' || left(j::VARCHAR, 80)
                || ' has more passed than total'
       END AS problem
FROM m;

INSERT INTO pl_issue
SELECT 'warning', _file, _line, pipeline_id,
       'task ' || task_id || ': ' || problem || '; ignored'
FROM pl_test_result
WHERE problem IS NOT NULL;

CREATE OR REPLACE TEMP TABLE pl_d3 AS
WITH agg AS (
    SELECT s.pipeline_id,
           count(r.total) AS results,
           sum(r.passed) AS passed,
           sum(r.total) AS total
    FROM pl_state s
    LEFT JOIN pl_test_result r ON r.pipeline_id = s.pipeline_id AND r.problem IS NULL
    GROUP BY s.pipeline_id
)
SELECT a.pipeline_id, a.results, a.passed, a.total,
       a.results > 0 AS verified,
       CASE WHEN a.results > 0 THEN a.passed::DOUBLE * 100.0 / a.total::DOUBLE END AS pass_rate,
       CASE WHEN a.results > 0 THEN a.passed::DOUBLE * 100.0 / a.total::DOUBLE
            ELSE (SELECT value FROM pl_constant WHERE name = 'test_unverified_score')
       END AS score
FROM agg a;
