-- archeflow-legacy · 120 model tiers                            spec: effectiveness.md §5
-- Same rules as effectiveness/v1: spec §8 changes only how runs are scored (extract); the
-- aggregates of §5/§6 (6-decimal comparisons, substring tiers, ties) apply to every version.
-- Reads:    nothing.
-- Produces: model_tiers (pattern, tier, rank, match) — a model belongs to the tier of the
--           longest pattern it contains (match 'substring', case-insensitive; 'exact' would
--           compare the whole name). Rank 1 is cheap; anything above is expensive. Add rows
--           for other vendors' models here (in a new version).
--           tier_steps (rank, tier, upgrade_to, downgrade_to) — the model(s) of the next
--           tier up and the next cheaper tier, for the suggestion texts.
CREATE OR REPLACE TEMP TABLE model_tiers AS
SELECT * FROM (VALUES
    ('haiku',  'cheap',    1, 'substring'),
    ('sonnet', 'standard', 2, 'substring'),
    ('opus',   'premium',  3, 'substring')
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

-- Does a model name fall in a tier row? (report and recommend pick the longest match)
CREATE OR REPLACE TEMP MACRO model_tier_match(model, pattern, match) AS
    CASE match WHEN 'exact' THEN model = pattern
               ELSE contains(lower(model), lower(pattern)) END;
