-- effectiveness/v1 · 115 windows and trend rules                spec: effectiveness.md §5
-- Reads:    bind parameter $window (the --window option; NULL = this version's default).
-- Produces: windows — one row: window_runs (the "recent" runs averaged), trend_runs (runs
--           per half of the trend comparison: last trend_runs vs the trend_runs before),
--           trend_margin (|delta| beyond which a trend is improving/declining),
--           delta_decimals (the delta is rounded to this before the comparison) and
--           interval_level (coverage of the exact bootstrap interval of the delta).
-- The trend halves do not follow --window: the spec fixes them at 5 and 5.
CREATE OR REPLACE TEMP TABLE windows AS
SELECT CASE WHEN w < 1 THEN error('window must be at least 1 run') ELSE w END AS window_runs,
       5 AS trend_runs,
       0.05::DOUBLE AS trend_margin,
       6 AS delta_decimals,
       0.95::DOUBLE AS interval_level
FROM (SELECT coalesce(TRY_CAST($window AS INTEGER), 10) AS w);
