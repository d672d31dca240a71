-- effectiveness/v1 · 060 contradicted findings                  spec: effectiveness.md §3 (Accuracy)
-- Reads:    findings (035), verdicts (030), fixes, fix_attribution (040).
-- Produces: finding_flags — one row per finding: run_id, verdict_seq, idx, archetype,
--           cycle, contradicted (all three conditions of §3 hold).
-- Scope of a finding = (run_id, cycle of its verdict). Severities compare with NULL equal
-- to NULL (a finding without severity matches another without severity).
-- Counted with grouped equi-joins, not correlated subqueries, so one scope with thousands
-- of findings stays linear:
--   1. "another archetype approved with no finding of f's severity": the approvers of the
--      scope that lack that severity, n_app − n_app_sev, are > 0. f's own archetype A is in
--      both counts or in neither (if A approved, f itself is A's finding of that severity),
--      so it cancels out and B ≠ A holds.
--   2. "no other archetype reported f's match key": exactly one archetype (A) has the key.
--   3. "not confirmed by a fix attributed to A": no (finding text | location key) match.
CREATE OR REPLACE TABLE finding_flags AS
WITH approvers AS (
    SELECT run_id, cycle, count(DISTINCT archetype) AS n_app
    FROM verdicts WHERE verdict = 'approved'
    GROUP BY run_id, cycle
), approver_sev AS (
    SELECT g.run_id, g.cycle, g.severity, count(DISTINCT g.archetype) AS n_app_sev
    FROM findings g
    SEMI JOIN verdicts b ON b.run_id = g.run_id AND b.cycle = g.cycle
                        AND b.archetype = g.archetype AND b.verdict = 'approved'
    GROUP BY g.run_id, g.cycle, g.severity
), key_owners AS (
    SELECT run_id, cycle, match_key, count(DISTINCT archetype) AS n_arch
    FROM findings WHERE match_key IS NOT NULL
    GROUP BY run_id, cycle, match_key
), attributed AS (
    SELECT a.run_id, a.archetype, x.finding, x.loc_key
    FROM fix_attribution a
    JOIN fixes x ON x.run_id = a.run_id AND x.seq = a.fix_seq
), confirmed AS (
    SELECT f.run_id, f.verdict_seq, f.idx
    FROM findings f
    JOIN attributed x ON x.run_id = f.run_id AND x.archetype = f.archetype
                     AND x.finding = lower(eff_trim(f.description))
    UNION
    SELECT f.run_id, f.verdict_seq, f.idx
    FROM findings f
    JOIN attributed x ON x.run_id = f.run_id AND x.archetype = f.archetype
                     AND x.loc_key = f.match_key
)
SELECT f.run_id, f.verdict_seq, f.idx, f.archetype, f.cycle,
       (
         coalesce(ap.n_app, 0) > coalesce(aps.n_app_sev, 0)
         AND (f.match_key IS NULL OR ko.n_arch = 1)
         AND c.idx IS NULL
       ) AS contradicted
FROM findings f
LEFT JOIN approvers ap ON ap.run_id = f.run_id AND ap.cycle = f.cycle
LEFT JOIN approver_sev aps ON aps.run_id = f.run_id AND aps.cycle = f.cycle
                          AND aps.severity IS NOT DISTINCT FROM f.severity
LEFT JOIN key_owners ko ON ko.run_id = f.run_id AND ko.cycle = f.cycle
                       AND ko.match_key = f.match_key
LEFT JOIN confirmed c ON c.run_id = f.run_id AND c.verdict_seq = f.verdict_seq
                     AND c.idx = f.idx;
