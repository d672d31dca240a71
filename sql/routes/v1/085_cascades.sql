-- routes/v1 · prospective cheap-first cascades and their net value after escalation.
-- Reads: routes_ep (prospective episodes; every kind for the baseline route), routes_ep_total
--   (070: the follow-up attempts an escalated episode escalated to, and each episode's total
--   cost for the baseline, totalled by 070's macros routes_total_basis /
--   routes_total_per_accepted, and routes_activity_now: the activity's current harness),
--   routes_incumbents,
--   routes_activity_routes, routes_policy.
-- Produces: routes_attempts (grain: prospective episode): operation key (activity, runId,
--   task fingerprint), attempt_no (by startedAt, then episode id);
--   routes_operations (grain: operation): entry route (first attempt), final route, attempts,
--   escalations (attempts that say they escalated), escalated / retried / repaired (true when
--   any attempt says so, false when every attempt says not, else NULL: unknown, never false),
--   retries, repairs (sums; NULL when an attempt does not report them), labelled/accepted
--   (label of the final attempt), missing_follow_ups (attempts that escalated with no follow-up
--   attempt in the input — 070's rule: same runId, task fingerprint and model = toModel, not
--   started before it — as when toModel is null), final_unreported (1 when the last attempt in
--   the input does not say whether it escalated: a follow-up it may have had is not in the
--   input, as 070 prices such an episode), cost (sum of every attempt; NULL when any is
--   unknown, bases differ, a follow-up is missing or the last attempt does not say whether it
--   escalated: an escalation is never priced at 0), cost_basis ('unknown' then), newest
--   evidence;
--   routes_cascades (grain: activity x entry route): operations, labelled and accepted counts,
--   follow_up_missing_ops (operations with an attempt whose follow-up is missing),
--   final_unreported_ops (operations whose last attempt does not say whether it escalated),
--   acceptance rate with Wilson interval (each at 6 decimals, routes_stat, from the
--   unrounded rate; so is target_success_rate, and quality_effect = acceptance - target
--   rate from the unrounded rates), escalated/retried/repaired operations and the
--   operations whose attempts report each (escalation_reported_ops, retry_reported_ops,
--   repair_reported_ops: the rates' denominators), the target route (most
--   frequent final route of escalated operations; else the incumbent), cascade cost per accepted
--   operation, cheap-only cost per accepted operation (operations accepted on the first attempt
--   known not to have escalated), the baseline (the target route's cost per accepted outcome
--   over its episodes of the activity run directly — every one but the attempts after the
--   first of an operation begun on another route, a cascade's follow-ups — by 070's
--   total-cost rule, as the comparisons and the matrix price a route: each episode with its
--   escalation follow-up, over its accepted outcomes — target_accepted; NULL, target_basis
--   'unknown', when any episode's total is unknown or none ran directly, and 'mixed' when
--   bases differ; target_labelled / target_successes, the quality bar's side, of the same
--   episodes; target_harnesses: their harness scope),
--   gross saving = baseline - cheap-only,
--   escalation tax = cascade - cheap-only, net saving = baseline - cascade (per accepted
--   operation) and net_total = net saving x accepted operations, the quality check against the
--   target route's success rate (Newcombe interval of acceptance - target rate, its bounds at
--   6 decimals as compared, routes_stat; the bar is kept
--   when the lower bound >= -tolerance: §3's non-inferiority, which "keeping the quality bar",
--   the proven language of §4, claims), grade ('proven' when labelled operations >=
--   min_labelled_per_route, the acceptance CI width <= max_ci_width, cost is known and the
--   evidence is fresh, and for a saving the quality bar is shown kept; else 'insufficient'),
--   dated_after_as_of (no newest evidence, but dated attempts: all after the as-of date, 010),
--   reasons, would_be_type (cascade_working when net saving > 0; escalation_tax when net
--   saving <= 0 and there were
--   escalations or retries, as the attempts report them: unreported ones are not assumed, and
--   with none reported no escalation_tax is claimed, with a reason; and only when there was
--   a saving for them to erase (§5): not when the first-attempt successes alone cost no less
--   than the target directly (gross saving <= 0), with a reason; a gross saving that cannot
--   be priced, no operation accepted first time, leaves the claim to the escalations),
--   current_harness (070's:
--   the harness of the activity's newest episode), harness_drift (no operation's attempt ran on
--   it) and finding_type (evidence_drift when stale or the harness changed since, §5).
-- Spec: routes.md §1 (unknown stays unknown), §3 "Net route value", §4 proven, §5
--   cascade_working / escalation_tax, §6 "Operations and attempts", "Grades of the other
--   finding types".
CREATE OR REPLACE TEMP TABLE routes_attempts AS
SELECT *,
    row_number() OVER (PARTITION BY activity, run_id, fingerprint
                       ORDER BY started_at NULLS LAST, episode_id) AS attempt_no,
    count(*) OVER (PARTITION BY activity, run_id, fingerprint) AS n_attempts
