-- effectiveness/v1 · 001 accepted events                       spec: effectiveness.md §1
-- Reads:    raw_events (000's projection plus _file, _line, _ord), one row per
--           JSON-object line.
-- Produces: row_issues (file, line, reason) — lines without a non-empty string run_id/type;
--           _positions (_ord, pos) — 1-based position among the run's accepted lines in
--           input order, only for runs with a missing/invalid seq (ranking every run's
--           lines would sort the whole corpus for nothing);
--           accepted (view, one row per accepted line): the projected fields plus pos,
--           seq (the line's own integer seq ≥ 1, else pos) and seq_replaced.
-- `accepted` is a view: the event rows stay in memory once, in raw_events.
CREATE OR REPLACE TEMP TABLE row_issues AS
SELECT _file AS file, _line AS line, problem AS reason
FROM raw_events
WHERE problem IS NOT NULL;

CREATE OR REPLACE TEMP TABLE _positions AS
WITH needs_pos AS (
    SELECT DISTINCT run_id FROM raw_events WHERE problem IS NULL AND own_seq IS NULL
)
SELECT r._ord, row_number() OVER (PARTITION BY r.run_id ORDER BY r._ord) AS pos
FROM raw_events r SEMI JOIN needs_pos n ON n.run_id = r.run_id
WHERE r.problem IS NULL;

CREATE OR REPLACE TEMP VIEW accepted AS
SELECT r.* EXCLUDE (problem, own_seq), p.pos,
       coalesce(r.own_seq, p.pos) AS seq,
       r.own_seq IS NULL AS seq_replaced
FROM raw_events r LEFT JOIN _positions p ON p._ord = r._ord
WHERE r.problem IS NULL;
