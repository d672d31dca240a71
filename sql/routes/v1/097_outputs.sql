-- routes/v1 · output shapes of comparisons and cascades (what JSON and markdown show).
-- Reads: routes_comparisons, routes_comp_strata, routes_cascades.
-- Produces: routes_comparisons_out (grain: activity x candidate route, every pair including
--   insufficient ones) and routes_cascades_out (grain: activity x cheap-first entry route);
--   a '__' in a column name nests it in JSON (historical__effect -> historical.effect).
--   Effects are candidate - incumbent (the deciding one, or with neither sufficient the
--   narrower interval's), effect_source the kind shown ('paired' | 'historical', NULL with
--   no interval); strata lists every compared stratum with its counts. Retry, repair and
--   escalation rates are over the episodes (operations) that report each, with those counts
--   (*_reported); a rate none reports is NULL. A cascade's quality_effect (acceptance -
--   the target's success rate, 085) is written beside its interval, as its finding's effect.
--   The repair+escalation difference comes with the episodes reporting both it rests on.
--   freshness__newest_evidence is TIMESTAMPTZ (UTC: routes_utc), as every time a result gives;
--   the tiers BIGINT (policy tiers are INTEGER, 001), as every whole number a result gives.
-- Spec: routes.md §6 "Output" (comparisons with effect, interval, counts, grade and reasons).
CREATE OR REPLACE TEMP TABLE routes_comparisons_out AS
WITH s AS (
    SELECT comp_id,
        list({'complexity': complexity, 'harness': harness,
              'candidate_labelled': cand_lab, 'candidate_successes': cand_succ,
              'incumbent_labelled': inc_lab, 'incumbent_successes': inc_succ,
              'mh_weight': CAST(cand_lab AS DOUBLE) * inc_lab / (cand_lab + inc_lab)}
             ORDER BY complexity NULLS LAST, harness NULLS LAST) AS strata
    FROM routes_comp_strata GROUP BY comp_id
)
SELECT c.activity,
    c.inc_host AS incumbent__host, c.inc_provider AS incumbent__provider,
    c.inc_model AS incumbent__model, c.inc_label AS incumbent__route,
    c.incumbent_source AS incumbent__source, c.inc_tier::BIGINT AS incumbent__tier,
    c.cand_host AS candidate__host, c.cand_provider AS candidate__provider,
    c.cand_model AS candidate__model, c.cand_label AS candidate__route,
    c.cand_tier::BIGINT AS candidate__tier,
    c.grade, c.evidence_grade, c.conclusion, c.evidence_source,
    x.effect_source,
    -- The deciding effect; without sufficient evidence, the one effect_source names.
    coalesce(c.effect, CASE x.effect_source WHEN 'paired' THEN c.paired_effect
                                            WHEN 'historical' THEN c.hist_effect END) AS effect,
    coalesce(c.ci_low, CASE x.effect_source WHEN 'paired' THEN c.paired_ci_low
                                            WHEN 'historical' THEN c.hist_ci_low END) AS ci_low,
    coalesce(c.ci_high, CASE x.effect_source WHEN 'paired' THEN c.paired_ci_high
                                             WHEN 'historical' THEN c.hist_ci_high END) AS ci_high,
    c.tolerance,
    coalesce(c.strata_compared, 0) AS historical__strata_compared,
    c.cand_strata_total AS historical__candidate_strata, c.inc_strata_total AS historical__incumbent_strata,
    c.cand_lab_matched AS historical__candidate_labelled, c.cand_succ_matched AS historical__candidate_successes,
    c.inc_lab_matched AS historical__incumbent_labelled, c.inc_succ_matched AS historical__incumbent_successes,
    c.cand_lab_total AS historical__candidate_labelled_all_strata,
    c.inc_lab_total AS historical__incumbent_labelled_all_strata,
    c.cand_overlap AS historical__candidate_overlap, c.inc_overlap AS historical__incumbent_overlap,
    c.hist_cand_rate AS historical__candidate_rate_mh, c.hist_inc_rate AS historical__incumbent_rate_mh,
    c.hist_effect AS historical__effect, c.hist_ci_low AS historical__ci_low,
    c.hist_ci_high AS historical__ci_high, c.hist_ci_width AS historical__ci_width,
    c.hist_sufficient AS historical__sufficient,
    c.re_effect AS historical__repair_escalation_effect,
    c.re_ci_low AS historical__repair_escalation_ci_low,
    c.re_ci_high AS historical__repair_escalation_ci_high,
    c.re_cand_reported AS historical__repair_escalation_candidate_reported,
    c.re_inc_reported AS historical__repair_escalation_incumbent_reported,
    coalesce(s.strata, []) AS historical__strata,
    c.pairs AS paired__pairs, c.both_success AS paired__both_success,
    c.candidate_only AS paired__candidate_only, c.incumbent_only AS paired__incumbent_only,
    c.both_fail AS paired__both_fail, c.paired_effect AS paired__effect,
    c.paired_ci_low AS paired__ci_low, c.paired_ci_high AS paired__ci_high,
    c.paired_ci_width AS paired__ci_width, c.paired_sufficient AS paired__sufficient,
    c.cost_basis AS cost__basis, c.cheaper_route AS cost__cheaper_route, c.cheaper_by AS cost__cheaper_by,
    c.cand_cost_basis AS cost__candidate_basis, c.cand_cost_per_accepted AS cost__candidate_per_accepted,
    c.cand_accepted AS cost__candidate_accepted, c.cand_unknown_cost AS cost__candidate_unknown_cost_episodes,
    c.inc_cost_basis AS cost__incumbent_basis, c.inc_cost_per_accepted AS cost__incumbent_per_accepted,
    c.inc_accepted AS cost__incumbent_accepted, c.inc_unknown_cost AS cost__incumbent_unknown_cost_episodes,
    c.cand_retry_rate AS rates__candidate_retry, c.cand_repair_rate AS rates__candidate_repair,
    c.cand_escalation_rate AS rates__candidate_escalation,
    c.inc_retry_rate AS rates__incumbent_retry, c.inc_repair_rate AS rates__incumbent_repair,
    c.inc_escalation_rate AS rates__incumbent_escalation,
    c.cand_retry_reported AS rates__candidate_retry_reported,
    c.cand_repair_reported AS rates__candidate_repair_reported,
    c.cand_escalation_reported AS rates__candidate_escalation_reported,
    c.inc_retry_reported AS rates__incumbent_retry_reported,
    c.inc_repair_reported AS rates__incumbent_repair_reported,
    c.inc_escalation_reported AS rates__incumbent_escalation_reported,
    routes_utc(c.newest_evidence) AS freshness__newest_evidence, c.age_days AS freshness__age_days,
    c.stale AS freshness__stale, c.harness_drift AS freshness__harness_changed_since,
    c.current_harness AS freshness__current_harness, coalesce(c.harnesses, []) AS freshness__harnesses,
    coalesce(c.models, []) AS freshness__models,
    c.harness_capped, c.premium_by, c.would_be_type, c.finding_type, c.reasons,
    len(c.episode_ids) AS evidence_episodes