FROM routes_ep
WHERE kind = 'prospective' AND model IS NOT NULL;

CREATE OR REPLACE TEMP TABLE routes_operations AS
SELECT activity, run_id, fingerprint,
    first(route_key ORDER BY attempt_no) AS entry_key,
    first(route_key ORDER BY attempt_no DESC) AS final_key,
    first(label ORDER BY attempt_no DESC) AS final_label,
    count(*) AS attempts,
    count(*) FILTER (WHERE escalated) AS escalations,
    -- Three-valued OR over the attempts (bool_or alone reads an unreported attempt as false).
    CASE WHEN bool_or(escalated) THEN true WHEN count(escalated) = count(*) THEN false END
        AS escalated,
    CASE WHEN bool_or(retries > 0) THEN true WHEN count(retries) = count(*) THEN false END
        AS retried,
    CASE WHEN bool_or(repairs > 0) THEN true WHEN count(repairs) = count(*) THEN false END
        AS repaired,
    CASE WHEN count(retries) = count(*) THEN CAST(sum(retries) AS BIGINT) END AS retries,
    CASE WHEN count(repairs) = count(*) THEN CAST(sum(repairs) AS BIGINT) END AS repairs,
    count(*) FILTER (WHERE cost IS NULL) AS unknown_cost,
    -- An attempt that escalated and whose follow-up (070's routes_ep_total.follow_ids) is not
    -- among the operation's attempts: the operation's cost lacks that attempt (§6: the sum over
    -- its attempts), so it is unknown, never priced as if the escalation cost nothing.
    count(*) FILTER (WHERE escalated AND NOT list_has_any(coalesce(follow_ids, []), op_ids))
        AS missing_follow_ups,
    -- The last attempt in the input that does not say whether it escalated may have had a
    -- follow-up that is not in the input (as 070 prices such an episode: unknown). An earlier
    -- one's next attempt is among the operation's, so the sum over its attempts holds.
    count(*) FILTER (WHERE attempt_no = n_attempts AND escalated IS NULL) AS final_unreported,
    count(DISTINCT cost_basis) AS n_bases,
    min(cost_basis) AS any_basis,
    sum(cost) AS cost_known,
    max(evidence_at) AS newest_evidence,
    count(*) FILTER (WHERE evidence_at IS NULL) AS undated,
    count(dated_at) AS dated,
    list(episode_id ORDER BY attempt_no) AS episode_ids,
    list_sort(list(DISTINCT harness) FILTER (WHERE harness IS NOT NULL)) AS harnesses
FROM (
    SELECT a.*, t.follow_ids,
        list(a.episode_id) OVER (PARTITION BY a.activity, a.run_id, a.fingerprint) AS op_ids
    FROM routes_attempts a
    JOIN routes_ep_total t USING (episode_id)
)
GROUP BY activity, run_id, fingerprint;

CREATE OR REPLACE TEMP TABLE routes_cascades AS
WITH ops AS (
    SELECT *,
        final_label IS NOT NULL AS labelled,
        coalesce(final_label = 'success', false) AS accepted,
        CASE WHEN unknown_cost = 0 AND missing_follow_ups = 0 AND final_unreported = 0
                  AND n_bases = 1 THEN cost_known END
            AS cost,
        CASE WHEN unknown_cost > 0 OR missing_follow_ups > 0 OR final_unreported > 0
                  OR any_basis = 'unknown' THEN 'unknown'
             WHEN n_bases = 1 THEN any_basis ELSE 'mixed' END AS cost_basis
    FROM routes_operations
),
targets AS (
    SELECT activity, entry_key,
        first(final_key ORDER BY n DESC, final_key) AS target_key
    FROM (SELECT activity, entry_key, final_key, count(*) AS n FROM ops
          WHERE escalations > 0 AND final_key <> entry_key
          GROUP BY activity, entry_key, final_key)
    GROUP BY activity, entry_key
),
agg AS (
    SELECT activity, entry_key,
        count(*) AS operations,
        count(*) FILTER (WHERE labelled) AS labelled_ops,
        count(*) FILTER (WHERE accepted) AS accepted_ops,
        count(*) FILTER (WHERE escalated) AS escalated_ops,
        count(*) FILTER (WHERE retried) AS retried_ops,
        count(*) FILTER (WHERE repaired) AS repaired_ops,
        count(escalated) AS escalation_reported_ops,
        count(retried) AS retry_reported_ops,
        count(repaired) AS repair_reported_ops,
        CAST(sum(attempts) AS BIGINT) AS attempts,
        count(*) FILTER (WHERE cost IS NULL) AS unknown_cost_ops,
        count(*) FILTER (WHERE missing_follow_ups > 0) AS follow_up_missing_ops,
        count(*) FILTER (WHERE final_unreported > 0) AS final_unreported_ops,
        count(*) FILTER (WHERE unknown_cost > 0) AS attempt_unknown_ops,
        count(DISTINCT cost_basis) AS n_bases,
        min(cost_basis) AS any_basis,
        sum(cost) AS cost_known,
        count(*) FILTER (WHERE accepted AND attempts = 1 AND escalated IS FALSE) AS direct_accepted,
        sum(cost) FILTER (WHERE attempts = 1 AND escalated IS FALSE) AS direct_cost_known,
        count(*) FILTER (WHERE attempts = 1 AND escalated IS FALSE AND cost IS NULL) AS direct_unknown,
        max(newest_evidence) AS newest_evidence,
        CAST(sum(undated) AS BIGINT) AS undated,
        CAST(sum(dated) AS BIGINT) AS dated,
        list_sort(flatten(list(episode_ids))) AS episode_ids,
        list_sort(list_distinct(flatten(list(harnesses)))) AS harnesses
    FROM ops GROUP BY activity, entry_key
),
follow_ups AS (
    -- The attempts after the first of a cheap-first operation begun on another route: the
    -- target's runs a cascade escalated to. They are the cascade's own cost and outcome, run
    -- only on the tasks a cheaper attempt gave up on, so they are no evidence of what the
    -- target costs, or achieves, run directly (§5: the saving is the cascade's against the
    -- target; with them the baseline held the cascade itself, and a cascade whose target ran
    -- nowhere else was measured against its own hardest tasks). Any cascade's, not this
    -- one's alone: another cheap model's give-ups are no direct runs either.
    SELECT a.episode_id
    FROM routes_attempts a
    JOIN routes_operations o USING (activity, run_id, fingerprint)
    WHERE a.attempt_no > 1 AND a.route_key <> o.entry_key
),
target_stats AS (
    -- The baseline: what the target route costs per accepted outcome on this activity, run
    -- directly (no follow-up of a cascade), by 070's per-episode total (its escalation
    -- follow-up included; unknown when that is not in the input or the episode does not say
    -- whether it escalated), as the comparisons and the matrix price a route. Quality
    -- (successes of labelled) stays on the labels, of the same episodes.
    SELECT e.activity, e.route_key,
        count(*) FILTER (WHERE e.label IS NOT NULL) AS labelled,
        count(*) FILTER (WHERE e.label = 'success') AS successes,
        count(*) FILTER (WHERE t.accepted) AS accepted,
        count(*) FILTER (WHERE t.cost_total IS NULL) AS unknown_cost,
        count(*) AS episodes,
        coalesce(bool_or(t.cost_basis_total = 'unknown'), false) AS has_unknown,
        count(DISTINCT t.cost_basis_total) AS n_bases,
        min(t.cost_basis_total) AS any_basis,
        sum(t.cost_total) AS cost_known,
        list_sort(list(DISTINCT e.harness) FILTER (WHERE e.harness IS NOT NULL)) AS harnesses
    FROM routes_ep e JOIN routes_ep_total t USING (episode_id)
    WHERE e.episode_id NOT IN (SELECT episode_id FROM follow_ups)
    GROUP BY e.activity, e.route_key
),
c AS (
    SELECT a.*, pol.*,
        coalesce(t.target_key, CASE WHEN i.route_key <> a.entry_key THEN i.route_key END)
            AS target_key,
        CASE WHEN a.unknown_cost_ops = 0 AND a.n_bases = 1 THEN a.any_basis
             WHEN a.unknown_cost_ops > 0 THEN 'unknown' ELSE 'mixed' END AS cascade_basis,
        CASE WHEN a.unknown_cost_ops = 0 AND a.n_bases = 1 AND a.accepted_ops > 0
             THEN CAST(a.cost_known AS DOUBLE) / a.accepted_ops END AS cascade_cost_per_accepted,
        CASE WHEN a.unknown_cost_ops = 0 AND a.n_bases = 1 AND a.direct_accepted > 0
             THEN CAST(a.direct_cost_known AS DOUBLE) / a.direct_accepted END
            AS cheap_only_cost_per_accepted,
        a.accepted_ops / nullif(CAST(a.labelled_ops AS DOUBLE), 0) AS acceptance_rate_raw
    FROM agg a
    CROSS JOIN routes_policy pol
    LEFT JOIN targets t USING (activity, entry_key)
    LEFT JOIN routes_incumbents i ON i.activity = a.activity
),
b AS (
    SELECT c.*,
        er.host AS entry_host, er.provider AS entry_provider, er.model AS entry_model,
        er.route_label AS entry_label, er.tier AS entry_tier,
        tr.host AS target_host, tr.provider AS target_provider, tr.model AS target_model,
        tr.route_label AS target_label, tr.tier AS target_tier,
        ts.labelled AS target_labelled, ts.successes AS target_successes,
        coalesce(ts.harnesses, []) AS target_harnesses,
        ts.successes / nullif(CAST(ts.labelled AS DOUBLE), 0) AS target_success_rate_raw,
        ts.accepted AS target_accepted, ts.unknown_cost AS target_unknown_cost,
        ts.episodes AS target_episodes,
        -- no direct episode of the target (every one a cascade's follow-up): unknown
        routes_total_basis(coalesce(ts.has_unknown, true), ts.n_bases, ts.any_basis)
            AS target_basis,
        routes_total_per_accepted(ts.unknown_cost, ts.n_bases, ts.cost_known, ts.accepted)
            AS baseline_cost_per_accepted,
        CASE WHEN c.newest_evidence IS NULL THEN NULL
             ELSE (epoch(c.as_of) - epoch(c.newest_evidence)) / 86400.0 END AS age_days,
        -- §5 evidence_drift "or the model/harness changed since": as for a comparison (080),
        -- the activity now runs on a harness none of the operations' attempts ran on.
        an.current_harness,
        coalesce(an.current_harness IS NOT NULL
                 AND NOT list_contains(c.harnesses, an.current_harness), false) AS harness_drift
    FROM c
    JOIN routes_activity_now an ON an.activity = c.activity
    JOIN routes_activity_routes er ON er.activity = c.activity AND er.route_key = c.entry_key
    LEFT JOIN routes_activity_routes tr ON tr.activity = c.activity AND tr.route_key = c.target_key
    LEFT JOIN target_stats ts ON ts.activity = c.activity AND ts.route_key = c.target_key
),
m AS (
    SELECT *,
        CASE WHEN cascade_basis = target_basis AND cascade_basis NOT IN ('unknown', 'mixed')
             THEN cascade_basis
             WHEN cascade_basis = 'unknown' OR target_basis IS NULL OR target_basis = 'unknown'
             THEN 'unknown' ELSE 'mixed' END AS cost_basis,
        -- Rates and intervals as written (routes_stat, 6 decimals), computed from the
        -- unrounded rates; the minimums judge the acceptance interval's width from the ends
        -- as written, as a comparison's (060) and the matrix's.
        routes_stat(acceptance_rate_raw) AS acceptance_rate,
        routes_stat(target_success_rate_raw) AS target_success_rate,
        routes_stat(routes_wilson_lo(acceptance_rate_raw, labelled_ops, z95)) AS acceptance_ci_low,
        routes_stat(routes_wilson_hi(acceptance_rate_raw, labelled_ops, z95)) AS acceptance_ci_high,
        routes_stat(routes_newcombe_lo(acceptance_rate_raw, labelled_ops, target_success_rate_raw,
                                       target_labelled, z95)) AS quality_ci_low,
        routes_stat(routes_newcombe_hi(acceptance_rate_raw, labelled_ops, target_success_rate_raw,
                                       target_labelled, z95)) AS quality_ci_high,
        -- the quality effect, from the unrounded rates as 060's effect (written by 090)
        routes_stat(acceptance_rate_raw - target_success_rate_raw) AS quality_effect,
        (newest_evidence IS NULL OR routes_cmp(age_days) > freshness_days) AS stale,
        -- No time that counts, but a time: every dated attempt is after the as-of date (010)
        newest_evidence IS NULL AND dated > 0 AS dated_after_as_of
    FROM b
),
n AS (
    SELECT *,
        CASE WHEN cost_basis NOT IN ('unknown', 'mixed')
             THEN baseline_cost_per_accepted - cascade_cost_per_accepted END AS net_saving_per_accepted,
        CASE WHEN cost_basis NOT IN ('unknown', 'mixed')
             THEN baseline_cost_per_accepted - cheap_only_cost_per_accepted END AS gross_saving_per_accepted,
        CASE WHEN cost_basis NOT IN ('unknown', 'mixed')
             THEN cascade_cost_per_accepted - cheap_only_cost_per_accepted END AS escalation_tax_per_accepted,
        coalesce(routes_cmp(quality_ci_low) >= -tolerance, false) AS quality_bar_kept,
        (labelled_ops >= min_labelled_per_route
         AND routes_cmp(acceptance_ci_high - acceptance_ci_low) <= max_ci_width) IS TRUE AS meets_minimums
    FROM m
    WHERE target_key IS NOT NULL
)
SELECT *,
    net_saving_per_accepted * accepted_ops AS net_total,
    -- A saving claims the quality bar kept ("keeping the quality bar", §4's proven
    -- language): proven only when it is shown (quality_bar_kept), else insufficient,
    -- "No recommendation yet". An escalation tax claims no quality.
    CASE WHEN meets_minimums AND net_saving_per_accepted IS NOT NULL AND NOT stale
              AND (routes_cmp(net_saving_per_accepted) <= 0 OR quality_bar_kept)
         THEN 'proven' ELSE 'insufficient' END AS grade,
    CASE WHEN meets_minimums AND net_saving_per_accepted IS NOT NULL
              AND (routes_cmp(net_saving_per_accepted) <= 0 OR quality_bar_kept)
         THEN 'proven' ELSE 'insufficient' END AS evidence_grade,
    CASE
        WHEN net_saving_per_accepted IS NULL THEN NULL
        WHEN routes_cmp(net_saving_per_accepted) > 0 THEN 'cascade_working'
        WHEN routes_cmp(net_saving_per_accepted) <= 0 AND (escalated_ops > 0 OR retried_ops > 0)
             AND coalesce(routes_cmp(gross_saving_per_accepted) > 0, true)
            THEN 'escalation_tax'
    END AS would_be_type,
    list_filter([
        CASE WHEN labelled_ops < min_labelled_per_route
             THEN 'labelled operations ' || labelled_ops || ' (minimum ' || min_labelled_per_route || ')' END,
        CASE WHEN routes_cmp(acceptance_ci_high - acceptance_ci_low) > max_ci_width
             THEN 'acceptance 95% CI width '
                  || routes_num_vs(acceptance_ci_high - acceptance_ci_low, max_ci_width, 3)
                  || ' exceeds max_ci_width '
                  || routes_num_vs(max_ci_width, acceptance_ci_high - acceptance_ci_low, 3) END,
        CASE WHEN attempt_unknown_ops > 0
             THEN 'cost unknown for some attempts (' || attempt_unknown_ops || ' of '
                  || routes_count(operations, 'operation', 'operations') || '): No $ claimed' END,
        CASE WHEN target_episodes IS NULL
             THEN 'baseline unknown: no ' || coalesce(rs_shown(target_model), 'unknown model')
                  || ' episode of this activity ran other than as a cascade''s follow-up, '
                  || 'so what it costs run directly is not in the input: No $ claimed' END,
        CASE WHEN target_episodes IS NOT NULL AND target_basis = 'unknown'
             THEN 'baseline unknown: ' || coalesce(target_unknown_cost, 0) || ' of '
                  || coalesce(target_episodes, 0) || ' ' || coalesce(rs_shown(target_model), 'unknown model')
                  || ' episodes have an unknown total cost (their cost unknown, an escalation '
                  || 'follow-up not in the input, or not saying whether they escalated): '
                  || 'No $ claimed' END,
        CASE WHEN follow_up_missing_ops > 0
             THEN follow_up_missing_ops || ' of ' || routes_count(operations, 'operation', 'operations')
                  || ' escalated with no '
                  || 'follow-up attempt in the input (same runId, task fingerprint and toModel): '
                  || 'their cost is unknown (an escalation is never priced at 0): No $ claimed' END,
        CASE WHEN final_unreported_ops > 0
             THEN final_unreported_ops || ' of ' || routes_count(operations, 'operation', 'operations')
                  || ' end on an attempt '
                  || 'that does not say whether it escalated (a follow-up it may have had is not in '
                  || 'the input): their cost is unknown (never priced at 0): No $ claimed' END,
        CASE WHEN cost_basis = 'mixed' THEN 'cost bases differ (never added together): No $ claimed' END,
        CASE WHEN cost_basis NOT IN ('unknown', 'mixed') AND net_saving_per_accepted IS NULL
             THEN 'no accepted operation or no accepted baseline outcome to price' END,
        CASE WHEN NOT quality_bar_kept AND quality_ci_low IS NULL
                  AND coalesce(routes_cmp(net_saving_per_accepted) > 0, true)
             THEN 'acceptance not compared with the target route (no labelled outcome on one '
                  || 'side): the quality bar is not shown kept' END,
        CASE WHEN NOT quality_bar_kept AND quality_ci_low IS NOT NULL
                  AND coalesce(routes_cmp(net_saving_per_accepted) > 0, true)
             THEN 'acceptance not shown within the tolerance of the target route (lower bound '
                  || routes_signed_vs(quality_ci_low, -tolerance) || ' below -tolerance -'
                  || routes_num_vs(tolerance, -quality_ci_low, 3) || ')' END,
        CASE WHEN newest_evidence IS NULL
             THEN CASE WHEN dated_after_as_of THEN 'no evidence dated on or before the as-of date'
                       ELSE 'no evidence timestamp' END
                  || ': freshness unknown, treated as stale' END,
        CASE WHEN routes_cmp(age_days) > freshness_days
             THEN 'stale: newest evidence ' || strftime(newest_evidence, '%Y-%m-%d') || ' is '
                  || routes_age_days(age_days) || ' old (freshness_days '
                  || freshness_days || ')' END,
        CASE WHEN harness_drift
             THEN 'harness changed since: the activity now runs on ' || rs_shown(current_harness)
                  || ', absent from the evidence' END,
        -- "escalations and retries erase the saving" (§5): a first attempt that alone costs no
        -- less than the target directly has no saving to erase; the loss is not the tax's.
        CASE WHEN routes_cmp(net_saving_per_accepted) <= 0 AND (escalated_ops > 0 OR retried_ops > 0)
                  AND routes_cmp(gross_saving_per_accepted) <= 0
             THEN 'no saving for escalations and retries to erase: first-attempt successes alone '
                  || 'cost ' || routes_usd(cheap_only_cost_per_accepted) || ' per accepted '
                  || 'operation, no less than ' || rs_shown(target_model) || ' directly ('
                  || routes_usd(baseline_cost_per_accepted) || '); no escalation tax claimed' END,
        CASE WHEN routes_cmp(net_saving_per_accepted) <= 0 AND escalated_ops = 0 AND retried_ops = 0
                  AND (escalation_reported_ops < operations OR retry_reported_ops < operations)
             THEN 'no saving, and no escalation or retry reported (escalation reported by '
                  || escalation_reported_ops || ', retries by ' || retry_reported_ops || ' of '
                  || routes_count(operations, 'operation', 'operations') || '): no escalation tax claimed' END
    ], lambda x: x IS NOT NULL) AS reasons,
    CASE
        WHEN net_saving_per_accepted IS NULL THEN NULL
        WHEN routes_cmp(net_saving_per_accepted) > 0
            THEN CASE WHEN stale OR harness_drift THEN 'evidence_drift' ELSE 'cascade_working' END
        WHEN routes_cmp(net_saving_per_accepted) <= 0 AND (escalated_ops > 0 OR retried_ops > 0)
             AND coalesce(routes_cmp(gross_saving_per_accepted) > 0, true)
            THEN CASE WHEN stale OR harness_drift THEN 'evidence_drift' ELSE 'escalation_tax' END
    END AS finding_type
FROM n;
