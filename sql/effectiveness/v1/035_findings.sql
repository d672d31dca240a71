-- effectiveness/v1 · 035 findings                               spec: effectiveness.md §1, §3
-- Reads:    verdicts (030); the macros eff_trim, jstr, jtext and jkeytext (000).
-- Produces: findings — one row per element of a verdict's data.findings (any element
--           counts; a missing/null/non-array findings is empty): run_id, verdict_seq, idx,
--           archetype, cycle, severity (lower/trim), fix_required (JSON true or "true" in
--           any case), useful, description, match_key (location, else file[:line], else
--           description; lower/trim; present = given and not null, so "" is a key; a
--           numeric line by its value, jkeytext: 42.0 is line 42).
-- Speed: each finding object is parsed once (one json_extract with a list of paths); its
-- members are then read from their minified JSON text as 000 does (jtext: a string's
-- value, a scalar's literal, null for JSON null or absent), each once.
CREATE OR REPLACE TABLE findings AS
WITH raw AS (
    -- two unnests of equal length in one select list run side by side
    SELECT run_id, seq AS verdict_seq, archetype, cycle,
           unnest(items)::VARCHAR AS item, unnest(range(1, len(items) + 1)) AS idx
    FROM verdicts
), parts AS (
    -- only an object has members (json_extract hands elements over minified)
    SELECT * EXCLUDE (item),
           CASE WHEN left(item, 1) = '{' THEN
             json_extract(item, ['$.severity', '$.fix_required', '$.description',
                                 '$.location', '$.file', '$.line'])::VARCHAR[] END AS p
    FROM raw
), texts AS (
    SELECT * EXCLUDE (p),
           jtext(p[1]) AS severity_t, p[2] AS fix_j, jtext(p[3]) AS description,
           jtext(p[4]) AS location_t, jtext(p[5]) AS file_t, p[6] AS line_j
    FROM parts
)
SELECT *,
       -- a finding worth acting on (§3): warning/bug/critical and fix_required
       coalesce(severity IN ('warning', 'bug', 'critical'), false) AND fix_required AS useful
FROM (
SELECT run_id, verdict_seq, idx, archetype, cycle,
       lower(eff_trim(severity_t)) AS severity,
       coalesce(fix_j = 'true' OR left(fix_j, 1) = '"' AND lower(jstr(fix_j)) = 'true',
                false) AS fix_required,
       description,
       coalesce(
           lower(eff_trim(location_t)),
           lower(eff_trim(file_t))
               || CASE WHEN line_j IS NOT NULL AND line_j <> 'null'
                       THEN ':' || jkeytext(line_j) ELSE '' END,
           lower(eff_trim(description))
       ) AS match_key
FROM texts
);
