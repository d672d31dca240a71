-- pipeline/v1 · 200 pipeline history: validate and pick current lines (for --report;
-- spec effectiveness.md §4 reader rule)
-- Reads: pl_raw_history (sources.read_jsonl over pipelines.jsonl: _file, _line,
--   _ord and raw JSON columns of the 110 record), pl_verdict; $scoring_version.
-- Produces:
--   pl_hist_issue  (severity, file, line, pipeline_id, reason): a line without a
--                  pipeline_id, scoring_version, parsable ts, known verdict or a
--                  numeric composite_score is skipped and reported
--   pl_hist        the current line per pipeline_id for $scoring_version (latest
--                  ts; ties: the later line), with period_ts = the pipeline's
--                  finished_at, else its eval_date, else ts (when it ran, not when
--                  it was scored, so re-scoring never moves a pipeline in time), and
--                  finish_unknown: no (parsable) finished_at, so placed by the others
-- A history time (ts, finished_at; 220's evaluated_at, started_at) by the effectiveness
-- history readers' rule (effectiveness/v1 100's _h_time_of): text that starts YYYY- and
-- casts to a time in years 1-9999 UTC, as it is or, for a text the cast does not read
-- alone, as rs_iso_text (common/v1 010) writes it: a week or ordinal date, the basic
-- format, a decimal comma, lowercase t/z, the forms a task's times are read in (010). Only
-- the plain cast read them: a line another tool wrote so was skipped ("no parsable ts"),
-- and a finish time so placed the pipeline by its eval date. The plain cast is tried first,
-- so no text it read changes meaning; rs_iso_text runs inside lambdas, for the texts it
-- did not read alone (DuckDB lifts a repeated expression out of a coalesce, never out of a
-- lambda). 'infinity', 'epoch' and years past 9999 are no time a record holds.
CREATE OR REPLACE TEMP MACRO pl_hist_time_cast(s) AS
    CASE WHEN regexp_matches(s, '^[0-9]{4}-')
          AND TRY_CAST(s AS TIMESTAMPTZ) >= TIMESTAMPTZ '0001-01-01 00:00:00+00'
          AND TRY_CAST(s AS TIMESTAMPTZ) < TIMESTAMPTZ '10000-01-01 00:00:00+00'
         THEN TRY_CAST(s AS TIMESTAMPTZ) END;
CREATE OR REPLACE TEMP MACRO pl_hist_time(j) AS
    CASE WHEN json_type(j) = 'VARCHAR'
         THEN coalesce(pl_hist_time_cast(json_extract_string(j, '$')),
                       list_transform(list_transform([json_extract_string(j, '$')],
                                                     lambda x: rs_iso_text(x)),
                                      lambda u: pl_hist_time_cast(u))[1]) END;
-- The eval date (YYYY-MM-DD as 110 writes it) by the same rule: a week or ordinal date too.
CREATE OR REPLACE TEMP MACRO pl_hist_date_cast(s) AS
    CASE WHEN regexp_matches(s, '^[0-9]{4}-')
          AND year(TRY_CAST(s AS DATE)) BETWEEN 1 AND 9999
         THEN TRY_CAST(s AS DATE) END;
CREATE OR REPLACE TEMP MACRO pl_hist_date(j) AS
    CASE WHEN json_type(j) = 'VARCHAR'
         THEN coalesce(pl_hist_date_cast(json_extract_string(j, '$')),
                       list_transform(list_transform([json_extract_string(j, '$')],
                                                     lambda x: rs_iso_text(x)),
                                      lambda u: pl_hist_date_cast(u))[1]) END;

CREATE OR REPLACE TEMP TABLE pl_hist_all AS
WITH h AS (
    SELECT _file, _line, _ord,
           CASE WHEN json_type(pipeline_id) = 'VARCHAR'
                THEN json_extract_string(pipeline_id, '$') END AS pipeline_id,
           CASE WHEN json_type(scoring_version) = 'VARCHAR'
                THEN json_extract_string(scoring_version, '$') END AS scoring_version,
           pl_hist_time(ts) AS ts,
           pl_hist_time(finished_at) AS finished_at,
           pl_hist_date(eval_date) AS eval_date,
           json_extract_string(verdict, '$') AS verdict,
           TRY_CAST(json_extract_string(task_completion_score, '$') AS DOUBLE) AS d1,
           TRY_CAST(json_extract_string(deviation_score, '$') AS DOUBLE) AS d2,
           TRY_CAST(json_extract_string(test_score, '$') AS DOUBLE) AS d3,
           TRY_CAST(json_extract_string(time_efficiency, '$') AS DOUBLE) AS d4,
           TRY_CAST(json_extract_string(quality_score, '$') AS DOUBLE) AS d5,
           TRY_CAST(json_extract_string(composite_score, '$') AS DOUBLE) AS composite,
           json_type(test_pass_rate_verified) = 'BOOLEAN'
               AND json_extract_string(test_pass_rate_verified, '$') = 'true' AS verified
    FROM pl_raw_history
)
SELECT h.*,
       CASE
           WHEN h.pipeline_id IS NULL THEN 'history line has no pipeline_id'
           WHEN h.scoring_version IS NULL THEN 'history line has no scoring_version'
           WHEN h.ts IS NULL OR NOT isfinite(h.ts) THEN 'history line has no parsable ts'
           WHEN h.verdict IS NULL OR h.verdict NOT IN (SELECT verdict FROM pl_verdict)
               THEN 'history line has no known verdict'
           WHEN h.composite IS NULL THEN 'history line has no numeric composite_score'
       END AS reject
FROM h;

CREATE OR REPLACE TEMP TABLE pl_hist_issue AS
SELECT 'error' AS severity, _file AS file, _line AS line, pipeline_id, reject AS reason
FROM pl_hist_all
WHERE reject IS NOT NULL
ORDER BY _ord;

CREATE OR REPLACE TEMP TABLE pl_hist AS
SELECT *,
       coalesce(finished_at, eval_date::TIMESTAMPTZ, ts) AS period_ts,
       finished_at IS NULL AS finish_unknown
FROM pl_hist_all
WHERE reject IS NULL AND scoring_version = $scoring_version::VARCHAR
QUALIFY row_number() OVER (PARTITION BY pipeline_id ORDER BY ts DESC, _ord DESC) = 1;
