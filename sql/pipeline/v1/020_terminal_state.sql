-- pipeline/v1 · 020 terminal state per pipeline (spec pipeline.md §2)
-- Reads: pl_task. Produces: pl_state, one row per pipeline:
--   pipeline_id, task_count, completed, failed, cancelled (latest statuses),
--   non_terminal_task_ids (in pl_task_order, 000; empty when all tasks are terminal),
--   status: 'scored' when every task is terminal, else 'not_terminal' (no score),
--   sources (distinct files of the winning snapshots, in input order).
CREATE OR REPLACE TEMP TABLE pl_state AS
SELECT pipeline_id,
       count(*) AS task_count,
       count(*) FILTER (WHERE status = 'completed') AS completed,
       count(*) FILTER (WHERE status = 'failed') AS failed,
       count(*) FILTER (WHERE status = 'cancelled') AS cancelled,
       coalesce(list(task_id ORDER BY pl_task_order(task_id)) FILTER (WHERE NOT terminal),
                []::VARCHAR[]) AS non_terminal_task_ids,
       CASE WHEN bool_and(terminal) THEN 'scored' ELSE 'not_terminal' END AS status,
       list_distinct(list(_file ORDER BY _ord)) AS sources_unordered,
       min(_ord) AS first_ord
FROM pl_task
GROUP BY pipeline_id;

-- list_distinct does not keep order; rebuild the file list in input order.
CREATE OR REPLACE TEMP TABLE pl_state AS
SELECT s.* EXCLUDE (sources_unordered),
       (SELECT list(f ORDER BY o)
        FROM (SELECT _file AS f, min(_ord) AS o FROM pl_task t
              WHERE t.pipeline_id = s.pipeline_id GROUP BY _file)) AS sources
FROM pl_state s;
