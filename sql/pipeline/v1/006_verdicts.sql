-- pipeline/v1 · 006 verdict thresholds (spec pipeline.md §4)
-- Reads: nothing. Produces: pl_verdict(rank, verdict, composite_above,
-- pass_rate_above), and the macro pl_cmp(x): x rounded to 6 decimals, as every
-- threshold comparison of this pack rounds it (013–050). A pipeline gets the verdict
-- of the lowest rank whose conditions all hold; thresholds are strict `>` on values
-- rounded to 6 decimals:
--   composite_above  NULL = no condition, else pl_cmp(composite) > value
--   pass_rate_above  NULL = no condition, else the test pass rate must be
--                    verified and pl_cmp(rate) > value
-- pl_cmp's rule is the reports': the nearest, an exact tie to the even digit, from the
-- double as stored (the value as format prints it at 6 decimals, read back; README
-- "Rounding for reading"). DuckDB's round() sends a tie away from zero: 0.0078125, an
-- exact double, is 0.007813 there and 0.007812 printed, so a value was judged as one
-- number and printed beside its verdict as another.
-- So a composite > 90 without a verified pass rate > 90 falls through to GOOD.
CREATE OR REPLACE TEMP MACRO pl_cmp(x) AS CAST(format('{:.6f}', x::DOUBLE) AS DOUBLE);

CREATE OR REPLACE TEMP TABLE pl_verdict AS
SELECT * FROM (VALUES
    (1, 'EXCELLENT',         90.0::DOUBLE, 90.0::DOUBLE),
    (2, 'GOOD',              75.0::DOUBLE, NULL::DOUBLE),
    (3, 'ACCEPTABLE',        60.0::DOUBLE, NULL::DOUBLE),
    (4, 'NEEDS_IMPROVEMENT', NULL::DOUBLE, NULL::DOUBLE)
) AS t(rank, verdict, composite_above, pass_rate_above);
