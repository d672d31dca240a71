-- pipeline/v1 · 000 session settings, the order ids are listed in
-- Reads: nothing. Produces: the session's settings, and
--   macro pl_task_order the order task ids are listed in (020, 070, 124)
--   macro pl_pipeline_order the order pipeline ids are listed in (060, 070, 100, 110,
--                    the engine's result tables and notes: 120-124, the history's
--                    listings: 232, 234)
-- The macros are here, not in 010 beside what they order, as the history's readers run
-- only the input-free files 000-009: its listings (history_report's pipelines, the
-- pipeline_history_current view) sorted ids as text, q10 before q2.
-- Why UTC: every timestamp in this pack is compared and printed in UTC (spec README,
-- "Times are UTC ISO-8601"); a timestamp without an offset is read as UTC, so a
-- user's local time zone can never change a duration or a snapshot order.
SET TimeZone = 'UTC';
-- The order task ids are listed in (020's non-terminal ids, 070's task rows, the engine's
-- result.tasks): natural, as a user numbers tasks: the runs of ASCII digits compared as
-- numbers (t2 before t10; leading zeros do not count), the other runs as text, and ids
-- equal so (t02, t2) by their text. Runs alternate digits and text, so two ids differ in
-- the kind of a run only at their first: there `h` keeps the text order (a digit sorts
-- where "0" would). Text order alone put t10 and t100 between t1 and t2.
CREATE OR REPLACE TEMP MACRO pl_task_order(s) AS {
    'h': CASE WHEN regexp_matches(s, '^[0-9]') THEN '0' ELSE left(s, 1) END,
    'k': list_transform(regexp_extract_all(s, '[0-9]+|[^0-9]+'), lambda r:
             CASE WHEN regexp_matches(r, '^[0-9]')
                  THEN {'l': length(ltrim(r, '0')), 's': ltrim(r, '0')}
                  ELSE {'l': 0, 's': r} END),
    't': s};
-- Pipeline ids are listed so too: text order put p10 between p1 and p2 in the summaries,
-- the reports and the history's append order, beside tasks listed t1, t2, t10. Only the
-- order a list is in: what hashes a pipeline's inputs (060) keeps its own order.
CREATE OR REPLACE TEMP MACRO pl_pipeline_order(s) AS pl_task_order(s);
