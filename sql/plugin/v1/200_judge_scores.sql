-- plugin/v1 · 200 judge results                                   spec: plugin-eval.md §1, §5
-- Reads:    plugin_judge_in (_file, _line, _ord, skill, judge, scores: JSON), plugin_key_map,
--           plugin_dimensions (judge_feeds: the four judged dimensions).
--           common/v1's rs_quote (a judge, key or value in a message, as every pack
--           quotes it).
-- Produces: plugin_judge_lines (sid, judge, _file, _line, _ord) — the accepted lines; when a
--             judge scores the same skill twice the later line wins (the earlier one is
--             reported);
--           plugin_judge_scores (sid, judge, judge_ord, dimension, dim_ord, score) — one row per
--             measured score (numeric and within [0, 1]); missing, null or non-numeric scores
--             are unmeasured (no row); non-numeric ones ("0.8", true, a list: the value's
--             JSON cut at 40 characters), out-of-range numbers (the value) and numbers too
--             large for a double (1e400: not a finite number) are also reported;
--           plugin_judge_dims (sid, dimension, score, judges) — the mean over judges per
--             dimension (Python sum() / count, judges in input order);
--           plugin_judge_count (sid, judges) — judges with an accepted line per skill;
--           rows appended to plugin_input_issues;
--           rows appended to plugin_input_warnings: a score key of an accepted line that no
--             judged dimension takes (a typo, or a dimension §5 does not let judges feed,
--             such as robustness) is ignored, and said so once per file and key, at its
--             first line (a judge that writes "overall" on every line warns once).
CREATE OR REPLACE TEMP TABLE plugin_judge_checked AS
SELECT j.*, m.sid,
       coalesce(
           plugin_skill_problem(j.skill, m.candidates),
           CASE WHEN j.judge IS NULL OR json_type(j.judge) = 'NULL' THEN 'missing judge'
                WHEN json_type(j.judge) <> 'VARCHAR' THEN 'judge is not a string'
                WHEN j.judge ->> '$' = '' THEN 'judge is empty' END,
           CASE WHEN j.scores IS NULL OR json_type(j.scores) = 'NULL' THEN 'missing scores'
                WHEN json_type(j.scores) <> 'OBJECT' THEN 'scores is not an object' END
       ) AS problem
FROM plugin_judge_in j
LEFT JOIN plugin_key_map m ON m.key = j.skill ->> '$' AND json_type(j.skill) = 'VARCHAR';

CREATE OR REPLACE TEMP TABLE plugin_judge_lines AS
WITH ok AS (
    SELECT sid, judge ->> '$' AS judge, scores, _file, _line, _ord,
           row_number() OVER (PARTITION BY sid, judge ->> '$' ORDER BY _ord DESC) AS newest
    FROM plugin_judge_checked WHERE problem IS NULL
)
SELECT sid, judge, scores, _file, _line, _ord FROM ok WHERE newest = 1;

INSERT INTO plugin_input_issues
SELECT _file, _line, problem FROM plugin_judge_checked WHERE problem IS NOT NULL
UNION ALL
SELECT c._file, c._line,
       'judge ' || rs_quote(to_json(c.judge ->> '$')) || ' scored this skill again later; this line is ignored'
FROM plugin_judge_checked c
WHERE c.problem IS NULL
  AND NOT EXISTS (SELECT 1 FROM plugin_judge_lines l WHERE l._ord = c._ord);

INSERT INTO plugin_input_warnings
WITH ignored AS (
    SELECT l._file, l._line, k.key
    FROM plugin_judge_lines l, unnest(json_keys(l.scores)) AS k(key)
    WHERE k.key NOT IN (SELECT dimension FROM plugin_dimensions WHERE judge_feeds)
), judged AS (
    SELECT list(dimension ORDER BY ord) AS dims FROM plugin_dimensions WHERE judge_feeds
)
SELECT i._file, min(i._line),
       format('scores.{} ignored{}: judges score only {} and {}',
              -- a key as a path names it (scores.clarity), any other quoted as every
              -- value is, so that a long one is cut too
              CASE WHEN regexp_full_match(i.key, '[A-Za-z_][A-Za-z0-9_]{0,77}') THEN i.key
                   ELSE rs_quote(to_json(i.key)) END,
              CASE WHEN count(DISTINCT i._line) > 1
                   THEN format(' (on {} lines of this file, the first here)',
                               count(DISTINCT i._line)) ELSE '' END,
              array_to_string(j.dims[:-2], ', '), j.dims[-1])
FROM ignored i, judged j
GROUP BY i._file, i.key, j.dims;

CREATE OR REPLACE TEMP TABLE plugin_judge_values AS
SELECT l.sid, l.judge, l._file, l._line, l._ord, d.dimension, d.ord AS dim_ord,
       json_type(l.scores, '$.' || d.dimension) AS vtype,
       json_extract(l.scores, '$.' || d.dimension)::VARCHAR AS vjson,
       TRY_CAST(json_extract(l.scores, '$.' || d.dimension) AS DOUBLE) AS value
FROM plugin_judge_lines l CROSS JOIN plugin_dimensions d
WHERE d.judge_feeds;

INSERT INTO plugin_input_issues
SELECT _file, _line,
       -- 1e400 is JSON, but a double takes it as infinity: worded as a matchup's
       -- opponent_elo and a Monte Carlo run's numbers are, not "= inf is outside [0, 1]".
       -- The value as the input writes it (8, not the double's 8.0), as every message
       -- quotes one: a judge scoring 0-10 reads its own number back.
       CASE WHEN isfinite(value)
            THEN format('scores.{} = {} is outside [0, 1]; treated as unmeasured', dimension,
                        rs_quote(vjson))
            ELSE format('scores.{} is not a finite number; treated as unmeasured', dimension)
       END
FROM plugin_judge_values
WHERE vtype IN ('DOUBLE', 'BIGINT', 'UBIGINT') AND NOT (value BETWEEN 0 AND 1)
UNION ALL
-- Unmeasured as §1 says, but a judge that wrote "0.8" or "4" meant a score: say so, or the
-- dimension drops out of the blend without a word.
SELECT _file, _line,
       format('scores.{} = {} is not a number; treated as unmeasured', dimension,
              rs_quote(vjson))
FROM plugin_judge_values
WHERE vtype NOT IN ('DOUBLE', 'BIGINT', 'UBIGINT', 'NULL');

CREATE OR REPLACE TEMP TABLE plugin_judge_scores AS
SELECT sid, judge, _ord AS judge_ord, dimension, dim_ord, value AS score
FROM plugin_judge_values
WHERE vtype IN ('DOUBLE', 'BIGINT', 'UBIGINT') AND value BETWEEN 0 AND 1;

CREATE OR REPLACE TEMP TABLE plugin_judge_dims AS
SELECT sid, dimension,
       plugin_fsum(list(score ORDER BY judge_ord)) / count(*)::DOUBLE AS score,
       count(*) AS judges
FROM plugin_judge_scores
GROUP BY sid, dimension;

CREATE OR REPLACE TEMP TABLE plugin_judge_count AS
SELECT sid, count(*) AS judges FROM plugin_judge_lines GROUP BY sid;
