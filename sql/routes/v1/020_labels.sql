-- routes/v1 · outcome labels from the evidence hierarchy.
-- Reads: routes_valid, routes_signal_strength, routes_signal_values, routes_negation_values,
--   routes_model_tiers.
-- Produces: routes_ep — one row per valid episode (grain: episode) with every routes_valid
--   column except the raw signal list, plus
--   label ('success' | 'failure' | NULL = unlabelled), label_reason, n_strong_pos,
--   n_strong_neg, n_medium, n_weak, n_assistant_done, route_key (JSON text of
--   [host, provider, model]: the identity of a route), route_label, tier (model tier, NULL if
--   no pattern matches).
-- Spec: routes.md §2. success = at least one strong positive and no strong negative;
--   failure = a strong-negative kind, or a strong kind whose value is a failure; everything else
--   (medium/weak alone, assistant_done, blocked/cancelled without a strong signal) is unlabelled.
CREATE OR REPLACE TEMP TABLE routes_signal_rows AS
SELECT
    v.episode_id,
    lower(trim(s.sig ->> '$.kind')) AS kind,
    lower(trim(s.sig ->> '$.value')) AS value
FROM routes_valid v, LATERAL (SELECT unnest(v.signals) AS sig) s
WHERE v.signals IS NOT NULL AND json_type(s.sig) = 'OBJECT';

CREATE OR REPLACE TEMP TABLE routes_signal_counts AS
SELECT
    r.episode_id,
    count(*) FILTER (WHERE st.strength = 'strong' AND sv.polarity = 'positive') AS n_strong_pos,
    count(*) FILTER (
        WHERE (st.strength = 'strong' AND sv.polarity = 'negative')
           OR (st.strength = 'strong_negative'
               AND coalesce(r.value, '') NOT IN (SELECT value FROM routes_negation_values))
    ) AS n_strong_neg,
    count(*) FILTER (WHERE st.strength IN ('medium', 'medium_negative')) AS n_medium,
    count(*) FILTER (WHERE st.strength = 'weak') AS n_weak,
    count(*) FILTER (WHERE st.strength = 'none') AS n_assistant_done,
    count(*) FILTER (WHERE st.strength = 'strong') AS n_strong_any
FROM routes_signal_rows r
LEFT JOIN routes_signal_strength st ON st.kind = r.kind
LEFT JOIN routes_signal_values sv ON sv.value = r.value
GROUP BY r.episode_id;

CREATE OR REPLACE TEMP TABLE routes_ep AS
WITH tiered AS (
    SELECT v.episode_id,
        first(t.tier ORDER BY length(t.pattern) DESC, t.source = 'configured' DESC, t.pattern)
            AS tier
    FROM routes_valid v JOIN routes_model_tiers t ON contains(lower(v.model), t.pattern)
    GROUP BY v.episode_id
)
SELECT
    v.* EXCLUDE (signals),
    coalesce(c.n_strong_pos, 0) AS n_strong_pos,
    coalesce(c.n_strong_neg, 0) AS n_strong_neg,
    coalesce(c.n_medium, 0) AS n_medium,
    coalesce(c.n_weak, 0) AS n_weak,
    coalesce(c.n_assistant_done, 0) AS n_assistant_done,
    CASE WHEN coalesce(c.n_strong_neg, 0) > 0 THEN 'failure'
         WHEN coalesce(c.n_strong_pos, 0) > 0 THEN 'success'
    END AS label,
    CASE WHEN coalesce(c.n_strong_neg, 0) > 0 THEN 'strong negative signal'
         WHEN coalesce(c.n_strong_pos, 0) > 0 THEN 'strong positive signal'
         WHEN v.status IN ('blocked', 'cancelled') THEN 'blocked/cancelled without a strong signal'
         WHEN coalesce(c.n_strong_any, 0) > 0 THEN 'strong signal without a pass/fail value'
         WHEN coalesce(c.n_medium, 0) + coalesce(c.n_weak, 0) > 0 THEN 'only medium/weak signals'
         WHEN coalesce(c.n_assistant_done, 0) > 0 THEN 'only assistant_done (never counts)'
         ELSE 'no outcome signal'
    END AS label_reason,
    to_json([v.host, v.provider, v.model])::VARCHAR AS route_key,
    routes_route_label(v.host, v.provider, v.model) AS route_label,
    tiered.tier
FROM routes_valid v
LEFT JOIN routes_signal_counts c USING (episode_id)
LEFT JOIN tiered USING (episode_id);
