-- pipeline/v1 · 006 verdict thresholds (spec pipeline.md §4)
-- Reads: nothing. Produces: pl_verdict(rank, verdict, composite_above,
-- pass_rate_above). A pipeline gets the verdict of the lowest rank whose
-- conditions all hold; thresholds are strict `>` on values rounded to 6 decimals:
--   composite_above  NULL = no condition, else round(composite, 6) > value
--   pass_rate_above  NULL = no condition, else the test pass rate must be
--                    verified and round(rate, 6) > value
-- So a composite > 90 without a verified pass rate > 90 falls through to GOOD.
CREATE OR REPLACE TEMP TABLE pl_verdict AS
SELECT * FROM (VALUES
    (1, 'EXCELLENT',         90.0::DOUBLE, 90.0::DOUBLE),
    (2, 'GOOD',              75.0::DOUBLE, NULL::DOUBLE),
    (3, 'ACCEPTABLE',        60.0::DOUBLE, NULL::DOUBLE),
    (4, 'NEEDS_IMPROVEMENT', NULL::DOUBLE, NULL::DOUBLE)
) AS t(rank, verdict, composite_above, pass_rate_above);
