-- pipeline/v1 · 007 recommendation triggers and sentences (spec pipeline.md §5)
-- Reads: nothing. Produces: pl_recommendation_rule, one row per (code, variant):
--   code       dimension the recommendation belongs to (D1..D5); its score orders
--              the recommendations (ascending, ties in D1..D5 order)
--   metric     what the trigger compares: 'score' (the dimension score) or
--              'deviation_count' (D2 triggers on the raw count, not the score)
--   op, threshold  trigger `metric op threshold`, on the value rounded to 6 decimals
--   variant    which sentence fits the evidence (050 picks it): 'default';
--              D3 'verified' / 'unverified' / 'unknown' (test counts too large to
--              count, 032); D5 'issues' (a task reported lint errors, unresolved
--              TODOs or files its formatter changed), 'no_issue' (quality reported,
--              no such issue: too few clean checks) / 'no_signal' (no quality reported)
--   sentence   the report text; {placeholders} are filled in 050 from the
--              pipeline's numbers (percentages and minutes with 2 decimals)
-- And pl_quality_finding, the phrase per D5 issue that 'issues' lists ({quality_findings},
-- in `ord` order) for the tasks that reported it: `one` for 1 task, `many` for more, {n}
-- the count. The sentence names what was found: it said "lint and format issues" of a
-- pipeline whose one issue was an unresolved TODO.
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
    ('D5', 'score', '<', 70.0::DOUBLE, 'issues',
     'Quality signals scored {score} of 100 (base {quality_base}): {quality_findings}; '
     || 'add a blocking lint gate that catches these before a task can complete.'),
    ('D5', 'score', '<', 70.0::DOUBLE, 'no_issue',
     'Quality signals scored {score} of 100 (base {quality_base}): no task reported an '
     || 'issue, but too few clean checks raise it (a clean lint run in {lint_clean} of '
     || '{tasks} tasks, an unchanged format in {format_clean}); add a blocking lint and '
     || 'format gate before a task can complete, so every task is checked.'),
    ('D5', 'score', '<', 70.0::DOUBLE, 'no_signal',
     'No task reported lint or format results, so quality stays at the neutral base '
     || '({score}): add a blocking lint and format gate before completion, so quality '
     || 'is both enforced and measured.')
) AS t(code, metric, op, threshold, variant, sentence);

CREATE OR REPLACE TEMP TABLE pl_quality_finding AS
SELECT * FROM (VALUES
    ('lint_errors',    1, '{n} task reported lint errors', '{n} tasks reported lint errors'),
    ('todos_open',     2, '{n} task left unresolved TODOs', '{n} tasks left unresolved TODOs'),
    ('format_changed', 3, 'the formatter changed files in {n} task',
                          'the formatter changed files in {n} tasks')
) AS t(signal, ord, one, many);
