-- effectiveness/v1 · 110 score thresholds                       spec: effectiveness.md §5, §6
-- Reads:    nothing.
-- Produces: thresholds — one row: the cut-offs that turn an average composite score into a
--           recommendation (§5), a model suggestion (§5) and a team action (§6), and the
--           number of decimals a score is rounded to before any comparison (README: "the
--           comparison is made on the value rounded to 6 decimal places").
-- Makes:    the macro eff_cmp_round(x, d) — x rounded to d decimals as every comparison
--           rounds it (130–160).
-- One rounding rule for comparing and for reading (README): the nearest, an exact tie to
-- the even digit, from the double as stored: the value as the reports print it at d
-- decimals, read back. DuckDB's round() sends a tie away from zero (0.0078125, an exact
-- double, is 0.007813 there and 0.007812 printed), so a value could be judged as one
-- number and shown beside its verdict as another.
CREATE OR REPLACE TEMP MACRO eff_cmp_round(x, d) AS CAST(format('{:.{}f}', x::DOUBLE, d) AS DOUBLE);

CREATE OR REPLACE TEMP TABLE thresholds AS
SELECT 0.70::DOUBLE AS keep_min,          -- avg_composite >= keep_min: 'keep'
       0.40::DOUBLE AS optimize_min,      -- >= optimize_min: 'optimize', else 'consider_removing'
       0.70::DOUBLE AS suggest_high_min,  -- model suggestion: working well at or above this
       0.50::DOUBLE AS suggest_low_below, -- model suggestion: not contributing below this
       6 AS compare_decimals;
