-- effectiveness/v1 · 070 composite weights and dimension constants   spec: effectiveness.md §3
-- Reads:    nothing.
-- Produces: eff_weights (dimension, weight_pct) — one row per composite dimension, the
--           weight in percent (integers keep the renormalised sums exact: 0.15/0.80 is
--           computed as 15/80);
--           eff_constants (name, value) — the constants of the dimension formulas.
CREATE OR REPLACE TABLE eff_weights AS
SELECT * FROM (VALUES
    ('signal_to_noise',      30),
    ('fix_rate',             25),
    ('cost_efficiency_norm', 20),
    ('accuracy',             15),
    ('cycle_impact',         10)
) AS t(dimension, weight_pct);

CREATE OR REPLACE TABLE eff_constants AS
SELECT * FROM (VALUES
    -- useful findings per dollar that count as a perfect cost efficiency
    ('cost_efficiency_perfect', 100.0)
) AS t(name, value);
