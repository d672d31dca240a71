-- plugin/v1 · 120 static layer score                                spec: plugin-eval.md §3
-- Reads:    plugin_static_sub_long (sid, sub, ord, weight, score), plugin_penalty.
-- Produces: plugin_static (sid, score, flags, penalty) — one row per skill:
--             score = clamp01(Σ sub × weight × penalty), the Σ taken as Python's sum() over
--             the sub-checks in weight-table order (plugin_fsum).
CREATE OR REPLACE TEMP TABLE plugin_static AS
SELECT s.sid,
       plugin_clamp01(plugin_fsum(list(s.score * s.weight ORDER BY s.ord)) * p.penalty) AS score,
       p.flags, p.penalty
FROM plugin_static_sub_long s JOIN plugin_penalty p USING (sid)
GROUP BY s.sid, p.flags, p.penalty;
