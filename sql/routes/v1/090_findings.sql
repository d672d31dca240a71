-- routes/v1 · findings: the seven types, each with its evidence, freshness and language.
-- Reads: routes_comparisons, routes_comp_evidence, routes_cascades, routes_harness_changes,
--   routes_harness_shifts, routes_ep, routes_ep_total, routes_policy, routes_grades,
--   routes_finding_types.
-- Produces: routes_findings (grain: finding) with flat columns; a '__' in a column name nests
--   it in the JSON output (incumbent__model -> incumbent.model): type, activity, grade,
--   headline (opens with the language its grade allows, never a higher grade's; an insufficient
--   cascade's names what keeps it from proven: each minimum it misses — labelled operations or
--   the acceptance CI width — the quality bar, or these together), actionable,
--   command (only when actionable: ak host pick --route '<activity>:<host>:<model>', shell
--   quoted), drift_of, incumbent__*/candidate__* (host, provider, model, route, harness_scope),
--   quality_metric, tolerance, effect (candidate - incumbent), ci_low, ci_high (each at 6
--   decimals, routes_stat, as compared),
--   interval_method, evidence_source, counts__*, cost__* (basis, claim — "No $ claimed" when
--   unknown — per accepted outcome, net saving; a harness_change or blind_spot claims no $
--   figure, its basis that of its episodes by 070's rule, routes_total_basis), rates__* (retry/repair/escalation shares over
--   the episodes — for a cascade the operations — that report each, *_reported of them; NULL,
--   never 0, when none does), freshness__* (newest_evidence TIMESTAMPTZ, UTC: routes_utc;
--   the newest supporting episode, a harness shift's too, which is evidence_drift when that
--   is stale, as every finding; a blind spot's is its activity's newest episode, stale NULL
--   only when none carries a time; summary, the markdown's Freshness line: that time, its age
--   beside freshness_days and fresh, stale or unknown, as stale holds it), why (list of
--   text; its "Newest evidence:" time written as the JSON writes times, routes_iso),
--   episode_ids (every episode behind the numbers), sort columns. An actionable finding
--   whose activity holds other actionable findings picking another route names them in its
--   why, as alternatives (each is against the incumbent).
--   Every name a headline, why or cost claim holds (activity, model, route, harness,
--   provider, an alternative's command) is written as common/v1's rs_shown shows it, the
--   way every report shows a name: quoted whole when it holds a character that would be
--   written escaped, so a model holding a right-to-left override no longer reads as one
--   holding the six characters \u202e; an ordinary name (accents, CJK, emoji) as it is.
--   The fields that hold a name (candidate.model, activity, ...) keep it as it is.
-- Spec: routes.md §1 (unknown stays unknown), §4 (allowed language), §5 (fields and types),
--   §6 (grades of the other types, blind_spot thresholds, unknown cost).
CREATE OR REPLACE TEMP MACRO routes_shq(s) AS '''' || replace(s, '''', '''"''"''') || '''';

-- A dated time's age, as the Freshness line and a blind spot's why say it: whole days before
-- the as-of date counted up (routes_age_days, more than freshness_days exactly when stale),
-- or, for a time later on the as-of date than the clock, that: its age is between -1 and 0
-- days (010: a later day dates nothing), where "0.001 days after the as-of date" read as a
-- later day.
CREATE OR REPLACE TEMP MACRO routes_age_said(age_days) AS
    CASE WHEN age_days < 0 THEN 'later on the as-of date'
         ELSE routes_age_days(age_days) || ' before the as-of date'
    END;

-- The markdown's Freshness line (freshness__summary): the newest evidence's time, its age
-- against the as-of date beside the freshness_days it was judged against (routes_age_days:
-- 30.4 days reads "31 days", more than 30, as judged), and the verdict the finding's stale
-- holds, never recomputed: fresh, stale, or unknown when no time is known (stale NULL: a
-- blind spot's; stale TRUE: evidence of unknown age, treated as stale). Evidence dated later
-- on the as-of date than the clock is fresh (§6 Clock). untimed says which evidence carries
-- no time.
CREATE OR REPLACE TEMP MACRO routes_freshness_summary(newest, age_days, stale, freshness_days, untimed) AS
    'newest evidence ' || CASE
        WHEN newest IS NULL THEN 'unknown (' || untimed || '): unknown'
             || CASE WHEN stale THEN ', treated as stale' ELSE '' END
        ELSE routes_iso(newest) || ' (' || routes_age_said(age_days) || '): '
             || CASE WHEN stale THEN 'stale (more than ' ELSE 'fresh (within ' END
             || routes_days(CAST(freshness_days AS VARCHAR)) || ')' END;

-- Which evidence has no time that counts (routes_freshness_summary's untimed): a
-- comparison's or a cascade's whose every dated episode is after the as-of date (010 reads
-- such a time as undated), said as a blind spot's is, else evidence with no time at all.
CREATE OR REPLACE TEMP MACRO routes_untimed(dated_after_as_of) AS
    CASE WHEN dated_after_as_of THEN 'no evidence dated on or before the as-of date'
         ELSE 'the evidence carries no timestamps' END;

-- Reasons in a sentence: "a and b", "a; b; and c" (a reason may hold a comma of its own).
CREATE OR REPLACE TEMP MACRO routes_and_list(l) AS
    CASE WHEN len(l) <= 2 THEN array_to_string(l, ' and ')
         ELSE array_to_string(l[1:len(l) - 1], '; ') || '; and ' || l[len(l)] END;

CREATE OR REPLACE TEMP MACRO routes_command(activity, host, model) AS
    CASE WHEN activity IS NOT NULL AND host IS NOT NULL AND model IS NOT NULL
              AND NOT regexp_matches(activity || host || model, '[\x00-\x1f\x7f]')
         THEN 'ak host pick --route ' || routes_shq(activity || ':' || host || ':' || model) END;

CREATE OR REPLACE TEMP MACRO routes_cost_claim(basis, per_accepted) AS
    CASE WHEN basis IN ('unknown', 'mixed') OR basis IS NULL OR per_accepted IS NULL
         THEN 'No $ claimed'
         ELSE routes_usd(per_accepted) || ' per accepted outcome ('
              || CASE basis WHEN 'observed' THEN 'observed cash'
                            WHEN 'api_equivalent' THEN 'API-equivalent'
                            ELSE 'API-equivalent subscription capacity' END || ')'
    END;

CREATE OR REPLACE TEMP TABLE routes_role_harness AS
SELECT comp_id, role,
    list_sort(list(DISTINCT harness) FILTER (WHERE harness IS NOT NULL)) AS harness_scope
FROM routes_comp_evidence GROUP BY comp_id, role;

CREATE OR REPLACE TEMP TABLE routes_findings AS
WITH comp AS (
    SELECT c.*,
        rc.harness_scope AS cand_scope, ri.harness_scope AS inc_scope,
        -- Two routes of one model (on two hosts or providers) are told apart by their route:
        -- "claude-sonnet-4 ... within 0.050 of claude-sonnet-4" said nothing.
        -- Each name a sentence holds is shown as rs_shown shows it (routes_shown_label).
        CASE WHEN c.cand_model IS NOT DISTINCT FROM c.inc_model
             THEN routes_shown_label(c.cand_host, c.cand_provider, c.cand_model)
             ELSE rs_shown(c.cand_model) END AS cand_name,
        CASE WHEN c.cand_model IS NOT DISTINCT FROM c.inc_model
             THEN routes_shown_label(c.inc_host, c.inc_provider, c.inc_model)
             ELSE rs_shown(c.inc_model) END AS inc_name,
        CASE WHEN c.cand_model IS NOT DISTINCT FROM c.inc_model THEN
                  CASE WHEN c.cheaper_route = 'candidate'
                       THEN routes_shown_label(c.inc_host, c.inc_provider, c.inc_model)
                       ELSE routes_shown_label(c.cand_host, c.cand_provider, c.cand_model) END
             WHEN c.cheaper_route = 'candidate' THEN rs_shown(c.inc_model)
             ELSE rs_shown(c.cand_model) END AS pricier_model,
        CASE WHEN c.cand_model IS NOT DISTINCT FROM c.inc_model THEN
                  CASE WHEN c.cheaper_route = 'candidate'
                       THEN routes_shown_label(c.cand_host, c.cand_provider, c.cand_model)
                       ELSE routes_shown_label(c.inc_host, c.inc_provider, c.inc_model) END
             WHEN c.cheaper_route = 'candidate' THEN rs_shown(c.cand_model)
             ELSE rs_shown(c.inc_model) END AS cheaper_model,
        rs_shown(c.activity) AS activity_shown,
        rs_shown(c.current_harness) AS harness_shown,
        -- The route command names host and model only: a candidate that differs from the
        -- incumbent by its inference provider alone has no command that picks it.
        (c.cand_host IS DISTINCT FROM c.inc_host OR c.cand_model IS DISTINCT FROM c.inc_model)
            AS commandable,
        CASE WHEN c.cheaper_route = 'candidate' THEN -1 ELSE 1 END AS pricier_sign,
        CASE WHEN c.cost_basis NOT IN ('unknown', 'mixed')
             THEN c.inc_cost_per_accepted - c.cand_cost_per_accepted END AS net_saving,
        CASE c.evidence_source
            WHEN 'paired' THEN 'Newcombe method 10 (paired, discordant pairs)'
            WHEN 'historical' THEN 'Mantel-Haenszel difference, stratified Newcombe-Wilson interval'
        END AS method,
        CASE WHEN c.evidence_source = 'paired'
             THEN ' on ' || routes_count(c.pairs, 'paired ' || rs_shown(c.activity) || ' fixture',
                                         'paired ' || rs_shown(c.activity) || ' fixtures')
             ELSE ' in matched historical ' || rs_shown(c.activity) || ' strata' END AS where_text,
        ' (difference ' || routes_signed(c.effect) || ', 95% CI [' || routes_signed(c.ci_low)
            || ', ' || routes_signed(c.ci_high) || '])' AS effect_text
    FROM routes_comparisons c
    LEFT JOIN routes_role_harness rc ON rc.comp_id = c.comp_id AND rc.role = 'candidate'
    LEFT JOIN routes_role_harness ri ON ri.comp_id = c.comp_id AND ri.role = 'incumbent'
    WHERE c.finding_type IS NOT NULL
),
comp_f AS (
    SELECT
        finding_type AS type, activity,
        CASE WHEN finding_type = 'evidence_drift' THEN evidence_grade ELSE grade END AS grade,
        CASE WHEN finding_type = 'evidence_drift' THEN would_be_type END AS drift_of,
        CASE
            WHEN finding_type = 'evidence_drift' THEN
                'No recommendation until re-measured: the evidence that ' || cand_name || ' vs '
                || inc_name || ' on ' || activity_shown || ' supported ' || would_be_type || ' ('
                || evidence_grade || ') is out of date — '
                || CASE WHEN stale AND newest_evidence IS NOT NULL
                        THEN 'newest evidence ' || strftime(newest_evidence, '%Y-%m-%d') || ' is '
                             || routes_age_days(age_days) || ' before the as-of date'
                        WHEN stale AND dated_after_as_of
                        THEN 'no evidence is dated on or before the as-of date'
                        WHEN stale THEN 'the evidence carries no timestamps'
                        ELSE 'the activity now runs on harness ' || harness_shown
                             || ', which the evidence does not cover' END || '.'
            WHEN finding_type = 'cheaper_equivalent' AND grade = 'verified' THEN
                cand_name || ' matched the incumbent within tolerance (' || printf('%.3f', tolerance)
                || ')' || where_text || effect_text || ', at lower '
                || CASE cheaper_by WHEN 'cost' THEN 'cost per accepted outcome.'
                                   ELSE 'model tier (No $ claimed).' END
            WHEN finding_type = 'cheaper_equivalent' THEN
                cand_name || ' is associated with a success rate within ' || printf('%.3f', tolerance)
                || ' of ' || inc_name || where_text || effect_text || ', at lower '
                || CASE cheaper_by WHEN 'cost' THEN 'cost per accepted outcome.'
                                   ELSE 'model tier (No $ claimed).' END
            WHEN finding_type = 'premium_justified' AND premium_by = 'success_rate' THEN
                CASE WHEN grade = 'verified'
                     THEN 'On ' || routes_count(pairs, 'paired ' || activity_shown || ' fixture',
                                               'paired ' || activity_shown || ' fixtures')
                          || ', ' || pricier_model
                          || ' succeeded more often than ' || cheaper_model
                     ELSE pricier_model || ' is associated with a higher ' || activity_shown
                          || ' success rate than ' || cheaper_model || ' in matched historical strata' END
                || ' (difference ' || routes_signed(pricier_sign * effect) || ', 95% CI ['
                || routes_signed(CASE WHEN pricier_sign = 1 THEN ci_low ELSE -ci_high END) || ', '
                || routes_signed(CASE WHEN pricier_sign = 1 THEN ci_high ELSE -ci_low END)
                || ']): the premium earns its cost.'
            WHEN finding_type = 'premium_justified' THEN
                pricier_model || ' is associated with materially fewer repairs/escalations on '
                || activity_shown || ' than ' || cheaper_model || ' (difference '
                || routes_signed(pricier_sign * re_effect) || ', 95% CI ['
                || routes_signed(CASE WHEN pricier_sign = 1 THEN re_ci_low ELSE -re_ci_high END) || ', '
                || routes_signed(CASE WHEN pricier_sign = 1 THEN re_ci_high ELSE -re_ci_low END)
                || ']): the premium earns its cost.'
        END AS headline,
        (finding_type = 'cheaper_equivalent'
         OR (finding_type = 'premium_justified' AND cheaper_route = 'incumbent'))
            AND commandable
            AND routes_command(activity, cand_host, cand_model) IS NOT NULL AS actionable,
        CASE WHEN (finding_type = 'cheaper_equivalent'
                   OR (finding_type = 'premium_justified' AND cheaper_route = 'incumbent'))
                  AND commandable
             THEN routes_command(activity, cand_host, cand_model) END AS command,
        inc_host AS incumbent__host, inc_provider AS incumbent__provider,
        inc_model AS incumbent__model, inc_label AS incumbent__route,
        coalesce(inc_scope, []) AS incumbent__harness_scope,
        cand_host AS candidate__host, cand_provider AS candidate__provider,
        cand_model AS candidate__model, cand_label AS candidate__route,
        coalesce(cand_scope, []) AS candidate__harness_scope,
        CASE WHEN premium_by = 'repair_escalation'
             THEN 'share of episodes with a repair or escalation'
             ELSE 'labelled success rate' END AS quality_metric,
        tolerance,
        CASE WHEN premium_by = 'repair_escalation' THEN re_effect ELSE effect END AS effect,
        CASE WHEN premium_by = 'repair_escalation' THEN re_ci_low ELSE ci_low END AS ci_low,
        CASE WHEN premium_by = 'repair_escalation' THEN re_ci_high ELSE ci_high END AS ci_high,
        CASE WHEN premium_by = 'repair_escalation'
             THEN 'Mantel-Haenszel difference, stratified Newcombe-Wilson interval'
             ELSE method END AS interval_method,
        evidence_source,
        coalesce(strata_compared, 0) AS counts__strata_compared,
        cand_lab_matched AS counts__matched_candidate, inc_lab_matched AS counts__matched_incumbent,
        pairs AS counts__pairs, candidate_only AS counts__discordant_candidate_only,
        incumbent_only AS counts__discordant_incumbent_only,
        0 AS counts__prospective_operations, len(episode_ids) AS counts__evidence_episodes,
        cost_basis AS cost__basis,
        CASE WHEN net_saving IS NULL THEN 'No $ claimed'
             ELSE 'candidate ' || routes_cost_claim(cost_basis, cand_cost_per_accepted)
                  || ' vs incumbent ' || routes_usd(inc_cost_per_accepted) END AS cost__claim,
        cand_cost_per_accepted AS cost__candidate_per_accepted,
        inc_cost_per_accepted AS cost__incumbent_per_accepted,
        net_saving AS cost__net_saving_per_accepted,
        net_saving * cand_accepted AS cost__net_total,
        cand_retry_rate AS rates__candidate_retry, cand_repair_rate AS rates__candidate_repair,
        cand_escalation_rate AS rates__candidate_escalation,
        inc_retry_rate AS rates__incumbent_retry, inc_repair_rate AS rates__incumbent_repair,
        inc_escalation_rate AS rates__incumbent_escalation,
        cand_retry_reported AS rates__candidate_retry_reported,
        cand_repair_reported AS rates__candidate_repair_reported,
        cand_escalation_reported AS rates__candidate_escalation_reported,
        inc_retry_reported AS rates__incumbent_retry_reported,
        inc_repair_reported AS rates__incumbent_repair_reported,
        inc_escalation_reported AS rates__incumbent_escalation_reported,
        newest_evidence AS freshness__newest_evidence, age_days AS freshness__age_days,
        stale AS freshness__stale,
        routes_freshness_summary(newest_evidence, age_days, stale, freshness_days,
                              routes_untimed(dated_after_as_of)) AS freshness__summary,
        coalesce(models, []) AS freshness__models,
        coalesce(harnesses, []) AS freshness__harnesses,
        coalesce(reasoning_efforts, []) AS freshness__reasoning_efforts,
        current_harness AS freshness__current_harness,
        list_filter([
            'Compared strata (activity x complexity x harness): ' || coalesce(strata_compared, 0)
                || '; candidate ' || routes_count(cand_lab_matched, 'labelled episode', 'labelled episodes')
                || ' there ('
                || routes_pct(cand_overlap) || ' of its labelled history), incumbent '
                || inc_lab_matched || ' (' || routes_pct(inc_overlap) || ').',
            CASE WHEN strata_compared IS NOT NULL THEN
                'Matched historical success: candidate ' || cand_succ_matched || '/' || cand_lab_matched
                || ', incumbent ' || inc_succ_matched || '/' || inc_lab_matched
                || '; Mantel-Haenszel difference ' || routes_signed(hist_effect) || ', 95% CI ['
                || routes_signed(hist_ci_low) || ', ' || routes_signed(hist_ci_high) || '].' END,
            CASE WHEN pairs > 0 THEN
                'Paired fixtures: ' || pairs || ' (both succeeded ' || both_success
                || ', only candidate ' || candidate_only || ', only incumbent ' || incumbent_only
                || ', both failed ' || both_fail || '); paired difference '
                || routes_signed(paired_effect) || ', 95% CI [' || routes_signed(paired_ci_low)
                || ', ' || routes_signed(paired_ci_high) || '].'
                ELSE 'Paired fixtures: none (paired evidence would be needed for verified).' END,
            'Verdict from ' || evidence_source || ' evidence at tolerance ' || printf('%.3f', tolerance)
                || ': ' || CASE conclusion WHEN 'non_inferior' THEN 'non-inferior'
                   WHEN 'candidate_better' THEN 'candidate better'
                   WHEN 'incumbent_better' THEN 'incumbent better' ELSE conclusion END || '.',
            CASE WHEN re_effect IS NOT NULL THEN
                'Repair or escalation share (candidate - incumbent): ' || routes_signed(re_effect)
                || ', 95% CI [' || routes_signed(re_ci_low) || ', ' || routes_signed(re_ci_high) || '].' END,
            CASE WHEN net_saving IS NOT NULL THEN
                'Cost per accepted outcome (' || cost_basis || ', every attempt, retry and escalation counted): candidate '
                || routes_usd(cand_cost_per_accepted) || ', incumbent ' || routes_usd(inc_cost_per_accepted)
                || '; net saving ' || routes_usd(net_saving) || ' per accepted outcome.'
                ELSE 'No $ claimed: cost basis ' || cost_basis || ' (candidate ' || cand_cost_basis
                || ', incumbent ' || inc_cost_basis || '); cheaper by '
                || coalesce(cheaper_by, 'nothing known') || ' (tiers: candidate '
                || coalesce(CAST(cand_tier AS VARCHAR), 'unknown') || ', incumbent '
                || coalesce(CAST(inc_tier AS VARCHAR), 'unknown') || ').'
                || CASE WHEN cand_escalation_reported < cand_evidence_episodes
                             OR inc_escalation_reported < inc_evidence_episodes
                        THEN ' An episode that does not report whether it escalated has an unknown '
                             || 'total cost (a follow-up attempt is not priced at 0): candidate '
                             || (cand_evidence_episodes - cand_escalation_reported) || ', incumbent '
                             || (inc_evidence_episodes - inc_escalation_reported) || ' such episodes.'
                        ELSE '' END END,
            'Retry/repair/escalation rates: candidate ' || routes_pct(cand_retry_rate) || '/'
                || routes_pct(cand_repair_rate) || '/' || routes_pct(cand_escalation_rate)
                || ', incumbent ' || routes_pct(inc_retry_rate) || '/' || routes_pct(inc_repair_rate)
                || '/' || routes_pct(inc_escalation_rate)
                || CASE WHEN least(cand_retry_reported, cand_repair_reported, cand_escalation_reported)
                             < cand_evidence_episodes
                          OR least(inc_retry_reported, inc_repair_reported, inc_escalation_reported)
                             < inc_evidence_episodes
                        THEN ', each over the episodes reporting it (candidate '
                             || cand_retry_reported || '/' || cand_repair_reported || '/'
                             || cand_escalation_reported || ' of ' || cand_evidence_episodes
                             || ', incumbent ' || inc_retry_reported || '/' || inc_repair_reported
                             || '/' || inc_escalation_reported || ' of ' || inc_evidence_episodes
                             || '; unknown when none does)'
                        ELSE '' END || '.',
            'Newest evidence: ' || coalesce(routes_iso(newest_evidence), 'unknown')
                || '; evidence harnesses: ' || coalesce(routes_shown_list(harnesses), 'unknown')
                || '; current harness: ' || coalesce(harness_shown, 'unknown') || '.',
            CASE WHEN NOT commandable AND finding_type <> 'evidence_drift'
                 THEN 'No route command: the routes differ only by inference provider ('
                      || coalesce(rs_shown(cand_provider), 'unknown') || ' vs '
                      || coalesce(rs_shown(inc_provider), 'unknown')
                      || '), which ak host pick --route ''<activity>:<host>:<model>'' does not name.' END
        ] || reasons, lambda x: x IS NOT NULL) AS why,
        episode_ids,
        cand_key AS sort_candidate, inc_key AS sort_incumbent
    FROM comp
),
casc AS (
    SELECT c.*,
        ' (' || routes_count(operations, 'prospective operation', 'prospective operations') || ', '
            || accepted_ops || ' accepted)' AS ops_text,
        rs_shown(c.entry_model) AS entry_shown, rs_shown(c.target_model) AS target_shown,
        rs_shown(c.activity) AS activity_shown, rs_shown(c.current_harness) AS harness_shown
    FROM routes_cascades c
    WHERE finding_type IS NOT NULL
),
casc_f AS (
    SELECT
        finding_type AS type, activity,
        CASE WHEN finding_type = 'evidence_drift' THEN evidence_grade ELSE grade END AS grade,
        CASE WHEN finding_type = 'evidence_drift' THEN would_be_type END AS drift_of,
        CASE
            WHEN finding_type = 'evidence_drift' THEN
                'No recommendation until re-measured: the prospective evidence that cheap-first '
                || entry_shown || ' → ' || target_shown || ' on ' || activity_shown || ' showed '
                || would_be_type || ' is out of date — '
                || CASE WHEN stale AND newest_evidence IS NOT NULL
                        THEN 'newest evidence ' || strftime(newest_evidence, '%Y-%m-%d') || ' is '
                             || routes_age_days(age_days) || ' before the as-of date.'
                        WHEN stale AND dated_after_as_of
                        THEN 'no evidence is dated on or before the as-of date.'
                        WHEN stale THEN 'the evidence carries no timestamps.'
                        ELSE 'the activity now runs on harness ' || harness_shown
                             || ', which the evidence does not cover.' END
            WHEN grade = 'insufficient' THEN
                'No recommendation yet: cheap-first ' || entry_shown || ' → ' || target_shown || ' on '
                || activity_shown || CASE finding_type
                    WHEN 'cascade_working' THEN ' shows a net saving of ' || routes_usd(net_saving_per_accepted)
                    ELSE ' shows escalations and retries erasing the saving (net '
                         || routes_usd(net_saving_per_accepted) || ')' END
                -- What keeps it from proven (085's grade), and only that: each minimum it misses
                -- by name (too few labelled operations, or an acceptance interval wider than
                -- max_ci_width with enough of them), and for a saving the quality bar. A stale
                -- one is evidence_drift; with an unknown or mixed cost there is no net value, so
                -- no finding, only the cascade's reasons.
                || ' per accepted operation, but ' || routes_and_list(list_filter([
                    CASE WHEN NOT meets_minimums AND labelled_ops < min_labelled_per_route
                         THEN 'it has ' || routes_count(labelled_ops, 'labelled operation', 'labelled operations')
                              || ', below the minimum of '
                              || min_labelled_per_route END,
                    CASE WHEN NOT meets_minimums
                              AND routes_cmp(acceptance_ci_high - acceptance_ci_low) > max_ci_width
                         THEN 'its acceptance 95% CI width '
                              || routes_num_vs(acceptance_ci_high - acceptance_ci_low, max_ci_width, 3)
                              || ' exceeds max_ci_width '
                              || routes_num_vs(max_ci_width, acceptance_ci_high - acceptance_ci_low, 3)
                    END,
                    -- No interval at all (no labelled operation, under a minimum of 0).
                    CASE WHEN NOT meets_minimums AND labelled_ops >= min_labelled_per_route
                              AND acceptance_ci_low IS NULL
                         THEN 'its acceptance has no interval (no labelled operation)' END,
                    CASE WHEN routes_cmp(net_saving_per_accepted) > 0 AND NOT quality_bar_kept
                              AND quality_ci_low IS NOT NULL
                         THEN 'its acceptance is not shown within the tolerance of ' || target_shown
                              || ' (lower bound ' || routes_signed_vs(quality_ci_low, -tolerance)
                              || ' below -tolerance -' || routes_num_vs(tolerance, -quality_ci_low, 3)
                              || '), so the quality bar is not shown kept' END,
                    CASE WHEN routes_cmp(net_saving_per_accepted) > 0 AND NOT quality_bar_kept
                              AND quality_ci_low IS NULL
                         THEN 'its acceptance is not compared with ' || target_shown
                              || ' (no labelled outcome on one side), so the quality bar is not shown kept' END
                ], lambda x: x IS NOT NULL)) || ops_text || '.'
            WHEN finding_type = 'cascade_working' THEN
                'This route saved cost/capacity while keeping the quality bar: cheap-first ' || entry_shown
                || ' → ' || target_shown || ' on ' || activity_shown || ' saved '
                || routes_usd(net_saving_per_accepted) || ' per accepted operation ('
                || routes_usd(net_total) || ' in total, ' || cost_basis || ') after every retry and escalation'
                || ops_text || '.'
            ELSE
                'Cheap-first ' || entry_shown || ' → ' || target_shown || ' on ' || activity_shown
                || ' does not pay: '
                -- No operation accepted first time: the tax is the whole cascade, not unknown.
                || CASE WHEN escalation_tax_per_accepted IS NULL
                        THEN 'no operation was accepted on its first ' || entry_shown
                             || ' attempt (every accepted one also paid for an escalation)'
                        ELSE 'escalations and retries add ' || routes_usd(escalation_tax_per_accepted)
                             || ' per accepted operation' END
                || ', so it costs ' || routes_usd(cascade_cost_per_accepted)
                || ' against ' || routes_usd(baseline_cost_per_accepted) || ' for ' || target_shown
                || ' directly (net ' || routes_usd(net_saving_per_accepted) || ', ' || cost_basis || ')'
                || ops_text || '.'
        END AS headline,
        (finding_type IN ('cascade_working', 'escalation_tax') AND grade = 'proven'
         AND routes_command(activity, CASE finding_type WHEN 'cascade_working' THEN entry_host
                                           ELSE target_host END,
                            CASE finding_type WHEN 'cascade_working' THEN entry_model
                                 ELSE target_model END) IS NOT NULL) AS actionable,
        CASE WHEN finding_type IN ('cascade_working', 'escalation_tax') AND grade = 'proven'
             THEN routes_command(activity,
                    CASE finding_type WHEN 'cascade_working' THEN entry_host ELSE target_host END,
                    CASE finding_type WHEN 'cascade_working' THEN entry_model ELSE target_model END)
        END AS command,
        target_host AS incumbent__host, target_provider AS incumbent__provider,
        target_model AS incumbent__model, target_label AS incumbent__route,
        target_harnesses AS incumbent__harness_scope,
        entry_host AS candidate__host, entry_provider AS candidate__provider,
        entry_model AS candidate__model, entry_label AS candidate__route,
        harnesses AS candidate__harness_scope,
        'accepted share of labelled operations vs target route success rate' AS quality_metric,
        tolerance,
        quality_effect AS effect,
        quality_ci_low AS ci_low, quality_ci_high AS ci_high,
        'Newcombe hybrid score interval (Wilson)' AS interval_method,
        'prospective' AS evidence_source,
        0 AS counts__strata_compared, 0 AS counts__matched_candidate,
        0 AS counts__matched_incumbent, 0 AS counts__pairs,
        CAST(NULL AS BIGINT) AS counts__discordant_candidate_only,
        CAST(NULL AS BIGINT) AS counts__discordant_incumbent_only,
        operations AS counts__prospective_operations, len(episode_ids) AS counts__evidence_episodes,
        cost_basis AS cost__basis,
        CASE WHEN net_saving_per_accepted IS NULL THEN 'No $ claimed'
             ELSE 'cascade ' || routes_cost_claim(cost_basis, cascade_cost_per_accepted)
                  || ' vs ' || target_shown || ' directly ' || routes_usd(baseline_cost_per_accepted) END
            AS cost__claim,
        cascade_cost_per_accepted AS cost__candidate_per_accepted,
        baseline_cost_per_accepted AS cost__incumbent_per_accepted,
        net_saving_per_accepted AS cost__net_saving_per_accepted,
        net_total AS cost__net_total,
        retried_ops / nullif(CAST(retry_reported_ops AS DOUBLE), 0) AS rates__candidate_retry,
        repaired_ops / nullif(CAST(repair_reported_ops AS DOUBLE), 0) AS rates__candidate_repair,
        escalated_ops / nullif(CAST(escalation_reported_ops AS DOUBLE), 0)
            AS rates__candidate_escalation,
        CAST(NULL AS DOUBLE) AS rates__incumbent_retry, CAST(NULL AS DOUBLE) AS rates__incumbent_repair,
        CAST(NULL AS DOUBLE) AS rates__incumbent_escalation,
        retry_reported_ops AS rates__candidate_retry_reported,
        repair_reported_ops AS rates__candidate_repair_reported,
        escalation_reported_ops AS rates__candidate_escalation_reported,
        CAST(NULL AS BIGINT) AS rates__incumbent_retry_reported,
        CAST(NULL AS BIGINT) AS rates__incumbent_repair_reported,
        CAST(NULL AS BIGINT) AS rates__incumbent_escalation_reported,
        newest_evidence AS freshness__newest_evidence, age_days AS freshness__age_days,
        stale AS freshness__stale,
        routes_freshness_summary(newest_evidence, age_days, stale, freshness_days,
                              routes_untimed(dated_after_as_of)) AS freshness__summary,
        list_sort(list_distinct([entry_model, target_model])) AS freshness__models,
        harnesses AS freshness__harnesses, CAST([] AS VARCHAR[]) AS freshness__reasoning_efforts,
        current_harness AS freshness__current_harness,
        list_filter([
            'Operations (episodes sharing runId and task fingerprint, cheap-first on ' || entry_shown
                || '): ' || operations || '; labelled ' || labelled_ops || ', accepted ' || accepted_ops
                || ' (' || routes_pct(acceptance_rate) || ', 95% CI [' || routes_pct(acceptance_ci_low)
                || ', ' || routes_pct(acceptance_ci_high) || ']); attempts ' || attempts || '.',
            'Escalated ' || escalated_ops || ' ('
                || routes_pct(escalated_ops / nullif(CAST(escalation_reported_ops AS DOUBLE), 0))
                || '), retried ' || retried_ops || ', repaired ' || repaired_ops || ' operations'
                || CASE WHEN least(escalation_reported_ops, retry_reported_ops, repair_reported_ops)
                             < operations
                        THEN '; of ' || routes_count(operations, 'operation', 'operations') || ', '
                             || escalation_reported_ops
                             || ' report escalation, ' || retry_reported_ops || ' retries and '
                             || repair_reported_ops || ' repairs (each rate is over those; unknown '
                             || 'when none does)'
                        ELSE '' END || '.',
            CASE WHEN net_saving_per_accepted IS NOT NULL THEN
                'Cost per accepted operation (' || cost_basis || '): cascade '
                || routes_usd(cascade_cost_per_accepted)
                || CASE WHEN cheap_only_cost_per_accepted IS NULL
                        THEN ' (no operation accepted on its first attempt: every accepted one '
                             || 'paid for an escalation)'
                        ELSE ' (first-attempt successes alone '
                             || routes_usd(cheap_only_cost_per_accepted) || ', escalation tax '
                             || routes_usd(escalation_tax_per_accepted) || ')' END
                || '; ' || target_shown || ' directly '
                || routes_usd(baseline_cost_per_accepted) || ' over its '
                || routes_count(target_accepted, 'accepted outcome', 'accepted outcomes')
                || ' on this activity; net saving '
                || routes_usd(net_saving_per_accepted) || '.'
                ELSE 'No $ claimed: cost basis ' || cost_basis || '.' END,
            'Quality: accepted share ' || routes_pct(acceptance_rate) || ' vs ' || target_shown || ' '
                || coalesce(CAST(target_successes AS VARCHAR), '0') || '/'
                || coalesce(CAST(target_labelled AS VARCHAR), '0') || ' ('
                || routes_pct(target_success_rate) || '); difference ' || routes_signed(quality_effect)
                || ', 95% CI [' || routes_signed(quality_ci_low) || ', ' || routes_signed(quality_ci_high) || '].',
            'Newest evidence: ' || coalesce(routes_iso(newest_evidence), 'unknown') || '.'
        ] || reasons, lambda x: x IS NOT NULL) AS why,
        episode_ids,
        entry_key AS sort_candidate, target_key AS sort_incumbent
    FROM casc
),
harness_ids AS (
    SELECT h.step_id, h.direction, list_sort(list(DISTINCT e.episode_id)) AS episode_ids,
        -- The newest supporting evidence (§5), not the time the new harness was first seen.
        max(e.evidence_at) AS newest_evidence,
        -- No time that counts, but a time: every dated episode is after the as-of date (010;
        -- 055 orders such harnesses by name, so the shift is found), said as a comparison's.
        max(e.evidence_at) IS NULL AND count(e.dated_at) > 0 AS dated_after_as_of,
        -- Its episodes' cost basis, by the comparisons' rule (no $ figure is claimed, but a
        -- known basis is not called unknown).
        routes_total_basis(coalesce(bool_or(t.cost_basis_total = 'unknown'), false),
                           count(DISTINCT t.cost_basis_total), min(t.cost_basis_total))
            AS cost_basis
    FROM routes_harness_changes h
    JOIN routes_harness_shifts s ON s.step_id = h.step_id AND s.direction = h.direction AND s.enough
    JOIN routes_ep e ON e.activity = h.activity AND e.route_key = s.route_key
        AND e.harness IN (h.harness_from, h.harness_to) AND e.label IS NOT NULL
        AND e.kind IN ('historical', 'paired')
    JOIN routes_ep_total t ON t.episode_id = e.episode_id
    GROUP BY h.step_id, h.direction
),
-- §5 evidence_drift ("the newest supporting evidence is older than freshness_days") holds for
-- a harness shift as for every finding backed by evidence: a stale one keeps its grade (§6),
-- says it is out of date, and claims no current shift.
harness_aged AS (
    SELECT ids.*,
        (epoch(pol.as_of) - epoch(ids.newest_evidence)) / 86400.0 AS age_days,
        (ids.newest_evidence IS NULL
         OR routes_cmp((epoch(pol.as_of) - epoch(ids.newest_evidence)) / 86400.0)
            > pol.freshness_days) AS stale
    FROM harness_ids ids CROSS JOIN routes_policy pol
),
harness_f AS (
    SELECT
        CASE WHEN ids.stale THEN 'evidence_drift' ELSE 'harness_change' END AS type,
        h.activity, h.grade,
        CASE WHEN ids.stale THEN 'harness_change' END AS drift_of,
        CASE WHEN ids.stale
             THEN 'No recommendation until re-measured: the evidence that the harness change '
                  || rs_shown(h.harness_from) || ' → ' || rs_shown(h.harness_to) || ' moved ' || rs_shown(h.activity)
                  || ' success ' || h.direction || ' for ' || len(h.models) || ' models ('
                  || routes_shown_list(h.models) || ') is out of date — '
                  || CASE WHEN ids.dated_after_as_of THEN 'no evidence is dated on or before the as-of date.'
                          WHEN ids.newest_evidence IS NULL THEN 'the evidence carries no timestamps.'
                          ELSE 'newest evidence ' || strftime(ids.newest_evidence, '%Y-%m-%d')
                               || ' is ' || routes_age_days(ids.age_days)
                               || ' before the as-of date.' END
             WHEN h.grade = 'correlated'
             THEN 'The harness change ' || rs_shown(h.harness_from) || ' → ' || rs_shown(h.harness_to)
                  || ' is associated with ' || CASE h.direction WHEN 'up' THEN 'higher' ELSE 'lower' END
                  || ' ' || rs_shown(h.activity) || ' success for ' || len(h.models) || ' models ('
                  || routes_shown_list(h.models) || '): the shift follows the harness, not a model switch.'
             ELSE rs_shown(h.activity) || ' success was observed to move ' || h.direction || ' across the harness change '
                  || rs_shown(h.harness_from) || ' → ' || rs_shown(h.harness_to) || ' for ' || len(h.models) || ' models ('
                  || routes_shown_list(h.models) || '): the shift follows the harness, not a model switch.'
        END AS headline,
        false AS actionable, CAST(NULL AS VARCHAR) AS command,
        'labelled success rate' AS quality_metric, pol.tolerance,
        m.effect, m.ci_low, m.ci_high,
        'Mantel-Haenszel difference within complexity (new harness - old), stratified Newcombe-Wilson interval'
            AS interval_method,
        'historical' AS evidence_source,
        len(ids.episode_ids) AS counts__evidence_episodes,
        ids.cost_basis AS cost__basis, 'No $ claimed' AS cost__claim,
        ids.newest_evidence AS freshness__newest_evidence, ids.age_days AS freshness__age_days,
        ids.stale AS freshness__stale,
        routes_freshness_summary(ids.newest_evidence, ids.age_days, ids.stale, pol.freshness_days,
                              routes_untimed(ids.dated_after_as_of)) AS freshness__summary,
        h.models AS freshness__models, [h.harness_from, h.harness_to] AS freshness__harnesses,
        list_filter(list_transform(h.shifts, lambda s: s.route_shown || ': ' || s.succ_from || '/' || s.n_from || ' on '
            || rs_shown(h.harness_from) || ' → ' || s.succ_to || '/' || s.n_to || ' on ' || rs_shown(h.harness_to)
            || ', within-complexity difference ' || routes_signed(s.effect) || ', 95% CI ['
            || routes_signed(s.ci_low) || ', ' || routes_signed(s.ci_high) || ']')
        || ['Models moving the same way by more than the tolerance ' || printf('%.3f', pol.tolerance)
            || ' across one fingerprint change: ' || len(h.models)
            || '. Route comparisons in this activity are held at observed until the shift is separated.',
            'Reported effect: the smallest of these shifts.',
            'First evidence on ' || rs_shown(h.harness_to) || ': ' || coalesce(routes_iso(h.changed_at), 'unknown')
                || '; newest evidence: ' || coalesce(routes_iso(ids.newest_evidence), 'unknown') || '.',
            CASE WHEN ids.stale AND ids.newest_evidence IS NULL
                 THEN CASE WHEN ids.dated_after_as_of THEN 'no evidence dated on or before the as-of date'
                           ELSE 'no evidence timestamp' END
                      || ': freshness unknown, treated as stale'
                 WHEN ids.stale
                 THEN 'stale: newest evidence ' || strftime(ids.newest_evidence, '%Y-%m-%d') || ' is '
                      || routes_age_days(ids.age_days)
                      || ' old (freshness_days '
                      || pol.freshness_days || ')' END], lambda x: x IS NOT NULL) AS why,
        ids.episode_ids,
        h.harness_from AS sort_candidate, h.harness_to AS sort_incumbent
    FROM routes_harness_changes h
    CROSS JOIN routes_policy pol
    JOIN harness_aged ids ON ids.step_id = h.step_id AND ids.direction = h.direction
    JOIN LATERAL (
        SELECT s.effect, s.ci_low, s.ci_high FROM unnest(h.shifts) u(s)
        ORDER BY abs(s.effect), s.route LIMIT 1
    ) m ON true
),
blind AS (
    SELECT e.activity,
        count(*) AS episodes,
        count(*) FILTER (WHERE e.label IS NOT NULL) AS labelled,
        count(*) FILTER (WHERE e.label_reason = 'only medium/weak signals') AS medium_weak,
        count(*) FILTER (WHERE e.label_reason = 'only assistant_done (never counts)') AS assistant_only,
        count(*) FILTER (WHERE e.label_reason = 'blocked/cancelled without a strong signal') AS blocked,
        count(*) FILTER (WHERE e.label_reason = 'no outcome signal') AS no_signal,
        count(*) FILTER (WHERE e.label_reason = 'strong signal without a pass/fail value') AS neutral_strong,
        max(e.evidence_at) AS newest_evidence,
        -- with none dated on or before the as-of date, whether any is dated after it (010)
        CASE WHEN count(e.dated_at) > 0 THEN 'no episode dated on or before the as-of date'
             ELSE 'no episode carries a time' END AS untimed,
        list_sort(list(DISTINCT e.model) FILTER (WHERE e.model IS NOT NULL)) AS models,
        list_sort(list(DISTINCT e.harness) FILTER (WHERE e.harness IS NOT NULL)) AS harnesses,
        list_sort(list(DISTINCT e.reasoning_effort) FILTER (WHERE e.reasoning_effort IS NOT NULL))
            AS reasoning_efforts,
        -- The harness of the activity's newest episode, as 070's current_harness.
        first(e.harness ORDER BY e.evidence_at DESC NULLS LAST, e.episode_id DESC) AS current_harness,
        list_sort(list(e.episode_id)) AS episode_ids,
        routes_total_basis(coalesce(bool_or(t.cost_basis_total = 'unknown'), false),
                           count(DISTINCT t.cost_basis_total), min(t.cost_basis_total))
            AS cost_basis
    FROM routes_ep e JOIN routes_ep_total t USING (episode_id) GROUP BY e.activity
),
blind_f AS (
    SELECT 'blind_spot' AS type, b.activity, 'insufficient' AS grade,
        'No recommendation yet: ' || rs_shown(b.activity) || ' has ' || b.episodes || ' episodes but only '
            || b.labelled || ' (' || routes_pct_vs(b.labelled / CAST(b.episodes AS DOUBLE),
                                                   pol.blind_spot_max_labelled_share)
            || ') carry a strong outcome signal. Record one per episode: a gate (build/test/release) '
            || 'pass/fail, a qe verdict, an independent review accept/reject or an explicit user accept/reject.'
            AS headline,
        false AS actionable, CAST(NULL AS VARCHAR) AS command,
        'labelled share of episodes' AS quality_metric, pol.tolerance,
        'none' AS evidence_source,
        b.episodes AS counts__evidence_episodes,
        b.cost_basis AS cost__basis, 'No $ claimed' AS cost__claim,
        b.newest_evidence AS freshness__newest_evidence, b.age_days AS freshness__age_days,
        -- Measured as every finding's (§6 Clock, freshness_days). Unlike theirs, an undated
        -- blind spot is not counted stale: that rule keeps a recommendation from resting on
        -- evidence of unknown age, and a blind spot recommends nothing, so unknown stays null.
        CASE WHEN b.newest_evidence IS NOT NULL
             THEN routes_cmp(b.age_days) > pol.freshness_days END AS freshness__stale,
        routes_freshness_summary(b.newest_evidence, b.age_days,
                              CASE WHEN b.newest_evidence IS NOT NULL
                                   THEN routes_cmp(b.age_days) > pol.freshness_days END,
                              pol.freshness_days, b.untimed) AS freshness__summary,
        b.models AS freshness__models, b.harnesses AS freshness__harnesses,
        b.reasoning_efforts AS freshness__reasoning_efforts,
        b.current_harness AS freshness__current_harness,
        list_filter([
            'Labelled: ' || b.labelled || ' of ' || b.episodes || ' episodes (blind-spot threshold: ≥ '
                || pol.blind_spot_min_episodes || ' episodes with under '
                || routes_pct_vs(pol.blind_spot_max_labelled_share, b.labelled / CAST(b.episodes AS DOUBLE))
                || ' labelled).',
            CASE WHEN b.medium_weak > 0
                THEN routes_count(b.medium_weak, 'episode carries', 'episodes carry')
                || ' only medium/weak signals (handoff, retry, escalation, session_end); these never create a label.' END,
            CASE WHEN b.assistant_only > 0
                THEN routes_count(b.assistant_only, 'episode carries', 'episodes carry')
                || ' only assistant_done, which never counts.' END,
            CASE WHEN b.blocked > 0 THEN routes_count(b.blocked, 'episode is', 'episodes are')
                || ' blocked/cancelled without a strong signal (unlabelled, not failures).' END,
            CASE WHEN b.neutral_strong > 0
                THEN routes_count(b.neutral_strong, 'episode has', 'episodes have')
                || ' a strong signal without a pass/fail value: record pass/fail or accept/reject.' END,
            CASE WHEN b.no_signal > 0
                THEN routes_count(b.no_signal, 'episode has', 'episodes have') || ' no outcome signal at all.' END,
            -- "Newest episode", not "Newest evidence": no comparison's reasons follow it.
            CASE WHEN b.newest_evidence IS NULL
                 THEN 'Newest episode: unknown (' || b.untimed || '): freshness unknown.'
                 ELSE 'Newest episode: ' || routes_iso(b.newest_evidence) || ' ('
                      || routes_age_said(b.age_days)
                      || CASE WHEN routes_cmp(b.age_days) > pol.freshness_days
                              THEN ', more than freshness_days ' || pol.freshness_days
                                   || ': the activity may no longer run as these episodes did'
                              ELSE '' END || ').' END
        ], lambda x: x IS NOT NULL) AS why,
        b.episode_ids,
        '' AS sort_candidate, '' AS sort_incumbent
    FROM (SELECT *, (epoch(p.as_of) - epoch(newest_evidence)) / 86400.0 AS age_days
          FROM blind CROSS JOIN (SELECT as_of FROM routes_policy) p) b
    CROSS JOIN routes_policy pol
    WHERE b.episodes >= pol.blind_spot_min_episodes
      AND routes_cmp(b.labelled / CAST(b.episodes AS DOUBLE)) < pol.blind_spot_max_labelled_share
),
all_f AS (
    SELECT * FROM comp_f
    UNION ALL BY NAME SELECT * FROM casc_f
    UNION ALL BY NAME SELECT * FROM harness_f
    UNION ALL BY NAME SELECT * FROM blind_f
),
-- Each comparison is against the incumbent (§3), so one activity may hold several actionable
-- findings whose commands pick different routes (a cheaper candidate equivalent to the
-- incumbent, a pricier one that earns its cost; a cascade's target run directly). Each is
-- sound on its own; run together, the last command would silently undo the others. Each
-- such finding's why names the others, as alternatives.
alts AS (
    SELECT f.activity, f.command,
        list_sort(list_distinct(list(g.type || ' (' || rs_shown(g.command) || ')'))) AS others
    FROM all_f f
    JOIN all_f g ON g.activity = f.activity AND g.actionable AND g.command <> f.command
    WHERE f.actionable
    GROUP BY f.activity, f.command
)
SELECT u.* REPLACE (
        routes_utc(u.freshness__newest_evidence) AS freshness__newest_evidence,
        CASE WHEN a.others IS NULL THEN u.why
             ELSE u.why || ['Other actionable findings of ' || rs_shown(u.activity) || ' pick another route: '
                            || array_to_string(a.others, '; ') || '. Each is measured against '
                            || 'the incumbent, so the route commands are alternatives: run one.']
        END AS why),
       t.rank::BIGINT AS type_rank  -- BIGINT as every whole number of a result (003: INTEGER)
FROM all_f u
LEFT JOIN alts a ON u.actionable AND a.activity = u.activity AND a.command = u.command
JOIN routes_finding_types t ON t.type = u.type
-- Ties (a stale comparison and a stale cascade of the same two routes are both
-- evidence_drift; a harness step may move models up and down) go by evidence source, then
-- headline, so the order never depends on DuckDB's threads (§7 byte-identical reruns).
ORDER BY t.rank, u.activity, u.sort_candidate, u.sort_incumbent, u.evidence_source, u.headline;
