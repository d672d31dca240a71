-- effectiveness/v1 · 030 verdicts                               spec: effectiveness.md §1, §3
-- Reads:    events (010); the macros eff_trim and jstr (000).
-- Produces: verdicts — one row per review.verdict event: run_id, seq, archetype, verdict
--           (lower/trim), cycle (data.cycle when an integer, 2.0 too, else 1 + number of
--           cycle.boundary events with a smaller seq), items (the findings' elements,
--           JSON[]), _file, _line. A data.cycle given but not as an integer is ignored
--           (the boundaries decide); 090 warns of it (000's cycle_bad).
-- Speed: the boundary count is a grouped join over only the verdicts without a
-- data.cycle (events are unique per (run_id, seq)). The findings are 035's, a file of
-- their own so that the fix walk (040), which needs the verdicts only, can run beside
-- them (sqlpack.plan).
CREATE OR REPLACE TABLE verdicts AS
WITH v AS (
    SELECT run_id, seq, archetype, verdict, data_cycle, findings, _file, _line
    FROM events WHERE type = 'review.verdict'
), counted AS (
    SELECT n.run_id, n.seq, 1 + count(b.seq) AS cycle
    FROM v n LEFT JOIN events b
      ON b.run_id = n.run_id AND b.type = 'cycle.boundary' AND b.seq < n.seq
    WHERE n.data_cycle IS NULL
    GROUP BY n.run_id, n.seq
)
SELECT v.run_id, v.seq, v.archetype, v.verdict,
       coalesce(v.data_cycle, c.cycle) AS cycle,
       coalesce(json_extract(v.findings, '$[*]'), []::JSON[]) AS items,
       v._file, v._line
FROM v LEFT JOIN counted c ON c.run_id = v.run_id AND c.seq = v.seq;
