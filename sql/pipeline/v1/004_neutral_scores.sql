-- pipeline/v1 · 004 neutral scores and the test-result grammar (spec pipeline.md §3 D3, D4, D5)
-- Reads: nothing. Produces: pl_constant(name, value) and macro pl_test_pattern().
--   test_unverified_score  D3 when no testResult parses (pass rate *unverified*)
--   deviation_unknown_score D2 when a task's metadata.deviations is there but not an
--                          array: the count is unknown, neutral as D3's unverified rate
--                          (or the bucket of the items counted, when that is lower)
--                          (the spec counts an array's items and says nothing of another
--                          kind; counted as 0, such a pipeline scored D2's best, 100)
--   time_no_estimate_score D4 without an estimate (also used when the actual
--                          duration is unknown: timestamps missing or unparsable)
--   time_max_score         D4 when actual <= 0, and the cap of estimate/actual × 100
--   quality_base           D5 start value; quality_min / quality_max clamp D5
--   pl_test_pattern()      the testResult grammar, case-insensitive (a macro, so the
--                          regex is a constant and compiled once)
-- The spec's \s is written out as [\t\n\v\f\r ]: whitespace as Python's re (re.ASCII too),
-- JavaScript and PCRE read \s, and as pl_trim_ws (008) trims ids and statuses. RE2's \s
-- has no vertical tab, so "PASS<VT>3/4" was refused. Other blanks (a no-break space) stay
-- refused: no ASCII reading of the grammar takes them.
-- The words' case is folded in ASCII only, written out as [Pp][Aa]...: the grammar is ASCII
-- (Python's re.IGNORECASE | re.ASCII reads it so). RE2's 'i' flag folds Unicode, so "PA" U+017F
-- "S 3/4" (a long s) was a PASS, while "FA" U+0130 "L 3/4" (a dotted capital I) was refused.
CREATE OR REPLACE TEMP TABLE pl_constant AS
SELECT * FROM (VALUES
    ('test_unverified_score',  50.0::DOUBLE),
    ('deviation_unknown_score', 50.0::DOUBLE),
    ('time_no_estimate_score', 70.0::DOUBLE),
    ('time_max_score',        100.0::DOUBLE),
    ('quality_base',           60.0::DOUBLE),
    ('quality_min',             0.0::DOUBLE),
    ('quality_max',           100.0::DOUBLE)
) AS t(name, value);

CREATE OR REPLACE TEMP MACRO pl_test_pattern() AS
    '^[\t\n\v\f\r ]*([Pp][Aa][Ss][Ss]|[Ff][Aa][Ii][Ll])[\t\n\v\f\r ]+(\d+)[\t\n\v\f\r ]*/[\t\n\v\f\r ]*(\d+)[\t\n\v\f\r ]*$';
