-- routes/v1 · routes per activity and the incumbent of each activity.
-- Reads: routes_ep; $incumbents_json (JSON list of {activity, host, provider?, model} from the
--   policy file; '[]' for none).
-- Produces: routes_activity_routes (grain: activity x route with a known model): route fields,
--   n_episodes, n_labelled, n_success, n_comparable (historical + paired episodes);
--   routes_incumbents (grain: activity): the incumbent route and incumbent_source
--   ('configured' | 'most labelled episodes' | 'most episodes (tie on labelled episodes)' |
--   'lexicographic order (tie on labelled and total episodes)': the rule of §6's order that
--   set it apart from the runner-up), plus configured_missing when a configured
--   incumbent has no episode in that activity; routes_cfg_unmatched (grain: configured
--   incumbent): each one the policy names that matches no route of its activity, whether
--   the activity has any episode at all (so the caller can say why it was not used), and the
--   incumbent_source of the route used instead.
-- Spec: routes.md §3, §6 "Incumbent" (most labelled episodes; ties: most episodes, then
--   lexicographic order of host, provider, model; a policy file may name it).
CREATE OR REPLACE TEMP TABLE routes_activity_routes AS
SELECT activity, route_key, any_value(host) AS host, any_value(provider) AS provider,
    any_value(model) AS model, any_value(route_label) AS route_label, any_value(tier) AS tier,
    count(*) AS n_episodes,
    count(*) FILTER (WHERE label IS NOT NULL) AS n_labelled,
    count(*) FILTER (WHERE label = 'success') AS n_success,
    count(*) FILTER (WHERE kind IN ('historical', 'paired')) AS n_comparable
FROM routes_ep
WHERE model IS NOT NULL
GROUP BY activity, route_key;

CREATE OR REPLACE TEMP TABLE routes_cfg_incumbents AS
SELECT j ->> '$.activity' AS activity, j ->> '$.host' AS host,
    j ->> '$.provider' AS provider, j ->> '$.model' AS model
FROM (SELECT unnest(CAST(CAST($incumbents_json AS JSON) AS JSON[])) AS j);

CREATE OR REPLACE TEMP TABLE routes_incumbents AS
WITH ranked AS (
    SELECT r.*,
        row_number() OVER w AS rk,
        -- the runner-up, to say which rule of the order chose the first
        lead(r.n_labelled) OVER w AS next_labelled, lead(r.n_episodes) OVER w AS next_episodes
    FROM routes_activity_routes r
    WINDOW w AS (PARTITION BY r.activity
                 ORDER BY r.n_labelled DESC, r.n_episodes DESC,
                          r.host NULLS LAST, r.provider NULLS LAST, r.model, r.route_key)
),
configured AS (
    SELECT r.activity, r.route_key,
        -- the same total order as above among the routes the policy names (a partial
        -- one let the engine's thread timing pick between equals: output must be
        -- byte-identical run to run, §7)
        row_number() OVER (PARTITION BY r.activity
                           ORDER BY r.n_labelled DESC, r.n_episodes DESC,
                                    r.host NULLS LAST, r.provider NULLS LAST, r.model,
                                    r.route_key) AS rk
    FROM routes_activity_routes r
    JOIN routes_cfg_incumbents c
      ON c.activity = r.activity AND c.model = r.model
     AND (c.host IS NULL OR c.host = r.host)
     AND (c.provider IS NULL OR c.provider = r.provider)
)
SELECT d.activity,
    coalesce(cf.route_key, d.route_key) AS route_key,
    -- Which rule decided: a tie on labelled episodes read "most labelled episodes" too.
    CASE WHEN cf.route_key IS NOT NULL THEN 'configured'
         WHEN d.next_labelled IS NULL OR d.n_labelled > d.next_labelled
             THEN 'most labelled episodes'
         WHEN d.n_episodes > d.next_episodes THEN 'most episodes (tie on labelled episodes)'
         ELSE 'lexicographic order (tie on labelled and total episodes)'
    END AS incumbent_source,
    (cf.route_key IS NULL AND d.activity IN (SELECT activity FROM routes_cfg_incumbents))
        AS configured_missing
FROM ranked d
LEFT JOIN configured cf ON cf.activity = d.activity AND cf.rk = 1
WHERE d.rk = 1;

-- A configured incumbent that names no route of its activity (a typo, a model not yet run)
-- falls back to the order above; without this table the fallback was silent. Its warning
-- names the rule of the order that chose the fallback (incumbent_source, NULL when the
-- activity has no route with a known model): a tie-break was said "the route with the most
-- labelled episodes", which it was not.
CREATE OR REPLACE TEMP TABLE routes_cfg_unmatched AS
SELECT c.activity, c.host, c.provider, c.model,
    c.activity IN (SELECT activity FROM routes_ep) AS activity_seen,
    i.incumbent_source
FROM routes_cfg_incumbents c
LEFT JOIN routes_incumbents i ON i.activity = c.activity
WHERE NOT EXISTS (
    SELECT 1 FROM routes_activity_routes r
    WHERE r.activity = c.activity AND r.model = c.model
      AND (c.host IS NULL OR c.host = r.host)
      AND (c.provider IS NULL OR c.provider = r.provider))
ORDER BY c.activity;
