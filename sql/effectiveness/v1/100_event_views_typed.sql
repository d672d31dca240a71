-- effectiveness/v1 · 100 event tables, typed as the history reads them  spec: effectiveness.md §4
-- Reads:    run_status (015), run_scores (080) of the event tables built on this connection
--           for `sql --events` and `export --events` (nothing else runs this file).
-- Produces: the same tables, in place, with the fields they share with the history views
--           typed as those type them: run_status.run_ts TIMESTAMPTZ (UTC), run_scores.tokens
--           BIGINT. Scoring keeps run_ts as the text the history line writes and adds token
--           counts as doubles (090 casts them for the line), so `sql` showed `4708.0` tokens
--           beside the history's `4708`, and ordered runs by the text of their time. Neither
--           cast loses a value: 015 keeps only a run_ts that is such a time (else NULL,
--           unknown), and 050 only a whole token sum below 9.2e18 (else NULL).
-- In UTC, as the history views are: a time without an offset is UTC, and Arrow labels a
-- TIMESTAMPTZ with the session's time zone.
SET TimeZone = 'UTC';
ALTER TABLE run_status ALTER run_ts SET DATA TYPE TIMESTAMPTZ USING TRY_CAST(run_ts AS TIMESTAMPTZ);
ALTER TABLE run_scores ALTER tokens SET DATA TYPE BIGINT USING TRY_CAST(round(tokens) AS BIGINT);
