-- archeflow-legacy · 110 score thresholds                    spec: effectiveness.md §5, §6, §8
-- Reads:    nothing.
-- Produces: thresholds — one row: the cut-offs of ArcheFlow's `archeflow-score.sh report`
--           and `recommend` (the same numbers as effectiveness/v1), and compare_decimals:
--           ArcheFlow rounds the average to 2 decimals (`* 100 | round / 100`) before it
--           compares, so 0.696 counts as 0.70 here (v1 compares at 6 decimals).
CREATE OR REPLACE TEMP TABLE thresholds AS
SELECT 0.70::DOUBLE AS keep_min,          -- avg_composite >= keep_min: 'keep'
       0.40::DOUBLE AS optimize_min,      -- >= optimize_min: 'optimize', else 'consider_removing'
       0.70::DOUBLE AS suggest_high_min,  -- model suggestion: working well at or above this
       0.50::DOUBLE AS suggest_low_below, -- model suggestion: not contributing below this
       2 AS compare_decimals;
