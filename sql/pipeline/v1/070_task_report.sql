-- pipeline/v1 · 070 task rows for the per-pipeline report
-- (spec pipeline.md §1: summary, filesModified "carried into the report")
-- Reads: pl_task, pl_test_result, pl_d3, pl_shown() (009). Produces: pl_task_report, one row per
--   (pipeline_id, task_id), ordered by pl_pipeline_order, then pl_task_order (000): status (normalised),
--   snapshots (lines seen), created_at, completed_at (completedAt, else NULL),
--   updated_at, summary, files_modified, deviations (items; NULL when absent or
--   not an array), test_result (the string as given), test_result_shown (as the
--   markdown shows it, pl_shown: quoted with \uXXXX when it holds a character that
--   looks blank or shows not at all, as its warning quotes it), test_result_counted
--   (whether it entered the pass rate: not when the pipeline's counts are unknown),
--   test_result_use (what became of it, for the report to say: NULL without a
--   testResult; 'counted'; 'ignored' (032's problem: not "PASS n/m", total 0, passed >
--   total); 'too_large' (a count past 9223372036854775807, 032); 'rate_unknown' (its
--   counts read, but the pipeline's pass rate is unknown: another result too large, or
--   the sums past that bound)), source (file:line of the winning snapshot),
--   summary_shown (the summary as the markdown's cell shows it: its first pl_cell_chars()
--   characters when it is longer) and summary_cut (the characters left out of it; 0 when
--   whole, NULL without a summary); test_result_cut, the characters of the test result
--   test_result_shown leaves out (it shows the first pl_cell_chars(), then quoted as
--   pl_shown quotes them); files_modified_shown (the files the cell lists: each whole while
--   the list, ", " between names, is within pl_cell_chars(), the one it reaches cut there,
--   none after it; NULL when files_modified is) and files_modified_cut (the characters of
--   that list left out). `summary`, `test_result` and `files_modified` stay whole: the data.
-- pl_cell_chars(): the longest free text a markdown task cell shows, in characters as a
-- reader counts them (grapheme clusters: an accent or an emoji is never split). A 1 MB
-- summary, test log or list of files was a 1 MB table cell.
CREATE OR REPLACE TEMP MACRO pl_cell_chars() AS 500;

CREATE OR REPLACE TEMP TABLE pl_task_report AS
WITH fm AS (
    -- `stop`: where a name ends in the cell's text (the names before it and their ", ").
    SELECT pipeline_id, task_id, i, f, length_grapheme(f) AS len,
           (sum(length_grapheme(f) + 2) OVER (PARTITION BY pipeline_id, task_id ORDER BY i
                                              ROWS UNBOUNDED PRECEDING))::BIGINT - 2 AS stop
    FROM (SELECT pipeline_id, task_id, unnest(files_modified) AS f,
                 generate_subscripts(files_modified, 1) AS i
          FROM pl_task
          -- only the lists the cell cuts: the others are shown as they are
          WHERE length_grapheme(array_to_string(files_modified, ', ')) > pl_cell_chars())
), fm_cell AS (
    SELECT pipeline_id, task_id,
           list(CASE WHEN stop <= pl_cell_chars() THEN f
                     ELSE left_grapheme(f, pl_cell_chars() - (stop - len)) END ORDER BY i)
               FILTER (WHERE stop - len < pl_cell_chars()) AS shown,
           -- a cut between two names leaves their ", " out too
           max(stop) - least(max(stop) FILTER (WHERE stop - len < pl_cell_chars()),
                             pl_cell_chars()) AS cut
    FROM fm
    GROUP BY pipeline_id, task_id
), tr AS (
    SELECT t.*, r.total, r.too_large,
           CASE WHEN coalesce(json_type(t.test_result_json), 'NULL') <> 'NULL'
                THEN coalesce(r.test_result, t.test_result_json::VARCHAR) END AS result_text
    FROM pl_task t
    LEFT JOIN pl_test_result r ON r.pipeline_id = t.pipeline_id AND r.task_id = t.task_id
)
SELECT t.pipeline_id, t.task_id, t.status, t.terminal, t.snapshots,
       t.created_at, t.completed_at, t.updated_at,
       t.summary, t.files_modified,
       -- BIGINT, as every count of a result (json_array_length gives UBIGINT)
       CASE WHEN json_type(t.deviations_json) = 'ARRAY'
            THEN json_array_length(t.deviations_json)::BIGINT END AS deviations,
       t.result_text AS test_result,
       -- A cut one is quoted (or not) by what the cell shows of it, as a whole one is by
       -- all of it: the JSON quoted is of the characters shown, so no escape is split (a
       -- result that is no string is its JSON text already).
       CASE WHEN length_grapheme(t.result_text) > pl_cell_chars()
            THEN pl_shown(left_grapheme(t.result_text, pl_cell_chars()),
                          CASE WHEN json_type(t.test_result_json) = 'VARCHAR'
                               THEN to_json(left_grapheme(t.result_text, pl_cell_chars()))
                               ELSE left_grapheme(t.result_text, pl_cell_chars()) END)
            ELSE pl_shown(t.result_text, t.test_result_json) END AS test_result_shown,
       greatest(length_grapheme(t.result_text) - pl_cell_chars(), 0) AS test_result_cut,
       coalesce(t.total IS NOT NULL AND NOT d3.counts_unknown, false) AS test_result_counted,
       CASE WHEN t.result_text IS NULL THEN NULL
            WHEN t.too_large THEN 'too_large'
            WHEN t.total IS NULL THEN 'ignored'
            WHEN d3.counts_unknown THEN 'rate_unknown'
            ELSE 'counted'
       END AS test_result_use,
       t._file || ':' || t._line AS source,
       CASE WHEN length_grapheme(t.summary) > pl_cell_chars()
            THEN left_grapheme(t.summary, pl_cell_chars()) ELSE t.summary END AS summary_shown,
       greatest(length_grapheme(t.summary) - pl_cell_chars(), 0) AS summary_cut,
       CASE WHEN fc.task_id IS NULL THEN t.files_modified ELSE fc.shown END
           AS files_modified_shown,
       CASE WHEN t.files_modified IS NOT NULL THEN coalesce(fc.cut, 0) END AS files_modified_cut
FROM tr t
LEFT JOIN pl_d3 d3 ON d3.pipeline_id = t.pipeline_id
LEFT JOIN fm_cell fc ON fc.pipeline_id = t.pipeline_id AND fc.task_id = t.task_id
ORDER BY pl_pipeline_order(t.pipeline_id), pl_task_order(t.task_id);
