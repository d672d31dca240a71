-- effectiveness/v1 · 030 verdicts and findings                  spec: effectiveness.md §1, §3
-- Reads:    events (010).
-- Produces: verdicts — one row per review.verdict event: run_id, seq, archetype, verdict
--           (lower/trim), cycle (data.cycle when an integer, else 1 + number of
--           cycle.boundary events with a smaller seq), _file, _line;
--           findings — one row per element of a verdict's data.findings (any element
--           counts; a missing/null/non-array findings is empty): run_id, verdict_seq, idx,
--           archetype, cycle, severity (lower/trim), fix_required (JSON true or "true" in
--           any case), useful, description, match_key (location, else file[:line], else
--           description; lower/trim; present = given and not null, so "" is a key).
CREATE OR REPLACE TEMP TABLE verdicts AS
SELECT v.run_id, v.seq, v.archetype,
       v.verdict,
       coalesce(
           v.data_cycle,
           1 + (SELECT count(*) FROM events b
                WHERE b.run_id = v.run_id AND b.type = 'cycle.boundary' AND b.seq < v.seq)
       ) AS cycle,
       coalesce(json_extract(v.findings, '$[*]'), []::JSON[]) AS items,
       v._file, v._line
FROM events v
WHERE v.type = 'review.verdict';

CREATE OR REPLACE TEMP TABLE findings AS
WITH raw AS (
    SELECT v.run_id, v.seq AS verdict_seq, v.archetype, v.cycle, f.idx, f.item
    FROM verdicts v, unnest(v.items) WITH ORDINALITY AS f(item, idx)
), typed AS (
    SELECT *,
           CASE WHEN json_type(item) = 'OBJECT' THEN item END AS obj
    FROM raw
)
SELECT run_id, verdict_seq, idx, archetype, cycle,
       lower(eff_trim(obj ->> '$.severity')) AS severity,
       coalesce(json_type(obj -> '$.fix_required') = 'BOOLEAN' AND (obj ->> '$.fix_required') = 'true'
                OR json_type(obj -> '$.fix_required') = 'VARCHAR'
                   AND lower(obj ->> '$.fix_required') = 'true', false) AS fix_required,
       obj ->> '$.description' AS description,
       coalesce(
           lower(eff_trim(obj ->> '$.location')),
           lower(eff_trim(obj ->> '$.file'))
               || CASE WHEN (obj -> '$.line') IS NOT NULL AND json_type(obj -> '$.line') <> 'NULL'
                       THEN ':' || (obj ->> '$.line') ELSE '' END,
           lower(eff_trim(obj ->> '$.description'))
       ) AS match_key
FROM typed;

ALTER TABLE findings ADD COLUMN useful BOOLEAN;
UPDATE findings
SET useful = coalesce(severity IN ('warning', 'bug', 'critical'), false) AND fix_required;
