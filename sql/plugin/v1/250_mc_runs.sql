-- plugin/v1 · 250 Monte Carlo runs                                spec: plugin-eval.md §1, §6
-- Reads:    plugin_mc_in (_file, _line, _ord, skill, activated, quality_score, tokens, errored:
--           JSON), plugin_key_map.
-- Produces: plugin_mc_runs (sid, _ord, activated, errored, quality, tokens) — one row per
--             accepted run. `activated` must be a boolean; `errored` a boolean, or
--             absent/null (NULL: unknown — the run is counted neither as errored nor as
--             not, so it is in no failure count and, not known to have run cleanly, gives
--             no quality value and no token count; read as false, a file that never says
--             reported a failure rate of 0); `quality_score` a finite number in [0, 1] or
--             absent/null (no quality value); `tokens` a finite whole number ≥ 0 (a count:
--             1.5 is none) or absent/null (no token count). A bad optional field is
--             reported and read as absent; a bad skill or `activated` rejects the line.
--           plugin_mc_counts (sid, n, n_activated, n_errored, failure_n) — failure_n the
--             runs that said whether they errored, which the failure rate is over; the
--             counts the exact Clopper–Pearson interval needs (its beta quantiles are
--             computed in Python into plugin_cp before 300 runs);
--           rows appended to plugin_input_issues.
CREATE OR REPLACE TEMP TABLE plugin_mc_checked AS
SELECT r.*, m.sid,
       coalesce(
           plugin_skill_problem(r.skill, m.candidates),
           CASE WHEN r.activated IS NULL OR json_type(r.activated) = 'NULL' THEN 'missing activated'
                WHEN json_type(r.activated) <> 'BOOLEAN' THEN 'activated is not true/false' END
       ) AS problem,
       CASE WHEN r.errored IS NULL OR json_type(r.errored) = 'NULL' THEN NULL
            WHEN json_type(r.errored) <> 'BOOLEAN' THEN 'errored is not true/false; read as unknown'
       END AS errored_problem,
       CASE WHEN r.quality_score IS NULL OR json_type(r.quality_score) = 'NULL' THEN NULL
            WHEN json_type(r.quality_score) NOT IN ('DOUBLE', 'BIGINT', 'UBIGINT')
                THEN 'quality_score is not a number; read as absent'
            WHEN NOT isfinite(r.quality_score::DOUBLE)
                THEN 'quality_score is not a finite number; read as absent'
            WHEN NOT (r.quality_score::DOUBLE BETWEEN 0 AND 1)
                -- as the input writes it (85, not 85.0), as every message quotes a value
                THEN format('quality_score = {} is outside [0, 1]; read as absent',
                            rs_quote(r.quality_score::VARCHAR))
       END AS quality_problem,
       CASE WHEN r.tokens IS NULL OR json_type(r.tokens) = 'NULL' THEN NULL
            WHEN json_type(r.tokens) NOT IN ('DOUBLE', 'BIGINT', 'UBIGINT')
                THEN 'tokens is not a number; read as absent'
            -- 1e400 is JSON, but a double takes it as infinity
            WHEN NOT isfinite(r.tokens::DOUBLE) THEN 'tokens is not a finite number; read as absent'
            WHEN r.tokens::DOUBLE < 0 THEN 'tokens is negative; read as absent'
            -- a count: 1.5 is none (1500.0 and 1.5e3 are 1500)
            WHEN r.tokens::DOUBLE <> trunc(r.tokens::DOUBLE)
                THEN format('tokens = {} is not a whole number; read as absent',
                            rs_quote(r.tokens::VARCHAR))
       END AS tokens_problem
FROM plugin_mc_in r
LEFT JOIN plugin_key_map m ON m.key = r.skill ->> '$' AND json_type(r.skill) = 'VARCHAR';

INSERT INTO plugin_input_issues
SELECT _file, _line, problem FROM plugin_mc_checked WHERE problem IS NOT NULL
UNION ALL
SELECT _file, _line, unnest(list_filter([errored_problem, quality_problem, tokens_problem],
                                        lambda x: x IS NOT NULL))
FROM plugin_mc_checked
WHERE problem IS NULL
  AND (errored_problem IS NOT NULL OR quality_problem IS NOT NULL OR tokens_problem IS NOT NULL);

CREATE OR REPLACE TEMP TABLE plugin_mc_runs AS
SELECT sid, _ord,
       activated::BOOLEAN AS activated,
       CASE WHEN errored_problem IS NULL AND json_type(errored) = 'BOOLEAN'
            THEN errored::BOOLEAN END AS errored,
       CASE WHEN quality_problem IS NULL AND json_type(quality_score) <> 'NULL'
            THEN quality_score::DOUBLE END AS quality,
       CASE WHEN tokens_problem IS NULL AND json_type(tokens) <> 'NULL'
            THEN tokens::DOUBLE END AS tokens
FROM plugin_mc_checked
WHERE problem IS NULL;

CREATE OR REPLACE TEMP TABLE plugin_mc_counts AS
SELECT sid, count(*) AS n,
       count(*) FILTER (WHERE activated) AS n_activated,
       count(*) FILTER (WHERE errored) AS n_errored,
       count(errored) AS failure_n
FROM plugin_mc_runs
GROUP BY sid;
