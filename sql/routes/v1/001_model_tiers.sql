-- routes/v1 · model tier table: what "cheaper" means when cost is unknown.
-- Reads: $model_tiers_json (JSON object {"name-fragment": tier}; '{}' for none) from the policy.
-- Produces: routes_model_tiers(pattern VARCHAR, tier INTEGER, source VARCHAR) — a model whose
--   lower-cased id contains `pattern` has that tier; the longest matching pattern wins (ties:
--   the configured entry, then the pattern text). Lower tier = cheaper.
-- Spec: routes.md §6 "Unknown cost" (haiku < sonnet < opus, extendable).
CREATE OR REPLACE TEMP TABLE routes_model_tiers AS
WITH builtin(pattern, tier) AS (
    VALUES ('haiku', 1), ('sonnet', 2), ('opus', 3)
),
configured AS (
    SELECT lower(key) AS pattern, CAST(value AS INTEGER) AS tier
    FROM json_each(CAST($model_tiers_json AS JSON))
)
SELECT pattern, tier, 'configured' AS source FROM configured
UNION ALL
SELECT pattern, tier, 'builtin' AS source FROM builtin
WHERE pattern NOT IN (SELECT pattern FROM configured);
