-- effectiveness/v1 · 150 team members                           spec: effectiveness.md §6
-- Reads:    team_entries (ord, name, phase, model) — one row per mention of an archetype in
--           a team file, in file order, as the engine flattens the YAML: phase is 'plan',
--           'do', 'check', 'archetypes' or 'model_overrides'; model is the model given with
--           that mention (archetypes: entries and model_overrides values), else NULL.
-- Produces: team_members (ord, archetype, phases VARCHAR[], override_model, listed_model) —
--           one row per member: names lower-cased and trimmed, in first-seen order;
--           override_model = its model_overrides value, listed_model = the model of its
--           archetypes: entry (first mention wins for each).
CREATE OR REPLACE TEMP TABLE team_members AS
SELECT row_number() OVER (ORDER BY min(ord)) AS ord,
       lower(trim(name)) AS archetype,
       list_distinct(list(phase ORDER BY ord)) AS phases,
       first(nullif(trim(model), '') ORDER BY ord) FILTER (WHERE phase = 'model_overrides'
                                                           AND nullif(trim(model), '') IS NOT NULL)
           AS override_model,
       first(nullif(trim(model), '') ORDER BY ord) FILTER (WHERE phase = 'archetypes'
                                                           AND nullif(trim(model), '') IS NOT NULL)
           AS listed_model
FROM team_entries
WHERE trim(name) <> ''
GROUP BY lower(trim(name))
ORDER BY ord;
