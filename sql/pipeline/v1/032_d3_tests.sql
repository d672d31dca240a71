-- pipeline/v1 · 032 D3 test pass rate (spec pipeline.md §3 D3)
-- Reads: pl_task, pl_state, pl_test_pattern(), pl_constant. Produces:
--   pl_test_result  one row per task with a testResult: parsed passed/total, or
--                   `problem` (why it is ignored), or `too_large` (it parses, but a
--                   count is past 9223372036854775807: passed/total NULL)
--   pl_d3           per pipeline: results (counted: parsable, total > 0), passed,
--                   total, verified, pass_rate (Σ passed / Σ total × 100; NULL when
--                   unverified), score (pass_rate, or test_unverified_score),
--                   counts_unknown (a result too large, or Σ passed / Σ total past
--                   9223372036854775807: the pass rate is unknown, so not verified)
--   pl_issue        a warning per ignored or too large testResult, and per pipeline
--                   whose counts add up past that: never silently counted
-- Ignored: not a string; not matching the grammar (case folded in ASCII only, 004);
-- total 0 (spec); passed > total (spec-silent: a rate above 100 % is not a pass rate,
-- so the result is treated as malformed). Counts are compared as digits, so these hold
-- at any size.
-- Too large (spec-silent): a count the reports and the history cannot carry (they hold
-- 64-bit integers). Such a result is a test result all the same, so the pipeline's
-- Σ passed / Σ total is unknown, not the rate of its other results: unknown, as a sum
-- past that bound is (the counts were shown unknown beside a pass rate of 100 %). An
-- unknown rate is not verified and scores test_unverified_score.
CREATE OR REPLACE TEMP MACRO pl_digits(d) AS coalesce(nullif(ltrim(d, '0'), ''), '0');
CREATE OR REPLACE TEMP TABLE pl_test_result AS
WITH t AS (
    SELECT k._file, k._line, k.pipeline_id, k.task_id, k.test_result_json AS j,
           CASE WHEN json_type(k.test_result_json) = 'VARCHAR'
                THEN json_extract_string(k.test_result_json, '$') END AS s
    FROM pl_task k
    WHERE coalesce(json_type(k.test_result_json), 'NULL') <> 'NULL'
), m AS (
    SELECT t.*,
           s IS NOT NULL AND regexp_matches(s, pl_test_pattern()) AS matched,
           pl_digits(regexp_extract(s, pl_test_pattern(), 2)) AS passed_d,
           pl_digits(regexp_extract(s, pl_test_pattern(), 3)) AS total_d
    FROM t
), c AS (
    SELECT m.*,
           TRY_CAST(passed_d AS BIGINT) AS passed_h,
           TRY_CAST(total_d AS BIGINT) AS total_h,
           CASE
               WHEN s IS NULL THEN 'testResult is ' || pl_json_kind(j) || ', not a string'
               WHEN NOT matched THEN 'testResult ' || rs_quote(j)
                    || ' is not "PASS n/m" or "FAIL n/m"'
               WHEN total_d = '0' THEN 'testResult ' || rs_quote(j)
                    || ' has a total of 0'
               WHEN length(passed_d) > length(total_d)
                    OR (length(passed_d) = length(total_d) AND passed_d > total_d)
                   THEN 'testResult ' || rs_quote(j) || ' has more passed than total'
           END AS problem
    FROM m
)
SELECT _file, _line, pipeline_id, task_id, s AS test_result,
       CASE WHEN problem IS NULL AND total_h IS NOT NULL THEN passed_h END AS passed,
       CASE WHEN problem IS NULL AND passed_h IS NOT NULL THEN total_h END AS total,
       problem IS NULL AND (passed_h IS NULL OR total_h IS NULL) AS too_large,
       problem,
       j
FROM c;

INSERT INTO pl_issue
SELECT 'warning', _file, _line, pipeline_id,
       'task ' || rs_quote(to_json(task_id)) || ': ' || problem || '; ignored'
FROM pl_test_result
WHERE problem IS NOT NULL
UNION ALL
SELECT 'warning', _file, _line, pipeline_id,
       'task ' || rs_quote(to_json(task_id)) || ': testResult ' || rs_quote(j)
       || ' has a count past 9223372036854775807, too large to count; '
       || 'the test pass rate is unknown'
FROM pl_test_result
WHERE too_large;

CREATE OR REPLACE TEMP TABLE pl_d3 AS
WITH agg AS (
    SELECT s.pipeline_id,
           count(r.total) AS results,
           -- HUGEINT sums: a sum past BIGINT is seen, not an error
           sum(r.passed) AS passed,
           sum(r.total) AS total,
           coalesce(bool_or(r.too_large), false) AS too_large
    FROM pl_state s
    LEFT JOIN pl_test_result r ON r.pipeline_id = s.pipeline_id AND r.problem IS NULL
    GROUP BY s.pipeline_id
), k AS (
    SELECT a.*,
           NOT too_large AND results > 0
               AND (TRY_CAST(passed AS BIGINT) IS NULL OR TRY_CAST(total AS BIGINT) IS NULL)
               AS sum_too_large
    FROM agg a
), d AS (
    SELECT k.*, too_large OR sum_too_large AS counts_unknown FROM k
)
SELECT pipeline_id, results,
       CASE WHEN NOT counts_unknown THEN passed::BIGINT END AS passed,
       CASE WHEN NOT counts_unknown THEN total::BIGINT END AS total,
       results > 0 AND NOT counts_unknown AS verified,
       CASE WHEN results > 0 AND NOT counts_unknown
            THEN passed::DOUBLE * 100.0 / total::DOUBLE END AS pass_rate,
       CASE WHEN results > 0 AND NOT counts_unknown
            THEN passed::DOUBLE * 100.0 / total::DOUBLE
            ELSE (SELECT value FROM pl_constant WHERE name = 'test_unverified_score')
       END AS score,
       counts_unknown,
       sum_too_large
FROM d;

INSERT INTO pl_issue
SELECT 'warning', NULL, NULL, pipeline_id,
       'the test counts of its tasks add up past 9223372036854775807, too many to count; '
       || 'the test pass rate is unknown'
FROM pl_d3
WHERE sum_too_large;
