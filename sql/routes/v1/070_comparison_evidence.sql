-- routes/v1 · each episode's total cost (with its escalation follow-up); the episodes behind each
--   comparison: cost, rates and freshness.
-- Reads: routes_ep, routes_comparisons_base, routes_comp_strata, routes_pair_picks,
--   routes_model_tiers (via routes_ep.tier).
-- Produces: routes_ep_total (grain: episode, every episode of routes_ep; the one per-episode
--   total-cost rule, which 085's operations and cascade baseline and 095's matrix read too):
--   follow_ids (the follow-up attempt(s) an escalated episode escalated to — same activity,
--   runId, task fingerprint and model = toModel, not started before it; sorted; NULL when
--   none is in the input or the episode did not escalate), accepted (a success, or an
--   escalation whose follow-up succeeded), cost_total (the episode's cost plus the cost of its
--   follow-up; NULL when any part is unknown or no follow-up is in the input, as when the
--   escalated episode has no runId or no fingerprint to find it by; NULL too when the episode
--   does not say whether it escalated: a follow-up it may have had is never priced at 0),
--   cost_basis_total; and the rule that totals them per route, as macros (085's baseline and
--   095's matrix use them too): routes_total_basis (one basis shared by every episode's
--   total, else 'unknown' when any is unknown, else 'mixed') and routes_total_per_accepted
--   (the summed totals over the accepted outcomes; NULL when any total is unknown or bases
--   differ);
--   routes_comp_evidence (grain: comparison x episode): part ('historical' = any
--   episode of either route in a compared stratum; 'paired' = the episode picked for a shared
--   fixture), role, label, accepted, cost_total and cost_basis_total (from routes_ep_total);
--   routes_comp_cost (grain: comparison x role): episodes, labelled, successes, accepted, cost_sum,
--   cost_basis ('observed' | 'api_equivalent' | 'subscription' | 'mixed' | 'unknown'),
--   unknown_cost_episodes, cost_per_accepted, retry_rate, repair_rate, escalation_rate (each
--   over its own denominator, the episodes that report that field: retry_reported,
--   repair_reported, escalation_reported; NULL when none does), retried, repaired,
--   escalations;
--   routes_comp_fresh (grain: comparison): newest_evidence (and newest_paired_evidence,
--   newest_historical_evidence: of each part alone), undated, dated (and dated_paired,
--   dated_historical: the episodes with a time, dated_at, counted where none dated on or
--   before the as-of date is evidence, 010: their words say that, not that none has a
--   time), harnesses, models,
--   reasoning_efforts (sorted lists), current_harness (harness of the activity's newest
--   episode), current_harness_in_evidence (and _in_paired, _in_historical: of each part
--   alone; did any of its episodes run on it), episode_ids (sorted), cost_basis of the
--   comparison (one basis shared by both
--   routes, else 'unknown' when either is unknown, else 'mixed').
-- Spec: routes.md §1 (unknown stays unknown), §3 "Net route value", "Cost basis" (bases are
--   never added together), §5 freshness fields, §6 "Unknown cost", "Operations and attempts".
-- has_unknown: any episode's cost_basis_total is 'unknown'; unknown_n: episodes whose
-- cost_total is NULL; n_bases/any_basis: count(DISTINCT)/min of cost_basis_total.
CREATE OR REPLACE TEMP MACRO routes_total_basis(has_unknown, n_bases, any_basis) AS
    CASE WHEN has_unknown THEN 'unknown' WHEN n_bases = 1 THEN any_basis ELSE 'mixed' END;

CREATE OR REPLACE TEMP MACRO routes_total_per_accepted(unknown_n, n_bases, cost_sum, accepted) AS
    CASE WHEN unknown_n = 0 AND n_bases = 1 AND accepted > 0
         THEN CAST(cost_sum AS DOUBLE) / accepted END;

