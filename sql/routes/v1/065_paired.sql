-- routes/v1 · paired evidence on frozen fixtures.
-- Reads: routes_ep (paired, labelled episodes with a known model), routes_comparisons_base,
--   routes_policy.
-- Produces: routes_pair_picks (grain: comparison x pairId x role): the episode that represents
--   each route on each shared fixture (the earliest labelled one; ties by episode id);
--   routes_paired (grain: comparison): pairs, both_success (a), candidate_only (b),
--   incumbent_only (c), both_fail (d), effect = (b - c) / pairs (rests on the discordant
--   pairs), ci_low, ci_high, ci_width (Newcombe method 10 for paired proportions); each
--   written by routes_stat (6 decimals, as compared), the width that of the bounds written.
-- Spec: routes.md §3 "Paired evidence" (episodes sharing a pairId ran the same frozen fixture).
CREATE OR REPLACE TEMP TABLE routes_pair_first AS
SELECT * FROM (
    SELECT activity, pair_id, route_key, episode_id, label,
        row_number() OVER (PARTITION BY activity, pair_id, route_key
                           ORDER BY started_at NULLS LAST, episode_id) AS rk
    FROM routes_ep
    WHERE kind = 'paired' AND label IS NOT NULL AND model IS NOT NULL
) WHERE rk = 1;

CREATE OR REPLACE TEMP TABLE routes_pair_picks AS
SELECT b.comp_id, pc.pair_id, 'candidate' AS role, pc.episode_id, pc.label
FROM routes_comparisons_base b
JOIN routes_pair_first pc ON pc.activity = b.activity AND pc.route_key = b.cand_key
JOIN routes_pair_first pi ON pi.activity = b.activity AND pi.route_key = b.inc_key
    AND pi.pair_id = pc.pair_id
UNION ALL
SELECT b.comp_id, pi.pair_id, 'incumbent', pi.episode_id, pi.label
FROM routes_comparisons_base b
JOIN routes_pair_first pc ON pc.activity = b.activity AND pc.route_key = b.cand_key
JOIN routes_pair_first pi ON pi.activity = b.activity AND pi.route_key = b.inc_key
    AND pi.pair_id = pc.pair_id;

CREATE OR REPLACE TEMP TABLE routes_paired AS
WITH pairs AS (
    SELECT comp_id, pair_id,
        max(label = 'success') FILTER (WHERE role = 'candidate') AS cs,
        max(label = 'success') FILTER (WHERE role = 'incumbent') AS isucc
    FROM routes_pair_picks GROUP BY comp_id, pair_id
),
k AS (
    SELECT comp_id, count(*) AS pairs,
        count(*) FILTER (WHERE cs AND isucc) AS a,
        count(*) FILTER (WHERE cs AND NOT isucc) AS b,
        count(*) FILTER (WHERE NOT cs AND isucc) AS c,
        count(*) FILTER (WHERE NOT cs AND NOT isucc) AS d
    FROM pairs GROUP BY comp_id
)
SELECT comp_id, pairs, a AS both_success, b AS candidate_only, c AS incumbent_only,
    d AS both_fail,
    routes_stat((b - c) / CAST(pairs AS DOUBLE)) AS effect,
    routes_stat(routes_paired_lo(a, b, c, d, pol.z95)) AS ci_low,
    routes_stat(routes_paired_hi(a, b, c, d, pol.z95)) AS ci_high,
    routes_stat(routes_stat(routes_paired_hi(a, b, c, d, pol.z95))
                - routes_stat(routes_paired_lo(a, b, c, d, pol.z95))) AS ci_width
FROM k CROSS JOIN routes_policy pol;
