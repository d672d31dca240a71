-- pipeline/v1 · 040 dimension table, composite and verdict (spec pipeline.md §3, §4)
-- Reads: pl_state, pl_d1..pl_d5, pl_dimension, pl_verdict. Produces:
--   pl_dim_score  one row per (scored pipeline, dimension): ord, code, label,
--                 json_key, score, weight, weighted = score × weight
--   pl_score      one row per scored pipeline: composite (Σ weighted, summed in
--                 D1..D5 order so the double is reproducible) and verdict (the
--                 lowest-rank pl_verdict row whose conditions hold; comparisons on
--                 values rounded to 6 decimals, strict >) and excellent_withheld
--                 (the composite clears EXCELLENT's bar but the test pass rate
--                 does not: unverified, or not above it; the report says why)
-- Pipelines with status 'not_terminal' get no rows: they are never scored.
CREATE OR REPLACE TEMP TABLE pl_dim_score AS
WITH s AS (
    SELECT pipeline_id, 'D1' AS code, score FROM pl_d1
    UNION ALL SELECT pipeline_id, 'D2', score FROM pl_d2
    UNION ALL SELECT pipeline_id, 'D3', score FROM pl_d3
    UNION ALL SELECT pipeline_id, 'D4', score FROM pl_d4
    UNION ALL SELECT pipeline_id, 'D5', score FROM pl_d5
)
-- ord is BIGINT, as every whole number of a result (001 writes INTEGER literals)
SELECT s.pipeline_id, d.ord::BIGINT AS ord, d.code, d.label, d.json_key, s.score, d.weight,
       s.score * d.weight AS weighted
FROM s
JOIN pl_dimension d ON d.code = s.code
JOIN pl_state st ON st.pipeline_id = s.pipeline_id
WHERE st.status = 'scored';

CREATE OR REPLACE TEMP TABLE pl_score AS
WITH c AS (
    SELECT pipeline_id, list_sum(list(weighted ORDER BY ord)) AS composite
    FROM pl_dim_score
    GROUP BY pipeline_id
)
SELECT c.pipeline_id, c.composite,
       (SELECT v.verdict
        FROM pl_verdict v
        WHERE (v.composite_above IS NULL OR pl_cmp(c.composite) > v.composite_above)
          AND (v.pass_rate_above IS NULL
               OR (d3.verified AND pl_cmp(d3.pass_rate) > v.pass_rate_above))
        ORDER BY v.rank
        LIMIT 1) AS verdict,
       EXISTS (
           SELECT 1 FROM pl_verdict v
           WHERE v.composite_above IS NOT NULL AND v.pass_rate_above IS NOT NULL
             AND pl_cmp(c.composite) > v.composite_above
             AND NOT coalesce(d3.verified AND pl_cmp(d3.pass_rate) > v.pass_rate_above, false)
       ) AS excellent_withheld
FROM c
JOIN pl_d3 d3 ON d3.pipeline_id = c.pipeline_id;