CREATE OR REPLACE TEMP TABLE routes_ep_total AS
WITH follow AS (
    -- Escalated episodes and the attempt(s) they escalated to.
    SELECT e.episode_id,
        count(f.episode_id) AS n_follow,
        sum(f.cost) AS follow_cost,
        count(*) FILTER (WHERE f.episode_id IS NOT NULL AND f.cost IS NULL) AS follow_unknown,
        list(DISTINCT f.cost_basis) FILTER (WHERE f.episode_id IS NOT NULL) AS follow_bases,
        list_sort(list(f.episode_id) FILTER (WHERE f.episode_id IS NOT NULL)) AS follow_ids,
        coalesce(bool_or(f.label = 'success'), false) AS follow_success
    FROM routes_ep e
    LEFT JOIN routes_ep f
        ON e.run_id IS NOT NULL AND f.activity = e.activity AND f.run_id = e.run_id
       -- One operation is one runId and fingerprint (§6): without a fingerprint the follow-up
       -- cannot be told from the run's other tasks on toModel, so it stays unknown.
       AND f.fingerprint = e.fingerprint AND f.model = e.to_model
       AND f.episode_id <> e.episode_id
       AND (e.started_at IS NULL OR f.started_at IS NULL OR f.started_at >= e.started_at)
    WHERE e.escalated IS TRUE
    GROUP BY e.episode_id
)
SELECT e.episode_id, fo.follow_ids,
    -- Accepted for cost: a success, or an escalation whose follow-up attempt succeeded (the
    -- operation was accepted and paid for both attempts). Quality effects use `label` only.
    coalesce(e.label = 'success', false)
        OR (e.escalated IS TRUE AND coalesce(fo.follow_success, false)) AS accepted,
    -- An episode that does not say whether it escalated (escalated NULL) has an unknown total:
    -- the cost of a follow-up it may have had is not known to be 0.
    CASE WHEN e.escalated IS NULL THEN NULL
         WHEN NOT e.escalated THEN e.cost
         WHEN fo.n_follow > 0 AND fo.follow_unknown = 0 AND e.cost IS NOT NULL
              AND len(fo.follow_bases) = 1 AND fo.follow_bases[1] = e.cost_basis
         THEN e.cost + fo.follow_cost
    END AS cost_total,
    CASE WHEN e.escalated IS NULL THEN 'unknown'
         WHEN NOT e.escalated THEN e.cost_basis
         WHEN fo.n_follow = 0 OR fo.follow_unknown > 0 OR e.cost IS NULL THEN 'unknown'
         WHEN len(fo.follow_bases) = 1 AND fo.follow_bases[1] = e.cost_basis THEN e.cost_basis
         ELSE 'mixed'
    END AS cost_basis_total
FROM routes_ep e
LEFT JOIN follow fo USING (episode_id);

CREATE OR REPLACE TEMP TABLE routes_comp_evidence AS
WITH hist AS (
    SELECT s.comp_id, 'historical' AS part,
        CASE WHEN e.route_key = b.cand_key THEN 'candidate' ELSE 'incumbent' END AS role,
        e.episode_id
    FROM routes_comp_strata s
    JOIN routes_comparisons_base b ON b.comp_id = s.comp_id
    JOIN routes_ep e ON e.activity = b.activity AND e.kind = 'historical'
        AND e.route_key IN (b.cand_key, b.inc_key)
        AND e.complexity IS NOT DISTINCT FROM s.complexity
        AND e.harness IS NOT DISTINCT FROM s.harness
),
ev AS (
    SELECT * FROM hist
    UNION ALL
    SELECT comp_id, 'paired', role, episode_id FROM routes_pair_picks
)
SELECT ev.comp_id, ev.part, ev.role, e.episode_id, e.label, e.evidence_at, e.dated_at, e.harness,
    e.model, e.reasoning_effort, e.retries, e.repairs, e.escalated,
    t.accepted, t.cost_total, t.cost_basis_total
FROM ev
JOIN routes_ep e USING (episode_id)
JOIN routes_ep_total t USING (episode_id);

