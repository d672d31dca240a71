-- effectiveness/v1 · 080 per-run archetype scores               spec: effectiveness.md §2, §3
-- Reads:    run_status (015), verdicts (030), findings (035), fixes, fix_attribution (040),
--           archetype_costs (050), finding_flags (060), eff_weights, eff_constants (070),
--           events (010) for the met cycle boundary.
-- Produces: run_scores — one row per (scored run, review archetype): every dimension,
--           the renormalised composite and the provenance fields of the history record.
--           A cycle boundary whose data.met is not true or false is not met (000 made it
--           null); 090 warns of it.
-- Only archetypes with a review.verdict in the run are scored (§2).
CREATE OR REPLACE TABLE run_scores AS
WITH reviewers AS (
    SELECT DISTINCT v.run_id, v.archetype
    FROM verdicts v JOIN run_status s ON s.run_id = v.run_id AND s.status = 'scored'
), f AS (
    SELECT run_id, archetype, count(*) AS findings_total,
           count(*) FILTER (WHERE useful) AS findings_useful
    FROM findings GROUP BY run_id, archetype
), c AS (
    SELECT run_id, archetype, count(*) FILTER (WHERE contradicted) AS findings_contradicted
    FROM finding_flags GROUP BY run_id, archetype
), fx AS (
    SELECT run_id, archetype, count(DISTINCT fix_seq) AS fixes_applied
    FROM fix_attribution GROUP BY run_id, archetype
), met AS (
    SELECT run_id, max(seq) AS met_seq
    FROM events
    WHERE type = 'cycle.boundary'
      AND met
    GROUP BY run_id
), impact AS (
    SELECT DISTINCT a.run_id, a.archetype
    FROM fix_attribution a JOIN met m ON m.run_id = a.run_id
    WHERE a.fix_seq < m.met_seq
), base AS (
    SELECT r.run_id, r.archetype,
           coalesce(f.findings_total, 0) AS findings_total,
           coalesce(f.findings_useful, 0) AS findings_useful,
           coalesce(fx.fixes_applied, 0) AS fixes_applied,
           coalesce(c.findings_contradicted, 0) AS findings_contradicted,
           i.run_id IS NOT NULL AS cycle_impact,
           k.cost_usd, coalesce(k.cost_basis, 'unknown') AS cost_basis, k.tokens, k.model
    FROM reviewers r
    LEFT JOIN f USING (run_id, archetype)
    LEFT JOIN c USING (run_id, archetype)
    LEFT JOIN fx USING (run_id, archetype)
    LEFT JOIN impact i USING (run_id, archetype)
    LEFT JOIN archetype_costs k USING (run_id, archetype)
), dims AS (
    SELECT *,
           CASE WHEN findings_total = 0 THEN 0.0
                ELSE findings_useful / findings_total END AS signal_to_noise,
           CASE WHEN findings_total = 0 THEN 0.0
                ELSE least(1.0, fixes_applied / findings_total) END AS fix_rate,
           -- a quotient beyond a double (a cost of 1e-320 USD) cannot be stored (no JSON
           -- line carries ∞): null, while its norm, min(1, ∞ / 100), is 1
           CASE WHEN cost_usd > 0 AND isfinite(findings_useful / cost_usd)
                THEN findings_useful / cost_usd END AS cost_efficiency,
           CASE WHEN cost_usd IS NULL THEN NULL
                WHEN cost_usd = 0 THEN CASE WHEN findings_useful > 0 THEN 1.0 ELSE 0.0 END
                ELSE least(1.0, (findings_useful / cost_usd)
                       / (SELECT value FROM eff_constants WHERE name = 'cost_efficiency_perfect'))
           END AS cost_efficiency_norm,
           CASE WHEN findings_total = 0 THEN 1.0
                ELSE 1.0 - findings_contradicted / findings_total END AS accuracy
    FROM base
)
SELECT d.*,
       (w.sn * d.signal_to_noise + w.fr * d.fix_rate
        + coalesce(w.ce * d.cost_efficiency_norm, 0) + w.ac * d.accuracy
        + w.ci * CASE WHEN d.cycle_impact THEN 1.0 ELSE 0.0 END)
       / (w.sn + w.fr + CASE WHEN d.cost_efficiency_norm IS NULL THEN 0 ELSE w.ce END
          + w.ac + w.ci) AS composite_score
FROM dims d,
     (SELECT max(weight_pct) FILTER (WHERE dimension = 'signal_to_noise') AS sn,
             max(weight_pct) FILTER (WHERE dimension = 'fix_rate') AS fr,
             max(weight_pct) FILTER (WHERE dimension = 'cost_efficiency_norm') AS ce,
             max(weight_pct) FILTER (WHERE dimension = 'accuracy') AS ac,
             max(weight_pct) FILTER (WHERE dimension = 'cycle_impact') AS ci
      FROM eff_weights) w;
