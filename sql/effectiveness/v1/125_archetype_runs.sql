-- effectiveness/v1 · 125 an archetype's runs, newest first      spec: effectiveness.md §5
-- Reads:    history_current (100), windows (115); bind parameter $scoring_version.
-- Produces: archetype_runs (a view) — one row per current history line of that scoring
--           version (grain: archetype × run): every history column, plus recency (1 = the
--           archetype's latest run by run_ts, ties by run_id), runs (the archetype's number
--           of runs), in_window (recency <= window_runs) and trend_half ('last' for the
--           newest trend_runs, 'prior' for the trend_runs before them, else NULL);
--           archetype_recent — the same columns, only the rows with recency <=
--           greatest(window_runs, 2 · trend_runs): all that 130 and 135 read.
-- archetype_runs is a view for ad-hoc SQL: ranking every run sorts the whole history
-- (measured 2.7 s of a 24 s report over 1M lines), while the report needs the newest few
-- per archetype, which a top-N aggregate finds without sorting.
-- A view takes no bind parameters: the version it shows is kept in a one-row table.
CREATE OR REPLACE TEMP TABLE _archetype_runs_version AS
SELECT $scoring_version::VARCHAR AS scoring_version;

CREATE OR REPLACE TEMP VIEW archetype_runs AS
WITH ranked AS (
    SELECT h.*,
           row_number() OVER (PARTITION BY h.archetype
                              ORDER BY h.run_ts DESC, h.run_id DESC) AS recency,
           count(*) OVER (PARTITION BY h.archetype) AS runs
    FROM history_current h
    WHERE h.scoring_version = (SELECT scoring_version FROM _archetype_runs_version)
)
SELECT r.*,
       r.recency <= w.window_runs AS in_window,
       CASE WHEN r.recency <= w.trend_runs THEN 'last'
            WHEN r.recency <= 2 * w.trend_runs THEN 'prior' END AS trend_half
FROM ranked r, windows w
ORDER BY r.archetype, r.recency;

CREATE OR REPLACE TEMP TABLE archetype_recent AS
WITH top AS (
    -- (run_ts, run_id) is unique per archetype within a version: the order is total.
    SELECT archetype,
           count(*) AS runs,
           max_by(run_id, {'run_ts': run_ts, 'run_id': run_id},
                  (SELECT greatest(window_runs, 2 * trend_runs) FROM windows)) AS newest
    FROM history_current
    WHERE scoring_version = $scoring_version
    GROUP BY archetype
), ranked AS (
    SELECT archetype, runs, unnest(newest) AS run_id, generate_subscripts(newest, 1) AS recency
    FROM top
)
SELECT h.*,
       r.recency,
       r.runs,
       r.recency <= w.window_runs AS in_window,
       CASE WHEN r.recency <= w.trend_runs THEN 'last'
            WHEN r.recency <= 2 * w.trend_runs THEN 'prior' END AS trend_half
FROM ranked r
JOIN history_current h
  ON h.archetype = r.archetype AND h.run_id = r.run_id
 AND h.scoring_version = $scoring_version,
windows w
ORDER BY h.archetype, r.recency;
