-- pipeline/v1 · 007 recommendation triggers and sentences (spec pipeline.md §5)
-- Reads: nothing. Produces: pl_recommendation_rule, one row per (code, variant):
--   code       dimension the recommendation belongs to (D1..D5); its score orders
--              the recommendations (ascending, ties in D1..D5 order)
--   metric     what the trigger compares: 'score' (the dimension score) or
--              'deviation_count' (D2 triggers on the raw count, not the score)
--   op, threshold  trigger `metric op threshold`, on the value rounded to 6 decimals
--   variant    which sentence fits the evidence (050 picks it): 'default';
--              D3 'verified' / 'unverified' / 'unknown' (test counts too large to
--              count, 032); D5 'signals' / 'no_signal'
--   sentence   the report text; {placeholders} are filled in 050 from the
--              pipeline's numbers (percentages and minutes with 2 decimals)
CREATE OR REPLACE TEMP TABLE pl_recommendation_rule AS
SELECT * FROM (VALUES
    ('D1', 'score', '<', 80.0::DOUBLE, 'default',
     'Only {completed} of {tasks} tasks completed ({completion_rate}%; {failed} failed, '
     || '{cancelled} cancelled): investigate the failed and cancelled tasks and add '
     || 'prerequisite checks to planning, so a task does not start before what it '
     || 'depends on is in place.'),
    ('D2', 'deviation_count', '>', 5.0::DOUBLE, 'default',
     '{deviations} deviations from the plan point to scope creep: tighten task scoping '
     || 'and add escalation gates, so a task that drifts from its plan stops for a decision.'),
    ('D3', 'score', '<', 80.0::DOUBLE, 'verified',
     'Tests are failing ({passed} of {total} passed, {pass_rate}%): enforce red-green TDD '
     || 'and a pre-completion test gate, so no task completes with failing tests.'),
    ('D3', 'score', '<', 80.0::DOUBLE, 'unverified',
     'No task reported a parsable test result, so the pass rate is unverified (neutral '
     || 'score {score}): enforce red-green TDD and a pre-completion test gate that '
     || 'records a "PASS n/m" result for every task.'),
    ('D3', 'score', '<', 80.0::DOUBLE, 'unknown',
     'The test counts the tasks report are too large to count (past 9223372036854775807), '
     || 'so the pass rate is unknown (neutral score {score}): check what writes the '
     || '"PASS n/m" results, and record the real counts for every task.'),
    ('D4', 'score', '<', 70.0::DOUBLE, 'default',
     'The pipeline took {actual_minutes} min against an estimate of {estimate_minutes} '
     || 'min (time efficiency {score}): the run went over its estimate; profile the '
     || 'slowest tasks, then parallelise or split them.'),
    ('D5', 'score', '<', 70.0::DOUBLE, 'signals',
     'Quality signals scored {score} of 100 (base {quality_base}): lint and format issues '
     || 'reached completion; add a blocking lint gate before a task can complete.'),
    ('D5', 'score', '<', 70.0::DOUBLE, 'no_signal',
     'No task reported lint or format results, so quality stays at the neutral base '
     || '({score}): add a blocking lint and format gate before completion, so quality '
     || 'is both enforced and measured.')
) AS t(code, metric, op, threshold, variant, sentence);
