-- routes/v1 · the activity x model matrix.
-- Reads: routes_ep, routes_ep_total (070: each episode's total cost and acceptance, and its
--   macros routes_total_basis / routes_total_per_accepted), routes_comparisons,
--   routes_cascades, routes_policy, routes_grades.
-- Produces: routes_matrix (grain: activity x route — host, provider and model kept as separate
--   columns; an unknown model is its own row): episodes, labelled, labelled_share, successes
--   (labelled successes: success_rate's numerator), accepted (cost_per_accepted's denominator:
--   a success, or an escalation whose follow-up succeeded), success_rate with Wilson 95%
--   interval (the three at 6 decimals, routes_stat, the interval from the unrounded rate; the
--   grade judges the width of the ends as written), retry_rate, repair_rate, escalation_rate (shares of
--   the episodes that report each: retry_reported, repair_reported, escalation_reported of
--   them; NULL, never 0, when none does), cost_per_accepted and cost_basis by the comparisons'
--   rule (070's routes_ep_total: each episode's cost plus its escalation follow-up's, over
--   its accepted outcomes — a success, or an escalation whose follow-up succeeded; NULL, basis
--   'unknown', when any episode's total is unknown — its follow-up not in the input, or it
--   does not say whether it escalated — and NULL, 'mixed', when bases differ: No $ claimed),
--   newest_evidence (TIMESTAMPTZ, UTC: routes_utc), grade (the best of: 'observed'
--   when labelled >= min_labelled_per_route, the interval width <= max_ci_width and the evidence
--   is fresh, else 'insufficient'; the grade of a comparison in which the route is the candidate
--   and which concluded it non-inferior or better; the grade of its cheap-first cascade when
--   that cascade saves — would_be_type cascade_working, at grade proven — also when the
--   harness changed since, as a comparison's grade is taken: §6 "evidence_drift keeps the
--   grade its evidence had") and grade_basis (which of these gave the grade).
-- Spec: routes.md §1 (unknown stays unknown), §3 "Net route value" (every attempt, retry and
--   escalation counted), "Cost basis", §4 (grades), §5, §6 "Operations and attempts",
--   issue "activity x model matrix".
CREATE OR REPLACE TEMP TABLE routes_matrix AS
WITH m AS (
    SELECT e.activity, e.route_key, any_value(e.host) AS host, any_value(e.provider) AS provider,
        any_value(model) AS model, any_value(route_label) AS route,
        count(*) AS episodes,
        count(*) FILTER (WHERE label IS NOT NULL) AS labelled,
        count(*) FILTER (WHERE label = 'success') AS successes,
        count(retries) AS retry_reported,
        count(repairs) AS repair_reported,
        count(escalated) AS escalation_reported,
        count(*) FILTER (WHERE retries > 0) AS retried,
        count(*) FILTER (WHERE repairs > 0) AS repaired,
        count(*) FILTER (WHERE escalated) AS escalations,
        count(*) FILTER (WHERE t.accepted) AS accepted,
        count(*) FILTER (WHERE t.cost_total IS NULL) AS unknown_cost,
        coalesce(bool_or(t.cost_basis_total = 'unknown'), false) AS has_unknown,
        count(DISTINCT t.cost_basis_total) AS n_bases,
        min(t.cost_basis_total) AS any_basis,
        sum(t.cost_total) AS cost_known,
        max(evidence_at) AS newest_evidence
    FROM routes_ep e JOIN routes_ep_total t USING (episode_id)
    GROUP BY e.activity, e.route_key
),
d AS (
    SELECT m.*, pol.*,
        m.labelled / CAST(m.episodes AS DOUBLE) AS labelled_share,
        m.successes / nullif(CAST(m.labelled AS DOUBLE), 0) AS success_rate,
        m.retried / nullif(CAST(m.retry_reported AS DOUBLE), 0) AS retry_rate,
        m.repaired / nullif(CAST(m.repair_reported AS DOUBLE), 0) AS repair_rate,
        m.escalations / nullif(CAST(m.escalation_reported AS DOUBLE), 0) AS escalation_rate,
        routes_total_basis(m.has_unknown, m.n_bases, m.any_basis) AS cost_basis,
        routes_total_per_accepted(m.unknown_cost, m.n_bases, m.cost_known, m.accepted)
            AS cost_per_accepted
    FROM m CROSS JOIN routes_policy pol
),
w AS (
    -- The rate and its interval as the comparisons write theirs (routes_stat: at the 6
    -- decimals the grade below compares the width at, so the width judged is the one shown);
    -- the interval is computed from the unrounded rate.
    SELECT d.* REPLACE (routes_stat(d.success_rate) AS success_rate),
        routes_stat(routes_wilson_lo(d.success_rate, d.labelled, d.z95)) AS success_ci_low,
        routes_stat(routes_wilson_hi(d.success_rate, d.labelled, d.z95)) AS success_ci_high
    FROM d
),
candidates AS (
    SELECT activity, route_key, grade, basis FROM (
        SELECT activity, route_key,
            CASE WHEN labelled >= min_labelled_per_route
                      AND routes_cmp(success_ci_high - success_ci_low) <= max_ci_width
                      AND newest_evidence IS NOT NULL
                      AND routes_cmp((epoch(as_of) - epoch(newest_evidence)) / 86400.0) <= freshness_days
                 THEN 'observed' ELSE 'insufficient' END AS grade,
            'descriptive' AS basis
        FROM w
        UNION ALL
        -- the route as a sentence names it (004 routes_shown_label)
        SELECT activity, cand_key, grade,
            'comparison with ' || routes_shown_label(inc_host, inc_provider, inc_model)
        FROM routes_comparisons
        WHERE conclusion IN ('non_inferior', 'candidate_better') AND grade IN ('correlated', 'verified')
        UNION ALL
        SELECT activity, entry_key, grade, 'cheap-first cascade'
        -- would_be_type, not finding_type: a cascade whose activity now runs on a harness
        -- its operations did not is evidence_drift and keeps its grade (§6), as a comparison
        -- does above; a stale one is no longer proven (its grade says insufficient).
        FROM routes_cascades WHERE would_be_type = 'cascade_working' AND grade = 'proven'
    )
),
best AS (
    SELECT c.activity, c.route_key,
        first(c.grade ORDER BY g.rank DESC, c.basis) AS grade,
        first(c.basis ORDER BY g.rank DESC, c.basis) AS grade_basis
    FROM candidates c JOIN routes_grades g ON g.grade = c.grade
    GROUP BY c.activity, c.route_key
)
SELECT w.activity, w.host, w.provider, w.model, w.route, w.episodes, w.labelled,
    w.labelled_share, w.successes, w.accepted, w.success_rate, w.success_ci_low, w.success_ci_high,
    w.retry_rate, w.repair_rate, w.escalation_rate, w.retry_reported, w.repair_reported,
    w.escalation_reported, w.cost_per_accepted, w.cost_basis,
    routes_utc(w.newest_evidence) AS newest_evidence, b.grade, b.grade_basis
FROM w JOIN best b USING (activity, route_key)
ORDER BY w.activity, w.model NULLS LAST, w.host NULLS LAST, w.provider NULLS LAST;
