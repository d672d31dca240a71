-- pipeline/v1 · 003 D2 deviation buckets (spec pipeline.md §3 D2)
-- Reads: nothing. Produces: pl_deviation_bucket(min_count, max_count, score):
-- a deviation count n scores the row with min_count <= n <= max_count
-- (max_count NULL = no upper bound). 0 → 100; 1–2 → 85; 3–5 → 65; 6–10 → 40; > 10 → 10.
CREATE OR REPLACE TEMP TABLE pl_deviation_bucket AS
SELECT * FROM (VALUES
    ( 0::BIGINT,  0::BIGINT,    100.0::DOUBLE),
    ( 1::BIGINT,  2::BIGINT,     85.0::DOUBLE),
    ( 3::BIGINT,  5::BIGINT,     65.0::DOUBLE),
    ( 6::BIGINT, 10::BIGINT,     40.0::DOUBLE),
    (11::BIGINT, NULL::BIGINT,   10.0::DOUBLE)
) AS t(min_count, max_count, score);