FROM routes_comparisons c LEFT JOIN s USING (comp_id)
CROSS JOIN LATERAL (
    -- The kind of effect and interval shown: the deciding evidence's; with neither
    -- sufficient (spec-silent), the narrower interval, the more precise estimate — paired on
    -- a tie, as it ranks (§3). "Paired whenever a pair existed" showed three fixtures'
    -- near-full-range interval over thin but far narrower matched strata.
    SELECT coalesce(c.evidence_source,
        CASE WHEN c.paired_ci_width IS NULL THEN CASE WHEN c.hist_ci_width IS NOT NULL THEN 'historical' END
             WHEN c.hist_ci_width IS NULL THEN 'paired'
             WHEN routes_cmp(c.hist_ci_width) < routes_cmp(c.paired_ci_width) THEN 'historical'
             ELSE 'paired' END) AS effect_source
) x
ORDER BY c.comp_id;

CREATE OR REPLACE TEMP TABLE routes_cascades_out AS
SELECT activity,
    entry_host AS entry__host, entry_provider AS entry__provider, entry_model AS entry__model,
    entry_label AS entry__route,
    target_host AS target__host, target_provider AS target__provider, target_model AS target__model,
    target_label AS target__route,
    grade, evidence_grade, would_be_type, finding_type,
    operations, labelled_ops AS labelled_operations, accepted_ops AS accepted_operations,
    attempts, escalated_ops AS escalated_operations, retried_ops AS retried_operations,
    repaired_ops AS repaired_operations, escalation_reported_ops AS escalation_reported_operations,
    retry_reported_ops AS retry_reported_operations,
    repair_reported_ops AS repair_reported_operations,
    acceptance_rate, acceptance_ci_low, acceptance_ci_high,
    target_labelled, target_successes, target_success_rate, target_accepted,
    quality_effect, quality_ci_low, quality_ci_high, quality_bar_kept,
    cost_basis AS cost__basis, cascade_cost_per_accepted AS cost__cascade_per_accepted,
    cheap_only_cost_per_accepted AS cost__first_attempt_per_accepted,
    baseline_cost_per_accepted AS cost__target_direct_per_accepted,
    gross_saving_per_accepted AS cost__gross_saving_per_accepted,
    escalation_tax_per_accepted AS cost__escalation_tax_per_accepted,
    net_saving_per_accepted AS cost__net_saving_per_accepted, net_total AS cost__net_total,
    routes_utc(newest_evidence) AS freshness__newest_evidence, age_days AS freshness__age_days,
    stale AS freshness__stale, harness_drift AS freshness__harness_changed_since,
    current_harness AS freshness__current_harness, harnesses AS freshness__harnesses,
    reasons, len(episode_ids) AS evidence_episodes
FROM routes_cascades
ORDER BY activity, entry_key;
