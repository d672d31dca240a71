-- effectiveness/v1 · 170 run-start summary                      spec: effectiveness.md §7
-- Reads:    report (140), team_members (150); bind parameter $has_team (BOOLEAN).
-- Produces: summary — one row per archetype with history (only the team's members, in
--           team order, when $has_team; else archetype order): archetype, score
--           (avg_composite), recommendation, model, avg_cost_usd (NULL = cost unknown),
--           runs_in_window, window_runs, cost_runs (the window's runs with a known cost:
--           avg_cost_usd is their mean, so the text can say it left the others out).
-- A team member is matched in any case (and trimmed), as in 160: every spelling of its
-- name that has history is its row, each under the name as the history writes it.
CREATE OR REPLACE TEMP TABLE summary AS
SELECT r.archetype, r.avg_composite AS score, r.recommendation, r.model, r.avg_cost_usd,
       r.runs_in_window, r.window_runs, r.cost_runs
FROM report r
LEFT JOIN team_members t ON t.archetype = lower(trim(r.archetype))
WHERE NOT $has_team::BOOLEAN OR t.archetype IS NOT NULL
ORDER BY CASE WHEN $has_team::BOOLEAN THEN t.ord END, r.archetype;
