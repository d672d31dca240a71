-- effectiveness/v1 · 060 contradicted findings                  spec: effectiveness.md §3 (Accuracy)
-- Reads:    findings, verdicts (030), fixes, fix_attribution (040).
-- Produces: finding_flags — one row per finding: run_id, verdict_seq, idx, archetype,
--           cycle, contradicted (all three conditions of §3 hold).
-- Scope of a finding = (run_id, cycle of its verdict). Severities compare with NULL equal
-- to NULL (a finding without severity matches another without severity).
CREATE OR REPLACE TEMP TABLE finding_flags AS
WITH approvers AS (
    -- (scope, B) where B approved in the scope
    SELECT DISTINCT run_id, cycle, archetype FROM verdicts WHERE verdict = 'approved'
), confirmed AS (
    -- findings of A confirmed by a fix attributed to A
    SELECT DISTINCT f.run_id, f.verdict_seq, f.idx
    FROM findings f
    JOIN fix_attribution a ON a.run_id = f.run_id AND a.archetype = f.archetype
    JOIN fixes x ON x.run_id = a.run_id AND x.seq = a.fix_seq
    WHERE (x.finding IS NOT NULL AND nullif(lower(trim(f.description)), '') = x.finding)
       OR (x.loc_key IS NOT NULL AND f.match_key = x.loc_key)
)
SELECT f.run_id, f.verdict_seq, f.idx, f.archetype, f.cycle,
       (
         EXISTS (SELECT 1 FROM approvers b
                 WHERE b.run_id = f.run_id AND b.cycle = f.cycle AND b.archetype <> f.archetype
                   AND NOT EXISTS (SELECT 1 FROM findings g
                                   WHERE g.run_id = f.run_id AND g.cycle = f.cycle
                                     AND g.archetype = b.archetype
                                     AND g.severity IS NOT DISTINCT FROM f.severity))
         AND NOT EXISTS (SELECT 1 FROM findings g
                         WHERE g.run_id = f.run_id AND g.cycle = f.cycle
                           AND g.archetype <> f.archetype
                           AND f.match_key IS NOT NULL AND g.match_key = f.match_key)
         AND NOT EXISTS (SELECT 1 FROM confirmed c
                         WHERE c.run_id = f.run_id AND c.verdict_seq = f.verdict_seq
                           AND c.idx = f.idx)
       ) AS contradicted
FROM findings f;
