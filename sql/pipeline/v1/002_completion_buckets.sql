-- pipeline/v1 · 002 D1 completion buckets (spec pipeline.md §3 D1)
-- Reads: nothing. Produces: pl_completion_bucket(min_rate, score): a completion
-- rate (0..100, rounded to 6 decimals) scores the bucket with the greatest
-- min_rate <= rate. rate = 100 → 100; >= 90 → 85; >= 75 → 70; >= 60 → 50; else 20.
CREATE OR REPLACE TEMP TABLE pl_completion_bucket AS
SELECT * FROM (VALUES
    (100.0::DOUBLE, 100.0::DOUBLE),
    ( 90.0::DOUBLE,  85.0::DOUBLE),
    ( 75.0::DOUBLE,  70.0::DOUBLE),
    ( 60.0::DOUBLE,  50.0::DOUBLE),
    (  0.0::DOUBLE,  20.0::DOUBLE)
) AS t(min_rate, score);
