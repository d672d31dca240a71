-- plugin/v1 · 500 dimension blending                                  spec: plugin-eval.md §5
-- Reads:    plugin_features, plugin_static_sub_long, plugin_judge_dims, plugin_mc,
--           plugin_dimensions, plugin_layers.
-- Produces: plugin_layer_scores (sid, dimension, layer, layer_ord, score, blend) — every score a
--             layer has for a dimension: static sub-checks as-is (frontmatter_quality →
--             triggering_accuracy, orchestration_wiring → orchestration_fitness, the others by
--             name; harness_portability feeds none), judge means, Monte Carlo activation_rate →
--             triggering_accuracy, mean_quality → output_quality, 1 − failure_rate →
--             robustness, efficiency_norm → token_efficiency (a NULL statistic — no quality
--             value, no token count — is no score: that layer does not measure the dimension);
--           plugin_dims (sid, dimension, ord, weight, score, layers) — one row per skill and
--             dimension: score = Σ score_l × b_l / Σ b_l over the layers present (each Σ as
--             Python's sum() in layer order), the plain mean when Σ b_l = 0, NULL (unmeasured)
--             when no layer has one.
CREATE OR REPLACE TEMP TABLE plugin_layer_scores AS
WITH raw AS (
    SELECT s.sid, d.dimension, 'static' AS layer, s.score
    FROM plugin_static_sub_long s JOIN plugin_dimensions d ON d.static_sub = s.sub
    UNION ALL
    SELECT j.sid, j.dimension, 'judge', j.score FROM plugin_judge_dims j
    UNION ALL
    SELECT m.sid, d.dimension, 'mc',
           CASE d.mc_feeds
               WHEN 'activation_rate' THEN m.activation_rate
               WHEN 'mean_quality' THEN m.mean_quality
               WHEN '1 - failure_rate' THEN 1.0 - m.failure_rate
               WHEN 'efficiency_norm' THEN m.efficiency_norm
           END
    FROM plugin_mc m JOIN plugin_dimensions d ON d.mc_feeds IS NOT NULL
)
SELECT r.sid, r.dimension, r.layer, l.ord AS layer_ord, r.score,
       CASE r.layer WHEN 'static' THEN d.b_static WHEN 'judge' THEN d.b_judge ELSE d.b_mc END
           AS blend
FROM raw r
JOIN plugin_layers l ON l.layer = r.layer
JOIN plugin_dimensions d ON d.dimension = r.dimension
WHERE r.score IS NOT NULL;

CREATE OR REPLACE TEMP TABLE plugin_dims AS
WITH tw AS (
    SELECT sid, dimension, plugin_fsum(list(blend ORDER BY layer_ord)) AS total_blend
    FROM plugin_layer_scores GROUP BY sid, dimension
), blended AS (
    SELECT s.sid, s.dimension,
           CASE WHEN t.total_blend = 0
                THEN plugin_fsum(list(s.score ORDER BY s.layer_ord)) / count(*)::DOUBLE
                ELSE plugin_fsum(list(s.score * s.blend / t.total_blend ORDER BY s.layer_ord))
           END AS score,
           list(s.layer ORDER BY s.layer_ord) AS layers
    FROM plugin_layer_scores s JOIN tw t USING (sid, dimension)
    GROUP BY s.sid, s.dimension, t.total_blend
)
SELECT f.skill_md AS sid, d.dimension, d.ord, d.weight, b.score, coalesce(b.layers, []) AS layers
FROM plugin_features f
CROSS JOIN plugin_dimensions d
LEFT JOIN blended b ON b.sid = f.skill_md AND b.dimension = d.dimension;
