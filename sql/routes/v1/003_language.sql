-- routes/v1 · evidence grades, their order and the language each one allows.
-- Reads: nothing (constants).
-- Produces: routes_grades(grade, rank, allowed_language): rank orders the grades
--   (insufficient 0 < observed 1 < correlated 2 < verified 3 < proven 4); allowed_language is the
--   opening every headline of that grade uses, so no finding speaks above its evidence.
--   routes_finding_types(type, rank): display order of the seven finding types.
-- Spec: routes.md §4 (grade table), §5 (finding types).
CREATE OR REPLACE TEMP TABLE routes_grades AS
SELECT * FROM (VALUES
    ('insufficient', 0, 'No recommendation yet'),
    ('observed', 1, 'was used successfully'),
    ('correlated', 2, 'is associated with'),
    ('verified', 3, 'matched the incumbent within tolerance'),
    ('proven', 4, 'saved cost/capacity while keeping the quality bar')
) t(grade, rank, allowed_language);

CREATE OR REPLACE TEMP TABLE routes_finding_types AS
SELECT * FROM (VALUES
    ('cheaper_equivalent', 1), ('premium_justified', 2), ('cascade_working', 3),
    ('escalation_tax', 4), ('harness_change', 5), ('blind_spot', 6), ('evidence_drift', 7)
) t(type, rank);
