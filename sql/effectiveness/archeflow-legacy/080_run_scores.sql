-- archeflow-legacy · 080 per-run archetype scores               spec: effectiveness.md §8
-- Reads:    run_status (010), legacy_verdicts (030), legacy_fixes (040), legacy_costs (050),
--           legacy_cycle_exit (060), legacy_weights (070).
-- Produces: run_scores — one row per (scored run, review archetype), archetypes in sorted
--           order (jq `unique`): the dimensions exactly as ArcheFlow's archeflow-score.sh
--           stores them (rounded), plus cost_basis and the unrounded
--           cost_efficiency_norm.
-- The rules of §8: the archetype's verdicts are those whose arch_raw equals it (so the
-- catch-all 'unknown' only gathers verdicts that literally say "unknown", as in jq);
-- fix_rate = fixes / findings_total without a cap; cost efficiency 0 when the cost is 0;
-- accuracy = 1 − min(1, contradictors / verdicts in the run) × 0.5 when the archetype
-- has findings and some other archetype's verdict is exactly "approved" with zero
-- findings (contradictors counts those verdicts), else 1; cycle impact = the last
-- boundary met and the archetype has at least one fix.
CREATE OR REPLACE TEMP TABLE run_scores AS
WITH reviewers AS (
    SELECT DISTINCT v.run_id, v.archetype
    FROM legacy_verdicts v JOIN run_status s ON s.run_id = v.run_id AND s.status = 'scored'
), counts AS (
    SELECT r.run_id, r.archetype,
           coalesce((SELECT sum(v.findings_total) FROM legacy_verdicts v
                     WHERE v.run_id = r.run_id AND v.arch_raw = r.archetype), 0)::BIGINT
               AS findings_total,
           coalesce((SELECT sum(v.findings_useful) FROM legacy_verdicts v
                     WHERE v.run_id = r.run_id AND v.arch_raw = r.archetype), 0)::BIGINT
               AS findings_useful,
           coalesce((SELECT f.fixes FROM legacy_fixes f
                     WHERE f.run_id = r.run_id AND f.source = r.archetype), 0)::BIGINT
               AS fixes_applied,
           (SELECT count(*) FROM legacy_verdicts v
            WHERE v.run_id = r.run_id AND v.arch_raw IS DISTINCT FROM r.archetype
              AND v.approved AND v.findings_length = 0) AS contradictors,
           (SELECT count(*) FROM legacy_verdicts v WHERE v.run_id = r.run_id) AS verdicts,
           coalesce(x.cycle_exited, false) AS cycle_exited,
           coalesce(c.cost_usd, 0.0) AS cost_usd,
           coalesce(c.cost_basis, 'unknown') AS cost_basis,
           -- 0 for an archetype without agent.complete (jq's `{data:{}}`); a row's null
           -- is a count that is unknown (050)
           CASE WHEN c.run_id IS NULL THEN 0 ELSE c.tokens END AS tokens,
           coalesce(c.model, 'unknown') AS model
    FROM reviewers r
    LEFT JOIN legacy_costs c ON c.run_id = r.run_id AND c.arch_raw = r.archetype
    LEFT JOIN legacy_cycle_exit x ON x.run_id = r.run_id
), dims AS (
    SELECT k.*, w.*,
           CASE WHEN findings_total > 0 THEN findings_useful / findings_total ELSE 0.0 END
               AS sn,
           CASE WHEN findings_total > 0 THEN fixes_applied / findings_total ELSE 0.0 END
               AS fr,
           CASE WHEN cost_usd > 0 THEN findings_useful / cost_usd ELSE 0.0 END AS raw_ce,
           CASE WHEN findings_total > 0 AND contradictors > 0
                THEN 1 - least(1.0, contradictors / verdicts) * w.accuracy_penalty
                ELSE 1.0 END AS acc,
           cycle_exited AND fixes_applied > 0 AS ci
    FROM counts k, legacy_weights w
), composite AS (
    SELECT *,
           least(1.0, raw_ce / cost_efficiency_perfect) AS ce_norm,
           -- summed left to right in jq's order
           sn * w_signal_to_noise + fr * w_fix_rate
               + least(1.0, raw_ce / cost_efficiency_perfect) * w_cost_efficiency
               + acc * w_accuracy + CASE WHEN ci THEN 1.0 ELSE 0.0 END * w_cycle_impact
               AS composite_raw
    FROM dims
)
SELECT run_id, archetype,
       round(sn * score_scale) / score_scale AS signal_to_noise,
       round(fr * score_scale) / score_scale AS fix_rate,
       -- a cost so small that the quotient is too large for a double: not a number a
       -- history line can hold (Infinity is not JSON)
       CASE WHEN isfinite(round(raw_ce * cost_efficiency_scale) / cost_efficiency_scale)
            THEN round(raw_ce * cost_efficiency_scale) / cost_efficiency_scale
       END AS cost_efficiency,
       round(acc * score_scale) / score_scale AS accuracy,
       ci AS cycle_impact,
       round(composite_raw * score_scale) / score_scale AS composite_score,
       tokens,
       -- a cost too large for a double (1e400, read as infinity) is scored as infinity, as
       -- jq scores it (efficiency 0), and written as jq 1.6 prints it, the largest double:
       -- Infinity is not JSON, and every reader skipped the line
       CASE WHEN isinf(cost_usd) THEN sign(cost_usd) * 1.7976931348623157e308
            ELSE cost_usd END AS cost_usd,
       model, findings_total, findings_useful, fixes_applied,
       cost_basis, ce_norm AS cost_efficiency_norm
FROM composite
ORDER BY run_id, archetype;
