-- plugin/v1 · 300 Monte Carlo statistics                             spec: plugin-eval.md §6
-- Reads:    plugin_mc_runs, plugin_mc_counts, plugin_cp (k, n, lower, upper: exact
--           Clopper–Pearson bounds at plugin_params.cp_confidence, from engine/stats.py),
--           plugin_params.
-- Produces: plugin_mc (sid, n, n_activated, activation_rate, activation_ci_low,
--             activation_ci_high, quality_n, mean_quality, std_quality, cv, cv_rule, n_errored,
--             failure_n, failure_rate, failure_ci_low, failure_ci_high, tokens_n, median_tokens, q1_tokens,
--             q3_tokens, iqr_tokens, token_outliers, efficiency_norm, mc_score) — one row per
--             skill with runs.
--   activation: activated / n with a Wilson interval (z = wilson_z), clamped to [0, 1];
--   quality values: quality of activated, non-errored runs; mean (NULL when there are none),
--     population std, cv = std / |mean| (0 when mean = 0 or ≤ 1 value; cv_rule says which
--     of the two made it 0, NULL when it was measured: a CV of 0 read as runs of one
--     quality each, where there were none or one);
--   failure: errored / failure_n (the runs that said whether they errored; 250) with the
--     exact interval; NULL (unknown, not 0) when no run said;
--   tokens of non-errored runs: median (finite for any finite counts), Q1 = sorted[n//4],
--     Q3 = sorted[min(3n//4, n−1)], outliers > Q3 + 1.5 IQR;
--     efficiency_norm = max(0, 1 − median / token_cap); NULL (unknown, not 0) when no
--     non-errored run reported a token count: every run errored (their tokens are not
--     counted, and the failure rate already holds the errors), or none said;
--   mc_score = clamp01(.40·activation + .30·(1 − min(1, cv)) + .20·(1 − failure)
--     + .10·efficiency_norm); when efficiency_norm or the failure rate is unknown, the
--     known terms over their weights' sum (.90 without efficiency), as the composite weighs
--     the measured dimensions (§5): the tokens feed only that tenth, so a score of runs that
--     say how they activated, how good and how reliable they were is not unknown for want
--     of a token count (it was NULL). cli/templates/plugin_skill.md.j2 says when it is so
--     weighed.
CREATE OR REPLACE TEMP TABLE plugin_mc AS
WITH lists AS (
    SELECT sid,
           list(quality ORDER BY _ord)
               FILTER (WHERE activated AND NOT errored AND quality IS NOT NULL) AS q,
           list_sort(list(tokens) FILTER (WHERE NOT errored AND tokens IS NOT NULL)) AS t
    FROM plugin_mc_runs GROUP BY sid
), moments AS (
    SELECT l.sid, coalesce(l.q, []) AS q, coalesce(l.t, []) AS t,
           CASE WHEN len(l.q) > 0 THEN plugin_fsum(l.q) / len(l.q)::DOUBLE END AS mean_quality
    FROM lists l
), spread AS (
    SELECT m.*,
           CASE WHEN len(q) > 1
                THEN sqrt(plugin_fsum(list_transform(q, lambda x: (x - mean_quality) * (x - mean_quality)))
                          / len(q)::DOUBLE)
                WHEN len(q) = 1 THEN 0.0::DOUBLE END AS std_quality,
           len(t) AS tn,
           CASE WHEN len(t) = 0 THEN NULL
                WHEN len(t) % 2 = 1 THEN t[len(t) // 2 + 1]
                -- Halving first only when the sum overflows (1e308 + 1e308): elsewhere
                -- it is the same number, and (a + b) / 2 is what PluginEval computes.
                WHEN isfinite(t[len(t) // 2] + t[len(t) // 2 + 1])
                    THEN (t[len(t) // 2] + t[len(t) // 2 + 1]) / 2.0
                ELSE t[len(t) // 2] / 2.0 + t[len(t) // 2 + 1] / 2.0 END AS median_tokens,
           CASE WHEN len(t) > 0 THEN t[len(t) // 4 + 1] END AS q1_tokens,
           CASE WHEN len(t) > 0 THEN t[least(3 * len(t) // 4, len(t) - 1) + 1] END AS q3_tokens
    FROM moments m
), stats AS (
    SELECT s.*, c.n, c.n_activated, c.n_errored, p.*,
           c.n_activated::DOUBLE / c.n AS activation_rate,
           c.failure_n,
           CASE WHEN c.failure_n > 0 THEN c.n_errored::DOUBLE / c.failure_n END AS failure_rate,
           CASE WHEN len(q) <= 1 OR mean_quality = 0 THEN 0.0::DOUBLE
                ELSE std_quality / abs(mean_quality) END AS cv,
           CASE WHEN len(q) <= 1 THEN 'fewer than 2 quality values'
                WHEN mean_quality = 0 THEN 'mean quality 0' END AS cv_rule,
           q3_tokens - q1_tokens AS iqr_tokens,
           CASE WHEN tn > 0 THEN greatest(0.0::DOUBLE, 1.0 - median_tokens / p.token_cap)
                END AS efficiency_norm
    FROM spread s JOIN plugin_mc_counts c USING (sid) CROSS JOIN plugin_params p
), wilson AS (
    SELECT st.*,
           1.0 + wilson_z * wilson_z / n AS w_den,
           (activation_rate + wilson_z * wilson_z / (2 * n)) / (1.0 + wilson_z * wilson_z / n)
               AS w_center
    FROM stats st
)
SELECT w.sid, w.n, w.n_activated, w.activation_rate,
       greatest(0.0::DOUBLE, w.w_center - (w.wilson_z / w.w_den)
           * sqrt(w.activation_rate * (1.0 - w.activation_rate) / w.n
                  + w.wilson_z * w.wilson_z / (4 * w.n * w.n))) AS activation_ci_low,
       least(1.0::DOUBLE, w.w_center + (w.wilson_z / w.w_den)
           * sqrt(w.activation_rate * (1.0 - w.activation_rate) / w.n
                  + w.wilson_z * w.wilson_z / (4 * w.n * w.n))) AS activation_ci_high,
       len(w.q) AS quality_n, w.mean_quality, w.std_quality, w.cv, w.cv_rule,
       w.n_errored, w.failure_n, w.failure_rate,
       cp.lower AS failure_ci_low, cp.upper AS failure_ci_high,
       w.tn AS tokens_n, w.median_tokens, w.q1_tokens, w.q3_tokens, w.iqr_tokens,
       CASE WHEN w.tn > 0
            THEN len(list_filter(w.t, lambda x: x > w.q3_tokens + w.outlier_iqr_factor * w.iqr_tokens))
       END AS token_outliers,
       w.efficiency_norm,
       plugin_clamp01(CASE
           WHEN w.efficiency_norm IS NOT NULL AND w.failure_rate IS NOT NULL
               THEN w.mc_w_activation * w.activation_rate
                    + w.mc_w_consistency * (1.0 - least(1.0::DOUBLE, w.cv))
                    + w.mc_w_reliability * (1.0 - w.failure_rate)
                    + w.mc_w_efficiency * w.efficiency_norm
           -- + 0.0 for an unknown term leaves the known sum as it was, bit for bit
           ELSE (w.mc_w_activation * w.activation_rate
                 + w.mc_w_consistency * (1.0 - least(1.0::DOUBLE, w.cv))
                 + coalesce(w.mc_w_reliability * (1.0 - w.failure_rate), 0.0)
                 + coalesce(w.mc_w_efficiency * w.efficiency_norm, 0.0))
                / (w.mc_w_activation + w.mc_w_consistency
                   + CASE WHEN w.failure_rate IS NOT NULL THEN w.mc_w_reliability ELSE 0.0 END
                   + CASE WHEN w.efficiency_norm IS NOT NULL THEN w.mc_w_efficiency ELSE 0.0 END)
       END) AS mc_score
FROM wilson w
LEFT JOIN plugin_cp cp ON cp.k = w.n_errored AND cp.n = w.failure_n;
