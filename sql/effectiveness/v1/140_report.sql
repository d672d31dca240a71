-- effectiveness/v1 · 140 report rows                            spec: effectiveness.md §5
-- Reads:    archetype_aggregates (130), archetype_trends (135), thresholds and the macro
--           eff_cmp_round (110),
--           model_tiers, tier_steps (120), windows (115).
-- Produces: report — one row per archetype of the scoring version, in archetype order:
--           the JSON contract columns (archetype, scoring_version, runs, avg_composite,
--           avg_signal_noise, avg_fix_rate, avg_cost_efficiency, avg_accuracy,
--           avg_cost_usd, trend, recommendation, model, value_per_dollar, suggestion),
--           then runs_in_window, window_runs, cost_runs, model_tier, model_tier_rank,
--           suggested_model, trend_delta, trend_delta_low, trend_delta_high,
--           trend_significant. Whole numbers are BIGINT, as in every result (115 and
--           120 hold window_runs and rank as INTEGER): one type a Parquet file or a
--           Polars frame can concatenate with the counts beside them.
-- recommendation: keep / optimize / consider_removing on avg_composite (rounded).
-- suggestion (action code):  score >= high: cheap → keep, expensive → downgrade;
--                            score <  low:  cheap → upgrade, expensive → remove;
--                            otherwise, or a model of no known tier → none.
CREATE OR REPLACE TEMP TABLE report AS
WITH tiered AS (
    SELECT a.archetype, t.tier, t.rank
    FROM archetype_aggregates a
    JOIN model_tiers t ON model_tier_match(a.model, t.pattern, t.match)
    QUALIFY row_number() OVER (PARTITION BY a.archetype
                               ORDER BY length(t.pattern) DESC, t.rank, t.pattern) = 1
), scored AS (
    SELECT a.*, tr.trend_delta, tr.trend, tr.trend_delta_low, tr.trend_delta_high,
           tr.trend_significant, ti.tier AS model_tier, ti.rank AS model_tier_rank,
           eff_cmp_round(a.avg_composite, th.compare_decimals) AS score_cmp,
           th.keep_min, th.optimize_min, th.suggest_high_min, th.suggest_low_below
    FROM archetype_aggregates a
    LEFT JOIN archetype_trends tr USING (archetype)
    LEFT JOIN tiered ti USING (archetype)
    CROSS JOIN thresholds th
), decided AS (
    SELECT s.*,
           CASE WHEN s.score_cmp >= s.keep_min THEN 'keep'
                WHEN s.score_cmp >= s.optimize_min THEN 'optimize'
                ELSE 'consider_removing' END AS recommendation,
           CASE WHEN s.model_tier_rank IS NULL THEN 'none'
                WHEN s.score_cmp >= s.suggest_high_min
                  THEN CASE WHEN s.model_tier_rank = 1 THEN 'keep' ELSE 'downgrade' END
                WHEN s.score_cmp < s.suggest_low_below
                  THEN CASE WHEN s.model_tier_rank = 1 THEN 'upgrade' ELSE 'remove' END
                ELSE 'none' END AS suggestion
    FROM scored s
)
SELECT d.archetype, d.scoring_version, d.runs, d.avg_composite, d.avg_signal_noise,
       d.avg_fix_rate, d.avg_cost_efficiency, d.avg_accuracy, d.avg_cost_usd, d.trend,
       d.recommendation, d.model, d.value_per_dollar, d.suggestion,
       d.runs_in_window, w.window_runs::BIGINT AS window_runs, d.cost_runs, d.model_tier,
       d.model_tier_rank::BIGINT AS model_tier_rank,
       CASE d.suggestion WHEN 'upgrade' THEN st.upgrade_to
                         WHEN 'downgrade' THEN st.downgrade_to END AS suggested_model,
       d.trend_delta, d.trend_delta_low, d.trend_delta_high, d.trend_significant
FROM decided d
CROSS JOIN windows w
LEFT JOIN tier_steps st ON st.rank = d.model_tier_rank
ORDER BY d.archetype;
