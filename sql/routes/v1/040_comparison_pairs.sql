-- routes/v1 · which incumbent-candidate pairs are compared.
-- Reads: routes_activity_routes, routes_incumbents.
-- Produces: routes_comparisons_base (grain: activity x candidate route): comp_id (stable
--   integer, by activity then candidate host/provider/model), activity, incumbent and candidate
--   route fields (host, provider, model, label, tier), incumbent_source. Every route with a
--   known model other than the incumbent is a candidate, one with only prospective
--   episodes too: §6 lists every pair, insufficient ones included.
-- Spec: routes.md §3 "Comparing routes" (incumbent vs each candidate, per activity).
CREATE OR REPLACE TEMP TABLE routes_comparisons_base AS
SELECT
    row_number() OVER (ORDER BY c.activity, c.host NULLS LAST, c.provider NULLS LAST, c.model)
        AS comp_id,
    c.activity,
    i.route_key AS inc_key, ir.host AS inc_host, ir.provider AS inc_provider,
    ir.model AS inc_model, ir.route_label AS inc_label, ir.tier AS inc_tier,
    c.route_key AS cand_key, c.host AS cand_host, c.provider AS cand_provider,
    c.model AS cand_model, c.route_label AS cand_label, c.tier AS cand_tier,
    i.incumbent_source, i.configured_missing
FROM routes_activity_routes c
JOIN routes_incumbents i ON i.activity = c.activity
JOIN routes_activity_routes ir ON ir.activity = i.activity AND ir.route_key = i.route_key
WHERE c.route_key <> i.route_key;
