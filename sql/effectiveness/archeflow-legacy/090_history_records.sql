-- archeflow-legacy · 090 history records and diagnostics        spec: effectiveness.md §4, §8
-- Reads:    run_scores (080), run_status and run_ts_warnings (010), seq_warnings (020);
--           bind parameter $scored_at (UTC ISO-8601 string).
-- Produces: history_records — one row per (scored run, review archetype), columns in the
--           history line's order: ArcheFlow's 15 fields with its scorer's values, then
--           scoring_version 'archeflow-legacy', run_ts, cost_basis, cost_efficiency_norm,
--           findings_contradicted (NULL: the legacy accuracy counts approving verdicts,
--           not contradicted findings), events_sha256, source;
--           event_warnings (run_id, file, line, reason).
-- history_records is not TEMP: the extract's result reads it through another connection
-- (ExtractResult.records), which sees no TEMP table (score_runs failed: "_rs_records does
-- not exist").
CREATE OR REPLACE TABLE history_records AS
SELECT $scored_at::VARCHAR AS ts,
       r.run_id, r.archetype, r.signal_to_noise, r.fix_rate, r.cost_efficiency, r.accuracy,
       r.cycle_impact, r.composite_score, r.tokens, r.cost_usd, r.model,
       r.findings_total, r.findings_useful, r.fixes_applied,
       'archeflow-legacy' AS scoring_version,
       s.run_ts, r.cost_basis, r.cost_efficiency_norm,
       NULL::BIGINT AS findings_contradicted,
       s.events_sha256, s.source
FROM run_scores r
JOIN run_status s USING (run_id)
ORDER BY s.first_ord, r.archetype;

CREATE OR REPLACE TEMP TABLE event_warnings AS
SELECT run_id, file, line, reason FROM seq_warnings
UNION ALL SELECT run_id, file, line, reason FROM run_ts_warnings;
