-- effectiveness/v1 · 130 rolling averages per archetype         spec: effectiveness.md §5
-- Reads:    archetype_recent (125: the newest runs of each archetype, as archetype_runs).
-- Makes:    the macros eff_model_name (160 uses it too), _agg_mean (135 uses it too)
--           and _window_mean.
-- Produces: archetype_aggregates — one row per archetype: runs, runs_in_window, the means
--           over the recent window (avg_composite, avg_signal_noise, avg_fix_rate,
--           avg_accuracy; avg_cost_efficiency and avg_cost_usd over their non-null values
--           only, NULL when none), cost_runs (recent runs with a known cost), model (most
--           frequent model in the window, a blank name counting as none, as §3 names a
--           model only when non-empty, and so does 'unknown' (any case): ArcheFlow's scorer
--           writes it for a missing model (§8), and 130's own "none" reads the same; tie:
--           the one used most recently; 'unknown' when none) and value_per_dollar (avg_composite / avg_cost_usd, NULL
--           when the cost is unknown or 0, or the ratio overflows a double).
-- Means are a left-to-right sum in run order divided by the count: deterministic to the
-- last bit, and the same arithmetic as ArcheFlow's jq `add / length`. Only when that sum
-- overflows a double (values near 1e308, which a hand-edited line can hold: the mean was
-- infinity, shown as null beside 'keep') is the mean the sum of the values times 2^-20
-- (exact), over the count, times 2^20: a window holds fewer than 2^20 runs (the engine
-- caps --window at 999,999), so that sum cannot overflow. 135 means its trend halves so.
-- The model a history line names, as counted (here, and by 160 for recommend): outer
-- whitespace (ASCII, as Python's str.strip()) is not part of a name, so " sonnet" and
-- "sonnet" are one model, shown trimmed; NULL for a blank name or 'unknown' (any case),
-- which name none. Lines extract writes are trimmed already (000); ArcheFlow's scorer and
-- hand-edited lines may not be.
CREATE OR REPLACE TEMP MACRO eff_model_name(m) AS
    CASE WHEN lower(trim(m, ' ' || chr(9) || chr(10) || chr(11) || chr(12) || chr(13)))
              NOT IN ('', 'unknown')
         THEN trim(m, ' ' || chr(9) || chr(10) || chr(11) || chr(12) || chr(13)) END;
CREATE OR REPLACE TEMP MACRO _agg_mean(total, scaled_total, n) AS
    CASE WHEN isfinite(total) THEN total / n ELSE scaled_total / n * 1048576 END;
-- The windowed mean of column x of archetype_recent, in run order (a macro body may name
-- the caller's columns: recency and in_window are the query's own).
CREATE OR REPLACE TEMP MACRO _window_mean(x) AS
    _agg_mean(sum(x ORDER BY recency DESC) FILTER (WHERE in_window),
              sum(x / 1048576) FILTER (WHERE in_window),
              count(x) FILTER (WHERE in_window));

CREATE OR REPLACE TEMP TABLE archetype_aggregates AS
WITH means AS (
    SELECT archetype,
           any_value(scoring_version) AS scoring_version,
           max(runs) AS runs,
           count(*) FILTER (WHERE in_window) AS runs_in_window,
           _window_mean(composite_score) AS avg_composite,
           _window_mean(signal_to_noise) AS avg_signal_noise,
           _window_mean(fix_rate) AS avg_fix_rate,
           _window_mean(cost_efficiency) AS avg_cost_efficiency,
           _window_mean(accuracy) AS avg_accuracy,
           _window_mean(cost_usd) AS avg_cost_usd,
           count(cost_usd) FILTER (WHERE in_window) AS cost_runs
    FROM archetype_recent
    GROUP BY archetype
), models AS (
    SELECT archetype, eff_model_name(model) AS model
    FROM archetype_recent
    WHERE in_window AND eff_model_name(model) IS NOT NULL
    GROUP BY archetype, eff_model_name(model)
    QUALIFY row_number() OVER (PARTITION BY archetype
                               ORDER BY count(*) DESC, min(recency) ASC) = 1
)
SELECT m.*,
       coalesce(o.model, 'unknown') AS model,
       -- A cost that is valid but absurd (1e-310, or a score near 1e308 over a cost under
       -- $1) makes the ratio overflow: infinity is no ratio, and JSON cannot hold it.
       CASE WHEN m.avg_cost_usd > 0 AND isfinite(m.avg_composite / m.avg_cost_usd)
            THEN m.avg_composite / m.avg_cost_usd END AS value_per_dollar
FROM means m
LEFT JOIN models o USING (archetype)
ORDER BY m.archetype;
