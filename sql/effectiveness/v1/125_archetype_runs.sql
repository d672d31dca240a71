-- effectiveness/v1 · 125 an archetype's runs, newest first      spec: effectiveness.md §5
-- Reads:    history_current (100), windows (115); bind parameter $scoring_version.
-- Produces: archetype_runs — one row per current history line of that scoring version
--           (grain: archetype × run): every history column, plus recency (1 = the
--           archetype's latest run by run_ts, ties by run_id), runs (the archetype's number
--           of runs), in_window (recency <= window_runs) and trend_half ('last' for the
--           newest trend_runs, 'prior' for the trend_runs before them, else NULL).
CREATE OR REPLACE TEMP TABLE archetype_runs AS
WITH ranked AS (
    SELECT h.*,
           row_number() OVER (PARTITION BY h.archetype
                              ORDER BY h.run_ts DESC, h.run_id DESC) AS recency,
           count(*) OVER (PARTITION BY h.archetype) AS runs
    FROM history_current h
    WHERE h.scoring_version = $scoring_version
)
SELECT r.*,
       r.recency <= w.window_runs AS in_window,
       CASE WHEN r.recency <= w.trend_runs THEN 'last'
            WHEN r.recency <= 2 * w.trend_runs THEN 'prior' END AS trend_half
FROM ranked r, windows w
ORDER BY r.archetype, r.recency;
