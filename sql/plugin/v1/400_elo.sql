-- plugin/v1 · 400 Elo from pairwise matchups                          spec: plugin-eval.md §7
-- Reads:    plugin_matchups_in (_file, _line, _ord, skill, opponent, opponent_elo, result:
--           JSON), plugin_key_map, plugin_features, plugin_params.
-- Produces: plugin_matchups (sid, _ord, opponent, rb, s) — accepted matchups in file order;
--             `opponent_elo` must be a finite number, `result` one of win / draw / loss (→ 1 / 0.5 / 0);
--           plugin_elo (sid, matchups, rating, ci_low, ci_high) — rating from elo_start with
--             K = elo_k against the fixed opponent ratings, in file order:
--             E = 1 / (1 + 10^((Rb − Ra) / 400)), Ra ← Ra + K (S − E).
--             95% interval: boot_resamples bootstrap resamples (with replacement, same size)
--             of the skill's matchup list, each rated in resample order; the sorted ratings at
--             0-based indices boot_low_index and boot_high_index. Resample i of bootstrap b
--             draws matchup md5_number(boot_seed|skill|b|i) mod n (skill = path relative to its
--             root). Fewer than 2 matchups → the point estimate for both ends;
--           rows appended to plugin_input_issues.
CREATE OR REPLACE TEMP TABLE plugin_matchups_checked AS
SELECT r.*, m.sid,
       coalesce(
           plugin_skill_problem(r.skill, m.candidates),
           CASE WHEN r.opponent_elo IS NULL OR json_type(r.opponent_elo) = 'NULL'
                    THEN 'missing opponent_elo'
                WHEN json_type(r.opponent_elo) NOT IN ('DOUBLE', 'BIGINT', 'UBIGINT')
                    THEN 'opponent_elo is not a number'
                -- 1e400 is JSON, but a double takes it as infinity
                WHEN NOT isfinite(r.opponent_elo::DOUBLE)
                    THEN 'opponent_elo is not a finite number' END,
           CASE WHEN r.result IS NULL OR json_type(r.result) = 'NULL' THEN 'missing result'
                WHEN json_type(r.result) <> 'VARCHAR'
                  OR lower(trim(r.result ->> '$')) NOT IN ('win', 'draw', 'loss')
                    THEN 'result is not one of win, draw, loss' END
       ) AS problem
FROM plugin_matchups_in r
LEFT JOIN plugin_key_map m ON m.key = r.skill ->> '$' AND json_type(r.skill) = 'VARCHAR';

INSERT INTO plugin_input_issues
SELECT _file, _line, problem FROM plugin_matchups_checked WHERE problem IS NOT NULL;

CREATE OR REPLACE TEMP TABLE plugin_matchups AS
SELECT sid, _ord,
       CASE WHEN json_type(opponent) = 'VARCHAR' THEN opponent ->> '$' END AS opponent,
       opponent_elo::DOUBLE AS rb,
       CASE lower(trim(result ->> '$')) WHEN 'win' THEN 1.0::DOUBLE
                                        WHEN 'draw' THEN 0.5::DOUBLE
                                        ELSE 0.0::DOUBLE END AS s
FROM plugin_matchups_checked
WHERE problem IS NULL;

CREATE OR REPLACE TEMP MACRO plugin_elo_run(ms, start, k, scale) AS
    list_reduce(
        ms,
        lambda ra, m: ra + k * (m.s - 1.0 / (1.0 + pow(10.0, (m.rb - ra) / scale))),
        start
    );

CREATE OR REPLACE TEMP TABLE plugin_elo AS
WITH lists AS (
    SELECT m.sid, f.skill, list({'rb': m.rb, 's': m.s} ORDER BY m._ord) AS ms
    FROM plugin_matchups m JOIN plugin_features f ON f.skill_md = m.sid
    GROUP BY m.sid, f.skill
), boot AS (
    SELECT l.sid, b.b,
           plugin_elo_run(
               list_transform(
                   range(len(l.ms)),
                   lambda i: l.ms[(md5_number(concat_ws('|', p.boot_seed, l.skill, b.b, i))
                                   % len(l.ms)::UHUGEINT)::BIGINT + 1]),
               p.elo_start, p.elo_k, p.elo_scale) AS rating
    FROM lists l
    CROSS JOIN plugin_params p
    CROSS JOIN LATERAL range(p.boot_resamples) AS b(b)
    WHERE len(l.ms) >= 2
), ci AS (
    SELECT b.sid,
           list_sort(list(b.rating))[p.boot_low_index + 1] AS ci_low,
           list_sort(list(b.rating))[p.boot_high_index + 1] AS ci_high
    FROM boot b CROSS JOIN plugin_params p
    GROUP BY b.sid, p.boot_low_index, p.boot_high_index
)
SELECT l.sid, len(l.ms) AS matchups,
       plugin_elo_run(l.ms, p.elo_start, p.elo_k, p.elo_scale) AS rating,
       coalesce(ci.ci_low, plugin_elo_run(l.ms, p.elo_start, p.elo_k, p.elo_scale)) AS ci_low,
       coalesce(ci.ci_high, plugin_elo_run(l.ms, p.elo_start, p.elo_k, p.elo_scale)) AS ci_high
FROM lists l CROSS JOIN plugin_params p LEFT JOIN ci USING (sid);
