-- plugin/v1 · 600 per-skill report and ranking                       spec: plugin-eval.md §8
-- Reads:    plugin_features, plugin_static, plugin_static_sub, plugin_anti, plugin_dims,
--           plugin_composite, plugin_elo, plugin_mc, plugin_judge_count, plugin_judge_kappa,
--           plugin_tips, plugin_params.
-- Produces: plugin_report — one row per skill in discovery order (seq), the JSON contract:
--             skill, name, path, static {score, sub_scores {7 sub-checks}, penalty, flags},
--             anti_patterns [{flag, target, line, evidence}], dimensions {10 × {score, grade}
--             or NULL when unmeasured}, depth, confidence, composite, grade, badge,
--             elo {rating, ci_low, ci_high, matchups} or NULL, mc {§6 statistics} or NULL,
--             judges {count, kappa, pairs} or NULL, tips [{dimension, score, weight, tip}],
--             line_count, content_sha256, scoring_version;
--           plugin_ranking (rank, skill, name, path, composite, grade, badge, elo, elo_ci_low,
--             elo_ci_high, depth, confidence, flags, sid) — ordered by composite (rounded to 6
--             decimals) descending, then Elo (likewise) descending (unknown last), then skill
--             path. Skills that tie on both share a rank (1, 1, 3): the path only lists them
--             in a fixed order, it does not place one above the other.
CREATE OR REPLACE TEMP TABLE plugin_report AS
WITH dims AS (
    SELECT sid,
        {
          'triggering_accuracy':     first(g) FILTER (WHERE dimension = 'triggering_accuracy'),
          'orchestration_fitness':   first(g) FILTER (WHERE dimension = 'orchestration_fitness'),
          'output_quality':          first(g) FILTER (WHERE dimension = 'output_quality'),
          'scope_calibration':       first(g) FILTER (WHERE dimension = 'scope_calibration'),
          'progressive_disclosure':  first(g) FILTER (WHERE dimension = 'progressive_disclosure'),
          'token_efficiency':        first(g) FILTER (WHERE dimension = 'token_efficiency'),
          'robustness':              first(g) FILTER (WHERE dimension = 'robustness'),
          'structural_completeness': first(g) FILTER (WHERE dimension = 'structural_completeness'),
          'code_template_quality':   first(g) FILTER (WHERE dimension = 'code_template_quality'),
          'ecosystem_coherence':     first(g) FILTER (WHERE dimension = 'ecosystem_coherence')
        } AS dimensions
    FROM (
        SELECT sid, dimension,
               -- The score is compared at 6 decimals of its own 0–1 scale (spec README), as
               -- the report writes it beside its grade: 0.8999999 is 0.90, an A-, not a B+
               -- (8 decimals, had the × 100 come first).
               CASE WHEN score IS NOT NULL
                    THEN {'score': score, 'grade': plugin_grade(plugin_cmp(score) * 100.0)} END
                   AS g
        FROM plugin_dims
    )
    GROUP BY sid
), flags AS (
    SELECT sid, list({'flag': flag, 'target': target, 'line': line, 'evidence': evidence}
                     ORDER BY flag_ord, ord) AS anti_patterns
    FROM plugin_anti GROUP BY sid
), tips AS (
    SELECT sid, list({'dimension': dimension, 'score': score, 'weight': weight, 'tip': tip}
                     ORDER BY rank) AS tips
    FROM plugin_tips GROUP BY sid
)
SELECT
    f.skill, f.name, f.path,
    {
      'score': st.score,
      'sub_scores': {
        'frontmatter_quality': ss.frontmatter_quality,
        'orchestration_wiring': ss.orchestration_wiring,
        'progressive_disclosure': ss.progressive_disclosure,
        'structural_completeness': ss.structural_completeness,
        'token_efficiency': ss.token_efficiency,
        'ecosystem_coherence': ss.ecosystem_coherence,
        'harness_portability': ss.harness_portability
      },
      'penalty': st.penalty,
      'flags': st.flags
    } AS static,
    coalesce(a.anti_patterns, []) AS anti_patterns,
    d.dimensions,
    c.depth, c.confidence, c.composite, c.grade, c.badge,
    CASE WHEN e.sid IS NOT NULL
         THEN {'rating': e.rating, 'ci_low': e.ci_low, 'ci_high': e.ci_high,
               'matchups': e.matchups} END AS elo,
    CASE WHEN mc.sid IS NOT NULL THEN {
        'n': mc.n, 'activated': mc.n_activated, 'activation_rate': mc.activation_rate,
        'activation_ci_low': mc.activation_ci_low, 'activation_ci_high': mc.activation_ci_high,
        'quality_n': mc.quality_n, 'mean_quality': mc.mean_quality,
        'std_quality': mc.std_quality, 'cv': mc.cv, 'cv_rule': mc.cv_rule,
        'errored': mc.n_errored, 'failure_n': mc.failure_n, 'failure_rate': mc.failure_rate,
        'failure_ci_low': mc.failure_ci_low, 'failure_ci_high': mc.failure_ci_high,
        'tokens_n': mc.tokens_n, 'median_tokens': mc.median_tokens,
        'q1_tokens': mc.q1_tokens, 'q3_tokens': mc.q3_tokens, 'iqr_tokens': mc.iqr_tokens,
        'token_outliers': mc.token_outliers, 'efficiency_norm': mc.efficiency_norm,
        'mc_score': mc.mc_score
    } END AS mc,
    CASE WHEN jc.sid IS NOT NULL
         THEN {'count': jc.judges, 'kappa': jk.kappa, 'pairs': coalesce(jk.pairs, [])} END
        AS judges,
    coalesce(t.tips, []) AS tips,
    f.line_count, f.content_sha256, p.scoring_version,
    f.seq, f.skill_md AS sid
FROM plugin_features f
CROSS JOIN plugin_params p
JOIN plugin_static st ON st.sid = f.skill_md
JOIN plugin_static_sub ss ON ss.sid = f.skill_md
JOIN dims d ON d.sid = f.skill_md
JOIN plugin_composite c ON c.sid = f.skill_md
LEFT JOIN flags a ON a.sid = f.skill_md
LEFT JOIN tips t ON t.sid = f.skill_md
LEFT JOIN plugin_elo e ON e.sid = f.skill_md
LEFT JOIN plugin_mc mc ON mc.sid = f.skill_md
LEFT JOIN plugin_judge_count jc ON jc.sid = f.skill_md
LEFT JOIN plugin_judge_kappa jk ON jk.sid = f.skill_md
ORDER BY f.seq;

CREATE OR REPLACE TEMP TABLE plugin_ranking AS
SELECT rank() OVER (
           ORDER BY plugin_cmp(composite) DESC, plugin_cmp(elo.rating) DESC NULLS LAST
       ) AS rank,
       skill, name, path, composite, grade, badge, elo.rating AS elo,
       elo.ci_low AS elo_ci_low, elo.ci_high AS elo_ci_high,
       depth, confidence, static.flags AS flags, sid
FROM plugin_report
ORDER BY rank, skill, path;
