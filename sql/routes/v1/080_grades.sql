-- routes/v1 · comparison verdicts, evidence grades and the reasons for them.
-- Reads: routes_comparisons_base, routes_mh (analysis 'route'), routes_route_strata,
--   routes_paired, routes_comp_cost, routes_comp_fresh, routes_harness_changes, routes_policy,
--   routes_grades.
-- Produces: routes_comparisons (grain: activity x candidate route; every incumbent-candidate
--   pair, including insufficient ones) with the historical (MH) effect and interval, overlap
--   per route, the repair+escalation difference (re_*: over the episodes of compared strata
--   that report both repairs and escalation, re_cand_reported / re_inc_reported of them), the
--   paired effect and interval, cost per
--   accepted outcome per route and the comparison's cost basis (a route with no episode
--   behind the comparison has basis 'unknown', so has the comparison), retry/repair/escalation
--   rates per route with the count of episodes reporting each (070; the counts — accepted,
--   unknown-cost episodes, episodes reporting a field — are 0, not NULL, for a route with no
--   episode behind the comparison: a count of nothing is known), freshness, and:
--   evidence_source ('paired' when pairs >= min_pairs and its CI is narrow enough, else
--   'historical' when both routes have >= min_labelled_per_route labelled episodes in compared
--   strata, the CI width <= max_ci_width and both overlaps >= min_stratum_overlap; paired
--   outranks historical, unless the paired evidence is stale or misses the current harness
--   while the historical is sufficient and neither: paired_decides), conclusion ('candidate_better' lower bound > 0, 'incumbent_better'
--   upper bound < 0, 'non_inferior' lower bound >= -tolerance, 'inconclusive'),
--   evidence_grade (verified | correlated for a definite conclusion from paired | historical
--   evidence, observed when inconclusive, insufficient without sufficient evidence),
--   grade (evidence_grade, but insufficient when stale and at most observed when the activity
--   has a harness_change), dated_after_as_of (no newest evidence, but the deciding
--   evidence has dated episodes: all after the as-of date, 010; its words say so, not that it
--   carries no time), reasons (list of text), re_sufficient (historical evidence
--   sufficient and both routes have >= min_labelled_per_route episodes reporting repairs and
--   escalation there: what premium_justified's "repair + escalation rate is lower" may rest
--   on; with fewer, that ground is refused with a reason, an unreported episode never read as
--   "no repair, no escalation"), cheaper_route and cheaper_by ('cost' when
--   both routes have a cost per accepted outcome on one shared basis and the two differ;
--   NULL when they are equal; else 'tier' when the tiers differ), same_cost,
--   premium_by, would_be_type (cheaper_equivalent | premium_justified | NULL) and finding_type
--   (would_be_type when fresh; evidence_drift when stale or the harness changed since).
--   All threshold comparisons use values rounded to 6 decimals.
-- Spec: routes.md §1 (unknown stays unknown), §3 (non-inferiority, paired evidence),
--   §4 (grades), §5 (cheaper_equivalent, premium_justified, evidence_drift), §6
--   (premium_justified, unknown cost), README numbers.
CREATE OR REPLACE TEMP TABLE routes_comparisons AS
WITH j AS (
    SELECT b.*,
        h.strata AS strata_compared,
        coalesce(h.n1, 0) AS cand_lab_matched, coalesce(h.x1, 0) AS cand_succ_matched,
        coalesce(h.n0, 0) AS inc_lab_matched, coalesce(h.x0, 0) AS inc_succ_matched,
        h.p1 AS hist_cand_rate, h.p0 AS hist_inc_rate,
        h.effect AS hist_effect, h.ci_low AS hist_ci_low, h.ci_high AS hist_ci_high,
        h.ci_width AS hist_ci_width,
        re.effect AS re_effect, re.ci_low AS re_ci_low, re.ci_high AS re_ci_high,
        coalesce(re.n1, 0) AS re_cand_reported, coalesce(re.n0, 0) AS re_inc_reported,
        rc.lab_total AS cand_lab_total, rc.strata_total AS cand_strata_total,
        ri.lab_total AS inc_lab_total, ri.strata_total AS inc_strata_total,
        CASE WHEN rc.lab_total > 0 THEN rc.lab_matched / CAST(rc.lab_total AS DOUBLE) END
            AS cand_overlap,
        CASE WHEN ri.lab_total > 0 THEN ri.lab_matched / CAST(ri.lab_total AS DOUBLE) END
            AS inc_overlap,
        coalesce(p.pairs, 0) AS pairs, p.both_success, p.candidate_only, p.incumbent_only,
        p.both_fail, p.effect AS paired_effect, p.ci_low AS paired_ci_low,
        p.ci_high AS paired_ci_high, p.ci_width AS paired_ci_width,
        -- A route with no episode behind the comparison (no compared stratum, no pair) has
        -- no known cost: its basis is unknown, and so is the comparison's, not 'mixed'.
        coalesce(cc.cost_basis, 'unknown') AS cand_cost_basis,
        cc.cost_per_accepted AS cand_cost_per_accepted,
        -- Counts over the episodes behind the comparison: with none (no compared stratum, no
        -- pair) they are known, 0, as pairs and the labelled counts are; only what is a
        -- share of nothing (cost per accepted, a rate) stays unknown.
        cc.cost_sum AS cand_cost_sum, coalesce(cc.accepted, 0) AS cand_accepted,
        coalesce(cc.unknown_cost_episodes, 0) AS cand_unknown_cost,
        coalesce(cc.episodes, 0) AS cand_evidence_episodes,
        cc.retry_rate AS cand_retry_rate, cc.repair_rate AS cand_repair_rate,
        cc.escalation_rate AS cand_escalation_rate,
        coalesce(cc.retry_reported, 0) AS cand_retry_reported,
        coalesce(cc.repair_reported, 0) AS cand_repair_reported,
        coalesce(cc.escalation_reported, 0) AS cand_escalation_reported,
        coalesce(ci.cost_basis, 'unknown') AS inc_cost_basis,
        ci.cost_per_accepted AS inc_cost_per_accepted,
        ci.cost_sum AS inc_cost_sum, coalesce(ci.accepted, 0) AS inc_accepted,
        coalesce(ci.unknown_cost_episodes, 0) AS inc_unknown_cost,
        coalesce(ci.episodes, 0) AS inc_evidence_episodes,
        ci.retry_rate AS inc_retry_rate, ci.repair_rate AS inc_repair_rate,
        ci.escalation_rate AS inc_escalation_rate,
        coalesce(ci.retry_reported, 0) AS inc_retry_reported,
        coalesce(ci.repair_reported, 0) AS inc_repair_reported,
        coalesce(ci.escalation_reported, 0) AS inc_escalation_reported,
        f.newest_evidence AS newest_any_evidence, f.newest_paired_evidence,
        f.newest_historical_evidence, coalesce(f.undated, 0) AS undated,
        coalesce(f.dated, 0) AS dated_any, coalesce(f.dated_paired, 0) AS dated_paired,
        coalesce(f.dated_historical, 0) AS dated_historical, f.harnesses, f.models,
        f.reasoning_efforts, coalesce(f.episode_ids, []) AS episode_ids, f.current_harness,
        coalesce(f.current_harness_in_evidence, false) AS current_harness_in_any_evidence,
        coalesce(f.current_harness_in_paired, false) AS current_harness_in_paired,
        coalesce(f.current_harness_in_historical, false) AS current_harness_in_historical,
        b.activity IN (SELECT activity FROM routes_harness_changes) AS harness_capped,
        pol.*
    FROM routes_comparisons_base b
    CROSS JOIN routes_policy pol
    LEFT JOIN routes_mh h ON h.analysis = 'route' AND h.metric = 'success'
        AND h.key = CAST(b.comp_id AS VARCHAR)
    LEFT JOIN routes_mh re ON re.analysis = 'route' AND re.metric = 'repair_escalation'
        AND re.key = CAST(b.comp_id AS VARCHAR)
    LEFT JOIN routes_route_strata rc ON rc.comp_id = b.comp_id AND rc.role = 'candidate'
    LEFT JOIN routes_route_strata ri ON ri.comp_id = b.comp_id AND ri.role = 'incumbent'
    LEFT JOIN routes_paired p ON p.comp_id = b.comp_id
    LEFT JOIN routes_comp_cost cc ON cc.comp_id = b.comp_id AND cc.role = 'candidate'
    LEFT JOIN routes_comp_cost ci ON ci.comp_id = b.comp_id AND ci.role = 'incumbent'
    LEFT JOIN routes_comp_fresh f ON f.comp_id = b.comp_id
),
s AS (
    SELECT *,
        (cand_lab_matched >= min_labelled_per_route AND inc_lab_matched >= min_labelled_per_route
         AND routes_cmp(hist_ci_width) <= max_ci_width
         AND routes_cmp(cand_overlap) >= min_stratum_overlap
         AND routes_cmp(inc_overlap) >= min_stratum_overlap) IS TRUE AS hist_sufficient,
        (pairs >= min_pairs AND routes_cmp(paired_ci_width) <= max_ci_width) IS TRUE
            AS paired_sufficient
    FROM j
),
s2 AS (
    -- The repair+escalation share is judged on as many episodes reporting both as the
    -- success rate needs labelled ones (unreported ones are left out, so there may be fewer).
    SELECT *,
        hist_sufficient AND re_cand_reported >= min_labelled_per_route
            AND re_inc_reported >= min_labelled_per_route AS re_sufficient
    FROM s
),
cur AS (
    -- Each part's evidence is current when it is not stale (§4 counts stale evidence as
    -- insufficient) and covers the harness the activity now runs on (§5).
    SELECT *,
        (newest_paired_evidence IS NOT NULL
         AND routes_cmp((epoch(as_of) - epoch(newest_paired_evidence)) / 86400.0) <= freshness_days
         AND (current_harness IS NULL OR current_harness_in_paired)) AS paired_current,
        (newest_historical_evidence IS NOT NULL
         AND routes_cmp((epoch(as_of) - epoch(newest_historical_evidence)) / 86400.0) <= freshness_days
         AND (current_harness IS NULL OR current_harness_in_historical)) AS hist_current
    FROM s2
),
dec AS (
    -- Paired evidence outranks the historical strata, but not once it has drifted while
    -- sufficient historical strata are current: old fixtures withheld, as evidence_drift, a
    -- finding that this month's matched strata support on their own.
    SELECT *,
        paired_sufficient AND (paired_current OR NOT (hist_sufficient AND hist_current))
            AS paired_decides
    FROM cur
),
g AS (
    SELECT *,
        -- Freshness is that of the evidence that decides (§5 "the newest supporting
        -- evidence"): paired evidence is not made fresh by a few recent historical
        -- episodes too few to count (a 273-day-old paired comparison read as fresh).
        CASE WHEN paired_decides THEN newest_paired_evidence
             WHEN hist_sufficient THEN newest_historical_evidence
             ELSE newest_any_evidence END AS newest_evidence,
        CASE WHEN paired_decides THEN dated_paired
             WHEN hist_sufficient THEN dated_historical
             ELSE dated_any END AS dated,
        -- and "the harness changed since" (§5) asks the same evidence
        CASE WHEN paired_decides THEN current_harness_in_paired
             WHEN hist_sufficient THEN current_harness_in_historical
             ELSE current_harness_in_any_evidence END AS current_harness_in_evidence
    FROM dec
),
aged AS (
    SELECT *,
        CASE WHEN newest_evidence IS NULL THEN NULL
             ELSE (epoch(as_of) - epoch(newest_evidence)) / 86400.0 END AS age_days,
        CASE
            WHEN cand_cost_basis = 'unknown' OR inc_cost_basis = 'unknown' THEN 'unknown'
            WHEN cand_cost_basis = inc_cost_basis THEN cand_cost_basis
            ELSE 'mixed'
        END AS cost_basis
    FROM g
),
v AS (
    SELECT *,
        CASE WHEN paired_decides THEN 'paired' WHEN hist_sufficient THEN 'historical' END
            AS evidence_source,
        CASE WHEN paired_decides THEN paired_effect
             WHEN hist_sufficient THEN hist_effect END AS effect,
        CASE WHEN paired_decides THEN paired_ci_low
             WHEN hist_sufficient THEN hist_ci_low END AS ci_low,
        CASE WHEN paired_decides THEN paired_ci_high
             WHEN hist_sufficient THEN hist_ci_high END AS ci_high,
        (newest_evidence IS NULL OR routes_cmp(age_days) > freshness_days) AS stale,
        -- No time that counts, but a time: every dated one is after the as-of date (010)
        newest_evidence IS NULL AND dated > 0 AS dated_after_as_of,
        (current_harness IS NOT NULL AND NOT current_harness_in_evidence) AS harness_drift,
        -- Both costs known on one basis: they decide, and equal costs make neither route
        -- cheaper. The tier table decides only when a cost is unknown (§6 "Unknown cost").
        CASE
            WHEN cost_basis NOT IN ('unknown', 'mixed') AND cand_cost_per_accepted IS NOT NULL
                 AND inc_cost_per_accepted IS NOT NULL
                THEN CASE WHEN routes_cmp(cand_cost_per_accepted)
                               <> routes_cmp(inc_cost_per_accepted) THEN 'cost' END
            WHEN cand_tier IS NOT NULL AND inc_tier IS NOT NULL AND cand_tier <> inc_tier
                THEN 'tier'
        END AS cheaper_by,
        cost_basis NOT IN ('unknown', 'mixed') AND cand_cost_per_accepted IS NOT NULL
            AND inc_cost_per_accepted IS NOT NULL
            AND routes_cmp(cand_cost_per_accepted) = routes_cmp(inc_cost_per_accepted) AS same_cost
    FROM aged
),
c AS (
    SELECT *,
        CASE
            WHEN evidence_source IS NULL THEN 'insufficient'
            WHEN routes_cmp(ci_low) > 0 THEN 'candidate_better'
            WHEN routes_cmp(ci_high) < 0 THEN 'incumbent_better'
            WHEN routes_cmp(ci_low) >= -tolerance THEN 'non_inferior'
            ELSE 'inconclusive'
        END AS conclusion,
        CASE cheaper_by
            WHEN 'cost' THEN CASE WHEN cand_cost_per_accepted < inc_cost_per_accepted
                                  THEN 'candidate' ELSE 'incumbent' END
            WHEN 'tier' THEN CASE WHEN cand_tier < inc_tier THEN 'candidate' ELSE 'incumbent' END
        END AS cheaper_route
    FROM v
),
d AS (
    SELECT *,
        CASE
            WHEN conclusion = 'insufficient' THEN 'insufficient'
            WHEN conclusion = 'inconclusive' THEN 'observed'
            WHEN evidence_source = 'paired' THEN 'verified'
            ELSE 'correlated'
        END AS evidence_grade,
        CASE
            WHEN cheaper_route = 'candidate' AND conclusion = 'incumbent_better' THEN 'success_rate'
            WHEN cheaper_route = 'incumbent' AND conclusion = 'candidate_better' THEN 'success_rate'
            WHEN re_sufficient AND cheaper_route = 'candidate' AND routes_cmp(re_ci_low) > 0
                 AND conclusion <> 'candidate_better' THEN 'repair_escalation'
            WHEN re_sufficient AND cheaper_route = 'incumbent' AND routes_cmp(re_ci_high) < 0
                 AND conclusion IN ('candidate_better', 'non_inferior')
                THEN 'repair_escalation'
        END AS premium_by
    FROM c
),
w AS (
    SELECT *,
        CASE
            WHEN evidence_grade NOT IN ('correlated', 'verified') THEN NULL
            WHEN premium_by IS NOT NULL THEN 'premium_justified'
            WHEN cheaper_route = 'candidate' AND conclusion IN ('non_inferior', 'candidate_better')
                THEN 'cheaper_equivalent'
        END AS would_be_type
    FROM d
)
SELECT w.*,
    CASE
        WHEN stale THEN 'insufficient'
        WHEN harness_capped AND evidence_grade IN ('correlated', 'verified') THEN 'observed'
        ELSE evidence_grade
    END AS grade,
    CASE
        WHEN would_be_type IS NULL THEN NULL
        WHEN stale OR harness_drift THEN 'evidence_drift'
        WHEN harness_capped THEN NULL
        ELSE would_be_type
    END AS finding_type,
    list_filter([
        CASE WHEN strata_compared IS NULL
             THEN 'no (complexity, harness) stratum where both routes have labelled historical episodes' END,
        -- With no compared stratum, a route short of the minimum anywhere says so: a candidate
        -- with no labelled episode has no overlap to report, and its reasons named only the
        -- missing stratum and the incumbent's side.
        CASE WHEN strata_compared IS NULL AND coalesce(cand_lab_total, 0) < min_labelled_per_route
             THEN 'candidate has ' || routes_count(coalesce(cand_lab_total, 0),
                  'labelled historical episode', 'labelled historical episodes') || ' (minimum ' || min_labelled_per_route || ')' END,
        CASE WHEN strata_compared IS NULL AND coalesce(inc_lab_total, 0) < min_labelled_per_route
             THEN 'incumbent has ' || routes_count(coalesce(inc_lab_total, 0),
                  'labelled historical episode', 'labelled historical episodes') || ' (minimum ' || min_labelled_per_route || ')' END,
        CASE WHEN strata_compared IS NOT NULL AND cand_lab_matched < min_labelled_per_route
             THEN 'candidate has ' || routes_count(cand_lab_matched, 'labelled episode', 'labelled episodes')
                  || ' in compared strata (minimum '
                  || min_labelled_per_route || ')' END,
        CASE WHEN strata_compared IS NOT NULL AND inc_lab_matched < min_labelled_per_route
             THEN 'incumbent has ' || routes_count(inc_lab_matched, 'labelled episode', 'labelled episodes')
                  || ' in compared strata (minimum '
                  || min_labelled_per_route || ')' END,
        CASE WHEN routes_cmp(hist_ci_width) > max_ci_width
             THEN 'historical 95% CI width ' || routes_num_vs(hist_ci_width, max_ci_width, 3)
                  || ' exceeds max_ci_width ' || routes_num_vs(max_ci_width, hist_ci_width, 3) END,
        CASE WHEN routes_cmp(cand_overlap) < min_stratum_overlap
             THEN 'candidate overlap ' || routes_pct_vs(cand_overlap, min_stratum_overlap)
                  || ' of its labelled episodes is below min_stratum_overlap '
                  || routes_pct_vs(min_stratum_overlap, cand_overlap) END,
        CASE WHEN routes_cmp(inc_overlap) < min_stratum_overlap
             THEN 'incumbent overlap ' || routes_pct_vs(inc_overlap, min_stratum_overlap)
                  || ' of its labelled episodes is below min_stratum_overlap '
                  || routes_pct_vs(min_stratum_overlap, inc_overlap) END,
        CASE WHEN pairs > 0 AND pairs < min_pairs
             THEN 'paired fixtures: ' || pairs || ' (minimum ' || min_pairs || ' for paired evidence)' END,
        CASE WHEN pairs >= min_pairs AND routes_cmp(paired_ci_width) > max_ci_width
             THEN 'paired 95% CI width ' || routes_num_vs(paired_ci_width, max_ci_width, 3)
                  || ' exceeds max_ci_width ' || routes_num_vs(max_ci_width, paired_ci_width, 3) END,
        CASE WHEN paired_decides AND hist_sufficient
             THEN 'paired evidence outranks the historical strata and decides the verdict' END,
        CASE WHEN paired_sufficient AND NOT paired_decides
             THEN 'paired evidence set aside: '
                  || CASE WHEN newest_paired_evidence IS NULL AND dated_paired > 0
                          THEN 'none of its fixtures is dated on or before the as-of date'
                          WHEN newest_paired_evidence IS NULL THEN 'its fixtures carry no timestamp'
                          WHEN routes_cmp((epoch(as_of) - epoch(newest_paired_evidence)) / 86400.0)
                               > freshness_days
                          THEN 'its newest fixture ' || strftime(newest_paired_evidence, '%Y-%m-%d')
                               || ' is ' || routes_age_days((epoch(as_of)
                                  - epoch(newest_paired_evidence)) / 86400.0)
                               || ' old (freshness_days ' || freshness_days || ')'
                          ELSE 'it does not cover harness ' || rs_shown(current_harness)
                               || ', which the activity now runs on' END
                  || '; the historical strata are sufficient and current, and decide the verdict' END,
        CASE conclusion
            WHEN 'non_inferior' THEN 'non-inferior: lower bound ' || routes_signed_vs(ci_low, -tolerance)
                || ' ≥ -tolerance ' || '-' || routes_num_vs(tolerance, -ci_low, 3)
            WHEN 'candidate_better' THEN 'candidate better: lower bound ' || routes_signed(ci_low) || ' above 0'
            WHEN 'incumbent_better' THEN 'incumbent better: upper bound ' || routes_signed(ci_high) || ' below 0'
            WHEN 'inconclusive' THEN 'not shown non-inferior: lower bound ' || routes_signed_vs(ci_low, -tolerance)
                || ' below -tolerance ' || '-' || routes_num_vs(tolerance, -ci_low, 3)
        END,
        CASE WHEN newest_evidence IS NULL AND evidence_source IS NOT NULL
             THEN CASE WHEN dated_after_as_of
                       THEN 'no evidence dated on or before the as-of date'
                       ELSE 'no evidence timestamp' END
                  || ': freshness unknown, treated as stale' END,
        CASE WHEN newest_evidence IS NOT NULL AND routes_cmp(age_days) > freshness_days
             THEN 'stale: newest evidence ' || strftime(newest_evidence, '%Y-%m-%d') || ' is '
                  || routes_age_days(age_days) || ' old (freshness_days '
                  || freshness_days || ')' END,
        CASE WHEN current_harness IS NOT NULL AND NOT current_harness_in_evidence
                  AND evidence_source IS NOT NULL
             THEN 'harness changed since: the activity now runs on ' || rs_shown(current_harness)
                  || ', absent from the evidence' END,
        CASE WHEN harness_capped
             THEN 'a harness change in this activity moved several models; no route attribution until the shift is separated' END,
        CASE WHEN would_be_type IS NULL AND evidence_grade IN ('correlated', 'verified')
                  AND cheaper_by IS NULL
             THEN CASE WHEN same_cost
                       THEN 'both routes cost the same per accepted outcome: neither is cheaper'
                       ELSE 'neither cost nor the model tier table says which route is cheaper'
                  END END,
        CASE WHEN premium_by = 'repair_escalation'
             THEN 'the pricier route has materially fewer repairs/escalations (upper bound below 0)' END,
        CASE WHEN hist_sufficient AND NOT re_sufficient
             THEN 'repairs/escalations not compared: episodes reporting both, in strata where '
                  || 'both routes have some: '
                  || 'candidate ' || re_cand_reported || ', incumbent ' || re_inc_reported
                  || ' (minimum ' || min_labelled_per_route || ')' END
    ], lambda x: x IS NOT NULL) AS reasons
FROM w;
