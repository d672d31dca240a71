-- effectiveness/v1 · 001 accepted events                       spec: effectiveness.md §1
-- Reads:    raw_events (000's projection plus _file, _line, _ord), one row per
--           JSON-object line.
-- Produces: row_issues (file, line, reason) — lines without a non-empty string run_id/type;
--           _positions (_ord, pos) — 1-based position among the run's accepted lines in
--           input order, only for runs with a missing/invalid seq (ranking every run's
--           lines would sort the whole corpus for nothing);
--           accepted (view, one row per accepted line): the projected fields plus pos,
--           seq (the line's own integer seq ≥ 1, else pos) and seq_replaced;
--           _dup_keys (run_id, seq) — keys given by more than one accepted line (rare):
--           010 judges them, and extract first compares their lines as parsed JSON;
--           _dup_conflicts (view, one row per key in _dup_keys whose lines differ in
--           content_md5): their _file, _line, _ord, parents and content_md5 as lists in
--           input order — what extract re-reads to tell text from JSON differences.
-- `accepted` is a view: the event rows stay in memory once, in raw_events.
CREATE OR REPLACE TABLE row_issues AS
SELECT _file AS file, _line AS line, problem AS reason
FROM raw_events
WHERE problem IS NOT NULL;

CREATE OR REPLACE TABLE _positions AS
WITH needs_pos AS (
    SELECT DISTINCT run_id FROM raw_events WHERE problem IS NULL AND own_seq IS NULL
)
SELECT r._ord, row_number() OVER (PARTITION BY r.run_id ORDER BY r._ord) AS pos
FROM raw_events r SEMI JOIN needs_pos n ON n.run_id = r.run_id
WHERE r.problem IS NULL;

CREATE OR REPLACE VIEW accepted AS
SELECT r.* EXCLUDE (problem, own_seq), p.pos,
       coalesce(r.own_seq, p.pos) AS seq,
       r.own_seq IS NULL AS seq_replaced
FROM raw_events r LEFT JOIN _positions p ON p._ord = r._ord
WHERE r.problem IS NULL;

-- Grouped once here: both the duplicate check before 010 and 010 itself need these keys,
-- and grouping every event by (run_id, seq) is one of the costlier steps at scale.
CREATE OR REPLACE TABLE _dup_keys AS
SELECT run_id, seq FROM accepted GROUP BY run_id, seq HAVING count(*) > 1;

CREATE OR REPLACE VIEW _dup_conflicts AS
SELECT list(a._file ORDER BY a._ord) AS files, list(a._line ORDER BY a._ord) AS lines,
       list(a._ord ORDER BY a._ord) AS ords, list(a.parents ORDER BY a._ord) AS parents,
       list(a.content_md5 ORDER BY a._ord) AS md5s
FROM accepted a SEMI JOIN _dup_keys k ON k.run_id = a.run_id AND k.seq = a.seq
GROUP BY a.run_id, a.seq
HAVING count(DISTINCT a.content_md5) > 1;
