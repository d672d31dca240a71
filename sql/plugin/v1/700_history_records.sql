-- plugin/v1 · 700 history records                                    spec: plugin-eval.md §8
-- Reads:    plugin_report, plugin_features, plugin_links, plugin_xrefs, plugin_judge_lines,
--           plugin_mc_runs, plugin_matchups, $scored_at (UTC ISO-8601 time of this run).
-- Produces: plugin_history_records (seq, record) — one record per scored skill, the line
--             written to .archeflow/memory/plugins.jsonl. `content_hash` identifies what was
--             scored: SHA-256 over the SKILL.md bytes' hash, what the static layer reads
--             from the skill's folder besides them (folder name, references/ and assets/
--             and their file counts, which links and cross-references resolve), and the
--             judge, Monte Carlo and matchup evidence accepted for the skill (in input
--             order), so re-scoring the same skill with the same evidence is recognised,
--             and a change to any of it is recorded.
CREATE OR REPLACE TEMP TABLE plugin_history_records AS
WITH evidence AS (
    SELECT sid, string_agg(e, chr(10) ORDER BY src, o) AS evidence FROM (
        SELECT f.skill_md AS sid, 0 AS src, 0 AS o,
               to_json({'folder': f.folder,
                        'references': f.has_references_dir, 'reference_files': f.reference_files,
                        'assets': f.has_assets_dir, 'asset_files': f.asset_files,
                        'links': (SELECT list(l.exists ORDER BY l.ord) FROM plugin_links l
                                  WHERE l.skill_md = f.skill_md),
                        'xrefs': (SELECT list(x.exists ORDER BY x.ord) FROM plugin_xrefs x
                                  WHERE x.skill_md = f.skill_md)})::VARCHAR AS e
        FROM plugin_features f
        UNION ALL
        SELECT sid, 1 AS src, _ord AS o,
               to_json({'judge': judge, 'scores': scores})::VARCHAR AS e
        FROM plugin_judge_lines
        UNION ALL
        SELECT sid, 2, _ord,
               to_json({'activated': activated, 'errored': errored, 'quality': quality,
                        'tokens': tokens})::VARCHAR
        FROM plugin_mc_runs
        UNION ALL
        SELECT sid, 3, _ord, to_json({'opponent': opponent, 'rb': rb, 's': s})::VARCHAR
        FROM plugin_matchups
    ) GROUP BY sid
)
SELECT r.seq, {
    'scoring_version': r.scoring_version,
    'skill': r.skill,
    'name': r.name,
    'path': r.path,
    'content_hash': sha256(r.content_sha256 || chr(10) || coalesce(ev.evidence, '')),
    'skill_md_sha256': r.content_sha256,
    'scored_at': $scored_at,
    'depth': r.depth,
    'confidence': r.confidence,
    'composite': r.composite,
    'grade': r.grade,
    'badge': r.badge,
    'static_score': r.static.score,
    'penalty': r.static.penalty,
    'sub_scores': r.static.sub_scores,
    'flags': list_transform(r.anti_patterns, lambda a: a.flag),
    'dimensions': {
        'triggering_accuracy': r.dimensions.triggering_accuracy.score,
        'orchestration_fitness': r.dimensions.orchestration_fitness.score,
        'output_quality': r.dimensions.output_quality.score,
        'scope_calibration': r.dimensions.scope_calibration.score,
        'progressive_disclosure': r.dimensions.progressive_disclosure.score,
        'token_efficiency': r.dimensions.token_efficiency.score,
        'robustness': r.dimensions.robustness.score,
        'structural_completeness': r.dimensions.structural_completeness.score,
        'code_template_quality': r.dimensions.code_template_quality.score,
        'ecosystem_coherence': r.dimensions.ecosystem_coherence.score
    },
    'elo': r.elo.rating,
    'elo_ci_low': r.elo.ci_low,
    'elo_ci_high': r.elo.ci_high,
    'mc_score': r.mc.mc_score,
    'judges': r.judges.count,
    'kappa': r.judges.kappa
} AS record
FROM plugin_report r
LEFT JOIN evidence ev ON ev.sid = r.sid
ORDER BY r.seq;
