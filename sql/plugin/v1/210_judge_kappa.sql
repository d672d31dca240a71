-- plugin/v1 · 210 agreement between judges                            spec: plugin-eval.md §1
-- Reads:    plugin_judge_scores (sid, judge, dimension, score).
-- Produces: plugin_judge_pairs (sid, judge_a, judge_b, items, agree, p_observed, p_expected,
--             kappa) — Cohen's kappa for each pair of judges of a skill, over the dimensions
--             both scored, each score mapped to its anchor band (plugin_band):
--             kappa = (p_o − p_e) / (1 − p_e), and 1 when p_e = 1 (both judges put every
--             item in the same single band);
--           plugin_judge_kappa (sid, judges, kappa, pairs) — per skill with ≥ 2 judges: the
--             mean kappa over its pairs (NULL when no pair shares a scored dimension) and
--             the pairs themselves [{judge_a, judge_b, dimensions (items), kappa}].
CREATE OR REPLACE TEMP TABLE plugin_judge_pairs AS
WITH banded AS (
    SELECT sid, judge, dimension, plugin_band(score) AS band FROM plugin_judge_scores
), items AS (
    SELECT a.sid, a.judge AS judge_a, b.judge AS judge_b, a.dimension,
           a.band AS band_a, b.band AS band_b
    FROM banded a JOIN banded b
      ON b.sid = a.sid AND b.dimension = a.dimension AND a.judge < b.judge
), totals AS (
    SELECT sid, judge_a, judge_b, count(*) AS items,
           count(*) FILTER (WHERE band_a = band_b) AS agree
    FROM items GROUP BY ALL
), marg_a AS (
    SELECT sid, judge_a, judge_b, band_a AS band, count(*) AS k FROM items GROUP BY ALL
), marg_b AS (
    SELECT sid, judge_a, judge_b, band_b AS band, count(*) AS k FROM items GROUP BY ALL
), expected AS (
    SELECT t.sid, t.judge_a, t.judge_b,
           sum((coalesce(a.k, 0)::DOUBLE / t.items) * (coalesce(b.k, 0)::DOUBLE / t.items))
               AS p_expected
    FROM totals t
    JOIN marg_a a USING (sid, judge_a, judge_b)
    JOIN marg_b b USING (sid, judge_a, judge_b, band)
    GROUP BY ALL
)
SELECT t.sid, t.judge_a, t.judge_b, t.items, t.agree,
       t.agree::DOUBLE / t.items AS p_observed,
       coalesce(e.p_expected, 0.0::DOUBLE) AS p_expected,
       CASE WHEN coalesce(e.p_expected, 0.0) = 1.0 THEN 1.0::DOUBLE
            ELSE (t.agree::DOUBLE / t.items - coalesce(e.p_expected, 0.0))
                 / (1.0 - coalesce(e.p_expected, 0.0)) END AS kappa
FROM totals t LEFT JOIN expected e USING (sid, judge_a, judge_b);

CREATE OR REPLACE TEMP TABLE plugin_judge_kappa AS
SELECT c.sid, c.judges,
       avg(p.kappa) AS kappa,
       list({'judge_a': p.judge_a, 'judge_b': p.judge_b, 'dimensions': p.items,
             'kappa': p.kappa}
            ORDER BY p.judge_a, p.judge_b) FILTER (WHERE p.sid IS NOT NULL) AS pairs
FROM plugin_judge_count c
LEFT JOIN plugin_judge_pairs p USING (sid)
WHERE c.judges >= 2
GROUP BY c.sid, c.judges;
