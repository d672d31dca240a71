-- effectiveness/v1 · 100 scored records, typed as the history reads them  spec: effectiveness.md §4
-- Reads:    scored_records: the records of one extract (090's history_records, of any
--           version), as a history line holds them: ts and run_ts UTC ISO-8601 text, run_ts
--           NULL when the run's time is unknown (015).
-- Produces: records_typed — the same rows and columns, in order, with ts and run_ts
--           TIMESTAMPTZ by the rule 100_history.sql types a line's (text that starts
--           YYYY- and is a time in the years 1-9999 UTC): what `score_runs` returns, one type
--           per column with the history views. run_ts stays NULL where unknown: the views'
--           "run_ts = ts" is a reader's rule for lines that lack one, not the run's time.
-- In UTC, as the history views are: Arrow labels a TIMESTAMPTZ with the session's time zone.
SET TimeZone = 'UTC';
CREATE OR REPLACE TEMP MACRO _rt_time(s) AS
    CASE WHEN regexp_matches(s, '^[0-9]{4}-')
          AND TRY_CAST(s AS TIMESTAMPTZ) >= TIMESTAMPTZ '0001-01-01 00:00:00+00'
          AND TRY_CAST(s AS TIMESTAMPTZ) < TIMESTAMPTZ '10000-01-01 00:00:00+00'
         THEN TRY_CAST(s AS TIMESTAMPTZ) END;

CREATE OR REPLACE TEMP VIEW records_typed AS
SELECT * REPLACE (_rt_time(ts) AS ts, _rt_time(run_ts) AS run_ts) FROM scored_records;