CREATE OR REPLACE TEMP TABLE routes_comp_cost AS
WITH g AS (
    SELECT comp_id, role,
        count(*) AS episodes,
        count(*) FILTER (WHERE label IS NOT NULL) AS labelled,
        count(*) FILTER (WHERE label = 'success') AS successes,
        count(*) FILTER (WHERE accepted) AS accepted,
        sum(cost_total) AS cost_sum_known,
        count(*) FILTER (WHERE cost_total IS NULL) AS unknown_cost_episodes,
        count(DISTINCT cost_basis_total) AS n_bases,
        min(cost_basis_total) AS any_basis,
        bool_or(cost_basis_total = 'unknown') AS has_unknown,
        count(retries) AS retry_reported,
        count(repairs) AS repair_reported,
        count(escalated) AS escalation_reported,
        count(*) FILTER (WHERE retries > 0) AS retried,
        count(*) FILTER (WHERE repairs > 0) AS repaired,
        count(*) FILTER (WHERE escalated) AS escalations
    FROM routes_comp_evidence GROUP BY comp_id, role
)
SELECT comp_id, role, episodes, labelled, successes, accepted, unknown_cost_episodes,
    routes_total_basis(has_unknown, n_bases, any_basis) AS cost_basis,
    CASE WHEN unknown_cost_episodes = 0 AND n_bases = 1 THEN cost_sum_known END AS cost_sum,
    routes_total_per_accepted(unknown_cost_episodes, n_bases, cost_sum_known, accepted)
        AS cost_per_accepted,
    retried / nullif(CAST(retry_reported AS DOUBLE), 0) AS retry_rate,
    repaired / nullif(CAST(repair_reported AS DOUBLE), 0) AS repair_rate,
    escalations / nullif(CAST(escalation_reported AS DOUBLE), 0) AS escalation_rate,
    retry_reported, repair_reported, escalation_reported,
    retried, repaired, escalations
FROM g;

CREATE OR REPLACE TEMP TABLE routes_activity_now AS
SELECT activity,
    first(harness ORDER BY evidence_at DESC NULLS LAST, episode_id DESC) AS current_harness,
    max(evidence_at) AS newest_activity_evidence
FROM routes_ep GROUP BY activity;

CREATE OR REPLACE TEMP TABLE routes_comp_fresh AS
SELECT ev.comp_id,
    max(ev.evidence_at) AS newest_evidence,
    -- Per part: the evidence that decides a comparison (080's evidence_source) dates it.
    max(ev.evidence_at) FILTER (WHERE ev.part = 'paired') AS newest_paired_evidence,
    max(ev.evidence_at) FILTER (WHERE ev.part = 'historical') AS newest_historical_evidence,
    count(*) FILTER (WHERE ev.evidence_at IS NULL) AS undated,
    count(ev.dated_at) AS dated,
    count(ev.dated_at) FILTER (WHERE ev.part = 'paired') AS dated_paired,
    count(ev.dated_at) FILTER (WHERE ev.part = 'historical') AS dated_historical,
    list_sort(list(DISTINCT ev.harness) FILTER (WHERE ev.harness IS NOT NULL)) AS harnesses,
    list_sort(list(DISTINCT ev.model)) AS models,
    list_sort(list(DISTINCT ev.reasoning_effort) FILTER (WHERE ev.reasoning_effort IS NOT NULL))
        AS reasoning_efforts,
    list_sort(list(DISTINCT ev.episode_id)) AS episode_ids,
    any_value(n.current_harness) AS current_harness,
    bool_or(ev.harness IS NOT DISTINCT FROM n.current_harness) AS current_harness_in_evidence,
    -- Per part, as the newest evidence: what decides is what must have run on the harness.
    coalesce(bool_or(ev.harness IS NOT DISTINCT FROM n.current_harness)
                 FILTER (WHERE ev.part = 'paired'), false) AS current_harness_in_paired,
    coalesce(bool_or(ev.harness IS NOT DISTINCT FROM n.current_harness)
                 FILTER (WHERE ev.part = 'historical'), false) AS current_harness_in_historical
FROM routes_comp_evidence ev
JOIN routes_comparisons_base b USING (comp_id)
JOIN routes_activity_now n ON n.activity = b.activity
GROUP BY ev.comp_id;
