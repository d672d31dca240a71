-- routes/v1 · Mantel-Haenszel stratified difference and its 95% interval.
-- Reads: routes_mh_cells, routes_policy (z95).
-- Produces: routes_mh (grain: analysis x key x metric): strata, n1, x1, n0, x0 (summed over
--   strata), p1, p0 (MH-weighted rates), effect = p1 - p0 (the MH risk difference, group 1
--   minus group 0), neff1, neff0 (Kish effective sizes), ci_low, ci_high, ci_width (that of
--   the bounds as written). Rates, effect and interval are computed from the unrounded
--   rates and written by routes_stat (6 decimals, as compared): equal rates, weighted, came
--   out 1 ulp apart, and their difference read -1.11e-16 in JSON and markdown.
--   Sums over strata run over lists ordered by stratum, so reruns give identical bits.
-- Spec: routes.md §3 "Effect" — method: see 004_interval_macros.sql (stratified Newcombe
--   hybrid score interval with MH weights).
CREATE OR REPLACE TEMP TABLE routes_mh AS
WITH c AS (
    SELECT *, CAST(n1 AS DOUBLE) * n0 / (n1 + n0) AS w
    FROM routes_mh_cells WHERE n1 > 0 AND n0 > 0
),
a AS (
    SELECT analysis, key, metric,
        count(*) AS strata,
        CAST(sum(n1) AS BIGINT) AS n1, CAST(sum(x1) AS BIGINT) AS x1,
        CAST(sum(n0) AS BIGINT) AS n0, CAST(sum(x0) AS BIGINT) AS x0,
        list_sum(list(w ORDER BY s1 NULLS LAST, s2 NULLS LAST)) AS sw,
        list_sum(list(w * x1 / n1 ORDER BY s1 NULLS LAST, s2 NULLS LAST)) AS swp1,
        list_sum(list(w * x0 / n0 ORDER BY s1 NULLS LAST, s2 NULLS LAST)) AS swp0,
        list_sum(list(w * w / n1 ORDER BY s1 NULLS LAST, s2 NULLS LAST)) AS sww1,
        list_sum(list(w * w / n0 ORDER BY s1 NULLS LAST, s2 NULLS LAST)) AS sww0
    FROM c GROUP BY analysis, key, metric
),
p AS (
    SELECT analysis, key, metric, strata, n1, x1, n0, x0,
        swp1 / sw AS p1, swp0 / sw AS p0, sw * sw / sww1 AS neff1, sw * sw / sww0 AS neff0
    FROM a
)
SELECT analysis, key, metric, strata, n1, x1, n0, x0,
    routes_stat(p1) AS p1, routes_stat(p0) AS p0, neff1, neff0,
    routes_stat(p1 - p0) AS effect,
    routes_stat(routes_newcombe_lo(p1, neff1, p0, neff0, pol.z95)) AS ci_low,
    routes_stat(routes_newcombe_hi(p1, neff1, p0, neff0, pol.z95)) AS ci_high,
    -- the width of the interval as written, so that it is judged as a reader computes it
    routes_stat(routes_stat(routes_newcombe_hi(p1, neff1, p0, neff0, pol.z95))
                - routes_stat(routes_newcombe_lo(p1, neff1, p0, neff0, pol.z95))) AS ci_width
FROM p CROSS JOIN routes_policy pol;
