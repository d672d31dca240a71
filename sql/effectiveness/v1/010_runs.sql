-- effectiveness/v1 · 010 runs: duplicates                            spec: effectiveness.md §1
-- Reads:    accepted, _dup_keys (001).
-- Produces: _dups — one row per duplicated (run_id, seq): variants (distinct contents),
--           locations (file:line of each copy, in input order), later_ords;
--           _dropped (_ord) — the lines `events` leaves out: later copies of a duplicate,
--           and every line of a run with conflicting duplicates;
--           events — the normalised events of every run that is not invalid, one row per
--           (run_id, seq): exact duplicates collapsed to their first line (in input order).
-- Each run's status (scored, incomplete, invalid) is 015's.
CREATE OR REPLACE TABLE _dups AS
SELECT a.run_id, a.seq,
       count(DISTINCT a.content_md5) AS variants,
       list(a._file || ':' || a._line ORDER BY a._ord) AS locations,
       list(a._ord ORDER BY a._ord)[2:] AS later_ords
FROM accepted a SEMI JOIN _dup_keys k ON k.run_id = a.run_id AND k.seq = a.seq
GROUP BY a.run_id, a.seq;

-- Duplicates are rare: drop the later copies instead of ranking every event. A view,
-- not a copy: the event rows stay in memory once.
CREATE OR REPLACE TABLE _dropped AS
SELECT unnest(later_ords) AS _ord FROM _dups
UNION ALL
SELECT a._ord FROM accepted a
WHERE a.run_id IN (SELECT run_id FROM _dups WHERE variants > 1);

CREATE OR REPLACE VIEW events AS
SELECT a.* FROM accepted a ANTI JOIN _dropped d ON d._ord = a._ord;
