-- routes/v1 · policy defaults and the constants every later file reads.
-- Reads: bind parameters $tolerance, $min_labelled_per_route, $min_pairs, $max_ci_width,
--   $freshness_days, $min_stratum_overlap (each NULL = use the default below) and $as_of
--   (UTC timestamp text, the clock of spec §6 "Clock").
-- Produces: routes_policy (exactly one row): tolerance, min_labelled_per_route, min_pairs,
--   max_ci_width, freshness_days, min_stratum_overlap (spec §3 defaults 0.05/30/20/0.25/30/0.5),
--   z95 (two-sided 95% normal quantile used by every interval), blind_spot_min_episodes and
--   blind_spot_max_labelled_share (spec §6 blind_spot: 50 episodes, 20%),
--   harness_min_labelled_side (floor of labelled episodes per model and harness before a
--   harness shift is even considered; an extension, spec §6 harness_change), as_of.
-- Spec: routes.md §3 "Configurable policy", §4, §6.
SET TimeZone = 'UTC';

CREATE OR REPLACE TEMP TABLE routes_policy AS
SELECT
    coalesce(CAST($tolerance AS DOUBLE), 0.05) AS tolerance,
    coalesce(CAST($min_labelled_per_route AS BIGINT), 30) AS min_labelled_per_route,
    coalesce(CAST($min_pairs AS BIGINT), 20) AS min_pairs,
    coalesce(CAST($max_ci_width AS DOUBLE), 0.25) AS max_ci_width,
    coalesce(CAST($freshness_days AS BIGINT), 30) AS freshness_days,
    coalesce(CAST($min_stratum_overlap AS DOUBLE), 0.5) AS min_stratum_overlap,
    1.959963984540054 :: DOUBLE AS z95,
    50 :: BIGINT AS blind_spot_min_episodes,
    0.20 :: DOUBLE AS blind_spot_max_labelled_share,
    10 :: BIGINT AS harness_min_labelled_side,
    CAST($as_of AS TIMESTAMP) AS as_of;
