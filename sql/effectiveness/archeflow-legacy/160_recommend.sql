-- archeflow-legacy · 160 team recommendations                   spec: effectiveness.md §6
-- Same rules as effectiveness/v1 (each version folder is self-contained and frozen).
-- Reads:    team_members (150), default_models (155), report (140), archetype_recent (125),
--           history_current (100; the history-model fallback), the macro eff_model_name (130),
--           thresholds and the macro eff_cmp_round (110), model_tiers, tier_steps (120).
-- Produces: recommend — one row per team member, in team order: archetype, current_model,
--           model_source ('model_overrides' | 'archetypes' | 'default' | 'history' |
--           'unknown'), model_tier, score (avg_composite over the recent window; NULL
--           without history), runs (all of the member's scored runs), runs_in_window (those
--           the score averages: at most the window), scored_model (the model the score was
--           earned on: the report's model, the most frequent in the window; 'unknown' when
--           no run names one; NULL without history), scored_model_tier, scored_model_runs
--           (the window's runs on scored_model; NULL when it is unknown), model_tier_differs
--           (current_model's tier is not scored_model's; NULL when either tier is unknown),
--           action, suggested_model, scoring_version.
-- The advice is on the team's model while the score is the runs': model_tier_differs says
-- when a cheap score is advised on an expensive model, or the other way round (a skeptic
-- scored on sonnet, left to ArcheFlow's default haiku, is "keep haiku").
-- Current model: model_overrides → archetypes: model → ArcheFlow default → the most
-- frequent model in the member's history → 'unknown'. "Its history" is every current line
-- of the member in this scoring version, not the report's window (§5's `model` is the
-- recent runs'): a member that ran 30 times on sonnet and then 10 on opus is a sonnet
-- member by its history. Models are counted as the report counts them (130: outer
-- whitespace trimmed, blank and 'unknown' names none); a tie goes, as in §5, to the model
-- used most recently (run_ts, then run_id).
-- action: not in history and, of the phases (plan, do, check), named only in plan/do →
-- not_scored; not in history → no_data; score >= keep_min: cheap → keep, expensive →
-- downgrade, unknown tier → keep; score >= optimize_min: cheap → upgrade, expensive or
-- unknown tier → optimize; below → remove. (The unknown-tier cases follow ArcheFlow's scorer.)
-- A member's history is the report row of its name in any case (and trimmed): members are
-- lower-cased (150), while a history line keeps its archetype as written (ArcheFlow's
-- scorer, and archeflow-legacy after it, write `Guardian` for data.archetype "Guardian").
-- When several spellings have rows (lines of ArcheFlow's scorer or archeflow-legacy, which
-- fold no case, §8, or hand-edited lines), the member's own spelling wins, then the one
-- with the most runs, then code point order.
CREATE OR REPLACE TEMP TABLE recommend AS
WITH model_runs AS (
    SELECT archetype, eff_model_name(model) AS model, count(*) AS runs
    FROM archetype_recent
    WHERE in_window
    GROUP BY archetype, eff_model_name(model)
), matched AS (
    SELECT m.ord, r.*
    FROM team_members m
    JOIN report r ON lower(trim(r.archetype)) = m.archetype
    QUALIFY row_number() OVER (PARTITION BY m.ord
                               ORDER BY r.archetype = m.archetype DESC, r.runs DESC,
                                        r.archetype) = 1
), history_models AS (
    -- only the matched members' lines: the whole history is not grouped for a team of five
    SELECT h.archetype, eff_model_name(h.model) AS model
    FROM history_current h
    WHERE h.scoring_version = $scoring_version
      AND h.archetype IN (SELECT archetype FROM matched)
      AND eff_model_name(h.model) IS NOT NULL
    GROUP BY h.archetype, eff_model_name(h.model)
    QUALIFY row_number() OVER (PARTITION BY h.archetype
                               ORDER BY count(*) DESC,
                                        max({'run_ts': h.run_ts, 'run_id': h.run_id}) DESC) = 1
), resolved AS (
    SELECT m.ord, m.archetype, m.phases,
           CASE WHEN m.override_model IS NOT NULL THEN m.override_model
                WHEN m.listed_model IS NOT NULL THEN m.listed_model
                WHEN d.model IS NOT NULL THEN d.model
                WHEN hm.model IS NOT NULL THEN hm.model
                ELSE 'unknown' END AS current_model,
           CASE WHEN m.override_model IS NOT NULL THEN 'model_overrides'
                WHEN m.listed_model IS NOT NULL THEN 'archetypes'
                WHEN d.model IS NOT NULL THEN 'default'
                WHEN hm.model IS NOT NULL THEN 'history'
                ELSE 'unknown' END AS model_source,
           r.avg_composite AS score,
           coalesce(r.runs, 0) AS runs,
           coalesce(r.runs_in_window, 0) AS runs_in_window,
           r.model AS scored_model, r.model_tier AS scored_model_tier,
           r.model_tier_rank AS scored_model_tier_rank, mr.runs AS scored_model_runs,
           r.archetype IS NOT NULL AS has_history
    FROM team_members m
    LEFT JOIN default_models d ON d.archetype = m.archetype
    LEFT JOIN matched r ON r.ord = m.ord
    LEFT JOIN history_models hm ON hm.archetype = r.archetype
    LEFT JOIN model_runs mr ON mr.archetype = r.archetype AND mr.model = r.model
                           AND r.model <> 'unknown'
), tiered AS (
    SELECT r.ord, t.tier, t.rank
    FROM resolved r
    JOIN model_tiers t ON model_tier_match(r.current_model, t.pattern, t.match)
    QUALIFY row_number() OVER (PARTITION BY r.ord
                               ORDER BY length(t.pattern) DESC, t.rank, t.pattern) = 1
), decided AS (
    SELECT r.*, ti.tier AS model_tier, ti.rank AS model_tier_rank,
           CASE
             -- "in plan/do only" (§6): of the places a member is named, only plan, do and
             -- check are phases; model_overrides and archetypes: give its model (explorer in
             -- plan with an override, or with an archetypes: entry, was no_data)
             WHEN NOT r.has_history AND list_has_any(r.phases, ['plan', 'do'])
                  AND NOT list_contains(r.phases, 'check')
               THEN 'not_scored'
             WHEN NOT r.has_history THEN 'no_data'
             WHEN eff_cmp_round(r.score, th.compare_decimals) >= th.keep_min
               THEN CASE WHEN ti.rank > 1 THEN 'downgrade' ELSE 'keep' END
             WHEN eff_cmp_round(r.score, th.compare_decimals) >= th.optimize_min
               THEN CASE WHEN ti.rank = 1 THEN 'upgrade' ELSE 'optimize' END
             ELSE 'remove'
           END AS action
    FROM resolved r
    LEFT JOIN tiered ti USING (ord)
    CROSS JOIN thresholds th
)
SELECT d.archetype, d.current_model, d.model_source, d.model_tier, d.score, d.runs,
       d.runs_in_window, d.scored_model, d.scored_model_tier, d.scored_model_runs,
       d.model_tier_rank <> d.scored_model_tier_rank AS model_tier_differs, d.action,
       CASE d.action WHEN 'upgrade' THEN st.upgrade_to
                     WHEN 'downgrade' THEN st.downgrade_to END AS suggested_model,
       $scoring_version::VARCHAR AS scoring_version
FROM decided d
LEFT JOIN tier_steps st ON st.rank = d.model_tier_rank
ORDER BY d.ord;
