-- effectiveness/v1 · 015 run status: validity, completeness      spec: effectiveness.md §1
-- Reads:    accepted (001), _dups and events (010); rs_quote (common/v1 000, run by the
--           engine on every connection that scores: the one quote of an input value),
--           rs_iso_text (common/v1 010: the one reading of an ISO-8601 time).
-- Produces: run_status — one row per run_id: status 'scored' | 'incomplete' | 'invalid',
--           reason, locations VARCHAR[] (file:line of conflicting duplicates), source (the
--           run's first input file), run_ts (ts of the highest-seq run.complete, in UTC),
--           events_sha256 (sha256 over the run's normalised events in seq order: each
--           event's seq and content md5), n_events, first_ord.
--           run_ts_warnings (run_id, file, line, reason): a run.complete whose ts is there
--           but not an ISO-8601 time (text that rs_iso_text writes starting YYYY-, years
--           1-9999 UTC, as the history readers of 100 require): its run_ts is NULL
--           (unknown; readers then use the line's ts). Written as it was, every reader of
--           the history would skip the line.
-- An invalid run (same seq, different content) beats incomplete: it is broken either way.
-- A file of its own (it was 010's last statement): nothing but 080 and 090 needs it, so
-- it runs beside 020-060 when the files run on two connections (sqlpack.plan).
-- README "Times are UTC ISO-8601" (the worked example's run_ts is 10:06:00Z): a run_ts is
-- written as the UTC time it stands for, not as the run.complete wrote it (12:06+02:00),
-- so that a reader of the history as text (ArcheFlow's jq compares strings) orders runs
-- by time. Seconds, then the fraction to the microsecond (DuckDB's precision) without
-- trailing zeros, then Z. A time without an offset is UTC, as the history readers take it
-- (they SET TimeZone = 'UTC'), not the machine's zone, which this connection has: it is
-- read with a Z added (a time that has a zone then fails to cast, and is read as it is;
-- a date alone with the midnight and Z). No SET here: it would be the connection's alone,
-- and sqlpack.plan runs 015 beside other files on several connections.
-- The macros take the ts as common/v1's rs_iso_text writes it (u), the one reading of an
-- ISO-8601 time every pack shares: a week or ordinal date, the basic format, a decimal comma
-- or a lowercase t/z were no time here while the pipeline, plugin and routes packs read them.
-- It is applied once per run, where the run's ts is chosen, not in each macro.
CREATE OR REPLACE MACRO run_ts_at(u) AS
    coalesce(TRY_CAST(u || 'Z' AS TIMESTAMPTZ),
             TRY_CAST(u || ' 00:00:00Z' AS TIMESTAMPTZ),
             TRY_CAST(u AS TIMESTAMPTZ));
CREATE OR REPLACE MACRO run_ts_utc(u) AS
    regexp_replace(strftime(timezone('UTC', run_ts_at(u)), '%Y-%m-%dT%H:%M:%S.%f'),
                   '\.0{6}$|0+$', '') || 'Z';
-- The year range is checked on the time run_ts_utc writes: cast in the machine's zone, a
-- time without an offset near year 1 or 9999 was in range on one machine and not on another.
CREATE OR REPLACE MACRO run_ts_ok(u) AS
    coalesce(regexp_matches(u, '^[0-9]{4}-')
             AND run_ts_at(u) >= TIMESTAMPTZ '0001-01-01 00:00:00+00'
             AND run_ts_at(u) < TIMESTAMPTZ '10000-01-01 00:00:00+00', false);

-- Each run's last run.complete, its time as rs_iso_text writes it (u) and whether that is
-- a time run_ts takes (ok), read once for run_status and run_ts_warnings. Each use of a
-- macro is planned as its whole text: rs_iso_text is ~12 ms of planning a use, and
-- run_ts_ok(rs_iso_text(...)), which expands it seven times, was ~80 ms of each extract's
-- CPU (the statement's rows took ~20 ms more at 10k runs), a second scan of events too.
CREATE OR REPLACE TABLE _run_complete AS
SELECT run_id, file, line, ts, u, run_ts_ok(u) AS ok
FROM (SELECT *, rs_iso_text(ts) AS u
      FROM (SELECT run_id, arg_max(_file, seq) AS file, arg_max(_line, seq) AS line,
                   arg_max(ts, seq) AS ts
            FROM events WHERE type = 'run.complete' GROUP BY run_id));

CREATE OR REPLACE TABLE run_status AS
WITH runs AS (
    SELECT run_id, arg_min(_file, _ord) AS source, min(_ord) AS first_ord
    FROM accepted GROUP BY run_id
), conflicts AS (
    SELECT run_id,
           list(locations ORDER BY seq) AS loc_lists,
           list(seq ORDER BY seq) AS seqs
    FROM _dups WHERE variants > 1 GROUP BY run_id
), complete AS (
    SELECT run_id, CASE WHEN ok THEN run_ts_utc(u) END AS run_ts FROM _run_complete
), digest AS (
    -- seq is part of each event (content_md5 is not): renumbering a run changes its edges.
    -- The text hashed is "seq:md5" joined by ',' in seq order. An ordered aggregate keeps
    -- a sorted buffer per run (slow with many runs); an unordered list sorted afterwards
    -- gives the same text: seq is unique within `events`, so (seq, md5) sorts by seq.
    SELECT run_id,
           sha256(array_to_string(
               list_transform(list_sort(list({'s': seq, 'm': content_md5})),
                              lambda x: x.s || ':' || x.m), ',')) AS events_sha256,
           count(*) AS n_events
    FROM events GROUP BY run_id
)
SELECT r.run_id,
       CASE WHEN c.run_id IS NOT NULL THEN 'invalid'
            WHEN k.run_id IS NULL THEN 'incomplete'
            ELSE 'scored' END AS status,
       CASE WHEN c.run_id IS NOT NULL
              THEN 'conflicting duplicate events for seq ' || array_to_string(c.seqs, ', ')
            WHEN k.run_id IS NULL THEN 'no run.complete event'
       END AS reason,
       coalesce(flatten(c.loc_lists), []::VARCHAR[]) AS locations,
       r.source, k.run_ts, d.events_sha256, d.n_events, r.first_ord
FROM runs r
LEFT JOIN conflicts c USING (run_id)
LEFT JOIN complete k USING (run_id)
LEFT JOIN digest d USING (run_id);

CREATE OR REPLACE TABLE run_ts_warnings AS
SELECT run_id, file, line,
       -- quoted only here, for the few runs warned of, never per event
       'run.complete ts ' || rs_quote(to_json(ts))
           || ' is not an ISO-8601 time: the run''s time is unknown' AS reason
FROM _run_complete WHERE ts IS NOT NULL AND NOT ok;

DROP TABLE _run_complete;
