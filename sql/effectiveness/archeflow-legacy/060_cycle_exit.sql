-- archeflow-legacy · 060 cycle exit                             spec: effectiveness.md §8
-- Reads:    events (010).
-- Produces: legacy_cycle_exit (run_id, cycle_exited) — the LAST cycle.boundary of the run
--           (input order) has a truthy data.met (jq `.data.met // false`: anything but
--           absent, null or false). Runs without a boundary have no row (false).
CREATE OR REPLACE TEMP TABLE legacy_cycle_exit AS
-- A boundary without an object data is still the last one (its met is absent: false);
-- arg_max would skip its NULL data and read an earlier boundary's.
SELECT run_id, _jq_present(arg_max(coalesce(data, '{}'::JSON), _ord) -> '$.met') AS cycle_exited
FROM events
WHERE type = 'cycle.boundary'
GROUP BY run_id;
