-- pipeline/v1 · 070 task rows for the per-pipeline report
-- (spec pipeline.md §1: summary, filesModified "carried into the report")
-- Reads: pl_task, pl_test_result, pl_d3, pl_shown() (009). Produces: pl_task_report, one row per
--   (pipeline_id, task_id), ordered by pl_pipeline_order, then pl_task_order (010): status (normalised),
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
--   whole, NULL without a summary). `summary` stays whole: the data.
-- pl_cell_chars(): the longest free text a markdown task cell shows, in characters as a
-- reader counts them (grapheme clusters: an accent or an emoji is never split). A 1 MB
-- summary was a 1 MB table cell.
CREATE OR REPLACE TEMP MACRO pl_cell_chars() AS 500;

CREATE OR REPLACE TEMP TABLE pl_task_report AS
SELECT t.pipeline_id, t.task_id, t.status, t.terminal, t.snapshots,
       t.created_at, t.completed_at, t.updated_at,
       t.summary, t.files_modified,
       -- BIGINT, as every count of a result (json_array_length gives UBIGINT)
       CASE WHEN json_type(t.deviations_json) = 'ARRAY'
            THEN json_array_length(t.deviations_json)::BIGINT END AS deviations,
       CASE WHEN coalesce(json_type(t.test_result_json), 'NULL') <> 'NULL'
            THEN coalesce(r.test_result, t.test_result_json::VARCHAR) END AS test_result,
       CASE WHEN coalesce(json_type(t.test_result_json), 'NULL') <> 'NULL'
            THEN pl_shown(coalesce(r.test_result, t.test_result_json::VARCHAR),
                          t.test_result_json) END AS test_result_shown,
       coalesce(r.total IS NOT NULL AND NOT d3.counts_unknown, false) AS test_result_counted,
       CASE WHEN coalesce(json_type(t.test_result_json), 'NULL') = 'NULL' THEN NULL
            WHEN r.too_large THEN 'too_large'
            WHEN r.total IS NULL THEN 'ignored'
            WHEN d3.counts_unknown THEN 'rate_unknown'
            ELSE 'counted'
       END AS test_result_use,
       t._file || ':' || t._line AS source,
       CASE WHEN length_grapheme(t.summary) > pl_cell_chars()
            THEN left_grapheme(t.summary, pl_cell_chars()) ELSE t.summary END AS summary_shown,
       greatest(length_grapheme(t.summary) - pl_cell_chars(), 0) AS summary_cut
FROM pl_task t
LEFT JOIN pl_test_result r ON r.pipeline_id = t.pipeline_id AND r.task_id = t.task_id
LEFT JOIN pl_d3 d3 ON d3.pipeline_id = t.pipeline_id
ORDER BY pl_pipeline_order(t.pipeline_id), pl_task_order(t.task_id);
