-- archeflow-legacy · 120 model tiers                            spec: effectiveness.md §5, §8
-- Reads:    nothing.
-- Produces: model_tiers (pattern, tier, rank, match) and tier_steps (rank, tier,
--           upgrade_to, downgrade_to), as in effectiveness/v1, with ArcheFlow's tiers:
--           its scorer only knows the exact names "haiku" (cheap) and "sonnet"
--           (expensive); every other model gets "No change recommended" (suggestion none).
CREATE OR REPLACE TEMP TABLE model_tiers AS
SELECT * FROM (VALUES
    ('haiku',  'cheap',    1, 'exact'),
    ('sonnet', 'standard', 2, 'exact')
) AS t(pattern, tier, rank, match);

CREATE OR REPLACE TEMP TABLE tier_steps AS
WITH ranks AS (SELECT DISTINCT rank, first(tier ORDER BY pattern) AS tier
               FROM model_tiers GROUP BY rank)
SELECT r.rank, r.tier,
       (SELECT string_agg(pattern, ' or ' ORDER BY pattern) FROM model_tiers u
        WHERE u.rank = (SELECT min(rank) FROM model_tiers WHERE rank > r.rank)) AS upgrade_to,
       (SELECT string_agg(pattern, ' or ' ORDER BY pattern) FROM model_tiers d
        WHERE d.rank = (SELECT max(rank) FROM model_tiers WHERE rank < r.rank)) AS downgrade_to
FROM ranks r;

CREATE OR REPLACE TEMP MACRO model_tier_match(model, pattern, match) AS
    CASE match WHEN 'exact' THEN model = pattern
               ELSE contains(lower(model), lower(pattern)) END;
