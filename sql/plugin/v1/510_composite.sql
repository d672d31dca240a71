-- plugin/v1 · 510 composite, grade, depth, badge                      spec: plugin-eval.md §5
-- Reads:    plugin_dims, plugin_penalty, plugin_judge_dims, plugin_mc, plugin_elo,
--           plugin_depths, plugin_badges.
-- Produces: plugin_composite (sid, measured_weight, composite, grade, depth, confidence, badge)
--             — one row per skill:
--   composite = min(100, max(0, Σ_measured (w_d / Σ_measured w) × blended_d × 100 × penalty)),
--     both Σ as Python's sum() in dimension order, evaluated as (raw × 100) × penalty;
--   grade of the composite (plugin_grade; thresholds on the value rounded to 6 decimals);
--   depth: the deepest rung of the ladder whose layers were all supplied — static only quick,
--     + judge standard, + Monte Carlo deep — with its confidence label: Monte Carlo runs
--     without judge results stay quick (deep, "Certified", claims both layers), and judge
--     lines none of whose scores is measured (out of range, null, absent) supply no judge
--     layer: the skill is as assessed as its blend, which has no judge score in it;
--   badge: the first tier whose composite minimum holds and whose Elo minimum holds or Elo is
--     unknown; 'none' when no tier does.
CREATE OR REPLACE TEMP TABLE plugin_composite AS
WITH m AS (
    SELECT sid,
           plugin_fsum(coalesce(list(weight ORDER BY ord) FILTER (WHERE score IS NOT NULL), []))
               AS measured_weight
    FROM plugin_dims GROUP BY sid
), raw AS (
    SELECT d.sid, m.measured_weight,
           CASE WHEN m.measured_weight > 0
                THEN plugin_fsum(coalesce(
                         list((d.weight / m.measured_weight) * d.score ORDER BY d.ord)
                             FILTER (WHERE d.score IS NOT NULL), []))
                ELSE 0.0::DOUBLE END AS raw
    FROM plugin_dims d JOIN m USING (sid)
    GROUP BY d.sid, m.measured_weight
), c AS (
    SELECT r.sid, r.measured_weight,
           least(100.0::DOUBLE, greatest(0.0::DOUBLE, r.raw * 100.0::DOUBLE * p.penalty))
               AS composite,
           CASE WHEN mc.sid IS NOT NULL AND j.sid IS NOT NULL THEN 'deep'
                WHEN j.sid IS NOT NULL THEN 'standard'
                ELSE 'quick' END AS depth,
           e.rating AS elo
    FROM raw r
    JOIN plugin_penalty p USING (sid)
    LEFT JOIN plugin_mc mc USING (sid)
    LEFT JOIN (SELECT DISTINCT sid FROM plugin_judge_dims) j USING (sid)
    LEFT JOIN plugin_elo e USING (sid)
)
SELECT c.sid, c.measured_weight, c.composite, plugin_grade(c.composite) AS grade,
       c.depth, dp.label AS confidence,
       coalesce((SELECT b.badge FROM plugin_badges b
                 WHERE plugin_cmp(c.composite) >= b.min_composite
                   AND (c.elo IS NULL OR plugin_cmp(c.elo) >= b.min_elo)
                 ORDER BY b.ord LIMIT 1), 'none') AS badge
FROM c JOIN plugin_depths dp ON dp.depth = c.depth;
