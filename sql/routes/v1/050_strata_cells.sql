-- routes/v1 · strata cells of the historical route comparisons.
-- Reads: routes_ep (historical episodes with a known model), routes_comparisons_base.
-- Produces: routes_hist_cells (grain: activity x route x complexity x harness): n_all,
--   n_lab (labelled), n_succ, n_re_known (episodes that report both outcome.repairs and
--   outcome.escalation.escalated), n_rep_esc (of those, episodes with a repair or an
--   escalation). An episode missing either is left out of the share, never read as "no
--   repair, no escalation" (§1 unknown stays unknown), and not counted for a repair alone
--   either: a route whose episodes never report escalation would otherwise have only its
--   repaired episodes known, a share of 100%;
--   routes_comp_strata (grain: comparison x compared stratum): both routes' cell counts
--   (cand_* / inc_*) side by side;
--   routes_mh_cells (grain: analysis x key x metric x stratum): the 2x2 counts the
--   Mantel-Haenszel step combines, group 1 = candidate, group 0 = incumbent, for
--   analysis 'route', key = comp_id, metric 'success' (labelled episodes, successes) and
--   'repair_escalation' (episodes reporting both, episodes with a repair or escalation),
--   strata s1 = complexity, s2 = harness fingerprint (NULL is its own stratum value); a
--   stratum where one route has no episode reporting both drops out of that metric (060).
--   Only strata in which both routes have labelled episodes are kept (compared strata).
--   routes_route_strata (grain: comparison x route role): labelled episodes in all strata vs in
--   compared strata, for the overlap (balance) diagnostic.
-- Spec: routes.md §3 "Strata", "Effect"; §6 "Overlap".
CREATE OR REPLACE TEMP TABLE routes_hist_cells AS
SELECT activity, route_key, complexity, harness,
    count(*) AS n_all,
    count(*) FILTER (WHERE label IS NOT NULL) AS n_lab,
    count(*) FILTER (WHERE label = 'success') AS n_succ,
    count(*) FILTER (WHERE repairs IS NOT NULL AND escalated IS NOT NULL) AS n_re_known,
    count(*) FILTER (WHERE repairs IS NOT NULL AND escalated IS NOT NULL
                       AND (repairs > 0 OR escalated)) AS n_rep_esc
FROM routes_ep
WHERE kind = 'historical' AND model IS NOT NULL
GROUP BY activity, route_key, complexity, harness;

CREATE OR REPLACE TEMP TABLE routes_comp_strata AS
SELECT b.comp_id, c1.complexity, c1.harness,
    c1.n_all AS cand_all, c1.n_lab AS cand_lab, c1.n_succ AS cand_succ,
    c1.n_re_known AS cand_re_known, c1.n_rep_esc AS cand_rep_esc,
    c0.n_all AS inc_all, c0.n_lab AS inc_lab, c0.n_succ AS inc_succ,
    c0.n_re_known AS inc_re_known, c0.n_rep_esc AS inc_rep_esc
FROM routes_comparisons_base b
JOIN routes_hist_cells c1 ON c1.activity = b.activity AND c1.route_key = b.cand_key
JOIN routes_hist_cells c0 ON c0.activity = b.activity AND c0.route_key = b.inc_key
    AND c0.complexity IS NOT DISTINCT FROM c1.complexity
    AND c0.harness IS NOT DISTINCT FROM c1.harness
WHERE c1.n_lab > 0 AND c0.n_lab > 0;

CREATE OR REPLACE TEMP TABLE routes_mh_cells AS
SELECT 'route' AS analysis, CAST(comp_id AS VARCHAR) AS key, 'success' AS metric,
    complexity AS s1, harness AS s2,
    cand_lab AS n1, cand_succ AS x1, inc_lab AS n0, inc_succ AS x0
FROM routes_comp_strata
UNION ALL
SELECT 'route', CAST(comp_id AS VARCHAR), 'repair_escalation', complexity, harness,
    cand_re_known, cand_rep_esc, inc_re_known, inc_rep_esc
FROM routes_comp_strata;

CREATE OR REPLACE TEMP TABLE routes_route_strata AS
SELECT b.comp_id, r.role,
    CAST(coalesce(sum(h.n_lab), 0) AS BIGINT) AS lab_total,
    count(h.n_lab) FILTER (WHERE h.n_lab > 0) AS strata_total,
    CAST(coalesce(sum(h.n_lab) FILTER (WHERE s.comp_id IS NOT NULL), 0) AS BIGINT)
        AS lab_matched
FROM routes_comparisons_base b
CROSS JOIN (VALUES ('candidate'), ('incumbent')) r(role)
LEFT JOIN routes_hist_cells h
    ON h.activity = b.activity
   AND h.route_key = CASE r.role WHEN 'candidate' THEN b.cand_key ELSE b.inc_key END
LEFT JOIN routes_comp_strata s
    ON s.comp_id = b.comp_id AND s.complexity IS NOT DISTINCT FROM h.complexity
   AND s.harness IS NOT DISTINCT FROM h.harness
GROUP BY b.comp_id, r.role;
