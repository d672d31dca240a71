-- archeflow-legacy · 070 composite weights and rounding         spec: effectiveness.md §8
-- Reads:    nothing.
-- Produces: legacy_weights — one row: the composite weights as ArcheFlow's jq writes them
--           (double literals, summed left to right, no renormalisation), the useful
--           findings per dollar that count as perfect, the weight of the accuracy penalty,
--           and the decimals each stored field is rounded to (jq `x * 10^d | round / 10^d`,
--           half away from zero).
CREATE OR REPLACE TEMP TABLE legacy_weights AS
SELECT 0.30::DOUBLE AS w_signal_to_noise,
       0.25::DOUBLE AS w_fix_rate,
       0.20::DOUBLE AS w_cost_efficiency,
       0.15::DOUBLE AS w_accuracy,
       0.10::DOUBLE AS w_cycle_impact,
       100.0::DOUBLE AS cost_efficiency_perfect,
       0.5::DOUBLE AS accuracy_penalty,
       100.0::DOUBLE AS score_scale,          -- scores stored to 2 decimals
       10.0::DOUBLE AS cost_efficiency_scale; -- cost_efficiency stored to 1 decimal
