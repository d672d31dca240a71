-- effectiveness/v1 · 010 runs: duplicates, validity, completeness   spec: effectiveness.md §1
-- Reads:    accepted, _dup_keys (001).
-- Produces: run_status — one row per run_id: status 'scored' | 'incomplete' | 'invalid',
--           reason, locations VARCHAR[] (file:line of conflicting duplicates), source (the
--           run's first input file), run_ts (ts of the highest-seq run.complete),
--           events_sha256 (sha256 over the run's normalised events in seq order: each
--           event's seq and content md5), n_events;
--           events — the normalised events of every run that is not invalid, one row per
--           (run_id, seq): exact duplicates collapsed to their first line (in input order).
-- An invalid run (same seq, different content) beats incomplete: it is broken either way.
CREATE OR REPLACE TEMP TABLE _dups AS
SELECT a.run_id, a.seq,
       count(DISTINCT a.content_md5) AS variants,
       list(a._file || ':' || a._line ORDER BY a._ord) AS locations,
       list(a._ord ORDER BY a._ord)[2:] AS later_ords
FROM accepted a SEMI JOIN _dup_keys k ON k.run_id = a.run_id AND k.seq = a.seq
GROUP BY a.run_id, a.seq;

-- Duplicates are rare: drop the later copies instead of ranking every event. A view,
-- not a copy: the event rows stay in memory once.
CREATE OR REPLACE TEMP TABLE _dropped AS
SELECT unnest(later_ords) AS _ord FROM _dups
UNION ALL
SELECT a._ord FROM accepted a
WHERE a.run_id IN (SELECT run_id FROM _dups WHERE variants > 1);

CREATE OR REPLACE TEMP VIEW events AS
SELECT a.* FROM accepted a ANTI JOIN _dropped d ON d._ord = a._ord;

CREATE OR REPLACE TEMP TABLE run_status AS
WITH runs AS (
    SELECT run_id, arg_min(_file, _ord) AS source, min(_ord) AS first_ord
    FROM accepted GROUP BY run_id
), conflicts AS (
    SELECT run_id,
           list(locations ORDER BY seq) AS loc_lists,
           list(seq ORDER BY seq) AS seqs
    FROM _dups WHERE variants > 1 GROUP BY run_id
), complete AS (
    SELECT run_id, arg_max(ts, seq) AS run_ts
    FROM events WHERE type = 'run.complete' GROUP BY run_id
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
