-- pipeline/v1 · 001 dimensions and weights (spec pipeline.md §3, §6 dimensionWeights)
-- Reads: nothing. Produces: pl_dimension, one row per dimension:
--   ord (1..5, the tie order of recommendations), code (D1..D5),
--   json_key (key in the report's `dimensionWeights`), label (report wording),
--   weight (composite weight; the five sum to 1.00).
CREATE OR REPLACE TEMP TABLE pl_dimension AS
SELECT * FROM (VALUES
    (1, 'D1', 'taskCompletionRate', 'Task completion',  0.30::DOUBLE),
    (2, 'D2', 'deviationScore',     'Deviations',       0.20::DOUBLE),
    (3, 'D3', 'testPassRate',       'Test pass rate',   0.25::DOUBLE),
    (4, 'D4', 'timeEfficiency',     'Time efficiency',  0.10::DOUBLE),
    (5, 'D5', 'qualityScore',       'Quality',          0.15::DOUBLE)
) AS t(ord, code, json_key, label, weight);
