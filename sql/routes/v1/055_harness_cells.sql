-- routes/v1 · strata cells for harness shifts (one harness-fingerprint change at a time).
-- Reads: routes_ep.
-- Produces: routes_harness_steps (grain: activity x consecutive harness pair): step_id,
--   activity, harness_from, harness_to, changed_at (first evidence on harness_to), in order of
--   first appearance of each fingerprint in the activity;
--   rows appended to routes_mh_cells with analysis 'harness', key = step_id || '|' || route_key,
--   metric 'success', group 1 = episodes on harness_to, group 0 = on harness_from, one stratum
--   per complexity (s2 NULL) — so a harness shift is measured within complexity, per model.
-- Spec: routes.md §5 harness_change, §6 "harness_change" (a shift across one fingerprint change).
CREATE OR REPLACE TEMP TABLE routes_harness_steps AS
WITH firsts AS (
    SELECT activity, harness, min(evidence_at) AS first_seen
    FROM routes_ep WHERE harness IS NOT NULL
    GROUP BY activity, harness
),
ordered AS (
    SELECT activity, harness, first_seen,
        lead(harness) OVER w AS next_harness, lead(first_seen) OVER w AS next_seen
    FROM firsts
    WINDOW w AS (PARTITION BY activity ORDER BY first_seen NULLS LAST, harness)
)
SELECT row_number() OVER (ORDER BY activity, first_seen NULLS LAST, harness) AS step_id,
    activity, harness AS harness_from, next_harness AS harness_to, next_seen AS changed_at
FROM ordered WHERE next_harness IS NOT NULL;

INSERT INTO routes_mh_cells
WITH cells AS (
    SELECT activity, route_key, harness, complexity,
        count(*) AS n, count(*) FILTER (WHERE label = 'success') AS x
    FROM routes_ep
    WHERE kind IN ('historical', 'paired') AND label IS NOT NULL AND model IS NOT NULL
      AND harness IS NOT NULL
    GROUP BY activity, route_key, harness, complexity
)
SELECT 'harness', CAST(s.step_id AS VARCHAR) || '|' || c1.route_key, 'success',
    c1.complexity, NULL, c1.n, c1.x, c0.n, c0.x
FROM routes_harness_steps s
JOIN cells c1 ON c1.activity = s.activity AND c1.harness = s.harness_to
JOIN cells c0 ON c0.activity = s.activity AND c0.harness = s.harness_from
    AND c0.route_key = c1.route_key AND c0.complexity IS NOT DISTINCT FROM c1.complexity;
