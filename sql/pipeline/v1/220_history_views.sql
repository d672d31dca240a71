-- pipeline/v1 · 220 typed pipeline history views (for `runscore sql` and exports;
-- spec README "history ... plus Parquet/DuckDB export", effectiveness.md §4 reader rule)
-- Reads: pl_raw_history (every 110 record field as raw JSON), pl_hist_all (200: which
--   lines are usable), pl_hist_time (200: a time as a history line holds it). Produces:
--   pl_history_all      every usable line, all scoring versions, typed, with
--                       history_file / history_line
--   pl_history_current  the current line per (pipeline_id, scoring_version):
--                       latest ts, ties by the later line
CREATE OR REPLACE TEMP TABLE pl_history_all AS
SELECT a.ts,
       a.pipeline_id,
       a.scoring_version,
       json_extract_string(r.inputs_sha256, '$') AS inputs_sha256,
       pl_hist_time(r.evaluated_at) AS evaluated_at,
       a.eval_date,
       pl_hist_time(r.started_at) AS started_at,
       a.finished_at,
       TRY_CAST(json_extract_string(r.task_count, '$') AS BIGINT) AS task_count,
       TRY_CAST(json_extract_string(r.completed, '$') AS BIGINT) AS completed,
       TRY_CAST(json_extract_string(r.failed, '$') AS BIGINT) AS failed,
       TRY_CAST(json_extract_string(r.cancelled, '$') AS BIGINT) AS cancelled,
       TRY_CAST(json_extract_string(r.completion_rate, '$') AS DOUBLE) AS completion_rate,
       a.d1 AS task_completion_score,
       TRY_CAST(json_extract_string(r.deviation_count, '$') AS BIGINT) AS deviation_count,
       a.d2 AS deviation_score,
       TRY_CAST(json_extract_string(r.tests_passed, '$') AS BIGINT) AS tests_passed,
       TRY_CAST(json_extract_string(r.tests_total, '$') AS BIGINT) AS tests_total,
       TRY_CAST(json_extract_string(r.test_pass_rate, '$') AS DOUBLE) AS test_pass_rate,
       a.verified AS test_pass_rate_verified,
       a.d3 AS test_score,
       TRY_CAST(json_extract_string(r.actual_minutes, '$') AS DOUBLE) AS actual_minutes,
       TRY_CAST(json_extract_string(r.estimated_minutes, '$') AS DOUBLE) AS estimated_minutes,
       a.d4 AS time_efficiency,
       a.d5 AS quality_score,
       a.composite AS composite_score,
       a.verdict,
       CASE WHEN json_type(r.recommendations) = 'ARRAY'
            THEN json_extract_string(r.recommendations, '$[*]') END AS recommendations,
       CASE WHEN json_type(r.sources) = 'ARRAY'
            THEN json_extract_string(r.sources, '$[*]') END AS sources,
       r._file AS history_file,
       r._line AS history_line,
       r._ord
FROM pl_raw_history r
JOIN pl_hist_all a ON a._ord = r._ord
WHERE a.reject IS NULL;

CREATE OR REPLACE TEMP TABLE pl_history_current AS
SELECT * FROM pl_history_all
QUALIFY row_number() OVER (PARTITION BY pipeline_id, scoring_version
                           ORDER BY ts DESC, _ord DESC) = 1;
