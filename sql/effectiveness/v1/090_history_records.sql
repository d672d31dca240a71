-- effectiveness/v1 · 090 history records and diagnostics        spec: effectiveness.md §4
-- Reads:    run_scores (080), run_status and run_ts_warnings (015), edge_warnings (020),
--           fix_warnings (040), cost_warnings (050), events (010: a verdict's data.cycle
--           and findings and a boundary's data.met of the wrong kind, which 030 and 080 ignore, and
--           names that are not strings, which 000 ignores); bind
--           parameter $scored_at (UTC ISO-8601 string).
-- Produces: history_records — one row per (scored run, review archetype), columns in the
--           history line's order: the 15 ArcheFlow fields, then the v1 fields;
--           event_warnings (run_id, file, line, reason) over every scored/incomplete run.
CREATE OR REPLACE TABLE history_records AS
SELECT $scored_at::VARCHAR AS ts,
       r.run_id, r.archetype, r.signal_to_noise::DOUBLE AS signal_to_noise,
       r.fix_rate::DOUBLE AS fix_rate, r.cost_efficiency::DOUBLE AS cost_efficiency,
       r.accuracy::DOUBLE AS accuracy, r.cycle_impact,
       r.composite_score::DOUBLE AS composite_score, TRY_CAST(round(r.tokens) AS BIGINT) AS tokens,
       r.cost_usd::DOUBLE AS cost_usd, r.model,
       r.findings_total::BIGINT AS findings_total, r.findings_useful::BIGINT AS findings_useful,
       r.fixes_applied::BIGINT AS fixes_applied,
       'effectiveness/v1' AS scoring_version,
       s.run_ts, r.cost_basis, r.cost_efficiency_norm::DOUBLE AS cost_efficiency_norm,
       r.findings_contradicted::BIGINT AS findings_contradicted,
       s.events_sha256, s.source
FROM run_scores r
JOIN run_status s USING (run_id)
ORDER BY s.first_ord, r.archetype;

CREATE OR REPLACE TABLE event_warnings AS
SELECT run_id, file, line, reason FROM edge_warnings
UNION ALL SELECT run_id, file, line, reason FROM fix_warnings
UNION ALL SELECT run_id, file, line, reason FROM cost_warnings
UNION ALL SELECT run_id, file, line, reason FROM run_ts_warnings
-- Found here, not in tables of their own beside 030 and 080: two more statements cost an
-- incremental extract of 100 runs ~10 ms of planning, for rows that are nearly always none.
UNION ALL SELECT run_id, _file, _line, 'cycle ignored: not an integer that fits' FROM events
          WHERE type = 'review.verdict' AND cycle_bad
UNION ALL SELECT run_id, _file, _line, 'findings ignored: not a list' FROM events
          WHERE type = 'review.verdict' AND findings_bad
UNION ALL SELECT run_id, _file, _line, 'met ignored: not true or false' FROM events
          WHERE type = 'cycle.boundary' AND met IS NULL
-- a name given but not as a string (000's names_bad): the next in line named the archetype
UNION ALL SELECT run_id, _file, _line, unnest(names_bad) || ' ignored: not a string' FROM events
          WHERE names_bad IS NOT NULL;
