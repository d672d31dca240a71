-- archeflow-legacy · 155 ArcheFlow's default models             spec: effectiveness.md §6
-- Same rules as effectiveness/v1 (each version folder is self-contained and frozen).
-- Reads:    nothing.
-- Produces: default_models (archetype, model) — the model ArcheFlow runs an archetype on
--           when the team file does not say; used after model_overrides and archetypes:
--           entries, before the archetype's history.
CREATE OR REPLACE TEMP TABLE default_models AS
SELECT * FROM (VALUES
    ('explorer',  'haiku'),
    ('guardian',  'haiku'),
    ('skeptic',   'haiku'),
    ('trickster', 'haiku'),
    ('creator',   'sonnet'),
    ('maker',     'sonnet'),
    ('sage',      'sonnet')
) AS t(archetype, model);
